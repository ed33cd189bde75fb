"""JS401 ops-ack-wait-below-processing-time."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import acks, pct, readable_ceil, written


class OpsAckWaitBelowProcessingTime(api.ConsumerRule):
    """A consumer's ack_wait (or a backoff step) is shorter than twice its P99 processing time.

    ## What it does
    Compares the effective `ack_wait` of a consumer that acks (`explicit` or `all`) with
    `factor` (default 2) times the P99 of its measured `ack_time` (the profile's
    `consumers["STREAM/consumer"].ack_time_ns.p99`, at least `min_samples` samples). When `backoff`
    is set, nats-server uses `backoff[0]` as the ack wait of the first delivery and
    `backoff[min(n, len-1)]` after the n-th redelivery, so every backoff step is checked.

    Without a profile for the consumer, the P99 declared in the annotation
    `jsops.io/processing-time-p99` (a Go duration) is used; with neither, the rule is silent.

    When more than `survivor_bias_ratio` (default 10%) of the consumer's deliveries were
    redeliveries, the message says that the P99 is survivor-biased: an attempt that outlives the
    ack wait is redelivered and leaves no ack sample (or one timed from the redelivery), so the
    measured P99 understates the real processing time.

    ## Why is this bad?
    `ack_time` runs from the (last) delivery to the ack, the same interval the server's ack timer
    measures. With an ack wait close to the P99, every slow afternoon turns the tail into
    redeliveries: the message is handed out again while the first attempt is still running,
    doubling work and side effects (duplicate API calls, double charges), and the extra load makes
    the tail longer still. Twice the P99 leaves room for the tail; consumers that send progress
    acks (`+WPI`) reset the timer and only need to cover the gap between them.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: fraud-check, stream: ORDERS}
    spec: {ack_wait: 5s, max_deliver: 3, filter_subject: orders.created}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: fraud-check, stream: ORDERS}
    spec: {ack_wait: 10s, max_deliver: 3, filter_subject: orders.created}
    ```

    ## Profile
    ```json
    {
      "version": 1,
      "generated_at": "2026-11-21T12:00:00Z",
      "consumers": {
        "ORDERS/fraud-check": {
          "ack_time_ns": {"samples": 50000, "p50": 900000000, "p90": 2600000000, "p99": 4100000000, "p999": 4900000000, "max": 5000000000},
          "deliveries": {"first_try_ratio": 0.96, "redelivered_ratio": 0.04, "max": 3}
        }
      }
    }
    ```

    ## Fix
    Safe (`jsops lint --fix`): raise the wait to the smallest readable duration at or above
    `factor` x P99 (whole seconds up to a minute, then `1m30s`-style steps of ten seconds up to
    ten minutes, then minutes): 2 x 4.1s gives `9s`. Without `backoff` the fix sets `ack_wait`.
    With `backoff` it raises every backoff step below the threshold to that value (longer steps
    are kept, so the schedule's shape stays), and when the manifest also writes `ack_wait` and
    `backoff[0]` changes, it sets `ack_wait` to the new `backoff[0]` so the two stay equal
    (see JS325). Making the handler faster, or sending progress acks, fixes the cause instead.
    """

    code = "JS401"
    name = "ops-ack-wait-below-processing-time"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES

    class Options(api.RuleOptions):
        factor: float = api.option(
            default=2.0, gt=0, description="the ack wait must be at least this many times the P99 ack time"
        )
        min_samples: int = api.option(
            default=100, ge=1, description="fewest ack samples a profile P99 needs to be used"
        )
        survivor_bias_ratio: float = api.option(
            default=0.10,
            ge=0,
            le=1,
            description="redelivered share of deliveries above which the P99 is called survivor-biased",
        )

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        eff = ctx.effective(resource)
        if not acks(eff) or eff.ack_wait <= 0:
            return
        opts = self.options
        prof = ctx.consumer_profile(resource)
        p99: int | None = None
        source = ""
        bias = ""
        if prof is not None and prof.ack_time_ns is not None and prof.ack_time_ns.samples >= opts.min_samples:
            p99 = prof.ack_time_ns.p99
            source = f"measured P99 ack time {api.approx_duration(p99)} ({prof.ack_time_ns.samples} samples)"
            if prof.deliveries is not None and prof.deliveries.redelivered_ratio > opts.survivor_bias_ratio:
                bias = (
                    f"; {pct(prof.deliveries.redelivered_ratio)} of deliveries were redeliveries, so this P99 is "
                    "survivor-biased (attempts that outlived the ack wait left no sample): the real processing time is longer"
                )
        if p99 is None:
            declared, problem = api.annotation_duration(resource.annotations, api.PROCESSING_TIME)
            if problem is not None:
                yield api.Violation(resource, (), problem + "; JS401 cannot check ack_wait against it", key=True)
                return
            if declared is None:
                return
            p99 = declared
            source = f"declared P99 processing time {api.approx_duration(p99)} ({api.PROCESSING_TIME})"
        threshold = int(p99 * opts.factor)
        if threshold <= 0:
            return
        factor = f"{opts.factor:g}"
        backoff = list(cfg.backoff or [])
        target = readable_ceil(threshold)
        if not backoff:
            wait = eff.ack_wait
            if wait >= threshold:
                return
            yield api.Violation(
                resource,
                ("ack_wait",),
                f"ack_wait {api.approx_duration(wait)} is below {factor} x the {source} = {api.approx_duration(threshold)}: slow deliveries are "
                f"redelivered while still being processed{bias}",
                fix=api.FixSuggestion.safe(
                    f"set ack_wait to {api.approx_duration(target)}",
                    (api.Edit.set(("ack_wait",), target, duration=True),),
                ),
            )
            return
        short = [i for i, step in enumerate(backoff) if step < threshold]
        if not short:
            return
        names = ", ".join(
            f"backoff[{i}] {api.approx_duration(backoff[i])}" + (" (the effective ack_wait)" if i == 0 else "")
            for i in short
        )
        edits = [api.Edit.set(("backoff", i), target, duration=True) for i in short]
        if short[0] == 0 and written(resource, "ack_wait"):
            edits.append(api.Edit.set(("ack_wait",), target, duration=True))
        what = "backoff step" + ("s" if len(short) > 1 else "")
        yield api.Violation(
            resource,
            ("backoff", short[0]),
            f"{names} {'is' if len(short) == 1 else 'are'} below {factor} x the {source} = {api.approx_duration(threshold)}: "
            f"slow deliveries are redelivered while still being processed{bias}",
            fix=api.FixSuggestion.safe(
                f"raise the {what} below {api.approx_duration(threshold)} to {api.approx_duration(target)}"
                + (" and ack_wait with backoff[0]" if len(edits) > len(short) else ""),
                tuple(edits),
            ),
        )


RULE = OpsAckWaitBelowProcessingTime

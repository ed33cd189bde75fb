"""JS407 ops-high-redelivery."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import pct, written


class OpsHighRedelivery(api.ConsumerRule):
    """More than 10% of a consumer's deliveries in the profile were redeliveries.

    ## What it does
    Reads the consumer's measured delivery mix (`consumers["STREAM/consumer"].deliveries.
    redelivered_ratio`: the share of deliveries that were not first tries) and warns above
    `max_ratio` (default 10%, Synadia Insights' OPT_SYS_002 "High Consumer Redelivery"). The
    message adds what the profile says about the cause: the ack wait against the P99 ack time
    (which is survivor-biased at such rates: attempts that outlived the ack wait left no sample),
    NAK, terminate and max-deliveries advisory counts. Without a profile for the consumer it is
    silent.

    ## Why is this bad?
    Every redelivery is work done twice, and side effects happen twice unless the handler is
    idempotent. Redeliveries come from ack timeouts (ack wait shorter than processing, see
    JS401), from NAKs (the handler fails) or from clients that crash; at this rate they also eat
    the consumer's `max_ack_pending` window and slow everyone down.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: fraud-check, stream: ORDERS}
    spec: {ack_wait: 5s, max_deliver: 3}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: scoring, stream: ORDERS}
    spec: {ack_wait: 30s, max_deliver: 3}
    ```

    ## Profile
    ```json
    {
      "version": 1,
      "generated_at": "2026-11-21T12:00:00Z",
      "consumers": {
        "ORDERS/fraud-check": {
          "ack_time_ns": {"samples": 40000, "p50": 1200000000, "p90": 3900000000, "p99": 4800000000, "p999": 4990000000, "max": 5000000000},
          "deliveries": {"first_try_ratio": 0.82, "redelivered_ratio": 0.18, "max": 3},
          "advisories": {"max_deliver": 310, "nak": 12}
        },
        "ORDERS/scoring": {
          "ack_time_ns": {"samples": 40000, "p50": 1200000000, "p90": 3900000000, "p99": 9800000000, "p999": 14000000000, "max": 21000000000},
          "deliveries": {"first_try_ratio": 0.99, "redelivered_ratio": 0.01, "max": 2}
        }
      }
    }
    ```

    ## Fix
    No automatic fix: find the cause. Ack timeouts call for a longer `ack_wait` (JS401) or
    progress acks; NAKs for a handler fix; a `max_deliver` advisory count for a look at the
    dead-letter queue.
    """

    code = "JS407"
    name = "ops-high-redelivery"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    class Options(api.RuleOptions):
        max_ratio: float = api.option(
            default=0.10, ge=0, le=1, description="highest accepted share of deliveries that are redeliveries"
        )

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        prof = ctx.consumer_profile(resource)
        if prof is None or prof.deliveries is None:
            return
        ratio = prof.deliveries.redelivered_ratio
        if ratio <= self.options.max_ratio:
            return
        eff = ctx.effective(resource)
        notes = []
        wait = eff.ack_wait
        if prof.ack_time_ns is not None and wait > 0:
            notes.append(
                f"ack wait {api.approx_duration(wait)} against a P99 ack time of {api.approx_duration(prof.ack_time_ns.p99)}, which is survivor-biased at this rate"
            )
        adv = prof.advisories
        if adv is not None:
            counts = [
                f"{n} {label}"
                for n, label in (
                    (adv.nak, "NAKs"),
                    (adv.terminated, "terminated"),
                    (adv.max_deliver, "max-deliveries advisories"),
                )
                if n
            ]
            if counts:
                notes.append(", ".join(counts))
        detail = f" ({'; '.join(notes)})" if notes else ""
        yield api.Violation(
            resource,
            ("ack_wait",) if written(resource, "ack_wait") else (),
            f"{pct(ratio)} of deliveries in the profile were redeliveries, above {pct(self.options.max_ratio)}{detail}",
            fix=api.FixSuggestion.unsafe(
                "find the cause: ack timeouts (raise ack_wait or send progress acks), NAKs, or crashing clients"
            ),
            key=not written(resource, "ack_wait"),
        )


RULE = OpsHighRedelivery

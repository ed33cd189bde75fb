"""JS403 ops-duplicate-window-memory."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import readable_floor, retry_horizon


class OpsDuplicateWindowMemory(api.StreamRule):
    """A stream's de-duplication table would hold more memory than the budget at its peak publish rate.

    ## What it does
    Estimates the memory nats-server spends on de-duplication for the stream: the profile's peak
    publish rate (`streams["NAME"].ingest.peak_per_s`) x the effective `duplicate_window` (in
    seconds) x `bytes_per_id` (default 150: the message id, its sequence and the map and timer
    entries) x `num_replicas`, and warns when it exceeds `budget` (default 64 MiB). Without a
    measured peak rate the rule is silent. Mirrors are skipped.

    The figure is an upper bound: it assumes every message carries a `Nats-Msg-Id` and that the
    peak second lasts the whole window.

    ## Why is this bad?
    Every id published within the window is kept in memory on every replica until the window has
    passed (an ack does not remove it); duplicates do not refresh it. A long window on a busy
    stream quietly takes hundreds of megabytes per server, memory that the streams'
    `max_bytes` and the account limits do not account for.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: CLICKS}
    spec: {subjects: ["clicks.>"], duplicate_window: 30m}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: CLICKS}
    spec: {subjects: ["clicks.>"], duplicate_window: 2m}
    ```

    ## Profile
    ```json
    {
      "version": 1,
      "generated_at": "2026-11-21T12:00:00Z",
      "streams": {
        "CLICKS": {"ingest": {"messages": 90000000, "mean_per_s": 1040.0, "peak_per_s": 2000}}
      }
    }
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`): shorten `duplicate_window` to the longest readable duration
    that fits the budget, when that still covers the publishers' retry horizon (JS402) and is at
    least a second; otherwise raise the budget or shorten the publishers' retries.
    """

    code = "JS403"
    name = "ops-duplicate-window-memory"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES

    class Options(api.RuleOptions):
        budget: api.Size = api.option(
            default="64MiB",
            validate_default=True,
            description="de-duplication memory allowed per stream, all replicas together",
        )
        bytes_per_id: int = api.option(default=150, gt=0, description="memory per remembered message id, bytes")

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.mirror is not None:
            return
        prof = ctx.stream_profile(resource)
        if prof is None or prof.ingest is None or not prof.ingest.peak_per_s:
            return
        eff = ctx.effective(resource)
        window = eff.duplicate_window
        if window <= 0:
            return
        rate = prof.ingest.peak_per_s
        replicas = max(int(eff.num_replicas or 1), 1)
        per_id = self.options.bytes_per_id
        ids = rate * window // api.SECOND
        cost = ids * per_id * replicas
        budget = self.options.budget
        if cost <= budget:
            return
        fit = readable_floor(budget * api.SECOND // (rate * per_id * replicas))
        horizon, _, _ = retry_horizon(resource, ctx)
        if fit >= api.SECOND and (horizon is None or fit >= horizon):
            fix = api.FixSuggestion.unsafe(
                f"set duplicate_window to {api.approx_duration(fit)}",
                (api.Edit.set(("duplicate_window",), fit, duration=True),),
            )
        else:
            fix = api.FixSuggestion.unsafe(
                "raise the budget option or shorten the publishers' retries: no window that fits covers them"
            )
        total = (
            f"{api.approx_size(ids * per_id)} x {replicas} replicas = {api.approx_size(cost)}"
            if replicas > 1
            else api.approx_size(cost)
        )
        yield api.Violation(
            resource,
            ("duplicate_window",),
            f"duplicate_window {api.approx_duration(window)} at the peak publish rate of {rate}/s keeps up to {ids:,} message ids: "
            f"about {total} of server memory, above the {api.approx_size(budget)} budget",
            fix=fix,
        )


RULE = OpsDuplicateWindowMemory

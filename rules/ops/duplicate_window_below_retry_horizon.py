"""JS402 ops-duplicate-window-below-retry-horizon."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from jsops.linter import api

from ._common import readable_ceil, retry_horizon


class OpsDuplicateWindowBelowRetryHorizon(api.StreamRule):
    """A stream's duplicate_window is shorter than its publishers' retry horizon.

    ## What it does
    Compares the stream's effective `duplicate_window` (2m when unset, capped to `max_age`) with
    how long after a message's first publish attempt its publishers still retry it: the profile's
    `streams["NAME"].publish_retry.horizon_p99_ns` (or `horizon_max_ns` with `use: max`), measured
    from publisher attempt logs as last attempt minus first attempt per retried `Nats-Msg-Id`.
    Without a measured horizon it uses the annotation `jsops.io/publish-retry-horizon` (a Go
    duration: attempts x timeout plus the backoff between them); with neither it is silent.
    Mirrors are skipped (they do not de-duplicate).

    ## Why is this bad?
    nats-server drops a publish whose `Nats-Msg-Id` it has seen within the window, counted from
    the first stored copy. A publisher retries when its first attempt timed out, but that attempt
    may have been stored; a retry that arrives after the window has passed is stored again, and
    consumers process the message twice.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: ORDERS
      annotations: {jsops.io/publish-retry-horizon: 1m}
    spec: {subjects: ["orders.>"], duplicate_window: 30s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: ORDERS
      annotations: {jsops.io/publish-retry-horizon: 1m}
    spec: {subjects: ["orders.>"], duplicate_window: 2m}
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`): set `duplicate_window` to the horizon rounded up to a readable
    duration, when that stays within `max_age` (a longer window costs server memory, see JS403).
    Shortening the publishers' retry loop is the other way out.
    """

    code = "JS402"
    name = "ops-duplicate-window-below-retry-horizon"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES

    class Options(api.RuleOptions):
        use: Literal["p99", "max"] = api.option(
            default="p99", description="which measured retry horizon the window must cover"
        )

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.mirror is not None:
            return
        horizon, source, problem = retry_horizon(resource, ctx, self.options.use)
        if problem is not None:
            yield api.Violation(resource, (), problem + "; JS402 cannot check duplicate_window against it", key=True)
            return
        if horizon is None:
            return
        eff = ctx.effective(resource)
        window = eff.duplicate_window
        if window <= 0 or window >= horizon:
            return
        target = readable_ceil(horizon)
        max_age = eff.max_age
        if max_age > 0 and target > max_age:
            fix = api.FixSuggestion.unsafe(
                f"shorten the publishers' retries: a window of {api.approx_duration(target)} would exceed max_age {api.approx_duration(max_age)}"
            )
        else:
            fix = api.FixSuggestion.unsafe(
                f"set duplicate_window to {api.approx_duration(target)}",
                (api.Edit.set(("duplicate_window",), target, duration=True),),
            )
        yield api.Violation(
            resource,
            ("duplicate_window",),
            f"duplicate_window {api.approx_duration(window)} is shorter than {source}: a retry after the window is stored again "
            "and consumers see the message twice",
            fix=fix,
        )


RULE = OpsDuplicateWindowBelowRetryHorizon

"""JS404 ops-duplicate-window-too-long."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import retry_horizon


class OpsDuplicateWindowTooLong(api.StreamRule):
    """A stream's duplicate_window is longer than an hour.

    ## What it does
    Flags an effective `duplicate_window` above `max_window` (default 1h, the threshold of Synadia
    Insights' OPT_SYS_019 "Large Deduplication Window"). It needs no profile. It stays silent when
    the publishers' retry horizon (measured in the profile, or declared in the annotation
    `jsops.io/publish-retry-horizon`) is itself longer than `max_window`: then the window is
    justified. A window longer than `max_age` is a rejection (JS102), not this rule's business;
    mirrors are skipped.

    ## Why is this bad?
    The NATS docs caution against large windows: the server remembers every message id for the
    whole window, in memory, on every replica. The window only has to cover how long publishers
    retry one message (seconds to minutes); hours of ids cost memory on a busy stream (see JS403
    for the estimate against a profile) and buy nothing.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d, duplicate_window: 6h}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d, duplicate_window: 2m}
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`): set `duplicate_window` to `max_window`; better, to the
    publishers' retry horizon (attempts x timeout plus backoff), and declare that horizon in
    `jsops.io/publish-retry-horizon` so JS402 checks it.
    """

    code = "JS404"
    name = "ops-duplicate-window-too-long"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    class Options(api.RuleOptions):
        max_window: api.Duration = api.option(
            default="1h",
            validate_default=True,
            description="longest duplicate_window accepted without a longer retry horizon",
        )

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.mirror is not None:
            return
        eff = ctx.effective(resource)
        window = eff.duplicate_window
        limit = self.options.max_window
        if window <= limit:
            return
        max_age = eff.max_age
        if max_age > 0 and window > max_age:
            return  # rejected by the server: JS102
        horizon, _, _ = retry_horizon(resource, ctx)
        if horizon is not None and horizon > limit:
            return
        yield api.Violation(
            resource,
            ("duplicate_window",),
            f"duplicate_window {api.approx_duration(window)} is longer than {api.approx_duration(limit)}: every message id is kept in server memory "
            "for that long on each replica, while publishers retry for seconds or minutes",
            fix=api.FixSuggestion.unsafe(
                f"set duplicate_window to {api.approx_duration(limit)} or to the publishers' retry horizon",
                (api.Edit.set(("duplicate_window",), limit, duration=True),),
            ),
        )


RULE = OpsDuplicateWindowTooLong

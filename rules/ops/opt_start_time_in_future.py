"""JS410 ops-opt-start-time-in-future."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from jsops.linter import api

# Go's time.UnixNano is undefined past this instant (int64 nanoseconds since 1970).
_UNIX_NANO_END = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=((1 << 63) - 1) // 1000)


class OpsOptStartTimeInFuture(api.ConsumerRule):
    """A consumer's opt_start_time lies in the future.

    ## What it does
    Flags a consumer with `deliver_policy: by_start_time` whose `opt_start_time` is later than
    now (plus `tolerance`, default 1m, for clock skew). The rule reads the clock, so a manifest
    that starts in the future stops being flagged once that time has passed.

    The other start-position mistakes are rejections, not this rule's business: `by_start_*`
    without its `opt_start_seq`/`opt_start_time`, a start option with another policy, and
    `last_per_subject` without a filter are refused by nats-server (JS218, err_code 10094). A
    `new` or `last` durable consumer that is recreated starts again at the end of the stream and
    skips what was published meanwhile; whether a consumer is being recreated depends on the live
    server, so the linter cannot see it: `jsops plan` shows the recreate and its consequence, and
    by default the reconciler recreates consumers at their old position.

    ## Why is this bad?
    nats-server does not wait for a future start time. It looks up the first message stored at or
    after that time, finds none, and starts after the last stored message: the consumer behaves
    like `deliver_policy: new` and delivers every message published from its creation on, those
    before the start time included (checked against nats-server 2.15). A time after the year 2262
    does not fit Go's nanosecond timestamps and wraps around: the consumer then delivers the whole
    stream.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit-2100, stream: ORDERS}
    spec: {deliver_policy: by_start_time, opt_start_time: "2100-01-01T00:00:00Z"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit-2026, stream: ORDERS}
    spec: {deliver_policy: by_start_time, opt_start_time: "2026-01-01T00:00:00Z"}
    ```

    ## Fix
    Unsafe: use `deliver_policy: new` (and drop `opt_start_time`) if the consumer should see only
    new messages; create the consumer when its start time has come; or have the consumer skip
    messages older than the start time itself.
    """

    code = "JS410"
    name = "ops-opt-start-time-in-future"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    reads_clock = True

    class Options(api.RuleOptions):
        tolerance: api.Duration = api.option(
            default="1m",
            validate_default=True,
            description="how far ahead of the clock a start time may be (clock skew)",
        )

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        start = cfg.opt_start_time
        if start is None or (cfg.deliver_policy or "all") != "by_start_time":
            return
        now = ctx.now()
        if start <= now + timedelta(microseconds=self.options.tolerance // 1000):
            return
        shown = start.astimezone(UTC).isoformat().replace("+00:00", "Z")
        if start > _UNIX_NANO_END:
            effect = "it is past the year 2262, which Go's nanosecond timestamps cannot hold: it wraps around and the consumer delivers the whole stream"
        else:
            effect = (
                "nats-server does not wait for it: the consumer starts after the last stored message, like deliver_policy new, "
                "and delivers what is published before that time too"
            )
        yield api.Violation(
            resource,
            ("opt_start_time",),
            f"opt_start_time {shown} is in the future; {effect}",
            fix=api.FixSuggestion.unsafe(
                "use deliver_policy new without opt_start_time, or create the consumer when its start time has come"
            ),
        )


RULE = OpsOptStartTimeInFuture

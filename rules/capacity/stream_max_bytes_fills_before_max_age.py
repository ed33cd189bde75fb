"""JS432 ops-stream-max-bytes-fills-before-max-age."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from jsops.linter import api

from ._common import byte_rate, ceil_size, human_rate


class OpsStreamMaxBytesFillsBeforeMaxAge(api.Rule):
    """At the measured byte rate, max_bytes is reached long before max_age: the effective retention is shorter than declared.

    ## What it does
    For a `limits` stream with both `max_bytes` and `max_age` set, divides `max_bytes` by the
    stream's stored byte rate from the profile (`streams.<name>.bytes.mean_per_s` by default, or
    `bytes.peak_per_s` with option `rate = "peak"`) and flags the stream when that fill time is
    shorter than `max_age`. The mean is the default because retention is about sustained volume:
    the busiest second of the window says little about how fast a day fills the stream. Without a
    profile, or when the profile has no byte rate for the stream, the rule stays silent.
    `max_bytes` is per replica and so is the byte rate, so replicas do not change the result.
    Interest and workqueue streams are skipped: they drop messages as consumers take them, so
    the ingest rate does not say how fast they fill. A profile whose window is shorter than the
    option `min_window` (default 1h) is extrapolated only as advice: the finding is info and names
    the window; any window shorter than a day is named in the message.

    ## Why is this bad?
    `max_age` reads like a promise ("we keep 30 days"), but the stream drops its oldest messages
    (`discard: old`) or refuses new ones (`discard: new`) as soon as it holds `max_bytes`. At the
    measured rate that happens long before `max_age`: replays, audits and late consumers find
    far less history than the manifest says, or publishers get errors.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d, max_bytes: 1GiB}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d, max_bytes: 20GiB}
    ```

    ## Profile
    ```json
    {"version": 1, "generated_at": "2026-11-21T12:00:00Z",
     "streams": {"ORDERS": {"bytes": {"mean_per_s": 7100.0, "peak_per_s": 210000}}}}
    ```
    7100 B/s fills 1GiB in about 42 hours; 30 days need about 17.1GiB.

    ## Fix
    No automatic fix (it changes cost). Raise `max_bytes` to at least the rate times `max_age`
    (the message gives the figure), or lower `max_age` to the retention you really get.
    """

    class Options(api.RuleOptions):
        rate: Literal["mean", "peak"] = api.option(
            default="mean", description="which profile figure to use: bytes.mean_per_s or bytes.peak_per_s"
        )
        min_window: api.Duration = api.option(
            default=api.HOUR,
            description="shortest profile window whose fill time is a warning; a shorter one gives info naming the window (Go duration)",
        )

    code = "JS432"
    name = "ops-stream-max-bytes-fills-before-max-age"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    bucket_words = True
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if ctx.profiles is None:
            return ()
        eff = ctx.effective_stream(resource)
        max_bytes, max_age = eff.max_bytes, eff.max_age
        if max_bytes <= 0 or max_age <= 0 or eff.retention != "limits":
            return ()
        which = self.options.rate
        window = ctx.profiles.window
        span = int((window.end - window.start).total_seconds() * api.SECOND) if window is not None else None
        profile = ctx.stream_profile(resource)
        rate = byte_rate(profile, which)
        if not rate:
            return ()
        fill_ns = int(max_bytes / rate * api.SECOND)
        if fill_ns >= max_age:
            return ()
        step = api.MINUTE if fill_ns >= api.HOUR else api.SECOND  # minutes are precise enough past an hour
        fill_text = api.format_duration(max(fill_ns // step, 1) * step)
        needed = api.format_size(ceil_size(rate * max_age / api.SECOND))
        if eff.discard == "new":
            effect = f"after about {fill_text} publishes are refused until messages age out"
        else:
            effect = f"messages are discarded after about {fill_text}, not after {resource.word('max_age')} {api.format_duration(max_age)}"
        short = span is not None and span < self.options.min_window  # minutes of traffic say little about days
        window_note = ""
        if span is not None and span < api.DAY:
            seen = api.format_duration(max(span // api.SECOND, 1) * api.SECOND)
            window_note = f" (over a {seen} profile window" + (
                f", shorter than min_window {api.format_duration(self.options.min_window)}: an extrapolation, not a measurement)"
                if short
                else ")"
            )
        return (
            api.Violation(
                resource,
                ("max_bytes",),
                f"at the profiled {which} byte rate {human_rate(rate)}{window_note}"
                + f", max_bytes {api.format_size(max_bytes)} fills "
                f"in about {fill_text}, before {resource.word('max_age')} {api.format_duration(max_age)}: {effect}",
                fix=api.FixSuggestion.unsafe(
                    f"raise max_bytes to at least {needed} or lower {resource.word('max_age')} to {fill_text}"
                    + (
                        f"; profile at least {api.format_duration(self.options.min_window)} of traffic first"
                        if short
                        else ""
                    ),
                ),
                severity=api.Severity.INFO if short else None,
            ),
        )


RULE = OpsStreamMaxBytesFillsBeforeMaxAge

"""JS431 ops-stream-without-limits."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsops.linter import api


class OpsStreamWithoutLimits(api.Rule):
    """A stream sets no retention limit at all: no max_age, max_bytes, max_msgs or max_msgs_per_subject.

    ## What it does
    Flags a stream whose effective `max_age` is 0 and whose `max_bytes`, `max_msgs` and
    `max_msgs_per_subject` are all unlimited (-1 or left out). Sealed streams are skipped (they
    cannot grow). The retention policy does not matter: interest and workqueue streams also keep
    every message no consumer has taken yet. Synadia Insights reports the same condition as
    OPT_SYS_001 "Streams Without Limits".

    ## Why is this bad?
    Nothing bounds the stream but the account's or the server's storage. A stalled consumer, a
    publisher loop or plain growth fills the disk (or memory) shared with every other stream,
    and then JetStream refuses writes for all of them, not only for this one.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: AUDIT}
    spec: {subjects: ["audit.>"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: AUDIT}
    spec: {subjects: ["audit.>"], max_age: 90d, max_bytes: 10GiB}
    ```

    ## Fix
    No automatic fix: the right bound is a business decision. Set `max_age` to how long the data
    is needed and `max_bytes` to what the stream may cost at most (or `max_msgs` /
    `max_msgs_per_subject` for last-value streams).
    """

    code = "JS431"
    name = "ops-stream-without-limits"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    bucket_words = True
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        cfg: Any = resource.config
        if any((getattr(cfg, k, None) or 0) > 0 for k in ("max_age", "max_bytes", "max_msgs", "max_msgs_per_subject")):
            return ()  # fast path: the raw config already sets a limit
        eff = ctx.effective_stream(resource)
        if eff.sealed:
            return ()
        if eff.max_age > 0:
            return ()
        if eff.max_bytes > 0 or eff.max_msgs > 0 or eff.max_msgs_per_subject > 0:
            return ()
        return (
            api.Violation(
                resource,
                (),
                f"{resource.label()} has no {_listed(resource.words('max_age', 'max_bytes', 'max_msgs', 'max_msgs_per_subject'), 'or')}: "
                "it grows until the account's or server's storage is full",
                fix=api.FixSuggestion.unsafe(
                    f"set {_listed(resource.words('max_age', 'max_bytes'), 'and')}{'' if resource.bucket else ' (or max_msgs)'} to the retention the data needs"
                ),
                key=True,  # at `spec:` (no field to point at)
            ),
        )


def _listed(words: list[str], conj: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conj} {words[-1]}"


RULE = OpsStreamWithoutLimits

"""JS218 consumer-deliver-policy-start-conflict."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

_NO_START = {"all": "all", "last": "last", "new": "new", "last_per_subject": "last per subject"}


class ConsumerDeliverPolicyStartConflict(api.ConsumerRule):
    """A consumer's deliver_policy does not agree with its opt_start_seq, opt_start_time or filter.

    ## What it does
    Checks the start position as the server does:
    * `all`, `last`, `new` and `last_per_subject` must not set `opt_start_seq` or `opt_start_time`;
    * `last_per_subject` needs `filter_subject` or `filter_subjects`;
    * `by_start_sequence` needs `opt_start_seq` and must not set `opt_start_time`;
    * `by_start_time` needs `opt_start_time` and must not set `opt_start_seq`.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10094, "consumer delivery policy is
    deliver ..., but optional start ... is also set / is not set").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: replay, stream: ORDERS}
    spec: {deliver_policy: all, opt_start_seq: 1000}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: replay, stream: ORDERS}
    spec: {deliver_policy: by_start_sequence, opt_start_seq: 1000}
    ```

    ## Fix
    Unsafe: choose the policy the start option implies (`by_start_sequence` or `by_start_time`), or
    remove the start option; add a filter for `last_per_subject`.
    """

    code = "JS218"
    name = "consumer-deliver-policy-start-conflict"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        policy = cfg.deliver_policy or "all"
        seq = cfg.opt_start_seq or 0
        has_time = cfg.opt_start_time is not None
        if policy == "all" and not seq and not has_time:
            return
        found = _problem(policy, seq, has_time, bool(cfg.filter_subject or cfg.filter_subjects))
        if found is None:
            return
        path, message, fix = found
        yield api.Violation(
            resource,
            path if getattr(cfg, path[0], None) is not None else ("deliver_policy",),
            message + "; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_INVALID_POLICY,
            fix=api.FixSuggestion.unsafe(fix),
        )


def _problem(policy: str, seq: int, has_time: bool, filtered: bool) -> tuple[tuple[str], str, str] | None:
    words = _NO_START.get(policy)
    if words is not None:
        if seq > 0:
            return (
                ("opt_start_seq",),
                f"deliver_policy {policy} with opt_start_seq set",
                "use deliver_policy by_start_sequence, or remove opt_start_seq",
            )
        if has_time:
            return (
                ("opt_start_time",),
                f"deliver_policy {policy} with opt_start_time set",
                "use deliver_policy by_start_time, or remove opt_start_time",
            )
        if policy == "last_per_subject" and not filtered:
            return (
                ("deliver_policy",),
                "deliver_policy last_per_subject without filter_subject or filter_subjects",
                "add a filter_subject",
            )
        return None
    if policy == "by_start_sequence":
        if seq == 0:
            return ("deliver_policy",), "deliver_policy by_start_sequence without opt_start_seq", "set opt_start_seq"
        if has_time:
            return (
                ("opt_start_time",),
                "deliver_policy by_start_sequence with opt_start_time set",
                "remove opt_start_time",
            )
    elif policy == "by_start_time":
        if not has_time:
            return ("deliver_policy",), "deliver_policy by_start_time without opt_start_time", "set opt_start_time"
        if seq != 0:
            return ("opt_start_seq",), "deliver_policy by_start_time with opt_start_seq set", "remove opt_start_seq"
    return None


RULE = ConsumerDeliverPolicyStartConflict

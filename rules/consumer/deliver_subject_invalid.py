"""JS208 consumer-deliver-subject-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_effective


class ConsumerDeliverSubjectInvalid(api.ConsumerRule):
    """A push consumer's deliver_subject is a wildcard, malformed, or inside its own stream.

    ## What it does
    Checks `deliver_subject` in the server's order: it must not contain a `*` or `>` wildcard token
    (err_code 10079), must be a valid subject (10112), and must not be matched by one of the
    stream's subjects (10081, "consumer deliver subject forms a cycle").

    ## Why is this bad?
    nats-server refuses to create the consumer. A deliver subject the stream captures would store
    every delivered message again and deliver it again, forever.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: orders.audit}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.orders.audit}
    ```

    ## Fix
    Unsafe: choose a literal deliver subject outside the stream's subjects; subscribers must use the
    new subject.
    """

    code = "JS208"
    name = "consumer-deliver-subject-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        subject = cfg.deliver_subject
        if not subject:
            return
        problem = _problem(subject, resource, ctx)
        if problem is not None:
            message, code, fix = problem
            yield api.Violation(
                resource,
                ("deliver_subject",),
                f"deliver_subject {subject!r} {message}",
                server_error_code=code,
                fix=api.FixSuggestion.unsafe(fix),
            )


def _problem(subject: str, resource: api.ConsumerResource, ctx: api.RuleContext) -> tuple[str, api.ErrCode, str] | None:
    """The first reason nats-server refuses ``subject`` as the consumer's deliver subject: (what is wrong,
    err_code, the fix), or None. The stream is read last: a bare consumer (no stream) gets the first two."""
    if not api.is_literal(subject):
        return (
            "has wildcards; nats-server rejects this consumer",
            api.ErrCode.CONSUMER_DELIVER_TO_WILDCARDS,
            "use a literal deliver subject",
        )
    if not api.is_valid_subject(subject):
        return (
            "is not a valid subject; nats-server rejects this consumer",
            api.ErrCode.CONSUMER_INVALID_DELIVER_SUBJECT,
            "use a subject of non-empty dot-separated tokens without whitespace",
        )
    stream = parent_effective(resource, ctx)
    for s in stream.subjects if stream is not None else ():
        if api.is_subset_match(subject, s):
            return (
                f"is captured by the stream's subject {s!r} and would form a cycle",
                api.ErrCode.CONSUMER_DELIVER_CYCLE,
                "choose a deliver subject outside the stream's subjects",
            )
    return None


RULE = ConsumerDeliverSubjectInvalid

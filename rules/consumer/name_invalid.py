"""JS201 consumer-name-invalid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from jsops.linter import api

_PATH_SEPARATORS = frozenset("/\\")
_BAD = frozenset(" \t\r\n\f.*>")
_ANY_BAD = re.compile(r"[ \t\r\n\f.*>/\\]")


class ConsumerNameInvalid(api.ConsumerRule):
    """A consumer's name or durable name contains a character nats-server does not accept.

    ## What it does
    Checks the consumer's `name` and `durable_name` (in the native dialect both default to
    `metadata.name`) for `.`, `*`, `>`, `/`, `\\` and whitespace.

    ## Why is this bad?
    nats-server refuses to create the consumer. A `/` or `\\` is refused before anything else
    (err_code 10127, "Consumer name can not contain path separators"); `*`, `>`, `.` or whitespace
    give err_code 10052 ("consumer name can not contain '.', '*', '>', '\\', '/'"). A name with a
    `.` or whitespace cannot even be put into the `$JS.API.CONSUMER.CREATE.<stream>.<consumer>`
    subject intact: the server reads a dotted name as a name plus a filter subject, so the request
    fails with a confusing mismatch error at best.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: orders.shipper, stream: ORDERS}
    spec: {filter_subject: orders.shipped}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: orders-shipper, stream: ORDERS}
    spec: {filter_subject: orders.shipped}
    ```

    ## Fix
    Unsafe: rename the consumer, replacing the offending characters with `-` or `_`. A new name is a
    new consumer: applications that bind to the old name must change too.
    """

    code = "JS201"
    name = "consumer-name-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        for fld, value in (("name", cfg.name or cfg.durable_name), ("durable_name", cfg.durable_name)):
            if not value or _ANY_BAD.search(value) is None:
                continue
            chars = set(value)
            if chars & _PATH_SEPARATORS:
                code, what = api.ErrCode.CONSUMER_NAME_CONTAINS_PATH_SEPARATORS, "a path separator ('/' or '\\')"
            elif chars & _BAD:
                code, what = api.ErrCode.STREAM_INVALID_CONFIG, "'.', '*', '>' or whitespace"
            else:
                continue
            yield ctx.refusal(
                resource,
                (fld,),
                f"consumer {fld} {value!r} contains {what}; nats-server rejects this consumer",
                code,
                fix=api.FixSuggestion.unsafe(f"rename the consumer to {_suggest(value)!r}"),
            )
            return  # the server stops at the first bad name


def _suggest(name: str) -> str:
    out = "".join("-" if ch in _BAD or ch in _PATH_SEPARATORS else ch for ch in name)
    return out.strip("-") or "consumer"


RULE = ConsumerNameInvalid

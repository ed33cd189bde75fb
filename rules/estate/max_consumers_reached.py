"""JS305 estate-max-consumers-reached."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import streams_with_consumers


class EstateMaxConsumersReached(api.Rule):
    """A stream declares more consumers than its `max_consumers` (or the account's) allows.

    ## What it does
    Counts each stream's consumers in declaration order (direct and sourcing consumers do not
    count) against the stream's `max_consumers`, or the target account's `max_consumers` when that
    is tighter or the stream sets none, and flags every consumer past the limit.

    ## Why is this bad?
    nats-server refuses to create a consumer once the limit is reached (err_code 10026, "maximum
    consumers limit reached").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_consumers: 1}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: billing, stream: ORDERS}
    spec: {}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipping, stream: ORDERS}
    spec: {}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_consumers: 2}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: billing, stream: ORDERS}
    spec: {}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipping, stream: ORDERS}
    spec: {}
    ```

    ## Fix
    Unsafe: raise `max_consumers`, or remove consumers.
    """

    code = "JS305"
    name = "estate-max-consumers-reached"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        account = ctx.target.account.max_consumers
        for stream, consumers in streams_with_consumers(ctx):
            eff = ctx.effective(stream)
            limit = api.refusals.consumer_limit(eff, account)
            whose = "the stream's" if limit == eff.max_consumers else "the account's"
            count = 0
            for res in consumers:
                if (code := api.refusals.consumer_create_refusal(eff, count, account)) is not None:
                    yield api.Violation(
                        res,
                        (),
                        f"consumer {res.name} is past {whose} max_consumers of {limit} for stream {stream.name} "
                        f"({api.where(stream, ('max_consumers',))}); nats-server refuses to create it",
                        server_error_code=code,
                        fix=api.FixSuggestion.unsafe("raise the stream's max_consumers or remove consumers"),
                        key=True,
                    )
                    continue
                count += 1


RULE = EstateMaxConsumersReached

"""JS306 estate-account-limits-exceeded."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class EstateAccountLimitsExceeded(api.Rule):
    """The streams of a context need more than the target account allows.

    ## What it does
    When the target gives the account's JetStream limits, replays stream creation in declaration
    order per context, as nats-server's standalone limit check does: the number of streams against
    `max_streams` (err_code 10027, "maximum number of streams reached"), and the bytes reserved by
    `max_bytes` (times the replicas) per storage type against `max_mem` (10028, "insufficient
    memory resources available") and `max_file` (10047, "insufficient storage resources
    available"). A stream without `max_bytes` reserves nothing but still needs one byte of room.
    Silent when the target does not give these limits.

    ## Why is this bad?
    nats-server refuses to create the streams past the limit.

    The examples assume the target `{account: {max_streams: 1}}` (`example_target`).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: PAYMENTS}
    spec: {subjects: ["payments.>"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_AND_PAYMENTS}
    spec: {subjects: ["orders.>", "payments.>"]}
    ```

    ## Fix
    Unsafe: lower `max_bytes`, merge streams, or raise the account's limits.
    """

    code = "JS306"
    name = "estate-account-limits-exceeded"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True
    example_target = {"account": {"max_streams": 1}}

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        acc = ctx.target.account
        max_streams = acc.max_streams or 0
        caps = {"memory": acc.max_mem, "file": acc.max_file}
        if max_streams <= 0 and caps["memory"] is None and caps["file"] is None:
            return
        for streams in ctx.streams_by_context().values():
            count = 0
            reserved = {"memory": 0, "file": 0}
            for res in streams:
                eff = ctx.effective(res)
                storage = eff.storage
                cap = caps.get(storage)
                code = api.refusals.stream_create_refusal(eff, count, max_streams, reserved[storage], cap)
                if code == api.ErrCode.MAXIMUM_STREAMS_LIMIT:
                    yield api.Violation(
                        res,
                        (),
                        f"stream {res.name} is past the account's max_streams of {max_streams}; nats-server refuses to create it",
                        server_error_code=code,
                        fix=api.FixSuggestion.unsafe("merge streams or raise the account's max_streams"),
                        key=True,
                    )
                    continue
                if code is not None and cap is not None:
                    what = "memory" if storage == "memory" else "storage"
                    yield api.Violation(
                        res,
                        ("max_bytes",),
                        f"stream {res.name} needs {api.format_size(api.refusals.requested(eff))} of {storage} storage but the account's "
                        f"max_{'mem' if storage == 'memory' else 'file'} of {api.format_size(cap)} has {api.format_size(max(cap - reserved[storage], 0))} "
                        f"left after the streams declared before it; nats-server refuses it (insufficient {what} resources)",
                        server_error_code=code,
                        fix=api.FixSuggestion.unsafe("lower max_bytes or raise the account's limit"),
                    )
                    continue
                count += 1
                reserved[storage] += api.refusals.reserved_by(eff)


RULE = EstateAccountLimitsExceeded

"""JS405 ops-max-deliver-unlimited."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import acks, written


class OpsMaxDeliverUnlimited(api.ConsumerRule):
    """A consumer that acks has no max_deliver: a poison message is redelivered forever.

    ## What it does
    Flags a consumer with `ack_policy` `explicit` or `all` whose effective `max_deliver` is -1
    (unset, 0 and -1 all mean unlimited). Direct and sourcing consumers are skipped.

    ## Why is this bad?
    A message the handler can never process (bad payload, missing reference) is redelivered
    after every ack wait, for as long as the stream keeps it: it takes a slot of
    `max_ack_pending`, burns handler time, and, because the limit is never reached, nats-server
    never publishes the `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES` advisory, so it never reaches
    a dead-letter queue and nobody is told.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SHIPPING}
    spec: {subjects: ["shipping.>"]}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: label-printer, stream: SHIPPING}
    spec: {ack_policy: explicit, ack_wait: 2m}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SHIPPING}
    spec: {subjects: ["shipping.>"]}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: label-printer, stream: SHIPPING}
    spec: {ack_policy: explicit, ack_wait: 2m, max_deliver: 5}
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`): set `max_deliver` to `suggested` (default 5), raised to the
    length of `backoff` when that is longer (the server refuses fewer deliveries than backoff
    steps), and to 10 on a workqueue stream with `discard: new` (see JS408). Then capture the
    max-deliveries advisory (JS406).
    """

    code = "JS405"
    name = "ops-max-deliver-unlimited"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    class Options(api.RuleOptions):
        suggested: int = api.option(default=5, ge=1, description="max_deliver the fix writes")

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.direct or cfg.sourcing:
            return
        eff = ctx.effective(resource)
        if not acks(eff) or eff.max_deliver != -1:
            return
        value = max(self.options.suggested, len(cfg.backoff or []))
        parent = ctx.stream_of(resource)
        if parent is not None:
            scfg = api.stream_config(parent)
            if scfg.retention == "workqueue" and scfg.discard == "new":
                value = max(value, 10)
        shown = f"max_deliver {cfg.max_deliver}" if written(resource, "max_deliver") else "max_deliver is not set"
        yield api.Violation(
            resource,
            ("max_deliver",) if written(resource, "max_deliver") else (),
            f"{shown} (unlimited): a message that always fails is redelivered forever and never produces a "
            "MAX_DELIVERIES advisory, so it never reaches a dead-letter queue",
            fix=api.FixSuggestion.unsafe(f"set max_deliver to {value}", (api.Edit.set(("max_deliver",), value),)),
            key=not written(resource, "max_deliver"),
        )


RULE = OpsMaxDeliverUnlimited

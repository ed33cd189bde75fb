"""JS213 consumer-pull-push-only-option."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerPullPushOnlyOption(api.ConsumerRule):
    """A pull consumer sets rate_limit_bps, idle_heartbeat or flow_control, which only push consumers have.

    ## What it does
    For a consumer without `deliver_subject` reports, in the server's order, a positive
    `rate_limit_bps` (err_code 10086), a positive `idle_heartbeat` (10088) and `flow_control: true`
    (10089).

    ## Why is this bad?
    nats-server refuses to create the consumer. Pull clients ask for heartbeats and limit their own
    rate per request instead.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {idle_heartbeat: 5s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {}
    ```

    ## Fix
    Safe: remove the push-only setting (pass heartbeats with each pull request instead).
    """

    code = "JS213"
    name = "consumer-pull-push-only-option"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.deliver_subject or not (
            cfg.rate_limit_bps or cfg.idle_heartbeat or cfg.flow_control or cfg.ack_policy == "flow_control"
        ):
            return
        eff = ctx.effective(resource)
        if eff.ack_policy == "flow_control":
            return  # JS205 explains this one (10218 comes first)
        for fld, code, bad in (
            ("rate_limit_bps", api.ErrCode.CONSUMER_PULL_WITH_RATE_LIMIT, (eff.rate_limit_bps or 0) > 0),
            ("idle_heartbeat", api.ErrCode.CONSUMER_HB_REQUIRES_PUSH, eff.idle_heartbeat > 0),
            ("flow_control", api.ErrCode.CONSUMER_FC_REQUIRES_PUSH, bool(eff.flow_control)),
        ):
            if bad:
                yield api.Violation(
                    resource,
                    (fld,),
                    f"{fld} is a push-consumer setting; nats-server rejects it on a pull consumer",
                    server_error_code=code,
                    fix=api.FixSuggestion.safe(f"remove {fld}"),
                )
                return


RULE = ConsumerPullPushOnlyOption

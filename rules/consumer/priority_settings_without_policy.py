"""JS224 consumer-priority-settings-without-policy."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerPrioritySettingsWithoutPolicy(api.ConsumerRule):
    """A consumer sets priority_groups or priority_timeout without a priority_policy.

    ## What it does
    When `priority_policy` is unset or `none`, reports `priority_groups` (err_code 10196, "consumer
    can not have priority groups when policy is none") and a positive `priority_timeout` (10197,
    "PinnedTTL cannot be set when PriorityPolicy is none").

    ## Why is this bad?
    nats-server refuses to create the consumer: the groups or the pin timeout would have no effect,
    so the policy was probably forgotten.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {priority_groups: [jobs]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {priority_policy: overflow, priority_groups: [jobs]}
    ```

    ## Fix
    Unsafe: set the intended `priority_policy` (`overflow`, `pinned_client` or `prioritized`), or
    remove the priority settings.
    """

    code = "JS224"
    name = "consumer-priority-settings-without-policy"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        policy = cfg.priority_policy
        if policy and policy != "none":
            return
        if cfg.priority_groups:
            yield ctx.refusal(
                resource,
                ("priority_groups",),
                "priority_groups without a priority_policy; nats-server rejects this consumer",
                api.ErrCode.CONSUMER_PRIORITY_GROUP_WITH_POLICY_NONE,
                fix=api.FixSuggestion.unsafe("set priority_policy, or remove priority_groups"),
            )
        elif (cfg.priority_timeout or 0) > 0:
            yield ctx.refusal(
                resource,
                ("priority_timeout",),
                "priority_timeout without a priority_policy; nats-server rejects this consumer",
                api.ErrCode.CONSUMER_PINNED_TTL_WITHOUT_PRIORITY_POLICY_NONE,
                fix=api.FixSuggestion.safe("remove priority_timeout"),
            )


RULE = ConsumerPrioritySettingsWithoutPolicy

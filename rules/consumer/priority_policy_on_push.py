"""JS222 consumer-priority-policy-on-push."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerPriorityPolicyOnPush(api.ConsumerRule):
    """A push consumer sets a priority_policy.

    ## What it does
    Reports a consumer with a `deliver_subject` whose `priority_policy` is not `none`.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10178, "priority groups can not be used
    with push consumers"): priority groups choose between pull requests.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, priority_policy: overflow, priority_groups: [jobs]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {priority_policy: overflow, priority_groups: [jobs]}
    ```

    ## Fix
    Unsafe: make it a pull consumer (remove `deliver_subject`), or remove the priority settings.
    """

    code = "JS222"
    name = "consumer-priority-policy-on-push"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        policy = cfg.priority_policy
        if policy and policy != "none" and cfg.deliver_subject:
            yield api.Violation(
                resource,
                ("priority_policy",),
                f"priority_policy {policy} on a push consumer; nats-server only allows priority groups on pull consumers",
                server_error_code=api.ErrCode.CONSUMER_PUSH_WITH_PRIORITY_GROUP,
                fix=api.FixSuggestion.unsafe("remove deliver_subject, or remove priority_policy and priority_groups"),
            )


RULE = ConsumerPriorityPolicyOnPush

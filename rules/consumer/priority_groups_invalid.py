"""JS223 consumer-priority-groups-invalid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from jsops.linter import api

from ._common import empty_entry

_GROUP = re.compile(r"[a-zA-Z0-9/_=-]{1,16}")


class ConsumerPriorityGroupsInvalid(api.ConsumerRule):
    """A pull consumer with a priority_policy has no priority groups, or a badly named one.

    ## What it does
    For a pull consumer whose `priority_policy` is not `none` checks that `priority_groups` is not
    empty (err_code 10159), that no group name is empty (10161) and that every name is 1 to 16
    characters from `A-Z a-z 0-9 - _ / =` (10162; the server's message also lists `)` and `+`, but
    its pattern does not accept them).

    ## Why is this bad?
    nats-server refuses to create the consumer.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {priority_policy: pinned_client, priority_groups: [orders.shipping]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {priority_policy: pinned_client, priority_groups: [orders-shipping]}
    ```

    ## Fix
    Unsafe: name the groups with the allowed characters (clients must use the same names).
    """

    code = "JS223"
    name = "consumer-priority-groups-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        policy = cfg.priority_policy
        if not policy or policy == "none" or cfg.deliver_subject:
            return
        groups = cfg.priority_groups or []
        if not groups:
            yield api.Violation(
                resource,
                ("priority_policy",),
                f"priority_policy {policy} needs at least one priority group; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_PRIORITY_POLICY_WITHOUT_GROUP,
                fix=api.FixSuggestion.unsafe("add priority_groups, or remove priority_policy"),
            )
            return
        for i, group in enumerate(groups):
            if group == "":
                yield empty_entry(resource, "priority_groups", i, api.ErrCode.CONSUMER_EMPTY_GROUP_NAME)
                return
            if _GROUP.fullmatch(group) is None:
                yield api.Violation(
                    resource,
                    ("priority_groups", i),
                    f"priority group name {group!r} must be 1-16 characters from A-Z a-z 0-9 - _ / =",
                    server_error_code=api.ErrCode.CONSUMER_INVALID_GROUP_NAME,
                    fix=api.FixSuggestion.unsafe("rename the group with allowed characters, at most 16"),
                )
                return


RULE = ConsumerPriorityGroupsInvalid

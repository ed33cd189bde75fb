"""JS203 consumer-replicas-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_effective


class ConsumerReplicasInvalid(api.ConsumerRule):
    """A consumer's num_replicas is negative or does not fit its stream or server.

    ## What it does
    Checks `num_replicas` (0 means "inherit the stream's"):
    * negative: err_code 10133 ("replicas count cannot be negative");
    * on a standalone server, more than 1: err_code 10074 ("replicas > 1 not supported in
      non-clustered mode");
    * in a cluster, more than the stream's replicas: err_code 10126 ("consumer config replica
      count exceeds parent stream"), and on an interest or workqueue stream anything other than the
      stream's replicas: err_code 10134 ("consumer config replicas must match interest retention
      stream's replicas").

    The target decides which: `clustered: false` means standalone, `clustered: true` (or a
    `cluster_size` above 1) a cluster. When the target says nothing about clustering, only a
    negative value is flagged (the others depend on the server jsops cannot see).

    ## Why is this bad?
    nats-server refuses to create the consumer.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {num_replicas: -1}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {num_replicas: 0}
    ```

    ## Fix
    Safe: remove `num_replicas` (or set it to 0) so the consumer inherits the stream's replicas.
    """

    code = "JS203"
    name = "consumer-replicas-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.SOMETIMES

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        replicas = cfg.num_replicas or 0
        if replicas == 0:
            return
        fix = api.FixSuggestion.safe("remove num_replicas so the consumer inherits the stream's replicas")
        t = ctx.target
        clustered = t.clustered
        if clustered is None and t.cluster_size is not None and t.cluster_size > 1:
            clustered = True
        if clustered is False and replicas > 1:
            msg = (
                f"num_replicas {replicas} on a standalone server; nats-server only supports 1 replica without a cluster"
            )
            yield api.Violation(
                resource, ("num_replicas",), msg, server_error_code=api.ErrCode.STREAM_REPLICAS_NOT_SUPPORTED, fix=fix
            )
            return
        if replicas < 0:
            msg = f"num_replicas {replicas} is negative; nats-server rejects this consumer"
            yield api.Violation(
                resource,
                ("num_replicas",),
                msg,
                server_error_code=api.ErrCode.REPLICAS_COUNT_CANNOT_BE_NEGATIVE,
                fix=fix,
            )
            return
        if clustered is not True:
            return
        # The stream is read only where it decides (a cluster): a consumer whose stream is unknown
        # still gets the checks against the target and of the sign.
        stream = parent_effective(resource, ctx)
        if stream is None:
            return
        stream_r = stream.num_replicas
        if replicas > stream_r:
            msg = f"num_replicas {replicas} is more than the stream's {stream_r}; nats-server rejects this consumer"
            yield api.Violation(
                resource,
                ("num_replicas",),
                msg,
                server_error_code=api.ErrCode.CONSUMER_REPLICAS_EXCEEDS_STREAM,
                fix=fix,
            )
            return
        if stream.retention in ("interest", "workqueue") and replicas != stream_r:
            msg = (
                f"num_replicas {replicas} differs from the {stream.retention} stream's {stream_r}; "
                "consumers of interest and workqueue streams must match the stream's replicas"
            )
            yield api.Violation(
                resource,
                ("num_replicas",),
                msg,
                server_error_code=api.ErrCode.CONSUMER_REPLICAS_SHOULD_MATCH_STREAM,
                fix=fix,
            )


RULE = ConsumerReplicasInvalid

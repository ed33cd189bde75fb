"""JS315 target-stream-replicas-unsupported."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class TargetStreamReplicasUnsupported(api.StreamRule):
    """A stream asks for more replicas than the target has servers.

    ## What it does
    When the target says the server is standalone (`clustered: false`), flags `num_replicas`
    above 1 (err_code 10074, "replicas > 1 not supported in non-clustered mode"); when it gives
    `cluster_size`, flags `num_replicas` above it (err_code 10005, "no suitable peers for
    placement"). Silent when the target does not say; replicas above 5 or negative are JS105's.
    Consumers' replicas are checked by JS203. The examples assume the target
    `{clustered: false}`.

    ## Why is this bad?
    nats-server cannot place the replicas and refuses to create the stream.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 3}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 1}
    ```

    ## Fix
    Unsafe: lower `num_replicas` to what the target can place (1 on a standalone server), or
    deploy to a larger cluster.
    """

    code = "JS315"
    name = "target-stream-replicas-unsupported"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    bucket_words = True
    example_target = {"clustered": False}

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        r = cfg.num_replicas or 1
        if r <= 1 or r > api.MAX_REPLICAS:
            return
        t = ctx.target
        if t.clustered is False:
            if cfg.persist_mode == "async":
                return  # refused earlier for async persist (JS113)
            yield api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.word('num_replicas')} {r} on a standalone server (target clustered: false); nats-server only supports 1 replica without a cluster",
                server_error_code=api.ErrCode.STREAM_REPLICAS_NOT_SUPPORTED,
                fix=api.FixSuggestion.unsafe(f"set {resource.word('num_replicas')} to 1"),
            )
        elif t.cluster_size is not None and t.cluster_size > 0 and r > t.cluster_size:
            yield api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.word('num_replicas')} {r} is more than the target cluster's {t.cluster_size} servers; nats-server finds no peers to place the stream",
                server_error_code=api.ErrCode.CLUSTER_NO_PEERS,
                fix=api.FixSuggestion.unsafe(f"set {resource.word('num_replicas')} to {t.cluster_size} or fewer"),
            )


RULE = TargetStreamReplicasUnsupported

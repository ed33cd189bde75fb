"""JS119 stream-republish-cycle."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamRepublishCycle(api.StreamRule):
    """A stream republishes onto its own subjects.

    ## What it does
    Checks the effective `republish.dest` (after the server's implicit rewrite from
    `subject_transform`) against every stream subject. nats-server 2.10 makes no implicit
    rewrite: with a target of 2.10, a `'>'` to `'>'` republish beside a subject transform is
    checked as written, and is a cycle.

    ## Why is this bad?
    Each republished message would be stored again and republished again, forever. nats-server
    refuses to create or update the stream (err_code 10052, "stream configuration for republish
    destination forms a cycle").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      republish: {src: "orders.>", dest: "orders.copy.>"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      republish: {src: "orders.>", dest: "events.orders.>"}
    ```

    ## Fix
    Republish into a namespace the stream does not capture.
    """

    code = "JS119"
    name = "stream-republish-cycle"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.republish is None:
            return
        eff = ctx.effective(resource)
        if eff.republish is None:
            return
        dest = eff.republish.dest
        if api.target_release(ctx.target) < api.IMPLICIT_REPUBLISH_SINCE:
            dest = cfg.republish.dest  # 2.10 checks the destination as written (no implicit republish)
        for s in eff.subjects:
            if api.subjects_collide(dest, s):
                yield api.Violation(
                    resource,
                    ("republish", "dest"),
                    f"republish destination {dest!r} overlaps stream subject {s!r} and forms a cycle; nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                )
                return


RULE = StreamRepublishCycle

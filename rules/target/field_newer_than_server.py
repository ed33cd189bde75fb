"""JS311 target-field-newer-than-server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsops.linter import api


def _set(value: object) -> bool:
    """A value that would reach the server (the zero value of a Go field is omitted or harmless)."""
    return value is not None and value is not False and value != 0 and value != "" and value != [] and value != {}


class TargetFieldNewerThanServer(api.Rule):
    """A manifest uses a field or value that the target's nats-server version does not know.

    ## What it does
    When the target gives `server_version`, compares every field the manifest sets (and the
    fields of `mirror` and `sources` entries, and enum values such as `ack_policy: flow_control`)
    with the release that introduced it (`linter/semantics/releases.py`, from server-rules.md §5),
    and a field the server dropped (`template_owner`, gone from 2.14) with the first release that
    no longer decodes it.

    ## Why is this bad?
    From 2.12 nats-server decodes API requests strictly and refuses an unknown field (err_code
    10025, "invalid JSON: json: unknown field"); older servers silently drop it, so the stream or
    consumer is created without the behaviour the manifest asks for: on those releases the finding
    is a warning (nothing is refused) and the other rules judge the object without the field. An
    unknown enum value fails to decode on every version (10025). The examples assume the target
    `{server_version: "2.12.0"}`.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVENTS}
    spec: {subjects: ["events.>"], allow_batched: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVENTS}
    spec: {subjects: ["events.>"], max_age: 24h}
    ```

    ## Fix
    Unsafe: upgrade the servers first, or remove the field.
    """

    code = "JS311"
    name = "target-field-newer-than-server"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream", "Consumer"})
    example_target = {"server_version": "2.12.0"}
    sees_dropped_fields = True  # the other rules judge the object without the dropped fields

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterator[api.Violation]:
        yield from self._removed_fields(resource, ctx.release)  # the newest release's answer without a target
        version = api.parse_version(ctx.target.server_version)
        if version is None:
            return
        cfg = resource.config
        table = api.STREAM_FIELDS if resource.kind == "Stream" else api.CONSUMER_FIELDS
        for field in cfg.model_fields_set:
            value = getattr(cfg, field)
            if not _set(value):
                continue
            since = table.get(field)
            if since is not None and since > version:
                yield self._violation(
                    resource, (field,), f"field {field}", since, version, strict=version >= api.STRICT_JSON_DEFAULT
                )
                continue
            if isinstance(value, str):
                since = api.ENUM_VALUES.get((resource.kind, field, value))
                if since is not None and since > version:
                    yield self._violation(resource, (field,), f"{field}: {value}", since, version, strict=True)
        if resource.kind == "Stream":
            entries: list[tuple[api.FieldPath, Any]] = []
            scfg = api.stream_config(resource)
            placement = scfg.placement
            if placement is not None:
                for field in placement.model_fields_set:
                    since = api.PLACEMENT_FIELDS.get(field)
                    if since is not None and since > version and _set(getattr(placement, field)):
                        yield self._violation(
                            resource,
                            ("placement", field),
                            f"field placement.{field}",
                            since,
                            version,
                            strict=version >= api.STRICT_JSON_DEFAULT,
                        )
            if scfg.mirror is not None:
                entries.append((("mirror",), scfg.mirror))
            entries.extend((("sources", i), s) for i, s in enumerate(scfg.sources or []) if s is not None)
            for path, src in entries:
                for field in src.model_fields_set:
                    since = api.STREAM_SOURCE_FIELDS.get(field)
                    if since is not None and since > version and _set(getattr(src, field)):
                        where = ".".join(str(p) for p in (*path, field))
                        yield self._violation(
                            resource,
                            (*path, field),
                            f"field {where}",
                            since,
                            version,
                            strict=version >= api.STRICT_JSON_DEFAULT,
                        )

    def _removed_fields(self, resource: api.Resource, release: api.Version) -> Iterator[api.Violation]:
        """The fields set that ``release`` no longer decodes (a field the server dropped)."""
        removed_in = api.STREAM_FIELDS_REMOVED if resource.kind == "Stream" else api.CONSUMER_FIELDS_REMOVED
        for field in sorted(resource.config.model_fields_set & removed_in.keys()):
            removed = removed_in[field]
            if removed <= release and _set(getattr(resource.config, field)):
                yield self._removed(resource, (field,), removed, release, strict=release >= api.STRICT_JSON_DEFAULT)

    def _removed(
        self, resource: api.Resource, path: api.FieldPath, removed: api.Version, version: api.Version, *, strict: bool
    ) -> api.Violation:
        what, target = ".".join(str(p) for p in path), api.format_version(version)
        known = f"field {what} was removed in nats-server {api.format_version(removed)}; the target runs {target}"
        msg = f"{known}, which rejects it as invalid JSON" if strict else f"{known}, which silently drops it"
        return api.Violation(
            resource,
            path,
            msg,
            server_error_code=api.ErrCode.INVALID_JSON if strict else None,
            fix=api.FixSuggestion.unsafe(f"remove {what}"),
            key=True,
            severity=None if strict else api.Severity.WARNING,
        )

    def _violation(
        self,
        resource: api.Resource,
        path: api.FieldPath,
        what: str,
        since: api.Version,
        version: api.Version,
        *,
        strict: bool,
    ) -> api.Violation:
        target = api.format_version(version)
        if strict:
            msg = f"{what} needs nats-server {api.format_version(since)} or newer; the target runs {target}, which rejects it as invalid JSON"
        else:
            msg = f"{what} needs nats-server {api.format_version(since)} or newer; the target runs {target}, which silently drops it"
        return api.Violation(
            resource,
            path,
            msg,
            server_error_code=api.ErrCode.INVALID_JSON if strict else None,
            fix=api.FixSuggestion.unsafe(f"upgrade the servers to {api.format_version(since)} or remove it"),
            key=True,
            severity=None if strict else api.Severity.WARNING,
        )


RULE = TargetFieldNewerThanServer

"""The record of API changes created by one config switch (``drift.record``, docs/drift.md): the
manifest of the record stream, written here once, and the desired stream it adds to a target's plan
as if a manifest declared it. ``docs/examples/drift/api-audit-record.yaml`` is this manifest with the
switch's defaults (tests/reconciler/test_drift_switch.py holds them equal)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from jsops.linter import Estate, LintTarget, format_duration, is_subset_match, load_manifest_text

from .advisories import ADVISORY_SUBJECT

if TYPE_CHECKING:
    from jsops.linter.config_parts import DriftRecord

    from ..plan import Desired

__all__ = ["RECORD_FILE", "RECORD_NAME", "record_manifest", "with_record"]

RECORD_NAME = "JSOPS_API_AUDIT"
RECORD_FILE = "jsops config: drift.record"  # where a plan says the stream comes from


def record_manifest(record: DriftRecord, context: str = "default") -> str:
    """The record stream's manifest (YAML) for the switch's bounds, in ``context``'s account."""
    ctx = f"  context: {context}\n" if context != "default" else ""
    return (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n"
        f"  name: {RECORD_NAME}\n{ctx}"
        "spec:\n"
        "  description: JetStream API audit advisories of this account (who changed what),"
        " for jsops drift attribution\n"
        "  subjects:\n"
        f'    - "{ADVISORY_SUBJECT}"\n'
        "  retention: limits\n  storage: file\n"
        f"  num_replicas: {record.num_replicas}\n"
        "  discard: old\n"
        f"  max_age: {format_duration(round(record.max_age * 1e9))}\n"
        f"  max_bytes: {record.max_bytes}\n"
        f"  max_msgs: {record.max_msgs}\n"
        "  max_msg_size: 1MiB\n"
        "  duplicate_window: 2m\n"
    )


def _records(desired: Iterable[Desired]) -> bool:
    """Whether a desired stream already records the advisories (a manifest's record wins)."""
    return any(
        d.kind == "Stream"
        and (d.name == RECORD_NAME or any(is_subset_match(ADVISORY_SUBJECT, s) for s in d.stream_config.subjects))
        for d in desired
    )


def with_record(
    desired: list[Desired], record: DriftRecord | None, contexts: Sequence[str], target: LintTarget | None = None
) -> list[Desired]:
    """``desired`` (one target's objects, of ``contexts``) with the record stream the switch adds, unless
    the switch is off or a manifest of the target declares a record already."""
    if record is None or _records(desired):
        return desired
    from ..plan import desired_from_estate

    context = "default" if "default" in contexts or not contexts else sorted(contexts)[0]
    estate = Estate()
    load_manifest_text(record_manifest(record, context).encode(), RECORD_FILE, estate)
    return [*desired, *desired_from_estate(estate, contexts=[context], target=target, root=".")]

"""Findings are data: what is wrong, where, and what the server would answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["Severity", "ObjectRef", "Edit", "FixSuggestion", "Finding", "LOAD_CODES", "LoadCode"]


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True)
class ObjectRef:
    kind: str
    name: str
    stream: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "stream": self.stream}

    def __str__(self) -> str:
        return f"{self.kind} {self.stream}/{self.name}" if self.stream else f"{self.kind} {self.name}"


@dataclass(frozen=True)
class Edit:
    """One change to a manifest: set a field to a value, or remove it.

    A rule gives ``path`` as a config field path (``("duplicate_window",)``), the same path its
    violation names; the engine resolves it to a path in the YAML document (``document`` is then the
    document's index in its file). ``value`` is written as YAML; ``duration`` marks a value in
    nanoseconds that each dialect spells its own way (``1m`` natively, ``1m0s`` in NACK).
    """

    op: str  # "set" | "remove"
    path: tuple[Any, ...]
    value: Any = field(default=None, hash=False)  # may be a list or a mapping
    duration: bool = False
    document: int | None = None

    @classmethod
    def set(cls, path: tuple[Any, ...], value: Any, *, duration: bool = False) -> Edit:
        return cls("set", tuple(path), value, duration)

    @classmethod
    def remove(cls, path: tuple[Any, ...]) -> Edit:
        return cls("remove", tuple(path))


@dataclass(frozen=True)
class FixSuggestion:
    applicability: str  # "safe" | "unsafe"
    description: str
    edits: tuple[Edit, ...] = ()  # empty: advice only, nothing ``--fix`` can apply

    def as_dict(self) -> dict[str, Any]:
        return {"applicability": self.applicability, "description": self.description}


@dataclass(frozen=True)
class Finding:
    rule: str
    name: str
    severity: Severity
    message: str
    file: str
    line: int
    column: int
    object: ObjectRef | None = None
    server_error_code: int | None = None
    fix: FixSuggestion | None = None
    # False for a finding about a file that is not a manifest (a link out of the tree, a file with
    # no manifest in it, one past the size bound): reports must not show that file's lines.
    excerpt: bool = field(default=True, compare=False)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file, self.line, self.column, self.rule, self.message)

    def where(self) -> str:
        """``file:line:col``, or the file alone for a finding with no position (line 0: ``jsops
        audit`` names a live object by its pseudo-path ``nats://STREAM/CONSUMER``)."""
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "object": self.object.as_dict() if self.object else None,
            "server_error_code": self.server_error_code,
            "fix": self.fix.as_dict() if self.fix else None,
        }


@dataclass(frozen=True)
class LoadCode:
    """A finding the loader itself raises (the manifest could not be read or validated)."""

    code: str
    name: str
    severity: Severity
    summary: str


LOAD_CODES: dict[str, LoadCode] = {
    c.name: c
    for c in (
        LoadCode("JS001", "manifest-syntax-error", Severity.ERROR, "YAML or JSON that does not parse, or a file that is not UTF-8 text"),
        LoadCode("JS002", "manifest-too-complex", Severity.ERROR, "input past jsops's safety bounds (alias expansion, nesting depth, file size)"),
        LoadCode("JS003", "duplicate-key", Severity.ERROR, "a mapping key written twice"),
        LoadCode("JS004", "unknown-kind", Severity.ERROR, "a document that is not a Stream or Consumer in a dialect jsops reads"),
        LoadCode("JS005", "invalid-field", Severity.ERROR, "an unknown field, a wrong type, or a bad duration, size, enum or time"),
        LoadCode("JS006", "consumer-stream-not-found", Severity.ERROR, "a consumer whose stream is not declared in the estate"),
        LoadCode("JS007", "duplicate-object", Severity.ERROR, "the same stream or consumer declared twice"),
        LoadCode("JS008", "empty-document", Severity.WARNING, "an empty or null YAML document, or a file with no manifests"),
        LoadCode("JS009", "name-mismatch", Severity.ERROR, "a spec name that differs from the manifest's metadata name"),
        LoadCode("JS010", "unused-suppression", Severity.WARNING, "a `# jsops: disable=...` comment or `jsops.io/disable` annotation that suppresses nothing"),
        LoadCode("JS011", "invalid-suppression", Severity.WARNING, "a suppression that names no known rule, or is malformed"),
        LoadCode(
            "JS012", "template-error", Severity.ERROR, "a `*.yaml.j2` template that does not render: syntax error, undefined value, refused by the sandbox"
        ),
        LoadCode("JS013", "template-needs-env", Severity.ERROR, "a `*.yaml.j2` template read without `--env`: it is not checked"),
        LoadCode("JS014", "link-outside-tree", Severity.ERROR, "a symbolic link to a file outside the linted tree (or the repository): jsops does not read it"),
        LoadCode("JS020", "not-managed", Severity.INFO, "a NATS resource jsops reads but does not manage (NACK StreamTemplate, Account)"),
        LoadCode(
            "JS021",
            "connection-fields-ignored",
            Severity.INFO,
            "NACK per-resource connection fields (servers, creds, nkey, tls, jsDomain) that jsops does not use",
        ),
        LoadCode(
            "JS022", "name-from-path", Severity.INFO, "a natscli file whose stream name (or a consumer's stream) is taken from its file or directory name"
        ),
        LoadCode("JS023", "json-duplicate-key", Severity.WARNING, "a JSON key written twice: nats-server keeps the last value, and so does jsops"),
        LoadCode(
            "JS024",
            "consumer-stream-unknown",
            Severity.WARNING,
            "a bare consumer config (natscli's `nats consumer add STREAM --config FILE`) whose stream jsops cannot tell: give it with --stream or consumer-streams",
        ),
        LoadCode(
            "JS030",
            "nack-crd-refused",
            Severity.ERROR,
            "a NACK resource kube-apiserver refuses before NACK sees it: not the CRD's served version, a value its CRD schema refuses, "
            "an unknown field (refused under kubectl's strict validation, else pruned), invalid metadata (for the NACK release of --nack-version)",
        ),
    )
}

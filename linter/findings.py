"""Findings are data: what is wrong, where, and what the server would answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import NotRequired, TypedDict

from .jsonvalue import JsonValue

__all__ = [
    "Severity",
    "Kind",
    "ObjectRef",
    "Edit",
    "Applicability",
    "FixSuggestion",
    "Finding",
    "LOAD_CODES",
    "LoadCode",
    "FieldPath",
    "ObjectRefJson",
    "FixJson",
    "FindingJson",
]

# Where in a config or a document: keys and list indexes (``("sources", 0, "name")``), as pydantic's
# error locations and a rule's violations name them.
FieldPath = tuple[str | int, ...]


class ObjectRefJson(TypedDict):
    """An object a finding is about, in the JSON outputs (contracts §2)."""

    kind: str
    name: str
    stream: str | None


class FixJson(TypedDict):
    """A finding's fix, in the JSON outputs (contracts §2)."""

    applicability: str
    description: str


class AuthorJson(TypedDict, total=False):
    """A drift finding's author, in the JSON and SARIF outputs (docs/drift.md)."""

    changed_by: JsonValue  # None when unknown
    author_unknown: JsonValue


class FindingJson(TypedDict):
    """One finding, in the JSON outputs (contracts §2)."""

    rule: str
    name: str
    severity: str
    message: str
    file: str
    line: int
    column: int
    object: ObjectRefJson | None
    server_error_code: int | None
    server_answer: bool
    fix: FixJson | None
    # jsops audit's drift (JS520) only, with a record of API changes (docs/drift.md): who made the live
    # value, as the plan's JSON says it
    changed_by: NotRequired[JsonValue]
    author_unknown: NotRequired[JsonValue]


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


class Kind(StrEnum):
    """What a manifest object is: a stream or a consumer (equal to the strings the JSON outputs say)."""

    STREAM = "Stream"
    CONSUMER = "Consumer"


@dataclass(frozen=True)
class ObjectRef:
    kind: Kind | str
    name: str
    stream: str | None = None

    def as_dict(self) -> ObjectRefJson:
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
    path: FieldPath
    value: JsonValue = field(default=None, hash=False)  # may be a list or a mapping
    duration: bool = False
    document: int | None = None

    @classmethod
    def set(cls, path: FieldPath, value: JsonValue, *, duration: bool = False) -> Edit:
        return cls("set", tuple(path), value, duration)

    @classmethod
    def remove(cls, path: FieldPath) -> Edit:
        return cls("remove", tuple(path))


class Applicability(StrEnum):
    """How safe a fix is to apply, like ruff's: ``SAFE`` fixes ``--fix`` applies; ``UNSAFE`` ones
    (they may change what the estate does) only with ``--unsafe-fixes``. The value is the spelling
    in every report."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class FixSuggestion:
    applicability: Applicability
    description: str
    edits: tuple[Edit, ...] = ()  # empty: advice only, nothing ``--fix`` can apply

    def __post_init__(self) -> None:  # a plugin rule written before the enum passes "safe" or "unsafe"
        object.__setattr__(self, "applicability", Applicability(self.applicability))

    @classmethod
    def safe(cls, description: str, edits: tuple[Edit, ...] = ()) -> FixSuggestion:
        """A fix ``--fix`` applies (like ruff's ``Fix::safe_edits``)."""
        return cls(Applicability.SAFE, description, edits)

    @classmethod
    def unsafe(cls, description: str, edits: tuple[Edit, ...] = ()) -> FixSuggestion:
        """A fix applied only with ``--unsafe-fixes``: it may change what the estate does."""
        return cls(Applicability.UNSAFE, description, edits)

    def as_dict(self) -> FixJson:
        return {"applicability": self.applicability.value, "description": self.description}


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
    # The first release that makes the check the loader predicts (``server_error_code``); older
    # releases drop the value silently (an unknown field in a request body before strict decoding,
    # a request key a release does not read yet). None: every release makes it. Not rendered.
    since: tuple[int, int, int] | None = field(default=None, compare=False)
    # jsops audit's drift (JS520): who made the live value of the field, as the plan's JSON says it
    # (docs/drift.md): ``{"changed_by": {...}}``, or ``{"changed_by": None, "author_unknown": {"since": ...}}``.
    # None: not attributed (no record, not a drift finding); the JSON then has neither key.
    author: dict[str, JsonValue] | None = field(default=None, compare=False)
    # The message without the words that end it naming that author ("; changed by ... 3m ago"): those age with
    # each run, so identities that must stay the same across runs (SARIF's fingerprint) use this. None: the same.
    lasting: str | None = field(default=None, compare=False)
    # The config field the check is about (the first key of the violation's path; "" for none): with the
    # object's kind and the err_code, what places the check in the server's order (linter/semantics/answer_order.py).
    about: str = field(default="", compare=False)
    # The finding whose err_code the server answers for its object at the target release (it stops at its
    # first failed check); the object's other rejections follow once that one is fixed (:mod:`jsops.linter.answers`).
    server_answer: bool = field(default=False, compare=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, self.column, self.rule, self.message)

    def where(self) -> str:
        """``file:line:col``, or the file alone for a finding with no position (line 0: ``jsops
        audit`` names a live object by its pseudo-path ``nats://STREAM/CONSUMER``)."""
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file

    def as_dict(self) -> FindingJson:
        out: FindingJson = {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "object": self.object.as_dict() if self.object else None,
            "server_error_code": self.server_error_code,
            "server_answer": self.server_answer,
            "fix": self.fix.as_dict() if self.fix else None,
        }
        author = self.author_json()
        if "changed_by" in author:
            out["changed_by"] = author["changed_by"]
        if "author_unknown" in author:
            out["author_unknown"] = author["author_unknown"]
        return out

    @property
    def lasting_message(self) -> str:
        """The message without the words naming a drift's author (:attr:`lasting`), which age."""
        return self.message if self.lasting is None else self.lasting

    def author_json(self) -> AuthorJson:
        """The drift finding's author as the JSON and SARIF reports carry it: ``changed_by`` (None when
        unknown) and, when unknown, ``author_unknown``; nothing for a finding without an author."""
        if self.author is None:
            return AuthorJson()
        out: AuthorJson = {"changed_by": self.author.get("changed_by")}
        if "author_unknown" in self.author:
            out["author_unknown"] = self.author["author_unknown"]
        return out


@dataclass(frozen=True)
class LoadCode:
    """A finding the loader itself raises (the manifest could not be read or validated)."""

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str = ""  # markdown body for `jsops rule CODE` and docs/rules.md (empty: the summary says it all)
    # False for a code about a file jsops did not read (a link out of the tree): its findings never
    # show the file's lines, whoever makes them (``messages.finding``).
    excerpt: bool = True


_BARE_CONSUMER_DOC = """natscli names a consumer's stream on its command line (`nats consumer add STREAM --config FILE`), so
the file `nats consumer add --output` writes does not. When neither `--stream`, `consumer-streams` in
`.jsops.yaml` nor a directory named after a declared stream says which stream it is for, jsops does
not guess: the consumer is checked without its stream. Every check that needs nothing of the stream
runs and carries the server's err_code (deliver and ack policies, start sequence and time, replicas
against the target, backoff against max_deliver, pull-only and push-only fields, priority groups,
metadata and description size, names); a check that asks for the stream (its retention, subjects,
replicas or consumer limits, or a value the consumer inherits from them, such as an unset
`max_ack_pending`) is not made, and this warning names each one skipped. It never carries an err_code:
which stream a file is for is a layout question, not the server's. jsops does not plan such a consumer."""

_NACK_CRD_DOC = """A NACK resource is sent to kube-apiserver first (`kubectl apply`, Helm, a GitOps tool): what the CRD of the
NACK release the cluster runs refuses never reaches NACK, and so never nats-server. jsops checks each NACK
document against the CRDs of the release given with `--nack-version` (or `nack-version:` in `.jsops.yaml`; a tag
like `v0.21.1` or a minor like `0.21`, which means its newest patch; default: the newest release jsops knows).
The CRDs are read from the NACK repository (`deploy/crds.yml` at each release tag, recorded with its commit in
`linter/load/nack_crds.json`). The finding says the stage ("kube-apiserver would refuse this: ...") and carries
no nats-server err_code.

What is checked, as kube-apiserver checks it:

- the API version: each kind's CRD serves one version (`v1beta2`); `v1beta1` is not served by any release
  jsops knows (kubectl: "no matches for kind"). jsops still reads the content;
- the CRD schema: type, enum, pattern, minimum and maximum, lengths, required; all errors at once, as
  kube-apiserver answers. A null field is pruned, not refused;
- unknown fields: kube-apiserver prunes them, unless the request asks for strict field validation, which
  `kubectl apply` does by default (`--validate=strict`, kubectl 1.25 and later); with `--validate=warn` or
  `ignore`, Helm, or any client that does not ask, the field is dropped and NACK never sees it. Either way the
  setting does nothing, so it is an error. A field that jsops reads but this release's CRD does not declare
  (one added in a later NACK release) is JS030; a field jsops does not know either is JS005 (with a suggestion);
- metadata: `metadata.name` is required and a lowercase RFC 1123 subdomain (`ORDERS` is refused: write
  `orders`); the namespace is a DNS label; label and annotation keys are qualified names; values are strings.

Where kube-apiserver refuses a value, the loader's own finding about it (JS005) is not repeated. JS030 does not
change what jsops loads: the rules still judge the object for the nats-server stage, and a team that applies
its NACK files with jsops rather than kubectl can `ignore: [JS030]` and keep every other check (JS005 included)."""


LOAD_CODES: dict[str, LoadCode] = {
    c.name: c
    for c in (
        LoadCode(
            "JS001",
            "manifest-syntax-error",
            Severity.ERROR,
            "YAML or JSON that does not parse, or a file that is not UTF-8 text",
        ),
        LoadCode(
            "JS002",
            "manifest-too-complex",
            Severity.ERROR,
            "input past jsops's safety bounds (alias expansion, nesting depth, file size)",
        ),
        LoadCode("JS003", "duplicate-key", Severity.ERROR, "a mapping key written twice"),
        LoadCode(
            "JS004",
            "unknown-kind",
            Severity.ERROR,
            "a document that is not a Stream or Consumer in a dialect jsops reads",
        ),
        LoadCode(
            "JS005",
            "invalid-field",
            Severity.ERROR,
            "an unknown field, a wrong type, or a bad duration, size, enum or time",
        ),
        LoadCode(
            "JS006",
            "consumer-stream-not-found",
            Severity.ERROR,
            "a consumer whose stream is not declared in the estate",
        ),
        LoadCode("JS007", "duplicate-object", Severity.ERROR, "the same stream or consumer declared twice"),
        LoadCode(
            "JS008", "empty-document", Severity.WARNING, "an empty or null YAML document, or a file with no manifests"
        ),
        LoadCode(
            "JS009", "name-mismatch", Severity.ERROR, "a spec name that differs from the manifest's metadata name"
        ),
        LoadCode(
            "JS010",
            "unused-suppression",
            Severity.WARNING,
            "a `# jsops: disable=...` comment or `jsops.io/disable` annotation that suppresses nothing",
        ),
        LoadCode(
            "JS011", "invalid-suppression", Severity.WARNING, "a suppression that names no known rule, or is malformed"
        ),
        LoadCode(
            "JS012",
            "template-error",
            Severity.ERROR,
            "a `*.yaml.j2` template that does not render: syntax error, undefined value, refused by the sandbox",
        ),
        LoadCode(
            "JS013",
            "template-needs-env",
            Severity.ERROR,
            "a `*.yaml.j2` template read without `--env`: it is not checked",
        ),
        LoadCode(
            "JS014",
            "link-outside-tree",
            Severity.ERROR,
            "a symbolic link to a file outside the linted tree (or the repository): jsops does not read it",
            excerpt=False,
        ),
        LoadCode(
            "JS020",
            "not-managed",
            Severity.INFO,
            "a NATS resource jsops reads but does not manage (NACK StreamTemplate, Account)",
        ),
        LoadCode(
            "JS021",
            "connection-fields-ignored",
            Severity.INFO,
            "NACK per-resource connection fields (servers, creds, nkey, tls, jsDomain) that jsops does not use",
        ),
        LoadCode(
            "JS022",
            "name-from-path",
            Severity.INFO,
            "a natscli file whose stream name (or a consumer's stream) is taken from its file or directory name",
        ),
        LoadCode(
            "JS023",
            "json-duplicate-key",
            Severity.WARNING,
            "a JSON key written twice: nats-server keeps the last value, and so does jsops",
        ),
        LoadCode(
            "JS024",
            "consumer-stream-unknown",
            Severity.WARNING,
            "a bare consumer config (natscli's `nats consumer add STREAM --config FILE`) whose stream jsops cannot tell: "
            "checked without it; the checks that need it are named as skipped (give it with --stream or consumer-streams)",
            _BARE_CONSUMER_DOC,
        ),
        LoadCode(
            "JS030",
            "nack-crd-refused",
            Severity.ERROR,
            "a NACK resource kube-apiserver refuses before NACK sees it, by the CRDs of the NACK release given (--nack-version): "
            "the API version, the schema, unknown fields, metadata",
            _NACK_CRD_DOC,
        ),
    )
}

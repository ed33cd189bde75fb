"""Load manifests in any of the three dialects into one model, with a source map.

Dialects (contracts §1):
- native ``apiVersion: jsops/v1`` (``kind: Stream|Consumer``, ``metadata``, ``spec``);
- NACK CRDs ``apiVersion: jetstream.nats.io/v1beta2`` or ``v1beta1`` (camelCase ``spec``);
- NATS API JSON as natscli prints it (``nats stream info --json``, ``nats consumer info --json``,
  a bare StreamConfig, or a ``$JS.API.CONSUMER.CREATE`` body).

Anything that cannot be loaded becomes a finding with file, line and column; nothing raises.
"""

from __future__ import annotations

import difflib
import os
import re
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .discovery import MANIFEST_SUFFIXES, LoadError, discover, discover_entries, escapes, link_out, tree_root
from .findings import LOAD_CODES, Finding, ObjectRef
from .model.config import ConsumerConfig, StreamConfig
from .model.units import UnitError, parse_duration, parse_size
from .templates import is_template
from .versions import UNKNOWN_FIELD_ERROR
from .yamlio import (
    Limits,
    MapPos,
    ParsedDocument,
    PosEntry,
    ReadProblem,
    pack_positions,
    read_documents,
    resolve_position,
    unpack_positions,
)

__all__ = ["Resource", "Estate", "NackAccount", "load_paths", "load_file", "load_text", "discover", "discover_entries", "tree_root", "escapes", "LoadError", "MANIFEST_SUFFIXES"]

NATIVE_API = "jsops/v1"
# Output stays readable (and small) whatever the input: at most this many findings per object and
# per file are reported one by one; the rest are summed up in one finding.
MAX_FINDINGS_PER_OBJECT = 20
MAX_FINDINGS_PER_FILE = 100
# NATS names are at most 255 characters (JSMaxNameLen); the rules report 256+ with the server's
# error code. Past this bound a "name" is not a name at all, and it is refused before it can reach
# any message or the JSON output.
MAX_NAME_LENGTH = 1024
NACK_APIS = ("jetstream.nats.io/v1beta2", "jetstream.nats.io/v1beta1")


@dataclass
class Resource:
    """One stream or consumer from a manifest, with where it came from."""

    kind: str  # "Stream" | "Consumer"
    name: str
    stream: str | None
    config: StreamConfig | ConsumerConfig
    file: str
    context: str = "default"
    annotations: dict[str, str] = field(default_factory=dict)
    dialect: str = "native"
    document: int = 0  # index of the document in its file
    doc_line: int = 1
    positions: PosEntry | None = None
    spec_path: tuple[Any, ...] = ("spec",)
    key_map: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)
    raw: Any = None
    # For the stream of a bucket: "KeyValue" or "ObjectStore", and the bucket's own config
    # (linter.buckets); ``config`` is then the stream the client builds for it.
    bucket: str | None = None
    bucket_config: Any = None

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.stream)

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        return (self.context, self.kind, self.name, self.stream)

    def source_path(self, path: tuple[Any, ...]) -> tuple[Any, ...]:
        """The document path of a config field path (dialects rename keys)."""
        for cut in range(len(path), 0, -1):
            hit = self.key_map.get(tuple(path[:cut]))
            if hit is not None:
                return hit + tuple(path[cut:])
        return self.spec_path + tuple(path)

    def locate(self, path: tuple[Any, ...] = (), *, key: bool = False, document_path: bool = False) -> tuple[int, int]:
        """``(line, column)`` of a config field (``("max_age",)``) or, with ``document_path``, of a
        path in the whole document (``("metadata", "name")``)."""
        full = tuple(path) if document_path else self.source_path(tuple(path))
        pos = resolve_position(self.positions, full, key=key)
        return pos if pos is not None else (self.doc_line, 1)


@dataclass
class NackAccount:
    """A NACK ``Account`` resource: the servers NACK connects to for the objects that name it in
    ``spec.account``. Its credentials are Kubernetes Secret references, which jsops cannot read."""

    name: str
    file: str
    line: int
    servers: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()  # which of creds / tls / user / token the account takes from Secrets


@dataclass
class Estate:
    """Everything loaded from a set of paths."""

    resources: list[Resource] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # (context, kind, name, stream) of objects that are declared but failed validation: other
    # objects may still refer to them without a cascade of "not found" findings.
    invalid: set[tuple[str, str, str, str | None]] = field(default_factory=set)
    # Rendered templates by file (``linter.templates.Rendered``: text and line map), for notes
    # on findings whose rendered line maps only roughly onto the template.
    rendered: dict[str, Any] = field(default_factory=dict)
    # Documents of other kinds in the same files (Kubernetes Deployments, ConfigMaps, ...): (file, line,
    # "apiVersion kind"), passed over quietly and counted in the summary.
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    # NACK Account resources by name: the connection a NACK object with ``spec.account`` is routed to
    # (its context is the account's name).
    accounts: dict[str, NackAccount] = field(default_factory=dict)
    # Objects whose stream (or name) came from the file's directory or name (natscli files), for messages.
    named_from_path: set[tuple[str, str, str, str | None]] = field(default_factory=set)
    # Files that are not manifests (links out of the tree, files with no manifest in them): no
    # report or later step reads or quotes them.
    opaque: set[str] = field(default_factory=set)

    def streams(self) -> Iterator[Resource]:
        return (r for r in self.resources if r.kind == "Stream")

    def consumers(self) -> Iterator[Resource]:
        return (r for r in self.resources if r.kind == "Consumer")


# ---------------------------------------------------------------------------------------------
# findings helpers


def _finding(code_name: str, message: str, file: str, line: int, column: int, obj: ObjectRef | None = None, server_error_code: int | None = None, *, excerpt: bool = True) -> Finding:
    code = LOAD_CODES[code_name]
    return Finding(code.code, code.name, code.severity, message, file, line, column, obj, server_error_code, excerpt=excerpt)


_PROBLEM_CODES = {
    "yaml-syntax": "manifest-syntax-error",
    "encoding": "manifest-syntax-error",
    "binary": "manifest-syntax-error",
    "unsupported": "manifest-syntax-error",
    "too-complex": "manifest-too-complex",
    "duplicate-key": "duplicate-key",
    "json-duplicate-key": "json-duplicate-key",
    "link-outside": "link-outside-tree",
}


def _problem(p: ReadProblem, file: str) -> Finding:
    # A JSON file is the API request body: a body that does not decode is refused with 10025 by every release.
    server = UNKNOWN_FIELD_ERROR if p.code == "yaml-syntax" and file.endswith(".json") else None
    return _finding(_PROBLEM_CODES.get(p.code, "manifest-syntax-error"), p.message, file, p.line, p.column, None, server)


# ---------------------------------------------------------------------------------------------
# loading


def load_paths(paths: Iterable[str], *, limits: Limits | None = None, env: str | None = None, environments_dir: str | None = None) -> Estate:
    """Load every manifest under ``paths``; also checks estate-wide loading problems
    (duplicate objects, consumers whose stream is not declared).

    Templates (``*.yaml.j2``) are rendered with the values of ``environments/<env>.yaml`` (the
    nearest ``environments/`` directory at or above each template, or ``environments_dir``) and
    loaded like any manifest; findings point at the template's lines. Without ``env`` a template
    is a ``template-needs-env`` finding. Raises :class:`LoadError` for an unknown environment.
    """
    estate = Estate()
    entries = discover_entries(paths)
    files = []
    for f, root in entries:
        if link_out(f, root):
            _link_out(f, estate)
        else:
            files.append(f)
    roots = dict(entries)
    templates = any(is_template(f) for f in files)
    if len(files) >= _PARALLEL_MIN_FILES and not templates and _can_fork():
        _load_parallel(files, estate, limits, roots)
    else:
        values: dict[str, Any] = {}
        for f in files:
            if is_template(f):
                _load_template(f, estate, limits, env, environments_dir, values, roots.get(f))
            else:
                load_file(f, estate, limits=limits, root=roots.get(f))
    _check_estate(estate)
    return estate


def _link_out(path: str, estate: Estate) -> None:
    """JS014 for a link out of the tree: it names the link only; the target is never opened."""
    estate.opaque.add(path)
    estate.findings.append(
        _finding(
            "link-outside-tree",
            "symbolic link to a file outside the tree; jsops does not follow links out of the linted directory "
            "(or the repository) and did not read it: replace the link with the manifest itself",
            path,
            1,
            1,
            excerpt=False,
        )
    )


def _load_template(path: str, estate: Estate, limits: Limits | None, env: str | None, environments_dir: str | None, values: dict[str, Any], root: str | None = None) -> None:
    """Render a template (jinja2 is imported here, only when there is one) and load the result
    under the template's name, with every position moved to the template line that produced it."""
    if root is not None and link_out(path, root):  # re-checked right before reading
        _link_out(path, estate)
        return
    estate.files.append(path)
    if env is None:
        estate.findings.append(
            _finding("template-needs-env", "this is a template: pass --env NAME to render it with environments/NAME.yaml and check it (`jsops render --env NAME` shows the result)", path, 1, 1)
        )
        return
    from .templates import EnvironmentError_, render_file

    max_bytes = (limits or Limits()).max_file_bytes
    try:
        rendered = render_file(path, env, environments_dir=environments_dir, max_bytes=max_bytes, values_cache=values)
    except EnvironmentError_ as exc:
        raise LoadError(str(exc)) from None
    first = len(estate.findings)
    for p in rendered.problems:
        estate.findings.append(_finding(p.code, p.message, p.file, p.line, p.column))
    if rendered.problems:
        return
    estate.rendered[path] = rendered
    base = path[: -len(".j2")]
    docs, problems, trailing, _ = _read_text(rendered.text.encode("utf-8"), base, limits)

    def move(pos: tuple[int, int]) -> tuple[int, int]:
        return (rendered.template_line(pos[0])[0], pos[1])

    for d in docs:
        d.positions = _move_positions(d.positions, move)
        d.line = move((d.line, 1))[0]
        d.problems = [ReadProblem(p.code, _move_lines(p.message, move), *move((p.line, p.column))) for p in d.problems]
    problems = [ReadProblem(p.code, _move_lines(p.message, move), *move((p.line, p.column))) for p in problems]
    if not docs and not problems:
        return  # a template may render to nothing in some environments: not a finding
    _process(docs, problems, trailing, path, estate)
    _finish_file(estate, first, path, True)  # a template is written as a manifest: its lines may be shown


_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)")


def _move_lines(message: str, move: Any) -> str:
    """A parser message about rendered text ("... starts at line 7") in template lines."""
    return _LINE_IN_MESSAGE.sub(lambda m: f"line {move((int(m.group(1)), 1))[0]}", message)


def _move_positions(entry: PosEntry | None, move: Any) -> PosEntry | None:
    if entry is None:
        return None
    if isinstance(entry, tuple):
        return move(entry)
    entry.start = move(entry.start)
    if isinstance(entry, MapPos):
        entry.keys = {k: (move(kpos), _move_positions(child, move)) for k, (kpos, child) in entry.keys.items()}
    else:
        entry.items = [_move_positions(child, move) for child in entry.items]
    return entry


_PARALLEL_MIN_FILES = 400


def _can_fork() -> bool:
    import multiprocessing

    return (os.cpu_count() or 1) >= 2 and "fork" in multiprocessing.get_all_start_methods() and os.environ.get("JSOPS_NO_PARALLEL") != "1"


def _load_parallel(files: list[str], estate: Estate, limits: Limits | None, roots: dict[str, str] | None = None) -> None:
    """Large estates: a forked child parses the second half of the files while this process parses
    the first. The child ships plain parse results (marshal: values and packed positions), and this
    process validates everything in file order, so the output is identical to a serial load."""
    import marshal

    half = len(files) // 2
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: parse only
        code = 0
        try:
            os.close(read_fd)
            out = []
            for f in files[half:]:
                try:
                    docs, problems, trailing, looks = _read_file(f, limits, root=(roots or {}).get(f))
                except LoadError as exc:
                    out.append((f, str(exc)))
                    continue
                out.append(
                    (
                        f,
                        [(d.value, pack_positions(d.positions), d.line, [_pack_problem(p) for p in d.problems]) for d in docs],
                        [_pack_problem(p) for p in problems],
                        trailing,
                        looks,
                    )
                )
            with os.fdopen(write_fd, "wb") as stream:
                marshal.dump(out, stream)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    try:
        for f in files[:half]:
            load_file(f, estate, limits=limits, root=(roots or {}).get(f))
    finally:
        with os.fdopen(read_fd, "rb") as inp:
            payload = inp.read()
        _, status = os.waitpid(pid, 0)
    try:
        parsed = marshal.loads(payload) if status == 0 and payload else None
    except (EOFError, ValueError, TypeError):
        parsed = None
    if parsed is None:  # the child failed: parse here instead
        for f in files[half:]:
            load_file(f, estate, limits=limits, root=(roots or {}).get(f))
        return
    for item in parsed:
        if len(item) == 2:
            raise LoadError(item[1])
        f, docs, problems, trailing, looks = item
        first = len(estate.findings)
        unpacked = [ReadProblem(*p) for p in problems]
        if any(p.code == "link-outside" for p in unpacked):
            _link_out(f, estate)
            continue
        estate.files.append(f)
        manifest = _process(
            [ParsedDocument(v, unpack_positions(pos), line, [ReadProblem(*p) for p in probs]) for v, pos, line, probs in docs],
            unpacked,
            trailing,
            f,
            estate,
        )
        _finish_file(estate, first, f, manifest or looks)


def _pack_problem(p: ReadProblem) -> tuple[str, str, int, int]:
    return (p.code, p.message, p.line, p.column)


def _read_file(path: str, limits: Limits | None, shown: str | None = None, root: str | None = None) -> tuple[list[ParsedDocument], list[ReadProblem], bool, bool]:
    shown = shown or path
    if root is not None and link_out(path, root):  # re-checked right before reading
        return [], [ReadProblem("link-outside", "symbolic link out of the tree", 1, 1)], False, False
    try:
        with open(path, "rb") as fh:
            # At most one byte past the bound: enough to know the file is too large, never the rest.
            data = fh.read((limits or Limits()).max_file_bytes + 1)
    except IsADirectoryError:
        raise LoadError(f"{shown}: is a directory") from None
    except OSError as exc:
        raise LoadError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    return _read_text(data, shown, limits)


def _read_text(data: bytes, file: str, limits: Limits | None) -> tuple[list[ParsedDocument], list[ReadProblem], bool, bool]:
    """Documents, problems, whether the file ends in a bare separator, and whether its text looks
    like a manifest (a key of one of the dialects at the start of a line, or a JSON one)."""
    docs, problems = read_documents(data, json_file=file.endswith(".json"), limits=limits or Limits())
    trailing = len(docs) > 1 and _only_separator_after(data, docs[-1].line)
    looks = len(data) <= (limits or Limits()).max_file_bytes and _LOOKS_LIKE_MANIFEST.search(data, 0, 1 << 20) is not None
    return docs, problems, trailing, looks


_LOOKS_LIKE_MANIFEST = re.compile(
    rb"(?m)^[ \t]*(?:- )?(?:apiVersion|kind|metadata|spec)[ \t]*:|\"(?:apiVersion|kind|config|stream_name|name|subjects|durable_name)\"[ \t\r\n]*:"
)


def load_file(path: str, estate: Estate, *, display: str | None = None, limits: Limits | None = None, root: str | None = None) -> None:
    """Load one file. With ``root``, a symbolic link that resolves outside it is not read (JS014)."""
    docs, problems, trailing, looks = _read_file(path, limits, display, root)
    shown = display or path
    if any(p.code == "link-outside" for p in problems):
        _link_out(shown, estate)
        return
    estate.files.append(shown)
    first = len(estate.findings)
    manifest = _process(docs, problems, trailing, shown, estate)
    _finish_file(estate, first, shown, manifest or looks)


def load_text(data: bytes, file: str, estate: Estate, *, limits: Limits | None = None) -> None:
    estate.files.append(file)
    first = len(estate.findings)
    docs, problems, trailing, looks = _read_text(data, file, limits)
    manifest = _process(docs, problems, trailing, file, estate)
    _finish_file(estate, first, file, manifest or looks)


def _finish_file(estate: Estate, first: int, file: str, manifest: bool) -> None:
    """Cap the file's findings; for a file that holds no manifest (a key, a token, a binary, a file
    past the size bound), make sure no finding quotes it: messages lose their quoted fragments and
    reports show none of its lines."""
    _cap_file_findings(estate, first, file)
    if manifest:
        return
    estate.opaque.add(file)
    estate.findings[first:] = [_scrubbed(f) for f in estate.findings[first:]]


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def _scrubbed(f: Finding) -> Finding:
    return replace(f, message=_QUOTED.sub("(text not shown)", f.message), excerpt=False)


def _cap_file_findings(estate: Estate, first: int, file: str) -> None:
    mine = estate.findings[first:]
    if len(mine) <= MAX_FINDINGS_PER_FILE:
        return
    mine.sort(key=Finding.sort_key)
    kept = mine[:MAX_FINDINGS_PER_FILE]
    last = kept[-1]
    more = len(mine) - len(kept)
    kept.append(
        _finding(
            "manifest-too-complex",
            f"{more} more problems in this file are not shown (jsops shows at most {MAX_FINDINGS_PER_FILE} per file); fix the ones above first",
            file,
            last.line,
            last.column,
        )
    )
    estate.findings[first:] = kept


def _process(docs: list[ParsedDocument], problems: list[ReadProblem], trailing: bool, file: str, estate: Estate) -> bool:
    """Load the documents of one file; returns whether any of them looks like a manifest."""
    manifest = any(isinstance(d.value, dict) and not _MANIFEST_KEYS.isdisjoint(d.value) for d in docs)
    for i, doc in enumerate(docs):
        for p in doc.problems:
            estate.findings.append(_problem(p, file))
        if doc.value is None:
            if not any(p.code in ("too-complex", "unsupported", "yaml-syntax") for p in doc.problems):
                if trailing and i == len(docs) - 1:
                    continue  # a trailing '---' is common and harmless
                estate.findings.append(_finding("empty-document", "empty document (null); remove it or add a manifest", file, doc.line, 1))
            continue
        _load_document(doc, i, file, estate)
    for p in problems:
        estate.findings.append(_problem(p, file))
    if not docs and not problems:
        estate.findings.append(_finding("empty-document", "file holds no manifests", file, 1, 1))
        return True  # nothing in it to quote
    return manifest


# Keys of a document that is (an attempt at) a manifest in one of the dialects.
_MANIFEST_KEYS = frozenset({"apiVersion", "kind", "metadata", "spec", "config", "stream_name", "name", "subjects", "durable_name"})


def _only_separator_after(data: bytes, line: int) -> bool:
    """Whether the text from ``line`` on is only separators (``---``, ``...``), comments and blank lines:
    a trailing ``---`` is common and harmless."""
    for raw in data.split(b"\n")[max(line - 1, 0) :]:
        text = raw.strip()
        if text and not text.startswith(b"#") and text not in (b"---", b"..."):
            return False
    return True


_CONSUMER_ONLY = frozenset(
    {"durable_name", "ack_policy", "deliver_policy", "ack_wait", "max_deliver", "filter_subject", "filter_subjects",
     "deliver_subject", "replay_policy", "max_ack_pending", "max_waiting", "backoff"}
)


def _load_document(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    if not isinstance(v, dict):
        # The type only, never the value: a document that is not a mapping is not a manifest,
        # and may be anything (a token, a key) that a link or a misnamed file brought in.
        estate.findings.append(
            _finding("unknown-kind", f"expected a manifest mapping, got {_type_of(v)}", file, *start)
        )
        return
    api = v.get("apiVersion")
    if api is not None or "kind" in v:
        if api == NATIVE_API:
            _load_native(doc, index, file, estate)
        elif api in NACK_APIS:
            _load_nack(doc, index, file, estate, api)
        elif _foreign_api(api, v.get("kind")):
            estate.skipped.append((file, start[0], f"{_short(api)} {_short(v.get('kind'))}"))
        else:
            pos = resolve_position(doc.positions, ("apiVersion",)) or start
            known = ", ".join([NATIVE_API, *NACK_APIS])
            hint = _did_you_mean(str(api), [NATIVE_API, *NACK_APIS]) if api is not None else ""
            what = "missing apiVersion" if api is None else f"unknown apiVersion {_short(api)!r}"
            estate.findings.append(_finding("unknown-kind", f"{what}; jsops reads {known}{hint}", file, *pos))
        return
    _load_api(doc, index, file, estate)


_OUR_GROUPS = ("jsops", "jetstream.nats.io")


def _foreign_api(api: Any, kind: Any) -> bool:
    """Whether a document belongs to another API (a Kubernetes Deployment, a ConfigMap, a CRD of
    another operator) kept in the same files: passed over quietly. A document that looks like ours
    but misspelt (``jsops/v2``, ``jetstream.nats.io/v1beta3``, ``jetstrem.nats.io/v1beta2``), or a
    JetStream kind under an unknown apiVersion, still draws JS004."""
    if not isinstance(api, str) or not api or kind in ("Stream", "Consumer", "KeyValue", "ObjectStore"):
        return False
    group = api.rpartition("/")[0].lower()
    if not group:  # Kubernetes' core group is written as the bare version: `apiVersion: v1`
        return api == "v1" and isinstance(kind, str) and bool(kind)
    return not difflib.get_close_matches(group, _OUR_GROUPS, n=1, cutoff=0.75)


def _kind_of(v: Any) -> str:
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return f"the string {_short(v)!r}"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {_short(v)}"
    if isinstance(v, dict):
        return "a mapping"
    if v is None:
        return "null"
    return type(v).__name__


def _type_of(v: Any) -> str:
    """``_kind_of`` without the value."""
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return "a number"
    return _kind_of(v)


def _short(v: Any, limit: int = 60) -> str:
    text = str(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(v: Any, limit: int = 120) -> str:
    """``_short`` for text shown without ``repr``: control characters (terminal escapes) are escaped."""
    text = _short(v, limit)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    if len(word) > 100:  # no field or value is this long; don't spend time on a hostile one
        return ""
    choices = list(choices)
    hits = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not hits:
        snake = _snake(word)
        if snake in choices:
            hits = [snake]
        else:
            lowered = {c.lower().replace("_", ""): c for c in choices}
            key = word.lower().replace("_", "").replace("-", "")
            if key in lowered:
                hits = [lowered[key]]
    return f"; did you mean {hits[0]!r}?" if hits else ""


def _snake(word: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", word).lower().replace("-", "_")


# --- envelope checks ---------------------------------------------------------------------------

_NATIVE_TOP = ("apiVersion", "kind", "metadata", "spec")
_NATIVE_META = ("name", "stream", "context", "annotations", "labels")


def _check_keys(value: dict[str, Any], allowed: Iterable[str], where: tuple[Any, ...], doc: ParsedDocument, file: str, estate: Estate, label: str) -> bool:
    allowed = tuple(allowed)
    unknown = [k for k in value if k not in allowed]
    for k in unknown[:MAX_FINDINGS_PER_OBJECT]:
        pos = resolve_position(doc.positions, where + (k,), key=True) or (doc.line, 1)
        estate.findings.append(
            _finding("invalid-field", f"unknown field {_short(k)!r} in {label}{_did_you_mean(str(k), allowed)}", file, *pos)
        )
    if len(unknown) > MAX_FINDINGS_PER_OBJECT:
        pos = resolve_position(doc.positions, where) or (doc.line, 1)
        estate.findings.append(
            _finding("invalid-field", f"{len(unknown) - MAX_FINDINGS_PER_OBJECT} more unknown fields in {label} are not shown", file, *pos)
        )
    return not unknown


def _string_map(value: Any, where: tuple[Any, ...], doc: ParsedDocument, file: str, estate: Estate, label: str) -> dict[str, str] | None:
    if value is None:
        return {}
    pos = resolve_position(doc.positions, where) or (doc.line, 1)
    if not isinstance(value, dict):
        estate.findings.append(_finding("invalid-field", f"{label} must be a mapping of strings, got {_kind_of(value)}", file, *pos))
        return None
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            p = resolve_position(doc.positions, where + (k,)) or pos
            estate.findings.append(
                _finding("invalid-field", f"{label}.{_short(k)} must be a string (quote it), got {_kind_of(v)}", file, *p)
            )
            return None
        out[k] = v
    return out


def _require_str(value: dict[str, Any], key: str, where: tuple[Any, ...], doc: ParsedDocument, file: str, estate: Estate, label: str) -> str | None:
    v = value.get(key)
    if isinstance(v, str) and v:
        if len(v) > MAX_NAME_LENGTH:
            pos = resolve_position(doc.positions, where + (key,)) or (doc.line, 1)
            estate.findings.append(_finding("invalid-field", _too_long(label, v), file, *pos))
            return None
        return v
    if v is None:
        pos = resolve_position(doc.positions, where) or (doc.line, 1)
        estate.findings.append(_finding("invalid-field", f"missing required field {label}", file, *pos))
    else:
        pos = resolve_position(doc.positions, where + (key,)) or (doc.line, 1)
        estate.findings.append(_finding("invalid-field", f"{label} must be a non-empty string, got {_kind_of(v)}", file, *pos))
    return None


def _context(value: Any, where: tuple[Any, ...], doc: ParsedDocument, file: str, estate: Estate, label: str) -> str | None:
    """A context name: a non-empty string of printable characters, at most MAX_NAME_LENGTH long."""
    if isinstance(value, str) and value and len(value) <= MAX_NAME_LENGTH and value.isprintable():
        return value
    pos = resolve_position(doc.positions, where) or (doc.line, 1)
    if isinstance(value, str) and len(value) > MAX_NAME_LENGTH:
        what = _too_long(label, value).replace("NATS names", "context names")
    elif isinstance(value, str) and value:
        what = f"{label} must be printable text, got {_shown(value)!r}"
    else:
        what = f"{label} must be a non-empty string, got {_kind_of(value)}"
    estate.findings.append(_finding("invalid-field", what, file, *pos))
    return None


def _too_long(label: str, name: str) -> str:
    return f"{label} is {len(name)} characters long ({_short(name, 20)!r}); NATS names are at most 255"


def _load_native(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    kind = v.get("kind")
    if kind in ("KeyValue", "ObjectStore"):
        from ._bucket_loader import load_native_bucket

        load_native_bucket(doc, index, file, estate, kind)
        return
    if kind not in ("Stream", "Consumer"):
        pos = resolve_position(doc.positions, ("kind",)) or start
        msg = "missing kind" if kind is None else f"unknown kind {_short(kind)!r}"
        known = ["Stream", "Consumer", "KeyValue", "ObjectStore"]
        hint = _did_you_mean(str(kind), known) if kind is not None else ""
        estate.findings.append(_finding("unknown-kind", f"{msg}; jsops/v1 has Stream, Consumer, KeyValue and ObjectStore{hint}", file, *pos))
        return
    ok = _check_keys(v, _NATIVE_TOP, (), doc, file, estate, "the manifest")
    meta = v.get("metadata")
    if not isinstance(meta, dict):
        pos = resolve_position(doc.positions, ("metadata",)) or start
        what = "missing required field metadata" if meta is None else f"metadata must be a mapping, got {_kind_of(meta)}"
        estate.findings.append(_finding("invalid-field", what, file, *pos))
        return
    ok &= _check_keys(meta, _NATIVE_META, ("metadata",), doc, file, estate, "metadata")
    name = _require_str(meta, "name", ("metadata",), doc, file, estate, "metadata.name")
    stream = None
    if kind == "Consumer":
        stream = _require_str(meta, "stream", ("metadata",), doc, file, estate, "metadata.stream")
        if stream is None:
            ok = False
    elif "stream" in meta:
        pos = resolve_position(doc.positions, ("metadata", "stream"), key=True) or start
        estate.findings.append(_finding("invalid-field", "metadata.stream is only for consumers", file, *pos))
        ok = False
    context = _context(meta.get("context", "default"), ("metadata", "context"), doc, file, estate, "metadata.context")
    if context is None:
        ok = False
        context = "default"  # the object is invalid either way; its key must still be hashable
    annotations = _string_map(meta.get("annotations"), ("metadata", "annotations"), doc, file, estate, "metadata.annotations")
    labels = _string_map(meta.get("labels"), ("metadata", "labels"), doc, file, estate, "metadata.labels")
    if name is None or annotations is None or labels is None:
        return
    spec = v.get("spec")
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        pos = resolve_position(doc.positions, ("spec",)) or start
        estate.findings.append(_finding("invalid-field", f"spec must be a mapping, got {_kind_of(spec)}", file, *pos))
        return
    spec = dict(spec)
    res_name = name
    if kind == "Stream":
        if "name" in spec and spec["name"] != name:
            pos = resolve_position(doc.positions, ("spec", "name")) or start
            estate.findings.append(_finding("name-mismatch", f"spec.name {_short(spec['name'])!r} differs from metadata.name {_short(name)!r}; drop spec.name", file, *pos))
            ok = False
        spec["name"] = name
    else:
        durable, cname = spec.get("durable_name"), spec.get("name")
        for field_name, given in (("durable_name", durable), ("name", cname)):
            if given is not None and given != name:
                pos = resolve_position(doc.positions, ("spec", field_name)) or start
                estate.findings.append(_finding("name-mismatch", f"spec.{field_name} {_short(given)!r} differs from metadata.name {_short(name)!r}", file, *pos))
                ok = False
        if durable is None and cname is None:
            spec["durable_name"] = name  # a named consumer is durable unless spec says `name:` only
        spec.setdefault("ack_policy", "explicit")
    # Names the manifest leaves out of spec live in metadata.name: point findings there.
    key_map: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for field_name in ("name", "durable_name"):
        if field_name not in (v.get("spec") or {}):
            key_map[(field_name,)] = ("metadata", "name")
    res = Resource(kind, res_name, stream, None, file, context, annotations, "native", index, doc.line, doc.positions, ("spec",), key_map, v)  # type: ignore[arg-type]
    if _validate(res, spec, estate) and ok:
        estate.resources.append(res)
    else:
        estate.invalid.add(res.key)


def _validate(res: Resource, spec: dict[str, Any], estate: Estate) -> bool:
    model: type[BaseModel] = StreamConfig if res.kind == "Stream" else ConsumerConfig
    try:
        res.config = model.model_validate(spec)  # type: ignore[assignment]
        return True
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        for err in errors[:MAX_FINDINGS_PER_OBJECT]:
            estate.findings.append(_validation_finding(res, model, err))
        if len(errors) > MAX_FINDINGS_PER_OBJECT:
            line, col = res.locate(res.spec_path, document_path=True)
            estate.findings.append(
                _finding("invalid-field", f"{len(errors) - MAX_FINDINGS_PER_OBJECT} more problems in {res.ref} are not shown", res.file, line, col, res.ref)
            )
        estate.invalid.add(res.key)
        return False


def _validation_finding(res: Resource, model: type[BaseModel], err: dict[str, Any]) -> Finding:
    loc = tuple(err["loc"])
    kind = err["type"]
    src = res.source_path(loc)
    label = _dotted(src)
    if kind == "extra_forbidden":
        field_name = str(loc[-1])
        parent = _dotted(src[:-1]) or "the manifest"
        candidates = _external_names(res, model, loc[:-1])
        msg = f"unknown field {_short(field_name)!r} in {parent}{_did_you_mean(field_name, candidates)}"
        line, col = res.locate(src, key=True, document_path=True)
        if res.dialect == "api":  # the file is the request body: strict decoding refuses it (2.12+ by default)
            return _finding("invalid-field", msg, res.file, line, col, res.ref if res.name else None, UNKNOWN_FIELD_ERROR)
    else:
        text = err["msg"]
        if text.startswith("Value error, "):
            text = text[len("Value error, ") :]
        if kind == "missing":
            msg = f"missing required field {label}"
        elif kind in ("model_type", "model_attributes_type", "dict_type"):
            msg = f"{label} must be a mapping, got {_kind_of(err.get('input'))}"
        elif kind == "list_type":
            msg = f"{label} must be a list, got {_kind_of(err.get('input'))}"
        elif kind in ("bool_type", "bool_parsing"):
            got = err.get("input")
            hint = " (YAML 1.2 reads yes/no/on/off as strings; write true or false)" if isinstance(got, str) and got.lower() in ("yes", "no", "on", "off", "y", "n") else ""
            msg = f"{label} must be true or false, got {_kind_of(got)}{hint}"
        elif kind in ("string_type",):
            msg = f"{label} must be a string, got {_kind_of(err.get('input'))}"
        elif kind in ("int_type", "int_parsing", "int_from_float"):
            msg = f"{label} must be an integer, got {_kind_of(err.get('input'))}"
        elif kind == "timezone_aware":
            msg = f"{label}: {_short(err.get('input'))!r} has no time zone; write RFC 3339 like 2026-01-02T15:04:05Z"
        elif kind.startswith("datetime"):
            msg = f"{label}: {_short(err.get('input'))!r} is not an RFC 3339 time like 2026-01-02T15:04:05Z"
        elif kind == "literal_error":
            expected = err.get("ctx", {}).get("expected", "")
            choices = [c for c in re.findall(r"'([^']*)'", expected) if c]
            got = err.get("input")
            shown = repr(_short(got)) if isinstance(got, str) else _kind_of(got)
            msg = f"{label}: {shown} is not one of {', '.join(choices)}{_did_you_mean(str(got), choices) if isinstance(got, str) else ''}"
        else:
            got = err.get("input")
            suffix = ""
            if kind in ("string_type", "int_type", "bool_type", "list_type", "dict_type", "model_type", "timezone_aware", "datetime_type", "datetime_from_date_parsing", "datetime_parsing"):
                suffix = f", got {_kind_of(got) if not isinstance(got, str) else repr(_short(got))}"
            msg = f"{label}: {text[0].lower() + text[1:] if text else text}{suffix}"
        line, col = res.locate(src, document_path=True)
    code = 10141 if err.get("input") is None and len(loc) >= 2 and loc[-2] == "sources" and isinstance(loc[-1], int) else None
    return _finding("invalid-field", msg, res.file, line, col, res.ref if res.name else None, code)


def _dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + str(step)
    return out


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    current: Any = model
    for step in loc:
        if isinstance(step, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        f = current.model_fields.get(step)
        if f is None:
            return None
        current = _unwrap(f.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(ann: Any) -> Any:
    """The model class inside ``X | None``, ``list[X]`` and the like."""
    while get_origin(ann) in (list, tuple, Union, types.UnionType):
        args = [a for a in get_args(ann) if a is not type(None)]
        if not args:
            break
        ann = args[0]
    return ann


def _external_names(res: Resource, model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    sub = _model_at(model, loc)
    names = list(sub.model_fields) if sub is not None else []
    if res.dialect.startswith("nack"):
        table = _NACK_TABLES.get((res.kind, tuple(s for s in loc if not isinstance(s, int))))
        if table is not None:
            return list(table)
    return names


# --- NACK ----------------------------------------------------------------------------------------

_XFORM = {"source": "src", "dest": "dest"}
_SOURCE = {
    "name": "name",
    "optStartSeq": "opt_start_seq",
    "optStartTime": "opt_start_time",
    "filterSubject": "filter_subject",
    "externalApiPrefix": ("external", "api"),
    "externalDeliverPrefix": ("external", "deliver"),
    "subjectTransforms": ("subject_transforms", _XFORM),
}
_NACK_CONNECTION = ("preventDelete", "preventUpdate", "account", "creds", "nkey", "servers", "tls", "tlsFirst", "jsDomain")
_NACK_STREAM: dict[str, Any] = {
    "name": "name",
    "description": "description",
    "subjects": "subjects",
    "retention": "retention",
    "maxConsumers": "max_consumers",
    "maxMsgsPerSubject": "max_msgs_per_subject",
    "maxMsgs": "max_msgs",
    "maxBytes": "max_bytes",
    "maxAge": "max_age",
    "maxMsgSize": "max_msg_size",
    "storage": "storage",
    "discard": "discard",
    "replicas": "num_replicas",
    "noAck": "no_ack",
    "duplicateWindow": "duplicate_window",
    "placement": ("placement", {"cluster": "cluster", "tags": "tags"}),
    "mirror": ("mirror", _SOURCE),
    "sources": ("sources", _SOURCE),
    "compression": "compression",
    "subjectTransform": ("subject_transform", _XFORM),
    "republish": ("republish", {"source": "src", "destination": "dest", "headers_only": "headers_only"}),
    "sealed": "sealed",
    "denyDelete": "deny_delete",
    "denyPurge": "deny_purge",
    "allowDirect": "allow_direct",
    "allowRollup": "allow_rollup_hdrs",
    "mirrorDirect": "mirror_direct",
    "discardPerSubject": "discard_new_per_subject",
    "firstSequence": "first_seq",
    "metadata": "metadata",
    "consumerLimits": ("consumer_limits", {"inactiveThreshold": "inactive_threshold", "maxAckPending": "max_ack_pending"}),
    "allowMsgTtl": "allow_msg_ttl",
    "subjectDeleteMarkerTtl": "subject_delete_marker_ttl",
    "allowMsgCounter": "allow_msg_counter",
    "allowAtomicPublish": "allow_atomic",
    "allowMsgSchedules": "allow_msg_schedules",
    "persistMode": "persist_mode",
}
_NACK_CONSUMER: dict[str, Any] = {
    "streamName": None,
    "durableName": "durable_name",
    "description": "description",
    "ackPolicy": "ack_policy",
    "ackWait": "ack_wait",
    "deliverPolicy": "deliver_policy",
    "deliverSubject": "deliver_subject",
    "deliverGroup": "deliver_group",
    "filterSubject": "filter_subject",
    "filterSubjects": "filter_subjects",
    "flowControl": "flow_control",
    "heartbeatInterval": "idle_heartbeat",
    "maxAckPending": "max_ack_pending",
    "maxDeliver": "max_deliver",
    "backoff": "backoff",
    "maxWaiting": "max_waiting",
    "optStartSeq": "opt_start_seq",
    "optStartTime": "opt_start_time",
    "rateLimitBps": "rate_limit_bps",
    "replayPolicy": "replay_policy",
    "sampleFreq": "sample_freq",
    "headersOnly": "headers_only",
    "maxRequestBatch": "max_batch",
    "maxRequestExpires": "max_expires",
    "maxRequestMaxBytes": "max_bytes",
    "inactiveThreshold": "inactive_threshold",
    "replicas": "num_replicas",
    "memStorage": "mem_storage",
    "metadata": "metadata",
    "pauseUntil": "pause_until",
    "priorityPolicy": "priority_policy",
    "pinnedTtl": "priority_timeout",
    "priorityGroups": "priority_groups",
}
_NACK_TABLES: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {
    ("Stream", ()): _NACK_STREAM,
    ("Consumer", ()): _NACK_CONSUMER,
}


def _nack_translate(value: dict[str, Any], table: dict[str, Any], src: tuple[Any, ...], dst: tuple[Any, ...], key_map: dict[tuple[Any, ...], tuple[Any, ...]], unknown: list[tuple[tuple[Any, ...], str, list[str]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k in _NACK_CONNECTION and not dst:
            continue  # connection and protection settings: jsops takes these from its target config
        if v == "" and k != "name":
            continue  # NACK's CRDs default strings to '' and its controller reads '' as "not set"
        target = table.get(k, ...)
        if target is ...:
            unknown.append((src + (k,), str(k), list(table)))
            continue
        if target is None:
            continue
        if isinstance(target, tuple) and isinstance(target[1], dict):
            name, sub = target
            key_map[dst + (name,)] = src + (k,)
            if isinstance(v, list):
                items = []
                for i, item in enumerate(v):
                    key_map[dst + (name, i)] = src + (k, i)
                    items.append(_nack_translate(item, sub, src + (k, i), dst + (name, i), key_map, unknown) if isinstance(item, dict) else item)
                out[name] = items
            elif isinstance(v, dict):
                out[name] = _nack_translate(v, sub, src + (k,), dst + (name,), key_map, unknown)
            else:
                out[name] = v
        elif isinstance(target, tuple):
            outer, inner = target
            out.setdefault(outer, {})[inner] = v
            key_map[dst + (outer,)] = src
            key_map[dst + (outer, inner)] = src + (k,)
        else:
            out[target] = v
            if target != k:
                key_map[dst + (target,)] = src + (k,)
    return out


# What NACK itself does with a spec (nats-io/nack deploy/crds.yml, internal/controller/*_controller.go):
# the CRD schemas give defaults that kube-apiserver writes into every object, durations go through
# Go's time.ParseDuration (no d or w units), sizes are integers, and enums have NACK's own spelling.
_GO_DURATION = re.compile(r"^[-+]?(0|([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+)$")
_NACK_DURATIONS = frozenset(
    {"maxAge", "duplicateWindow", "subjectDeleteMarkerTtl", "ackWait", "heartbeatInterval", "maxRequestExpires", "inactiveThreshold", "pinnedTtl"}
)
_NACK_INTEGER_SIZES = frozenset({"maxBytes", "maxMsgSize", "maxRequestMaxBytes"})


def _same(*values: str) -> dict[str, str]:
    return {v: v for v in values}


_NACK_ENUMS: dict[tuple[str, str], dict[str, str]] = {
    ("Stream", "retention"): _same("limits", "interest", "workqueue"),
    ("Stream", "discard"): _same("old", "new"),
    ("Stream", "storage"): _same("file", "memory"),
    ("Stream", "compression"): _same("s2", "none"),
    ("Stream", "persistMode"): _same("default", "async"),
    ("Consumer", "ackPolicy"): _same("none", "all", "explicit"),
    ("Consumer", "deliverPolicy"): {
        "all": "all",
        "last": "last",
        "new": "new",
        "byStartSequence": "by_start_sequence",
        "byStartTime": "by_start_time",
        "lastPerSubject": "last_per_subject",
    },
    ("Consumer", "replayPolicy"): _same("instant", "original"),
    ("Consumer", "priorityPolicy"): _same("none", "pinned_client", "overflow", "prioritized"),
}
# CRD defaults that differ from what the server assumes for an absent field (nats-io/nack#136: ackWait 1ns).
_NACK_DEFAULTS: dict[str, dict[str, Any]] = {
    "Stream": {"storage": "memory"},
    "Consumer": {"ack_policy": "none", "ack_wait": 1},
}


def _go_duration_text(ns: int) -> str:
    """``ns`` in the units Go's time.ParseDuration reads (h, m, s, ms, us, ns)."""
    out = ""
    for unit, size in (("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)):
        if ns >= size:
            q, ns = divmod(ns, size)
            out += f"{q}{unit}"
    return out or "0s"


def _nack_duration_problem(value: Any, label: str) -> str | None:
    if value == "" or value is None:
        return None
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{label}: NACK durations are strings like '30s' (the CRD field is a string), got {_kind_of(value)}"
        return None  # the model reports other types
    try:
        ns = parse_duration(value)
    except UnitError:
        return None  # the model reports it, with the usual advice
    if _GO_DURATION.match(value.strip()):
        return None
    return (
        f"{label}: NACK reads durations with Go's time.ParseDuration, which has no d or w unit; "
        f"write {_go_duration_text(abs(ns))!r}"
    )


def _nack_values(spec: dict[str, Any], kind: str, doc: ParsedDocument, file: str, estate: Estate) -> tuple[dict[str, Any], bool]:
    """Check and translate the values NACK spells its own way; returns the spec to map and whether it is valid."""
    out = dict(spec)
    ok = True

    def report(message: str, path: tuple[Any, ...]) -> None:
        nonlocal ok
        ok = False
        pos = resolve_position(doc.positions, path) or (doc.line, 1)
        estate.findings.append(_finding("invalid-field", message, file, *pos))

    for key, value in spec.items():
        label = f"spec.{key}"
        if key in _NACK_DURATIONS:
            problem = _nack_duration_problem(value, label)
            if problem:
                report(problem, ("spec", key))
                out.pop(key)
        elif key == "backoff" and isinstance(value, list):
            for i, item in enumerate(value):
                problem = _nack_duration_problem(item, f"{label}[{i}]")
                if problem:
                    report(problem, ("spec", key, i))
                    out.pop(key, None)
        elif key == "consumerLimits" and isinstance(value, dict):
            problem = _nack_duration_problem(value.get("inactiveThreshold"), f"{label}.inactiveThreshold")
            if problem:
                report(problem, ("spec", key, "inactiveThreshold"))
                out[key] = {k: v for k, v in value.items() if k != "inactiveThreshold"}
        elif key in _NACK_INTEGER_SIZES and isinstance(value, str) and value != "":
            try:
                hint = f"; write {parse_size(value)}"
            except UnitError:
                hint = ""
            report(f"{label}: NACK sizes are integer numbers of bytes (the CRD field is an integer), got {_kind_of(value)}{hint}", ("spec", key))
            out.pop(key)
        elif (kind, key) in _NACK_ENUMS and value != "" and value is not None:
            table = _NACK_ENUMS[(kind, key)]
            if isinstance(value, str) and value in table:
                out[key] = table[value]
            else:
                choices = list(table)
                shown = repr(_short(value)) if isinstance(value, str) else _kind_of(value)
                hint = _did_you_mean(value, choices) if isinstance(value, str) else ""
                if isinstance(value, str) and not hint:
                    camel = {v: k for k, v in table.items()}.get(value)
                    hint = f"; did you mean {camel!r}?" if camel else ""
                report(f"{label}: {shown} is not one of {', '.join(choices)}{hint}", ("spec", key))
                out.pop(key)
    return out, ok


def _load_nack(doc: ParsedDocument, index: int, file: str, estate: Estate, api: str) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    kind = v.get("kind")
    if kind in ("KeyValue", "ObjectStore"):
        from ._bucket_loader import load_nack_bucket

        load_nack_bucket(doc, index, file, estate, kind, api)
        return
    if kind in _NACK_UNMANAGED:
        _nack_unmanaged(doc, file, estate, kind)
        return
    if kind not in ("Stream", "Consumer"):
        pos = resolve_position(doc.positions, ("kind",)) or start
        what = "missing kind" if kind is None else f"not {_short(kind)!r}"
        known = ["Stream", "Consumer", "KeyValue", "ObjectStore", *_NACK_UNMANAGED]
        hint = _did_you_mean(str(kind), known) if kind is not None else ""
        estate.findings.append(_finding("unknown-kind", f"jsops reads NACK {', '.join(known[:-1])} and {known[-1]} resources, {what}{hint}", file, *pos))
        return
    meta = v.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        pos = resolve_position(doc.positions, ("metadata",)) or start
        estate.findings.append(_finding("invalid-field", f"metadata must be a mapping, got {_kind_of(meta)}", file, *pos))
        return
    meta_ok = _nack_metadata(meta, doc, file, estate)
    spec = v.get("spec")
    if not isinstance(spec, dict):
        pos = resolve_position(doc.positions, ("spec",)) or start
        estate.findings.append(_finding("invalid-field", "missing required field spec" if spec is None else f"spec must be a mapping, got {_kind_of(spec)}", file, *pos))
        return
    key_map: dict[tuple[Any, ...], tuple[Any, ...]] = {(): ("spec",)}
    unknown: list[tuple[tuple[Any, ...], str, list[str]]] = []
    table = _NACK_STREAM if kind == "Stream" else _NACK_CONSUMER
    values, values_ok = _nack_values(spec, kind, doc, file, estate)
    translated = _nack_translate(values, table, ("spec",), (), key_map, unknown)
    for path, k, choices in unknown[:MAX_FINDINGS_PER_OBJECT]:
        pos = resolve_position(doc.positions, path, key=True) or start
        estate.findings.append(_finding("invalid-field", f"unknown field {_short(k)!r} in {_dotted(path[:-1])} ({api}){_did_you_mean(k, choices)}", file, *pos))
    if len(unknown) > MAX_FINDINGS_PER_OBJECT:
        estate.findings.append(
            _finding("invalid-field", f"{len(unknown) - MAX_FINDINGS_PER_OBJECT} more unknown fields in spec are not shown", file, *(resolve_position(doc.positions, ("spec",)) or start))
        )
    annotations = _string_map(meta.get("annotations"), ("metadata", "annotations"), doc, file, estate, "metadata.annotations")
    context: str | None = "default"
    if annotations is None:
        annotations, meta_ok = {}, False
    elif "jsops.io/context" in annotations:
        context = _context(annotations["jsops.io/context"], ("metadata", "annotations", "jsops.io/context"), doc, file, estate, "metadata.annotations.jsops.io/context")
    else:
        context = _nack_account(spec, doc, file, estate) or "default"
    if context is None:
        context, meta_ok = "default", False
    _nack_connection_fields(spec, doc, file, estate)
    for flag, annotation in (("preventDelete", PREVENT_DELETE), ("preventUpdate", PREVENT_UPDATE)):
        if spec.get(flag) is True:
            annotations.setdefault(annotation, "true")
    if kind == "Stream":
        name = _require_str(spec, "name", ("spec",), doc, file, estate, "spec.name")
        stream = None
    else:
        name = _require_str(spec, "durableName", ("spec",), doc, file, estate, "spec.durableName")
        stream = _require_str(spec, "streamName", ("spec",), doc, file, estate, "spec.streamName")
        if stream is None:
            name = None
    for field_name, default in _NACK_DEFAULTS[kind].items():
        translated.setdefault(field_name, default)
    if name is None:
        return
    res = Resource(kind, name, stream, None, file, context, annotations, "nack/" + api.rsplit("/", 1)[1], index, doc.line, doc.positions, ("spec",), key_map, v)  # type: ignore[arg-type]
    if _validate(res, translated, estate) and not unknown and values_ok and meta_ok:
        estate.resources.append(res)
    else:
        estate.invalid.add(res.key)


# NACK kinds jsops reads without managing them (StreamTemplate was removed from nats-server in 2.10;
# an Account is a connection, not an object). KeyValue and ObjectStore are buckets (linter._bucket_loader).
_NACK_UNMANAGED = ("StreamTemplate", "Account")
# NACK's per-object protection, kept as manifest annotations that plan, apply, prune and the controller read.
PREVENT_DELETE = "jsops.io/prevent-delete"
PREVENT_UPDATE = "jsops.io/prevent-update"
_NACK_IGNORED_CONNECTION = ("servers", "creds", "nkey", "tls", "tlsFirst", "jsDomain")


def _nack_name(v: dict[str, Any]) -> str:
    spec = v.get("spec") if isinstance(v.get("spec"), dict) else {}
    meta = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
    for candidate in (spec.get("bucket"), spec.get("name"), meta.get("name")):
        if isinstance(candidate, str) and candidate:
            return _shown(candidate, 80)
    return "(unnamed)"


def _nack_unmanaged(doc: ParsedDocument, file: str, estate: Estate, kind: str) -> None:
    v = doc.value
    pos = resolve_position(doc.positions, ("kind",)) or (doc.line, 1)
    name = _nack_name(v)
    if kind == "Account":
        spec = v.get("spec") if isinstance(v.get("spec"), dict) else {}
        meta = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
        account = meta.get("name") if isinstance(meta.get("name"), str) and meta.get("name") else spec.get("name")
        if isinstance(account, str) and account:
            acct = estate.accounts[account] = _nack_account_resource(account, spec, file, pos[0])
            msg = (f"NACK Account {_shown(account, 80)!r} is a connection, not an object: the NACK streams and consumers "
                   f"with spec.account {_shown(account, 80)!r} are planned as context {_shown(account, 80)!r}, on its servers")
            if acct.secrets:
                msg += (f"; its {'/'.join(acct.secrets)} come from Kubernetes Secrets, which jsops cannot read: a context "
                        f"{_shown(account, 80)!r} in .jsops.yaml or natscli takes precedence and can carry them")
        else:
            msg = "NACK Account without a name: no object can name it"
    else:  # StreamTemplate
        msg = f"NACK StreamTemplate {name!r}: stream templates were removed from nats-server (2.10); jsops leaves it alone"
    estate.findings.append(_finding("not-managed", msg, file, *pos))


def _nack_account_resource(name: str, spec: dict[str, Any], file: str, line: int) -> NackAccount:
    servers = spec.get("servers")
    return NackAccount(
        name,
        file,
        line,
        tuple(s for s in servers if isinstance(s, str) and s) if isinstance(servers, list) else (),
        tuple(k for k in ("creds", "tls", "user", "token") if spec.get(k) not in (None, "", {}, [])),
    )


def _nack_account(spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> str | None:
    """The context a NACK object with ``spec.account`` is routed to: the account's name."""
    account = spec.get("account")
    if account in (None, ""):
        return None
    if not isinstance(account, str) or len(account) > MAX_NAME_LENGTH:
        pos = resolve_position(doc.positions, ("spec", "account")) or (doc.line, 1)
        estate.findings.append(_finding("invalid-field", f"spec.account must be the name of a NACK Account, got {_kind_of(account)}", file, *pos))
        return None
    return account


def _nack_connection_fields(spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> None:
    given = [k for k in _NACK_IGNORED_CONNECTION if spec.get(k) not in (None, "", [], {}, False)]
    if not given:
        return
    pos = resolve_position(doc.positions, ("spec", given[0]), key=True) or (doc.line, 1)
    fields = ", ".join(f"spec.{k}" for k in given)
    estate.findings.append(
        _finding(
            "connection-fields-ignored",
            f"{fields}: NACK connection settings are not used; jsops connects to the target it runs with "
            "(--server/--context, contexts in .jsops.yaml, or a NACK Account named in spec.account)",
            file,
            *pos,
        )
    )


def _nack_metadata(meta: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> bool:
    """The Kubernetes metadata jsops reads (kubectl takes the rest): name and namespace are strings,
    labels a mapping of strings; annotations are checked by the caller."""
    ok = True
    for key in ("name", "namespace"):
        value = meta.get(key)
        if value is not None and (not isinstance(value, str) or not value or len(value) > MAX_NAME_LENGTH):
            pos = resolve_position(doc.positions, ("metadata", key)) or (doc.line, 1)
            what = _too_long(f"metadata.{key}", value) if isinstance(value, str) and value else f"metadata.{key} must be a non-empty string, got {_kind_of(value)}"
            estate.findings.append(_finding("invalid-field", what, file, *pos))
            ok = False
    if _string_map(meta.get("labels"), ("metadata", "labels"), doc, file, estate, "metadata.labels") is None:
        ok = False
    return ok


# --- NATS API JSON ------------------------------------------------------------------------------


def _load_api(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    if "config" in v:
        cfg = v["config"]
        spec_path: tuple[Any, ...] = ("config",)
        if not isinstance(cfg, dict):
            pos = resolve_position(doc.positions, ("config",)) or start
            estate.findings.append(_finding("invalid-field", f"config must be a mapping, got {_kind_of(cfg)}", file, *pos))
            return
        is_consumer = "stream_name" in v or bool(_CONSUMER_ONLY & cfg.keys())
    elif "name" in v or "subjects" in v or "durable_name" in v:
        cfg = v
        spec_path = ()
        is_consumer = bool(_CONSUMER_ONLY & cfg.keys())
    else:
        estate.findings.append(
            _finding("unknown-kind", "not a manifest: no apiVersion/kind, and not a NATS API StreamConfig or ConsumerConfig", file, *start)
        )
        return
    cfg = dict(cfg)
    if is_consumer:
        stream = v.get("stream_name") if spec_path else None
        from_path = False
        if stream is None:
            # `nats consumer add STREAM --config FILE` names the stream on the command line, so the file
            # `nats consumer add --output` writes does not: take it from the file's directory.
            stream = _name_from(os.path.basename(os.path.dirname(file)))
            from_path = stream is not None
        if stream is None:
            estate.findings.append(
                _finding(
                    "consumer-stream-not-found",
                    "consumer config does not say which stream it belongs to (natscli takes it on the command line): "
                    "keep the file in a directory named after the stream (ORDERS/consumer.json), or wrap it as "
                    "{\"stream_name\": \"STREAM\", \"config\": {...}}, the $JS.API.CONSUMER.CREATE body",
                    file,
                    *start,
                )
            )
            return
        if not isinstance(stream, str) or not stream or len(stream) > MAX_NAME_LENGTH:
            pos = resolve_position(doc.positions, ("stream_name",)) or start
            what = _too_long("stream_name", stream) if isinstance(stream, str) and stream else f"stream_name must be a non-empty string, got {_kind_of(stream)}"
            estate.findings.append(_finding("invalid-field", what, file, *pos))
            return
        name_field = "durable_name" if cfg.get("durable_name") else "name"
        name = cfg.get(name_field)
        if not isinstance(name, str) or not name:
            pos = resolve_position(doc.positions, spec_path) or start
            estate.findings.append(_finding("invalid-field", "consumer config has neither durable_name nor name", file, *pos))
            return
        if len(name) > MAX_NAME_LENGTH:
            pos = resolve_position(doc.positions, spec_path + (name_field,)) or start
            estate.findings.append(_finding("invalid-field", _too_long(name_field, name), file, *pos))
            return
        res = Resource("Consumer", name, stream, None, file, "default", {}, "api", index, doc.line, doc.positions, spec_path, {}, v)  # type: ignore[arg-type]
        if from_path:
            estate.named_from_path.add(res.key)
            estate.findings.append(
                _finding("name-from-path", f"consumer {_shown(name)!r} names no stream (as `nats consumer add --output` writes it): "
                         f"it belongs to stream {_shown(stream)!r}, its directory's name", file, *start, res.ref)
            )
        units_ok = _api_unit_strings(cfg, "Consumer", spec_path, doc, file, estate)
    else:
        name = cfg.get("name")
        if name is None and not spec_path:
            # `nats stream add NAME --config FILE`: the name is on the command line; take the file's.
            name = _name_from(os.path.splitext(os.path.basename(file))[0])
            if name is not None:
                cfg["name"] = name
                estate.findings.append(
                    _finding("name-from-path", f"stream config has no name (natscli takes it on the command line): "
                             f"named {_shown(name)!r} after its file", file, *start, ObjectRef("Stream", name, None))
                )
        if not isinstance(name, str) or not name:
            pos = resolve_position(doc.positions, spec_path) or start
            estate.findings.append(_finding("invalid-field", "stream config has no name (natscli takes it on the command line: name the file after the stream, ORDERS.json, or add \"name\")", file, *pos))
            return
        if len(name) > MAX_NAME_LENGTH:
            pos = resolve_position(doc.positions, spec_path + ("name",)) or start
            estate.findings.append(_finding("invalid-field", _too_long("name", name), file, *pos))
            return
        res = Resource("Stream", name, None, None, file, "default", {}, "api", index, doc.line, doc.positions, spec_path, {}, v)  # type: ignore[arg-type]
        units_ok = _api_unit_strings(cfg, "Stream", spec_path, doc, file, estate)
    if _validate(res, cfg, estate) and units_ok:
        estate.resources.append(res)
    else:
        estate.invalid.add(res.key)


_PATH_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")


def _name_from(text: str) -> str | None:
    """A stream name taken from a file or directory name, if it is a plain valid one."""
    return text if _PATH_NAME.match(text) and text not in (".", "..") else None


def _unit_kind(ann: Any) -> str | None:
    """"duration" or "size" for a model annotation built on Duration or Size (through Optional/list)."""
    for meta in getattr(ann, "__metadata__", ()):
        name = getattr(getattr(meta, "func", None), "__name__", "")
        if name in ("_duration", "_size"):
            return name[1:]
    for arg in get_args(ann):
        found = _unit_kind(arg)
        if found:
            return found
    return None


def _unit_fields(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Config paths whose values are durations or sizes (``"*"`` stands for a list index)."""
    out: dict[tuple[str, ...], str] = {}
    for name, info in model.model_fields.items():
        ann = info.annotation
        kind = _unit_kind(ann)
        is_list = "list[" in repr(ann)
        if kind:
            out[prefix + ((name, "*") if is_list else (name,))] = kind
            continue
        sub = _model_at(model, (name,))
        if sub is not None and len(prefix) < 4:
            out.update(_unit_fields(sub, prefix + ((name, "*") if is_list else (name,))))
    return out


_API_UNITS = {"Stream": _unit_fields(StreamConfig), "Consumer": _unit_fields(ConsumerConfig)}


def _api_unit_strings(cfg: dict[str, Any], kind: str, res_path: tuple[Any, ...], doc: ParsedDocument, file: str, estate: Estate) -> bool:
    """The NATS API reads durations as integer nanoseconds and sizes as integer bytes; the server
    rejects strings like "7d" or "10GiB" (which the native and NACK dialects accept). Reports them
    and removes them from ``cfg`` so the model does not report them again."""
    ok = True
    for pattern, unit in _API_UNITS[kind].items():
        for path, value in _walk(cfg, pattern):
            if not isinstance(value, str):
                continue
            ok = False
            label = _dotted(res_path + path)
            try:
                exact = parse_duration(value) if unit == "duration" else parse_size(value)
                hint = f"; write {exact}"
            except UnitError:
                hint = ""
            what = "durations in integer nanoseconds" if unit == "duration" else "sizes in integer bytes"
            pos = resolve_position(doc.positions, res_path + path) or (doc.line, 1)
            estate.findings.append(_finding("invalid-field", f"{label}: the NATS API takes {what}, got {_kind_of(value)}{hint}", file, *pos))
            _drop(cfg, path)
    return ok


def _walk(value: Any, pattern: tuple[str, ...], here: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if not pattern:
        yield here, value
        return
    step, rest = pattern[0], pattern[1:]
    if step == "*":
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _walk(item, rest, here + (i,))
    elif isinstance(value, dict) and step in value:
        yield from _walk(value[step], rest, here + (step,))


def _drop(cfg: dict[str, Any], path: tuple[Any, ...]) -> None:
    """Remove ``path`` from ``cfg``, copying the containers on the way (the document is not changed)."""
    if len(path) == 1:
        cfg.pop(path[0], None)
        return
    head = path[0]
    child = cfg.get(head)
    if isinstance(child, dict):
        cfg[head] = dict(child)
        _drop(cfg[head], path[1:])
    elif isinstance(child, list):
        cfg[head] = list(child)
        if isinstance(path[1], int) and len(path) == 2:
            cfg.pop(head)  # a list with one bad item: drop the list
        elif isinstance(path[1], int) and isinstance(child[path[1]], dict):
            item = dict(child[path[1]])
            _drop(item, path[2:])
            cfg[head][path[1]] = item


# --- estate-wide loading checks -----------------------------------------------------------------


def _name_path(r: Resource) -> tuple[Any, ...]:
    """The document path of the value that names ``r``."""
    if r.dialect == "native":
        return ("metadata", "name")
    if r.dialect.startswith("nack"):
        return ("spec", "name") if r.kind == "Stream" else ("spec", "durableName")
    field_name = "name" if r.kind == "Stream" or not isinstance(r.config, ConsumerConfig) or not r.config.durable_name else "durable_name"
    return r.spec_path + (field_name,)


def _stream_path(r: Resource) -> tuple[Any, ...]:
    """The document path of the value that names a consumer's stream."""
    if r.dialect == "native":
        return ("metadata", "stream")
    if r.dialect.startswith("nack"):
        return ("spec", "streamName")
    return ("stream_name",)


def _directory_not_a_stream(r: Resource, estate: Estate) -> None:
    """A bare consumer config (no stream in the file) in a directory that is not a declared stream:
    one error that says both ways to name the stream, instead of the JS022 note."""
    estate.findings = [f for f in estate.findings if not (f.rule == "JS022" and f.file == r.file and f.object == r.ref)]
    line, col = r.doc_line, 1
    estate.findings.append(
        _finding(
            "consumer-stream-not-found",
            f"consumer {_shown(r.name)!r} does not say which stream it belongs to (natscli takes it on the command line), "
            f"and its directory {_shown(r.stream)!r} is not a declared stream: keep the file in a directory named after "
            "its stream (ORDERS/consumer.json), or wrap it as {\"stream_name\": \"STREAM\", \"config\": {...}}, "
            "the $JS.API.CONSUMER.CREATE body",
            r.file,
            line,
            col,
            r.ref,
            10059,
        )
    )


def _check_estate(estate: Estate) -> None:
    seen: dict[tuple[str, str, str, str | None], Resource] = {}
    kept: list[Resource] = []
    for r in estate.resources:
        first = seen.get(r.key)
        if first is not None:
            line, col = r.locate(_name_path(r), document_path=True)
            fline, _ = first.locate(_name_path(first), document_path=True)
            where = f" in context {_short(r.context)!r}" if r.context != "default" else ""
            estate.findings.append(
                _finding(
                    "duplicate-object",
                    f"{_shown(r.ref)}{where} is declared twice; the first declaration is at {first.file}:{fline}",
                    r.file,
                    line,
                    col,
                    r.ref,
                )
            )
            continue
        seen[r.key] = r
        kept.append(r)
    estate.resources = kept
    streams = {(r.context, r.name) for r in kept if r.kind == "Stream"}
    streams |= {(ctx, name) for ctx, kind, name, _ in estate.invalid if kind == "Stream"}
    for r in kept:
        if r.kind == "Consumer" and (r.context, r.stream) not in streams:
            if r.key in estate.named_from_path:
                _directory_not_a_stream(r, estate)
                continue
            line, col = r.locate(_stream_path(r), document_path=True)
            where = f" in context {_short(r.context)!r}" if r.context != "default" else ""
            estate.findings.append(
                _finding(
                    "consumer-stream-not-found",
                    f"consumer {_short(r.name)!r} belongs to stream {_short(r.stream)!r}, which no manifest declares{where}; "
                    "nats-server rejects a consumer on a missing stream",
                    r.file,
                    line,
                    col,
                    r.ref,
                    10059,
                )
            )

"""Loading one file (or one text): read its documents, send each to its dialect, and keep the
file's findings bounded and, for a file that is not a manifest, free of quoted text."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Protocol

from ..findings import Finding
from ..model.positions import resolve_position
from ..model.resource import Estate
from ..semantics.errcodes import ErrCode
from .api_json import load_api
from .discovery import LoadError, link_out
from .documents import Limits, ParsedDocument, ReadProblem, read_documents
from .messages import MAX_FINDINGS_PER_FILE, did_you_mean, finding, short, type_of
from .nack import NACK_APIS, load_nack
from .native import NATIVE_API, load_native
from .parsed import Parsed
from .reading import NotRegularFile, read_regular
from .recognise import HELM_CHART, JETSTREAM_KINDS, NOT_JETSTREAM, UNREADABLE, api_config, text_looks_jetstream
from .walk import link_out_finding

__all__ = [
    "SUPPRESSION_MARKER",
    "FileCache",
    "holds_manifest",
    "load_file",
    "load_text",
    "read_file",
    "read_text",
    "process",
    "finish_file",
    "scrubbed",
]

SUPPRESSION_MARKER = b"jsops:"
"""What every suppression comment holds (jsops.linter.suppress): a file without it has none."""

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


def problem_finding(p: ReadProblem, file: str) -> Finding:
    # A JSON file is the API request body: a body that does not decode is refused with 10025 by every release.
    server = ErrCode.INVALID_JSON if p.code == "yaml-syntax" and file.endswith(".json") else None
    return finding(_PROBLEM_CODES.get(p.code, "manifest-syntax-error"), p.message, file, p.line, p.column, None, server)


class FileCache(Protocol):
    """The one seam between the loader and the caches: :class:`jsops.linter.cache.parse_cache.ParseCache`,
    handed in by ``jsops.linter.cache.load_paths`` (the loader never imports it). ``parse``: :func:`read_text`;
    ``load``: :func:`load_file` of bytes read; ``size``: the entries held; ``shipment``: what a forked child
    sends back to its parent's ``merge``."""

    def parse(self, data: bytes, shown: str, limits: Limits | None) -> Parsed: ...
    def load(self, data: bytes, shown: str, estate: Estate, limits: Limits | None) -> None: ...
    def size(self) -> int: ...
    def shipment(self) -> tuple[dict[str, Any], dict[str, str]]: ...
    def merge(self, used: dict[str, Any], digests: dict[str, str] | None) -> None: ...


def read_file(
    path: str,
    limits: Limits | None,
    shown: str | None = None,
    root: str | None = None,
    cache: FileCache | None = None,
    unmarked: set[str] | None = None,
) -> Parsed:
    """:func:`read_text` of a file's bytes, from ``cache`` when it holds them; ``shown`` is added to
    ``unmarked`` when they hold no :data:`SUPPRESSION_MARKER`."""
    shown = shown or path
    if root is not None and link_out(path, root):  # re-checked right before reading
        return [], [ReadProblem("link-outside", "symbolic link out of the tree", 1, 1)], False, False
    data = _read_bytes(path, limits, shown, unmarked)
    return read_text(data, shown, limits) if cache is None else cache.parse(data, shown, limits)


def _read_bytes(path: str, limits: Limits | None, shown: str, unmarked: set[str] | None) -> bytes:
    try:
        # At most one byte past the bound: enough to know the file is too large, never the rest.
        data = read_regular(path, (limits or Limits()).max_file_bytes + 1)
    except IsADirectoryError:
        raise LoadError(f"{shown}: is a directory") from None
    except NotRegularFile:
        raise LoadError(f"{shown}: not a regular file") from None
    except OSError as exc:
        raise LoadError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if unmarked is not None and SUPPRESSION_MARKER not in data:
        unmarked.add(shown)
    return data


def holds_manifest(parsed: Parsed) -> bool:
    """Whether a parse is of a manifest, as :func:`finish_file` judges it (else the file is opaque)."""
    docs, _, _, looks = parsed
    return looks or any(isinstance(d.value, dict) and not _MANIFEST_KEYS.isdisjoint(d.value) for d in docs)


def read_text(data: bytes, file: str, limits: Limits | None) -> Parsed:
    """Documents, problems, whether the file ends in a bare separator, and whether its text looks
    like a JetStream config (:func:`jsops.linter.load.recognise.text_looks_jetstream`)."""
    docs, problems = read_documents(data, json_file=file.endswith(".json"), limits=limits or Limits())
    trailing = len(docs) > 1 and _only_separator_after(data, docs[-1].line)
    looks = len(data) <= (limits or Limits()).max_file_bytes and text_looks_jetstream(data)
    return docs, problems, trailing, looks


def load_file(
    path: str,
    estate: Estate,
    *,
    display: str | None = None,
    limits: Limits | None = None,
    root: str | None = None,
    cache: FileCache | None = None,
) -> None:
    """Load one file. With ``root``, a symbolic link that resolves outside it is not read (JS014);
    with ``cache``, its parse is reused when its bytes were parsed before (:class:`FileCache`)."""
    shown = display or path
    if cache is not None:
        if root is not None and link_out(path, root):  # re-checked right before reading
            link_out_finding(shown, estate)
            return
        cache.load(_read_bytes(path, limits, shown, estate.unmarked), shown, estate, limits)
        return
    docs, problems, trailing, looks = read_file(path, limits, display, root, cache, estate.unmarked)
    if any(p.code == "link-outside" for p in problems):
        link_out_finding(shown, estate)
        return
    estate.files.append(shown)
    first = len(estate.findings)
    manifest = process(docs, problems, trailing, shown, estate, looks)
    finish_file(estate, first, shown, manifest or looks)


def load_text(data: bytes, file: str, estate: Estate, *, limits: Limits | None = None) -> None:
    estate.files.append(file)
    first = len(estate.findings)
    docs, problems, trailing, looks = read_text(data, file, limits)
    manifest = process(docs, problems, trailing, file, estate, looks)
    finish_file(estate, first, file, manifest or looks)


def finish_file(estate: Estate, first: int, file: str, manifest: bool) -> None:
    """Cap the file's findings; for a file that holds no manifest (a key, a token, a binary, a file
    past the size bound), make sure no finding quotes it: messages lose their quoted fragments and
    reports show none of its lines. A file in which nothing was a JetStream config (and nothing was
    reported) is not counted among the files linted: the summary counts it as passed over."""
    if file in estate.not_jetstream and len(estate.findings) == first and estate.files and estate.files[-1] == file:
        estate.files.pop()
    _cap_file_findings(estate, first, file)
    if manifest:
        return
    estate.opaque.add(file)
    estate.findings[first:] = [scrubbed(f) for f in estate.findings[first:]]


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def scrubbed(f: Finding) -> Finding:
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
        finding(
            "manifest-too-complex",
            f"{more} more problems in this file are not shown (jsops shows at most {MAX_FINDINGS_PER_FILE} per file); fix the ones above first",
            file,
            last.line,
            last.column,
        )
    )
    estate.findings[first:] = kept


def process(
    docs: list[ParsedDocument],
    problems: list[ReadProblem],
    trailing: bool,
    file: str,
    estate: Estate,
    looks: bool = True,
) -> bool:
    """Load the documents of one file; returns whether any of them looks like a manifest.

    ``looks``: whether the file's text names something of JetStream. A file that does not and cannot
    be parsed, or whose documents are none of them JetStream configs (:mod:`jsops.linter.load.recognise`),
    is passed over and counted (``estate.not_jetstream``), with no finding."""
    if not looks and any(p.code == "yaml-syntax" for p in [*problems, *(q for d in docs for q in d.problems)]):
        estate.not_jetstream[file] = UNREADABLE
        return False
    manifest = any(isinstance(d.value, dict) and not _MANIFEST_KEYS.isdisjoint(d.value) for d in docs)
    # A file with one JetStream config in it is one: its other documents are read as manifests too.
    looks = looks or any(_jetstream(d.value, file) for d in docs)
    before = (len(estate.resources), len(estate.findings), len(estate.skipped))
    passed: list[str] = []
    for i, doc in enumerate(docs):
        for p in doc.problems:
            estate.findings.append(problem_finding(p, file))
        if doc.value is None:
            if not any(p.code in ("too-complex", "unsupported", "yaml-syntax") for p in doc.problems):
                if trailing and i == len(docs) - 1:
                    continue  # a trailing '---' is common and harmless
                estate.findings.append(
                    finding("empty-document", "empty document (null); remove it or add a manifest", file, doc.line, 1)
                )
            continue
        why = _not_jetstream(doc.value, file, looks)
        if why is not None:
            passed.append(why)
            continue
        _load_document(doc, i, file, estate)
    if passed and before == (len(estate.resources), len(estate.findings), len(estate.skipped)) and not problems:
        estate.not_jetstream[file] = passed[0]
        return False
    for p in problems:
        estate.findings.append(problem_finding(p, file))
    if not docs and not problems:
        estate.findings.append(finding("empty-document", "file holds no manifests", file, 1, 1))
        return True  # nothing in it to quote
    return manifest


# Keys of a document that is (an attempt at) a manifest in one of the dialects.
_MANIFEST_KEYS = frozenset(
    {"apiVersion", "kind", "metadata", "spec", "config", "stream_name", "name", "subjects", "durable_name"}
)


def _only_separator_after(data: bytes, line: int) -> bool:
    """Whether the text from ``line`` on is only separators (``---``, ``...``), comments and blank lines:
    a trailing ``---`` is common and harmless."""
    for raw in data.split(b"\n")[max(line - 1, 0) :]:
        text = raw.strip()
        if text and not text.startswith(b"#") and text not in (b"---", b"..."):
            return False
    return True


def _not_jetstream(v: object, file: str, looks: bool) -> str | None:
    """Why a document is not a JetStream config (:mod:`jsops.linter.load.recognise`), or None when it is one
    (or another API's object, which :func:`_load_document` counts, or a near miss of ours: an error)."""
    if not isinstance(v, dict):
        return None if looks else NOT_JETSTREAM
    api, kind = v.get("apiVersion"), v.get("kind")
    if isinstance(kind, str) and kind in JETSTREAM_KINDS or not isinstance(kind, (str, type(None))):
        return None  # a JetStream kind, or a kind that is not a name at all: the dialect's loader says so
    if api is None and kind is None:
        return None if api_config(v) or looks and not v else NOT_JETSTREAM
    if (
        isinstance(api, str)
        and "/" not in api
        and kind is None
        and not any(w in api.lower() for w in ("jsops", "jetstream"))
    ):
        # Helm's Chart.yaml (`apiVersion: v2`, no kind), or another bare-versioned file of no API.
        return HELM_CHART if file.endswith(("Chart.yaml", "Chart.yml")) else NOT_JETSTREAM
    if api is None:  # a kind of no JetStream dialect, without an apiVersion
        return NOT_JETSTREAM
    return None


def _jetstream(v: object, file: str) -> bool:
    """Whether a document is a JetStream config (or a near miss of one): not another API's object."""
    if not isinstance(v, dict) or _not_jetstream(v, file, False) is not None:
        return False
    api = v.get("apiVersion")
    return api is None and "kind" not in v or not _foreign_api(api, v.get("kind"))


def _load_document(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    if not isinstance(v, dict):
        # The type only, never the value: a document that is not a mapping is not a manifest,
        # and may be anything (a token, a key) that a link or a misnamed file brought in.
        estate.findings.append(finding("unknown-kind", f"expected a manifest mapping, got {type_of(v)}", file, *start))
        return
    api = v.get("apiVersion")
    if api is not None or "kind" in v:
        kind = v.get("kind")
        if kind in ("KeyValue", "ObjectStore") and (api == NATIVE_API or api in NACK_APIS):
            from .buckets import load_nack_bucket, load_native_bucket  # a bucket is the stream it builds

            if api == NATIVE_API:
                load_native_bucket(doc, index, file, estate, kind)
            else:
                from .nack_crd import check_nack_document

                check_nack_document(doc, kind, api, file, estate)
                load_nack_bucket(doc, index, file, estate, kind, api)
        elif api == NATIVE_API:
            load_native(doc, index, file, estate)
        elif api in NACK_APIS:
            load_nack(doc, index, file, estate, api)
        elif _foreign_api(api, v.get("kind")):
            estate.skipped.append((file, start[0], f"{short(api)} {short(v.get('kind'))}"))
        else:
            pos = resolve_position(doc.positions, ("apiVersion",)) or start
            known = ", ".join([NATIVE_API, *NACK_APIS])
            hint = did_you_mean(str(api), [NATIVE_API, *NACK_APIS]) if api is not None else ""
            what = "missing apiVersion" if api is None else f"unknown apiVersion {short(api)!r}"
            estate.findings.append(finding("unknown-kind", f"{what}; jsops reads {known}{hint}", file, *pos))
        return
    load_api(doc, index, file, estate)


_OUR_GROUPS = ("jsops", "jetstream.nats.io")


def _foreign_api(api: object, kind: object) -> bool:
    """Whether a document belongs to another API (a Kubernetes Deployment, a ConfigMap, a CRD of
    another operator) kept in the same files: passed over quietly. A document that looks like ours
    but misspelt (``jsops/v2``, ``jetstream.nats.io/v1beta3``, ``jetstrem.nats.io/v1beta2``), or a
    JetStream kind under an unknown apiVersion, still draws JS004."""
    if not isinstance(api, str) or not api or kind in ("Stream", "Consumer", "KeyValue", "ObjectStore"):
        return False
    group = api.rpartition("/")[0].lower()
    if not group:  # Kubernetes' core group is written as the bare version: `apiVersion: v1`
        return api == "v1" and isinstance(kind, str) and bool(kind)
    import difflib  # only for another API's documents: not imported by a lint of jsops's own

    return not difflib.get_close_matches(group, _OUR_GROUPS, n=1, cutoff=0.75)

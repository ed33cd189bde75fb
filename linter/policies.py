"""The team's own rules: CEL policies declared in the jsops config (``policies:``, docs/policies.md).

Each policy becomes a rule class (:class:`PolicyRule`) that the engine runs like a built-in rule, so its
findings are frozen :class:`~jsops.linter.findings.Finding` records with positions, suppressions,
severities, ``--fail-on`` and every reporter. The same classes run in ``jsops audit`` (live configs)
and at the controller's gate, because all three select their rules through
:func:`jsops.linter.engine.discover_rules`.

The variables are derived from the field catalog (:mod:`jsops.linter.semantics.catalog`): ``config`` is
the object's effective config, one key per catalog field (durations as CEL durations, sizes as
integers, enums as strings, nested records as maps, absent optional values left out so that
``has(config.x)`` is false). A field name the catalog does not know is a config error at the
expression's line in ``.jsops.yaml``, found before any manifest is read; so is an expression that does
not parse, names an unknown variable, or gives a type error on the probe objects (one per kind,
built from the catalog's defaults).

The CEL engine (``common-expression-language``, Rust bindings; the choice and the figures are in
docs/policies.md) is imported only when a config declares policies: ``jsops lint`` without them never
loads it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import TYPE_CHECKING, ClassVar, Protocol

from .api import Rule, RuleContext, Violation, format_version
from .config import Config, ConfigError, Policy
from .findings import FieldPath, Severity
from .semantics import catalog
from .semantics.catalog import Unit

if TYPE_CHECKING:
    from .load import Resource

__all__ = [
    "PolicyRule",
    "KINDS",
    "VARIABLES",
    "compile_policies",
    "policy_rules",
    "activation",
]

# Policy kind -> the catalog record its ``config`` has.
KINDS: Mapping[str, str] = {"Stream": "Stream", "Consumer": "Consumer", "KeyValue": "KeyValue", "ObjectStore": "ObjectStore"}

# Top-level variables, what each is, and the kinds that have it (None: every kind).
VARIABLES: Mapping[str, tuple[str, frozenset[str] | None]] = {
    "config": ("the object's effective config (the catalog's fields; a bucket's as its bucket config names them)", None),
    "stream": ("a consumer's stream, or a bucket's stream: its effective config (empty when the estate does not declare it)", frozenset({"Consumer", "KeyValue", "ObjectStore"})),
    "name": ("the object's name (a bucket's: the bucket name)", None),
    "kind": ("the policy's kind: Stream, Consumer, KeyValue or ObjectStore", None),
    "context": ("the object's context (metadata.context; default)", None),
    "metadata": ("the config's metadata map (string to string)", None),
    "labels": ("the manifest's metadata.labels (string to string; empty when it has none)", None),
    "annotations": ("the manifest's metadata.annotations (string to string)", None),
    "env": ("the environment name (--env; empty when none is given)", None),
    "target": ("the target: server_version (string), release (int, 2.12.0 is 2012000), clustered (bool), cluster_size (int)", None),
    "profile": ("the object's measured profile when profiles are given (docs/formats.md; *_ns figures as durations); empty otherwise", None),
}
TARGET_KEYS = ("server_version", "release", "clustered", "cluster_size")

_SECOND_NS = 1_000_000_000
_MACROS = ("all", "exists", "exists_one", "map", "filter")
_TOKEN = re.compile(
    r"""(?P<str>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>[0-9][0-9a-fA-FxX.eEuU]*)|(?P<op>\S)"
)
_KEYWORDS = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop"})
_PLACEHOLDER = re.compile(r"\$\{(.+?)\}")


class _Program(Protocol):
    def execute(self, variables: Mapping[str, object]) -> object: ...


def _cel() -> Callable[[str], _Program]:
    import cel  # the CEL engine: only for a config with policies

    compile_: Callable[[str], _Program] = cel.compile
    return compile_


# --- values -------------------------------------------------------------------------------------


def _duration(ns: int) -> timedelta:
    return timedelta(microseconds=ns / 1000)


def _plain(value: object) -> object:
    """A value as CEL receives it (enums by value, tuples as lists, mappings as dicts)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _record_map(rec: catalog.Record, value: object, only: frozenset[str] | None = None) -> dict[str, object]:
    """An effective record (a named tuple with the catalog record's fields) as a CEL map."""
    out: dict[str, object] = {}
    for f in rec.fields:
        if only is not None and f.name not in only:
            continue
        v = getattr(value, f.name, None)
        if v is None:
            continue
        out[f.name] = _field_value(f, v)
    return out


def _field_value(f: catalog.Field, v: object) -> object:
    if f.unit is Unit.DURATION and isinstance(v, int):
        return _duration(v)
    if f.unit is Unit.DURATIONS and isinstance(v, tuple):
        return [_duration(x) for x in v]
    if f.record is not None:
        nested = catalog.RECORDS[f.record]
        if f.many and isinstance(v, tuple):
            return [_record_map(nested, x) for x in v]
        return _record_map(nested, v)
    return _plain(v)


def _profile_map(value: object) -> dict[str, object]:
    """A profile model as a CEL map: its JSON fields, nanosecond figures (``*_ns`` and those of
    ``ack_time_ns``) as durations, absent evidence left out."""
    from pydantic import BaseModel

    def conv(v: object, ns: bool) -> object:
        if isinstance(v, BaseModel):
            return {k: conv(getattr(v, k), ns or k.endswith("_ns")) for k in type(v).model_fields if getattr(v, k) is not None}
        if ns and isinstance(v, int) and not isinstance(v, bool):
            return _duration(v)
        return v

    out = conv(value, False)
    return out if isinstance(out, dict) else {}


def _ns_fields(model: type) -> set[str]:
    return {k for k in getattr(model, "model_fields", {})}


# --- the scan of an expression: variables and field names ---------------------------------------


@dataclass(frozen=True)
class _Refs:
    """What an expression reads: top-level variables, and per variable the first field of each
    selection (None: the whole value, e.g. passed to a function or indexed)."""

    variables: frozenset[str]
    fields: Mapping[str, frozenset[str] | None]


def _tokens(expr: str) -> list[tuple[str, str, int]]:
    return [(m.lastgroup or "op", m.group(), m.start()) for m in _TOKEN.finditer(expr)]


def _scan(expr: str, kind: str, where: str) -> _Refs:
    """Check the names ``expr`` selects against the variables and the catalog (a ConfigError naming
    the first unknown one) and return what it reads."""
    toks = _tokens(expr)
    bound: set[str] = set()
    for i, (t, v, _) in enumerate(toks):  # macro variables: x.exists(v, ...)
        if t == "ident" and v in _MACROS and i >= 1 and toks[i - 1][1] == "." and i + 3 < len(toks) and toks[i + 1][1] == "(" and toks[i + 3][1] == ",":
            bound.add(toks[i + 2][1])
    variables: set[str] = set()
    fields: dict[str, set[str] | None] = {}
    i = 0
    while i < len(toks):
        t, v, _ = toks[i]
        if t != "ident" or (i > 0 and toks[i - 1][1] == ".") or v in _KEYWORDS:
            i += 1
            continue
        if i + 1 < len(toks) and toks[i + 1][1] == "(":  # a function or macro call
            i += 1
            continue
        chain = [v]
        j = i + 1
        while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][0] == "ident":
            if j + 2 < len(toks) and toks[j + 2][1] == "(":  # a method call ends the selection
                break
            chain.append(toks[j + 1][1])
            j += 2
        i = j
        if v in bound:
            continue
        kinds = VARIABLES.get(v, ("", frozenset()))[1]
        if v not in VARIABLES or (kinds is not None and kind not in kinds):
            known = [n for n, (_, k) in VARIABLES.items() if k is None or kind in k]
            raise ConfigError(f"{where}: unknown variable {v!r}{_hint(v, known)} (a {kind} policy has: {', '.join(known)})")
        variables.add(v)
        _check_chain(v, chain[1:], kind, where)
        if v in ("config", "stream"):
            if len(chain) == 1:
                fields[v] = None
            elif fields.get(v, set()) is not None:
                have = fields.setdefault(v, set())
                assert have is not None
                have.add(chain[1])
    return _Refs(frozenset(variables), {k: (frozenset(s) if s is not None else None) for k, s in fields.items()})


def _hint(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_chain(var: str, chain: Sequence[str], kind: str, where: str) -> None:
    if not chain:
        return
    if var == "target":
        if chain[0] not in TARGET_KEYS:
            raise ConfigError(f"{where}: unknown field target.{chain[0]}{_hint(chain[0], TARGET_KEYS)} (target has: {', '.join(TARGET_KEYS)})")
        return
    if var == "profile":
        _check_profile(chain, kind, where)
        return
    if var not in ("config", "stream"):
        return
    rec: catalog.Record | None = catalog.RECORDS[KINDS[kind] if var == "config" else "Stream"]
    path = var
    for part in chain:
        if rec is None:
            return  # a map (metadata), a list or a scalar: CEL judges the rest
        if part not in rec:
            what = f"a {kind}'s config" if var == "config" else "a stream's config"
            raise ConfigError(f"{where}: unknown field {path}.{part}{_hint(part, rec.names())} ({what} has no {part!r}; docs/policies.md lists the fields)")
        f = rec[part]
        rec = catalog.RECORDS[f.record] if f.record is not None and not f.many else None
        path = f"{path}.{part}"


def _check_profile(chain: Sequence[str], kind: str, where: str) -> None:
    from .model import profiles

    model: object = profiles.ConsumerProfile if kind == "Consumer" else profiles.StreamProfile
    path = "profile"
    for part in chain:
        names = _ns_fields(model) if isinstance(model, type) else set()
        if not names:
            return
        if part not in names:
            raise ConfigError(f"{where}: unknown field {path}.{part}{_hint(part, names)} (a {kind}'s profile has: {', '.join(sorted(names))})")
        annotation = getattr(model, "model_fields")[part].annotation
        inner = [a for a in getattr(annotation, "__args__", (annotation,)) if a is not type(None)]
        model = inner[0] if len(inner) == 1 else None
        path = f"{path}.{part}"


# --- probes: a sample object of each kind, from the catalog -------------------------------------


def _sample(rec: catalog.Record, depth: int = 0) -> dict[str, object]:
    """A value for every field whose type the catalog gives (its default, its unit, its record)."""
    out: dict[str, object] = {}
    for f in rec.fields:
        if f.unit is Unit.DURATION:
            out[f.name] = _duration(f.default if isinstance(f.default, int) else _SECOND_NS)
        elif f.unit is Unit.DURATIONS:
            out[f.name] = [_duration(_SECOND_NS)]
        elif f.unit is Unit.SIZE:
            out[f.name] = f.default if isinstance(f.default, int) else 1
        elif f.unit is Unit.TIME:
            out[f.name] = "2025-01-01T00:00:00Z"
        elif f.record is not None and depth < 3:
            nested = _sample(catalog.RECORDS[f.record], depth + 1)
            out[f.name] = [nested] if f.many else nested
        elif f.default is not catalog.ABSENT and not isinstance(f.default, dict):
            out[f.name] = f.default
        elif f.name == "metadata":
            out[f.name] = {"owner": "probe"}
        elif f.many:
            out[f.name] = ["probe"]
    return out


def _sample_model(model: object, ns: bool = False, depth: int = 0) -> object:
    """A value for every field of a profile model (figures as 1, ratios as 0.5, nanoseconds as durations)."""
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, dict) or depth > 3:
        return None
    out: dict[str, object] = {}
    for name, f in fields.items():
        args = [a for a in getattr(f.annotation, "__args__", (f.annotation,)) if a is not type(None)]
        t = args[0] if len(args) == 1 else None
        if t is int:
            out[name] = _duration(_SECOND_NS) if ns or name.endswith("_ns") else 1
        elif t is float:
            out[name] = 0.5
        elif t is not None and hasattr(t, "model_fields"):
            out[name] = _sample_model(t, ns or name.endswith("_ns"), depth + 1)
    return out


def _probes(kind: str, profile: bool) -> list[dict[str, object]]:
    """Sample variables of a ``kind`` object: one without a profile and, when the expression reads
    it, one with every profile figure (the profile models, hence pydantic, only then)."""
    config = _sample(catalog.RECORDS[KINDS[kind]])
    base: dict[str, object] = {
        "config": config,
        "name": "PROBE",
        "kind": kind,
        "context": "default",
        "metadata": {"owner": "probe"},
        "labels": {"team": "probe"},
        "annotations": {},
        "env": "probe",
        "target": {"server_version": "2.12.0", "release": 2012000, "clustered": True, "cluster_size": 3},
        "profile": {},
    }
    if kind != "Stream":
        base["stream"] = _sample(catalog.STREAM)
    if not profile:
        return [base]
    measured = dict(base)
    from .model import profiles

    measured["profile"] = _sample_model(profiles.ConsumerProfile if kind == "Consumer" else profiles.StreamProfile)
    return [base, measured]


# --- compiling ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Compiled:
    policy: Policy
    program: _Program
    refs: _Refs
    message: tuple[tuple[str, _Program | None], ...]  # literal text, or a ${...} program
    path: FieldPath


def _where(cfg: Config, p: Policy, key: str | None = None) -> str:
    src = cfg.source or "config"
    at = f"{src}:{p.line}:{p.column}" if p.line else src
    return f"{at}: policy {p.code}" + (f" {key}" if key else "")


def _field_path(p: Policy, where: str) -> FieldPath:
    """The config path a policy's ``field`` names (a bucket field as its stream field)."""
    if p.field is None:
        return ()
    parts = p.field.split(".")
    rec: catalog.Record | None = catalog.RECORDS[KINDS[p.kind]]
    for part in parts:
        if rec is None or part not in rec:
            names = rec.names() if rec is not None else ()
            raise ConfigError(f"{where}: field {p.field!r}: unknown field {part!r}{_hint(part, names)}")
        f = rec[part]
        rec = catalog.RECORDS[f.record] if f.record is not None and not f.many else None
    if p.kind in ("KeyValue", "ObjectStore"):
        by_bucket = {b: s for s, b in catalog.bucket_names(p.kind).items()}
        if parts[0] not in by_bucket:
            return ()  # the bucket's name: the finding points at the object
        parts[0] = by_bucket[parts[0]]
    return tuple(parts)


def _compile_one(compile_: Callable[[str], _Program], cfg: Config, p: Policy) -> _Compiled:
    where = _where(cfg, p, "deny" if p.deny is not None else "require")
    refs = _scan(p.expression, p.kind, where)
    try:
        program = compile_(p.expression)
    except ValueError as exc:
        raise ConfigError(f"{where}: the expression does not parse: {_first_line(exc)}") from None
    message: list[tuple[str, _Program | None]] = []
    last = 0
    for m in _PLACEHOLDER.finditer(p.message):
        message.append((p.message[last : m.start()], None))
        mwhere = _where(cfg, p, f"message ${{{m.group(1)}}}")
        _scan(m.group(1), p.kind, mwhere)
        try:
            message.append((m.group(1), compile_(m.group(1))))
        except ValueError as exc:
            raise ConfigError(f"{mwhere}: does not parse: {_first_line(exc)}") from None
        last = m.end()
    message.append((p.message[last:], None))
    for probe in _probes(p.kind, "profile" in refs.variables):
        try:
            out = program.execute(probe)
        except (KeyError, ZeroDivisionError):
            continue  # a key the probe lacks or a value it does not meet: the object decides
        except TypeError as exc:
            raise ConfigError(f"{where}: type error: {_first_line(exc)}") from None
        except RuntimeError as exc:
            raise ConfigError(f"{where}: {_first_line(exc)}") from None
        if not isinstance(out, bool):
            raise ConfigError(f"{where}: the expression gives {type(out).__name__} {out!r}, not a bool")
    return _Compiled(p, program, refs, tuple(message), _field_path(p, _where(cfg, p, "field")))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return " ".join(text.split("\n")[:1]) if "\n| " not in text else " ".join(text.replace("\n", " ").split())


def _reserved(registry: Sequence[type[Rule]]) -> dict[str, str]:
    """Every code and name taken by a built-in rule, a plugin or the loader (upper-cased) -> what."""
    from .findings import LOAD_CODES

    out = {r.code.upper(): r.code for r in registry if not issubclass(r, PolicyRule)}
    out.update({r.name.upper(): r.name for r in registry if not issubclass(r, PolicyRule)})
    out.update({c.code.upper(): c.code for c in LOAD_CODES.values()})
    out.update({c.name.upper(): c.name for c in LOAD_CODES.values()})
    return out


def compile_policies(cfg: Config, registry: Sequence[type[Rule]], env: str | None = None) -> list[type[PolicyRule]]:
    """The config's policies as rule classes, checked against ``registry`` (a code or name that a
    built-in rule, a plugin or the loader takes is refused, and so is the ``JS`` namespace); any
    problem is a :class:`ConfigError` naming the line of the policy in the config."""
    if not cfg.policies:
        return []
    compile_ = _cel()
    taken = _reserved(registry)
    seen: dict[str, Policy] = {}
    out: list[type[PolicyRule]] = []
    for p in cfg.policies:
        where = _where(cfg, p)
        name = p.name or f"policy-{p.code.lower().replace('_', '-')}"
        if re.fullmatch(r"JS[0-9]+", p.code):
            raise ConfigError(f"{where}: code {p.code!r}: JS followed by digits is jsops's namespace; give the team's prefix (ACME001)")
        for token, what in ((p.code, "code"), (name, "name")):
            if token.upper() in taken:
                raise ConfigError(f"{where}: {what} {token!r} is a built-in rule's ({taken[token.upper()]}); policies take codes of their own")
            if token.upper() in seen:
                raise ConfigError(f"{where}: {what} {token!r} is declared twice (also policy {seen[token.upper()].code})")
            seen[token.upper()] = p
        compiled = _compile_one(compile_, cfg, p)
        out.append(_rule_class(compiled, name, env or "", cfg.source or "config"))
    return out


_CACHE: dict[tuple[object, ...], list[type[PolicyRule]]] = {}


def policy_rules(cfg: Config, registry: Sequence[type[Rule]], env: str | None = None) -> list[type[PolicyRule]]:
    """:func:`compile_policies`, once per config, registry and environment in a process."""
    if not cfg.policies:
        return []
    key = (cfg.source, tuple(p.model_dump_json() if hasattr(p, "model_dump_json") else repr(p) for p in cfg.policies), env, tuple(r.code for r in registry))
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = compile_policies(cfg, registry, env)
    return hit


# --- running ----------------------------------------------------------------------------------------


def _target(ctx: RuleContext) -> dict[str, object]:
    t = ctx.target
    release = ctx.release
    size = t.cluster_size if t.cluster_size is not None else (len(t.servers) if t.servers else None)
    clustered = t.clustered if t.clustered is not None else bool((size or 1) > 1 or t.cluster_name or t.servers)
    return {
        "server_version": format_version(release),
        "release": release[0] * 1_000_000 + release[1] * 1_000 + release[2],
        "clustered": clustered,
        "cluster_size": size if size is not None else (1 if not clustered else 0),
    }


def _string_map(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def _labels(resource: Resource) -> dict[str, str]:
    raw = resource.raw
    meta = raw.get("metadata") if isinstance(raw, Mapping) else None
    return _string_map(meta.get("labels")) if isinstance(meta, Mapping) else {}


def activation(
    kind: str,
    resource: Resource,
    ctx: RuleContext,
    env: str,
    variables: frozenset[str] | None = None,
    fields: Mapping[str, frozenset[str] | None] | None = None,
) -> dict[str, object]:
    """The variables a ``kind`` policy sees for ``resource`` (only ``variables`` and, of ``config`` and
    ``stream``, only ``fields`` when given: building a map costs more than evaluating on it)."""
    want = variables if variables is not None else frozenset(VARIABLES)
    fields = fields or {}
    out: dict[str, object] = {}
    eff = ctx.effective(resource)
    is_bucket = kind in ("KeyValue", "ObjectStore")
    if "config" in want:
        only = fields.get("config")
        if is_bucket:
            names = catalog.bucket_names(kind)
            stream_map = _record_map(catalog.STREAM, eff, frozenset(names) if only is None else frozenset(s for s, b in names.items() if b in only))
            config: dict[str, object] = {names[k]: v for k, v in stream_map.items()}
            config["bucket"] = resource.name.split("_", 1)[1]
            if "compression" in config:
                config["compression"] = config["compression"] != "none"
        else:
            config = _record_map(catalog.RECORDS[kind], eff, only)
        out["config"] = config
    if "stream" in want:
        if is_bucket:
            out["stream"] = _record_map(catalog.STREAM, eff, fields.get("stream"))
        else:
            parent = ctx.stream_of(resource)
            out["stream"] = _record_map(catalog.STREAM, ctx.effective(parent), fields.get("stream")) if parent is not None else {}
    if "name" in want:
        out["name"] = resource.name.split("_", 1)[1] if is_bucket else resource.name
    if "kind" in want:
        out["kind"] = kind
    if "context" in want:
        out["context"] = resource.context
    if "metadata" in want:
        out["metadata"] = _string_map(getattr(eff, "metadata", None))
    if "labels" in want:
        out["labels"] = _labels(resource)
    if "annotations" in want:
        out["annotations"] = dict(resource.annotations)
    if "env" in want:
        out["env"] = env
    if "target" in want:
        out["target"] = _target(ctx)
    if "profile" in want:
        if kind == "Consumer":
            prof: object = ctx.consumer_profile(resource)
        else:
            prof = ctx.stream_profile(resource)
        out["profile"] = _profile_map(prof) if prof is not None else {}
    return out


def _show(value: object) -> str:
    from .semantics.units import format_duration

    if isinstance(value, timedelta):
        return format_duration(round(value.total_seconds() * _SECOND_NS))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


class PolicyRule(Rule):
    """Base of the rule classes :func:`compile_policies` makes (one per policy)."""

    groups: ClassVar[frozenset[str]] = frozenset({"policy"})
    policy: ClassVar[Policy]
    docs_url: ClassVar[str | None] = None
    _compiled: ClassVar[_Compiled]
    _env: ClassVar[str]

    def __init_subclass__(cls, **kwargs: object) -> None:
        # Not Rule's checks (JS codes, theme packages): a policy's code and name were checked when
        # its config was compiled.
        pass

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        c = self._compiled
        kind = c.policy.kind
        if kind in ("KeyValue", "ObjectStore"):
            if resource.bucket != kind:
                return ()
        elif resource.kind != kind or resource.bucket is not None:
            return ()
        variables = activation(kind, resource, ctx, self._env, c.refs.variables, c.refs.fields)
        try:
            out = c.program.execute(variables)
        except Exception as exc:  # the engine's errors on this object's values (a missing map key, ...)
            return (Violation(resource, c.path, f"policy {c.policy.code} could not be evaluated on this object: {_first_line(exc)}"),)
        violated = out is True if c.policy.deny is not None else out is not True
        if not violated:
            return ()
        return (Violation(resource, c.path, self._message(resource, ctx)),)

    def _message(self, resource: Resource, ctx: RuleContext) -> str:
        parts: list[str] = []
        full: dict[str, object] | None = None
        for text, program in self._compiled.message:
            if program is None:
                parts.append(text)
                continue
            if full is None:
                full = activation(self._compiled.policy.kind, resource, ctx, self._env)
            try:
                parts.append(_show(program.execute(full)))
            except Exception:  # a value the object lacks: say so rather than fail the lint
                parts.append(f"<no {text}>")
        return "".join(parts)


def _rule_class(c: _Compiled, name: str, env: str, source: str) -> type[PolicyRule]:
    p = c.policy
    form = f"deny: {p.deny}" if p.deny is not None else f"require: {p.require}"
    doc = f"{_PLACEHOLDER.sub(lambda m: m.group(1), p.message)}\n\nA policy of {source} ({p.kind}): `{form}`."
    if p.docs:
        doc += f"\n\nDocumentation: {p.docs}"
    attrs: dict[str, object] = {
        "__doc__": doc,
        "__module__": __name__,
        "code": p.code,
        "name": name,
        "severity": Severity(p.severity),
        "kinds": frozenset({"Stream" if p.kind in ("KeyValue", "ObjectStore") else p.kind}),
        "bucket_words": True,
        "policy": p,
        "docs_url": p.docs,
        "_compiled": c,
        "_env": env,
    }
    cls_name = "Policy" + re.sub(r"[^A-Za-z0-9]", "", p.code.title())
    return type(cls_name, (PolicyRule,), attrs)

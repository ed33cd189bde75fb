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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .api import Rule, RuleContext, Violation
from .config import Config, ConfigError, Policy
from .findings import FieldPath, Severity
from .policy_values import KINDS, TARGET_KEYS, VARIABLES, activation, probes, show
from .semantics import catalog

if TYPE_CHECKING:
    from cel import Program as _Program

    from .load import Resource

__all__ = ["PolicyRule", "KINDS", "VARIABLES", "compile_policies", "policy_rules"]

_MACROS = ("all", "exists", "exists_one", "map", "filter")
_TOKEN = re.compile(
    r"""(?P<str>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>[0-9][0-9a-fA-FxX.eEuU]*)|(?P<op>\S)"
)
_KEYWORDS = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
    }
)
_PLACEHOLDER = re.compile(r"\$\{(.+?)\}")


def _cel() -> Callable[[str], _Program]:
    import cel  # the CEL engine: only for a config with policies

    compile_: Callable[[str], _Program] = cel.compile
    return compile_


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
    bound = _bound(toks)
    variables: set[str] = set()
    fields: dict[str, set[str] | None] = {}
    for chain in _selections(toks):
        v = chain[0]
        if v in bound:
            continue
        _check_variable(v, kind, where)
        variables.add(v)
        _check_chain(v, chain[1:], kind, where)
        if v in ("config", "stream"):
            _note_field(fields, v, chain[1:])
    return _Refs(frozenset(variables), {k: (frozenset(s) if s is not None else None) for k, s in fields.items()})


def _bound(toks: Sequence[tuple[str, str, int]]) -> set[str]:
    """The variables macros bind: ``v`` in ``x.exists(v, ...)``."""
    bound: set[str] = set()
    for i, (t, v, _) in enumerate(toks):
        if t != "ident" or v not in _MACROS or i < 1 or i + 3 >= len(toks):
            continue
        if toks[i - 1][1] == "." and toks[i + 1][1] == "(" and toks[i + 3][1] == ",":
            bound.add(toks[i + 2][1])
    return bound


def _selections(toks: Sequence[tuple[str, str, int]]) -> Iterator[list[str]]:
    """Each selection of a top-level name: the name and the fields selected from it (up to a method call);
    keywords, function and macro calls are not selections."""
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
        yield chain


def _check_variable(v: str, kind: str, where: str) -> None:
    """A ConfigError when ``v`` is not a variable of a ``kind`` policy."""
    kinds = VARIABLES.get(v, ("", frozenset()))[1]
    if v not in VARIABLES or (kinds is not None and kind not in kinds):
        known = [n for n, (_, k) in VARIABLES.items() if k is None or kind in k]
        raise ConfigError(f"{where}: unknown variable {v!r}{_hint(v, known)} (a {kind} policy has: {', '.join(known)})")


def _note_field(fields: dict[str, set[str] | None], v: str, selected: Sequence[str]) -> None:
    """Record the first field selected from ``v`` (none: the whole value is read, None)."""
    if not selected:
        fields[v] = None
    elif fields.get(v, set()) is not None:
        have = fields.setdefault(v, set())
        assert have is not None
        have.add(selected[0])


def _hint(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_chain(var: str, chain: Sequence[str], kind: str, where: str) -> None:
    if not chain:
        return
    if var == "target":
        if chain[0] not in TARGET_KEYS:
            raise ConfigError(
                f"{where}: unknown field target.{chain[0]}{_hint(chain[0], TARGET_KEYS)} (target has: {', '.join(TARGET_KEYS)})"
            )
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
            raise ConfigError(
                f"{where}: unknown field {path}.{part}{_hint(part, rec.names())} ({what} has no {part!r}; docs/policies.md lists the fields)"
            )
        f = rec[part]
        rec = catalog.RECORDS[f.record] if f.record is not None and not f.many else None
        path = f"{path}.{part}"


def _check_profile(chain: Sequence[str], kind: str, where: str) -> None:
    from .model import profiles

    model: object = profiles.ConsumerProfile if kind == "Consumer" else profiles.StreamProfile
    path = "profile"
    for part in chain:
        names = set(getattr(model, "model_fields", {})) if isinstance(model, type) else set()
        if not names:
            return
        if part not in names:
            raise ConfigError(
                f"{where}: unknown field {path}.{part}{_hint(part, names)} (a {kind}'s profile has: {', '.join(sorted(names))})"
            )
        annotation = getattr(model, "model_fields", {})[part].annotation
        inner = [a for a in getattr(annotation, "__args__", (annotation,)) if a is not type(None)]
        model = inner[0] if len(inner) == 1 else None
        path = f"{path}.{part}"


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
    for probe in probes(p.kind, "profile" in refs.variables):
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
            raise ConfigError(
                f"{where}: code {p.code!r}: JS followed by digits is jsops's namespace; give the team's prefix (ACME001)"
            )
        for token, what in ((p.code, "code"), (name, "name")):
            if token.upper() in taken:
                raise ConfigError(
                    f"{where}: {what} {token!r} is a built-in rule's ({taken[token.upper()]}); policies take codes of their own"
                )
            if token.upper() in seen:
                raise ConfigError(
                    f"{where}: {what} {token!r} is declared twice (also policy {seen[token.upper()].code})"
                )
            seen[token.upper()] = p
        compiled = _compile_one(compile_, cfg, p)
        out.append(_rule_class(compiled, name, env or "", cfg.source or "config"))
    for kind in KINDS:
        mine = [r for r in out if r.policy.kind == kind]
        batch = _Batch([r._compiled for r in mine])
        for i, r in enumerate(mine):
            r._batch, r._index = batch, i
    return out


_CACHE: dict[tuple[object, ...], list[type[PolicyRule]]] = {}


def policy_rules(cfg: Config, registry: Sequence[type[Rule]], env: str | None = None) -> list[type[PolicyRule]]:
    """:func:`compile_policies`, once per config, registry and environment in a process."""
    if not cfg.policies:
        return []
    key = (
        cfg.source,
        tuple(p.model_dump_json() if hasattr(p, "model_dump_json") else repr(p) for p in cfg.policies),
        env,
        tuple(r.code for r in registry),
    )
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = compile_policies(cfg, registry, env)
    return hit


class _Batch:
    """The policies of one kind from one config: evaluated together on an object, on one set of
    variables converted once for the engine (building and converting them costs more than
    evaluating), the results kept for the run (in the rule context) for each policy to read."""

    def __init__(self, compiled: Sequence[_Compiled]) -> None:
        self.compiled = tuple(compiled)
        self.variables = frozenset(v for c in compiled for v in c.refs.variables)
        fields: dict[str, frozenset[str] | None] = {}
        for c in compiled:
            for var in ("config", "stream"):
                if var not in c.refs.variables:
                    continue
                have, mine = fields.get(var, frozenset()), c.refs.fields.get(var)
                fields[var] = None if have is None or mine is None else have | mine
        self.fields = fields
        self.key = f"jsops.policies:{id(self)}"

    def results(self, resource: Resource, ctx: RuleContext, env: str) -> list[object]:
        store: dict[int, list[object]] = ctx._cache.setdefault(self.key, {})
        hit = store.get(id(resource))
        if hit is not None:
            return hit
        import cel

        variables = cel.Context(
            activation(self.compiled[0].policy.kind, resource, ctx, env, self.variables, self.fields)
        )
        out: list[object] = []
        for c in self.compiled:
            try:
                out.append(c.program.execute(variables))
            except Exception as exc:  # kept: the policy reports it on this object
                out.append(exc)
        store[id(resource)] = out
        return out


class PolicyRule(Rule):
    """Base of the rule classes :func:`compile_policies` makes (one per policy)."""

    groups: ClassVar[frozenset[str]] = frozenset({"policy"})
    # A policy's message is the team's, in the object's own words (a bucket's ttl, not its stream's
    # max_age): the engine adds no "(ttl of ...)" note to it (jsops.linter.engine._to_finding).
    bucket_words: ClassVar[bool] = True
    policy: ClassVar[Policy]
    docs_url: ClassVar[str | None] = None
    _compiled: ClassVar[_Compiled]
    _env: ClassVar[str]
    _batch: ClassVar[_Batch]
    _index: ClassVar[int]

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
        # The reads this policy makes, made (and so recorded by a tracking context) by every policy
        # even when another of the batch built the variables already.
        ctx.effective(resource)
        if "stream" in c.refs.variables and kind == "Consumer":
            parent = ctx.stream_of(resource)
            if parent is not None:
                ctx.effective(parent)
        out = self._batch.results(resource, ctx, self._env)[self._index]
        if isinstance(out, Exception):  # the engine's errors on this object's values (a missing map key, ...)
            return (
                Violation(
                    resource,
                    c.path,
                    f"policy {c.policy.code} could not be evaluated on this object: {_first_line(out)}",
                ),
            )
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
                parts.append(show(program.execute(full)))
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
        "policy": p,
        "docs_url": p.docs,
        "_compiled": c,
        "_env": env,
    }
    cls_name = "Policy" + re.sub(r"[^A-Za-z0-9]", "", p.code.title())
    return type(cls_name, (PolicyRule,), attrs)

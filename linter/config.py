"""jsops configuration: ``.jsops.yaml`` or ``[tool.jsops]`` in ``pyproject.toml``.

Found from the working directory upward (the first directory holding ``.jsops.yaml``,
``.jsops.yml`` or a ``pyproject.toml`` with a ``[tool.jsops]`` table wins), or named with
``--config FILE``. Keys (kebab-case or snake_case)::

    select: [stream, consumer, JS3]      # codes, code prefixes, names or groups (default: all)
    ignore: [JS110, stream-sealed-on-create]
    severity: {JS102: warning, estate: info}
    fail-on: warning
    target: {server_version: "2.11.0", cluster_size: 3}
    profiles: ops/profiles.json          # relative to the config file
    paths: [manifests]                   # what `jsops lint` lints without PATH arguments
    exclude: [charts, "*.lock.json"]     # globs the walks leave out (as .gitignore; with --exclude)
    consumer-streams: {"nats/*-consumer.json": ORDERS}   # bare natscli consumer configs -> their stream
    nack-version: "0.21"                 # the NACK release whose CRDs NACK files are checked against (default: newest)
    estate: payments-repo                # who owns what jsops applies (scopes --prune, --adopt)
    audit:                               # `jsops audit`'s live rules: thresholds, severity or off (docs/audit.md)
      JS501: {warn_at: 0.8}
    rules:
      JS102: {}                          # per-rule typed options (the rule's ``Options`` model)
    contexts:                            # named targets for plan/apply/export (``--context NAME``,
      prod:                              # ``metadata.context: prod`` in manifests)
        server: nats://nats-1:4222,nats-2:4222
        creds: ~/.secrets/prod.creds     # files: creds, nkey, tls-ca/-cert/-key (relative to the config)
        user: deployer
        password: {env: PROD_NATS_PASSWORD}   # secrets only by reference: {env: VAR} or {file: PATH}
        js-domain: hub
        monitor: http://nats-1:8222      # optional: where the server's JetStream limits are read
    access:                              # which manifests may name which contexts / Account servers
      - {paths: [teams/a], contexts: [team-a], servers: ["nats://a-1:4222"]}
    policies:                            # the team's own rules: CEL expressions (docs/policies.md)
      - {code: ACME001, kind: Stream, deny: "env == 'prod' && config.num_replicas < 3", message: "..."}
    notices:                             # jsops controller's notices (docs/controller.md#notices)
      receivers:
        - {name: ops, format: slack, url: {file: /run/secrets/slack-url}}
    pull-requests:                       # jsops controller's pull mode (docs/controller.md#pull-mode)
      forge: github
      project: acme/streams
      token: {file: /run/secrets/github-token}

A context named ``default`` is the target of objects without ``metadata.context`` when no
``--server``/``--context`` is given. The model only describes contexts; the reconciler resolves
them (and reads secrets) and never echoes a secret.

A broken config is a :class:`ConfigError` with a one-line message naming the file (and for YAML,
line and column) and the key; the CLI turns it into exit code 2.

Who may set a key, and how a config inside a tree ``jsops controller`` follows is read:
:mod:`jsops.linter.repo_config`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from .config_parts import Drift, PullRequests, SecretRef, kebab
from .config_parts import no_inline_secret as _no_inline_secret
from .config_parts import seconds as _seconds
from .errors import LinterError
from .findings import LOAD_CODES, FieldPath, Severity
from .model.records.record import Before, Record, is_record_class, option, validation_errors
from .model.target import Target

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from .api import Rule, RuleOptions
    from .model.positions import PosEntry

__all__ = [
    "AccessRule",
    "Config",
    "Policy",
    "ConfigError",
    "ContextConfig",
    "EnvironmentConfig",
    "NoticeReceiver",
    "Notices",
    "PullRequests",
    "SecretRef",
    "Selection",
    "find_config",
    "load_config",
    "select_rules",
    "validate_options",
    "rule_matcher",
    "CONFIG_NAMES",
]

CONFIG_NAMES = (".jsops.yaml", ".jsops.yml", "pyproject.toml")


class ConfigError(LinterError):
    """A jsops config that cannot be read or does not validate (one line: file, key, reason)."""


class ContextConfig(Record):
    """One named target (a NATS server or cluster and how to authenticate to it)."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    server: str | list[str] | None = None
    creds: str | None = None
    nkey: str | None = None
    user: str | None = None
    password: SecretRef | None = None
    token: SecretRef | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_first: bool = False
    js_domain: str | None = None
    api_prefix: str | None = None
    monitor: str | None = None

    # A secret written inline (a string) is refused by the pydantic model's validator; the fast
    # validator never accepts a string for a SecretRef, so it needs no check of its own.
    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        from pydantic import field_validator

        return {"_by_reference": field_validator("password", "token", mode="before")(_no_inline_secret)}

    def servers(self) -> list[str]:
        raw = self.server if isinstance(self.server, list) else (self.server or "").split(",")
        return [s.strip() for s in raw if s and s.strip()]


class AccessRule(Record):
    """Which contexts the manifests under ``paths`` may name, and which servers a NACK Account there
    may point at (``access:`` in the jsops config; enforced by ``jsops.reconciler.access``)."""

    paths: list[str] = option(min_length=1)
    contexts: list[str] = option(default_factory=list)
    servers: list[str] = option(default_factory=list)


class Policy(Record):
    """One of the team's own rules (``policies:`` in the jsops config; compiled and run by
    :mod:`jsops.linter.policies`, docs/policies.md). Exactly one of ``deny`` (a CEL expression true for
    a violation) and ``require`` (one that must hold) is given. ``line``/``column`` are not keys: where
    the expression is written, filled in by :func:`load_config` for errors that point at it."""

    code: str = option(pattern=r"^[A-Z][A-Z0-9_-]{1,31}$")
    kind: Literal["Stream", "Consumer", "KeyValue", "ObjectStore"]
    severity: Severity = Severity.ERROR
    deny: str | None = option(default=None, min_length=1)
    require: str | None = option(default=None, min_length=1)
    message: str = option(min_length=1)
    field: str | None = option(default=None, pattern=r"^[a-z_]+(\.[a-z_]+)*$")
    docs: str | None = option(default=None, pattern=r"^https?://\S+$")
    name: str | None = option(default=None, pattern=r"^[a-z0-9]+(-[a-z0-9]+)+$")
    line: int = option(default=0, exclude=True)
    column: int = option(default=0, exclude=True)

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        from pydantic import model_validator

        return {"_one": model_validator(mode="after")(_one_of_deny_or_require)}

    def _fast_check(self) -> bool:
        return (self.deny is None) != (self.require is None)

    @property
    def expression(self) -> str:
        """The CEL expression as written (``deny`` or ``require``)."""
        return self.deny if self.deny is not None else self.require or ""


def _one_of_deny_or_require(self: Any) -> Any:
    """Policy's validator (on its pydantic model)."""
    if (self.deny is None) == (self.require is None):
        raise ValueError("give exactly one of 'deny' (true for a violation) or 'require' (must hold)")
    return self


class EnvironmentConfig(Record):
    """What one environment (``--env NAME``) declares beside its template values: the target its
    manifests are judged by (``jsops discover --env NAME --write`` writes it)."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    target: Target = option(default_factory=Target)


class NoticeReceiver(Record):
    """Where the controller sends its notices (``notices.receivers`` in the operator's config; sent by
    ``jsops.reconciler.controller.notices``). The URL and the token are secrets: by reference only."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    name: str = option(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
    format: Literal["webhook", "slack", "cloudevents"] = "webhook"
    url: SecretRef
    token: SecretRef | None = None  # sent as ``Authorization: Bearer TOKEN``
    events: list[str] | None = None  # the notice types sent (None: all)
    timeout: Annotated[float, Before(_seconds)] = option(default=5.0, gt=0, le=300)

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        from pydantic import field_validator

        return {"_by_reference": field_validator("url", "token", mode="before")(_no_inline_secret)}


class Notices(Record):
    """The controller's notices: receivers, and how long a notice waits and is retried."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    receivers: list[NoticeReceiver] = option(default_factory=list)
    queue: int = option(default=1000, ge=1, le=1_000_000)  # notices waiting per receiver; the oldest is dropped beyond
    attempts: int = option(default=6, ge=1, le=100)  # sends of one notice before it is given up
    backoff: Annotated[float, Before(_seconds)] = option(
        default=1.0, gt=0, le=3600
    )  # wait before the first retry, doubled each time
    max_backoff: Annotated[float, Before(_seconds)] = option(default=60.0, gt=0, le=86400)


class Config(Record):
    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    select: list[str] | None = None
    ignore: list[str] = option(default_factory=list)
    severity: dict[str, Severity] = option(default_factory=dict)
    fail_on: Severity | None = None
    target: Target = option(default_factory=Target)
    # Per environment (--env NAME): a target that replaces ``target`` for that environment.
    environments: dict[str, EnvironmentConfig] = option(default_factory=dict)
    profiles: str | None = None
    paths: list[str] = option(default_factory=list)
    # Glob patterns of files and directories `jsops lint` leaves out of its walks (with --exclude).
    exclude: list[str] = option(default_factory=list)
    # The stream of bare consumer configs (natscli's `nats consumer add STREAM --config FILE`):
    # file glob (relative to the config) -> stream name.
    consumer_streams: dict[str, str] = option(default_factory=dict)
    # The NACK release whose CRDs NACK files are checked against (--nack-version): a tag (v0.21.1) or
    # a minor (0.21); unset: the newest jsops knows (jsops.linter.load.nack_releases).
    nack_version: str | None = option(default=None, pattern=r"^(v?\d+\.\d+(\.\d+)?|latest|newest)$")
    rules: dict[str, dict[str, Any]] = option(default_factory=dict)
    contexts: dict[str, ContextConfig] = option(default_factory=dict)
    # `jsops audit`'s live rules (JS5xx) by code or name: options and severity, judged by the audit command.
    audit: dict[str, dict[str, Any]] = option(default_factory=dict)
    # Which manifest paths may name which contexts and servers (None: not configured; plan/apply
    # then allow any, the controller only its own target): jsops.reconciler.access.
    access: list[AccessRule] | None = None
    # The estate identity stamped on every object jsops apply creates or updates (metadata
    # io.jsops.estate): --prune deletes only this estate's objects, and another estate's objects
    # are taken over only with --adopt. Unset: nothing is stamped and --prune considers only
    # owned objects that carry no estate.
    estate: str | None = option(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")
    # The team's own rules (CEL): they only add findings, so a repository's config may set them.
    policies: list[Policy] = option(default_factory=list)
    # Where `jsops controller` sends its notices (operator only: URLs and tokens are read from files).
    notices: Notices | None = None
    # `jsops controller`'s pull mode: plan open pull requests read-only, post the plans (operator only).
    pull_requests: PullRequests | None = None
    # Drift attribution: ``drift.record`` makes plan/apply/controller keep the record of API changes (docs/drift.md).
    drift: Drift = option(default_factory=Drift)
    # Not keys: where the config came from (relative paths in it are relative to its directory).
    source: str | None = option(default=None, exclude=True)
    root: str = option(default=".", exclude=True)

    def resolve_path(self, p: str) -> str:
        """A path from the config, relative to the config's directory (shown relative to cwd)."""
        if os.path.isabs(p):
            return p
        joined = os.path.normpath(os.path.join(self.root, p))
        if os.path.isabs(joined):
            rel = os.path.relpath(joined)
            return joined if rel.startswith("..") else rel
        return joined

    def for_env(self, env: str | None) -> Config:
        """This config as ``--env env`` reads it: the environment's own target, when it declares one,
        in place of ``target`` (a dev server's facts never judge prod's manifests)."""
        declared = self.environments.get(env) if env else None
        if declared is None or "target" not in declared.model_fields_set:
            return self
        return self.model_copy(update={"target": declared.target})

    def consumer_stream_globs(self) -> list[tuple[str, str]]:
        """``consumer-streams`` as the loader takes them, (glob, stream): a glob naming a directory is the config's."""
        return [(g if "/" not in g else self.resolve_path(g), s) for g, s in self.consumer_streams.items()]


# --- finding and reading -----------------------------------------------------------------------


def find_config(start: str | None = None, *, stop: str | None = None, skip: Sequence[str] = ()) -> str | None:
    """The nearest config file from ``start`` (default: cwd) upward, or None. ``stop``: the last
    folder searched (None: up to the file system's root). ``skip``: folders whose configs are not
    taken, nor those of any folder under them (the search goes on above them)."""
    d = Path(start or os.getcwd()).resolve()
    last = Path(stop).resolve() if stop is not None else None
    skipped = [Path(os.path.realpath(f)) for f in skip]
    for folder in (d, *d.parents):
        if not any(folder == s or s in folder.parents for s in skipped):
            found = _config_in(folder)
            if found is not None:
                return found
        if folder == last:
            break
    return None


def _config_in(folder: Path) -> str | None:
    """The config file in ``folder`` (:data:`CONFIG_NAMES` in order), shown relative to cwd when below it."""
    for name in CONFIG_NAMES:
        p = folder / name
        if not p.is_file():
            continue
        if name == "pyproject.toml":
            try:
                if b"[tool.jsops" not in p.read_bytes():
                    continue
            except OSError:
                continue
        rel = os.path.relpath(p)
        return str(p) if rel.startswith("..") else rel
    return None


def load_config(path: str | None = None, *, search: bool = True) -> Config:
    """Read ``path`` (or the config found from cwd upward); the default config when there is none."""
    if path is None:
        path = find_config() if search else None
        if path is None:
            return Config()
    raw, positions = read_source(path)
    return validated(path, raw, positions)


def read_source(path: str) -> tuple[Any, Any]:
    """The config's mapping (None: empty) and, for YAML, its positions."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror or exc}") from None
    if path.endswith(".toml"):
        raw, positions = _read_toml(data, path), None
    else:
        raw, positions = _read_yaml(data, path)
    if raw is not None and not isinstance(raw, dict):
        raise ConfigError(f"{path}: the jsops config must be a mapping, got {type(raw).__name__}")
    return raw, positions


def validated(path: str, raw: dict[str, Any] | None, positions: PosEntry | None) -> Config:
    root = os.path.dirname(path) or "."
    if raw is None:
        return Config(source=path, root=root)
    try:
        cfg = Config.model_validate(raw)
    except Exception as exc:
        errors = validation_errors(exc)
        if errors is None:
            raise
        raise ConfigError(_validation_message(path, errors, positions, toml=path.endswith(".toml"))) from None
    if cfg.policies and positions is not None:
        cfg = cfg.model_copy(update={"policies": [_placed(p, i, positions) for i, p in enumerate(cfg.policies)]})
    return cfg.model_copy(update={"source": path, "root": root})


def _placed(policy: Policy, index: int, positions: PosEntry) -> Policy:
    """``policy`` with the line and column of its expression in the YAML config."""
    from .model.positions import resolve_position

    key = "deny" if policy.deny is not None else "require"
    pos = resolve_position(positions, ("policies", index, key)) or resolve_position(positions, ("policies", index))
    return policy.model_copy(update={"line": pos[0], "column": pos[1]}) if pos is not None else policy


def _read_toml(data: bytes, path: str) -> Any:
    import tomllib

    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if os.path.basename(path) == "pyproject.toml" or "tool" in doc:
        tool = doc.get("tool", {})
        return tool.get("jsops") if isinstance(tool, dict) else None
    return doc


def _read_yaml(data: bytes, path: str) -> tuple[Any, Any]:
    from .load import read_documents

    docs, problems = read_documents(data)
    problems = problems + [p for d in docs for p in d.problems]
    if problems:
        p = problems[0]
        raise ConfigError(f"{path}:{p.line}:{p.column}: invalid YAML: {p.message}")
    if len(docs) > 1:
        raise ConfigError(f"{path}:{docs[1].line}:1: the jsops config is one YAML document, found {len(docs)}")
    if not docs:
        return None, None
    return docs[0].value, docs[0].positions


def _validation_message(path: str, errors: list[ErrorDetails], positions: PosEntry | None, *, toml: bool) -> str:
    err = errors[0]
    loc = tuple(err["loc"])
    key = ".".join(str(p) for p in loc)
    where = path
    if positions is not None:
        from .model.positions import resolve_position

        # An unknown key points at the key itself; a bad value at the value.
        pos = resolve_position(positions, loc, key=err["type"] == "extra_forbidden")
        for cut in range(len(loc), -1, -1):
            if pos is not None:
                break
            pos = resolve_position(positions, loc[:cut])
        if pos is not None:
            where = f"{path}:{pos[0]}:{pos[1]}"
    elif toml:
        key = f"[tool.jsops] {key}" if os.path.basename(path) == "pyproject.toml" else key
    msg = err["msg"]
    if err["type"] == "value_error":
        msg = msg.removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown key" + _hint(str(loc[-1]), _keys_at(loc[:-1]))
    elif err["type"] == "enum":
        msg = f"{msg}, got {err.get('input')!r}"
    return f"{where}: {key}: {msg}"


def _keys_at(loc: FieldPath) -> list[str]:
    """The keys the config accepts at ``loc`` (a validation error's location), for "did you mean"."""
    import typing

    model: object = Config
    for part in loc:
        if not is_record_class(model):
            if typing.get_origin(model) is dict:  # a mapping of names to models: skip the name
                model = typing.get_args(model)[1]
                continue
            return []
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        if field is None:
            return []
        model = field.annotation
        for _ in range(3):  # unwrap Optional[...] / X | None
            args = [a for a in typing.get_args(model) if a is not type(None)]
            if (
                typing.get_origin(model) in (typing.Union, getattr(__import__("types"), "UnionType", None))
                and len(args) == 1
            ):
                model = args[0]
    if typing.get_origin(model) is dict:
        return []
    if is_record_class(model):
        return [f.alias or n for n, f in model.model_fields.items() if n not in ("source", "root")]
    return []


def _hint(word: str, choices: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- selection -----------------------------------------------------------------------------------


def rule_matcher(rules: Sequence[type[Rule]]) -> Callable[[str], set[str]]:
    """A function mapping a selector (code, code prefix, name, group, or a load code or name) to
    the set of codes it selects (empty: it names nothing)."""
    from .api import rule_groups  # the rules' API: reading a config does not import it

    by_code = {r.code.upper(): r.code for r in rules}
    by_name = {r.name: r.code for r in rules}
    groups: dict[str, set[str]] = {}
    for r in rules:
        for g in rule_groups(r):
            groups.setdefault(g, set()).add(r.code)
    for lc in LOAD_CODES.values():
        by_code[lc.code] = lc.code
        by_name[lc.name] = lc.code
        groups.setdefault("load", set()).add(lc.code)
    all_codes = set(by_code.values())

    def match(token: str) -> set[str]:
        t = token.strip()
        up = t.upper()
        if up in by_code:
            return {by_code[up]}
        if t in by_name:
            return {by_name[t]}
        if t.lower() in groups:
            return set(groups[t.lower()]) | (all_codes if t.lower() == "all" else set())
        if len(up) >= 3 and up.startswith("JS") and up[2:].isdigit():
            return {c for c in all_codes if c.startswith(up)}
        return set()

    return match


@dataclass
class Selection:
    """What the config makes of the registry: rules to run, their options and severities."""

    rules: list[type[Rule]]
    options: dict[str, RuleOptions] = field(default_factory=dict)
    severity: dict[str, Severity] = field(default_factory=dict)
    ignored: set[str] = field(default_factory=set)  # codes switched off (load codes included)

    def instantiate(self) -> list[Rule]:
        return [cls(self.options.get(cls.code)) for cls in self.rules]


def select_rules(config: Config, rules: Sequence[type[Rule]]) -> Selection:
    """Apply select/ignore/severity/rules options; a selector that names nothing is a ConfigError."""
    match = rule_matcher(rules)
    src = config.source or "config"

    def codes(key: str, tokens: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for t in tokens:
            hit = match(t)
            if not hit:
                raise ConfigError(f"{src}: {key}: unknown rule, code prefix or group {t!r} (`jsops rules` lists them)")
            out |= hit
        return out

    load = {c.code for c in LOAD_CODES.values()}
    selected = codes("select", config.select) if config.select is not None else {r.code for r in rules}
    ignored = codes("ignore", config.ignore)
    enabled = [r for r in rules if r.code in selected and r.code not in ignored]
    ignored_all = ignored | ({r.code for r in rules} - selected)
    severity: dict[str, Severity] = {}
    # Groups first, then exact codes/names: the more specific wins.
    for token, sev in sorted(config.severity.items(), key=lambda kv: len(match(kv[0])), reverse=True):
        for c in codes("severity", [token]):
            severity[c] = sev
    options: dict[str, RuleOptions] = {}
    by_code = {r.code: r for r in rules}
    for token, values in config.rules.items():
        hit = match(token)
        if len(hit) != 1 or next(iter(hit)) in load:
            raise ConfigError(f"{src}: rules.{token}: options are per rule; name one rule by code or name")
        cls = by_code[next(iter(hit))]
        options[cls.code] = validate_options(cls.Options, values or {}, f"{src}: rules.{token}", cls.code)
    return Selection(enabled, options, severity, ignored_all)


def validate_options(
    options: type[RuleOptions], values: Mapping[str, Any], where: str, code: str, also: str = ""
) -> RuleOptions:
    """A rule's options from the config's ``values`` (the lint rules' ``rules:`` and the audit's live
    rules' ``audit:``); a bad one is a :class:`ConfigError` at ``where`` naming the rule's options
    (and ``also``: other keys the mapping takes)."""
    try:
        return options.model_validate(values)
    except Exception as exc:
        errors = validation_errors(exc)
        if errors is None:
            raise
        err = errors[0]
        loc = ".".join(str(p) for p in err["loc"])
        known = ", ".join(options.model_fields) or "none"
        msg = "unknown option" + _hint(loc, options.model_fields) if err["type"] == "extra_forbidden" else err["msg"]
        raise ConfigError(f"{where}.{loc}: {msg} ({code} options: {known}{also})") from None

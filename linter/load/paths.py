"""Loading a set of paths: discovery, templates rendered for an environment, large estates parsed
on two cores, and the estate-wide checks once everything is loaded."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from ..model.positions import MapPos, Pos, PosEntry, packed_body
from ..model.resource import Estate
from . import parallel
from .discovery import LoadError, link_out
from .documents import Limits, ReadProblem
from .estate_checks import check_estate
from .files import FileCache, finish_file, load_file, process, read_text
from .messages import finding
from .templates import EnvironmentError_, is_template, render_file
from .walk import link_out_finding, readable_files

if TYPE_CHECKING:
    from .templates import TemplateProblem

__all__ = ["LoadOptions", "load_paths"]

_Move = Callable[[Pos], Pos]


class LoadOptions(TypedDict, total=False):
    """:func:`load_paths`'s options but the cache (what :func:`jsops.linter.cache.load_paths` passes on)."""

    limits: Limits | None
    env: str | None
    environments_dir: str | None
    meanwhile: Callable[[], None] | None
    exclude: Sequence[str]
    consumer_streams: Sequence[tuple[str, str]]
    nack_version: str | None


def load_paths(
    paths: Iterable[str],
    *,
    limits: Limits | None = None,
    env: str | None = None,
    environments_dir: str | None = None,
    meanwhile: Callable[[], None] | None = None,
    cache: FileCache | None = None,
    exclude: Sequence[str] = (),
    consumer_streams: Sequence[tuple[str, str]] = (),
    nack_version: str | None = None,
) -> Estate:
    """Load every manifest under ``paths``; also checks estate-wide loading problems
    (duplicate objects, consumers whose stream is not declared).

    ``meanwhile`` is called once, in this process, while a forked child parses part of a large
    estate (else before loading): work that waits on something else (a server) overlaps the parse.

    Templates (``*.yaml.j2``) are rendered with the values of ``environments/<env>.yaml`` (the
    nearest ``environments/`` directory at or above each template, or ``environments_dir``) and
    loaded like any manifest; findings point at the template's lines. Without ``env`` a template
    is a ``template-needs-env`` finding. Raises :class:`LoadError` for an unknown environment.

    ``cache``: where files parsed before with the same bytes are not parsed again (the seam,
    :class:`~jsops.linter.load.files.FileCache`; :func:`jsops.linter.cache.load_paths` opens it and
    hands it in; templates are always rendered and parsed). Off by default: only ``jsops lint`` asks
    for it, never plan, apply or the controller (whoever can write the cache must not decide what is
    applied).

    ``exclude``: glob patterns of files and directories the walks leave out
    (:func:`jsops.linter.load.discovery.excluded`). Files under a Helm chart's ``templates/`` are not
    read: they are counted in ``estate.not_jetstream`` (:mod:`jsops.linter.load.recognise`).

    ``consumer_streams``: ``(file glob, stream)`` pairs naming the stream of bare consumer configs
    (natscli's ``nats consumer add STREAM --config FILE``); the first match wins.

    ``nack_version``: the NACK release whose CRDs NACK files are checked against (a tag or a minor,
    :func:`jsops.linter.load.nack_releases.nack_release`); None: the newest jsops knows.
    """
    estate = Estate(consumer_streams=list(consumer_streams), nack_version=nack_version)
    paths = list(paths)
    files, roots = readable_files(paths, exclude, estate)
    templates = any(is_template(f) for f in files)
    if not templates and parallel.worth_forking(len(files), cache):
        parallel.load_parallel(files, estate, limits, roots, meanwhile, cache)
    else:
        if meanwhile is not None:
            meanwhile()
        values: dict[str, tuple[dict[str, Any], list[TemplateProblem]]] = {}
        for f in files:
            if is_template(f):
                _load_template(f, estate, limits, env, environments_dir, values, roots.get(f))
            else:
                load_file(f, estate, limits=limits, root=roots.get(f), cache=cache)
    check_estate(estate)
    return estate


def _load_template(
    path: str,
    estate: Estate,
    limits: Limits | None,
    env: str | None,
    environments_dir: str | None,
    values: dict[str, tuple[dict[str, Any], list[TemplateProblem]]],
    root: str | None = None,
) -> None:
    """Render a template (jinja2 is imported here, only when there is one) and load the result
    under the template's name, with every position moved to the template line that produced it."""
    if root is not None and link_out(path, root):  # re-checked right before reading
        link_out_finding(path, estate)
        return
    estate.files.append(path)
    if env is None:
        estate.findings.append(
            finding(
                "template-needs-env",
                "this is a template: pass --env NAME to render it with environments/NAME.yaml and check it (`jsops render --env NAME` shows the result)",
                path,
                1,
                1,
            )
        )
        return
    max_bytes = (limits or Limits()).max_file_bytes
    try:
        rendered = render_file(path, env, environments_dir=environments_dir, max_bytes=max_bytes, values_cache=values)
    except EnvironmentError_ as exc:
        raise LoadError(str(exc)) from None
    first = len(estate.findings)
    for p in rendered.problems:
        estate.findings.append(finding(p.code, p.message, p.file, p.line, p.column))
    if rendered.problems:
        return
    estate.rendered[path] = rendered
    base = path[: -len(".j2")]
    docs, problems, trailing, _ = read_text(rendered.text.encode("utf-8"), base, limits)

    def move(pos: tuple[int, int]) -> tuple[int, int]:
        return (rendered.template_line(pos[0])[0], pos[1])

    for d in docs:
        d.positions = _move_positions(d.positions, move)
        d.line = move((d.line, 1))[0]
        d.problems = [ReadProblem(p.code, _move_lines(p.message, move), *move((p.line, p.column))) for p in d.problems]
    problems = [ReadProblem(p.code, _move_lines(p.message, move), *move((p.line, p.column))) for p in problems]
    if not docs and not problems:
        return  # a template may render to nothing in some environments: not a finding
    process(docs, problems, trailing, path, estate)
    finish_file(estate, first, path, True)  # a template is written as a manifest: its lines may be shown


_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)")


def _move_lines(message: str, move: _Move) -> str:
    """A parser message about rendered text ("... starts at line 7") in template lines."""
    return _LINE_IN_MESSAGE.sub(lambda m: f"line {move((int(m.group(1)), 1))[0]}", message)


def _move_positions(entry: PosEntry | None, move: _Move) -> PosEntry | None:
    if entry is None:
        return None
    if isinstance(entry, tuple):
        return move(entry)
    if isinstance(entry, list):  # packed (see jsops.linter.model.positions)
        start, body = entry[0], packed_body(entry)
        if isinstance(body, dict):
            return [move(start), {k: (move(kpos), _move_positions(child, move)) for k, (kpos, child) in body.items()}]
        return [move(start), [_move_positions(child, move) for child in body or ()]]
    entry.start = move(entry.start)
    if isinstance(entry, MapPos):
        entry.keys = {k: (move(kpos), _move_positions(child, move)) for k, (kpos, child) in entry.keys.items()}
    else:
        entry.items = [_move_positions(child, move) for child in entry.items]
    return entry

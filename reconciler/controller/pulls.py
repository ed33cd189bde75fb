"""Pull mode: the controller plans the heads of open pull requests, read-only, and posts each plan.

With ``pull-requests:`` in the operator's config (:class:`jsops.linter.config.PullRequests`), a thread
of the controller looks at the followed repository's refs every ``interval`` (``refs/pull/*/head``
by default, or any pattern with one ``*``: a branch pattern ``refs/heads/feature/*``). It fetches
them into a bare repository of its own (one ``git fetch`` of glob refspecs: only new objects travel),
and plans every head whose commit it has not planned yet:

- the head's tree is checked out into a temporary directory and loaded as a revision is
  (:func:`jsops.reconciler.controller.source.load_revision`): linted with the operator's config, a
  jsops config in the tree may only narrow it (a head whose config sets an operator key fails);
- its objects are routed with the operator's contexts and ``access`` only (a context the operator
  did not allow fails the head), and each target is read and planned as a round plans it
  (:func:`jsops.reconciler.controller.target.read_and_plan`): read requests only, nothing is applied;
- the plan is posted as a commit status (``status-context``, success or failure) and, when the
  ``*`` of the ref is a number (the pull request's), as one sticky markdown comment
  (:mod:`jsops.reconciler.forge`); a head that cannot be planned gets a failure status and a
  comment with its one-line error. Each plan is also a ``pull_planned`` event in the event log, which the
  notices send to their receivers as a ``pull.planned`` notice (a webhook, without a forge).

Among replicas sharing a target's lease, only the leader of the first target routed to (the
default's) plans. One plan per new head commit (remembered in memory: after a restart each open head is planned once
more, and its comment updated in place); at most ``max-per-minute`` plans start in any minute, the
others wait for the next look. A forge that does not answer leaves the head to be planned again.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import ReconcilerError, TemporaryError
from .source import SourceError

if TYPE_CHECKING:
    from jsops.linter.config import Config, PullRequests, SecretRef

    from ..client import JsClient, Target
    from ..forge import Forge, StatusState
    from ..plan import PlanSet
    from .git import GitSource
    from .host import Controller
    from .source import Revision

__all__ = ["Head", "PullOutcome", "PullPlanner", "RateLimit", "failed_outcome", "planned_outcome", "ref_number"]

_NAMESPACE = "refs/jsops-pulls/"  # where the fetched heads are kept in the planner's repository
_ERROR_LINES = 20


@dataclass(frozen=True)
class Head:
    """One head to plan: its ref in the followed repository and its commit."""

    ref: str
    commit: str
    number: int | None  # the pull request's number: the ``*`` of the ref pattern, when it is digits


@dataclass(frozen=True)
class PullOutcome:
    """What a head's plan says: the status, its one line, and the comment's markdown."""

    state: StatusState
    summary: str
    body: str
    retry: bool = False  # the target or git could not be reached: planned again at a later look


def ref_number(pattern: str, ref: str) -> int | None:
    """The number the ``*`` of ``pattern`` matches in ``ref`` (None: not digits, or no match)."""
    head, _, tail = pattern.partition("*")
    if not ref.startswith(head) or not ref.endswith(tail) or len(ref) <= len(head) + len(tail):
        return None
    middle = ref[len(head) : len(ref) - len(tail)]
    return int(middle) if middle.isdigit() else None


class RateLimit:
    """At most ``per_minute`` takes in any 60 seconds."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._taken: deque[float] = deque()

    def take(self) -> bool:
        now = self._clock()
        while self._taken and now - self._taken[0] >= 60.0:
            self._taken.popleft()
        if len(self._taken) >= self.per_minute:
            return False
        self._taken.append(now)
        return True


class PullPlanner:
    """The pull mode's thread (:meth:`start`, :meth:`stop`); :meth:`look` is one look at the refs."""

    def __init__(self, ctl: Controller, spec: PullRequests, source: GitSource) -> None:
        from .git import default_workdir

        self.ctl = ctl
        self.spec = spec
        self.source = source
        self.root = ctl.roots[0]  # the followed tree: the manifests' PATHs are taken relative to it
        self.rel_paths = [os.path.relpath(os.path.realpath(p), self.root) for p in ctl.options.paths]
        base = os.path.dirname(source.checkout) if source.own_clone else default_workdir(source.checkout, "#pulls")
        self.repo = os.path.join(base, "pulls.git")
        self.planned: dict[str, str] = {}  # ref -> the commit last planned
        self.rate = RateLimit(spec.max_per_minute)
        self.forge = _forge(spec, ctl.options.config) if spec.forge else None
        self.clients: dict[str, JsClient] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._deferred: str | None = None  # the head the rate limit last held back

    def secrets(self) -> list[str]:
        return [self.forge.token] if self.forge is not None else []

    # -- the thread ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="jsops-pulls", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None
        for client in self.clients.values():
            try:
                client.close()
            except Exception:
                pass
        self.clients = {}

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.look()
            except SourceError as exc:
                self.ctl.count_error("git", f"pull mode: {exc}")
            except Exception as exc:  # the planner must never end the controller
                self.ctl.count_error("internal", f"pull mode: {type(exc).__name__}: {exc}")
            self._stop.wait(self.spec.interval)

    def look(self) -> int:
        """Fetch the refs and plan the heads not planned yet (within the rate); how many were planned."""
        done = 0
        if not self.mine():
            return 0
        for head in self.heads():
            if self._stop.is_set():
                break
            if self.planned.get(head.ref) == head.commit:
                continue
            if not self.rate.take():
                if self._deferred != head.commit:  # told once, not at every look
                    self._deferred = head.commit
                    self.ctl.log(
                        "pull_deferred",
                        ref=head.ref,
                        commit=head.commit,
                        reason=f"more than {self.spec.max_per_minute} plans a minute",
                    )
                break
            if self.plan_and_post(head):
                self.planned[head.ref] = head.commit
            done += 1
        return done

    def mine(self) -> bool:
        """Whether this controller plans: among replicas, the one leading the first target routed
        to (the default's); with ``--dry-run`` or ``--no-lease``, every controller."""
        opt = self.ctl.options
        if opt.dry_run or not opt.lease:
            return True
        names = list(self.ctl.targets)
        return bool(names) and self.ctl.leader(names[0])

    # -- git -------------------------------------------------------------------------------------

    def heads(self) -> list[Head]:
        """The refs matching the patterns, fetched into the planner's repository."""
        if not os.path.isdir(os.path.join(self.repo, "objects")):
            os.makedirs(self.repo, mode=0o700, exist_ok=True)
            self.source.run("init", "--quiet", "--bare", cwd=self.repo)
        specs = [f"+{p}:{_NAMESPACE}{p.removeprefix('refs/')}" for p in self.spec.refs]
        self.source.run(
            "fetch",
            "--quiet",
            "--no-tags",
            "--prune",
            "--no-write-fetch-head",
            _url(self.source),
            *specs,
            cwd=self.repo,
        )
        listed = self.source.run("for-each-ref", "--format=%(objectname) %(refname)", _NAMESPACE, cwd=self.repo)
        out = []
        for line in listed.splitlines():
            commit, _, local = line.partition(" ")
            ref = "refs/" + local.removeprefix(_NAMESPACE)
            pattern = next((p for p in self.spec.refs if re.fullmatch(re.escape(p).replace(r"\*", ".+"), ref)), None)
            if pattern is not None:
                out.append(Head(ref, commit, ref_number(pattern, ref)))
        gone = set(self.planned) - {h.ref for h in out}
        for ref in gone:  # closed (or deleted): forget it
            self.planned.pop(ref, None)
        return out

    def _checkout(self, head: Head, into: str) -> None:
        self.source.run("--work-tree", into, "checkout", "--quiet", "--force", head.commit, "--", ".", cwd=self.repo)

    # -- one head --------------------------------------------------------------------------------

    def plan_and_post(self, head: Head) -> bool:
        """Plan ``head`` and post the outcome; False when the forge did not answer (planned again later)."""
        started = time.monotonic()
        outcome = self.plan(head)
        posted: list[str] = []
        error: ReconcilerError | None = None
        if self.forge is not None:
            try:
                posted = self._post(head, outcome)
            except ReconcilerError as exc:
                error = exc
        self.ctl.log(
            "pull_planned",
            ref=head.ref,
            commit=head.commit,
            number=head.number,
            result=outcome.state,
            summary=outcome.summary,
            seconds=round(time.monotonic() - started, 3),
            posted=posted,
            **({"error": str(error)} if error is not None else {}),
        )
        if error is not None:
            self.ctl.count_error("forge", f"pull mode: {head.ref}: {error}")
        return not outcome.retry and not isinstance(error, TemporaryError)

    def _post(self, head: Head, outcome: PullOutcome) -> list[str]:
        from ..forge import post_status, upsert_comment
        from ..render_markdown import marker_line

        assert self.forge is not None
        post_status(self.forge, head.commit, outcome.state, outcome.summary, self.spec.status_context)
        done = ["status"]
        if head.number is not None:
            forge = replace(self.forge, number=head.number)
            upsert_comment(forge, outcome.body[: forge.limit], marker_line(self.spec.marker))
            done.append("comment")
        return done

    def plan(self, head: Head) -> PullOutcome:
        """The head's plan (or why it could not be made): never raises."""
        tree = tempfile.mkdtemp(prefix="jsops-pull-")
        try:
            self._checkout(head, tree)
            rev = self._load(head, tree)
            if not rev.good:
                more = f" (and {len(rev.errors) - 1} more)" if len(rev.errors) > 1 else ""
                return self._failed(head, rev.errors[0].splitlines()[0] + more, rev.errors)
            plans = self._plan_targets(rev)
        except Exception as exc:
            message = str(exc).replace(tree + os.sep, "") or type(exc).__name__
            return self._failed(head, message.splitlines()[0], message.splitlines(), retry=_transient(exc))
        finally:
            shutil.rmtree(tree, ignore_errors=True)
        return self._planned(head, plans)

    def _load(self, head: Head, tree: str) -> Revision:
        from .source import load_revision

        opt = self.ctl.options
        paths = [os.path.normpath(os.path.join(tree, p)) for p in self.rel_paths]
        rev = load_revision(paths, opt.env, head.commit, opt.config, (tree,))
        rev.errors = [e.replace(tree + os.sep, "") for e in rev.errors]
        if rev.estate is not None:  # recorded as the followed tree's files, as the round records them
            est = rev.estate
            est.files = [self._rebased(f, tree) for f in est.files]
            est.resources = [replace(r, file=self._rebased(r.file, tree)) for r in est.resources]
        return rev

    def _rebased(self, path: str, tree: str) -> str:
        full = os.path.realpath(path)
        real = os.path.realpath(tree)
        if os.path.commonpath([full, real]) != real:
            return path
        return os.path.join(self.root, os.path.relpath(full, real))

    def _plan_targets(self, rev: Revision) -> PlanSet:
        from ..plan import PlanSet
        from .target import read_and_plan

        plans = []
        for name, target, contexts in self._routes(rev):
            client = self._client(name, target)
            try:
                plan, *_ = read_and_plan(client, target, rev, contexts, self.ctl.options.paths, self.ctl.options.config)
            except Exception:
                self._drop(name)
                raise
            plans.append(plan)
        return PlanSet(plans)

    def _routes(self, rev: Revision) -> list[tuple[str, Target, list[str]]]:
        """The targets the head routes to, with the operator's contexts and ``access`` only."""
        from ..access import access_refusals
        from ..client import resolve_context
        from ..route import route_estate

        ctl = self.ctl
        config = ctl.options.config
        if config is not None:
            config = config.model_copy(update={"root": self.root})
        refused = access_refusals(rev.estate, config, ["default", ctl.target.context])
        if refused:
            raise ReconcilerError("; ".join(str(r) for r in refused[:5]))

        def resolve(name: str) -> Target:
            return resolve_context(name, ctl.options.config, accounts=getattr(rev.estate, "accounts", None))

        routes = route_estate(rev.estate, ctl.target, resolve, explicit=ctl.options.explicit_target)
        return [(r.name, r.target, list(r.contexts)) for r in routes]

    def _client(self, name: str, target: Target) -> JsClient:
        from ..client import JsClient

        client = self.clients.get(name)
        if client is not None and client.connection_lost:
            self._drop(name)
            client = None
        if client is None:
            client = self.clients[name] = JsClient(target)
        return client

    def _drop(self, name: str) -> None:
        client = self.clients.pop(name, None)
        if client is not None:
            try:
                client.close()
            except Exception:
                pass

    def _planned(self, head: Head, plans: PlanSet) -> PullOutcome:
        return planned_outcome(head, plans, marker=self.spec.marker, forge=self.spec.forge or "github")

    def _failed(self, head: Head, summary: str, lines: list[str], *, retry: bool = False) -> PullOutcome:
        return failed_outcome(head, summary, lines, marker=self.spec.marker, retry=retry)


# -- what is posted --------------------------------------------------------------------------------


def _title(head: Head) -> str:
    return f"jsops plan of {head.ref} at {head.commit[:12]} (controller, read-only)"


def planned_outcome(head: Head, plans: PlanSet, *, marker: str, forge: str = "github") -> PullOutcome:
    """A head's plan: ``success`` with the summary line, ``failure`` when the server would refuse a
    change; the plan as markdown (:func:`jsops.reconciler.render_markdown.render_markdown`)."""
    from ..forge import COMMENT_LIMITS
    from ..render_markdown import render_markdown
    from ..render_text import summary_line
    from ..vocabulary import ActionKind

    refused = sum(
        1 for p in plans.plans for a in p.actions if a.action == ActionKind.BLOCKED and a.err_code is not None
    )
    body = render_markdown(plans, limit=COMMENT_LIMITS[forge], marker=marker, title=_title(head))
    line = summary_line(plans)
    if refused:
        return PullOutcome("failure", f"{line}; the server would refuse {refused}", body)
    return PullOutcome("success", line, body)


def failed_outcome(head: Head, summary: str, lines: list[str], *, marker: str, retry: bool = False) -> PullOutcome:
    """A head that could not be planned: ``failure`` (its tree: lint, config, routing), or ``error``
    with ``retry`` (a target or git did not answer); the comment quotes the lines in a code block
    (they come from the pull request: nothing of them is read as markdown)."""
    from ..render_markdown import marker_line

    shown = lines[:_ERROR_LINES] + ([f"... and {len(lines) - _ERROR_LINES} more"] if len(lines) > _ERROR_LINES else [])
    text = "\n".join(shown)
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    said = (
        ":hourglass: **Not planned yet**: a target or git did not answer; planned again shortly."
        if retry
        else ":x: **The plan failed**."
    )
    body = f"{marker_line(marker)}\n## {_title(head)}\n\n{said}\n\n{fence}text\n{text}\n{fence}\n"
    if retry:  # GitHub's "error": the plan could not be made, not a verdict on the change
        return PullOutcome("error", f"not planned yet: {summary}", body, retry=True)
    return PullOutcome("failure", f"plan failed: {summary}", body)


def _transient(exc: BaseException) -> bool:
    """Whether a head's failure says nothing of the head: a target or git that did not answer."""
    from ..client import JsApiError

    return isinstance(exc, TemporaryError) or (isinstance(exc, JsApiError) and exc.err_code is None)


def _url(source: GitSource) -> str:
    url = source.remote_url()
    if "://" in url or re.match(r"^[^/]+@[^/]+:", url) or os.path.isabs(url):
        return url
    return os.path.normpath(os.path.join(source.checkout, url))  # a clone's remote given as a relative path


def _secret(ref: SecretRef, root: str) -> str:
    """The token's text, from its variable or file (relative to the config's directory)."""
    from ..forge import ForgeError

    try:
        return ref.read(root)
    except ValueError as exc:
        raise ForgeError(f"pull-requests.token: {exc}") from None


def _forge(spec: PullRequests, config: Config | None) -> Forge:
    from ..forge import Forge, ForgeError, _check_url

    kind = spec.forge or "github"
    api = (spec.api_url or ("https://api.github.com" if kind == "github" else "https://gitlab.com/api/v4")).rstrip("/")
    _check_url(api, "pull-requests.api-url")
    if not spec.project:
        raise ForgeError("pull-requests.project is not set: which repository to post to is not known")
    if spec.token is None:
        raise ForgeError("pull-requests.token is not set ({file: PATH} or {env: VAR})")
    token = _secret(spec.token, getattr(config, "root", "."))
    return Forge("github" if kind == "github" else "gitlab", api, spec.project, 0, token)

"""``jsops controller``: keep the targets equal to the manifests, round after round.

Level-triggered: a round runs every ``--interval`` and as soon as a manifest file changes (with
``--repo URL --branch B`` or ``--git``, after fetching the branch and checking out its tip:
:mod:`jsops.reconciler.controller.git`). Each round loads and lints the
manifests (a revision with lint errors is rejected and the last good one stays in force), reads
the live state, plans, and applies what the annotations allow (:mod:`jsops.reconciler.controller.policy`),
which also heals drift: objects changed or deleted behind its back. ``--dry-run`` reports and never
writes. Connection loss and errors are retried with jittered exponential backoff; SIGTERM and
SIGINT end it with exit code 0.

Every target the manifests route to (``metadata.context``, as ``jsops apply`` routes them:
:mod:`jsops.reconciler.route`) is reconciled in each round, on its own connection; a failure on one
target does not stop the others. Several controllers can watch one target: only the holder of the
target's lease (a key in a JetStream KV bucket on that target) applies there
(:mod:`jsops.reconciler.controller.lease`); the others plan and report.

Observability: ``/healthz``, ``/readyz`` and ``/metrics`` (Prometheus text) on ``--listen``, and a
JSON-lines event log on stderr or ``--log-file``.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from .events import EventLog
from .host import ControllerOptions
from .metrics import Metrics
from .target import TargetRun

if TYPE_CHECKING:
    from .pulls import PullPlanner

__all__ = ["Controller", "ControllerOptions", "EventLog"]


class _NoRevision(Exception):
    pass


class Controller:
    """The reconcile loop. :meth:`run` blocks until ``stop`` is set (or after one round with ``once``).

    ``target`` is the default target (objects without ``metadata.context``); every other context the
    manifests name is resolved as ``jsops apply`` resolves it (:mod:`jsops.reconciler.route`) and reconciled
    as its own target, with its own connection, lease and metrics (label ``context``)."""

    def __init__(self, options: ControllerOptions, target: Any, *, log: EventLog | None = None) -> None:
        self.options = options
        self.target = target
        self.log = log or EventLog(sys.stderr)
        if isinstance(self.log, EventLog) and hasattr(target, "secrets"):
            self.log.add_secrets(target.secrets())
        self.metrics = Metrics()
        if options.source is None and options.git:
            from .git import GitSource

            options.source = GitSource.clone(options.paths[0] if options.paths else ".")
        if isinstance(self.log, EventLog) and options.source is not None:
            self.log.add_secrets(options.source.secrets())
        from .source import followed_roots

        # the trees whose files come from commits: a jsops config there may only narrow (load_revision)
        self.roots = followed_roots(options.paths, options.source)
        self.ready = False
        self.http: Any = None
        self.current: Any = None  # the revision in force
        self.targets: dict[str, TargetRun] = {}  # by context name, in routing order
        self._rejected: str | None = None
        self._errors_in_row = 0
        self._beat = time.monotonic()
        self._in_round_since: float | None = None
        self.rounds = 0
        self.last_result = ""
        self.last_pending = 0
        self.notices = self._notifier()
        try:
            self.pulls = self._pull_planner()
        except BaseException:
            if self.notices is not None:  # its senders are running already
                self.notices.close()
            raise

    def _notifier(self) -> Any:
        """The notices' sender (:mod:`jsops.reconciler.controller.notices`), fed by the event log; None without receivers."""
        spec = getattr(self.options.config, "notices", None)
        if spec is None or not spec.receivers or not isinstance(self.log, EventLog):
            return None
        from .notices import Notifier

        def leads(context: str | None) -> bool:  # None: some target, or none routed yet
            names = [context] if context is not None else list(self.targets)
            return any(self.leader(n) for n in names) or not names

        config = self.options.config
        notifier = Notifier(
            spec,
            log=self.log,
            metrics=self.metrics,
            leads=leads,
            identity=self.options.identity,
            estate=config.estate,
            root=config.root,
        )
        self.log.add_secrets(notifier.secrets())
        self.log.subscribe(notifier.observe)
        return notifier

    def _pull_planner(self) -> PullPlanner | None:
        """Pull mode (:mod:`jsops.reconciler.controller.pulls`): None without ``pull-requests`` in the config."""
        spec = getattr(self.options.config, "pull_requests", None)
        if spec is None:
            return None
        if self.options.source is None:
            from .source import SourceError

            raise SourceError(
                "pull-requests needs a git source (--repo URL or --git): the pull requests' refs are fetched from it"
            )
        from .pulls import PullPlanner

        planner = PullPlanner(self, spec, self.options.source)
        if isinstance(self.log, EventLog):
            self.log.add_secrets(planner.secrets())
        return planner

    # -- status ----------------------------------------------------------------------------------

    def leader(self, context: str | None = None) -> bool:
        """Whether this controller may apply to the target of ``context`` (None: to every target it
        reconciles; False before the first round has routed any)."""
        if self.options.dry_run:
            return False
        targets = dict(self.targets)  # the HTTP thread asks while the round may change the targets
        one = targets.get(context) if context is not None else None
        runs = [one] if one is not None else ([] if context is not None else list(targets.values()))
        if not runs:
            return False
        return all(not self.options.lease or (r.lease is not None and r.lease.held()) for r in runs)

    def _health(self) -> tuple[int, str]:
        since = self._in_round_since
        limit = max(300.0, 10 * self.options.interval)
        if since is not None and time.monotonic() - since > limit:
            return 503, f"a reconcile round has been running for over {limit:.0f}s\n"
        return 200, "ok\n"

    def _ready(self) -> tuple[int, str]:
        source = self.options.source
        stale = source.stale() if source is not None else None
        if stale:
            return 503, f"not ready: {stale}\n"
        if not self.ready:
            return 503, "not ready: no successful reconcile round yet\n"
        commit = getattr(self.current, "commit", None)
        detail = "".join(
            f"{line}\n" for r in list(self.targets.values()) for line in r.tugs.lines(r.name)
        )  # fields no longer healed
        return 200, (f"ready\ncommit {commit}\n" if commit else "ready\n") + detail

    def _render_metrics(self) -> str:
        self.metrics.replace("leader", {(name,): 1.0 if self.leader(name) else 0.0 for name in list(self.targets)})
        self.metrics.set("ready", 1 if self.ready else 0)
        return self.metrics.render()

    # -- the loop --------------------------------------------------------------------------------

    def start_services(self) -> None:
        from .endpoints import StatusServer

        if self.options.listen is not None and self.http is None:
            host, port = self.options.listen
            self.http = StatusServer(
                host, port, health=self._health, ready=self._ready, metrics=self._render_metrics
            ).start()
        if self.pulls is not None and not self.options.once:
            self.pulls.start()

    def run(self, stop: threading.Event) -> int:
        opt = self.options
        try:
            self.start_services()
        except BaseException:
            self.close()
            raise
        self.log(
            "started",
            paths=opt.paths,
            target=self.target.display(),
            interval=opt.interval,
            dry_run=opt.dry_run,
            config=getattr(opt.config, "source", None),
            identity=opt.identity,
            listen=f"{self.http.address[0]}:{self.http.address[1]}" if self.http else None,
            lease=f"{opt.lease_bucket}/{opt.lease_key}" if opt.lease and not opt.dry_run else None,
            **({"source": opt.source.describe()} if opt.source is not None else {}),
        )
        code = 0
        try:
            while not stop.is_set():
                from .source import snapshot

                # A followed git source is brought up to date by the round itself (fetch, checkout): the
                # tree is compared from after the round, or every new commit would be seen twice.
                follows = opt.source is not None or opt.git
                before = None if follows else snapshot(opt.paths)
                ok = self.round()
                if before is None:
                    before = snapshot(opt.paths)
                if opt.once:
                    code = 0 if ok and not self.last_pending else (2 if ok else 1)
                    break
                self._wait(stop, self._delay(ok), before)
        finally:
            self.close()
            self.log("stopped", rounds=self.rounds)
        return code

    def _delay(self, ok: bool) -> float:
        if ok:
            self._errors_in_row = 0
            return self.options.interval
        self._errors_in_row += 1
        base = min(self.options.interval, 1.0)
        ceiling = min(self.options.max_backoff, base * 2 ** min(self._errors_in_row - 1, 30))
        return random.uniform(ceiling / 2, ceiling)  # jitter: controllers do not retry in step

    def _wait(self, stop: threading.Event, delay: float, before: Any) -> None:
        from .source import snapshot

        deadline = time.monotonic() + delay
        poll = max(0.05, min(1.0, self.options.interval))
        while not stop.is_set():
            self._beat = time.monotonic()
            remaining = deadline - self._beat
            if remaining <= 0:
                return
            stop.wait(min(remaining, poll))
            if stop.is_set():
                return
            now = snapshot(self.options.paths)
            if now != before:
                self.log("source_changed")
                return

    def close(self) -> None:
        if self.pulls is not None:
            self.pulls.stop()
            self.pulls = None
        for run in self.targets.values():
            run.close()
        if self.http is not None:
            self.http.stop()
            self.http = None
        if self.notices is not None:
            self.notices.close()
            self.notices = None

    # -- one round ---------------------------------------------------------------------------------

    def round(self) -> bool:
        """One reconcile round over every target; True when it succeeded on all of them (a
        lint-rejected revision does not fail it)."""
        started = time.monotonic()
        self._in_round_since = started
        self.rounds += 1
        ok = False
        summary: dict[str, Any] = {}
        try:
            summary = self._reconcile()
            ok = summary.pop("ok")
        except _NoRevision as exc:
            summary = {"error": str(exc)}
        except Exception as exc:  # a round must never end the controller
            self.count_error("internal", exc)
            summary = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            self._in_round_since = None
        took = time.monotonic() - started
        self.metrics.observe_duration(took)
        self.metrics.inc("reconcile_total", "success" if ok else "error")
        if ok:
            self.metrics.set("last_success_timestamp_seconds", time.time())
            self.ready = True
        self.last_result = "success" if ok else "error"
        if self.options.source is not None:
            summary["commit"] = getattr(self.current, "commit", None)
        self.log(
            "round",
            result=self.last_result,
            seconds=round(took, 3),
            leader=self.leader(),
            revision=self.current.id if self.current else None,
            **summary,
        )
        return ok

    def count_error(
        self, kind: str, exc: BaseException | str, *, err_code: int | None = None, context: str | None = None
    ) -> None:
        """Count and log an error; ``err_code`` is the JetStream API error code (taken from the
        exception when it carries one), ``context`` the target it happened on (None: not a target's)."""
        code = err_code if err_code is not None else getattr(exc, "err_code", None)
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        self.metrics.inc("errors_total", context or "", kind, str(code) if code is not None else "")
        fields: dict[str, Any] = {"context": context} if context is not None else {}
        self.log(
            "error",
            type=kind,
            err_code=code,
            message=str(exc) if isinstance(exc, str) else (str(exc) or type(exc).__name__),
            **fields,
        )

    def _sync_source(self) -> str | None:
        """Fetch the git source and check out the branch tip; the commit checked out (the last
        one fetched when this fetch failed), None without a source."""
        from .source import SourceError

        source = self.options.source
        if source is None:
            return None
        before = source.commit
        try:
            commit: str | None = source.sync()
        except SourceError as exc:
            self.count_error("git", exc)
            commit = source.commit
        else:
            self.metrics.set("git_last_fetch_timestamp_seconds", time.time())
            if commit != before:
                self.log("source_fetched", source=source.describe(), commit=commit, previous=before)
        if commit is None:
            raise _NoRevision("the git source has never been fetched; nothing is applied")
        return commit

    def _load(self) -> None:
        from .source import SourceError, load_revision

        opt = self.options
        commit = self._sync_source()
        try:
            rev = load_revision(opt.paths, opt.env, commit, opt.config, self.roots)
        except SourceError as exc:
            self.count_error("load", exc)
            rev = None
        if rev is not None and rev.good:
            if self.current is None or rev.id != self.current.id:
                extra = {"commit": rev.commit} if rev.commit else {}
                self.log("revision_accepted", revision=rev.id, objects=len(rev.estate.resources), **extra)
            self.current = rev
            self._rejected = None
            self.metrics.set("lint_errors", 0)
            self.metrics.set("revision_rejected", 0)
            self.metrics.replace("revision_info", {(rev.id,): 1.0})
            self.metrics.replace("git_commit_info", {(rev.commit,): 1.0} if rev.commit else {})
        elif rev is not None:
            by_config = rev.config_file is not None
            self.metrics.set("lint_errors", 0 if by_config else len(rev.errors))
            self.metrics.set("revision_rejected", 1)
            if rev.id != self._rejected:
                self._rejected = rev.id
                self.metrics.inc("errors_total", "", "config" if by_config else "lint", "")
                why: dict[str, Any] = {"reason": "lint"}
                if by_config:  # the repository's config sets what only the operator may, or is broken
                    why = {"reason": "config", "file": rev.config_file, "keys": [r.key for r in rev.refused]}
                self.log(
                    "revision_rejected",
                    revision=rev.id,
                    **why,
                    lint_errors=0 if by_config else len(rev.errors),
                    findings=rev.errors[:20],
                    in_force=self.current.id if self.current else None,
                )
        if self.current is None:
            raise _NoRevision("no revision of the manifests has passed lint yet; nothing is applied")

    def _routes(self, estate: Any) -> tuple[list[Any], bool]:
        """The targets the revision routes to (as ``jsops apply`` routes them), and whether every
        context named in the manifests could be resolved (one that cannot is an error; the other
        targets are still reconciled)."""
        from ..access import access_refusals
        from ..client import Target, TargetError, resolve_context
        from ..route import route_estate

        unresolved: dict[str, Any] = {}
        # always enforced here: no `access` list in the config allows only the controller's own target
        refused: dict[str, list[str]] = {}
        config = self.options.config
        if config is not None and self.options.source is not None:
            # following git, `access` paths are relative to the repository's root (the operator's
            # config lives outside it); the rest of the config keeps its own directory
            config = config.model_copy(update={"root": self.roots[0]})
        for refusal in access_refusals(estate, config, ["default", self.target.context]):
            refused.setdefault(refusal.context, []).append(str(refusal))
        for name, reasons in refused.items():
            self.count_error(
                "access", "refused, nothing is planned for this context: " + "; ".join(reasons), context=name
            )

        def resolve(name: str) -> Any:
            if name in refused:
                unresolved[name] = Target(servers=(f"refused://{name}",), context=name)
                return unresolved[name]
            try:
                return resolve_context(name, self.options.config, accounts=getattr(estate, "accounts", None))
            except TargetError as exc:
                unresolved[name] = Target(servers=(f"unresolved://{name}",), context=name)
                self.count_error("connection", f"manifests route objects to context {name!r}: {exc}", context=name)
                return unresolved[name]

        routes = route_estate(estate, self.target, resolve, explicit=self.options.explicit_target)
        return [r for r in routes if r.target not in unresolved.values()], not unresolved

    def _sync_targets(self, routes: list[Any]) -> None:
        """Keep a :class:`TargetRun` per routed target: new ones get a lease (waiting for its first
        attempt, so that a sole controller applies at once), ones no longer routed are closed."""
        from .lease import Lease
        from .tugs import Tugs

        wanted = {r.name: r for r in routes}
        for name in [n for n in self.targets if n not in wanted or self.targets[n].target != wanted[n].target]:
            self.targets.pop(name).close()
        fresh = []
        for route in routes:
            run = self.targets.get(route.name)
            if run is None:
                run = self.targets[route.name] = TargetRun(route.name, route.target, list(route.contexts))
                run.tugs = Tugs(self.options.quarantine_after, self.options.quarantine_window)
                if isinstance(self.log, EventLog):
                    self.log.add_secrets(route.target.secrets())
                if self.options.lease and not self.options.dry_run:
                    name = route.name

                    def emit(event: str, _name: str = name, **fields: Any) -> None:
                        self.log(event, context=_name, **fields)

                    def on_error(kind: str, exc: BaseException, _name: str = name) -> None:
                        self.count_error(kind, exc, context=_name)

                    run.lease = Lease(
                        route.target,
                        ttl=self.options.lease_ttl,
                        bucket=self.options.lease_bucket,
                        key=self.options.lease_key,
                        identity=self.options.identity,
                        emit=emit,
                        on_error=on_error,
                    )
                    run.lease.start()
                    fresh.append(run.lease)
            run.contexts = list(route.contexts)
        self.targets = {r.name: self.targets[r.name] for r in routes}  # routing order
        for lease in fresh:
            lease.attempted.wait(min(self.options.lease_ttl, 10.0))

    def _reconcile(self) -> dict[str, Any]:
        self._load()
        rev = self.current
        routes, resolved = self._routes(rev.estate)
        self._sync_targets(routes)
        ok = resolved
        per: list[dict[str, Any]] = []
        for run in self.targets.values():
            result = self._reconcile_target(run, rev)
            ok = ok and bool(result.get("ok"))
            per.append(
                {"context": run.name, "target": run.target.display(), **{k: v for k, v in result.items() if k != "ok"}}
            )
        # Targets whose round failed keep the series of their last successful round.
        self.metrics.replace("drift_objects", {(r.name,): float(r.drift) for r in self.targets.values()})
        self.metrics.replace(
            "blocked_objects", {(r.name, need): n for r in self.targets.values() for need, n in r.blocked.items()}
        )
        self.metrics.replace(
            "drift_quarantined", {k: v for r in self.targets.values() for k, v in r.tugs.series(r.name).items()}
        )
        self.metrics.replace(
            "object_sync_state", {(r.name, *k, s): 1.0 for r in self.targets.values() for k, s in r.states.items()}
        )
        pending = sum(r.pending for r in self.targets.values())
        self.last_pending = pending
        return {
            "ok": ok,
            "drift": sum(int(p.get("drift", 0)) for p in per),
            "applied": sum(int(p.get("applied", 0)) for p in per),
            "pending": pending,
            "blocked": sum(int(p.get("blocked", 0)) for p in per),
            "targets": per,
        }

    def _reconcile_target(self, run: TargetRun, rev: Any) -> dict[str, Any]:
        """Read, plan and apply on one target; errors are counted with its context and end only its
        part of the round."""
        from ..client import ConnectError, JsApiError, TargetError

        try:
            return run.reconcile(self, rev)
        except (ConnectError, TargetError) as exc:
            self.count_error("connection", exc, context=run.name)
            run.drop_client()
            return {"ok": False, "error": str(exc)}
        except JsApiError as exc:
            lost = run.client is None or run.client.connection_lost
            self.count_error("connection" if lost and exc.err_code is None else "api", exc, context=run.name)
            if lost:
                run.drop_client()
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # one target's trouble must not end the round for the others
            self.count_error("internal", exc, context=run.name)
            run.drop_client()
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}

"""The ``jsops controller`` command line: arguments to :class:`jsops.reconciler.controller.loop.ControllerOptions`,
the event log's stream, signals, and the exit code (:data:`jsops.linter.exitcodes.EXIT_CODES`).

Exit codes: 0 stopped by SIGTERM or SIGINT (with ``--once``: in sync), 1 with ``--once`` the round
failed, or the ``--listen`` address cannot be used; 2 bad arguments, config or target, a log
file that cannot be opened (with ``--once``: drift left).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from jsops.linter.cli.kit import Exit, Parser, add_config, add_env, add_paths, parse_seconds
from jsops.linter.exitcodes import ExitCode

from ..client import argv_secrets
from .loop import Controller, ControllerOptions, EventLog

if TYPE_CHECKING:
    from jsops.linter import Config

__all__ = ["main", "parse_duration"]


def parse_duration(text: str) -> float:
    """Seconds in a Go-style duration ("30s", "1m30s", "200ms") or a plain number of seconds
    (:func:`jsops.linter.semantics.units.parse_seconds`; a ``ValueError`` when it is neither)."""
    return parse_seconds(text, bare="s")


def _parser() -> Parser:
    from ..client import add_target_arguments

    p = Parser(prog="jsops controller", description="Keep the target equal to the manifests (GitOps controller).")
    add_paths(p, "manifest files or directories (with --repo: none, see --path)")
    add_target_arguments(p)
    p.add_argument(
        "--interval", default="30s", help="time between rounds (default 30s); a manifest change starts one at once"
    )
    listen = os.environ.get("JSOPS_CONTROLLER_LISTEN") or "127.0.0.1:9464"
    p.add_argument(
        "--listen",
        default=listen,
        help="HOST:PORT for /healthz, /readyz and /metrics (default $JSOPS_CONTROLLER_LISTEN, "
        "else 127.0.0.1:9464, loopback only; 0.0.0.0:9464 in the container image; 'none' to disable)",
    )
    add_env(p, "render templates with environments/NAME.yaml")
    p.add_argument("--dry-run", action="store_true", help="report drift, change nothing (takes no lease)")
    _git_arguments(p)
    p.add_argument("--log-file", metavar="FILE", help="append the JSON-lines event log here instead of stderr")
    p.add_argument("--once", action="store_true", help="run one round and exit: 0 in sync, 2 drift left, 1 error")
    add_config(
        p,
        "the operator's jsops config (contexts, access, target facts, lint selection), outside the followed tree; default: the nearest from . upward that is not in it",
    )
    p.add_argument("--max-backoff", default="60s", help="longest wait between retries after errors (default 60s)")
    g = p.add_argument_group("high availability")
    g.add_argument(
        "--no-lease",
        action="store_true",
        help="apply without taking the leader lease (only one controller per target!)",
    )
    g.add_argument("--lease-ttl", default="15s", help="lease time to live (default 15s; an existing bucket's TTL wins)")
    g.add_argument(
        "--lease-bucket", default="JSOPS_CONTROLLER", help="KV bucket holding the lease (default JSOPS_CONTROLLER)"
    )
    g.add_argument("--lease-key", default="leader", help="key of the lease in the bucket (default leader)")
    g.add_argument("--identity", help="this controller's name in the lease (default HOST:PID)")
    g = p.add_argument_group(
        "tug-of-war (docs/drift.md; needs the account's record of API changes or --advisory-subscription)"
    )
    g.add_argument(
        "--quarantine-after",
        type=int,
        default=3,
        metavar="N",
        help="stop healing a field once the same client has changed it N times within the window (default 3; 0: never)",
    )
    g.add_argument(
        "--quarantine-window", default="10m", metavar="DURATION", help="the window of --quarantine-after (default 10m)"
    )
    g.add_argument(
        "--advisory-subscription",
        action="store_true",
        help="also hear each target's API audit advisories while running: authors of the changes made meanwhile "
        "without a record stream (needs permission to subscribe to $JS.EVENT.ADVISORY.API)",
    )
    return p


def _git_arguments(p: Parser) -> None:
    g = p.add_argument_group(
        "git source (credentials from files; also JSOPS_GIT_SSH_KEY_FILE, JSOPS_GIT_KNOWN_HOSTS_FILE, JSOPS_GIT_TOKEN_FILE, JSOPS_GIT_USERNAME)"
    )
    g.add_argument(
        "--repo", metavar="URL", help="follow this repository's --branch in a clone of the controller's own (no PATH)"
    )
    g.add_argument(
        "--branch",
        default="main",
        help="the branch --repo follows (default main); its tip is applied, force-pushes included",
    )
    g.add_argument(
        "--path",
        metavar="DIR",
        default=".",
        help="with --repo: the manifests' directory in the repository (default: the root)",
    )
    g.add_argument(
        "--workdir",
        metavar="DIR",
        help="with --repo: where the clone lives (default $JSOPS_GIT_WORKDIR, else ~/.cache/jsops/git/<hash>)",
    )
    g.add_argument(
        "--git",
        action="store_true",
        help="the PATHs are in a clone: fetch its branch's upstream and check out the tip before each round",
    )
    g.add_argument(
        "--git-stale-after",
        default="5m",
        metavar="DURATION",
        help="/readyz fails once no git fetch has succeeded for this long (default 5m)",
    )
    g.add_argument("--git-ssh-key", metavar="FILE", help="SSH private key for ssh:// and git@ URLs")
    g.add_argument("--git-known-hosts", metavar="FILE", help="known_hosts for SSH (host keys are checked strictly)")
    g.add_argument(
        "--git-token-file", metavar="FILE", help="file holding an HTTPS token (sent as the password when git asks)"
    )
    g.add_argument("--git-username", metavar="NAME", help="HTTPS user name sent with the token (default git)")


def _git_source(args: argparse.Namespace) -> Any:
    """The git source of ``--repo`` or ``--git`` (None without either), or a usage error."""
    from .git import GitCredentials, GitSource, default_workdir

    if not args.repo and not args.git:
        if not args.paths:
            raise _usage("give manifest PATHs, or --repo URL")
        return None
    try:
        stale = parse_duration(args.git_stale_after)
        creds = GitCredentials.from_env(
            ssh_key_file=args.git_ssh_key,
            known_hosts_file=args.git_known_hosts,
            token_file=args.git_token_file,
            username=args.git_username,
        )
        creds.check()
    except ValueError as exc:
        raise _usage(str(exc)) from None
    if stale <= 0:
        raise _usage("--git-stale-after must be positive")
    if not args.repo:
        if not args.paths:
            raise _usage("--git needs the PATHs of a clone")
        return GitSource.clone(args.paths[0], creds, stale)
    if args.paths or args.git:
        raise _usage("--repo takes no PATH and no --git (use --path DIR for a directory of the repository)")
    if os.path.isabs(args.path) or ".." in args.path.replace("\\", "/").split("/"):
        raise _usage("--path is a directory inside the repository (relative, no ..)")
    workdir = os.path.abspath(
        args.workdir or os.environ.get("JSOPS_GIT_WORKDIR") or default_workdir(args.repo, args.branch)
    )
    source = GitSource.remote(args.repo, args.branch, workdir, creds, stale)
    args.paths = [os.path.normpath(os.path.join(source.checkout, args.path))]
    return source


def _operator_config(args: argparse.Namespace, source: Any) -> Config:
    """The operator's jsops config: ``--config FILE`` (outside the followed trees), none with
    ``--no-config``, else the nearest one from ``.`` upward that is not inside a followed tree
    (one there is the repository's: read with each revision, and it may only narrow)."""
    from jsops.linter import find_config, load_config

    from .source import followed_roots

    if args.no_config:
        return load_config(None, search=False)
    roots = followed_roots(list(args.paths), source)
    if args.config:
        where = os.path.realpath(args.config)
        inside = next((r for r in roots if os.path.commonpath([where, r]) == r), None)
        if inside is not None:
            raise _usage(
                f"--config {args.config} is inside the followed tree {inside}: whoever commits there would configure the "
                "controller; keep its config outside (a config in the tree is read with each revision and may only narrow: docs/security.md)"
            )
        config = load_config(args.config)
    else:
        config = load_config(find_config(skip=roots), search=False)
    # relative paths in it (creds, keys) stay relative to its own directory after --repo's chdir into the clone
    return config.model_copy(update={"root": os.path.abspath(config.root)})


def _usage(message: str) -> Exit:
    return Exit(f"jsops controller: error: {message}", ExitCode.USAGE)


def _checked(args: argparse.Namespace) -> tuple[float, float, float, tuple[str, int] | None]:
    """The interval, lease TTL and backoff in seconds and the listen address, or a usage error."""
    from .endpoints import parse_listen

    try:
        interval = parse_duration(args.interval)
        ttl = parse_duration(args.lease_ttl)
        backoff = parse_duration(args.max_backoff)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    if interval <= 0 or ttl <= 0 or backoff <= 0:
        raise _usage("--interval, --lease-ttl and --max-backoff must be positive")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", args.lease_bucket) or not re.fullmatch(r"[-/_=.A-Za-z0-9]+", args.lease_key):
        raise _usage("bad --lease-bucket or --lease-key name")
    listen = None
    if args.listen.lower() not in ("none", "off", ""):
        try:
            listen = parse_listen(args.listen)
        except ValueError as exc:
            raise _usage(str(exc)) from None
    for p in args.paths if not args.repo else []:
        if not os.path.exists(p):
            raise _usage(f"{p}: no such file or directory")
    return interval, ttl, backoff, listen


def _window(text: str) -> float:
    try:
        window = parse_duration(text)
    except ValueError as exc:
        raise _usage(f"--quarantine-window: {exc}") from None
    if window <= 0:
        raise _usage("--quarantine-window must be positive")
    return window


def _options(argv: list[str]) -> tuple[ControllerOptions, Any, str | None]:
    from ..client import target_from_args

    args = _parser().parse_args(argv)
    source = _git_source(args)
    config = _operator_config(args, source)
    interval, ttl, backoff, listen = _checked(args)
    opt = ControllerOptions(
        paths=list(args.paths),
        interval=interval,
        listen=listen,
        env=args.env,
        dry_run=args.dry_run,
        source=source,
        lease=not args.no_lease,
        lease_ttl=ttl,
        lease_bucket=args.lease_bucket,
        lease_key=args.lease_key,
        max_backoff=backoff,
        once=args.once,
        config=config,
        explicit_target=bool(args.server or args.context or "default" in (getattr(config, "contexts", None) or {})),
        quarantine_after=max(0, args.quarantine_after),
        quarantine_window=_window(args.quarantine_window),
        advisory_subscription=args.advisory_subscription,
    )
    if args.identity:
        opt.identity = args.identity
    return opt, target_from_args(args, config), args.log_file


def _controller(argv: list[str]) -> int:
    opt, target, log_file = _options(argv)
    try:
        stream: IO[str] = open(log_file, "a", encoding="utf-8") if log_file else sys.stderr
    except OSError as exc:
        raise _usage(f"cannot open {log_file}: {exc.strerror or exc}") from None
    # The event log is the controller's output: asyncio's own complaints about requests cut off by
    # a lost connection are not events.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    stop = threading.Event()
    installed: list[tuple[int, Any]] = []
    if threading.current_thread() is threading.main_thread():

        def _on_signal(signum: int, _frame: Any) -> None:
            stop.set()

        for signum in (signal.SIGTERM, signal.SIGINT):
            installed.append((signum, signal.signal(signum, _on_signal)))
    if opt.source is not None and opt.source.own_clone:
        # --repo: run from the clone's root, so that applied objects record their manifest paths
        # relative to the repository (io.jsops.source), as `jsops apply` run in a clone does
        os.makedirs(opt.source.checkout, exist_ok=True)
        opt.paths = [os.path.relpath(p, opt.source.checkout) for p in opt.paths]
        os.chdir(opt.source.checkout)
    try:
        controller = Controller(opt, target, log=EventLog(stream, argv_secrets(list(argv)) + target.secrets()))
        try:
            return controller.run(stop)
        except OSError as exc:  # the listen address is taken, for instance
            raise Exit(f"jsops controller: error: {exc.strerror or exc}", ExitCode.ERROR) from None
    finally:
        for sig, old in installed:
            signal.signal(sig, old)
        if stream is not sys.stderr:
            stream.close()


def main(argv: Sequence[str]) -> int:
    """Entry point of ``jsops controller`` (argv after the command name); returns the exit code."""
    from ..cli.guard import guard

    return guard(_controller, argv, prog="jsops controller", error_code=ExitCode.NOT_RUN, describe=str)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

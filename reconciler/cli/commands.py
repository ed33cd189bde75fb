"""``jsops plan``, ``jsops apply`` and ``jsops export`` (entry points of the ``jsops.commands`` group).

Exit codes, as terraform's (:data:`jsops.linter.exitcodes.EXIT_CODES`): plan 0 planned (changes or
not), 1 error; with ``--detailed-exitcode`` 0 no changes, 2 changes planned, 1 error (argument
errors too: 2 means changes only). apply 0 converged, 1 otherwise; export 0 written, 1 error.
Argument errors print the usage and exit 2 in every command, except plan with ``--detailed-exitcode``. Bad input is a one-line message, never a traceback (:func:`jsops.linter.cli.kit.run`);
secrets given as arguments or in contexts never appear in any output.

One run plans every target the manifests route to (``jsops.reconciler.route``): the default target and
each other ``metadata.context``; plans are shown and applied per target. The plans are made in
:mod:`jsops.reconciler.cli.plans`, applied in :mod:`jsops.reconciler.cli.apply`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from jsops.linter.cli.kit import (
    Exit,
    Parser,
    UsageError,
    add_color,
    add_config,
    add_env,
    add_format,
    add_no_cache,
    add_paths,
    config_from_args,
    duration_type,
)
from jsops.linter.exitcodes import ExitCode, exit_codes_help

from .comment import add_comment_args, plan_markdown, post_failure, post_plan
from .guard import guard
from .plans import Run, make_plans, say_target, view_options

__all__ = ["plan_main", "apply_main", "export_main"]

_CONFIG_HELP = "jsops config (contexts, target facts, lint selection); default: found from . upward"


def _parser(command: str, description: str, epilog: str = "") -> Parser:
    from ..client import add_target_arguments

    p = Parser(
        prog=f"jsops {command}",
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(p)
    add_config(p, _CONFIG_HELP)
    return p


def _safety_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prune",
        action="store_true",
        help="delete objects jsops owns that left the manifests (only those recorded under the PATHs given)",
    )
    p.add_argument(
        "--adopt",
        nargs="+",
        default=[],
        metavar="NAME",
        help="take over existing objects jsops does not own, or that another estate owns (STREAM, or STREAM/CONSUMER)",
    )
    p.add_argument(
        "--allow-recreate",
        action="store_true",
        help="allow delete-and-create for changes the server cannot make in place",
    )
    p.add_argument(
        "--allow-data-loss", action="store_true", help="allow recreating or deleting streams that hold messages"
    )
    p.add_argument(
        "--reset-position",
        action="store_true",
        help="recreated consumers start from their deliver policy, not their old position",
    )
    p.add_argument(
        "--migrate",
        action="store_true",
        help="run renames (jsops.io/renamed-from) and changes the server cannot make in place as migrations that keep "
        "every message and consumer position (see docs/data-loss.md)",
    )


def _view_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument(
        "--verbose", "-v", action="store_true", help="list every field of a create, server defaults marked (default)"
    )
    g.add_argument("--compact", action="store_true", help="one line per object (for large estates)")
    add_color(g)


PLAN_EPILOG = """\
examples:
  jsops plan                          # the config's paths (else .) against the resolved target
  jsops plan manifests/ -s nats://nats.example.com:4222
  jsops plan --context prod --out plan.json && jsops apply --plan plan.json
  jsops plan --detailed-exitcode      # CI drift gate: exit 2 when there are changes
  jsops plan --comment github         # in a pull-request job: the plan as one comment, updated each push
  NATS_CONTEXT=staging jsops plan --compact

""" + exit_codes_help("plan")


def _plan(argv: list[str]) -> int:
    p = _parser("plan", "Show what apply would change on the targets.", PLAN_EPILOG)
    add_paths(p)
    add_format(
        p,
        ("text", "json", "markdown"),
        "text",
        help="text (default), json (the plan's JSON), or markdown (the pull-request comment: at most 65,536 characters, 1,000,000 with --comment gitlab)",
    )
    p.add_argument("--out", metavar="FILE", help="also write the plan as JSON (for apply --plan)")
    add_env(p)
    add_no_cache(p)
    p.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 0 when there are no changes, 2 when there are, 1 on errors (as terraform plan -detailed-exitcode)",
    )
    _view_args(p)
    _safety_args(p)
    add_comment_args(p)
    try:
        args = p.parse_args(argv)
    except UsageError as exc:
        if any(len(a) > 4 and "--detailed-exitcode".startswith(a) for a in argv):
            # as terraform plan -detailed-exitcode: 2 means "changes" only, so an argument error is 1
            raise Exit(exc.message, ExitCode.ERROR) from None
        raise
    from ..render_json import render_json
    from ..render_text import render_plans

    plans_run = Run()
    try:
        make_plans(args, plans_run)
    except Exception as exc:
        if args.comment:  # the comment must not go on showing an older plan as current
            post_failure(args, _failure_text(exc, argv))
        raise
    finally:
        plans_run.close()
    plans = plans_run.plans
    if args.out:
        _write(args.out, _saved(args, plans_run))
    markdown = plan_markdown(args, plans, plans_run.explicit) if args.comment or args.format == "markdown" else ""
    if args.comment:
        post_plan(args, markdown)
    if args.format == "markdown":
        sys.stdout.write(markdown)
    else:
        sys.stdout.write(
            render_json(plans, plans_run.attribution)
            if args.format == "json"
            else render_plans(plans, **view_options(args, plans_run))
        )
    return ExitCode.CHANGES if plans.changed and args.detailed_exitcode else ExitCode.OK


def _failure_text(exc: Exception, argv: list[str]) -> str:
    """What the guard prints for ``exc``, the secrets given as arguments blanked."""
    from ..client import argv_scrub

    return argv_scrub(exc.message if isinstance(exc, Exit) else f"jsops: error: {exc}", argv)


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise Exit(f"jsops: error: cannot write {path}: {exc.strerror or exc}", ExitCode.ERROR) from None


def _saved(args: argparse.Namespace, plans_run: Run) -> str:
    """The saved plan: the plans bound to their PATHs, environment and manifests (see jsops.reconciler.saved)."""
    from ..plan import source_path
    from ..render_json import render_saved
    from ..saved import manifest_digest
    from ..stale import live_digests

    estate = plans_run.estate
    assert estate is not None  # make_plans loaded the manifests
    binding = {
        "paths": [source_path(p) for p in (args.paths or ["."])],
        "env": args.env,
        "manifests": manifest_digest(estate.files, estate.rendered),
        "files": len(set(estate.files)),
        # each target's live objects as the plan read them: apply --plan names what changed since
        "live": {t.plan.context: live_digests(t.live) for t in plans_run.items},
    }
    return str(render_saved(plans_run.plans, binding))


APPLY_EPILOG = """\
examples:
  jsops apply                         # show the plan, ask, then apply it
  jsops apply manifests/ --yes        # no question (CI); progress is printed per object
  jsops apply --plan plan.json --yes  # apply a saved plan if the live state still matches it
  jsops apply --prune --allow-recreate --allow-data-loss   # destructive changes are opt-in

""" + exit_codes_help("apply")


def _apply(argv: list[str]) -> int:
    p = _parser("apply", "Make the targets match the manifests.", APPLY_EPILOG)
    add_paths(p)
    p.add_argument(
        "--plan", metavar="FILE", dest="plan_file", help="apply this saved plan if the live state still matches it"
    )
    p.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="do not ask for confirmation (the plan is then summed up in one line, not printed in full)",
    )
    add_env(p)
    add_no_cache(p)
    _view_args(p)
    p.add_argument(
        "--read-back-wait",
        metavar="DURATION",
        default="30s",
        type=duration_type(),
        help="when the server stops answering mid-apply, how long to wait for it to read back what it did "
        "with the requests in flight (Go duration or integer nanoseconds; default 30s)",
    )
    _safety_args(p)
    args = p.parse_args(argv)
    from .apply import apply_command

    return apply_command(args)


EXPORT_EPILOG = """\
examples:
  jsops export exported/              # the resolved target (see 'target' above)
  jsops export --context prod prod-manifests/
  NATS_URL=nats://nats.example.com:4222 jsops export exported/
  jsops export --minimal --stream 'ORDERS*' --stream sessions adopt/   # to adopt a few objects

Sizes and durations are written as people write them (1GiB, 3d). With --minimal only the fields
whose value differs from what this server (its release and limits) stores without them are written.

""" + exit_codes_help("export")


def _export(argv: list[str]) -> int:
    p = _parser("export", "Write the target's streams and consumers as native manifests.", EXPORT_EPILOG)
    p.add_argument(
        "out_dir", metavar="OUT_DIR", help="directory for the manifests (one file per stream, with its consumers)"
    )
    p.add_argument(
        "--minimal",
        action="store_true",
        help="write only the fields whose value differs from what the server stores without them (its release and limits)",
    )
    p.add_argument(
        "--stream",
        action="append",
        metavar="PATTERN",
        help="export only streams (or KV / Object Store buckets) whose name matches this shell pattern; repeatable",
    )
    args = p.parse_args(argv)
    from ..client import JsClient, target_from_args
    from ..discover import read_limits
    from ..export import ExportOptions, write_export
    from ..live import read_live

    config = config_from_args(args)
    target = target_from_args(args, config)
    say_target(target)
    if os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        raise Exit(f"jsops: error: {args.out_dir} exists and is not a directory", ExitCode.ERROR)
    with JsClient(target) as client:
        live = read_live(client)
        minimal = read_limits(client, target, config.target) if args.minimal else None
    options = ExportOptions(
        context=target.context, minimal=minimal, streams=tuple(args.stream) if args.stream else None
    )
    try:
        written = write_export(live, args.out_dir, options)
    except OSError as exc:
        raise Exit(f"jsops: error: cannot write to {args.out_dir}: {exc.strerror or exc}", ExitCode.ERROR) from None
    streams = [n for n in live.streams if options.wants(n)]
    consumers = sum(1 for (s, _), c in live.consumers.items() if c.config.durable_name and options.wants(s))
    print(f"Exported {len(streams)} streams and {consumers} consumers to {len(written)} files in {args.out_dir}.")
    return ExitCode.OK


def plan_main(argv: Sequence[str]) -> int:
    return guard(_plan, argv)


def apply_main(argv: Sequence[str]) -> int:
    return guard(_apply, argv)


def export_main(argv: Sequence[str]) -> int:
    return guard(_export, argv)

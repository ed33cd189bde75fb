"""``jsops discover``: the command that reads a live target's facts (:mod:`jsops.reconciler.discover`)
and prints them, or writes them under ``target:`` in the jsops config."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from jsops.linter import LintTarget
from jsops.linter.cli.kit import Parser, add_config, config_from_args
from jsops.linter.exitcodes import ExitCode, exit_codes_inline

from ..client import TargetError
from ..discover import discover
from .guard import guard

__all__ = ["write_target", "main"]


def _target_yaml(target: LintTarget) -> dict[str, Any]:
    """The ``target`` mapping as a person would keep it: only what is known."""
    data = target.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    for key in ("limits", "account"):
        if not data.get(key):
            data.pop(key, None)
    if "servers" in data:
        data["servers"] = [{k: v for k, v in s.items() if v not in (None, [], ())} for s in data["servers"]]
    return data


def write_target(path: str, target: LintTarget, env: str | None = None) -> None:
    """Put ``target`` under ``target:`` in the YAML config at ``path`` (created if missing), or under
    ``environments: {env: {target: ...}}`` for an environment; other keys and comments are kept."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    doc: Any = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            doc = yaml.load(fh)
    from ruamel.yaml.comments import CommentedMap

    if doc is None:
        doc = CommentedMap()
    if not isinstance(doc, dict):
        raise TargetError(f"{path}: the jsops config is not a mapping; not written")
    holder = doc
    if env is not None:
        for key in ("environments", env):
            if holder.get(key) is None:
                holder[key] = CommentedMap()
            holder = holder[key]
            if not isinstance(holder, dict):
                raise TargetError(f"{path}: environments.{env} is not a mapping; not written")
    holder["target"] = _target_yaml(target)
    tmp = f"{path}.jsops-tmp-{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        yaml.dump(doc, fh)
    os.replace(tmp, path)


def _parser() -> Parser:
    from ..client import add_target_arguments

    p = Parser(
        prog="jsops discover",
        description="Read the live target's release, cluster and limits into the jsops config's `target`, "
        "so that offline `jsops lint` predicts for that server.",
        epilog="examples:\n  jsops discover -s nats://nats.prod:4222\n  jsops discover --context prod --monitor http://nats.prod:8222 --write\n"
        "  jsops discover --context dev --env dev --write    # under environments.dev.target: used by --env dev\n\n"
        + exit_codes_inline("discover"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--write", action="store_true", help="write the facts under `target:` in .jsops.yaml (default: print them)"
    )
    p.add_argument(
        "--env", metavar="NAME", help="the environment the target serves: the facts go under `environments.NAME.target`"
    )
    add_config(
        p, "the jsops config to update (default: .jsops.yaml found from . upward, or ./.jsops.yaml)", no_config=False
    )
    add_target_arguments(p)
    return p


def _discover(argv: list[str]) -> int:
    from ..client import JsClient, target_from_args

    args = _parser().parse_args(argv)
    config = config_from_args(args)
    target = target_from_args(args, config)
    with JsClient(target) as client:
        facts = discover(client, target)
    if args.write:
        path = config.source or ".jsops.yaml"
        if path.endswith(".toml"):
            raise TargetError(
                f"{path}: jsops writes only a YAML config; put these under [tool.jsops.target]:\n"
                + json.dumps(_target_yaml(facts), indent=2)
            )
        write_target(path, facts, args.env)
        where = f"environments.{args.env}.target in " if args.env else ""
        print(
            f"jsops: wrote the target facts of {target.display()} (nats-server {facts.server_version}) to {where}{path}",
            file=sys.stderr,
        )
    else:
        from ruamel.yaml import YAML

        yaml = YAML()
        yaml.default_flow_style = False
        print(f"# read from {target.display()}", file=sys.stdout)
        yaml.dump(
            {"environments": {args.env: {"target": _target_yaml(facts)}}}
            if args.env
            else {"target": _target_yaml(facts)},
            sys.stdout,
        )
    return ExitCode.OK


def main(argv: Sequence[str]) -> int:
    """Entry point of ``jsops discover`` (argv after the command name); returns the exit code."""
    return guard(_discover, argv, describe=str)

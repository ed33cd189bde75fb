"""``jsops plan --comment github|gitlab``: the plan as markdown in one sticky comment on the pull
(merge) request of the CI job, updated on every push (:mod:`jsops.reconciler.forge`). A plan that
fails (lint errors, a target that cannot be read) leaves its error in the comment instead, so the
comment never shows an older plan as current."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..forge import Forge, Posted
    from ..plan import PlanSet
    from ..render_text import Explicit

__all__ = ["add_comment_args", "plan_markdown", "post_plan", "post_failure"]

_LINES = 60  # lines of a failure's message in the comment


def add_comment_args(p: argparse.ArgumentParser) -> None:
    from ..forge import FORGES
    from ..render_markdown import MARKER

    g = p.add_argument_group(
        "pull-request comment",
        "where, from the CI job's variables:\n"
        "  GitHub: GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_API_URL; token GITHUB_TOKEN\n"
        "  GitLab: CI_PROJECT_ID, CI_MERGE_REQUEST_IID, CI_API_V4_URL; token GITLAB_TOKEN",
    )
    g.add_argument(
        "--comment",
        choices=FORGES,
        metavar="FORGE",
        help="also post the plan (markdown) as one comment on the pull request, updated on every run: github or gitlab",
    )
    g.add_argument(
        "--pull-request", type=int, metavar="N", help="the pull (merge) request's number (default: the CI job's)"
    )
    g.add_argument(
        "--token-file", metavar="FILE", help="read the forge token from FILE (default: GITHUB_TOKEN or GITLAB_TOKEN)"
    )
    g.add_argument(
        "--comment-marker",
        default=MARKER,
        metavar="NAME",
        help=f"the comment's hidden mark, one comment per mark (default: {MARKER})",
    )


def _say(args: argparse.Namespace, posted: Posted) -> None:
    url = f": {posted.url}" if posted.url else ""
    print(f"jsops: {args.comment} comment {posted.action}{url}", file=sys.stderr)


def _title(args: argparse.Namespace) -> str:
    from ..render_markdown import MARKER

    return "jsops plan" if args.comment_marker == MARKER else f"jsops plan: {args.comment_marker}"


def _forge(args: argparse.Namespace) -> Forge:
    from ..forge import forge_from_env

    return forge_from_env(args.comment, number=args.pull_request, token_file=args.token_file)


def plan_markdown(args: argparse.Namespace, plans: PlanSet, explicit: Explicit | None) -> str:
    """The plan as the comment shows it (and ``--format markdown`` prints it): within the limit of
    ``--comment``'s forge (GitHub's without one), under ``--comment-marker``'s mark."""
    from ..forge import COMMENT_LIMITS
    from ..render_markdown import render_markdown

    limit = COMMENT_LIMITS[args.comment or "github"]
    return render_markdown(plans, limit=limit, marker=args.comment_marker, explicit=explicit, title=_title(args))


def post_plan(args: argparse.Namespace, body: str) -> None:
    """Post ``body`` (:func:`plan_markdown`) as the job's sticky comment."""
    from ..forge import upsert_comment
    from ..render_markdown import marker_line

    _say(args, upsert_comment(_forge(args), body, marker_line(args.comment_marker)))


def post_failure(args: argparse.Namespace, message: str) -> None:
    """Post the error that ended the plan (``message``, secrets already blanked) as the sticky
    comment; a failure to post is a warning (the plan's own error is what the job reports)."""
    from ..errors import ReconcilerError
    from ..forge import upsert_comment
    from ..render_markdown import marker_line

    lines = message.rstrip().splitlines()
    shown = lines[:_LINES] + (
        [f"... and {len(lines) - _LINES} more lines (the job log has them)"] if len(lines) > _LINES else []
    )
    text = "\n".join(shown)
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    marker = marker_line(args.comment_marker)
    body = f"{marker}\n## {_title(args)}\n\n:x: **The plan failed**: nothing was planned.\n\n{fence}text\n{text}\n{fence}\n"
    try:
        forge = _forge(args)
        _say(args, upsert_comment(forge, body[: forge.limit], marker))
    except ReconcilerError as exc:
        print(f"jsops: warning: the failure could not be posted to {args.comment}: {exc}", file=sys.stderr)

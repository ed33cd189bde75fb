"""Pieces of the jsops config shared by its sections (:mod:`jsops.linter.config`): secrets given by
reference, durations, kebab-case keys; and the controller's pull-mode section (``pull-requests``)."""

from __future__ import annotations

import os
import re
from typing import Annotated, Any, Literal

from .model.records.record import Before, Record, option

__all__ = ["Drift", "DriftRecord", "PullRequests", "SecretRef", "kebab", "no_inline_secret", "seconds", "size"]


class SecretRef(Record):
    """A secret given by reference, never inline: an environment variable or a file's contents."""

    env: str | None = option(default=None, min_length=1)
    file: str | None = option(default=None, min_length=1)

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        from pydantic import model_validator

        return {"_one": model_validator(mode="after")(_one_of_env_or_file)}

    def _fast_check(self) -> bool:
        return (self.env is None) != (self.file is None)

    def read(self, root: str = ".") -> str:
        """The secret: the variable's value, or the file's contents without the white space around them
        (a relative path is the config's: ``root``). Raises :class:`ValueError` saying what is missing,
        never the value."""
        if self.env is not None:
            value = os.environ.get(self.env, "")
            if not value.strip():
                raise ValueError(f"environment variable {self.env} is not set")
            return value
        path = os.path.join(root, os.path.expanduser(self.file or ""))
        try:
            with open(path, encoding="utf-8") as fh:
                value = fh.read().strip()
        except OSError as exc:
            raise ValueError(f"cannot read {self.file}: {exc.strerror or exc}") from None
        if not value:
            raise ValueError(f"{self.file} is empty")
        return value


def _one_of_env_or_file(self: Any) -> Any:
    """SecretRef's validator (on its pydantic model)."""
    if (self.env is None) == (self.file is None):
        raise ValueError("give exactly one of 'env' (a variable name) or 'file' (a path)")
    return self


def no_inline_secret(v: object) -> object:
    if isinstance(v, str):
        raise ValueError("secrets are not written in the config; use {env: VARIABLE} or {file: PATH}")
    return v


def kebab(name: str) -> str:
    """A field's key as written in the config (``fail_on`` -> ``fail-on``)."""
    return name.replace("_", "-")


def seconds(value: object) -> object:
    """A duration in seconds: a Go duration (``5s``, ``1m30s``, ``500ms``) or a number of seconds."""
    if isinstance(value, str):
        from .semantics.units import parse_seconds

        return parse_seconds(value)
    return value


def size(value: object) -> object:
    """A size in bytes: an integer or a string with a unit (``256MiB``, ``1GB``)."""
    if isinstance(value, str):
        from .semantics.units import parse_size

        return parse_size(value)
    return value


class DriftRecord(Record):
    """The record of API changes created by the config (``drift.record``; docs/drift.md): when set,
    plan, apply and the controller want the stream ``JSOPS_API_AUDIT`` capturing
    ``$JS.EVENT.ADVISORY.API`` in each managed account, as if a manifest declared it
    (``jsops.reconciler.drift.switch``), bounded by these limits. A manifest declaring a record wins."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    max_age: Annotated[float, Before(seconds)] = option(default=7 * 86400.0, gt=0, le=10 * 365 * 86400)
    max_bytes: Annotated[int, Before(size)] = option(default=256 * 1024 * 1024, ge=1024 * 1024)
    max_msgs: int = option(default=200_000, ge=1000)
    num_replicas: int = option(default=1, ge=1, le=5)  # 3 in a cluster: the record should outlive a server


class Drift(Record):
    """Drift attribution's options (``drift`` in the config; docs/drift.md)."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    record: DriftRecord | None = None  # None: no record is created by the config (a manifest may declare one)


class PullRequests(Record):
    """Pull mode (``pull-requests`` in the operator's config; run by
    ``jsops.reconciler.controller.pulls``): the controller plans the heads of open pull requests
    read-only and posts each plan as a commit status and a comment on the forge. The token is a
    secret: by reference only."""

    _pydantic_config = {"populate_by_name": True, "alias_generator": kebab}

    forge: Literal["github", "gitlab"] | None = (
        None  # None: no forge, the plans reach the event log and the notices only
    )
    api_url: str | None = option(
        default=None, min_length=1
    )  # default: https://api.github.com, https://gitlab.com/api/v4
    project: str | None = option(default=None, min_length=1)  # GitHub OWNER/NAME; GitLab a project id or path
    token: SecretRef | None = None
    # git refs of the followed repository, one ``*`` each (the pull request's number when it is digits)
    refs: list[str] = option(default_factory=lambda: ["refs/pull/*/head"], min_length=1)
    interval: Annotated[float, Before(seconds)] = option(default=10.0, gt=0, le=86400)  # time between looks at the refs
    max_per_minute: int = option(default=6, ge=1, le=1000)  # plans started in any minute at most
    status_context: str = option(default="jsops/plan", min_length=1, max_length=100)
    marker: str = option(
        default="jsops-plan", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"
    )  # the sticky comment's hidden mark

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        from pydantic import field_validator

        return {
            "_by_reference": field_validator("token", mode="before")(no_inline_secret),
            "_refs": field_validator("refs")(_ref_patterns),
        }

    def _fast_check(self) -> bool:
        return all(_good_ref(r) for r in self.refs)


def _good_ref(ref: str) -> bool:
    return (
        ref.startswith("refs/")
        and ref.count("*") == 1
        and ".." not in ref
        and re.fullmatch(r"[A-Za-z0-9._/*-]+", ref) is not None
    )


def _ref_patterns(refs: list[str]) -> list[str]:
    """PullRequests' ``refs`` validator: full ref names under ``refs/``, one ``*`` each."""
    for r in refs:
        if not _good_ref(r):
            raise ValueError(f"{r!r}: a ref pattern is refs/... with one '*' (e.g. refs/pull/*/head)")
    return refs

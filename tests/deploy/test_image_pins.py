"""What the image is built from is pinned (docs/deploy/Containerfile, docs/kubernetes.md): the base
image by digest, written once (the ``BASE`` build argument's default, which every stage starts
from), and every Python package by version and hash from the locks beside the Containerfile
(``make lock`` writes them from pyproject.toml). The locks cover pyproject's runtime dependencies
and build requirements, each locked package's own requirements are locked too, and every ``pip
install`` of the build either checks hashes or downloads nothing. Offline: no registry is asked."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "docs" / "deploy"
CONTAINERFILE = DEPLOY / "Containerfile"
RUNTIME_LOCK = DEPLOY / "requirements.lock"
BUILD_LOCK = DEPLOY / "build-requirements.lock"
DIGEST_REF = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*(?::[\w][\w.-]{0,127})?@sha256:[0-9a-f]{64}")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")
# the Pythons the image may run (the default base: 3.12; Debian bookworm's, the suite's base: 3.11)
PYTHONS = ("3.11", "3.12")


class LockError(Exception):
    pass


def parse_lock(text: str) -> dict[str, tuple[Version, list[str]]]:
    """{canonical name: (pinned version, hashes)} of a ``pip --require-hashes`` requirements file;
    a LockError for anything but ``name==version`` with at least one sha256 hash per entry."""
    out: dict[str, tuple[Version, list[str]]] = {}
    for entry in re.sub(r"\\\n", " ", text).splitlines():
        entry = entry.split("#", 1)[0].strip()
        if not entry:
            continue
        spec, *options = entry.split()
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", spec)
        if not m:
            raise LockError(f"not pinned with ==: {spec}")
        bad = [o for o in options if not HASH.fullmatch(o)]
        if bad or not options:
            raise LockError(f"{spec}: {'unexpected ' + ' '.join(bad) if bad else 'no --hash'}")
        name = canonicalize_name(m.group(1))
        if name in out:
            raise LockError(f"{name} locked twice")
        out[name] = (Version(m.group(2)), options)
    return out


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _requirements(key: str) -> list[Requirement]:
    data = _pyproject()
    table = data["project"] if key == "dependencies" else data["build-system"]
    assert isinstance(table, dict)
    return [Requirement(r) for r in table[key]]


def _needed(requirement: Requirement) -> bool:
    """Whether a requirement applies on Linux CPython in any of :data:`PYTHONS`, without extras."""
    if requirement.marker is None:
        return True
    env: dict[str, str] = {k: str(v) for k, v in default_environment().items()}
    env.update(
        sys_platform="linux",
        platform_system="Linux",
        implementation_name="cpython",
        platform_python_implementation="CPython",
        extra="",
    )
    return any(
        requirement.marker.evaluate({**env, "python_version": v, "python_full_version": v + ".0"}) for v in PYTHONS
    )


@pytest.mark.parametrize(("lock", "key"), [(RUNTIME_LOCK, "dependencies"), (BUILD_LOCK, "requires")])
def test_locks_pin_with_hashes_what_pyproject_asks_for(lock: Path, key: str) -> None:
    locked = parse_lock(lock.read_text())
    for req in _requirements(key):
        name = canonicalize_name(req.name)
        assert name in locked, f"{lock.name} does not lock {req} (pyproject.toml; run make lock)"
        assert req.specifier.contains(locked[name][0], prereleases=True), (
            f"{lock.name}: {name}=={locked[name][0]} is not {req}"
        )


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, BUILD_LOCK])
def test_locks_are_closed(lock: Path) -> None:
    """Every requirement of a locked package is locked too (read from the installed package where
    its version is the locked one), so ``--require-hashes`` never meets an unlocked dependency."""
    locked = parse_lock(lock.read_text())
    checked = 0
    for name, (version, _) in locked.items():
        try:
            if Version(metadata.version(name)) != version:
                continue
        except metadata.PackageNotFoundError:
            continue
        checked += 1
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if _needed(req):
                dep = canonicalize_name(req.name)
                assert dep in locked, f"{lock.name}: {name} requires {req}, which is not locked"
                assert req.specifier.contains(locked[dep][0], prereleases=True), (
                    f"{lock.name}: {name} requires {req}, locked {locked[dep][0]}"
                )
    assert checked, f"no package of {lock.name} is installed at its locked version: nothing was checked"


def test_lock_parser_refuses_what_pip_would_not_check() -> None:
    h = "--hash=sha256:" + "0" * 64
    assert parse_lock(f"a-b==1.0 \\\n    {h}\n    # via x\n") == {"a-b": (Version("1.0"), [h])}
    for bad in (
        "a==1.0\n",
        "a>=1.0 " + h + "\n",
        f"a==1.0 --hash=md5:{'0' * 32}\n",
        f"a==1 {h}\nA==2 {h}\n",
        f"-e . {h}\n",
    ):
        with pytest.raises(LockError):
            parse_lock(bad)


def _containerfile() -> str:
    return CONTAINERFILE.read_text().replace("\\\n", " ")


def test_base_image_is_pinned_by_digest_once() -> None:
    text = _containerfile()
    (base,) = re.findall(r"^ARG BASE=(\S+)$", text, re.M)
    assert DIGEST_REF.fullmatch(base), f"BASE={base} is not pinned by digest (NAME:TAG@sha256:<64 hex>)"
    froms = re.findall(r"^FROM (\S+)", text, re.M)
    assert froms and all(f == "${BASE}" for f in froms), froms  # every stage starts from the one pinned base
    assert DIGEST_REF.fullmatch("python:3.12-slim-bookworm@sha256:" + "a" * 64)
    assert not DIGEST_REF.fullmatch("python:3.12-slim-bookworm") and not DIGEST_REF.fullmatch(
        "python@sha256:" + "a" * 63
    )


def test_image_build_installs_only_locked_packages() -> None:
    text = _containerfile()
    copied = " ".join(re.findall(r"^COPY (.+)$", text, re.M))
    for lock in (RUNTIME_LOCK, BUILD_LOCK):
        assert str(lock.relative_to(ROOT)) in copied
        assert re.search(rf"pip install [^&\n]*--require-hashes -r {lock.name}\b", text), (
            f"{lock.name} is not installed with --require-hashes"
        )
    installs = re.findall(r"pip (?:install|wheel) [^&\n]*", text)
    assert len(installs) == 4
    for cmd in installs:
        # anything not checked against a lock's hashes comes from the build context, never an index
        assert "--require-hashes" in cmd or ("--no-index" in cmd and "--no-deps" in cmd), cmd
    assert "pip check" in text

"""The image, built here from docs/deploy/Containerfile and run: Debian's ``buildah`` (``--storage-driver
vfs``, ``--isolation chroot``) builds it on a base made from Debian packages with ``debootstrap``
(registries of base images cannot be reached here; the Containerfile's ``BASE`` build argument
names it). Inside the image: jsops runs as user 10001, cannot write outside /tmp and /work, says its
version and commit, and ``jsops controller --repo`` follows a repository, applies it to a real
nats-server and answers /healthz and /readyz on 0.0.0.0.

Slow (the first run bootstraps the base, about 4 minutes; every run builds the image, about 4
more) and skipped without ``buildah`` and ``debootstrap`` (``apt-get install buildah debootstrap``)
or when not root. The base is kept in ``$JSOPS_IMAGE_CACHE`` (default ``~/.cache/jsops-tests/buildah``).
Behind a TLS-intercepting proxy the host's CA bundle and ``/etc/pip.conf`` are mounted into the
build's RUN steps.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from natsserver import NatsServer, free_port

from ..reconciler.helpers import Js, manifest
from ..reconciler.test_controller_helpers import STREAM_YAML, wait_for
from .test_image_entrypoint import _git, _http, _outward_address

ROOT = Path(__file__).resolve().parents[2]
BASE = "localhost/jsops-base:bookworm"
IMAGE = "localhost/jsops:suite"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("buildah") and shutil.which("debootstrap")),
        reason="needs buildah and debootstrap (apt-get install buildah debootstrap)",
    ),
    pytest.mark.skipif(os.geteuid() != 0, reason="buildah with vfs storage and chroot isolation needs root here"),
    pytest.mark.skipif(os.environ.get("JSOPS_IMAGE_TEST") == "0", reason="JSOPS_IMAGE_TEST=0"),
]


def _cache() -> Path:
    return Path(os.environ.get("JSOPS_IMAGE_CACHE") or Path.home() / ".cache" / "jsops-tests" / "buildah")


def buildah(*args: str, timeout: float = 900, **kw: object) -> subprocess.CompletedProcess[str]:
    cache = _cache()
    cmd = [
        "buildah",
        "--storage-driver",
        "vfs",
        "--root",
        str(cache / "storage"),
        "--runroot",
        str(cache / "run"),
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True, **kw)  # type: ignore[call-overload, no-any-return]


def _base(tmp: Path) -> None:
    """The base image from Debian packages (bookworm: Python 3.11, venv, git, ssh), made once."""
    if (
        subprocess.run(
            [
                "buildah",
                "--storage-driver",
                "vfs",
                "--root",
                str(_cache() / "storage"),
                "--runroot",
                str(_cache() / "run"),
                "inspect",
                "--type",
                "image",
                BASE,
            ],
            capture_output=True,
        ).returncode
        == 0
    ):
        return
    rootfs = tmp / "rootfs"
    subprocess.run(
        [
            "debootstrap",
            "--variant=minbase",
            "--include=python3,python3-venv,git,openssh-client,ca-certificates",
            "bookworm",
            str(rootfs),
            "http://deb.debian.org/debian",
        ],
        check=True,
        capture_output=True,
        timeout=1800,
    )
    with tarfile.open(tmp / "base.tar", "w") as tar:
        tar.add(rootfs, arcname=".")
    shutil.rmtree(rootfs)
    ctr = buildah("from", "scratch").stdout.strip()
    buildah("add", ctr, str(tmp / "base.tar"), "/")
    buildah("commit", "-q", ctr, BASE)
    buildah("rm", ctr)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    from jsops.linter import __version__

    commit = (
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        or "0" * 40
    )
    _base(tmp_path_factory.mktemp("base"))
    mounts = [
        f"--volume={p}:{p}:ro" for p in ("/etc/ssl/certs/ca-certificates.crt", "/etc/pip.conf") if os.path.exists(p)
    ]
    buildah(
        "build",
        "--isolation",
        "chroot",
        *mounts,
        "-f",
        "docs/deploy/Containerfile",
        "--build-arg",
        f"BASE={BASE}",
        "--build-arg",
        f"COMMIT={commit}",
        "-t",
        IMAGE,
        ".",
        cwd=ROOT,
        timeout=1800,
    )
    ctr = buildah("from", "-q", IMAGE).stdout.strip()
    try:
        yield ctr, __version__, commit
    finally:
        buildah("rm", ctr)


def test_image_runs_jsops_as_non_root(image: tuple[str, str, str]) -> None:
    ctr, version, commit = image
    assert (
        buildah("run", "--isolation", "chroot", ctr, "--", "jsops", "--version").stdout
        == f"jsops {version} (commit {commit[:12]})\n"
    )
    assert buildah("run", "--isolation", "chroot", ctr, "--", "id", "-u").stdout.strip() == "10001"
    probe = "for d in / /opt/jsops /home /work /tmp; do touch $d/.w 2>&1 && echo writable: $d; done; true"
    out = buildah("run", "--isolation", "chroot", ctr, "--", "sh", "-c", probe).stdout
    assert [line.split()[-1] for line in out.splitlines() if line.startswith("writable:")] == ["/work", "/tmp"], out


def test_controller_in_the_image_follows_git_and_answers_on_all_addresses(
    image: tuple[str, str, str], tmp_path: Path
) -> None:
    ctr, _, _ = image
    srv = tmp_path / "srv"
    (srv / "origin.git").mkdir(parents=True)
    _git(srv / "origin.git", "init", "--bare", "-q")
    _git(tmp_path, "clone", "-q", str(srv / "origin.git"), "author")
    manifest(tmp_path / "author" / "manifests", "orders.yaml", STREAM_YAML)
    _git(tmp_path / "author", "add", ".")
    _git(tmp_path / "author", "commit", "-q", "-m", "one")
    _git(tmp_path / "author", "push", "-q", "origin", "HEAD:main")
    commit = _git(tmp_path / "author", "rev-parse", "HEAD")
    subprocess.run(["chown", "-R", "10001:10001", str(srv)], check=True)  # the image's user reads it
    server = NatsServer().start()
    port = free_port()
    cache = _cache()
    proc = subprocess.Popen(
        [
            "buildah",
            "--storage-driver",
            "vfs",
            "--root",
            str(cache / "storage"),
            "--runroot",
            str(cache / "run"),
            "run",
            "--isolation",
            "chroot",
            f"--volume={srv}:/srv:ro",
            "--env",
            f"JSOPS_CONTROLLER_LISTEN=0.0.0.0:{port}",
            ctr,
            "--",
            "jsops",
            "controller",
            "--repo",
            "file:///srv/origin.git",
            "--branch",
            "main",
            "--path",
            "manifests",
            "--server",
            server.url,
            "--interval",
            "1s",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    js = Js(server.url)
    try:
        host = _outward_address() or "127.0.0.1"
        wait_for(lambda: _http(host, port, "/healthz") == 200, 60, f"/healthz on {host}")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), 60, "the estate applied from inside the image")
        import urllib.request

        def ready() -> str | None:
            with urllib.request.urlopen(f"http://{host}:{port}/readyz", timeout=5) as resp:
                return resp.read().decode() if resp.status == 200 else None

        assert wait_for(ready, 60, "/readyz") == f"ready\ncommit {commit}\n"
        proc.terminate()  # as the kubelet stops a pod: the controller inside stops with it
        proc.wait(30)

        def closed() -> bool:
            try:
                _http(host, port, "/healthz")
            except OSError:
                return True
            return False

        wait_for(closed, 30, "the controller in the image to stop")
    finally:
        js.close()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        server.stop()

"""The image's command line, run here: ENTRYPOINT (Containerfile) + the Deployment's args and env,
with the image's ENV, against a real nats-server and a git repository served over ``file://``. The
controller listens on 0.0.0.0 as in the pod (probed on a non-loopback address when the machine has
one), becomes ready with the commit it applied, and stops with 0 on SIGTERM (what the kubelet sends).

Only the paths that name the pod's mounts and the repository are replaced: the ConfigMap's file
by one naming the test server, the Secrets' files by empty ones, /work and /tmp by temporary
directories."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from natsserver import NatsServer, free_port

from ..reconciler.helpers import Js, manifest
from ..reconciler.test_controller_helpers import STREAM_YAML, get, wait_for
from .test_kubernetes import PLAIN, _containerfile, container, plain

pytestmark = pytest.mark.integration


def _outward_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            addr = str(s.getsockname()[0])
        except OSError:
            return None
    return None if addr.startswith("127.") else addr


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _argv_and_env(tmp: Path, repo: str, server_url: str, port: int) -> tuple[list[str], dict[str, str]]:
    image_env, entrypoint, _ = _containerfile()
    c = container(plain())
    mounts = {"/work": tmp / "work", "/tmp": tmp / "tmp", "/etc/jsops": tmp / "etc", "/home/jsops": tmp / "home"}
    for m in c["volumeMounts"]:
        mounts.setdefault(m["mountPath"], tmp / m["name"])
    for d in mounts.values():
        d.mkdir(parents=True, exist_ok=True)

    def local(value: str) -> str:
        for path in sorted(mounts, key=len, reverse=True):
            if value == path or value.startswith(path + "/"):
                return str(mounts[path]) + value[len(path) :]
        return value

    config = yaml.safe_load(yaml.safe_load((PLAIN / "configmap.yaml").read_text())["data"]["jsops.yaml"])
    config["contexts"]["default"] = {"server": server_url}  # the test server (no credentials, no monitor)
    (mounts["/etc/jsops"] / "jsops.yaml").write_text(yaml.safe_dump(config))
    args = list(c["args"])
    args[args.index("--repo") + 1] = repo
    args = [local(a) for a in args]
    env = {k: local(v) for k, v in image_env.items()}
    env["PATH"] = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # /opt/jsops/bin in the image
    for e in c["env"]:
        env[e["name"]] = local(e["value"])
    env["JSOPS_CONTROLLER_LISTEN"] = env["JSOPS_CONTROLLER_LISTEN"].rsplit(":", 1)[0] + f":{port}"
    for name in ("JSOPS_GIT_SSH_KEY_FILE", "JSOPS_GIT_KNOWN_HOSTS_FILE"):  # the mounted Secret's files
        Path(env[name]).touch()
    return entrypoint + args, env


def test_image_command_line_serves_probes_on_all_addresses(tmp_path: Path) -> None:
    server = NatsServer().start()
    try:
        bare = tmp_path / "origin.git"
        bare.mkdir()
        _git(bare, "init", "--bare", "-q")
        _git(tmp_path, "clone", "-q", str(bare), "author")
        manifest(tmp_path / "author" / "manifests", "orders.yaml", STREAM_YAML)
        _git(tmp_path / "author", "add", ".")
        _git(tmp_path / "author", "commit", "-q", "-m", "one")
        _git(tmp_path / "author", "push", "-q", "origin", "HEAD:main")
        commit = _git(tmp_path / "author", "rev-parse", "HEAD")
        port = free_port()
        argv, env = _argv_and_env(tmp_path / "pod", f"file://{bare}", server.url, port)
        assert argv[:2] == ["jsops", "controller"] and "--listen" not in argv  # the address comes from the image's env
        log = tmp_path / "stderr.jsonl"
        with open(log, "w") as err:
            proc = subprocess.Popen(
                argv,
                cwd=env["JSOPS_GIT_WORKDIR"],
                env={k: v for k, v in env.items()},
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        js = Js(server.url)
        try:
            outward = _outward_address()
            hosts = ["127.0.0.1"] + ([outward] if outward else [])
            for host in hosts:
                wait_for(lambda h=host: _http(h, port, "/healthz") == 200, 30, f"/healthz on {host}")
            wait_for(lambda: get(port, "/readyz") == (200, f"ready\ncommit {commit}\n"), 60, "ready with the commit")
            assert js.consumer("ORDERS", "shipper")
            started = [json.loads(line) for line in log.read_text().splitlines() if '"started"' in line]
            assert started[0]["listen"] == f"0.0.0.0:{port}"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
        finally:
            js.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        server.stop()


def _http(host: str, port: int, path: str) -> int:
    import urllib.request

    with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=5) as resp:
        return int(resp.status)

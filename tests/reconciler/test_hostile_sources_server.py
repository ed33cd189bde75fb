"""Links out of the tree on the apply and ``controller --git`` paths, against a real nats-server.

A host file outside the repository (a valid stream manifest) reached through a symbolic link must
never be applied, and the bytes of a token and an SSH key reached the same way must appear in no
plan or apply output and no event of the controller's log. Links inside the repository still work.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest, run
from .test_controller_git import git
from .test_controller_helpers import STREAM_YAML, Running, wait_for

pytestmark = pytest.mark.integration

TOKEN = "ghp_R3alL00kingT0kenValue9f8e7d6c5b4a3210ZZ"
KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDx"
SSH_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\n"
HOST_STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: HOSTFILE\nspec:\n  subjects: [host.>]\n"
SECRETS = (TOKEN, KEY_BODY, TOKEN[:12], KEY_BODY[:12])


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "host"
    out.mkdir()
    (out / "token").write_text(TOKEN + "\n")
    (out / "id_ed25519").write_text(SSH_KEY)
    (out / "stream.yaml").write_text(HOST_STREAM)
    return out


def _links(tree: Path, outside: Path) -> None:
    os.symlink(outside / "stream.yaml", tree / "host.yaml")
    os.symlink(outside / "token", tree / "token.yaml")
    os.symlink(outside / "id_ed25519", tree / "key.yaml")


def _no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


def test_plan_and_apply_refuse_links_out_of_the_tree(server: NatsServer, js: Js, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    tree = tmp_path / "tree"
    manifest(tree, "orders.yaml", STREAM_YAML)
    _links(tree, outside)
    for command, extra in (("plan", ()), ("apply", ("--yes",))):
        rc, out, err = run(command, str(tree), "--server", server.url, "--no-config", *extra)
        assert rc == 1, (command, out, err)
        assert err.count("JS014") == 3 and "host.yaml" in err and "token.yaml" in err and "key.yaml" in err
        _no_secret(out + err)
        assert "HOSTFILE" not in out + err
    assert js.streams() == []  # refused: neither the host file nor the rest was applied

    # Without the links out of the tree, a link inside it is followed and applied.
    for name in ("host.yaml", "token.yaml", "key.yaml"):
        os.unlink(tree / name)
    (tree / "sub").mkdir()
    (tree / "orders.yaml").rename(tree / "sub" / "orders.yaml")
    os.symlink("sub/orders.yaml", tree / "orders.yaml")
    rc, out, err = run("apply", str(tree / "orders.yaml"), "--server", server.url, "--no-config", "--yes")
    assert rc == 0, err
    assert js.streams() == ["ORDERS"]


def test_controller_git_never_applies_a_link_out_of_the_repository(server: NatsServer, js: Js, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    (tmp_path / "origin.git").mkdir()
    git(tmp_path / "origin.git", "init", "--bare", "-q")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "author")
    author = tmp_path / "author"
    manifest(author, "orders.yaml", STREAM_YAML)
    git(author, "add", "orders.yaml")
    git(author, "commit", "-q", "-m", "one")
    git(author, "push", "-q", "origin", "HEAD")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "watched")
    with Running([str(tmp_path / "watched")], server.url, git=True) as ctl:
        wait_for(lambda: js.stream("ORDERS"), what="the first commit to be applied")
        good = ctl.controller.current.id
        # A commit adds links (git stores them as links) to a host manifest, a token and a key.
        _links(author, outside)
        git(author, "add", "host.yaml", "token.yaml", "key.yaml")
        git(author, "commit", "-q", "-m", "links")
        git(author, "push", "-q", "origin", "HEAD")
        wait_for(lambda: ctl.events("revision_rejected"), what="the revision with links to be rejected")
        rejected = ctl.events("revision_rejected")[0]
        assert rejected["in_force"] == good
        assert sorted(f.split(":")[0].rsplit("/", 1)[-1] for f in rejected["findings"]) == [
            "host.yaml",
            "key.yaml",
            "token.yaml",
        ]
        assert all(" JS014 " in f for f in rejected["findings"])
        ctl.settle()  # rounds go on with the last good revision: drift is still healed
        js.ok("$JS.API.STREAM.DELETE.ORDERS")
        wait_for(lambda: js.stream("ORDERS"), what="drift to be healed under the last good revision")
        log = json.dumps(ctl.events())
    assert js.stream("HOSTFILE") is None
    _no_secret(log)
    assert "HOSTFILE" not in log


BAD_CONTEXT = STREAM_YAML.replace("  name: ORDERS\nspec:", "  name: ORDERS\n  context: [east, west]\nspec:", 1)


def test_plan_and_apply_report_a_bad_metadata_context(server: NatsServer, js: Js, tmp_path: Path) -> None:
    assert BAD_CONTEXT != STREAM_YAML
    manifest(tmp_path / "m", "orders.yaml", BAD_CONTEXT)
    for command, extra in (("plan", ()), ("apply", ("--yes",))):
        rc, out, err = run(command, str(tmp_path / "m"), "--server", server.url, "--no-config", *extra)
        assert rc == 1 and "internal error" not in err
        assert "orders.yaml:5:12: error JS005 metadata.context must be a non-empty string, got a list" in err, err
    assert js.streams() == []


def test_controller_keeps_healing_after_a_bad_metadata_context(server: NatsServer, js: Js, tmp_path: Path) -> None:
    path = manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        path.write_text(BAD_CONTEXT.lstrip())
        wait_for(lambda: ctl.events("revision_rejected"), what="the bad revision to be rejected")
        assert any("JS005 metadata.context" in f for f in ctl.events("revision_rejected")[0]["findings"])
        js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="drift to be healed under the last good revision")
        assert ctl.events("error") == []

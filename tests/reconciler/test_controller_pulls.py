"""Pull mode against real parts: a bare git repository whose pull-request refs appear with ``git
update-ref``, a real nats-server where the controller connects as a user that may only read, and
the local forge server. Each head is planned once, its status and comment posted within 10 s of the
ref appearing, and no request outside the read-only subjects reaches the server (its log has no
permission violation, and its API audit shows reads only)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from natsserver import release_or_skip

from jsops.linter.config import Config
from jsops.reconciler.controller.git import GitCredentials, GitSource
from jsops.reconciler.controller.pulls import RateLimit, ref_number

from .forge_server import FakeForge
from .helpers import WRITES, ApiAudit, Js, NatsServer, manifest
from .test_controller_git import OTHER_YAML, git, make_origin
from .test_controller_helpers import STREAM_YAML, Running, wait_for

_READS = [
    "$JS.API.INFO",
    "$JS.API.STREAM.NAMES",
    "$JS.API.STREAM.LIST",
    "$JS.API.STREAM.INFO.*",
    "$JS.API.CONSUMER.NAMES.*",
    "$JS.API.CONSUMER.LIST.*",
    "$JS.API.CONSUMER.INFO.*.*",
    "$JS.API.STREAM.MSG.GET.*",
    "$JS.API.DIRECT.GET.>",
]
_AUTH = (
    "authorization { users [\n"
    "  {user: admin, password: admin}\n"
    "  {user: reader, password: reader, permissions: {publish: {allow: ["
    + ", ".join(f'"{s}"' for s in _READS)
    + ']}, subscribe: {allow: ["_INBOX.>"]}}}\n'
    "] }"
)
BROKEN_YAML = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: BROKEN
spec:
  subjects: ["broken.>"]
  retention: sometimes
"""


def _commit_on(author: Path, base: str, name: str, text: str, message: str) -> str:
    """A commit on top of ``base`` adding manifests/``name``, on no branch: its sha."""
    git(author, "checkout", "-q", "--detach", base)
    manifest(author / "manifests", name, text)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", message)
    return git(author, "rev-parse", "HEAD")


def _open_pull(bare: Path, author: Path, number: int, head: str) -> None:
    """Pull request ``number`` at ``head``: the commit pushed as its source branch, and the forge's
    ``refs/pull/N/head``."""
    git(author, "push", "-q", "origin", f"{head}:refs/heads/pr-{number}-source")
    git(bare, "update-ref", f"refs/pull/{number}/head", head)


def _forge_token(tmp_path: Path) -> Path:
    """The file holding the forge's token."""
    token = tmp_path / "forge-token"
    token.write_text("t0ken\n")
    return token


def _server_log(server: NatsServer) -> str:
    assert server._tmp is not None
    return (Path(server._tmp.name) / "server.log").read_text(errors="replace")


@pytest.mark.integration
@pytest.mark.parametrize("release", ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"])
def test_pull_requests_are_planned_read_only_and_posted(release: str, tmp_path: Path) -> None:
    """On each supported release: the read subjects the planner needs are the same (a request
    outside them would be a permission violation in the server's log)."""
    binary = release_or_skip(release)
    bare, author, main = make_origin(tmp_path)
    adds = _commit_on(author, main, "invoices.yaml", OTHER_YAML, "add INVOICES")
    broken = _commit_on(author, main, "broken.yaml", BROKEN_YAML, "a broken stream")
    # a head whose jsops config names a server of its own: a pull request's tree may only narrow
    widens = _commit_on(
        author, main, ".jsops.yaml", "contexts:\n  mine: {server: 'nats://203.0.113.9:4222'}\n", "my own server"
    )
    # a head linking a manifest to a file outside the tree: the planner reads it no more than a round would
    outside = tmp_path / "outside.yaml"
    outside.write_text(OTHER_YAML.replace("INVOICES", "S3CRET"))
    git(author, "checkout", "-q", "--detach", main)
    (author / "manifests" / "leak.yaml").symlink_to(outside)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", "a link out")
    leaks = git(author, "rev-parse", "HEAD")
    heads = ((1, adds), (2, broken), (3, widens), (4, leaks))
    pushed = [f"{sha}:refs/heads/pr-{n}-source" for n, sha in heads]
    git(author, "push", "-q", "origin", *pushed)  # the objects, as a forge keeps them
    token = _forge_token(tmp_path)

    with NatsServer(extra_config=_AUTH, binary=binary) as server, FakeForge("github") as forge:
        admin_url = server.url.replace("nats://", "nats://admin:admin@")
        admin = Js(admin_url)
        audit = ApiAudit(admin_url)
        try:
            source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
            paths = [str(Path(source.checkout) / "manifests")]
            with Running(paths, admin_url, source=source) as applier:  # main applied by a controller that may write
                wait_for(lambda: admin.consumer("ORDERS", "shipper"), what="main to be applied")
                applier.settle()
            spec = {
                "forge": "github",
                "api-url": forge.url,
                "project": "acme/streams",
                "token": {"file": str(token)},
                "interval": "0.3s",
                "max-per-minute": 10,
            }
            config = Config.model_validate({"pull-requests": spec})
            source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
            reader = server.url.replace("nats://", "nats://reader:reader@")
            planning_from = time.time_ns()
            with Running(paths, reader, source=source, dry_run=True, config=config) as ctl:
                wait_for(lambda: ctl.controller.rounds >= 1, what="a first round")
                appeared = {}
                for number, sha in heads:
                    git(bare, "update-ref", f"refs/pull/{number}/head", sha)
                    appeared[sha] = time.monotonic()
                # the 10 s from ref to status is a figure (printed; 0.2-2.0 s on a quiet machine), not
                # a timed assertion: on a loaded machine the rounds stretch, and what is checked is one plan per head
                wait_for(lambda: len(forge.statuses) >= 4, timeout=60, what="a status per head")
                latency = {s["sha"]: s["at"] - appeared[s["sha"]] for s in forge.statuses}
                print(f"ref to status: {latency}")
                by_sha = {s["sha"]: s for s in forge.statuses}
                assert by_sha[adds]["state"] == "success" and by_sha[adds]["context"] == "jsops/plan"
                # only what the pull request changes: the applied objects are recorded as the round records them
                assert by_sha[adds]["description"].startswith("Plan: 1 to create, 0 to update,"), by_sha[adds]
                assert by_sha[broken]["state"] == "failure" and by_sha[broken]["description"].startswith(
                    "plan failed: manifests/broken.yaml:7:14: error JS005"
                )
                assert by_sha[widens]["state"] == "failure" and "contexts" in by_sha[widens]["description"], by_sha[
                    widens
                ]
                wait_for(
                    lambda: all(len(forge.in_thread(f"issues/{n}/comments")) == 1 for n in (1, 2, 3, 4)),
                    what="a comment per pull request",
                )
                leaked = forge.in_thread("issues/4/comments")[0]["body"] + by_sha[leaks]["description"]
                assert "S3CRET" not in leaked and "invoices" not in leaked and "JS014" in leaked, leaked
                one, two = (
                    forge.in_thread("issues/1/comments")[0]["body"],
                    forge.in_thread("issues/2/comments")[0]["body"],
                )
                assert one.startswith("<!-- jsops-plan -->") and "INVOICES" in one and adds[:12] in one
                assert "The plan failed" in two and "broken.yaml" in two and str(tmp_path) not in two

                # one plan per head: later looks post nothing more, a new head is planned once
                time.sleep(2.0)
                assert len(forge.statuses) == 4 and len(ctl.events("pull_planned")) == 4
                again = _commit_on(
                    author,
                    adds,
                    "more.yaml",
                    OTHER_YAML.replace("INVOICES", "REFUNDS").replace("invoices", "refunds"),
                    "more",
                )
                _open_pull(bare, author, 1, again)
                pushed = time.monotonic()
                wait_for(lambda: len(forge.statuses) == 5, timeout=60, what="the new head's status")
                print(f"new head to status: {forge.statuses[-1]['at'] - pushed:.2f} s")
                assert forge.statuses[-1]["sha"] == again
                assert forge.statuses[-1]["description"].startswith("Plan: 2 to create, 0 to update,")
                wait_for(
                    lambda: again[:12] in forge.in_thread("issues/1/comments")[0]["body"], what="the comment updated"
                )
                assert len(forge.in_thread("issues/1/comments")) == 1, "one sticky comment per pull request"
                # the event is logged once the status and the comment are posted
                wait_for(lambda: len(ctl.events("pull_planned")) == 5, what="the new head's pull_planned event")
                results = {e["commit"]: e["result"] for e in ctl.events("pull_planned")}
                assert results == {
                    adds: "success",
                    broken: "failure",
                    widens: "failure",
                    leaks: "failure",
                    again: "success",
                }
                assert ctl.events("error") == [], (
                    "no error: not before the refs appeared, not while planning, not from the rounds"
                )
            # read-only: nothing was created, no request outside the reads was sent or handled
            assert admin.streams() == ["ORDERS"]
            assert "Violation" not in _server_log(server), _server_log(server)[-2000:]
            handled = [subject for t, subject, _ in audit.updates("$JS.API.") if t >= planning_from]
            assert handled and not [s for s in handled if s.removeprefix("$JS.API.").startswith(WRITES)], handled
            # the check can fail: the same user's write is refused and logged
            probe = Js(reader)
            try:
                probe.loop.run_until_complete(
                    probe.nc.publish("$JS.API.STREAM.CREATE.INVOICES", b'{"name": "INVOICES"}')
                )
                probe.loop.run_until_complete(probe.nc.flush())
            finally:
                probe.close()
            wait_for(lambda: "Violation" in _server_log(server), what="the refused write in the server's log")
        finally:
            audit.close()
            admin.close()


def test_ref_number() -> None:
    assert ref_number("refs/pull/*/head", "refs/pull/17/head") == 17
    assert ref_number("refs/merge-requests/*/head", "refs/merge-requests/3/head") == 3
    assert ref_number("refs/heads/feature/*", "refs/heads/feature/login") is None
    assert ref_number("refs/pull/*/head", "refs/pull//head") is None
    assert ref_number("refs/pull/*/head", "refs/heads/main") is None


def test_rate_limit_is_a_sliding_minute() -> None:
    now = [0.0]
    rate = RateLimit(2, clock=lambda: now[0])
    assert rate.take() and rate.take() and not rate.take()
    now[0] = 59.9
    assert not rate.take()
    now[0] = 30.0
    assert not rate.take()
    now[0] = 60.0  # both taken at 0 have left the minute
    assert rate.take() and rate.take() and not rate.take()


@pytest.mark.parametrize("kind", ["github", "gitlab"])
def test_commit_status_reaches_each_forge(kind: str) -> None:
    from jsops.reconciler.forge import Forge, ForgeError, post_status

    sha = "0123456789abcdef0123456789abcdef01234567"
    with FakeForge(kind) as forge:
        where = Forge(kind, forge.url, "acme/streams", 0, "t0ken")  # type: ignore[arg-type]
        post_status(where, sha, "failure", "x" * 200, "jsops/plan")
        with pytest.raises(ForgeError):
            post_status(where, "not-a-sha", "success", "ok", "jsops/plan")
        with pytest.raises(ForgeError, match="401"):
            post_status(Forge(kind, forge.url, "acme/streams", 0, "wrong"), sha, "success", "ok", "jsops/plan")  # type: ignore[arg-type]
    (status,) = forge.statuses
    assert status["sha"] == sha and len(status["description"]) == 140 and status["description"].endswith("...")
    if kind == "github":
        assert status["state"] == "failure" and status["context"] == "jsops/plan"
    else:  # GitLab's words
        assert status["state"] == "failed" and status["name"] == "jsops/plan"


@pytest.mark.integration
def test_a_forge_that_does_not_answer_is_retried_within_the_rate_by_the_leader(tmp_path: Path) -> None:
    from natsserver import free_port

    bare, author, main = make_origin(tmp_path)
    head = _commit_on(author, main, "invoices.yaml", OTHER_YAML, "add INVOICES")
    _open_pull(bare, author, 1, head)
    token = _forge_token(tmp_path)
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    spec = {
        "forge": "github",
        "api-url": down,
        "project": "acme/streams",
        "token": {"file": str(token)},
        "interval": "0.2s",
        "max-per-minute": 2,
    }
    config = Config.model_validate({"pull-requests": spec})
    source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
    # a controller that applies, with the lease: it leads, so it plans
    with (
        NatsServer() as server,
        Running(
            [str(Path(source.checkout) / "manifests")], server.url, source=source, lease=True, config=config
        ) as ctl,
    ):
        wait_for(lambda: ctl.events("pull_deferred"), what="the rate limit to hold the head back")
        time.sleep(1.0)
        planned = ctl.events("pull_planned")
        assert [e["commit"] for e in planned] == [head, head], (
            "planned again after the forge did not answer, twice in the minute"
        )
        assert all(e["posted"] == [] and "Connection refused" in e["error"] for e in planned)
        assert len(ctl.events("pull_deferred")) == 1, "the deferral is told once"
        assert [e["type"] for e in ctl.events("error")] == ["forge", "forge"]


@pytest.mark.integration
def test_a_target_that_does_not_answer_leaves_the_head_to_be_planned_again(tmp_path: Path) -> None:
    from .helpers import free_port_url

    bare, author, main = make_origin(tmp_path)
    head = _commit_on(author, main, "invoices.yaml", OTHER_YAML, "add INVOICES")
    _open_pull(bare, author, 1, head)
    token = _forge_token(tmp_path)
    source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
    with FakeForge("github") as forge:
        spec = {
            "forge": "github",
            "api-url": forge.url,
            "project": "acme/streams",
            "token": {"file": str(token)},
            "interval": "0.2s",
            "max-per-minute": 2,
        }
        config = Config.model_validate({"pull-requests": spec})
        with Running(
            [str(Path(source.checkout) / "manifests")], free_port_url(), source=source, dry_run=True, config=config
        ):
            wait_for(lambda: len(forge.statuses) >= 2, timeout=30, what="the head planned again")
        assert [s["sha"] for s in forge.statuses][:2] == [head, head]
        assert all(s["state"] == "error" and s["description"].startswith("not planned yet: ") for s in forge.statuses)
        assert "Not planned yet" in forge.in_thread("issues/1/comments")[0]["body"]


GOLDEN = Path(__file__).parent / "golden" / "pull_comments.md"


def test_failure_comments_golden() -> None:
    """The comments of a head that fails (its lines quoted, a longer fence when they hold backticks,
    cut at 20 lines) and of one not planned yet; regenerate with JSOPS_UPDATE_GOLDEN=1."""
    import os

    from jsops.reconciler.controller.pulls import Head, failed_outcome

    head = Head("refs/pull/7/head", "0123456789abcdef0123456789abcdef01234567", 7)
    lint = [
        f"manifests/s{i}.yaml:3:5: error JS005 spec.retention: 'x' is not one of limits, interest, workqueue [invalid-field]"
        for i in range(22)
    ]
    failed = failed_outcome(head, lint[0] + " (and 21 more)", lint, marker="jsops-plan")
    fenced = failed_outcome(
        head, "a name with ``` in it", ["manifests/```.yaml: a name with ``` in it"], marker="jsops-plan"
    )
    later = failed_outcome(
        head,
        "cannot connect to nats://127.0.0.1:4222",
        ["cannot connect to nats://127.0.0.1:4222"],
        marker="jsops-plan",
        retry=True,
    )
    assert (
        (failed.state, fenced.state, later.state) == ("failure", "failure", "error")
        and later.retry
        and not failed.retry
    )
    assert failed.summary.startswith("plan failed: manifests/s0.yaml:3:5: error JS005") and later.summary.startswith(
        "not planned yet: "
    )
    out = "\n---\n\n".join(o.body for o in (failed, fenced, later))
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(out)
    assert out == GOLDEN.read_text(), f"{GOLDEN.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1"


def test_pull_mode_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``jsops controller`` with ``pull-requests`` but no git source, or a token it cannot read:
    exit 2 with one line, nothing started."""
    monkeypatch.chdir(tmp_path)  # --repo runs from its clone: the test's directory comes back
    import contextlib
    import io

    from jsops.reconciler.controller.cli import main

    def controller(*args: str) -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = main(["--listen", "none", "--once", "--server", "nats://127.0.0.1:1", *args])
        return rc, err.getvalue()

    ops = tmp_path / "ops" / "ops.yaml"
    ops.parent.mkdir()
    ops.write_text("pull-requests:\n  forge: github\n  project: acme/streams\n  token: {file: missing-token}\n")
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    rc, err = controller(str(tmp_path / "m"), "--config", str(ops))
    assert rc == 2 and err.count("\n") == 1 and "pull-requests needs a git source (--repo URL or --git)" in err, err
    bare, _, _ = make_origin(tmp_path)
    rc, err = controller("--repo", f"file://{bare}", "--workdir", str(tmp_path / "w"), "--config", str(ops))
    assert rc == 2 and err.count("\n") == 1 and "pull-requests.token: cannot read missing-token" in err, err

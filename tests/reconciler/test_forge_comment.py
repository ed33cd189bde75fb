"""The sticky pull-request comment (jsops.reconciler.forge, ``jsops plan --comment``) against a local
forge (tests/reconciler/forge_server.py: GitHub's and GitLab's list, create and update endpoints on
127.0.0.1): the first run creates one comment, later runs update that one (found on any page of
the list), an unchanged text is not sent again, and the token goes nowhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jsops.reconciler.forge import Forge, ForgeError, ForgeUnreachable, forge_from_env, upsert_comment
from jsops.reconciler.render_markdown import marker_line

from .forge_server import FakeForge
from .helpers import NatsServer, manifest, run

MARK = marker_line()


def _github(forge: FakeForge, token: str = "t0ken") -> Forge:
    return Forge("github", forge.url, "acme/estate", 7, token)


def _gitlab(forge: FakeForge, token: str = "t0ken") -> Forge:
    return Forge("gitlab", forge.url, "acme/platform/estate", 3, token)


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitlab-link"])
def test_first_run_creates_then_updates_the_one_comment_on_a_later_page(kind: str) -> None:
    with FakeForge(kind.split("-")[0], page_size=2, link_pages=kind.endswith("link")) as fake:
        target = _github(fake) if kind == "github" else _gitlab(fake)
        for i in range(5):  # other people's comments, one quoting the marker mid-text
            fake.add(f"looks good {i}" if i != 3 else f"see the plan below\n{MARK}\nquoted")
        first = upsert_comment(target, f"{MARK}\nplan one", MARK)
        assert first.action == "created"
        assert [c["id"] for c in fake.comments if c["body"].startswith(MARK)] == [first.id]
        assert len(fake.comments) == 6  # the marker quoted mid-text was not taken for jsops's comment
        lists = [s for s in fake.seen if s.method == "GET"]
        assert [s.query.get("page", "1") for s in lists] == ["1", "2", "3"]  # every page read before creating
        second = upsert_comment(target, "plan two", MARK)  # a body without the marker gets it
        assert (second.action, second.id) == ("updated", first.id)
        assert len(fake.comments) == 6
        assert fake.comments[5]["body"] == f"{MARK}\nplan two"
        writes = [s.method for s in fake.seen if s.method != "GET"]
        assert writes == ["POST", "PATCH" if kind == "github" else "PUT"]
        third = upsert_comment(target, f"{MARK}\nplan two", MARK)
        assert (third.action, third.id) == ("unchanged", first.id)
        assert [s.method for s in fake.seen if s.method != "GET"] == writes  # nothing sent for the same text
        if kind != "github":
            assert {s.path for s in fake.seen} >= {"/api/v4/projects/acme%2Fplatform%2Festate/merge_requests/3/notes"}


def test_wrong_token_is_the_forges_message_not_a_traceback() -> None:
    with FakeForge("github") as fake:
        with pytest.raises(ForgeError, match="401 Unauthorized: Bad credentials"):
            upsert_comment(_github(fake, token="wrong"), "x", MARK)
        assert not fake.comments


def test_too_long_a_comment_is_refused_before_any_request() -> None:
    with FakeForge("github") as fake:
        with pytest.raises(ForgeError, match="at most 65,536"):
            upsert_comment(_github(fake), "x" * 70_000, MARK)
        assert not fake.seen


def test_a_next_page_on_another_origin_gets_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from jsops.reconciler import forge as forge_module

    with FakeForge("github") as fake:
        answers = iter([([], {"link": '<https://elsewhere.example/comments?page=2>; rel="next"'})])
        monkeypatch.setattr(forge_module, "_call", lambda *a, **k: next(answers))
        with pytest.raises(ForgeError, match="another origin"):
            upsert_comment(_github(fake), "x", MARK)


def test_nothing_listening_is_temporary() -> None:
    with FakeForge("github") as fake:
        url = fake.url
    with pytest.raises(ForgeUnreachable):
        upsert_comment(Forge("github", url, "acme/estate", 7, "t"), "x", MARK)


def test_where_to_post_comes_from_the_ci_variables(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 42}}))
    token = tmp_path / "token"
    token.write_text("from-file\n")
    env = {"GITHUB_REPOSITORY": "acme/estate", "GITHUB_EVENT_PATH": str(event), "GITHUB_TOKEN": "from-env"}
    f = forge_from_env("github", env=env)
    assert (f.api_url, f.project, f.number, f.token, f.limit) == (
        "https://api.github.com",
        "acme/estate",
        42,
        "from-env",
        65_536,
    )
    assert "from-env" not in repr(f)
    assert forge_from_env("github", env=env, token_file=str(token), number=9).token == "from-file"
    assert forge_from_env("github", env={**env, "GITHUB_EVENT_PATH": "", "GITHUB_REF": "refs/pull/5/merge"}).number == 5
    lab = forge_from_env(
        "gitlab",
        env={
            "CI_API_V4_URL": "https://git.example/api/v4",
            "CI_PROJECT_ID": "12",
            "CI_MERGE_REQUEST_IID": "8",
            "GITLAB_TOKEN": "g",
        },
    )
    assert (lab.api_url, lab.project, lab.number, lab.limit) == ("https://git.example/api/v4", "12", 8, 1_000_000)
    with pytest.raises(ForgeError, match="not a pull request job"):
        forge_from_env("github", env={"GITHUB_REPOSITORY": "acme/estate", "GITHUB_TOKEN": "t"})
    with pytest.raises(ForgeError, match="no token: set GITHUB_TOKEN"):
        forge_from_env("github", env={"GITHUB_REPOSITORY": "acme/estate", "GITHUB_REF": "refs/pull/5/merge"})
    with pytest.raises(ForgeError, match="only over https"):
        forge_from_env("github", env={**env, "GITHUB_API_URL": "http://forge.example"})


STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>'], max_age: %s}\n"


@pytest.mark.integration
def test_plan_comment_creates_then_updates_one_comment(
    server: NatsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeForge("github", page_size=1) as fake:
        fake.add("a reviewer's comment")
        event = tmp_path / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 7}}))
        for k, v in {
            "GITHUB_API_URL": fake.url,
            "GITHUB_REPOSITORY": "acme/estate",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_TOKEN": "t0ken",
        }.items():
            monkeypatch.setenv(k, v)
        m = tmp_path / "m"
        manifest(m, "orders.yaml", STREAM % "1h")
        rc, out, err = run(
            "plan", str(m), "-s", server.url, "--no-config", "--format", "markdown", "--comment", "github"
        )
        assert rc == 2, err
        assert "jsops: github comment created: https://forge.example/c/" in err
        (mine,) = [c for c in fake.comments if c["body"].startswith(MARK)]
        assert mine["body"] == out  # what was printed is what was posted
        assert "| `+` | `Stream ORDERS` | create | new object |" in mine["body"]
        # the next push changes the manifests: the same comment shows the new plan
        manifest(m, "orders.yaml", STREAM % "2h")
        rc, out, err = run(
            "plan", str(m), "-s", server.url, "--no-config", "--comment", "github"
        )  # text on stdout, markdown posted
        assert rc == 2 and "jsops: github comment updated" in err
        assert out.startswith("jsops will perform these actions")
        assert [c["id"] for c in fake.comments if c["body"].startswith(MARK)] == [mine["id"]] and len(
            fake.comments
        ) == 2
        assert "| `max_age` |  | `2h` |  |" in fake.comments[1]["body"]  # still a create (plans are never applied)
        # a plan that fails says so in the same comment (never an older plan shown as current)
        manifest(m, "orders.yaml", STREAM % "-5s")
        rc, out, err = run("plan", str(m), "-s", server.url, "--no-config", "--comment", "github")
        assert rc == 1 and out == ""
        body = fake.comments[1]["body"]
        assert (
            body.startswith(MARK)
            and ":x: **The plan failed**" in body
            and "would refuse 1 object(s); nothing was sent" in body
        )
        assert len(fake.comments) == 2
        # a token the forge refuses: one line naming the forge's answer, never the token, exit 1
        monkeypatch.setenv("GITHUB_TOKEN", "s3cret-wrong")
        manifest(m, "orders.yaml", STREAM % "3h")
        rc, out, err = run("plan", str(m), "-s", server.url, "--no-config", "--comment", "github")
        assert rc == 1 and err.strip().splitlines()[-1].startswith(
            "jsops: error: github GET /repos/acme/estate/issues/7/comments: 401 Unauthorized: Bad credentials"
        )
        assert "s3cret" not in err and "Traceback" not in err

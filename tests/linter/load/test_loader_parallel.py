"""Large estates are parsed in two processes; the result must equal a serial load exactly."""

import json

import pytest

from jsops.linter.cli.app import main


def _estate(root, n):
    for i in range(n):
        body = (
            f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{subjects: [s{i}.>], max_age: 1m}}\n"
        )
        if i % 50 == 7:
            body += "---\napiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: c, stream: NOPE}\nspec: {ack_wait: 1 hour}\n"
        if i % 97 == 3:
            body = "apiVersion: jsops/v1\nkind: Stream\nspec: {subjects: [1, 2\n"
        if i % 101 == 5:
            body += "---\n"
        (root / f"s{i:04d}.yaml").write_text(body)


def _lint(path, capsys, monkeypatch, parallel):
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "0" if parallel else "1")
    rc = main(["lint", str(path), "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_parallel_load_equals_serial(tmp_path, capsys, monkeypatch):
    _estate(tmp_path, 450)
    serial = _lint(tmp_path, capsys, monkeypatch, parallel=False)
    parallel = _lint(tmp_path, capsys, monkeypatch, parallel=True)
    assert serial == parallel
    assert serial[0] == 1 and serial[1]["summary"]["files"] == 450
    assert serial[1]["summary"]["error"] > 0


def test_parallel_unreadable_path_is_exit_2(tmp_path, capsys, monkeypatch):
    _estate(tmp_path, 420)
    (tmp_path / "zz.yaml").mkdir()  # a directory with a manifest name is walked, not read
    rc, out = _lint(tmp_path, capsys, monkeypatch, parallel=True)
    assert rc == 1 and out["summary"]["files"] == 420


def test_a_warm_cache_loads_in_one_process(tmp_path, capsys, monkeypatch):
    """Only parsing pays for the fork: with every file in the parse cache, one process loads them."""
    from jsops.linter.load import parallel

    monkeypatch.setenv("JSOPS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    root = tmp_path / "estate"
    root.mkdir()
    _estate(root, 450)
    forked = []
    real = parallel.load_parallel

    def counting(*args, **kwargs):
        forked.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, "load_parallel", counting)
    cold = _lint(root, capsys, monkeypatch, parallel=True)
    if not parallel.can_fork():
        pytest.skip("no fork or a single core here")
    assert forked == [1]
    warm = _lint(root, capsys, monkeypatch, parallel=True)
    assert forked == [1] and warm == cold

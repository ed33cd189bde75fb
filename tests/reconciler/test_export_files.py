"""How ``jsops export`` creates files (issue 12): nothing planted in the output directory is written
through, names the server allows (255 characters) are exported, and a failure leaves no partial
export behind. Against a real nats-server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jsops.reconciler.export import _file_base, write_export
from jsops.reconciler.live import LiveState

from .helpers import Js, NatsServer, run

pytestmark = pytest.mark.integration

LONG = "S" * 255


def test_file_base_fits_a_file_name() -> None:
    assert _file_base("ORDERS") == "ORDERS"
    assert len(_file_base("A" * 246)) == 246 and _file_base("A" * 246) == "A" * 246
    a, b = _file_base("A" * 250 + "x"), _file_base("A" * 250 + "y")
    assert a != b and len(a) <= 246 and len(b) <= 246


def test_export_does_not_write_through_planted_links(server: NatsServer, js: Js, tmp_path: Path) -> None:
    js.ok("$JS.API.STREAM.CREATE.ORDERS", {"name": "ORDERS", "subjects": ["orders.>"]})
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    other = tmp_path / "other.txt"
    other.write_text("also precious\n")
    os.symlink(victim, out / "ORDERS.yaml.tmp")  # the temporary name earlier versions used
    os.symlink(other, out / "ORDERS.yaml")  # a link at the final name is replaced, not followed
    rc, stdout, err = run("export", str(out), "--server", server.url)
    assert rc == 0, err
    assert victim.read_text() == "precious\n" and other.read_text() == "also precious\n"
    assert not (out / "ORDERS.yaml").is_symlink() and "name: ORDERS" in (out / "ORDERS.yaml").read_text()
    assert not [p for p in os.listdir(out) if p.startswith(".jsops-export-")]


def test_export_names_of_255_characters(server: NatsServer, js: Js, tmp_path: Path) -> None:
    for name in (LONG, "S" * 251, "T" * 247):
        js.ok(f"$JS.API.STREAM.CREATE.{name}", {"name": name, "subjects": [f"{name[:1].lower()}{len(name)}.>"]})
    out = tmp_path / "out"
    rc, stdout, err = run("export", str(out), "--server", server.url)
    assert rc == 0, err
    files = sorted(os.listdir(out))
    assert len(files) == 3 and all(len(f) <= 255 for f in files)
    texts = [(out / f).read_text() for f in files]
    for name in (LONG, "S" * 251, "T" * 247):
        assert sum(f"name: {name}\n" in t for t in texts) == 1
    # the files are manifests jsops reads back: planning them against the server changes nothing
    rc, stdout, err = run("plan", str(out), "--server", server.url)
    assert rc == 0, stdout + err


def test_a_failed_export_leaves_nothing_behind(server: NatsServer, js: Js, tmp_path: Path, monkeypatch) -> None:
    for name in ("A1", "B2", "C3"):
        js.ok(f"$JS.API.STREAM.CREATE.{name}", {"name": name, "subjects": [f"{name.lower()}.>"]})
    from jsops.reconciler.client import JsClient, Target
    from jsops.reconciler.live import read_live

    with JsClient(Target(servers=(server.url,))) as client:
        live: LiveState = read_live(client)
    out = tmp_path / "out"
    out.mkdir()
    import jsops.reconciler.export as export

    real, calls = export._create_new, []

    def fail_third(directory: str, data: bytes) -> str:  # the disk fills up on the third file
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(directory, data)

    monkeypatch.setattr(export, "_create_new", fail_third)
    with pytest.raises(OSError):
        write_export(live, str(out))
    assert os.listdir(out) == []

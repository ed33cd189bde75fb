"""`jsops profile` as users meet it (issue 17): empty input is said, the run's time is given, and
without the spark extra one line says how to get it (no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.job import main


def test_empty_input_is_a_warning_and_the_summary_has_the_time(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    assert main([str(tmp_path), "-o", str(tmp_path / "p.json")]) == 0
    err = capsys.readouterr().err
    assert "jsops profile: warning: no telemetry events in" in err and "jsops collect" in err
    assert err.rstrip().endswith(" s") and "wrote 0 streams and 0 consumers" in err


def test_without_the_spark_extra_one_line_says_how_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['pyspark'] = None\nfrom jsops.linter.cli.app import main\nsys.exit(main(sys.argv[1:]))"
    )
    hint = "pip install '.[spark]' in a jsops clone"
    proc = subprocess.run(
        [sys.executable, "-c", code, "profile", str(tmp_path), "-o", "p.json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and hint in proc.stderr, proc.stderr
    proc = subprocess.run([sys.executable, "-c", code, "profile", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and hint in proc.stdout.replace("\n", " ")
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [(["--remote", "sc://127.0.0.1:15002"], "connect"), (["--engine", "sail"], "sail")],
)
def test_without_pyspark_remote_and_sail_name_their_extra(tmp_path: Path, args: list[str], extra: str) -> None:
    """--remote needs only the Spark Connect client (the connect extra), --engine sail the sail extra:
    the error names that extra, never the spark one, and no registry jsops is not on."""
    code = (
        "import sys; sys.modules['pyspark'] = None\nfrom jsops.linter.cli.app import main\nsys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "profile", str(tmp_path), "-o", "p.json", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert (
        f"the {extra} extra" in proc.stderr
        and f"pip install '.[{extra}]'" in proc.stderr
        and "[spark]" not in proc.stderr
    ), proc.stderr
    assert "jsops[" not in proc.stderr


def test_spark_start_up_lines_stay_out_of_the_output(tmp_path: Path) -> None:
    """Only jsops's own lines on stderr (the JVM's and Spark's start-up chatter goes to a log file of
    its own), none at all with -q; stdout untouched."""
    from jsops.profiler.synthetic import default_spec, generate

    generate(tmp_path / "t", default_spec(acks=2_000, publish_ids=500, duration_s=60))
    cmd = [
        sys.executable,
        "-m",
        "jsops.linter.cli.app",
        "profile",
        str(tmp_path / "t"),
        "-o",
        str(tmp_path / "p.json"),
        "--master",
        "local[1]",
    ]
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "TMPDIR": str(tmp)})
    # the JVM's start-up log file is removed once Spark has started (kept only when the start fails)
    assert not list(tmp.glob("jsops-profile-spark-*.log"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines and all(line.startswith("jsops profile: ") for line in lines), proc.stderr
    assert proc.stdout == ""
    quiet = subprocess.run([*cmd, "-q"], capture_output=True, text=True, timeout=600)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr

"""Input tolerance: extra and missing fields, bad lines, unknown types, gzip, empty input, bad arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.job import build_profiles, main
from jsops.profiler.synthetic import SyntheticSpec, default_spec, generate

ACK = "io.nats.jetstream.metric.v1.consumer_ack"
ROOT = Path(__file__).resolve().parents[2]


def test_extra_missing_bad_unknown_and_gzip(spark: Any, tmp_path: Path) -> None:
    base = default_spec(acks=300, publish_ids=100, seed=3, gzip_files=True)
    generate(tmp_path, SyntheticSpec(**{**base.__dict__, "extra": {"bad_lines": 8, "unknown": 5}}))
    lines = [
        {
            "type": ACK,
            "id": "x",
            "timestamp": "2026-11-20T12:00:01.5Z",
            "stream": "ORDERS",
            "consumer": "extra",
            "consumer_seq": 1,
            "stream_seq": 1,
            "ack_time": 1000,
            "deliveries": 1,
            "domain": "hub",
            "future_field": {"nested": [1, 2]},
        },
        {
            "type": ACK,
            "timestamp": "2026-11-20T12:00:02Z",
            "stream": "ORDERS",
            "consumer": "extra",
            "ack_time": 3000,
        },  # no id, seqs or deliveries
        {
            "type": ACK,
            "timestamp": "2026-11-20T12:00:03Z",
            "stream": "ORDERS",
            "consumer": "extra",
            "deliveries": 2,
        },  # no ack_time
        {"type": ACK, "ack_time": 5},  # cannot be attributed to a consumer
        {"hello": "world"},  # no type, not a snapshot
    ]
    (tmp_path / "handmade.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    doc, summary = build_profiles(spark, [str(tmp_path)])
    assert summary.bad_lines == 8
    assert summary.unknown == 6 and summary.unknown_types["io.example.v1.something_else"] == 5
    extra = doc["consumers"]["ORDERS/extra"]
    assert extra["ack_time_ns"]["samples"] == 2 and extra["ack_time_ns"]["max"] == 3000
    assert extra["ack_time_ns"]["p50"] == 2000
    assert extra["deliveries"] == {"first_try_ratio": 0.5, "redelivered_ratio": 0.5, "max": 2}
    assert "advisories" not in extra and "delivery" not in extra  # missing evidence is absent, not zero
    assert doc["consumers"]["ORDERS/shipper"]["ack_time_ns"]["samples"] == 150
    assert "skipped 8 bad lines; 6 unknown events" in summary.render()


def test_snapshots_only_stream_has_no_per_second_figures(spark: Any, tmp_path: Path) -> None:
    generate(tmp_path, default_spec(acks=0, publish_ids=0, seed=5))
    doc, _ = build_profiles(spark, [str(tmp_path)])
    orders = doc["streams"]["ORDERS"]
    assert set(orders["ingest"]) == {"messages", "mean_per_s"} and orders["ingest"]["messages"] > 0
    assert "publish_retry" not in orders
    assert set(orders["bytes"]) == {"stored_msg_size_mean", "mean_per_s"}
    assert "ack_time_ns" not in doc["consumers"]["ORDERS/shipper"]


def test_empty_input_gives_an_empty_profile(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    doc, summary = build_profiles(spark, [str(tmp_path)])
    assert doc["streams"] == {} and doc["consumers"] == {} and "window" not in doc
    assert summary.kinds == {}


def test_parquet_input(spark: Any, tmp_path: Path) -> None:
    src = tmp_path / "src"
    generate(src, default_spec(acks=200, publish_ids=50, seed=9))
    from pyspark.sql import functions as F

    spark.read.text(str(src)).select(
        F.get_json_object("value", "$.type").alias("type"),
        F.get_json_object("value", "$.stream").alias("stream"),
        F.get_json_object("value", "$.consumer").alias("consumer"),
        F.get_json_object("value", "$.timestamp").alias("timestamp"),
        F.get_json_object("value", "$.ack_time").cast("long").alias("ack_time"),
        F.get_json_object("value", "$.deliveries").cast("long").alias("deliveries"),
    ).where(F.col("type") == ACK).write.parquet(str(tmp_path / "pq"))
    doc, _ = build_profiles(spark, [str(tmp_path / "pq")])
    assert doc["consumers"]["ORDERS/shipper"]["ack_time_ns"]["samples"] == 100


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--accuracy", "100"], "--accuracy must be at least 10000"),
        (["--exact-limit", "-1"], "--exact-limit"),
    ],
)
def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert main([str(tmp_path), "-o", str(tmp_path / "p.json"), *args]) == 2
    assert needle in capsys.readouterr().err


def test_missing_path_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope"), "-o", str(tmp_path / "p.json")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_spark_submit_local_mode(tmp_path: Path) -> None:
    """spark-submit runs profiler/job.py as the application, in local mode. No Python worker is ever
    started: PYSPARK_PYTHON names a binary that does not exist, and the job still succeeds."""
    import pyspark

    generate(tmp_path / "t", default_spec(acks=500, publish_ids=100, seed=1))
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {
        **os.environ,
        "PYSPARK_PYTHON": "/nonexistent/python",
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    r = subprocess.run(
        [
            str(submit),
            "--master",
            "local[1]",
            "--conf",
            "spark.ui.enabled=false",
            str(ROOT / "profiler" / "job.py"),
            str(tmp_path / "t"),
            "-o",
            str(tmp_path / "p.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["consumers"]["ORDERS/shipper"]["ack_time_ns"]["samples"] == 250


def test_parquet_nanosecond_timestamps(spark: Any, tmp_path: Path) -> None:
    """Parquet TIMESTAMP(NANOS) columns (as DuckDB or Arrow write them) are read at full precision and
    floored to microseconds: the same figures as the RFC 3339 strings of the same events in JSON lines."""
    duckdb = pytest.importorskip("duckdb")
    t0 = "2026-11-20T12:00:0{}.{}Z"
    events = [
        {
            "type": ACK,
            "timestamp": t0.format(i % 10, f"{123456789 + i * 1001:09d}"),
            "stream": "S",
            "consumer": "c",
            "ack_time": 1000 + i * 7,
            "deliveries": 1 + i % 3,
        }
        for i in range(40)
    ]
    events += [
        {
            "type": "io.jsops.publish.v1",
            "ts": t0.format(i % 10, f"{987654321 - i * 13:09d}"),
            "stream": "S",
            "msg_id": f"m{i % 7}",
            "attempt": 1 + i // 7,
            "bytes": 100,
            "result": "ok",
        }
        for i in range(21)
    ]
    (tmp_path / "json").mkdir()
    src = tmp_path / "json" / "ev.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in events))
    cols = (
        "{'type': 'VARCHAR', 'timestamp': 'VARCHAR', 'ts': 'VARCHAR', 'stream': 'VARCHAR', 'consumer': 'VARCHAR', "
        "'ack_time': 'BIGINT', 'deliveries': 'BIGINT', 'msg_id': 'VARCHAR', 'attempt': 'BIGINT', "
        "'bytes': 'BIGINT', 'result': 'VARCHAR'}"
    )
    (tmp_path / "pq").mkdir()
    duckdb.connect().execute(
        f"COPY (SELECT * REPLACE (CAST(timestamp AS TIMESTAMP_NS) AS timestamp, CAST(ts AS TIMESTAMP_NS) AS ts) "
        f"FROM read_json('{src}', columns={cols})) TO '{tmp_path / 'pq' / 'ev.parquet'}' (FORMAT parquet)"
    )
    from_json, _ = build_profiles(spark, [str(tmp_path / "json")])
    from_parquet, _ = build_profiles(spark, [str(tmp_path / "pq")])
    assert from_parquet["window"] == from_json["window"]
    assert from_parquet["window"]["end"] == "2026-11-20T12:00:09.987654Z"  # ...987654204 ns, floored to us
    assert from_parquet["streams"] == from_json["streams"] and from_parquet["consumers"] == from_json["consumers"]
    assert from_parquet["streams"]["S"]["publish_retry"]["horizon_max_ns"] % 1000 == 0

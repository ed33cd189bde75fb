"""Large estates are checked in two processes (jsops.linter.halves); the findings must equal a serial
run's exactly, in the same order, and a child that fails leaves the result whole."""

import os

import pytest

from jsops.linter import halves
from jsops.linter.engine import lint_estate
from jsops.linter.load import load_paths


def _estate(root, streams):
    """Streams and consumers with findings of many rules (per-object and estate-wide), in many files."""
    for i in range(streams):
        body = (
            f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\n"
            f"spec: {{subjects: ['s{i % 40}.>'], max_age: {'1s' if i % 7 == 0 else '1h'}, duplicate_window: 2h,"
            f" retention: {'workqueue' if i % 3 == 0 else 'limits'}, num_replicas: {2 if i % 5 == 0 else 1}}}\n"
        )
        for j in range(3):
            body += (
                f"---\napiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c{j}, stream: S{i}}}\n"
                f"spec: {{ack_wait: {'1ms' if j == 1 else '30s'}, max_deliver: {-1 if j == 2 else 5}, filter_subject: 's{i % 40}.x'}}\n"
            )
        (root / f"s{i:04d}.yaml").write_text(body)


def _forks(monkeypatch):
    calls = []
    real = os.fork

    def counting():
        calls.append(1)
        return real()

    monkeypatch.setattr(os, "fork", counting)  # the fork jsops.linter.load.parallel.fork_half makes
    return calls


def test_checks_on_two_processes_equal_a_serial_run(tmp_path, monkeypatch):
    _estate(tmp_path, 300)
    estate = load_paths([str(tmp_path)])
    monkeypatch.setattr(halves, "MIN_ITEMS", 1000)
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "1")
    serial = lint_estate(estate).findings
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "0")
    forks = _forks(monkeypatch)
    split = lint_estate(estate).findings
    if not halves._can_fork():
        pytest.skip("no fork or a single core here")
    assert forks == [1]
    assert split == serial
    assert len({f.rule for f in serial}) > 5 and len(serial) > 300


def test_units_keep_their_order_and_a_failed_child_is_made_up_for(monkeypatch):
    monkeypatch.setattr(halves, "MIN_ITEMS", 1)
    parent = os.getpid()
    items = list(range(11))

    def doubled(xs):
        return [2 * x for x in xs]

    def fails_in_the_child(xs):
        if os.getpid() != parent:
            raise RuntimeError("child")
        return list(xs)

    units = [
        (doubled, items),
        (lambda _: ["estate"], None),
        (doubled, items[:3]),
        (lambda _: ["wide", os.getpid() == parent], None),
    ]
    expected = [*doubled(items), "estate", *doubled(items[:3]), "wide", True]
    assert halves.run_units(units) == expected
    assert halves.run_units(units, parallel=False) == expected
    assert halves.run_units([(fails_in_the_child, items)]) == items


def test_a_rule_error_is_raised_as_in_a_serial_run(monkeypatch):
    monkeypatch.setattr(halves, "MIN_ITEMS", 1)

    def broken(xs):
        raise ValueError("a broken rule")

    with pytest.raises(ValueError, match="a broken rule"):
        halves.run_units([(broken, list(range(10)))])

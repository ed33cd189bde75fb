"""Fixed server limits (linter/semantics/limits.py)."""

from __future__ import annotations

from jsops.linter.semantics import limits


def test_limits_match_nats_server() -> None:
    assert limits.MAX_NAME_LEN == 255
    assert limits.MAX_DESCRIPTION_LEN == 4096
    assert limits.MAX_METADATA_LEN == 131072
    assert limits.REQ_LEVEL_METADATA_LEN == 16
    assert limits.MAX_REPLICAS == 5


def test_go_len_counts_utf8_bytes() -> None:
    assert limits.go_len("") == 0
    assert limits.go_len("orders") == 6
    assert limits.go_len("é") == 2 and limits.go_len("日本") == 6 and limits.go_len("🙂") == 4

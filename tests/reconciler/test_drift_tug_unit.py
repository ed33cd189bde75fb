"""No tug-of-war, pure (issue 37): changes counted per field and author within the window, the
quarantine at the threshold, its end when the manifest changes, and the state as JSON."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jsops.reconciler.drift import ChangedBy
from jsops.reconciler.drift.tug import Quarantine, TugState, field_id, manifest_values

T0 = datetime(2026, 12, 2, 10, 0, 0, tzinfo=UTC)
FID = field_id(("Stream", None, "ORDERS"), "max_age")
MANIFEST = manifest_values([(("Stream", None, "ORDERS"), "max_age", 3_600_000_000_000)])


def _by(minutes: float, user: str = "app", name: str = "orders-svc") -> ChangedBy:
    return ChangedBy(user, "A", name, "10.0.0.7", T0 + timedelta(minutes=minutes), "$JS.API.STREAM.UPDATE.ORDERS")


def _rounds(
    state: TugState, *changes: ChangedBy, threshold: int = 3, window: float = 600.0
) -> tuple[TugState, list[str]]:
    new: list[str] = []
    for who in changes:
        state, found = state.observe(
            {FID: who}, MANIFEST, who.at + timedelta(seconds=5), threshold=threshold, window=window
        )
        new += found
    return state, new


def test_field_ids_name_kind_stream_name_and_field() -> None:
    assert FID == "Stream//ORDERS/max_age"
    assert field_id(("Consumer", "ORDERS", "C1"), "max_deliver") == "Consumer/ORDERS/C1/max_deliver"


def test_the_third_change_by_the_same_author_within_the_window_quarantines_the_field() -> None:
    state, new = _rounds(TugState(), _by(0), _by(1))
    assert new == [] and state.quarantined == {}
    state, new = _rounds(state, _by(2))
    assert new == [FID]
    q = state.quarantined[FID]
    assert (q.user, q.client_name, q.changes, q.manifest) == ("app", "orders-svc", 3, MANIFEST[FID])
    assert state.held() == {("Stream", None, "ORDERS"): {"max_age": f"quarantined: {q.describe()}"}}
    assert q.describe() == "changed back 3 times by orders-svc (user app, 10.0.0.7); not healed"


def test_the_same_change_seen_in_several_rounds_counts_once() -> None:
    state, new = _rounds(TugState(), _by(0), _by(0), _by(0), _by(1))
    assert new == [] and list(state.changes[FID].values()) == [
        (T0.isoformat().replace("+00:00", "Z"), (T0 + timedelta(minutes=1)).isoformat().replace("+00:00", "Z"))
    ]


def test_changes_older_than_the_window_or_by_others_do_not_count() -> None:
    state, new = _rounds(
        TugState(), _by(0), _by(11), _by(22)
    )  # each one 11 minutes after the last: never 3 in 10 minutes
    assert new == []
    state, new = _rounds(TugState(), _by(0), _by(1, user="bob", name="natscli"), _by(2))
    assert new == []  # two authors, two changes each at most
    assert _rounds(TugState(), _by(0), _by(1), _by(2), threshold=0)[1] == []  # switched off


def test_a_quarantine_ends_when_the_manifest_value_changes_or_the_object_leaves() -> None:
    state, _ = _rounds(TugState(), _by(0), _by(1), _by(2))
    assert state.released(MANIFEST) == (state, [])
    changed = manifest_values([(("Stream", None, "ORDERS"), "max_age", 7_200_000_000_000)])
    after, gone = state.released(changed)
    assert gone == [FID] and after.quarantined == {} and FID not in after.changes
    assert state.released({})[1] == [FID]


def test_the_state_reads_back_from_its_json() -> None:
    state, _ = _rounds(TugState(), _by(0), _by(1), _by(2))
    assert TugState.from_json(state.to_json()) == state
    assert TugState.from_json({"quarantined": {"x": {"since": "no"}}, "changes": 3}) == TugState()
    assert TugState.from_json(None) == TugState()
    assert Quarantine.from_json({"changes": 3}) is None

"""JS230 consumer-filter-matches-no-subject: pass and fail cases, the bare consumer that names it as
skipped, and the real servers of every supported release accepting (then starving) such a consumer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jsops.linter.testing import RuleCase, lint_text, run_case
from tests.natsserver import NatsServer, release_binary

RELEASES = ("2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1")


def docs(
    filters: dict[str, Any], stream: dict[str, Any] | None = None, extra: list[dict[str, Any]] | None = None
) -> str:
    s = {
        "apiVersion": "jsops/v1",
        "kind": "Stream",
        "metadata": {"name": "ORDERS"},
        "spec": stream or {"subjects": ["orders.>", "refunds.*"]},
    }
    c = {
        "apiVersion": "jsops/v1",
        "kind": "Consumer",
        "metadata": {"name": "shipper", "stream": "ORDERS"},
        "spec": filters,
    }
    return "\n---\n".join(json.dumps(d) for d in [*(extra or []), s, c]) + "\n"


ORIGIN = {
    "apiVersion": "jsops/v1",
    "kind": "Stream",
    "metadata": {"name": "ORIGIN"},
    "spec": {"subjects": ["origin.>"]},
}

CASES = [
    RuleCase("typo", "JS230", docs({"filter_subject": "order.shipped"}), None, fires=True, severity="warning"),
    RuleCase(
        "one-of-many-dead",
        "JS230",
        docs({"filter_subjects": ["orders.a", "refunds.a.b"]}),
        None,
        fires=True,
        severity="warning",
    ),
    RuleCase(
        "all-dead", "JS230", docs({"filter_subjects": ["a.b", "c.>"]}), None, findings=2, fires=True, severity="warning"
    ),
    RuleCase(
        "name-as-subject",
        "JS230",
        docs({"filter_subject": "orders"}, {"max_age": "1h"}),
        None,
        fires=True,
        severity="warning",
    ),
    RuleCase("matches", "JS230", docs({"filter_subject": "orders.shipped"}), None),
    RuleCase("wildcards-meet", "JS230", docs({"filter_subjects": ["*.x", "refunds.>"]}), None),
    RuleCase("full-wildcard", "JS230", docs({"filter_subject": ">"}), None),
    RuleCase("default-subject", "JS230", docs({"filter_subject": "ORDERS"}, {"max_age": "1h"}), None),
    RuleCase("sources", "JS230", docs({"filter_subject": "x.y"}, {"sources": [{"name": "ORIGIN"}]}, [ORIGIN]), None),
    RuleCase("mirror", "JS230", docs({"filter_subject": "x.y"}, {"mirror": {"name": "ORIGIN"}}, [ORIGIN]), None),
    RuleCase(
        "subject-transform",
        "JS230",
        docs(
            {"filter_subject": "new.x"}, {"subjects": ["old.>"], "subject_transform": {"src": "old.>", "dest": "new.>"}}
        ),
        None,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case: RuleCase) -> None:
    found = run_case(case)
    if case.fires:
        assert all("matches no subject of stream 'ORDERS'" in f.message and f.server_error_code is None for f in found)


def test_a_bare_consumer_names_the_check_as_skipped() -> None:
    from jsops.linter.load import Estate, check_estate, load_text

    estate = Estate()
    load_text(b'{"durable_name": "x", "ack_policy": "explicit", "filter_subject": "foo.bar"}\n', "c.json", estate)
    check_estate(estate)
    found = lint_text(estate, ["JS230"])
    assert [f.rule for f in found] == ["JS024"]
    assert "JS230 consumer-filter-matches-no-subject" in found[0].message


@pytest.mark.integration
@pytest.mark.parametrize("release", RELEASES)
def test_every_release_accepts_the_consumer_and_it_receives_nothing(release: str) -> None:
    """The server answers no error (jsops predicts none), and a message published to the stream never reaches it."""
    from tests.reconciler.helpers import Js

    predicted = lint_text(
        docs({"filter_subject": "order.shipped", "ack_policy": "explicit"}, {"subjects": ["orders.>"]}),
        target={"server_version": release},
    )
    assert [f.rule for f in predicted if f.server_error_code is not None] == []
    assert "JS230" in {f.rule for f in predicted}
    binary = release_binary(release)
    if binary is None:
        pytest.skip(f"nats-server {release} not fetched")
    with NatsServer(binary=binary) as server:
        js = Js(server.url)
        try:
            js.ok("$JS.API.STREAM.CREATE.ORDERS", {"name": "ORDERS", "subjects": ["orders.>"], "storage": "memory"})
            made = js.request(
                "$JS.API.CONSUMER.CREATE.ORDERS.shipper",
                {
                    "stream_name": "ORDERS",
                    "config": {"durable_name": "shipper", "ack_policy": "explicit", "filter_subject": "order.shipped"},
                },
            )
            assert "error" not in made, made
            js.publish("orders.shipped", 3)
            info = js.ok("$JS.API.CONSUMER.INFO.ORDERS.shipper")
            assert info["num_pending"] == 0 and js.ok("$JS.API.STREAM.INFO.ORDERS")["state"]["messages"] == 3
        finally:
            js.close()

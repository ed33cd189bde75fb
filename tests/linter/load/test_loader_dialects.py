"""The three manifest dialects (contracts §1) load into one model, with positions in each.

The same stream and consumer are written as native ``jsops/v1`` YAML, as NACK CRDs
(``jetstream.nats.io/v1beta2`` and ``v1beta1``) and as NATS API JSON (``nats stream info --json``,
a bare StreamConfig, a ``$JS.API.CONSUMER.CREATE`` body and ``nats consumer info --json``). Each must
give equal ``Resource.config`` models and effective configs, and ``Resource.locate`` must point at
the line and column where that dialect spells the field (NACK renames and nests some of them).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jsops.linter import effective_consumer, effective_stream
from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, Resource, check_estate, load_text

SEC = 1_000_000_000
DAY = 86400 * SEC
GIB = 1 << 30

NATIVE = """\
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
spec:
  description: orders placed by the shop
  subjects: ["orders.>"]
  retention: workqueue
  max_age: 7d
  max_bytes: 10GiB
  max_msg_size: 1MiB
  duplicate_window: 2m
  discard: new
  storage: file
  num_replicas: 3
  placement:
    cluster: east
    tags: [ssd]
---
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS_DR
spec:
  storage: file
  mirror:
    name: ORDERS
    external:
      api: "$JS.east.API"
      deliver: dr.deliver
---
apiVersion: jsops/v1
kind: Consumer
metadata:
  name: shipper
  stream: ORDERS
spec:
  ack_policy: explicit
  ack_wait: 30s
  max_deliver: 5
  filter_subject: orders.created
  deliver_policy: all
  max_ack_pending: 200
  replay_policy: instant
"""

NACK = """\
apiVersion: jetstream.nats.io/{version}
kind: Stream
metadata:
  name: orders
spec:
  name: ORDERS
  description: orders placed by the shop
  subjects: ["orders.>"]
  retention: workqueue
  maxAge: 168h
  maxBytes: 10737418240
  maxMsgSize: 1048576
  duplicateWindow: 2m
  discard: new
  storage: file
  replicas: 3
  placement:
    cluster: east
    tags: [ssd]
---
apiVersion: jetstream.nats.io/{version}
kind: Stream
metadata:
  name: orders-dr
spec:
  name: ORDERS_DR
  storage: file
  mirror:
    name: ORDERS
    externalApiPrefix: "$JS.east.API"
    externalDeliverPrefix: dr.deliver
---
apiVersion: jetstream.nats.io/{version}
kind: Consumer
metadata:
  name: shipper
spec:
  streamName: ORDERS
  durableName: shipper
  ackPolicy: explicit
  ackWait: 30s
  maxDeliver: 5
  filterSubject: orders.created
  deliverPolicy: all
  maxAckPending: 200
  replayPolicy: instant
"""

# API JSON: durations in nanoseconds, sizes in bytes, one object per file.
API_STREAM_BARE = """\
{
  "name": "ORDERS",
  "description": "orders placed by the shop",
  "subjects": ["orders.>"],
  "retention": "workqueue",
  "max_age": 604800000000000,
  "max_bytes": 10737418240,
  "max_msg_size": 1048576,
  "duplicate_window": 120000000000,
  "discard": "new",
  "storage": "file",
  "num_replicas": 3,
  "placement": {"cluster": "east", "tags": ["ssd"]}
}
"""

API_DR_BARE = """\
{
  "name": "ORDERS_DR",
  "storage": "file",
  "mirror": {
    "name": "ORDERS",
    "external": {"api": "$JS.east.API", "deliver": "dr.deliver"}
  }
}
"""

# `nats stream info --json`: the server's full config (defaults filled in) plus state.
API_STREAM_INFO = """\
{
  "config": {
    "name": "ORDERS",
    "description": "orders placed by the shop",
    "subjects": [
      "orders.>"
    ],
    "retention": "workqueue",
    "max_consumers": -1,
    "max_msgs": -1,
    "max_bytes": 10737418240,
    "max_age": 604800000000000,
    "max_msgs_per_subject": -1,
    "max_msg_size": 1048576,
    "discard": "new",
    "storage": "file",
    "num_replicas": 3,
    "duplicate_window": 120000000000,
    "placement": {
      "cluster": "east",
      "tags": [
        "ssd"
      ]
    },
    "compression": "none",
    "allow_direct": false,
    "mirror_direct": false,
    "sealed": false,
    "deny_delete": false,
    "deny_purge": false,
    "allow_rollup_hdrs": false,
    "consumer_limits": {},
    "allow_msg_ttl": false,
    "metadata": {
      "_nats.level": "1",
      "_nats.req.level": "0",
      "_nats.ver": "2.12.1"
    }
  },
  "created": "2026-11-21T12:00:00.123456789Z",
  "state": {
    "messages": 12,
    "bytes": 4096,
    "first_seq": 1,
    "first_ts": "2026-11-21T12:00:01Z",
    "last_seq": 12,
    "last_ts": "2026-11-21T12:05:00Z",
    "num_subjects": 1,
    "consumer_count": 1
  },
  "cluster": {
    "name": "east",
    "leader": "n1"
  },
  "ts": "2026-11-21T12:10:00Z"
}
"""

# The body of $JS.API.CONSUMER.CREATE.ORDERS.shipper.
API_CONSUMER_CREATE = """\
{
  "stream_name": "ORDERS",
  "config": {
    "durable_name": "shipper",
    "ack_policy": "explicit",
    "ack_wait": 30000000000,
    "max_deliver": 5,
    "filter_subject": "orders.created",
    "deliver_policy": "all",
    "max_ack_pending": 200,
    "replay_policy": "instant"
  },
  "action": "create"
}
"""

# `nats consumer info --json`: config with server defaults plus state.
API_CONSUMER_INFO = """\
{
  "stream_name": "ORDERS",
  "name": "shipper",
  "created": "2026-11-21T12:00:00.5Z",
  "config": {
    "durable_name": "shipper",
    "name": "shipper",
    "deliver_policy": "all",
    "ack_policy": "explicit",
    "ack_wait": 30000000000,
    "max_deliver": 5,
    "filter_subject": "orders.created",
    "replay_policy": "instant",
    "max_waiting": 512,
    "max_ack_pending": 200,
    "num_replicas": 0,
    "metadata": {"_nats.level": "1", "_nats.req.level": "0", "_nats.ver": "2.12.1"}
  },
  "delivered": {"consumer_seq": 10, "stream_seq": 12},
  "ack_floor": {"consumer_seq": 9, "stream_seq": 11},
  "num_ack_pending": 1,
  "num_redelivered": 0,
  "num_waiting": 1,
  "num_pending": 0,
  "ts": "2026-11-21T12:10:00Z"
}
"""


def load(*files: tuple[str, str], refused_api: bool = False) -> Estate:
    """The files loaded clean (``refused_api``: but for kube-apiserver's refusal of each document's
    apiVersion, which no NACK release jsops knows serves for v1beta1; the content still loads)."""
    estate = Estate()
    for name, text in files:
        load_text(text.encode(), name, estate)
    check_estate(estate)
    findings = [f for f in estate.findings if not (refused_api and f.rule == "JS030" and "not v1beta1" in f.message)]
    assert findings == [], [f"{f.file}:{f.line}:{f.column} {f.message}" for f in estate.findings]
    return estate


def by_name(estate: Estate) -> dict[str, Resource]:
    return {r.name: r for r in estate.resources}


DIALECTS = {
    "native": lambda: load(("orders.yaml", NATIVE)),
    "nack/v1beta2": lambda: load(("orders.yaml", NACK.format(version="v1beta2"))),
    "nack/v1beta1": lambda: load(("orders.yaml", NACK.format(version="v1beta1")), refused_api=True),
    "api": lambda: load(
        ("orders.json", API_STREAM_BARE), ("dr.json", API_DR_BARE), ("shipper.json", API_CONSUMER_CREATE)
    ),
}


def effective(estate: Estate) -> dict[str, Any]:
    res = by_name(estate)
    out: dict[str, Any] = {}
    for name, r in res.items():
        if r.kind == "Stream":
            out[name] = effective_stream(r.config, name=r.name)
    for name, r in res.items():
        if r.kind == "Consumer":
            out[f"{r.stream}/{name}"] = effective_consumer(r.config, out[r.stream], durable_name=r.name)
    return out


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_loads_the_same_model(dialect: str) -> None:
    reference = by_name(DIALECTS["native"]())
    estate = DIALECTS[dialect]()
    got = by_name(estate)
    assert set(got) == {"ORDERS", "ORDERS_DR", "shipper"}
    for name, r in got.items():
        ref = reference[name]
        assert (r.kind, r.name, r.stream, r.context) == (ref.kind, ref.name, ref.stream, ref.context)
        assert r.config == ref.config, name
        assert r.dialect == dialect
    assert effective(estate) == effective(DIALECTS["native"]())


def test_reference_model_holds_what_the_manifest_says() -> None:
    got = by_name(DIALECTS["native"]())
    s = got["ORDERS"].config
    assert (s.name, s.max_age, s.max_bytes, s.max_msg_size, s.duplicate_window) == (
        "ORDERS",
        7 * DAY,
        10 * GIB,
        1 << 20,
        120 * SEC,
    )
    assert (s.retention, s.discard, s.storage, s.num_replicas) == ("workqueue", "new", "file", 3)
    assert s.placement is not None and (s.placement.cluster, s.placement.tags) == ("east", ["ssd"])
    dr = got["ORDERS_DR"].config
    assert dr.mirror is not None and dr.mirror.external is not None
    assert (dr.mirror.name, dr.mirror.external.api, dr.mirror.external.deliver) == (
        "ORDERS",
        "$JS.east.API",
        "dr.deliver",
    )
    c = got["shipper"].config
    assert (c.durable_name, c.ack_policy, c.ack_wait, c.max_deliver, c.max_ack_pending) == (
        "shipper",
        "explicit",
        30 * SEC,
        5,
        200,
    )
    assert got["shipper"].stream == "ORDERS"


def test_stream_info_and_consumer_info_json_give_the_same_effective_config() -> None:
    # The info outputs carry every server default and the server's own _nats.* metadata; the
    # effective configs (what the server stores) must still be the same as the manifest's.
    estate = load(("orders.json", API_STREAM_INFO), ("dr.json", API_DR_BARE), ("shipper.json", API_CONSUMER_INFO))
    assert {r.dialect for r in estate.resources} == {"api"}
    assert effective(estate) == effective(DIALECTS["native"]())
    info = by_name(estate)["ORDERS"]
    assert info.spec_path == ("config",)
    assert info.config.max_msgs == -1  # what the server printed, kept as written


def test_each_dialect_has_its_own_defaults() -> None:
    # Native defaults ack_policy to explicit (what clients send). API JSON is read exactly as the
    # server reads it, so an omitted ack_policy is none. NACK objects get their CRD's defaults from
    # kube-apiserver: ackPolicy none, ackWait 1ns (nats-io/nack#136) and storage memory.
    api = load(("s.json", '{"name": "S"}'), ("c.json", '{"stream_name": "S", "config": {"durable_name": "c"}}'))
    native = load(
        (
            "m.yaml",
            "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\n---\napiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: c, stream: S}\n",
        )
    )
    nack = load(
        (
            "m.yaml",
            "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata: {name: s}\nspec: {name: S}\n---\n"
            "apiVersion: jetstream.nats.io/v1beta2\nkind: Consumer\nmetadata: {name: c}\nspec: {streamName: S, durableName: c}\n",
        )
    )
    assert by_name(api)["c"].config.ack_policy is None
    assert effective(api)["S/c"].ack_policy == "none"
    assert by_name(native)["c"].config.ack_policy == "explicit"
    assert effective(native)["S"].storage == "file"
    assert (by_name(nack)["c"].config.ack_policy, by_name(nack)["c"].config.ack_wait) == ("none", 1)
    assert effective(nack)["S/c"].ack_wait == 1
    assert effective(nack)["S"].storage == "memory"
    # the defaults have no position of their own: they point at the spec that omits them
    assert by_name(nack)["c"].locate(("ack_wait",)) == (9, 7)


def test_nack_v1beta2_fields_beyond_v1beta1() -> None:
    text = """\
apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata:
  name: agg
spec:
  name: AGG
  sources:
    - name: ORDERS
      filterSubject: orders.created
    - name: REMOTE
      externalApiPrefix: "$JS.west.API"
      subjectTransforms:
        - source: "orders.>"
          dest: "west.orders.>"
  consumerLimits:
    inactiveThreshold: 1h
    maxAckPending: 50
  allowRollup: true
  discardPerSubject: true
  firstSequence: 10
  preventDelete: true
---
apiVersion: jetstream.nats.io/v1beta2
kind: Consumer
metadata:
  name: c
spec:
  streamName: AGG
  durableName: c
  backoff: [1s, 5s, 30s]
  maxDeliver: 4
  heartbeatInterval: 5s
  maxRequestBatch: 100
  maxRequestExpires: 30s
  maxRequestMaxBytes: 1048576
  pinnedTtl: 2m
  priorityPolicy: pinned_client
  priorityGroups: [jobs]
"""
    estate = load(("agg.yaml", text))
    got = by_name(estate)
    assert got["AGG"].annotations == {"jsops.io/prevent-delete": "true"}  # NACK's protection, kept for plan and prune
    s = got["AGG"].config
    assert [x.name for x in s.sources or []] == ["ORDERS", "REMOTE"]
    remote = (s.sources or [])[1]
    assert remote.external is not None and remote.external.api == "$JS.west.API"
    assert remote.subject_transforms is not None
    assert (remote.subject_transforms[0].src, remote.subject_transforms[0].dest) == ("orders.>", "west.orders.>")
    assert s.consumer_limits is not None and (
        s.consumer_limits.inactive_threshold,
        s.consumer_limits.max_ack_pending,
    ) == (3600 * SEC, 50)
    assert (s.allow_rollup_hdrs, s.discard_new_per_subject, s.first_seq) == (True, True, 10)
    c = got["c"].config
    assert c.backoff == [SEC, 5 * SEC, 30 * SEC]
    assert (c.idle_heartbeat, c.max_batch, c.max_expires, c.max_bytes, c.priority_timeout) == (
        5 * SEC,
        100,
        30 * SEC,
        1 << 20,
        120 * SEC,
    )
    r = got["AGG"]
    assert r.locate(("sources", 1, "external", "api")) == at(text, '"$JS.west.API"')
    assert r.locate(("sources", 1, "external", "api"), key=True) == at(text, "externalApiPrefix")
    assert r.locate(("sources", 1, "subject_transforms", 0, "dest")) == at(text, '"west.orders.>"')
    assert r.locate(("sources", 1, "subject_transforms", 0, "src"), key=True) == at(text, "source:")
    assert r.locate(("consumer_limits", "inactive_threshold")) == at(text, "1h")
    assert r.locate(("allow_rollup_hdrs",), key=True) == at(text, "allowRollup")
    assert r.locate(("first_seq",)) == at(text, "10\n")
    assert got["c"].locate(("backoff", 2)) == at(text, "30s]")
    assert got["c"].locate(("idle_heartbeat",), key=True) == at(text, "heartbeatInterval")
    assert got["c"].locate(("priority_timeout",)) == at(text, "2m")


# --- positions ---------------------------------------------------------------------------------


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` occurrence of ``needle`` in ``text``."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


# (resource, config path, key?) -> the text each dialect writes at that spot.
NATIVE_SPOTS = {
    ("ORDERS", ("max_age",), False): "7d",
    ("ORDERS", ("max_age",), True): "max_age",
    ("ORDERS", ("max_bytes",), False): "10GiB",
    ("ORDERS", ("duplicate_window",), True): "duplicate_window",
    ("ORDERS", ("num_replicas",), False): "3\n",
    ("ORDERS", ("placement", "tags", 0), False): "ssd",
    ("ORDERS", ("subjects", 0), False): '"orders.>"',
    ("ORDERS_DR", ("mirror", "external", "api"), False): '"$JS.east.API"',
    ("ORDERS_DR", ("mirror", "external", "api"), True): "api:",
    ("ORDERS_DR", ("mirror", "external", "deliver"), False): "dr.deliver",
    ("ORDERS_DR", ("mirror", "name"), False): "ORDERS\n    external",
    ("shipper", ("ack_wait",), False): "30s",
    ("shipper", ("max_deliver",), True): "max_deliver",
    ("shipper", ("filter_subject",), False): "orders.created",
}
NACK_SPOTS = {
    ("ORDERS", ("max_age",), False): "168h",
    ("ORDERS", ("max_age",), True): "maxAge",
    ("ORDERS", ("max_bytes",), False): "10737418240",
    ("ORDERS", ("duplicate_window",), True): "duplicateWindow",
    ("ORDERS", ("num_replicas",), False): "3\n",
    ("ORDERS", ("num_replicas",), True): "replicas",
    ("ORDERS", ("placement", "tags", 0), False): "ssd",
    ("ORDERS", ("subjects", 0), False): '"orders.>"',
    ("ORDERS", ("name",), False): "ORDERS\n",
    ("ORDERS_DR", ("mirror", "external", "api"), False): '"$JS.east.API"',
    ("ORDERS_DR", ("mirror", "external", "api"), True): "externalApiPrefix",
    ("ORDERS_DR", ("mirror", "external", "deliver"), False): "dr.deliver",
    ("ORDERS_DR", ("mirror", "external", "deliver"), True): "externalDeliverPrefix",
    ("ORDERS_DR", ("mirror", "name"), False): "ORDERS\n    externalApi",
    ("shipper", ("ack_wait",), False): "30s",
    ("shipper", ("ack_wait",), True): "ackWait",
    ("shipper", ("max_deliver",), True): "maxDeliver",
    ("shipper", ("filter_subject",), False): "orders.created",
    ("shipper", ("durable_name",), False): "shipper\n  ackPolicy",
}


def _api_spots() -> dict[tuple[str, tuple, bool], tuple[str, str]]:
    return {
        ("ORDERS", ("max_age",), False): (API_STREAM_BARE, "604800000000000"),
        ("ORDERS", ("max_age",), True): (API_STREAM_BARE, '"max_age"'),
        ("ORDERS", ("num_replicas",), False): (API_STREAM_BARE, "3,"),
        ("ORDERS", ("placement", "tags", 0), False): (API_STREAM_BARE, '"ssd"'),
        ("ORDERS_DR", ("mirror", "external", "api"), False): (API_DR_BARE, '"$JS.east.API"'),
        ("ORDERS_DR", ("mirror", "external", "api"), True): (API_DR_BARE, '"api"'),
        ("shipper", ("ack_wait",), False): (API_CONSUMER_CREATE, "30000000000"),
        ("shipper", ("max_deliver",), True): (API_CONSUMER_CREATE, '"max_deliver"'),
    }


@pytest.mark.parametrize(
    "spot", list(NATIVE_SPOTS), ids=lambda s: f"{s[0]}.{'.'.join(map(str, s[1]))}{'(key)' if s[2] else ''}"
)
def test_native_positions(spot) -> None:
    name, path, key = spot
    r = by_name(DIALECTS["native"]())[name]
    assert r.locate(path, key=key) == at(NATIVE, NATIVE_SPOTS[spot])


@pytest.mark.parametrize("version", ["v1beta2", "v1beta1"])
@pytest.mark.parametrize(
    "spot", list(NACK_SPOTS), ids=lambda s: f"{s[0]}.{'.'.join(map(str, s[1]))}{'(key)' if s[2] else ''}"
)
def test_nack_positions_follow_renamed_keys(spot, version: str) -> None:
    name, path, key = spot
    text = NACK.format(version=version)
    r = by_name(DIALECTS[f"nack/{version}"]())[name]
    assert r.locate(path, key=key) == at(text, NACK_SPOTS[spot])


@pytest.mark.parametrize(
    "spot", list(_api_spots()), ids=lambda s: f"{s[0]}.{'.'.join(map(str, s[1]))}{'(key)' if s[2] else ''}"
)
def test_api_json_positions(spot) -> None:
    name, path, key = spot
    r = by_name(DIALECTS["api"]())[name]
    text, needle = _api_spots()[spot]
    assert r.locate(path, key=key) == at(text, needle)


def test_stream_info_positions_are_inside_config() -> None:
    r = by_name(load(("orders.json", API_STREAM_INFO)))["ORDERS"]
    assert r.locate(("max_age",)) == at(API_STREAM_INFO, "604800000000000")
    assert r.locate(("placement", "tags", 0)) == at(API_STREAM_INFO, '"ssd"')
    assert r.locate(("metadata", "_nats.ver")) == at(API_STREAM_INFO, '"2.12.1"')


def test_a_field_the_manifest_does_not_write_points_at_its_parent() -> None:
    native = by_name(DIALECTS["native"]())
    assert native["ORDERS"].locate(("max_msgs",)) == at(NATIVE, "description")  # the spec mapping
    assert native["ORDERS_DR"].locate(("mirror", "filter_subject")) == at(NATIVE, "name: ORDERS\n    external")
    nack = by_name(DIALECTS["nack/v1beta2"]())
    assert nack["ORDERS"].locate(("max_msgs",)) == at(NACK, "name: ORDERS")
    # the document itself, for findings about the whole object
    assert native["shipper"].locate(("metadata", "stream"), document_path=True) == at(
        NATIVE, "ORDERS\nspec:\n  ack_policy"
    )


def test_rule_findings_point_at_the_dialects_spelling() -> None:
    """A real rule (JS102, duplicate_window > max_age) reports at NACK's ``duplicateWindow``."""
    rules = [r for r in discover_rules() if r.code == "JS102"]
    assert rules, "JS102 is the reference rule"
    nack = NACK.format(version="v1beta2").replace("maxAge: 168h", "maxAge: 1m")
    estate = load(("orders.yaml", nack))
    findings = lint_estate(estate, rules).findings
    assert [(f.rule, f.line, f.column) for f in findings] == [("JS102", *at(nack, "2m"))]
    api = json.loads(API_STREAM_BARE)
    api["max_age"] = 60 * SEC
    text = json.dumps(api, indent=2)
    findings = lint_estate(load(("orders.json", text)), rules).findings
    assert [(f.rule, f.line, f.column) for f in findings] == [("JS102", *at(text, "120000000000"))]


def test_many_documents_keep_their_own_positions() -> None:
    doc = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{max_age: {i}h}}\n"
    text = "---\n".join(doc.format(i=i) for i in range(1, 201))
    estate = load(("many.yaml", text))
    assert len(estate.resources) == 200
    for i, r in enumerate(estate.resources, start=1):
        assert r.name == f"S{i}" and r.config.max_age == i * 3600 * SEC
        assert r.locate(("max_age",)) == at(text, f"{i}h}}")
        assert r.document == i - 1


# --- NACK as kubectl stores it -----------------------------------------------------------------

KUBECTL_GET = """\
apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"jetstream.nats.io/v1beta2","kind":"Stream","metadata":{"name":"orders"}}
  creationTimestamp: "2026-11-21T12:00:00Z"
  generation: 1
  name: orders
  namespace: default
  resourceVersion: "1234"
  uid: 0b6c2a4e-1111-2222-3333-444455556666
spec:
  allowAtomicPublish: false
  allowDirect: false
  allowMsgCounter: false
  allowMsgSchedules: false
  allowMsgTtl: false
  allowRollup: false
  compression: ""
  creds: ""
  denyDelete: false
  denyPurge: false
  discard: old
  discardPerSubject: false
  firstSequence: 0
  maxAge: ""
  maxBytes: -1
  maxConsumers: -1
  maxMsgSize: -1
  maxMsgs: -1
  maxMsgsPerSubject: 0
  mirrorDirect: false
  name: ORDERS
  nkey: ""
  noAck: false
  persistMode: ""
  preventDelete: false
  preventUpdate: false
  replicas: 1
  retention: limits
  sealed: false
  servers: []
  storage: memory
  subjectDeleteMarkerTtl: ""
  subjects:
  - orders.>
  tlsFirst: false
status:
  conditions:
  - lastTransitionTime: "2026-11-21T12:00:01Z"
    message: Stream successfully created
    reason: Created
    status: "True"
    type: Ready
  observedGeneration: 1
---
apiVersion: jetstream.nats.io/v1beta2
kind: Consumer
metadata:
  name: shipper
  namespace: default
spec:
  ackPolicy: none
  ackWait: 1ns
  creds: ""
  deliverPolicy: byStartSequence
  durableName: shipper
  flowControl: false
  headersOnly: false
  memStorage: false
  nkey: ""
  optStartSeq: 100
  pauseUntil: ""
  pinnedTtl: ""
  preventDelete: false
  preventUpdate: false
  priorityPolicy: ""
  replayPolicy: instant
  servers: []
  streamName: ORDERS
  tlsFirst: false
"""


def test_kubectl_get_output_with_every_crd_default_loads() -> None:
    got = by_name(load(("orders.yaml", KUBECTL_GET)))
    s, c = got["ORDERS"], got["shipper"]
    assert (s.config.storage, s.config.max_age, s.config.compression, s.config.persist_mode) == (
        "memory",
        None,
        None,
        None,
    )
    assert (c.config.deliver_policy, c.config.opt_start_seq, c.config.ack_wait, c.config.pause_until) == (
        "by_start_sequence",
        100,
        1,
        None,
    )
    eff = effective(load(("orders.yaml", KUBECTL_GET)))
    assert eff["ORDERS"].storage == "memory" and eff["ORDERS"].max_age == 0
    assert eff["ORDERS/shipper"].ack_wait == 1 and eff["ORDERS/shipper"].ack_policy == "none"
    assert c.locate(("deliver_policy",)) == at(KUBECTL_GET, "byStartSequence")


@pytest.mark.parametrize(
    ("nack", "api"),
    [
        ("all", "all"),
        ("last", "last"),
        ("new", "new"),
        ("byStartSequence", "by_start_sequence"),
        ("byStartTime", "by_start_time"),
        ("lastPerSubject", "last_per_subject"),
    ],
)
def test_nack_deliver_policy_spelling(nack: str, api: str) -> None:
    extra = (
        "\n  optStartSeq: 5"
        if nack == "byStartSequence"
        else "\n  optStartTime: '2026-01-01T00:00:00Z'"
        if nack == "byStartTime"
        else ""
    )
    text = (
        "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata: {name: s}\nspec: {name: S, storage: file}\n---\n"
        f"apiVersion: jetstream.nats.io/v1beta2\nkind: Consumer\nmetadata: {{name: c}}\nspec:\n  streamName: S\n  durableName: c\n"
        f"  ackPolicy: explicit\n  ackWait: 30s\n  deliverPolicy: {nack}{extra}\n"
    )
    assert by_name(load(("c.yaml", text)))["c"].config.deliver_policy == api

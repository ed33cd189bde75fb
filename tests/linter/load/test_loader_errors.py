"""Every way a manifest can fail to load is a finding with file, line and column (contracts §2).

Nothing here may raise: each case is loaded through the loader and through the CLI, which must
print ``file:line:column: severity CODE message`` and exit 1 (or 0 for warnings only), never a
traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load import Estate, check_estate, load_text

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n"
CONSUMER = "apiVersion: jsops/v1\nkind: Consumer\nmetadata:\n  name: shipper\n  stream: ORDERS\nspec:\n"
NACK_STREAM = "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata:\n  name: orders\nspec:\n  name: ORDERS\n"
NACK_CONSUMER = "apiVersion: jetstream.nats.io/v1beta2\nkind: Consumer\nmetadata:\n  name: shipper\nspec:\n  streamName: ORDERS\n  durableName: shipper\n"


@dataclass
class Case:
    id: str
    text: str
    rule: str
    where: str | tuple[int, int]  # the text the finding points at (first occurrence), or (line, column)
    says: str  # a piece of the message
    file: str = "m.yaml"
    code: int | None = None  # server_error_code
    others: tuple[tuple[str, str], ...] = ()  # more files loaded with it

    def position(self) -> tuple[int, int]:
        if isinstance(self.where, tuple):
            return self.where
        i = self.text.index(self.where)
        return self.text.count("\n", 0, i) + 1, i - (self.text.rfind("\n", 0, i) + 1) + 1


CASES = [
    # --- YAML syntax ------------------------------------------------------------------------
    Case(
        "yaml-unclosed-flow-mapping",
        STREAM.replace("  name: ORDERS\n", "  name: {ORDERS\n"),
        "JS001",
        (5, 5),
        "the mapping '{' that starts at line 4, column 9 is not closed",
    ),
    Case(
        "yaml-bad-indentation", STREAM + "  max_age: 1h\n max_bytes: 1GiB\n", "JS001", (8, 2), "check the indentation"
    ),
    Case("yaml-tab-indentation", STREAM + "\tmax_age: 1h\n", "JS001", (7, 1), "tab character"),
    Case(
        "yaml-unterminated-quote",
        STREAM + '  description: "orders\n',
        "JS001",
        (8, 1),
        "the quoted string that starts at line 7, column 16 is not closed",
    ),
    Case(
        "yaml-colon-in-plain-value",
        STREAM + "  description: orders: placed\n",
        "JS001",
        ": placed",
        "a value that contains ': ' must be quoted",
    ),
    Case("yaml-alias-without-anchor", STREAM + "  max_age: *age\n", "JS001", "*age", "alias *age has no anchor"),
    Case("yaml-control-character", STREAM + '  description: "a\x07b"\n', "JS001", "\x07", "control character U+0007"),
    Case(
        "yaml-merge-of-a-scalar", STREAM + "  <<: [1, 2]\n", "JS001", "<<", "a merge key (<<) must refer to a mapping"
    ),
    Case("yaml-unsupported-version", "%YAML 2.0\n---\n" + STREAM, "JS001", (1, 1), "incompatible YAML document"),
    Case("yaml-bad-escape", STREAM + '  description: "a\\qb"\n', "JS001", "\\q", "unknown escape character"),
    # --- JSON syntax ------------------------------------------------------------------------
    Case(
        "json-trailing-comma",
        '{\n  "name": "ORDERS",\n  "subjects": ["orders.>"],\n}\n',
        "JS001",
        (4, 1),
        "JSON syntax error: Expecting property name",
        file="s.json",
        code=10025,
    ),
    Case(
        "json-missing-comma",
        '{\n  "name": "ORDERS"\n  "subjects": ["orders.>"]\n}\n',
        "JS001",
        (3, 3),
        "JSON syntax error: Expecting ',' delimiter",
        file="s.json",
        code=10025,
    ),
    Case(
        "json-single-quotes",
        "{'name': 'ORDERS', 'subjects': ['a']}",
        "JS001",
        (1, 2),
        "JSON syntax error",
        file="s.json",
        code=10025,
    ),
    Case(
        "json-two-values",
        '{"name": "A", "subjects": ["a"]}\n{"name": "B"}\n',
        "JS001",
        (2, 1),
        "Extra data",
        file="s.json",
        code=10025,
    ),
    # --- apiVersion and kind ----------------------------------------------------------------
    Case("unknown-apiversion", STREAM.replace("jsops/v1", "jsops/v2"), "JS004", "jsops/v2", "did you mean 'jsops/v1'?"),
    Case(
        "unknown-nack-apiversion",
        NACK_STREAM.replace("v1beta2", "v1alpha1"),
        "JS004",
        "jetstream.nats.io/v1alpha1",
        "unknown apiVersion 'jetstream.nats.io/v1alpha1'",
    ),
    Case("missing-apiversion", "kind: Stream\nmetadata: {name: S}\n", "JS004", (1, 1), "missing apiVersion"),
    Case("unknown-kind", STREAM.replace("kind: Stream", "kind: Steam"), "JS004", "Steam", "did you mean 'Stream'?"),
    Case("missing-kind", "apiVersion: jsops/v1\nmetadata: {name: S}\n", "JS004", (1, 1), "missing kind"),
    Case(
        "nack-unsupported-kind",
        NACK_STREAM.replace("kind: Stream", "kind: Bucket"),
        "JS004",
        "Bucket",
        "NACK Stream, Consumer, KeyValue, ObjectStore, StreamTemplate and Account resources, not 'Bucket'",
    ),
    Case(
        "document-is-a-list",
        "- apiVersion: jsops/v1\n  kind: Stream\n",
        "JS004",
        (1, 1),
        "expected a manifest mapping, got a list",
    ),
    Case("document-is-a-list", "- apiVersion: jsops/v1\n  kind: Stream\n", "JS004", (1, 1), "got a list"),
    # --- unknown fields ---------------------------------------------------------------------
    Case(
        "native-unknown-spec-field",
        STREAM + "  max_ag: 1h\n",
        "JS005",
        "max_ag",
        "unknown field 'max_ag' in spec; did you mean 'max_age'?",
    ),
    Case(
        "native-nested-unknown-field",
        STREAM + "  placement: {cluster: east, tagz: [ssd]}\n",
        "JS005",
        "tagz",
        "unknown field 'tagz' in spec.placement; did you mean 'tags'?",
    ),
    Case(
        "native-unknown-metadata-field",
        STREAM.replace("  name: ORDERS", "  name: ORDERS\n  nmespace: prod"),
        "JS005",
        "nmespace",
        "unknown field 'nmespace' in metadata",
    ),
    Case(
        "native-unknown-top-field",
        STREAM + "spek: {}\n",
        "JS005",
        "spek",
        "unknown field 'spek' in the manifest; did you mean 'spec'?",
    ),
    Case("native-camel-case-field", STREAM + "  maxAge: 1h\n", "JS005", "maxAge", "did you mean 'max_age'?"),
    Case(
        "nack-unknown-field",
        NACK_STREAM + "  maxAg: 1h\n",
        "JS005",
        "maxAg",
        "unknown field 'maxAg' in spec (jetstream.nats.io/v1beta2); did you mean 'maxAge'?",
    ),
    Case("nack-snake-case-field", NACK_STREAM + "  max_age: 1h\n", "JS005", "max_age", "did you mean 'maxAge'?"),
    Case(
        "nack-nested-unknown-field",
        NACK_STREAM + "  mirror:\n    name: UP\n    externalApiPrefx: $JS.x.API\n",
        "JS005",
        "externalApiPrefx",
        "unknown field 'externalApiPrefx' in spec.mirror (jetstream.nats.io/v1beta2); did you mean 'externalApiPrefix'?",
    ),
    Case(
        "api-unknown-field",
        '{\n  "name": "ORDERS",\n  "max_agee": 1\n}\n',
        "JS005",
        '"max_agee"',
        "unknown field 'max_agee' in the manifest; did you mean 'max_age'?",
        file="s.json",
        code=10025,
    ),
    Case(
        "api-info-unknown-field",
        '{"config": {"name": "ORDERS", "dupe_window": 1}}',
        "JS005",
        '"dupe_window"',
        "unknown field 'dupe_window' in config",
        file="s.json",
        code=10025,
    ),
    # --- wrong types ------------------------------------------------------------------------
    Case(
        "subjects-not-a-list",
        STREAM.replace("[orders.>]", "orders.>"),
        "JS005",
        "orders.>",
        "spec.subjects must be a list, got the string 'orders.>'",
    ),
    Case(
        "replicas-a-string",
        STREAM + "  num_replicas: '3'\n",
        "JS005",
        "'3'",
        "spec.num_replicas must be an integer, got the string '3'",
    ),
    Case(
        "replicas-a-float", STREAM + "  num_replicas: 1.5\n", "JS005", "1.5", "must be an integer, got the number 1.5"
    ),
    Case("bool-yes", STREAM + "  sealed: yes\n", "JS005", "yes", "write true or false"),
    Case(
        "mirror-a-string",
        STREAM + "  mirror: UP\n",
        "JS005",
        "UP",
        "spec.mirror must be a mapping, got the string 'UP'",
    ),
    Case(
        "sources-a-mapping",
        STREAM + "  sources: {name: UP}\n",
        "JS005",
        "{name",
        "spec.sources must be a list, got a mapping",
    ),
    Case(
        "metadata-value-a-number",
        STREAM + "  metadata: {team: 7}\n",
        "JS005",
        "7}",
        "spec.metadata.team must be a string",
    ),
    Case(
        "subject-a-number",
        STREAM.replace("[orders.>]", "[orders.>, 42]"),
        "JS005",
        "42",
        "spec.subjects[1] must be a string, got the number 42",
    ),
    Case(
        "metadata-not-a-mapping",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: ORDERS\n",
        "JS005",
        "ORDERS",
        "metadata must be a mapping, got the string 'ORDERS'",
    ),
    Case(
        "spec-not-a-mapping",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: [a]\n",
        "JS005",
        "[a]",
        "spec must be a mapping, got a list",
    ),
    Case(
        "name-a-number",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: 5}\n",
        "JS005",
        "5}",
        "metadata.name must be a non-empty string, got the number 5",
    ),
    Case(
        "missing-name",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {context: prod}\n",
        "JS005",
        "{context",
        "missing required field metadata.name",
    ),
    Case(
        "annotation-not-a-string",
        STREAM.replace("  name: ORDERS", "  name: ORDERS\n  annotations: {jsops.io/protect: true}"),
        "JS005",
        "true}",
        "metadata.annotations.jsops.io/protect must be a string (quote it), got a boolean",
    ),
    Case(
        "time-without-zone",
        CONSUMER + "  deliver_policy: by_start_time\n  opt_start_time: 2026-01-02T03:04:05\n",
        "JS005",
        "2026-01-02T03:04:05",
        "has no time zone",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "time-not-a-time",
        CONSUMER + "  pause_until: tomorrow\n",
        "JS005",
        "tomorrow",
        "is not an RFC 3339 time",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "api-stream-without-name",
        '{"config": {"subjects": ["a"]}}',
        "JS005",
        (1, 12),
        "stream config has no name",
        file="s.json",
    ),
    Case(
        "api-consumer-without-name",
        '{"stream_name": "S", "config": {"ack_policy": "explicit"}}',
        "JS005",
        (1, 32),
        "consumer config has neither durable_name nor name",
        file="c.json",
    ),
    Case(
        "api-stream-name-not-a-string",
        '{"stream_name": 7, "config": {"durable_name": "c", "ack_policy": "explicit"}}',
        "JS005",
        "7",
        "stream_name must be a non-empty string, got the number 7",
        file="c.json",
        code=10025,
    ),
    # --- durations and sizes ------------------------------------------------------------------
    Case(
        "duration-with-words",
        STREAM + "  max_age: 1 hour\n",
        "JS005",
        "1 hour",
        "spec.max_age: invalid duration '1 hour'",
    ),
    Case("duration-missing-unit", STREAM + "  max_age: 1h30\n", "JS005", "1h30", "invalid duration '1h30'"),
    Case("duration-quoted-number", STREAM + "  max_age: '3600'\n", "JS005", "'3600'", "has no unit"),
    Case(
        "duration-overflow", STREAM + "  max_age: 999999999h\n", "JS005", "999999999h", "overflows 64-bit nanoseconds"
    ),
    Case("duration-list", STREAM + "  duplicate_window: [2m]\n", "JS005", "[2m]", "got a list"),
    Case(
        "backoff-item",
        CONSUMER + "  backoff: [1s, 5x]\n",
        "JS005",
        "5x",
        "spec.backoff[1]: invalid duration '5x'",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-duration", NACK_STREAM + "  maxAge: a week\n", "JS005", "a week", "spec.maxAge: invalid duration 'a week'"
    ),
    Case(
        "nack-empty-string-is-unset", NACK_STREAM + "  maxAge: ''\n  maxBytes: soon\n", "JS030", "soon", "spec.maxBytes"
    ),
    Case(
        "nack-nested-duration",
        NACK_STREAM + "  consumerLimits:\n    inactiveThreshold: soon\n",
        "JS005",
        "soon",
        "spec.consumerLimits.inactiveThreshold: invalid duration 'soon'",
    ),
    Case(
        "size-with-words",
        STREAM + "  max_bytes: 10 gigs\n",
        "JS005",
        "10 gigs",
        "spec.max_bytes: invalid size '10 gigs'",
    ),
    Case("size-unknown-unit", STREAM + "  max_msg_size: 1PB\n", "JS005", "1PB", "invalid size '1PB'"),
    Case("size-fraction", STREAM + "  max_bytes: 1.5GB\n", "JS005", "1.5GB", "invalid size '1.5GB'"),
    Case(
        "api-duration-as-a-word",
        '{"name": "S", "max_age": "forever"}',
        "JS005",
        '"forever"',
        "max_age: the NATS API takes durations in integer nanoseconds, got the string 'forever'",
        file="s.json",
        code=10025,
    ),
    Case(
        "api-duration-with-unit",
        '{"config": {"name": "S", "duplicate_window": "2m"}}',
        "JS005",
        '"2m"',
        "config.duplicate_window: the NATS API takes durations in integer nanoseconds, got the string '2m'; write 120000000000",
        file="s.json",
        code=10025,
    ),
    Case(
        "api-size-with-unit",
        '{"name": "S", "max_bytes": "10GiB"}',
        "JS005",
        '"10GiB"',
        "max_bytes: the NATS API takes sizes in integer bytes, got the string '10GiB'; write 10737418240",
        file="s.json",
        code=10025,
    ),
    Case(
        "api-backoff-item-with-unit",
        '{"stream_name": "S", "config": {"durable_name": "c", "backoff": [1000000000, "5s"]}}',
        "JS005",
        '"5s"',
        "config.backoff[1]: the NATS API takes durations in integer nanoseconds",
        file="c.json",
        code=10025,
        others=(("s.json", '{"name": "S"}'),),
    ),
    # --- what NACK itself accepts ----------------------------------------------------------
    Case(
        "nack-duration-in-days",
        NACK_STREAM + "  maxAge: 7d\n",
        "JS005",
        "7d",
        "spec.maxAge: NACK reads durations with Go's time.ParseDuration, which has no d or w unit; write '168h'",
    ),
    Case(
        "nack-duration-in-weeks",
        NACK_CONSUMER + "  ackWait: 1w\n",
        "JS005",
        "1w",
        "write '168h'",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-backoff-in-days",
        NACK_CONSUMER + "  backoff: [1m, 1d]\n",
        "JS005",
        "1d",
        "spec.backoff[1]: NACK reads durations",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-nested-duration-in-days",
        NACK_STREAM + "  consumerLimits:\n    inactiveThreshold: 2d\n",
        "JS005",
        "2d",
        "spec.consumerLimits.inactiveThreshold: NACK reads durations with Go's time.ParseDuration, which has no d or w unit; write '48h'",
    ),
    Case(
        "nack-duration-as-integer",
        NACK_STREAM + "  duplicateWindow: 120000000000\n",
        "JS030",
        "120000000000",
        "kube-apiserver would refuse this: spec.duplicateWindow must be of type string, got the number 120000000000 (NACK v0.22.4's CRD); "
        "NACK durations are Go duration strings: write '2m'",
    ),
    Case(
        "nack-size-with-unit",
        NACK_STREAM + "  maxBytes: 10GiB\n",
        "JS030",
        "10GiB",
        "kube-apiserver would refuse this: spec.maxBytes must be of type integer, got the string '10GiB' (NACK v0.22.4's CRD); "
        "NACK sizes are integer numbers of bytes: write 10737418240",
    ),
    Case(
        "nack-snake-case-enum",
        NACK_CONSUMER + "  deliverPolicy: by_start_sequence\n  optStartSeq: 1\n",
        "JS030",
        "by_start_sequence",
        "spec.deliverPolicy: 'by_start_sequence' is not one of all, last, new, byStartSequence, byStartTime, lastPerSubject; did you mean 'byStartSequence'?",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-enum-typo",
        NACK_CONSUMER + "  deliverPolicy: lastPerSubjct\n",
        "JS030",
        "lastPerSubjct",
        "did you mean 'lastPerSubject'?",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-flow-control-ack",
        NACK_CONSUMER + "  ackPolicy: flow_control\n",
        "JS030",
        "flow_control",
        "spec.ackPolicy: 'flow_control' is not one of none, all, explicit",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-storage-enum",
        NACK_STREAM + "  storage: disk\n",
        "JS030",
        "disk",
        "kube-apiserver would refuse this: spec.storage: 'disk' is not one of file, memory",
    ),
    # --- enums ------------------------------------------------------------------------------
    Case(
        "retention-typo",
        STREAM + "  retention: work_queue\n",
        "JS005",
        "work_queue",
        "spec.retention: 'work_queue' is not one of limits, interest, workqueue; did you mean 'workqueue'?",
    ),
    Case(
        "storage-unknown",
        STREAM + "  storage: disk\n",
        "JS005",
        "disk",
        "spec.storage: 'disk' is not one of file, memory",
    ),
    Case("enum-wrong-case", STREAM + "  discard: Old\n", "JS005", "Old", "did you mean 'old'?"),
    Case(
        "enum-a-number",
        STREAM + "  retention: 1\n",
        "JS005",
        (7, 14),
        "spec.retention: the number 1 is not one of limits",
    ),
    Case(
        "ack-policy-typo",
        CONSUMER + "  ack_policy: explict\n",
        "JS005",
        "explict",
        "did you mean 'explicit'?",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "nack-ack-policy",
        NACK_CONSUMER + "  ackPolicy: manual\n",
        "JS030",
        "manual",
        "spec.ackPolicy: 'manual' is not one of none, all, explicit",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "deliver-policy-abbreviated",
        CONSUMER + "  deliver_policy: by_start_seq\n",
        "JS005",
        "by_start_seq",
        "did you mean 'by_start_sequence'?",
        others=(("s.yaml", STREAM),),
    ),
    # --- duplicate keys ---------------------------------------------------------------------
    Case(
        "duplicate-key",
        STREAM + "  max_age: 1h\n  max_age: 2h\n",
        "JS003",
        "max_age: 2h",
        "duplicate key 'max_age': already set on line 7; write each key once",
    ),
    Case(
        "duplicate-metadata-key",
        STREAM.replace("  name: ORDERS", "  name: ORDERS\n  name: ORDERS2"),
        "JS003",
        "name: ORDERS2",
        "duplicate key 'name'",
    ),
    Case(
        "json-duplicate-key",
        '{\n  "name": "S",\n  "max_age": 1,\n  "max_age": 2\n}\n',
        "JS023",
        '"max_age": 2',
        "duplicate key 'max_age': already set on line 3; nats-server (Go's JSON decoder) keeps the last value",
        file="s.json",
    ),
    # --- names --------------------------------------------------------------------------------
    Case(
        "spec-name-mismatch",
        STREAM + "  name: ORDRES\n",
        "JS009",
        "ORDRES",
        "spec.name 'ORDRES' differs from metadata.name 'ORDERS'",
    ),
    Case(
        "consumer-durable-mismatch",
        CONSUMER + "  durable_name: shiper\n",
        "JS009",
        "shiper",
        "differs from metadata.name 'shipper'",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "stream-with-metadata-stream",
        STREAM.replace("  name: ORDERS", "  name: ORDERS\n  stream: X"),
        "JS005",
        "stream: X",
        "metadata.stream is only for consumers",
    ),
    Case(
        "consumer-without-stream",
        CONSUMER.replace("  stream: ORDERS\n", ""),
        "JS005",
        "name: shipper",
        "missing required field metadata.stream",
    ),
    Case(
        "absurdly-long-name",
        STREAM.replace("name: ORDERS", "name: " + "N" * 5000),
        "JS005",
        "NNNN",
        "metadata.name is 5000 characters long",
    ),
    # --- consumers and their streams ----------------------------------------------------------
    Case(
        "native-consumer-stream-missing",
        CONSUMER + "  ack_wait: 30s\n",
        "JS006",
        "ORDERS\nspec",
        "consumer 'shipper' belongs to stream 'ORDERS', which no manifest declares",
        code=10059,
    ),
    Case(
        "native-consumer-stream-in-other-context",
        CONSUMER.replace("  stream: ORDERS", "  stream: ORDERS\n  context: prod"),
        "JS006",
        "ORDERS\n  context",
        "which no manifest declares in context 'prod'",
        code=10059,
        others=(("s.yaml", STREAM),),
    ),
    Case("nack-consumer-stream-missing", NACK_CONSUMER, "JS006", "ORDERS", "belongs to stream 'ORDERS'", code=10059),
    Case(
        "api-consumer-stream-missing",
        '{"stream_name": "ORDERS", "config": {"durable_name": "c", "ack_policy": "explicit"}}',
        "JS006",
        '"ORDERS"',
        "consumer 'c' belongs to stream 'ORDERS'",
        file="c.json",
        code=10059,
    ),
    # a bare consumer config whose stream is unknown loads (Estate.bare); its JS024 comes from lint,
    # naming the checks skipped: tests/linter/load/test_bare_consumers.py
    # --- empty documents --------------------------------------------------------------------
    Case("empty-file", "", "JS008", (1, 1), "file holds no manifests"),
    Case("comments-only", "# nothing here yet\n", "JS008", (1, 1), "file holds no manifests"),
    Case("null-document", "null\n", "JS008", (1, 1), "empty document (null)"),
    Case(
        "empty-middle-document",
        STREAM + "---\n---\n" + STREAM.replace("ORDERS", "OTHER").replace("orders", "other"),
        "JS008",
        (7, 1),
        "empty document",
    ),
    Case("tilde-document", STREAM + "--- ~\n", "JS008", (7, 1), "empty document"),
    Case("empty-json-file", "  \n", "JS008", (1, 1), "file holds no manifests", file="e.json"),
    Case("json-null", "null", "JS008", (1, 1), "empty document (null)", file="e.json"),
    # --- duplicate objects ------------------------------------------------------------------
    Case(
        "duplicate-stream-same-file",
        STREAM + "---\n" + STREAM,
        "JS007",
        (11, 9),
        "Stream ORDERS is declared twice; the first declaration is at m.yaml:4",
    ),
    Case(
        "duplicate-stream-across-dialects",
        NACK_STREAM,
        "JS007",
        "ORDERS",
        "Stream ORDERS is declared twice; the first declaration is at a.yaml:4",
        others=(("a.yaml", STREAM),),
    ),
    Case(
        "duplicate-consumer",
        CONSUMER + "---\n" + CONSUMER,
        "JS007",
        (11, 9),
        "Consumer ORDERS/shipper is declared twice",
        others=(("s.yaml", STREAM),),
    ),
    Case(
        "duplicate-stream-in-context",
        STREAM.replace("  name: ORDERS", "  name: ORDERS\n  context: prod") * 1
        + "---\n"
        + STREAM.replace("  name: ORDERS", "  name: ORDERS\n  context: prod"),
        "JS007",
        (12, 9),
        "in context 'prod' is declared twice",
    ),
]


def _load(case: Case) -> Estate:
    estate = Estate()
    for name, text in case.others:
        load_text(text.encode(), name, estate)
    load_text(case.text.encode(), case.file, estate)
    check_estate(estate)
    return estate


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_load_failure_is_a_finding_with_a_position(case: Case) -> None:
    estate = _load(case)
    mine = [f for f in estate.findings if f.file == case.file]
    assert mine, "no finding"
    first = mine[0]
    summary = [(f.rule, f.line, f.column, f.message) for f in mine]
    assert (first.rule, (first.line, first.column)) == (case.rule, case.position()), summary
    assert case.says in first.message, summary
    assert first.server_error_code == case.code
    assert all(f.line >= 1 and f.column >= 1 for f in estate.findings)
    assert all(len(f.message) < 400 for f in estate.findings)
    assert not any(f.file != case.file for f in estate.findings), "the other files are clean"


def test_a_broken_object_is_not_loaded_but_its_neighbours_are() -> None:
    text = (
        STREAM + "---\n" + STREAM.replace("ORDERS", "BAD") + "  max_age: soon\n---\n" + STREAM.replace("ORDERS", "GOOD")
    )
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    assert [r.name for r in estate.resources] == ["ORDERS", "GOOD"]
    assert [(f.rule, f.line) for f in estate.findings] == [("JS005", 14)]


def test_a_consumer_of_an_invalid_stream_is_not_also_reported_missing() -> None:
    estate = Estate()
    load_text((STREAM + "  max_age: soon\n---\n" + CONSUMER).encode(), "m.yaml", estate)
    check_estate(estate)
    assert [f.rule for f in estate.findings] == ["JS005"]


def test_a_syntax_error_keeps_the_documents_before_it() -> None:
    text = STREAM + "---\n" + STREAM.replace("ORDERS", "LATER") + "  max_age: [1h\n"
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    assert [r.name for r in estate.resources] == ["ORDERS"]
    assert [f.rule for f in estate.findings] == ["JS001"]


def test_one_finding_per_problem_in_one_object() -> None:
    text = STREAM + "  max_age: soon\n  max_bytes: lots\n  retention: forever\n  replicas: 3\n"
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    got = sorted((f.line, f.rule, f.message.split(":")[0]) for f in estate.findings)
    assert got == [
        (7, "JS005", "spec.max_age"),
        (8, "JS005", "spec.max_bytes"),
        (9, "JS005", "spec.retention"),
        (10, "JS005", "unknown field 'replicas' in spec; did you mean 'num_replicas'?"),
    ]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli_reports_the_failure_and_exits_nonzero(case: Case, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, text in case.others:
        (tmp_path / name).write_bytes(text.encode())
    (tmp_path / case.file).write_bytes(case.text.encode())
    rc = main(["lint", "."])
    out, err = capsys.readouterr()
    line, col = case.position()
    severity = "warning" if case.rule in ("JS008", "JS023", "JS024") else "error"
    assert f"{case.file}:{line}:{col}: {severity} {case.rule} " in out, out
    assert "Traceback" not in out + err
    assert err == ""
    if case.rule == "JS023":  # the object loads (last value wins), and its own rules may still find something
        return
    assert rc == (0 if severity == "warning" else 1)
    if severity == "warning":
        assert main(["lint", ".", "--fail-on", "warning"]) == 1
        capsys.readouterr()


def test_harmless_yaml_is_not_a_finding() -> None:
    """Trailing separators and comments, document end markers, merge keys, a BOM, CRLF."""
    texts = [
        STREAM + "---\n",
        STREAM + "---\n# more streams later\n\n",
        STREAM + "...\n",
        "# leading comment\n---\n" + STREAM,
        "\ufeff" + STREAM,
        STREAM.replace("\n", "\r\n"),
        STREAM + "  <<: {max_age: 1h, storage: file}\n",
    ]
    for text in texts:
        estate = Estate()
        load_text(text.encode(), "m.yaml", estate)
        assert estate.findings == [], (text, estate.findings)
        assert [r.name for r in estate.resources] == ["ORDERS"]


def test_merge_keys_resolve_with_positions() -> None:
    text = (
        STREAM.replace("spec:\n", "spec:\n  <<: &base {max_age: 1h, storage: file, num_replicas: 3}\n")
        + "  num_replicas: 1\n"
    )
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    assert estate.findings == []
    (r,) = estate.resources
    assert (r.config.max_age, r.config.storage, r.config.num_replicas) == (3_600_000_000_000, "file", 1)
    assert r.locate(("max_age",)) == (6, 23)  # inside the merged mapping
    assert r.locate(("num_replicas",)) == (8, 17)  # the explicit key wins

"""The chart's monitoring pack and scheduling values (docs/kubernetes.md#monitoring): each switch
renders objects that validate (Kubernetes kinds with kubernetes-validate, strict; the
prometheus-operator kinds against :mod:`tests.deploy.prometheus_operator`), off by default where the
CRDs may be missing; the PrometheusRule carries the one rules file; a config change changes the pod
template (so the pods roll) and nothing else does."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import jsonschema
import pytest
import yaml

from .helm_render import TemplateError, _chart_file, render, render_chart
from .prometheus_operator import validate_crd
from .test_kubernetes import CHART, DEPLOY, by_kind, rendered, validate

RULES = DEPLOY / "prometheus" / "jsops-controller.rules.yaml"
CHART_RULES = CHART / "files" / "jsops-controller.rules.yaml"
DASHBOARD = CHART / "files" / "jsops-controller-dashboard.json"
ON = {
    "serviceMonitor": {"enabled": True, "labels": {"release": "kube-prometheus-stack"}},
    "prometheusRule": {"enabled": True, "labels": {"role": "alert-rules"}},
    "dashboard": {"enabled": True, "annotations": {"grafana_folder": "NATS"}},
    "nats": {
        "createSecret": True,
        "files": {"nats.creds": "-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n"},
    },
    "imagePullSecrets": [{"name": "regcred"}],
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "platform", "effect": "NoSchedule"}],
    "affinity": {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "topologyKey": "kubernetes.io/hostname",
                        "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "jsops-controller"}},
                    },
                }
            ]
        }
    },
}
CRDS = {"ServiceMonitor", "PrometheusRule"}


def check(objects: list[dict[str, Any]]) -> None:
    """Every object validates: the Kubernetes kinds against the Kubernetes schemas, the CRD kinds against theirs."""
    validate([o for o in objects if o["kind"] not in CRDS])
    for o in objects:
        if o["kind"] in CRDS:
            validate_crd(o)


def kinds(objects: list[dict[str, Any]]) -> list[str]:
    return sorted(o["kind"] for o in objects)


def test_defaults_render_no_crd_kind_and_a_pdb() -> None:
    """prometheus-operator's kinds, the dashboard and the NATS Secret are off by default (the chart
    installs where those CRDs do not exist); the PodDisruptionBudget is on."""
    objects = rendered()
    assert kinds(objects) == [
        "ConfigMap",
        "Deployment",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "Service",
        "ServiceAccount",
    ]
    pdb = by_kind(objects, "PodDisruptionBudget")
    pod = by_kind(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": pod}}
    off = rendered({"podDisruptionBudget": {"enabled": False}})
    validate(off)
    assert "PodDisruptionBudget" not in kinds(off)


@pytest.mark.parametrize("switch", sorted(ON))
def test_each_switch_validates(switch: str) -> None:
    objects = rendered({switch: ON[switch]}, release="ops", namespace="nats-system")
    check(objects)
    assert {o["metadata"]["namespace"] for o in objects} == {"nats-system"}


def test_every_switch_at_once() -> None:
    objects = rendered(ON, release="ops", namespace="nats-system")
    check(objects)
    assert kinds(objects) == sorted(
        [
            "ConfigMap",
            "ConfigMap",
            "Deployment",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "PrometheusRule",
            "Secret",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
        ]
    )
    pod = by_kind(objects, "Deployment")["spec"]["template"]["spec"]
    for key in ("imagePullSecrets", "nodeSelector", "tolerations", "affinity"):
        assert pod[key] == ON[key], key
    assert not {"imagePullSecrets", "nodeSelector", "tolerations", "affinity"} & set(
        by_kind(rendered(), "Deployment")["spec"]["template"]["spec"]
    )


def test_service_monitor_scrapes_the_service() -> None:
    """The ServiceMonitor selects this release's Service in its namespace, by the Service's port
    name, at /metrics; Prometheus needs the scrape timeout within the interval."""
    objects = rendered({"serviceMonitor": ON["serviceMonitor"]}, release="ops", namespace="nats-system")
    monitor, service = by_kind(objects, "ServiceMonitor"), by_kind(objects, "Service")
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert monitor["spec"]["selector"] == {"matchLabels": service["metadata"]["labels"]}
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [service["metadata"]["namespace"]]}
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]} and endpoint["path"] == "/metrics"
    seconds = {"s": 1, "m": 60}
    assert (
        int(endpoint["scrapeTimeout"][:-1]) * seconds[endpoint["scrapeTimeout"][-1]]
        <= int(endpoint["interval"][:-1]) * seconds[endpoint["interval"][-1]]
    )


def test_crd_schemas_catch_mistakes() -> None:
    """The hand-written CRD schemas refuse a misspelt field, a bad duration and a rule without a name
    (the validation above could not pass vacuously)."""
    objects = rendered({"serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True}})
    monitor, rule = by_kind(objects, "ServiceMonitor"), by_kind(objects, "PrometheusRule")
    validate_crd(monitor)
    validate_crd(rule)
    bad = json.loads(json.dumps(monitor).replace('"scrapeTimeout"', '"scrape_timeout"'))
    with pytest.raises(jsonschema.ValidationError):
        validate_crd(bad)
    bad = json.loads(json.dumps(monitor).replace('"30s"', '"30 seconds"'))
    with pytest.raises(jsonschema.ValidationError):
        validate_crd(bad)
    bad = json.loads(json.dumps(rule))
    del bad["spec"]["groups"][0]["rules"][0]["alert"]
    with pytest.raises(jsonschema.ValidationError):
        validate_crd(bad)


def test_prometheus_rule_is_the_rules_file() -> None:
    """One home: the chart's file is the plain rules file byte for byte, and the PrometheusRule's
    spec is that file (Prometheus templates such as {{ $labels.context }} reach it unrendered)."""
    assert RULES.read_text() == CHART_RULES.read_text(), f"cp {CHART_RULES} {RULES}"
    rule = by_kind(rendered({"prometheusRule": ON["prometheusRule"]}), "PrometheusRule")
    assert rule["spec"] == yaml.safe_load(RULES.read_text())
    assert rule["metadata"]["labels"]["role"] == "alert-rules"
    assert "{{ $labels.context }}" in json.dumps(rule["spec"])


def test_dashboard_config_map() -> None:
    objects = rendered({"dashboard": ON["dashboard"]})
    check(objects)
    (board,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].endswith("-dashboard")]
    assert board["metadata"]["labels"]["grafana_dashboard"] == "1"  # the Grafana chart's sidecar default
    assert board["metadata"]["annotations"] == {"grafana_folder": "NATS"}
    assert json.loads(board["data"]["jsops-controller.json"]) == json.loads(DASHBOARD.read_text())


def test_nats_secret_holds_the_files_the_deployment_mounts() -> None:
    objects = rendered({"nats": {**ON["nats"], "secretName": "nats-creds"}})
    check(objects)
    secret = by_kind(objects, "Secret")
    assert secret["metadata"]["name"] == "nats-creds" and secret["stringData"] == ON["nats"]["files"]
    volumes = {v["name"]: v for v in by_kind(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]}
    assert volumes["nats-credentials"]["secret"]["secretName"] == "nats-creds"


def _checksum(values: dict[str, Any] | None = None) -> str:
    annotation: str = by_kind(rendered(values), "Deployment")["spec"]["template"]["metadata"]["annotations"][
        "checksum/config"
    ]
    return annotation


def test_config_change_rolls_the_pods() -> None:
    """The pod template's checksum/config is the sha256 of the config as the ConfigMap holds it: a
    changed `config:` changes the pod template (a rollout), a change elsewhere does not."""
    objects = rendered()
    data = by_kind(objects, "ConfigMap")["data"]["jsops.yaml"]
    assert _checksum() == hashlib.sha256(data.rstrip("\n").encode()).hexdigest()
    changed = {"config": {"contexts": {"default": {"server": "nats://nats.other.svc:4222"}}}}
    assert _checksum(changed) != _checksum()
    assert _checksum({"replicas": 3, "interval": "1m", "serviceMonitor": {"enabled": True}}) == _checksum()


def test_renderer_files_get_and_sha256sum() -> None:
    """``.Files.Get`` reads a file of the chart as it is; a template, a path outside the chart or a
    missing file is an error (Helm would give ""). ``sha256sum`` is the hex digest."""
    assert (
        render_chart(CHART, "r", "n", {"prometheusRule": {"enabled": True}})["prometheusrule.yaml"].count("{{ $labels.")
        > 3
    )
    files = {"Files": {"Get": lambda name: _chart_file(CHART, name)}}
    for name in ("templates/deployment.yaml", "../../prometheus/jsops-controller.rules.yaml", "files/nope.yaml"):
        with pytest.raises(TemplateError):
            render(f'{{{{ .Files.Get "{name}" }}}}', files)
    assert render("{{ .x | sha256sum }}", {"x": "abc"}) == hashlib.sha256(b"abc").hexdigest()

"""The controller on Kubernetes (docs/deploy/, docs/kubernetes.md): every plain manifest and the
rendered Helm chart validate offline against the Kubernetes schemas (``kubernetes-validate``,
strict: unknown fields are errors), the chart with its defaults renders exactly the plain
manifests, and the image's configuration (Containerfile) agrees with the Deployment.

The chart is rendered by :mod:`tests.deploy.helm_render` (no ``helm`` binary here)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from .helm_render import TemplateError, render, render_chart

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "docs" / "deploy"
PLAIN = DEPLOY / "kubernetes"
CHART = DEPLOY / "helm" / "jsops-controller"
# the oldest release still served by the schemas and the newest
KUBERNETES = ("1.28.0", "1.37.0")


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def plain() -> list[dict[str, Any]]:
    return [d for f in sorted(PLAIN.glob("*.yaml")) for d in docs(f.read_text())]


def rendered(
    values: dict[str, Any] | None = None, release: str = "jsops-controller", namespace: str = "jsops"
) -> list[dict[str, Any]]:
    return [d for text in render_chart(CHART, release, namespace, values).values() for d in docs(text)]


def validate(objects: list[dict[str, Any]]) -> None:
    assert objects
    for obj in objects:
        for version in KUBERNETES:
            kubernetes_validate.validate(obj, version, strict=True)  # raises ValidationError


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (one,) = [o for o in objects if o["kind"] == kind]
    return one


def container(objects: list[dict[str, Any]]) -> dict[str, Any]:
    (c,) = by_kind(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    return c


def test_plain_manifests_validate() -> None:
    objects = plain() + docs((DEPLOY / "secrets.example.yaml").read_text())
    assert {o["kind"] for o in objects} == {
        "ServiceAccount",
        "ConfigMap",
        "Service",
        "Deployment",
        "Secret",
        "NetworkPolicy",
        "PodDisruptionBudget",
    }
    validate(objects)


def test_validation_catches_mistakes() -> None:
    """The validator is strict: a misspelt field and a wrong type are refused (the test above could not pass vacuously)."""
    deployment = by_kind(plain(), "Deployment")
    bad = yaml.safe_load(yaml.safe_dump(deployment).replace("readOnlyRootFilesystem", "readOnlyRootFileSystem"))
    with pytest.raises(kubernetes_validate.ValidationError):
        validate([bad])
    bad = yaml.safe_load(yaml.safe_dump(deployment))
    bad["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        validate([bad])


def without_checksum(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects with the Deployment's pod template annotation ``checksum/config`` taken out (the
    chart's alone: the plain manifests have no templating; test_monitoring checks its value)."""
    out = yaml.safe_load(yaml.safe_dump(objects))
    template = by_kind(out, "Deployment")["spec"]["template"]["metadata"]
    assert set(template.pop("annotations")) == {"checksum/config"}
    return list(out)


def test_chart_defaults_render_the_plain_manifests() -> None:
    objects = rendered()
    validate(objects)
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    assert sorted(without_checksum(objects), key=key) == sorted(plain(), key=key)


def test_chart_variants_validate() -> None:
    token = rendered(
        {
            "git": {"auth": "token", "username": "oauth2", "repo": "https://git.example.com/p/j.git"},
            "extraArgs": ["--dry-run"],
            "replicas": 1,
        },
        release="ops",
        namespace="nats-system",
    )
    validate(token)
    c = container(token)
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env == {
        "JSOPS_CONTROLLER_LISTEN": "0.0.0.0:9464",
        "JSOPS_GIT_TOKEN_FILE": "/var/run/secrets/jsops/git/token",
        "JSOPS_GIT_USERNAME": "oauth2",
    }
    assert c["args"][-1] == "--dry-run" and c["args"][2] == "https://git.example.com/p/j.git"
    assert {o["metadata"]["namespace"] for o in token} == {"nats-system"}
    public = rendered({"git": {"auth": "none"}})
    validate(public)
    spec = by_kind(public, "Deployment")["spec"]["template"]["spec"]
    assert "git-credentials" not in {v["name"] for v in spec["volumes"]}
    assert not any(e["name"].startswith("JSOPS_GIT_") for e in container(public)["env"])


def _ingress(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    policy = by_kind(objects, "NetworkPolicy")
    pod = by_kind(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"] == {"matchLabels": pod} and policy["spec"]["policyTypes"] == ["Ingress"]
    rules: list[dict[str, Any]] = policy["spec"]["ingress"]
    return rules


def test_network_policy_admits_the_metrics_and_probe_port_only() -> None:
    """On by default (plain manifests and chart): one ingress rule, to the container's one port
    (/metrics, /healthz, /readyz) over TCP; ``networkPolicy.from`` narrows its sources, and
    ``networkPolicy.enabled: false`` renders none."""
    for objects in (plain(), rendered()):
        (rule,) = _ingress(objects)
        assert rule == {
            "ports": [{"port": container(objects)["ports"][0]["containerPort"], "protocol": "TCP"}]
        }  # no `from`: any source
    monitoring = [
        {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
            "podSelector": {"matchLabels": {"app": "prometheus"}},
        }
    ]
    narrowed = rendered(
        {"networkPolicy": {"from": monitoring}, "service": {"port": 9100}}, release="ops", namespace="nats-system"
    )
    validate(narrowed)
    (rule,) = _ingress(narrowed)
    assert rule == {"ports": [{"port": 9100, "protocol": "TCP"}], "from": monitoring}
    assert container(narrowed)["ports"][0]["containerPort"] == 9100
    off = rendered({"networkPolicy": {"enabled": False}})
    validate(off)
    assert "NetworkPolicy" not in {o["kind"] for o in off}


def test_empty_dirs_have_size_limits() -> None:
    """The clone's emptyDir (/work) is bounded like /tmp: a runaway repository gets the pod
    evicted instead of filling the node's disk."""
    for objects in (plain(), rendered()):
        volumes = {v["name"]: v for v in by_kind(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]}
        assert volumes["work"]["emptyDir"] == {"sizeLimit": "1Gi"} and volumes["tmp"]["emptyDir"] == {
            "sizeLimit": "256Mi"
        }
    bigger = rendered({"workSizeLimit": "4Gi"})
    validate(bigger)
    volumes = {v["name"]: v for v in by_kind(bigger, "Deployment")["spec"]["template"]["spec"]["volumes"]}
    assert volumes["work"]["emptyDir"] == {"sizeLimit": "4Gi"}


def test_renderer_refuses_what_it_does_not_know() -> None:
    with pytest.raises(TemplateError):
        render('{{ include "x" . }}', {})
    with pytest.raises(TemplateError):
        render("{{ .Values.missing }}", {"Values": {}})
    assert render('a\n  {{- if eq .x "y" }}\n  b{{ else }}c{{ end -}}\n  d', {"x": "y"}) == "a\n  bd"


def _containerfile() -> tuple[dict[str, str], list[str], str]:
    text = (DEPLOY / "Containerfile").read_text().replace("\\\n", " ")
    final = text.split("\nFROM ")[-1]  # the last stage is the image
    env: dict[str, str] = {}
    for line in final.splitlines():
        if line.startswith("ENV "):
            env.update(re.findall(r"(\w+)=(\S+)", line))
    (entry,) = re.findall(r"^ENTRYPOINT (\[.*\])$", final, re.M)
    (user,) = re.findall(r"^USER (\S+)$", final, re.M)
    return env, yaml.safe_load(entry), user


def test_image_configuration_agrees_with_the_deployment() -> None:
    env, entrypoint, user = _containerfile()
    assert entrypoint == ["jsops"]
    uid, _, gid = user.partition(":")
    assert int(uid) > 0 and int(gid) > 0  # non-root, numeric (runAsNonRoot can check it)
    assert env["JSOPS_CONTROLLER_LISTEN"] == "0.0.0.0:9464"
    deployment = by_kind(plain(), "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    c = container(plain())
    assert pod["securityContext"]["runAsUser"] == int(uid) and c["securityContext"]["readOnlyRootFilesystem"] is True
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    # every place the image writes to is a mounted emptyDir under a read-only root filesystem
    assert env["XDG_CACHE_HOME"].startswith("/tmp/") and "/tmp" in mounts and env["JSOPS_GIT_WORKDIR"] in mounts
    assert c["args"][c["args"].index("--workdir") + 1] == env["JSOPS_GIT_WORKDIR"]
    port = int(env["JSOPS_CONTROLLER_LISTEN"].rsplit(":", 1)[1])
    assert [p["containerPort"] for p in c["ports"]] == [port]
    assert {c["livenessProbe"]["httpGet"]["path"], c["readinessProbe"]["httpGet"]["path"]} == {"/healthz", "/readyz"}
    files = {f"/etc/jsops/{k}" for k in by_kind(plain(), "ConfigMap")["data"]}
    assert c["args"][c["args"].index("--config") + 1] in files


def test_versions_agree() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## (\d+\.\d+\.\d+)$", changelog, re.M)[0]
    assert chart["appVersion"] == values["image"]["tag"] == released
    assert container(plain())["image"].endswith(f":{released}")

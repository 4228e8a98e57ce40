"""The rendered Kubernetes manifests (deploy/): security, ports, probes, policies."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from services.ports import DEFAULT_PORTS
from tests.deploy.manifests import overlays, render, validate

SERVED = ("dealer", "betting", "showdown")
README = Path(__file__).resolve().parents[2] / "README.md"

Objects = list[dict[str, Any]]


@pytest.fixture(scope="module", params=[p.name for p in overlays()])
def rendered(request: pytest.FixtureRequest) -> Objects:
    return render(next(p for p in overlays() if p.name == request.param))


def of_kind(objects: Objects, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def readme_ports() -> dict[str, tuple[int, int]]:
    rows = re.findall(r"^\| (\w+) \| (\d+) \| (\d+) \|", README.read_text(), re.M)
    return {name: (int(grpc), int(metrics)) for name, grpc, metrics in rows}


def test_both_overlays_exist() -> None:
    assert {p.name for p in overlays()} == {"local", "production"}


def test_every_object_validates(rendered: Objects) -> None:
    for obj in rendered:
        validate(obj)
        assert obj["kind"] == "Namespace" or obj["metadata"]["namespace"] == "cardroom"


def test_validation_is_not_silent() -> None:
    bad = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"}, "spec": {"nope": 1}}
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(bad)
    unknown = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "x"}}
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        validate(unknown)


def test_containers_are_locked_down(rendered: Objects) -> None:
    deployments = of_kind(rendered, "Deployment")
    assert set(deployments) == set(SERVED)
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["serviceAccountName"] == name
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in pod["containers"] + pod.get("initContainers", []):
            ctx = container["securityContext"]
            assert ctx["runAsNonRoot"] is True, name
            assert ctx["runAsUser"] == 10001, name
            assert ctx["readOnlyRootFilesystem"] is True, name
            assert ctx["allowPrivilegeEscalation"] is False, name
            assert ctx["capabilities"]["drop"] == ["ALL"], name
            assert "add" not in ctx["capabilities"], name
            assert ctx["seccompProfile"] == {"type": "RuntimeDefault"}, name
            assert container["image"] == f"cardroom/{name}:dev"
            assert container["imagePullPolicy"] in ("Never", "IfNotPresent")
            assert set(container["resources"]) == {"requests", "limits"}


def test_service_accounts_have_no_token(rendered: Objects) -> None:
    accounts = of_kind(rendered, "ServiceAccount")
    assert set(accounts) == set(SERVED)
    assert all(a["automountServiceAccountToken"] is False for a in accounts.values())


def test_ports_match_containers_and_readme(rendered: Objects) -> None:
    documented = readme_ports()
    deployments = of_kind(rendered, "Deployment")
    services = of_kind(rendered, "Service")
    configs = of_kind(rendered, "ConfigMap")
    assert set(services) == set(SERVED)
    for name in SERVED:
        grpc, metrics = DEFAULT_PORTS[name]
        assert documented[name] == (grpc, metrics)
        (container,) = deployments[name]["spec"]["template"]["spec"]["containers"]
        container_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert container_ports == {"grpc": grpc, "metrics": metrics}
        service = services[name]["spec"]
        assert service["selector"] == {"app.kubernetes.io/name": name}
        service_ports = {p["name"]: (p["port"], p["targetPort"]) for p in service["ports"]}
        assert service_ports == {"grpc": (grpc, "grpc"), "metrics": (metrics, "metrics")}
        # The process binds what the ConfigMaps say, on every interface.
        env: dict[str, str] = {}
        for source in container["envFrom"]:
            ref = source["configMapRef"]["name"]
            env |= configs[ref]["data"]
        assert env["PORT"] == str(grpc) and env["METRICS_PORT"] == str(metrics)
        assert env["HOST"] == "0.0.0.0"
        drain, grace = float(env["SHUTDOWN_DRAIN_S"]), float(env["SHUTDOWN_GRACE_S"])
        termination = deployments[name]["spec"]["template"]["spec"]
        assert termination["terminationGracePeriodSeconds"] > drain + grace


def test_probes_use_grpc_health(rendered: Objects) -> None:
    for name, deployment in of_kind(rendered, "Deployment").items():
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == DEFAULT_PORTS[name][0], (name, probe)
            assert not {"httpGet", "tcpSocket", "exec"} & set(container[probe])


def test_network_policies(rendered: Objects) -> None:
    policies = list(of_kind(rendered, "NetworkPolicy").values())
    deny = [p for p in policies if p["spec"]["podSelector"] == {} and not p["spec"].get("ingress")]
    assert deny and deny[0]["spec"]["policyTypes"] == ["Ingress"]
    for name in SERVED:
        grpc_from_table = metrics_from_monitoring = False
        for policy in policies:
            spec = policy["spec"]
            selector = spec["podSelector"]
            selects = selector.get("matchLabels") == {"app.kubernetes.io/name": name} or any(
                e["operator"] == "In" and name in e["values"]
                for e in selector.get("matchExpressions", [])
            )
            if not selects:
                continue
            for rule in spec.get("ingress", []):
                ports = {p["port"] for p in rule["ports"]}
                for peer in rule["from"]:
                    if peer.get("podSelector") == {
                        "matchLabels": {"app.kubernetes.io/name": "table"}
                    }:
                        assert ports == {"grpc"}
                        grpc_from_table = True
                    ns = peer.get("namespaceSelector", {}).get("matchLabels", {})
                    if ns == {"kubernetes.io/metadata.name": "monitoring"}:
                        assert ports == {"metrics"}
                        metrics_from_monitoring = True
        assert grpc_from_table and metrics_from_monitoring, name


def test_disruption_scaling_and_monitoring(rendered: Objects) -> None:
    assert set(of_kind(rendered, "PodDisruptionBudget")) == set(SERVED)
    hpas = of_kind(rendered, "HorizontalPodAutoscaler")
    assert set(hpas) == {"betting", "showdown"}  # never the dealer: decks live in memory
    for hpa in hpas.values():
        assert hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    monitors = of_kind(rendered, "ServiceMonitor")
    assert set(monitors) == set(SERVED)
    for name, monitor in monitors.items():
        assert monitor["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": name}
        assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]


def test_production_is_redundant() -> None:
    (production,) = [p for p in overlays() if p.name == "production"]
    objects = render(production)
    for name, deployment in of_kind(objects, "Deployment").items():
        assert deployment["spec"]["replicas"] >= 2, name
    for name, pdb in of_kind(objects, "PodDisruptionBudget").items():
        replicas = of_kind(objects, "Deployment")[name]["spec"]["replicas"]
        assert 1 <= pdb["spec"]["minAvailable"] < replicas, name

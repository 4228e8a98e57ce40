"""The rendered Kubernetes manifests (deploy/): security, ports, probes, policies,
the lobby's volume, the table's addresses, audit token and shards, the gateway (the
room's public door) and its public route (the certificates: test_certificates.py)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from deploy.docker import images
from service_kit.ports import DEFAULT_PORTS
from services.gateway.settings import GatewaySettings
from services.lobby.postgres import is_postgres
from services.table.settings import TableSettings
from tests.ops.deploy.manifests import overlays, render, validate

# The five services (an internal, mutual-TLS PORT each: DEFAULT_PORTS) and the
# gateway, the room's public door (one public port, no internal one).
SERVICES = ("dealer", "betting", "showdown", "lobby", "table")
GATEWAY = "gateway"
SERVED = (*SERVICES, GATEWAY)
# The services the table pods call, by their TABLE_<NAME>_ADDR.
DOWNSTREAM = ("lobby", "dealer", "betting", "showdown")
WORKLOAD_KINDS = {"table": "StatefulSet"}  # the others are Deployments
# The player plane (PUBLIC_PORT: TLS, no client certificate) of the lobby and the
# table: still served, reached by no one (players come through the gateway); every
# service's PORT (DEFAULT_PORTS) is mutual TLS.
PUBLIC_PORTS = {"lobby": 50064, "table": 50065}
# The gateway's ports (services/gateway: PUBLIC_PORT, METRICS_PORT) and its Service's.
GATEWAY_PUBLIC_PORT, GATEWAY_METRICS_PORT = 50050, 9106
GATEWAY_SERVICE_PORT = 443
POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']"
OVERLAYS = {"local", "production", "production-ingress"}

Objects = list[dict[str, Any]]


@pytest.fixture(scope="module", params=[p.name for p in overlays()])
def rendered(request: pytest.FixtureRequest) -> Objects:
    return render(next(p for p in overlays() if p.name == request.param))


def of_kind(objects: Objects, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def workloads(objects: Objects) -> dict[str, dict[str, Any]]:
    """The Deployments and StatefulSets by name (one per service)."""
    found = [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]
    names = [o["metadata"]["name"] for o in found]
    assert len(names) == len(set(names)), names
    return {o["metadata"]["name"]: o for o in found}


def the_container(workload: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = workload["spec"]["template"]["spec"]["containers"]
    (container,) = containers
    return container


def container_env(container: dict[str, Any], objects: Objects, ordinal: int = 0) -> dict[str, str]:
    """The environment the kubelet gives ``container`` (of the pod with ``ordinal``):
    envFrom ConfigMaps first, then ``env`` in order, ``$(VAR)`` expanded from what is
    defined before it (left as is otherwise, like Kubernetes); the StatefulSet pod
    index from the downward API; Secret references are left out (not known here)."""
    configs = of_kind(objects, "ConfigMap")
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env |= configs[source["configMapRef"]["name"]]["data"]
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = re.sub(r"\$\((\w+)\)", lambda m: env.get(m[1], m[0]), var["value"])
        elif var["valueFrom"].get("fieldRef", {}).get("fieldPath") == POD_INDEX:
            env[var["name"]] = str(ordinal)
    return env


def test_every_overlay_exists() -> None:
    # production-ingress: production with the Ingress alternative instead of the
    # Gateway API route (deploy/components/ingress-nginx).
    assert {p.name for p in overlays()} == OVERLAYS


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
    found = workloads(rendered)
    assert set(found) == set(SERVED)
    for name, workload in found.items():
        assert workload["kind"] == WORKLOAD_KINDS.get(name, "Deployment"), name
        pod = workload["spec"]["template"]["spec"]
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
            # Local: the image built on the node, never pulled.  Production: from the
            # room's registry (a bare name would be Docker Hub), always asked for.
            assert container["image"] in (
                f"cardroom/{name}:dev",
                f"registry.example.com/cardroom/{name}:dev",
            )
            local = container["image"].startswith("cardroom/")
            assert container["imagePullPolicy"] == ("Never" if local else "Always")
            assert set(container["resources"]) == {"requests", "limits"}


def test_every_workload_runs_an_image_this_repository_builds(rendered: Objects) -> None:
    """deploy/docker builds one image per workload (images.SERVICES, a Dockerfile
    target each), whose entrypoint is the command the manifests run."""
    assert set(images.SERVICES) == set(workloads(rendered))
    targets = dict(
        re.findall(
            r"^FROM runtime AS (\w+)\n(?:.*\n)*?ENTRYPOINT (\[.*\])$",
            images.DOCKERFILE.read_text(),
            re.M,
        )
    )
    for name, workload in workloads(rendered).items():
        assert json.loads(targets[name]) == the_container(workload)["command"], name


def test_service_accounts_have_no_token(rendered: Objects) -> None:
    accounts = of_kind(rendered, "ServiceAccount")
    assert set(accounts) == set(SERVED)
    assert all(a["automountServiceAccountToken"] is False for a in accounts.values())


def certificate_secrets(objects: Objects) -> set[str]:
    """The Secrets that cert-manager's Certificates of the render produce."""
    return {c["spec"]["secretName"] for c in of_kind(objects, "Certificate").values()}


def test_ports_match_containers_and_settings(rendered: Objects) -> None:
    """The ports of the settings (``DEFAULT_PORTS``, from which docs/services.md's
    table is generated: tests/ops/docs checks it) are the manifests' ports; the lobby
    and the table also serve players on ``PUBLIC_PORT`` (port ``public-grpc``)."""
    found = workloads(rendered)
    services = of_kind(rendered, "Service")
    assert set(services) == set(SERVED)
    for name in SERVICES:
        grpc, metrics = DEFAULT_PORTS[name]
        container = the_container(found[name])
        public = {"public-grpc": PUBLIC_PORTS[name]} if name in PUBLIC_PORTS else {}
        container_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert container_ports == {"grpc": grpc, "metrics": metrics} | public
        service = services[name]["spec"]
        assert service["selector"] == {"app.kubernetes.io/name": name}
        service_ports = {p["name"]: (p["port"], p["targetPort"]) for p in service["ports"]}
        assert service_ports == {"grpc": (grpc, "grpc"), "metrics": (metrics, "metrics")} | {
            n: (port, n) for n, port in public.items()
        }
        # The process binds what the ConfigMaps say, on every interface.
        env = container_env(container, rendered)
        assert env["PORT"] == str(grpc) and env["METRICS_PORT"] == str(metrics)
        if name in PUBLIC_PORTS:
            assert env["PUBLIC_PORT"] == str(PUBLIC_PORTS[name]), name
        else:
            assert "PUBLIC_PORT" not in env, name
        assert env["HOST"] == "0.0.0.0"
        drain, grace = float(env["SHUTDOWN_DRAIN_S"]), float(env["SHUTDOWN_GRACE_S"])
        termination = found[name]["spec"]["template"]["spec"]
        assert termination["terminationGracePeriodSeconds"] > drain + grace


def test_gateway_ports(rendered: Objects) -> None:
    """One public port (TLS: gRPC, gRPC-Web, Connect; /healthz) behind the Service's
    443, and /metrics; no internal port: the gateway only calls the others'."""
    gateway = workloads(rendered)[GATEWAY]
    container = the_container(gateway)
    container_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert container_ports == {"https": GATEWAY_PUBLIC_PORT, "metrics": GATEWAY_METRICS_PORT}
    service = of_kind(rendered, "Service")[GATEWAY]["spec"]
    assert service["type"] == "ClusterIP" and "clusterIP" not in service
    assert service["selector"] == {"app.kubernetes.io/name": GATEWAY}
    service_ports = {p["name"]: (p["port"], p["targetPort"]) for p in service["ports"]}
    assert service_ports == {
        "https": (GATEWAY_SERVICE_PORT, "https"),
        "metrics": (GATEWAY_METRICS_PORT, "metrics"),
    }
    # Not h2c (cleartext): the port is TLS with both HTTP versions.
    assert not any(p.get("appProtocol") == "kubernetes.io/h2c" for p in service["ports"])
    env = container_env(container, rendered)
    assert env["PUBLIC_PORT"] == str(GATEWAY_PUBLIC_PORT)
    assert env["METRICS_PORT"] == str(GATEWAY_METRICS_PORT)
    assert "PORT" not in env and env["HOST"] == "0.0.0.0"
    assert container["command"] == ["python", "-m", "services.gateway"]
    # Stopping: the preStop sleep (it has no drain phase of its own: it stops accepting
    # at SIGTERM), then SHUTDOWN_GRACE_S for the calls in flight.
    sleep = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    grace = float(env["SHUTDOWN_GRACE_S"])
    termination = gateway["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert sleep > 0 and termination > sleep + grace


def test_gateway_settings_are_the_room(rendered: Objects) -> None:
    """GATEWAY_LOBBY_ADDR is the lobby's internal port and GATEWAY_TABLE_SHARDS names
    every shard of the table StatefulSet once (by its own DNS name behind the headless
    Service), as the gateway reads them."""
    env = container_env(the_container(workloads(rendered)[GATEWAY]), rendered)
    settings = GatewaySettings.from_env(env)
    services = of_kind(rendered, "Service")
    lobby = services["lobby"]
    namespace = lobby["metadata"]["namespace"]
    (lobby_grpc,) = [p["port"] for p in lobby["spec"]["ports"] if p["name"] == "grpc"]
    assert settings.lobby_addr == f"lobby.{namespace}.svc.cluster.local:{lobby_grpc}"
    table = workloads(rendered)["table"]
    governing = table["spec"]["serviceName"]
    (table_grpc,) = [p["port"] for p in services[governing]["spec"]["ports"] if p["name"] == "grpc"]
    assert settings.table_shards == tuple(
        f"table-{i}.{governing}.{namespace}.svc.cluster.local:{table_grpc}"
        for i in range(table["spec"]["replicas"])
    )
    # The public certificate where the gateway reads it: a mounted Secret.
    assert settings.public_tls_dir == "/etc/cardroom/public-tls"
    assert settings.cors_origins == ()


def test_probes_are_tcp_on_the_internal_port(rendered: Objects) -> None:
    """The gRPC port is mutual TLS: the kubelet's gRPC probe (plaintext, no client
    certificate) cannot pass it, and the image has no grpc_health_probe to exec."""
    for name, workload in workloads(rendered).items():
        if name == GATEWAY:
            continue  # test_gateway_probes
        container = the_container(workload)
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["tcpSocket"]["port"] == DEFAULT_PORTS[name][0], (name, probe)
            assert not {"httpGet", "grpc", "exec"} & set(container[probe])


def test_gateway_probes(rendered: Objects) -> None:
    """Readiness: GET /healthz over HTTPS on the public port (200 when the gateway
    reaches the lobby and every shard). Liveness: the port accepts connections (a
    lobby or shard outage must not restart every gateway pod)."""
    container = the_container(workloads(rendered)[GATEWAY])
    ready = container["readinessProbe"]
    assert ready["httpGet"] == {"path": "/healthz", "port": "https", "scheme": "HTTPS"}
    # A shard's rolling restart (a few seconds) must not empty the Service.
    assert ready["periodSeconds"] * ready["failureThreshold"] >= 30
    live = container["livenessProbe"]
    assert live["tcpSocket"] == {"port": "https"}
    assert not {"httpGet", "grpc", "exec"} & set(live)


def test_lobby_database_is_on_its_volume_or_postgresql(rendered: Objects) -> None:
    lobby = workloads(rendered)["lobby"]
    # One writer (the lobby keeps each table's seating in memory): one replica, the
    # old pod gone before the new one, on SQLite or on PostgreSQL.
    assert lobby["spec"]["replicas"] == 1
    assert lobby["spec"]["strategy"] == {"type": "Recreate"}
    pod = lobby["spec"]["template"]["spec"]
    container = the_container(lobby)
    env = container_env(container, rendered)
    if is_postgres(env["LOBBY_DB"]):
        # Production: the password is a mounted Secret, never in the URL or a
        # ConfigMap, and the SQLite volume is gone.
        assert urlsplit(env["LOBBY_DB"]).password is None
        path = PurePosixPath(env["LOBBY_DB_PASSWORD_FILE"])
        tls = certificate_secrets(rendered)
        (volume,) = [
            v for v in pod["volumes"] if "secret" in v and v["secret"]["secretName"] not in tls
        ]
        assert volume["secret"]["secretName"] == "lobby-db"
        assert "optional" not in volume["secret"]  # no password, no lobby
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
        assert mount["readOnly"] is True
        assert PurePosixPath(mount["mountPath"]) / volume["secret"]["items"][0]["path"] == path
        assert not of_kind(rendered, "PersistentVolumeClaim")
        assert not [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
        return
    database = PurePosixPath(env["LOBBY_DB"])
    assert database.is_absolute(), database
    (mount,) = [
        m
        for m in container["volumeMounts"]
        if database.is_relative_to(PurePosixPath(m["mountPath"]))
    ]
    assert mount["mountPath"] == "/var/lib/cardroom"
    assert not mount.get("readOnly", False)
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    claim = volume["persistentVolumeClaim"]["claimName"]
    pvc = of_kind(rendered, "PersistentVolumeClaim")[claim]
    assert pvc["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert pvc["spec"]["resources"]["requests"]["storage"]
    # The volume is writable by the service's group (the root filesystem is not).
    assert pod["securityContext"]["fsGroup"] == 10001


def test_table_addresses_are_the_services(rendered: Objects) -> None:
    services = of_kind(rendered, "Service")
    env = container_env(the_container(workloads(rendered)["table"]), rendered)
    for name in DOWNSTREAM:
        host, port = env[f"TABLE_{name.upper()}_ADDR"].rsplit(":", 1)
        service = services[name]
        namespace = service["metadata"]["namespace"]
        assert host in (
            f"{name}.{namespace}.svc.cluster.local",
            f"{name}.{namespace}.svc",
        ), host
        (grpc,) = [p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc"]
        assert int(port) == grpc == DEFAULT_PORTS[name][0], name


def test_audit_token_comes_from_a_secret(rendered: Objects) -> None:
    for config in of_kind(rendered, "ConfigMap").values():
        # A path to a mounted secret (*_FILE) is fine; a secret's value never.
        assert not any(
            re.search("TOKEN|SECRET|PASSWORD", k) and not k.endswith("_FILE")
            for k in config["data"]
        )
    # No secret value in the repository, not even a placeholder: the Secret is
    # managed outside it and optional (without it, no auditor).
    assert not of_kind(rendered, "Secret")
    for name, workload in workloads(rendered).items():
        for var in the_container(workload).get("env", []):
            # A secret's value never; a path to a mounted secret (*_FILE) is fine.
            if re.search("TOKEN|SECRET|PASSWORD", var["name"]) and not var["name"].endswith(
                "_FILE"
            ):
                assert "value" not in var, (name, var["name"])
    # The table reads it from the mounted Secret (a file, not an environment
    # variable: checkov CKV_K8S_35), which is where TABLE_AUDIT_TOKEN_FILE points.
    table = workloads(rendered)["table"]
    container = the_container(table)
    env = {v["name"]: v for v in container["env"]}
    assert "TABLE_AUDIT_TOKEN" not in env
    path = PurePosixPath(env["TABLE_AUDIT_TOKEN_FILE"]["value"])
    tls = certificate_secrets(rendered)
    (volume,) = [
        v
        for v in table["spec"]["template"]["spec"]["volumes"]
        if "secret" in v and v["secret"]["secretName"] not in tls
    ]
    secret = volume["secret"]
    assert secret["secretName"] and secret["optional"] is True
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["readOnly"] is True
    assert PurePosixPath(mount["mountPath"]) / secret["items"][0]["path"] == path


def test_table_shards_cover_every_table_once(rendered: Objects) -> None:
    table = workloads(rendered)["table"]
    replicas = table["spec"]["replicas"]
    # Pod ordinals are 0..replicas-1, each exactly once, with stable DNS names
    # through the headless governing Service.
    assert table["spec"]["serviceName"] == "table"
    assert of_kind(rendered, "Service")["table"]["spec"]["clusterIP"] == "None"
    shards = []
    for ordinal in range(replicas):
        value = container_env(the_container(table), rendered, ordinal)["TABLE_SHARD"]
        # What the service itself makes of it.
        shards.append(TableSettings.from_env({"TABLE_SHARD": value}).shard)
    assert sorted(shards) == [(i, replicas) for i in range(replicas)]


def rule_peers(rule: dict[str, Any]) -> list[dict[str, Any]]:
    """A rule's sources; ``[{}]`` (anything) when it has no ``from``."""
    return rule.get("from") or [{}]


def policy_selects(policy: dict[str, Any], name: str) -> bool:
    """Whether a NetworkPolicy applies to the pods of service ``name``."""
    selector = policy["spec"]["podSelector"]
    return selector.get("matchLabels") == {"app.kubernetes.io/name": name} or any(
        e["operator"] == "In" and name in e["values"] for e in selector.get("matchExpressions", [])
    )


def pods_of(name: str) -> dict[str, Any]:
    return {"podSelector": {"matchLabels": {"app.kubernetes.io/name": name}}}


MONITORING_NAMESPACE = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}
}
KUBE_DNS = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}


def source_of(peer: dict[str, Any]) -> str:
    """What an ingress rule's peer is: anywhere, the pods of a service of the room
    (the table, the gateway), or the monitoring namespace; anything else fails."""
    if peer == {}:
        return "anywhere"
    for name in ("table", GATEWAY):
        if peer == pods_of(name):
            return name
    if peer == MONITORING_NAMESPACE:
        return "monitoring"
    raise AssertionError(f"unexpected source {peer}")


def test_network_policies(rendered: Objects) -> None:
    """Who reaches which port: the table calls the four others, the gateway the
    lobby and every shard (internal ports), anyone the gateway's public port, and
    Prometheus every /metrics; the lobby's and the table's player planes
    (public-grpc) no one: players come through the gateway."""
    policies = list(of_kind(rendered, "NetworkPolicy").values())
    deny = [p for p in policies if p["spec"]["podSelector"] == {} and not p["spec"].get("ingress")]
    assert deny and deny[0]["spec"]["policyTypes"] == ["Ingress"]
    for name in SERVED:
        # (port, source) pairs this service's pods accept.
        allowed: set[tuple[str, str]] = set()
        for policy in policies:
            if not policy_selects(policy, name):
                continue
            for rule in policy["spec"].get("ingress", []):
                for peer in rule_peers(rule):
                    source = source_of(peer)
                    allowed |= {(p["port"], source) for p in rule["ports"]}
        expected = {("metrics", "monitoring")}
        if name == GATEWAY:
            # The room's one public door: anyone, on its public port only.
            expected.add(("https", "anywhere"))
        elif name == "table":
            # The gateway asks every shard for its tables and forwards the players'
            # table calls there (mutual TLS, identity gateway).
            expected.add(("grpc", GATEWAY))
        elif name == "lobby":
            # The table pods (hands), and the gateway (the players' lobby calls,
            # after checking their credential): never anyone else, as the same port
            # serves NextHand/FinishHand, which take no player token.
            expected |= {("grpc", "table"), ("grpc", GATEWAY)}
        else:
            expected.add(("grpc", "table"))
        assert allowed == expected, name
        assert not {port for port, _ in allowed} & {"public-grpc"}, name


def test_gateway_egress(rendered: Objects) -> None:
    """The gateway may call the lobby's and the tables' internal ports and the
    cluster DNS, nothing else; no other pod's egress is restricted."""
    policies = of_kind(rendered, "NetworkPolicy").values()
    egress = [p for p in policies if "Egress" in p["spec"]["policyTypes"]]
    assert [p["metadata"]["name"] for p in egress] == ["allow-gateway-egress"]
    (policy,) = egress
    assert policy["spec"]["policyTypes"] == ["Egress"]
    assert policy_selects(policy, GATEWAY)
    services = of_kind(rendered, "Service")
    allowed = {
        (repr(peer), port["port"], port["protocol"])
        for rule in policy["spec"]["egress"]
        for peer in rule["to"]
        for port in rule["ports"]
    }
    expected = {(repr(KUBE_DNS), 53, "UDP"), (repr(KUBE_DNS), 53, "TCP")}
    for name in ("lobby", "table"):
        (grpc,) = [p["port"] for p in services[name]["spec"]["ports"] if p["name"] == "grpc"]
        expected.add((repr(pods_of(name)), grpc, "TCP"))
    assert allowed == expected


def test_disruption_scaling_and_monitoring(rendered: Objects) -> None:
    assert set(of_kind(rendered, "PodDisruptionBudget")) == set(SERVED)
    hpas = of_kind(rendered, "HorizontalPodAutoscaler")
    # Never the dealer (decks in memory), the lobby (one SQLite writer) or the table
    # (its replicas are shards); the stateless ones: betting, showdown, the gateway.
    assert set(hpas) == {"betting", "showdown", GATEWAY}
    for name, hpa in hpas.items():
        assert hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        assert hpa["spec"]["scaleTargetRef"] == {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": name,
        }
        (metric,) = hpa["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu"
        assert metric["resource"]["target"] == {"type": "Utilization", "averageUtilization": 70}
    monitors = of_kind(rendered, "ServiceMonitor")
    assert set(monitors) == set(SERVED)
    for name, monitor in monitors.items():
        assert monitor["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": name}
        assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]


def test_production_is_redundant() -> None:
    for overlay in overlays():
        if overlay.name.startswith("production"):
            check_redundant(render(overlay))


def check_redundant(objects: Objects) -> None:
    found = workloads(objects)
    pdbs = of_kind(objects, "PodDisruptionBudget")
    for name, workload in found.items():
        replicas = workload["spec"]["replicas"]
        pdb = pdbs[name]["spec"]
        if name == "lobby":
            # One stateful replica: evictable (a drain must not hang), never two.
            assert replicas == 1 and pdb == pdb | {"maxUnavailable": 1}, name
        elif name == "table":
            # Several shards, one at a time out (whatever their count).
            assert replicas >= 2 and pdb["maxUnavailable"] == 1, name
        elif name == GATEWAY:
            # 2..10 pods (its HPA), one at a time out whatever their count.
            hpa = of_kind(objects, "HorizontalPodAutoscaler")[name]["spec"]
            assert replicas >= 2 and hpa["minReplicas"] >= 2, name
            assert (hpa["minReplicas"], hpa["maxReplicas"]) == (2, 10), name
            assert pdb == pdb | {"maxUnavailable": 1} and "minAvailable" not in pdb, name
        else:
            assert replicas >= 2, name
            assert 1 <= pdb["minAvailable"] < replicas, name


MONITORING = Path(__file__).resolve().parents[3] / "deploy" / "monitoring"


def _load_script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, MONITORING / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prometheusrule_is_what_the_script_writes() -> None:
    generator = _load_script("prometheusrule")
    assert (MONITORING / "prometheusrule.yaml").read_text() == generator.render(), (
        "deploy/monitoring/prometheusrule.yaml is stale: run "
        ".venv/bin/python deploy/monitoring/prometheusrule.py"
    )


def test_every_overlay_ships_the_rules_and_every_dashboard(rendered: Objects) -> None:
    # The same groups promtool checks and unit-tests (tests/ops/monitoring), unchanged.
    (rule,) = of_kind(rendered, "PrometheusRule").values()
    source = yaml.safe_load((MONITORING / "rules" / "cardroom.rules.yml").read_text())
    assert rule["spec"]["groups"] == source["groups"]
    assert rule["metadata"]["namespace"] == "cardroom"
    # Each dashboard once, byte for byte, labelled for Grafana's sidecar.
    shipped: dict[str, str] = {}
    for config in of_kind(rendered, "ConfigMap").values():
        if config["metadata"].get("labels", {}).get("grafana_dashboard") == "1":
            for key, text in config["data"].items():
                assert key not in shipped, key
                shipped[key] = text
    on_disk = {p.name: p.read_text() for p in (MONITORING / "dashboards").glob("*.json")}
    assert shipped == on_disk
    for text in shipped.values():
        json.loads(text)

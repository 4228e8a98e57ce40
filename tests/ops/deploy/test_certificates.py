"""Mutual TLS in the rendered manifests (deploy/base/certificates): each service and
the gateway mounts the Secret of a cert-manager Certificate naming it by its SPIFFE
URI, where ``TLS_DIR`` points, as a directory that renewals update; the Certificates
chain to an Issuer of the render (the gateway's public certificate to the overlay's
issuer: test_front_door.py); the operator's and auditor's client certificates exist;
the NetworkPolicies stay as a second layer."""

from __future__ import annotations

import copy
from pathlib import PurePosixPath
from typing import Any

import jsonschema
import pytest

from tests.ops.deploy.manifests import overlays, render, validate
from tests.ops.deploy.test_front_door import PUBLIC_CERTIFICATE
from tests.ops.deploy.test_manifests import (
    DOWNSTREAM,
    GATEWAY,
    SERVED,
    Objects,
    container_env,
    of_kind,
    the_container,
    workloads,
)

TRUST_DOMAIN = "cardroom.local"  # libs/service_kit/identity.py
CLIENTS = {"operator": "cardroom-operator-tls", "auditor": "cardroom-auditor-tls"}
TLS_FILES = {"ca.crt", "tls.crt", "tls.key"}  # a cert-manager Secret's keys
GROUP = "cert-manager.io"


@pytest.fixture(scope="module", params=[p.name for p in overlays()])
def rendered(request: pytest.FixtureRequest) -> Objects:
    return render(next(p for p in overlays() if p.name == request.param))


def spiffe(identity: str) -> str:
    return f"spiffe://{TRUST_DOMAIN}/{identity}"


def certificate_of(objects: Objects, identity: str) -> dict[str, Any]:
    """The one Certificate whose URI SANs are exactly ``identity``'s SPIFFE ID."""
    found = [
        c
        for c in of_kind(objects, "Certificate").values()
        if c["spec"].get("uris") == [spiffe(identity)]
    ]
    assert len(found) == 1, (identity, [c["metadata"]["name"] for c in found])
    return found[0]


def issuer_of(objects: Objects, certificate: dict[str, Any]) -> dict[str, Any]:
    """The Issuer of the render a Certificate's issuerRef names (cert-manager's
    defaults: group cert-manager.io, kind Issuer, in the Certificate's namespace)."""
    ref = certificate["spec"]["issuerRef"]
    name = certificate["metadata"]["name"]
    assert ref.get("group", GROUP) == GROUP, name
    assert ref.get("kind", "Issuer") == "Issuer", name
    issuer = of_kind(objects, "Issuer").get(ref["name"])
    assert issuer is not None, f"{name}: no Issuer {ref['name']} in the render"
    assert issuer["metadata"]["namespace"] == certificate["metadata"]["namespace"], name
    return issuer


def namespace(objects: Objects) -> str:
    (found,) = {str(s["metadata"]["namespace"]) for s in of_kind(objects, "Service").values()}
    return found


def covers(pattern: str, host: str) -> bool:
    """Whether a DNS SAN covers ``host`` (a wildcard matches exactly one label)."""
    if pattern.startswith("*."):
        label, _, rest = host.partition(".")
        return bool(label) and rest == pattern[2:]
    return pattern == host


def test_every_service_mounts_its_certificate_at_tls_dir(rendered: Objects) -> None:
    certificates = of_kind(rendered, "Certificate").values()
    secrets = {c["spec"]["secretName"] for c in certificates}
    for name, workload in workloads(rendered).items():
        secret = certificate_of(rendered, name)["spec"]["secretName"]
        pod = workload["spec"]["template"]["spec"]
        container = the_container(workload)
        # Its own certificate, and no other identity's key (the gateway also has the
        # public certificate, which is no identity: test_front_door.py).
        mounted = {
            v["secret"]["secretName"]: v
            for v in pod["volumes"]
            if "secret" in v and v["secret"]["secretName"] in secrets
        }
        public = {PUBLIC_CERTIFICATE} if name == GATEWAY else set()
        assert set(mounted) == {secret} | public, name
        volume = mounted[secret]
        # All three files (no items), and never optional: no certificate, no service.
        assert "items" not in volume["secret"], name
        assert volume["secret"].get("optional", False) is False, name
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
        assert mount["readOnly"] is True, name
        # A directory mount: the kubelet updates it when cert-manager renews the
        # certificate (a subPath mount would keep the first files forever).
        assert "subPath" not in mount and "subPathExpr" not in mount, name
        env = container_env(container, rendered)
        assert PurePosixPath(env["TLS_DIR"]) == PurePosixPath(mount["mountPath"]), name
        assert PurePosixPath(env["TLS_DIR"]) == PurePosixPath("/etc/cardroom/tls"), name
        # Never the benchmarks' switch that turns TLS and identities off.
        assert env.get("GRPC_PLAINTEXT", "0").lower() in ("", "0", "false"), name
        # Readable by the service (runAsUser/Group 10001, fsGroup 10001), by no one else.
        assert volume["secret"]["defaultMode"] & 0o007 == 0, name
        assert pod["securityContext"]["fsGroup"] == 10001, name


def test_no_tls_volume_is_mounted_with_subpath(rendered: Objects) -> None:
    secrets = {c["spec"]["secretName"] for c in of_kind(rendered, "Certificate").values()}
    for name, workload in workloads(rendered).items():
        pod = workload["spec"]["template"]["spec"]
        tls = {
            v["name"]
            for v in pod["volumes"]
            if v.get("secret", {}).get("secretName") in secrets
            or any(
                s.get("secret", {}).get("name") in secrets
                for s in v.get("projected", {}).get("sources", [])
            )
        }
        for container in pod["containers"] + pod.get("initContainers", []):
            for mount in container.get("volumeMounts", []):
                if mount["name"] in tls:
                    assert not {"subPath", "subPathExpr"} & set(mount), (name, mount)


def test_service_certificates(rendered: Objects) -> None:
    ns = namespace(rendered)
    found = workloads(rendered)
    for name in SERVED:
        spec = certificate_of(rendered, name)["spec"]
        assert "isCA" not in spec or spec["isCA"] is False, name
        # Both ends of mutual TLS: every service serves, and calls or is called with
        # its certificate.
        assert {"server auth", "client auth"} <= set(spec["usages"]), name
        assert spec["privateKey"]["algorithm"] == "ECDSA", name
        assert spec["privateKey"]["size"] == 256, name
        assert spec["privateKey"]["rotationPolicy"] == "Always", name
        assert (spec["duration"], spec["renewBefore"]) == ("24h", "8h"), name
        # The names the Service is reached by, in the render's namespace.
        dns = set(spec["dnsNames"])
        assert {name, f"{name}.{ns}.svc", f"{name}.{ns}.svc.cluster.local"} <= dns, name
        workload = found[name]
        if workload["kind"] == "StatefulSet":
            # Each shard by its own name behind the headless governing Service.
            governing = workload["spec"]["serviceName"]
            for ordinal in range(workload["spec"]["replicas"]):
                host = f"{name}-{ordinal}.{governing}.{ns}.svc.cluster.local"
                assert any(covers(p, host) for p in dns), (name, host)


def test_the_table_dials_names_its_peers_certificates_hold(rendered: Objects) -> None:
    """Hostname verification: each TABLE_*_ADDR host is a DNS SAN of that service."""
    env = container_env(the_container(workloads(rendered)["table"]), rendered)
    for name in DOWNSTREAM:
        host = env[f"TABLE_{name.upper()}_ADDR"].rsplit(":", 1)[0]
        dns = certificate_of(rendered, name)["spec"]["dnsNames"]
        assert any(covers(p, host) for p in dns), (name, host)


def test_the_gateway_dials_names_its_peers_certificates_hold(rendered: Objects) -> None:
    """Hostname verification: the lobby's and every shard's host, as the gateway
    dials them (GATEWAY_LOBBY_ADDR, GATEWAY_TABLE_SHARDS), is a DNS SAN of their
    certificate (a shard's by the table certificate's wildcard)."""
    env = container_env(the_container(workloads(rendered)[GATEWAY]), rendered)
    peers = [("lobby", env["GATEWAY_LOBBY_ADDR"])]
    peers += [("table", address) for address in env["GATEWAY_TABLE_SHARDS"].split(",")]
    for name, address in peers:
        host = address.rsplit(":", 1)[0]
        dns = certificate_of(rendered, name)["spec"]["dnsNames"]
        assert any(covers(p, host) for p in dns), (name, host)
    # Its own certificate: a client of both, and the server of its Service's names.
    spec = certificate_of(rendered, GATEWAY)["spec"]
    assert {"client auth", "server auth"} <= set(spec["usages"])


def test_operator_and_auditor_have_client_certificates(rendered: Objects) -> None:
    mounted = {
        v["secret"]["secretName"]
        for w in workloads(rendered).values()
        for v in w["spec"]["template"]["spec"]["volumes"]
        if "secret" in v
    }
    for identity, secret in CLIENTS.items():
        spec = certificate_of(rendered, identity)["spec"]
        assert spec["secretName"] == secret
        # A client only: it serves nothing, so no server auth and no DNS names.
        assert "client auth" in spec["usages"] and "server auth" not in spec["usages"]
        assert not spec.get("dnsNames") and not spec.get("isCA", False)
        assert spec["privateKey"]["algorithm"] == "ECDSA" and spec["privateKey"]["size"] == 256
        assert (spec["duration"], spec["renewBefore"]) == ("24h", "8h")
        # For operators' tooling: no workload of the room holds it.
        assert secret not in mounted, identity


def test_identities_are_unique_and_in_the_trust_domain(rendered: Objects) -> None:
    leaves = [c for c in of_kind(rendered, "Certificate").values() if not c["spec"].get("isCA")]
    uris = [u for c in leaves for u in c["spec"].get("uris", [])]
    assert sorted(uris) == sorted(spiffe(i) for i in (*SERVED, *CLIENTS))
    secrets = [c["spec"]["secretName"] for c in of_kind(rendered, "Certificate").values()]
    assert len(secrets) == len(set(secrets)), secrets


def test_certificates_chain_to_an_issuer_of_the_render(rendered: Objects) -> None:
    certificates = of_kind(rendered, "Certificate")
    by_secret = {c["spec"]["secretName"]: c for c in certificates.values()}
    for name, certificate in certificates.items():
        if name == PUBLIC_CERTIFICATE and certificate["spec"]["issuerRef"]["kind"] == (
            "ClusterIssuer"
        ):
            continue  # a public CA's issuer, outside the render (test_front_door.py)
        issuer = issuer_of(rendered, certificate)["spec"]
        if "selfSigned" in issuer:
            # The self-signed Issuer only bootstraps the CA.
            assert certificate["spec"].get("isCA") is True, name
            continue
        # A CA Issuer signs with a Secret some CA Certificate of the render produces
        # (an operator's own CA replaces that Certificate: docs/operations.md).
        ca = by_secret.get(issuer["ca"]["secretName"])
        assert ca is not None, f"{name}: no Certificate makes {issuer['ca']['secretName']}"
        assert ca["spec"]["isCA"] is True, name
        assert "cert sign" in ca["spec"]["usages"], name
        issuer_of(rendered, ca)  # and the CA's own issuer is there too
    # The services and clients are signed by the CA, never self-signed.
    for identity in (*SERVED, *CLIENTS):
        issuer = issuer_of(rendered, certificate_of(rendered, identity))
        assert "ca" in issuer["spec"], identity


def test_network_policies_stay(rendered: Objects) -> None:
    """mTLS is the first layer; the NetworkPolicies remain the second
    (test_manifests.test_network_policies checks who reaches which port)."""
    assert set(of_kind(rendered, "NetworkPolicy")) == {
        "default-deny-ingress",
        "allow-table-to-dealer",
        "allow-table-to-betting",
        "allow-table-to-showdown",
        "allow-table-to-lobby",
        "allow-gateway-to-lobby",
        "allow-gateway-to-table",
        "allow-players-to-gateway",
        "allow-gateway-egress",
        "allow-prometheus-metrics",
    }


def test_metrics_stay_plain_http(rendered: Objects) -> None:
    for name, monitor in of_kind(rendered, "ServiceMonitor").items():
        for endpoint in monitor["spec"]["endpoints"]:
            assert endpoint.get("scheme", "http") == "http", name
            assert "tlsConfig" not in endpoint, name


def test_cert_manager_schemas_are_strict(rendered: Objects) -> None:
    certificate = certificate_of(rendered, "table")
    issuer = issuer_of(rendered, certificate)
    validate(certificate)
    validate(issuer)
    bad = copy.deepcopy(certificate)
    bad["spec"]["uri"] = bad["spec"].pop("uris")  # a typo
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(certificate)
    del bad["spec"]["issuerRef"]
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(certificate)
    bad["spec"]["usages"] = ["server-auth"]
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(certificate)
    bad["spec"]["privateKey"]["size"] = 2048  # not an ECDSA curve
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(issuer)
    bad["spec"]["selfSigned"] = {}  # two kinds of issuer at once
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)

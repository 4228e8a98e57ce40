"""The room's public door in the rendered manifests (docs/front-door.md): the public
certificate, and the route players take to the gateway Service: the Gateway API
(Gateway, GRPCRoute, HTTPRoute, BackendTLSPolicy: deploy/components/gateway-api,
overlay production) or its alternative, ingress-nginx Ingresses
(deploy/components/ingress-nginx, overlay production-ingress); the local overlay has
neither (kubectl port-forward)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
import kubernetes_validate
import pytest

from poker.room.v1 import room_pb2
from tests.ops.deploy.manifests import ROOT, overlays, render, validate
from tests.ops.deploy.test_manifests import (
    GATEWAY,
    GATEWAY_PUBLIC_PORT,
    GATEWAY_SERVICE_PORT,
    Objects,
    container_env,
    of_kind,
    the_container,
    workloads,
)

PUBLIC_CERTIFICATE = "cardroom-gateway-public-tls"  # its name and its Secret's
GATEWAY_API_KINDS = ("Gateway", "GRPCRoute", "HTTPRoute", "BackendTLSPolicy")
GATEWAY_API = "gateway.networking.k8s.io"
# The public API: the one gRPC service the routes carry, and its server streams (a
# browser's Follow and Watch), which must not time out.
ROOM = room_pb2.DESCRIPTOR.services_by_name["Room"]
SERVER_STREAMS = {m.name for m in ROOM.methods if m.server_streaming and not m.client_streaming}
# What each overlay puts in front of the gateway.
FRONT_DOORS = {"local": None, "production": "gateway-api", "production-ingress": "ingress"}


@pytest.fixture(scope="module", params=[p.name for p in overlays()])
def overlay(request: pytest.FixtureRequest) -> tuple[str, Objects]:
    """An overlay's name and what it renders."""
    name: str = request.param
    return name, rendered_overlay(name)


def rendered_overlay(name: str) -> Objects:
    return render(next(p for p in overlays() if p.name == name))


def public_names(objects: Objects) -> list[str]:
    """The public certificate's dnsNames: [the web name, the gRPC name]."""
    names: list[str] = of_kind(objects, "Certificate")[PUBLIC_CERTIFICATE]["spec"]["dnsNames"]
    return names


def gateway_service_port(objects: Objects) -> dict[str, Any]:
    service = of_kind(objects, "Service")[GATEWAY]
    ports: list[dict[str, Any]] = service["spec"]["ports"]
    (port,) = [p for p in ports if p["port"] == GATEWAY_SERVICE_PORT]
    return port


def test_every_overlay_has_its_front_door() -> None:
    assert {p.name for p in overlays()} == set(FRONT_DOORS)
    for overlay in overlays():
        objects = render(overlay)
        kinds = {o["kind"] for o in objects}
        door = FRONT_DOORS[overlay.name]
        # One way in, never both: the Gateway API objects or the Ingresses.
        assert (door == "gateway-api") == bool(kinds & set(GATEWAY_API_KINDS)), overlay.name
        assert (door == "ingress") == ("Ingress" in kinds), overlay.name
        if door == "gateway-api":
            assert kinds >= set(GATEWAY_API_KINDS), overlay.name


def test_public_certificate(overlay: tuple[str, Objects]) -> None:
    """Not an identity of the room (no SPIFFE URI, no client auth): a server
    certificate for the public names, which the gateway pods present on their public
    port (GATEWAY_PUBLIC_TLS_DIR) and the front door's listeners too."""
    name, rendered = overlay
    certificate = of_kind(rendered, "Certificate")[PUBLIC_CERTIFICATE]["spec"]
    assert certificate["secretName"] == PUBLIC_CERTIFICATE
    assert not certificate.get("uris") and not certificate.get("isCA", False)
    assert "server auth" in certificate["usages"] and "client auth" not in certificate["usages"]
    assert certificate["privateKey"]["rotationPolicy"] == "Always"
    names = certificate["dnsNames"]
    assert names and len(names) == len(set(names))
    issuer = certificate["issuerRef"]
    if FRONT_DOORS[name] is None:
        # Local: the room's CA, for the port-forwarded name.
        assert names == ["localhost"]
        assert issuer["kind"] == "Issuer" and issuer["name"] == "cardroom-ca-issuer"
    else:
        # Production: a public CA's (a ClusterIssuer the operators run): the web name
        # and the gRPC name.
        assert len(names) == 2 and not any(n.startswith("*.") for n in names)
        assert issuer["kind"] == "ClusterIssuer"
    # Mounted by the gateway, and by no other workload, where it reads it.
    for service, workload in workloads(rendered).items():
        pod = workload["spec"]["template"]["spec"]
        volumes = [
            v for v in pod["volumes"] if v.get("secret", {}).get("secretName") == PUBLIC_CERTIFICATE
        ]
        if service != GATEWAY:
            assert not volumes, service
            continue
        (volume,) = volumes
        assert volume["secret"].get("optional", False) is False
        assert volume["secret"]["defaultMode"] & 0o007 == 0
        container = the_container(workload)
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
        assert mount["readOnly"] is True and "subPath" not in mount
        env = container_env(container, rendered)
        assert PurePosixPath(env["GATEWAY_PUBLIC_TLS_DIR"]) == PurePosixPath(mount["mountPath"])


def test_gateway_api_route() -> None:
    objects = rendered_overlay("production")
    web, grpc = public_names(objects)
    (gateway,) = of_kind(objects, "Gateway").values()
    listeners = {listener["name"]: listener for listener in gateway["spec"]["listeners"]}
    assert set(listeners) == {"web", "grpc"}
    route_kinds = {"web": "HTTPRoute", "grpc": "GRPCRoute"}
    for name, listener in listeners.items():
        # HTTPS on 443, terminated with the public certificate, for the routes of its
        # kind from this namespace only.
        assert (listener["protocol"], listener["port"]) == ("HTTPS", 443), name
        assert listener["tls"]["mode"] == "Terminate", name
        (ref,) = listener["tls"]["certificateRefs"]
        assert ref.get("kind", "Secret") == "Secret" and ref.get("group", "") == "", name
        assert ref["name"] == PUBLIC_CERTIFICATE and "namespace" not in ref, name
        assert listener["allowedRoutes"]["namespaces"] == {"from": "Same"}, name
        assert listener["allowedRoutes"]["kinds"] == [
            {"group": GATEWAY_API, "kind": route_kinds[name]}
        ], name
    assert listeners["web"]["hostname"] == web
    assert listeners["grpc"]["hostname"] == grpc
    # The Gateway's labels may be copied onto its proxy pods: never the gateway's.
    assert "app.kubernetes.io/name" not in gateway["metadata"].get("labels", {})

    routes = {**of_kind(objects, "GRPCRoute"), **of_kind(objects, "HTTPRoute")}
    assert set(routes) == {"gateway-grpc", "gateway-web"}
    hostnames: dict[str, set[str]] = {}
    for name, route in routes.items():
        section = "grpc" if route["kind"] == "GRPCRoute" else "web"
        (parent,) = route["spec"]["parentRefs"]
        assert parent["name"] == gateway["metadata"]["name"], name
        assert parent.get("kind", "Gateway") == "Gateway", name
        assert parent.get("group", GATEWAY_API) == GATEWAY_API, name
        assert parent["sectionName"] == section, name
        hostnames[name] = set(route["spec"]["hostnames"])
        assert hostnames[name] == {listeners[section]["hostname"]}, name
        for rule in route["spec"]["rules"]:
            (backend,) = rule["backendRefs"]
            assert backend.get("kind", "Service") == "Service" and backend.get("group", "") == ""
            assert (backend["name"], backend["port"]) == (GATEWAY, GATEWAY_SERVICE_PORT), name
    # The Gateway API rejects a GRPCRoute and an HTTPRoute whose hostnames meet on
    # one listener.
    assert not hostnames["gateway-grpc"] & hostnames["gateway-web"]

    # gRPC: the public API's service, and only that.
    grpc_route = routes["gateway-grpc"]
    matches = [m for rule in grpc_route["spec"]["rules"] for m in rule["matches"]]
    assert matches == [{"method": {"type": "Exact", "service": ROOM.full_name}}]
    # gRPC-Web and Connect: its paths, and only those; the server streams without a
    # request timeout; and the web client's page (GET / and /web/..., issue 17).
    streams: set[str] = set()
    page: list[dict[str, object]] = []
    for rule in routes["gateway-web"]["spec"]["rules"]:
        for match in rule["matches"]:
            path = match["path"]
            if not path["value"].startswith(f"/{ROOM.full_name}/"):
                page.append(match)
            elif path["type"] == "Exact":
                streams.add(path["value"].rsplit("/", 1)[1])
                assert rule["timeouts"] == {"request": "0s"}, path
            else:
                assert path == {"type": "PathPrefix", "value": f"/{ROOM.full_name}/"}
    assert streams == SERVER_STREAMS
    assert page == [
        {"path": {"type": "Exact", "value": "/"}, "method": "GET"},
        {"path": {"type": "PathPrefix", "value": "/web/"}, "method": "GET"},
    ]

    # TLS to the pods, verified for a name of the certificate they present.
    (policy,) = of_kind(objects, "BackendTLSPolicy").values()
    (target,) = policy["spec"]["targetRefs"]
    port = gateway_service_port(objects)
    assert target == {"group": "", "kind": "Service", "name": GATEWAY, "sectionName": port["name"]}
    validation = policy["spec"]["validation"]
    assert validation["hostname"] in (web, grpc)
    assert validation["wellKnownCACertificates"] == "System"
    # The Service port is the gateway's public container port.
    container = the_container(workloads(objects)[GATEWAY])
    (public,) = [p for p in container["ports"] if p["name"] == port["targetPort"]]
    assert public["containerPort"] == GATEWAY_PUBLIC_PORT


def test_ingress_route() -> None:
    objects = rendered_overlay("production-ingress")
    web, grpc = public_names(objects)
    ingresses = of_kind(objects, "Ingress")
    assert set(ingresses) == {"gateway-grpc", "gateway-web"}
    protocols = {"gateway-grpc": ("GRPCS", grpc), "gateway-web": ("HTTPS", web)}
    port = gateway_service_port(objects)
    for name, ingress in ingresses.items():
        protocol, host = protocols[name]
        annotations = ingress["metadata"]["annotations"]
        # Re-encrypted to the pods, gRPC over HTTP/2 or HTTP(S) for the browsers.
        assert annotations["nginx.ingress.kubernetes.io/backend-protocol"] == protocol, name
        # No snippets (arbitrary nginx configuration: CVE-2025-1974 and friends).
        assert not any("snippet" in key for key in annotations), name
        spec = ingress["spec"]
        assert spec["ingressClassName"] == "nginx", name
        assert spec["tls"] == [{"hosts": [host], "secretName": PUBLIC_CERTIFICATE}], name
        (rule,) = spec["rules"]
        assert rule["host"] == host, name
        paths = {(p["path"], p["pathType"]): p for p in rule["http"]["paths"]}
        expected = {(f"/{ROOM.full_name}/", "Prefix")}
        if name == "gateway-web":  # the web client's page (issue 17)
            expected |= {("/", "Exact"), ("/web/", "Prefix")}
        assert set(paths) == expected, name
        for path in paths.values():
            service = path["backend"]["service"]
            assert service == {"name": GATEWAY, "port": {"name": port["name"]}}, name


def test_production_hostnames_are_set_once(tmp_path: Path) -> None:
    """The hostnames are written once, in the production overlay's patch of the
    public certificate; its replacements (and the Ingress component's) copy them into
    every object that names them."""
    copied = tmp_path / "deploy"
    shutil.copytree(ROOT / "deploy", copied, ignore=shutil.ignore_patterns("__pycache__"))
    overlay = copied / "overlays" / "production" / "kustomization.yaml"
    text = overlay.read_text()
    placeholders = "value: [room.example.com, grpc.room.example.com]"
    assert text.count(placeholders) == 1
    overlay.write_text(text.replace(placeholders, "value: [play.cards.test, rpc.cards.test]"))
    for name in ("production", "production-ingress"):
        objects = render(copied / "overlays" / name)
        assert public_names(objects) == ["play.cards.test", "rpc.cards.test"]
        kinds = (*GATEWAY_API_KINDS, "Ingress")
        text = repr([o for o in objects if o["kind"] in kinds])
        assert "example.com" not in text, name
        assert "play.cards.test" in text and "rpc.cards.test" in text, name


def test_gateway_api_schemas_are_strict() -> None:
    objects = rendered_overlay("production")
    (gateway,) = of_kind(objects, "Gateway").values()
    (policy,) = of_kind(objects, "BackendTLSPolicy").values()
    route = of_kind(objects, "HTTPRoute")["gateway-web"]
    for obj in (gateway, policy, route):
        validate(obj)
    bad = copy.deepcopy(gateway)
    del bad["spec"]["listeners"][0]["tls"]  # HTTPS without a certificate
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(gateway)
    bad["spec"]["listeners"][0]["hostName"] = bad["spec"]["listeners"][0].pop("hostname")
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(policy)
    bad["spec"]["validation"]["caCertificateRefs"] = [
        {"group": "", "kind": "ConfigMap", "name": "ca"}
    ]  # both ways of trusting at once
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(route)
    bad["spec"]["rules"][0]["timeouts"]["request"] = "forever"
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    bad = copy.deepcopy(route)
    bad["apiVersion"] = "gateway.networking.k8s.io/v1beta1"  # not the version we write
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        validate(bad)

"""Local schemas of the Kubernetes Gateway API kinds the room uses
(``gateway.networking.k8s.io/v1``: ``Gateway``, ``GRPCRoute``, ``HTTPRoute``,
``BackendTLSPolicy``) for the offline validation of the rendered overlays
(``manifests.CUSTOM_RESOURCES``).

A subset of the standard channel's CRDs (Gateway API v1.6,
config/crd/standard/gateway.networking.k8s.io_*.yaml; BackendTLSPolicy is v1 since
v1.4): the fields deploy/components/gateway-api writes, with the CRDs' types, enums,
patterns and required fields, and nothing else (``additionalProperties: false``), so
a typo or a field the API does not have fails ``make deploy-check`` instead of the
apply.  Two of the CRDs' CEL rules are written as JSON schema too: an HTTPS or TLS
listener has ``tls``, and a BackendTLSPolicy validates with exactly one of
``caCertificateRefs`` and ``wellKnownCACertificates``.
"""

from __future__ import annotations

from typing import Any, Final

API_VERSION: Final = "gateway.networking.k8s.io/v1"
GROUP: Final = "gateway.networking.k8s.io"

# The CRDs' shared patterns (apis/v1/shared_types.go).
_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_HOSTNAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 253,
    "pattern": r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
}
_PRECISE_HOSTNAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 253,
    "pattern": _DNS_SUBDOMAIN,
}
_SECTION_NAME = {"type": "string", "minLength": 1, "maxLength": 253, "pattern": _DNS_SUBDOMAIN}
_GROUP = {"type": "string", "maxLength": 253, "pattern": r"^$|" + _DNS_SUBDOMAIN}
_KIND = {
    "type": "string",
    "minLength": 1,
    "maxLength": 63,
    "pattern": r"^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$",
}
_NAME = {"type": "string", "minLength": 1, "maxLength": 253}
_NAMESPACE = {
    "type": "string",
    "minLength": 1,
    "maxLength": 63,
    "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
}
_PORT = {"type": "integer", "minimum": 1, "maximum": 65535}
# A Gateway API duration (GEP-2257): "0s", "30s", "1h30m".
_DURATION = {"type": "string", "pattern": r"^([0-9]{1,5}(h|m|s|ms)){1,4}$"}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A strict object: these properties, no other."""
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
    if required:
        schema["required"] = required
    return schema


def _array(items: dict[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": items, "maxItems": max_items}
    if min_items:
        schema["minItems"] = min_items
    return schema


_PARENT_REF = _object(
    {
        "group": _GROUP,
        "kind": _KIND,
        "name": _NAME,
        "namespace": _NAMESPACE,
        "sectionName": _SECTION_NAME,
        "port": _PORT,
    },
    ["name"],
)
# A route's backend: a Service (group "", kind Service) needs its port.
_BACKEND_REF = _object(
    {
        "group": _GROUP,
        "kind": _KIND,
        "name": _NAME,
        "namespace": _NAMESPACE,
        "port": _PORT,
        "weight": {"type": "integer", "minimum": 0, "maximum": 1000000},
    },
    ["name"],
)
_HEADER_MATCH = _object(
    {
        "type": {"enum": ["Exact", "RegularExpression"]},
        "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "pattern": r"^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$",
        },
        "value": {"type": "string", "minLength": 1, "maxLength": 4096},
    },
    ["name", "value"],
)
_RULE_NAME = _SECTION_NAME
_ROUTE_COMMON = {
    "parentRefs": _array(_PARENT_REF, 32),
    "hostnames": _array(_HOSTNAME, 16),
}

_LISTENER = _object(
    {
        "name": _SECTION_NAME,
        "hostname": _HOSTNAME,
        "port": _PORT,
        "protocol": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": r"^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|"
            r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]+$",
        },
        "tls": _object(
            {
                "mode": {"enum": ["Terminate", "Passthrough"]},
                "certificateRefs": _array(
                    _object(
                        {"group": _GROUP, "kind": _KIND, "name": _NAME, "namespace": _NAMESPACE},
                        ["name"],
                    ),
                    64,
                ),
                "options": {
                    "type": "object",
                    "maxProperties": 16,
                    "additionalProperties": {"type": "string", "maxLength": 4096},
                },
            }
        ),
        "allowedRoutes": _object(
            {
                "namespaces": _object(
                    {
                        "from": {"enum": ["All", "Selector", "Same"]},
                        "selector": {"type": "object"},
                    }
                ),
                "kinds": _array(_object({"group": _GROUP, "kind": _KIND}, ["kind"]), 8),
            }
        ),
    },
    ["name", "port", "protocol"],
)
# The CRD's CEL rule: "tls must be specified for protocols ['HTTPS', 'TLS']".
_LISTENER["allOf"] = [
    {
        "if": {"properties": {"protocol": {"enum": ["HTTPS", "TLS"]}}},
        "then": {"required": ["tls"]},
    }
]

GATEWAY_SPEC: Final[dict[str, Any]] = _object(
    {
        "gatewayClassName": {"type": "string", "minLength": 1, "maxLength": 253},
        "listeners": _array(_LISTENER, 64, min_items=1),
    },
    ["gatewayClassName", "listeners"],
)

GRPCROUTE_SPEC: Final[dict[str, Any]] = _object(
    {
        **_ROUTE_COMMON,
        "rules": _array(
            _object(
                {
                    "name": _RULE_NAME,
                    "matches": _array(
                        _object(
                            {
                                "method": _object(
                                    {
                                        "type": {"enum": ["Exact", "RegularExpression"]},
                                        "service": {"type": "string", "maxLength": 1024},
                                        "method": {"type": "string", "maxLength": 1024},
                                    }
                                ),
                                "headers": _array(_HEADER_MATCH, 16),
                            }
                        ),
                        64,
                    ),
                    "backendRefs": _array(_BACKEND_REF, 16),
                }
            ),
            16,
        ),
    }
)

HTTPROUTE_SPEC: Final[dict[str, Any]] = _object(
    {
        **_ROUTE_COMMON,
        "rules": _array(
            _object(
                {
                    "name": _RULE_NAME,
                    "matches": _array(
                        _object(
                            {
                                "path": _object(
                                    {
                                        "type": {
                                            "enum": ["Exact", "PathPrefix", "RegularExpression"]
                                        },
                                        "value": {"type": "string", "maxLength": 1024},
                                    }
                                ),
                                "headers": _array(_HEADER_MATCH, 16),
                                "method": {
                                    "enum": [
                                        "GET",
                                        "HEAD",
                                        "POST",
                                        "PUT",
                                        "DELETE",
                                        "CONNECT",
                                        "OPTIONS",
                                        "TRACE",
                                        "PATCH",
                                    ]
                                },
                            }
                        ),
                        64,
                    ),
                    "timeouts": _object({"request": _DURATION, "backendRequest": _DURATION}),
                    "backendRefs": _array(_BACKEND_REF, 16),
                }
            ),
            16,
        ),
    }
)

_LOCAL_REF = _object({"group": _GROUP, "kind": _KIND, "name": _NAME}, ["group", "kind", "name"])
_VALIDATION = _object(
    {
        "hostname": _PRECISE_HOSTNAME,
        "caCertificateRefs": _array(_LOCAL_REF, 8),
        "wellKnownCACertificates": {
            "type": "string",
            "minLength": 1,
            "maxLength": 253,
            "pattern": r"^(System|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
            r"/([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]))$",
        },
        "subjectAltNames": _array(
            _object(
                {
                    "type": {"enum": ["Hostname", "URI"]},
                    "hostname": _HOSTNAME,
                    "uri": {"type": "string", "minLength": 1, "maxLength": 253},
                },
                ["type"],
            ),
            5,
        ),
    },
    ["hostname"],
)
# The CRD's CEL rules: one of the two ways to trust the backend's certificate.
_VALIDATION["oneOf"] = [
    {"required": ["caCertificateRefs"], "not": {"required": ["wellKnownCACertificates"]}},
    {"required": ["wellKnownCACertificates"], "not": {"required": ["caCertificateRefs"]}},
]

BACKENDTLSPOLICY_SPEC: Final[dict[str, Any]] = _object(
    {
        "targetRefs": _array(
            _object(
                {"group": _GROUP, "kind": _KIND, "name": _NAME, "sectionName": _SECTION_NAME},
                ["group", "kind", "name"],
            ),
            16,
            min_items=1,
        ),
        "validation": _VALIDATION,
        "options": {
            "type": "object",
            "maxProperties": 16,
            "additionalProperties": {"type": "string", "maxLength": 4096},
        },
    },
    ["targetRefs", "validation"],
)

SPECS: Final[dict[str, dict[str, Any]]] = {
    "Gateway": GATEWAY_SPEC,
    "GRPCRoute": GRPCROUTE_SPEC,
    "HTTPRoute": HTTPROUTE_SPEC,
    "BackendTLSPolicy": BACKENDTLSPOLICY_SPEC,
}
"""kind -> the schema of its ``spec``."""

"""Local schemas of cert-manager's ``Certificate`` and ``Issuer`` (``cert-manager.io/v1``)
for the offline validation of the rendered overlays (``manifests.CUSTOM_RESOURCES``).

A subset of cert-manager's CRDs (https://cert-manager.io/docs/reference/api-docs/):
the fields deploy/base/certificates writes, with cert-manager's types, enums and
required fields, and nothing else (``additionalProperties: false``), so a typo or a
field cert-manager does not have fails ``make deploy-check`` instead of the apply.
"""

from __future__ import annotations

from typing import Any, Final

API_VERSION: Final = "cert-manager.io/v1"

# A Go duration as cert-manager parses it (time.ParseDuration): "24h", "1h30m".
_DURATION = {"type": "string", "pattern": r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"}
_STRINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}

# cert-manager's KeyUsage enum (pkg/apis/certmanager/v1/types.go).
USAGES: Final = (
    "signing",
    "digital signature",
    "content commitment",
    "key encipherment",
    "key agreement",
    "data encipherment",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
    "any",
    "server auth",
    "client auth",
    "code signing",
    "email protection",
    "s/mime",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "timestamping",
    "ocsp signing",
    "microsoft sgc",
    "netscape sgc",
)

CERTIFICATE_SPEC: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["secretName", "issuerRef"],
    "additionalProperties": False,
    "properties": {
        "secretName": {"type": "string", "minLength": 1},
        "secretTemplate": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "commonName": {"type": "string", "minLength": 1, "maxLength": 64},
        "subject": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "organizations": _STRINGS,
                "organizationalUnits": _STRINGS,
                "countries": _STRINGS,
            },
        },
        "dnsNames": _STRINGS,
        "uris": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9+.-]*:"}},
        "ipAddresses": _STRINGS,
        "duration": _DURATION,
        "renewBefore": _DURATION,
        "isCA": {"type": "boolean"},
        "usages": {"type": "array", "items": {"enum": list(USAGES)}, "uniqueItems": True},
        "privateKey": {
            "type": "object",
            "additionalProperties": False,
            # cert-manager's webhook: an ECDSA key is one of the NIST curves.
            "if": {"required": ["algorithm"], "properties": {"algorithm": {"const": "ECDSA"}}},
            "then": {"properties": {"size": {"enum": [256, 384, 521]}}},
            "properties": {
                "algorithm": {"enum": ["RSA", "ECDSA", "Ed25519"]},
                "size": {"type": "integer"},
                "encoding": {"enum": ["PKCS1", "PKCS8"]},
                "rotationPolicy": {"enum": ["Never", "Always"]},
            },
        },
        "issuerRef": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "kind": {"type": "string", "minLength": 1},
                "group": {"type": "string"},
            },
        },
    },
}

# An Issuer is exactly one kind of issuer; these are the two the room uses.
ISSUER_SPEC: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "maxProperties": 1,
    "properties": {
        "selfSigned": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"crlDistributionPoints": _STRINGS},
        },
        "ca": {
            "type": "object",
            "required": ["secretName"],
            "additionalProperties": False,
            "properties": {
                "secretName": {"type": "string", "minLength": 1},
                "crlDistributionPoints": _STRINGS,
                "ocspServers": _STRINGS,
            },
        },
    },
}

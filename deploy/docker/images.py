"""Build the six service images offline: ``python -m deploy.docker.images``
(``make images``).

Nothing is pulled from a registry (none is reachable on our machines, and a
missing image must never make Docker try one): the base images are made here by
``base-image.sh`` (debootstrap), the runtime wheels are downloaded on the host
into a wheelhouse (``pip download``, pinned to ``requirements/dev.lock``, with
their sha256 for ``--require-hashes``), and the project's code, including the
mypyc-compiled modules and the generated protobuf code that ``make setup`` made,
is copied into the build context.

Every image is tagged ``cardroom/<service>:<inputs>``, where ``<inputs>`` is a
hash of everything that goes into it (the Dockerfile, the base recipe, the pinned
requirements, every file copied), and ``cardroom/<service>:dev`` (the name the
Kubernetes manifests use).  When the six ``<inputs>`` tags exist nothing is
built, so ``make test`` pays for a build only after a change; older ``<inputs>``
tags are removed.  The container tests (``tests/system/containers``) compute the same
tags with :func:`image_refs`, so they always test the images of this tree.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DOCKERFILE = HERE / "Dockerfile"
BASE_SCRIPT = HERE / "base-image.sh"
LOCK = ROOT / "requirements" / "dev.lock"
WORK = ROOT / "build" / "images"  # wheelhouse and build context (ignored by git)
# The five services and the gateway (the room's public door, services/gateway).
SERVICES = ("dealer", "betting", "showdown", "lobby", "table", "gateway")
REPOSITORY = "cardroom"

# What the services import at run time (pyproject's dependencies without
# grpcio-tools, which only generates code on the host and needs setuptools), and
# what those need: the image must hold no package installer or build tool.
RUNTIME_PACKAGES = (
    "grpcio",
    "grpcio-health-checking",
    "grpcio-reflection",
    "protobuf",
    "structlog",
    "prometheus-client",
    "psycopg",  # the lobby on PostgreSQL (LOBBY_DB=postgresql://...)
    "psycopg-binary",  # its libpq, prebuilt: no compiler in the image
    "uvloop",  # the services' event loop (service_kit.loop)
    "typing-extensions",
    # The gateway: connectrpc (Connect, gRPC-Web and gRPC from one ASGI app) and
    # what it needs, and hypercorn (HTTP/1.1 and HTTP/2 over TLS on one port) and
    # what it needs.  In every image (one runtime stage), used by the gateway's.
    "connectrpc",
    "protobuf-py",
    "protobuf-py-ext",  # protobuf-py's compiled half (manylinux x86_64 CPython)
    "protobuf-py-pure",
    "pyqwest",
    "opentelemetry-api",
    "hypercorn",
    "h11",
    "h2",
    "hpack",
    "hyperframe",
    "priority",
    "wsproto",
)
# The code copied into /app: the libraries the services import and the services.
APP_DIRS = ("libs/poker_rules", "libs/poker_wire", "libs/service_kit", "libs/poker", "services")
APP_SUFFIXES = (".py", ".so")
# The built web client (make web): the gateway image serves it at / (it finds
# /app/clients/web/dist beside its code, services/gateway/web.py).
WEB_DIST = "clients/web/dist"
WEB_SUFFIXES = (".html", ".js", ".css")


def app_files() -> list[Path]:
    """Every file of the image's /app, relative to the repository, sorted."""
    files = list((ROOT / "libs").glob("*__mypyc*.so"))  # mypyc's shared module
    for top in APP_DIRS:
        base = ROOT / top
        if not base.is_dir():
            raise SystemExit(f"{top} is missing: run `make setup` first")
        files.extend(
            p
            for p in base.rglob("*")
            if p.is_file() and p.suffix in APP_SUFFIXES and "__pycache__" not in p.parts
        )
    if not any(p.suffix == ".so" for p in files):
        raise SystemExit("no mypyc-compiled module in libs/: run `make setup` first")
    web = ROOT / WEB_DIST
    if not (web / "index.html").is_file():
        raise SystemExit(f"{WEB_DIST} is missing: run `make web` first")
    files.extend(p for p in web.rglob("*") if p.is_file() and p.suffix in WEB_SUFFIXES)
    return sorted(p.relative_to(ROOT) for p in files)


def pins() -> list[str]:
    """``name==version`` of every runtime package, as the lock file pins it."""
    locked: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if match:
            locked[_normal(match[1])] = match[2]
    missing = [p for p in RUNTIME_PACKAGES if _normal(p) not in locked]
    if missing:
        raise SystemExit(f"not pinned in {LOCK}: {missing}")
    return [f"{p}=={locked[_normal(p)]}" for p in RUNTIME_PACKAGES]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _digest(chunks: Iterator[bytes]) -> str:
    sha = hashlib.sha256()
    for chunk in chunks:
        sha.update(len(chunk).to_bytes(8, "big"))
        sha.update(chunk)
    return sha.hexdigest()[:12]


def base_tag() -> str:
    """The base images' tag: a hash of their recipe."""
    return _digest(iter([BASE_SCRIPT.read_bytes()]))


def inputs_tag() -> str:
    """A hash of everything an image is made of (see the module's docstring)."""

    def chunks() -> Iterator[bytes]:
        yield DOCKERFILE.read_bytes()
        yield BASE_SCRIPT.read_bytes()
        yield "\n".join(pins()).encode()
        for path in app_files():
            yield str(path).encode()
            yield (ROOT / path).read_bytes()

    return _digest(chunks())


def image_refs(tag: str | None = None) -> dict[str, str]:
    """``{service: "cardroom/<service>:<inputs>"}`` for this tree."""
    tag = tag or inputs_tag()
    return {name: f"{REPOSITORY}/{name}:{tag}" for name in SERVICES}


def docker(*args: str, capture: bool = False) -> str:
    """Run the docker CLI (legacy builder: Debian's dockerd 20.10 may lack BuildKit)."""
    env = {**os.environ, "DOCKER_BUILDKIT": "0"}
    done = subprocess.run(["docker", *args], env=env, check=True, text=True, capture_output=capture)
    return done.stdout if capture else ""


def image_exists(ref: str) -> bool:
    """Whether ``ref`` is a local image (never asks a registry)."""
    found = subprocess.run(
        ["docker", "image", "inspect", ref], capture_output=True, text=True, check=False
    )
    return found.returncode == 0


def wheelhouse(context: Path) -> None:
    """The runtime wheels (kept in build/images/wheelhouse between builds) and a
    requirements.txt with their sha256, in ``context/wheelhouse``."""
    cache = WORK / "wheelhouse"
    cache.mkdir(parents=True, exist_ok=True)
    wanted = pins()
    chosen: list[Path] = []
    for pin in wanted:
        name, version = pin.split("==")
        prefix = f"{name.replace('-', '_')}-{version}-".lower()
        found = [w for w in cache.glob("*.whl") if w.name.lower().startswith(prefix)]
        if not found:
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                    *("--only-binary=:all:", "--dest", str(cache), pin),
                ],
                check=True,
            )
            found = [w for w in cache.glob("*.whl") if w.name.lower().startswith(prefix)]
        if len(found) != 1:
            raise SystemExit(f"expected one wheel for {pin} in {cache}, found {found}")
        chosen.extend(found)
    target = context / "wheelhouse"
    target.mkdir()
    lines = []
    for wheel, pin in zip(chosen, wanted, strict=True):
        shutil.copy2(wheel, target / wheel.name)
        lines.append(f"{pin} --hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}")
    (target / "requirements.txt").write_text("\n".join(lines) + "\n")


def stage() -> Path:
    """A fresh build context: the wheelhouse and /app."""
    context = WORK / "context"
    shutil.rmtree(context, ignore_errors=True)
    context.mkdir(parents=True)
    wheelhouse(context)
    for path in app_files():
        target = context / "app" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, target)
    return context


def build() -> dict[str, str]:
    """Build what is missing; tag ``:dev``; remove older input tags.  Returns the refs."""
    tag = inputs_tag()
    refs = image_refs(tag)
    if not all(image_exists(ref) for ref in refs.values()):
        base = base_tag()
        subprocess.run(["bash", str(BASE_SCRIPT), base], check=True)
        bases = {"BASE_BUILD": f"{REPOSITORY}/base-build:{base}"}
        bases["BASE_RUNTIME"] = f"{REPOSITORY}/base-runtime:{base}"
        for ref in bases.values():
            if not image_exists(ref):
                raise SystemExit(f"base image {ref} missing after base-image.sh")
        context = stage()
        for name, ref in refs.items():
            print(f"images: building {ref}", flush=True)
            docker(
                "build",
                "--quiet",
                "--network=none",  # offline: everything is in the context and the bases
                "--file",
                str(DOCKERFILE),
                "--target",
                name,
                *(f"--build-arg={k}={v}" for k, v in bases.items()),
                "--label",
                f"org.cardroom.inputs={tag}",
                "--tag",
                ref,
                str(context),
                capture=True,
            )
    for name, ref in refs.items():
        docker("tag", ref, f"{REPOSITORY}/{name}:dev")
        _remove_old(name, tag)
    return refs


def _remove_old(name: str, keep: str) -> None:
    listed = docker("images", f"{REPOSITORY}/{name}", "--format", "{{.Tag}}", capture=True)
    for old in set(listed.split()) - {keep, "dev", "<none>"}:
        subprocess.run(
            ["docker", "rmi", f"{REPOSITORY}/{name}:{old}"], capture_output=True, check=False
        )


def sizes() -> str:
    """A markdown table of the images' sizes, as ``docker images`` reports them."""
    rows = ["| image | size |", "| --- | --- |"]
    for name in SERVICES:
        size = docker("images", f"{REPOSITORY}/{name}:dev", "--format", "{{.Size}}", capture=True)
        rows.append(f"| `{REPOSITORY}/{name}:dev` | {size.strip()} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tag", action="store_true", help="print the inputs tag, build nothing")
    parser.add_argument("--sizes", action="store_true", help="print the images' sizes too")
    args = parser.parse_args(argv)
    if args.tag:
        print(inputs_tag())
        return
    for ref in build().values():
        print(ref)
    if args.sizes:
        print(sizes())


if __name__ == "__main__":
    main()

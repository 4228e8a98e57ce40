"""The five services as containers of the images ``make images`` built (testcontainers).

Every container runs on the host's network (``network="host"``: traffic stays on
127.0.0.1, and no bridge or iptables rule is needed), on ports picked free for
the test and passed in the services' own ``PORT`` / ``METRICS_PORT`` (and
``PUBLIC_PORT``, the players' port of the lobby and the table), with a
read-only root filesystem and a tmpfs ``/tmp``, as in the Kubernetes manifests.
The lobby's SQLite file is on a host directory mounted at ``/var/lib/cardroom``,
so a restarted lobby container keeps its state.

Mutual TLS as deployed: the test issues the room's CA and certificates
(``service_kit.pki.issue_room``) into a host directory mounted read-only at
``/etc/cardroom/pki``, and each container's ``TLS_DIR`` is its own identity's
directory there (``/etc/cardroom/pki/<service>``).  The test's clients use the
same PKI (:attr:`ContainerStack.pki`): the operator's certificate for the staff's
calls, the CA for the players' channels to the public ports.

Images are named by :func:`deploy.docker.images.image_refs`: the tags of this
tree's inputs, so a test never runs images of older code.  A missing image (or no
Docker engine) fails the tests with what to do; it is never pulled (no registry is
reachable, and pulling a name we did not build would run somebody else's image).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import docker
import grpc
import pytest
from docker.errors import DockerException, ImageNotFound

from deploy.docker.images import image_refs
from devroom.stack import BACKENDS
from poker_wire.channels import player_channel_sync, service_channel_sync
from service_kit.pki import Pki, issue_room
from tests.support.health import wait_serving
from tests.support.ports import free_ports

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")  # Ryuk is an image to pull

from testcontainers.core.container import DockerContainer

SERVICES = (*BACKENDS, "table")
PUBLIC = ("lobby", "table")  # the services with a players' port
DATA_DIR = "/var/lib/cardroom"
PKI_DIR = "/etc/cardroom/pki"  # the test PKI, mounted read-only
START_TIMEOUT_S = 60.0
UID = 10001


def docker_client() -> docker.DockerClient:
    """The engine, or a test failure saying how to get one (never a skip)."""
    try:
        client = docker.from_env()
        client.ping()
    except DockerException as error:
        pytest.fail(
            f"no Docker engine ({error}): `make images` (part of `make test`) installs and "
            "starts it (deploy/docker/system-setup.sh)",
            pytrace=False,
        )
    return client


def container_pki(root: Path) -> Pki:
    """The room's CA and certificates in ``root``, readable by the containers'
    user (10001, not the test's): the directories and the identities' files
    world-readable (test keys in a test's temporary directory); the CA's key,
    which no service reads, stays the test's alone."""
    pki = issue_room(root)
    pki.root.chmod(0o755)
    for directory in pki.root.iterdir():
        if directory.is_dir():
            directory.chmod(0o755)
            for file in directory.iterdir():
                file.chmod(0o644)
    return pki


def require_images() -> dict[str, str]:
    """This tree's image refs, each checked to exist locally."""
    client = docker_client()
    refs = image_refs()
    missing = []
    for ref in refs.values():
        try:
            client.images.get(ref)
        except ImageNotFound:
            missing.append(ref)
    client.close()
    if missing:
        pytest.fail(f"images not built for this tree: {missing}; run `make images`", pytrace=False)
    return refs


class ServiceContainer:
    """One service's container: start, health, restart, logs."""

    def __init__(
        self, name: str, image: str, env: Mapping[str, str], data: Path | None, pki: Pki
    ) -> None:
        self.name = name
        self.pki = pki
        self.env = {**env, "TLS_DIR": f"{PKI_DIR}/{name}"}
        self.port = int(self.env["PORT"])
        self.public_port = int(self.env.get("PUBLIC_PORT") or 0)
        container = (
            DockerContainer(image, env=self.env)
            .with_kwargs(network="host", read_only=True, stop_signal="SIGTERM")
            .with_tmpfs_mount("/tmp", "size=16m")
            .with_volume_mapping(str(pki.root), PKI_DIR, "ro")
        )
        if data is not None:
            container = container.with_volume_mapping(str(data), DATA_DIR, "rw")
        self.container = container

    @property
    def target(self) -> str:
        """The internal port (mutual TLS)."""
        return f"127.0.0.1:{self.port}"

    @property
    def public_target(self) -> str:
        """The players' port (server TLS) of the lobby and the table."""
        if not self.public_port:
            raise ValueError(f"{self.name} serves no public port")
        return f"127.0.0.1:{self.public_port}"

    @property
    def wrapped(self) -> Any:
        return self.container.get_wrapped_container()

    def start(self) -> None:
        self.container.start()
        self.wait_healthy()

    def wait_healthy(self, timeout: float = START_TIMEOUT_S) -> None:
        """Until grpc.health.v1 answers SERVING; fails with the logs if the container
        exits or the deadline passes."""
        if not wait_serving(
            self.target, timeout, gone=self._exited, tls_dir=self.pki.dir(self.name)
        ):
            raise RuntimeError(f"{self.name} container not healthy:\n{self.logs()}")

    def _exited(self) -> bool:
        self.wrapped.reload()
        return bool(self.wrapped.status == "exited")

    def restart(self, timeout_s: int = 10) -> None:
        """``docker restart``: SIGTERM (SIGKILL after ``timeout_s``), start again
        with the same settings and volume; waits until it is healthy."""
        self.wrapped.restart(timeout=timeout_s)
        self.wait_healthy()

    def exec(self, *command: str) -> tuple[int, str]:
        """Run a command in the running container (as the image's user)."""
        code, output = self.wrapped.exec_run(list(command))
        return int(code), output.decode(errors="replace")

    def logs(self) -> str:
        return bytes(self.wrapped.logs()).decode(errors="replace")

    def stop(self) -> None:
        try:
            self.wrapped.stop(timeout=10)
        finally:
            self.container.stop()  # removes it


class ContainerStack:
    """The room: dealer, betting, showdown and lobby, then the table pointed at them."""

    def __init__(
        self, data: Path, pki_dir: Path, env: Mapping[str, Mapping[str, str]] | None = None
    ) -> None:
        refs = require_images()
        data.mkdir(parents=True, exist_ok=True)
        data.chmod(0o777)  # the lobby runs as uid 10001, whoever runs the tests
        self.pki = container_pki(pki_dir)
        ports = free_ports(2 * len(SERVICES) + len(PUBLIC))
        settings: dict[str, dict[str, str]] = {}
        for i, name in enumerate(SERVICES):
            settings[name] = {"PORT": str(ports[2 * i]), "METRICS_PORT": str(ports[2 * i + 1])}
        for name, port in zip(PUBLIC, ports[2 * len(SERVICES) :], strict=True):
            settings[name]["PUBLIC_PORT"] = str(port)
        for name in SERVICES:
            settings[name].update((env or {}).get(name, {}))
        settings["lobby"]["LOBBY_DB"] = f"{DATA_DIR}/lobby.sqlite3"
        for name in BACKENDS:
            settings["table"][f"TABLE_{name.upper()}_ADDR"] = f"127.0.0.1:{settings[name]['PORT']}"
        self.containers = {
            name: ServiceContainer(
                name, refs[name], settings[name], data if name == "lobby" else None, self.pki
            )
            for name in SERVICES
        }

    def start(self) -> ContainerStack:
        try:
            for name in SERVICES:
                self.containers[name].start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """The table first (it stops calling the others), then the rest."""
        for name in ("table", *reversed(BACKENDS)):
            container = self.containers[name]
            if container.container._container is not None:
                container.stop()

    def target(self, name: str) -> str:
        """``name``'s internal port (mutual TLS)."""
        return self.containers[name].target

    def public_target(self, name: str) -> str:
        """The players' port of the lobby or the table."""
        return self.containers[name].public_target

    def channel(self, name: str, identity: str = "operator") -> grpc.Channel:
        """A blocking mutual-TLS channel to ``name``'s internal port as ``identity``."""
        return service_channel_sync(self.target(name), self.pki.dir(identity))

    def player_channel(self, name: str) -> grpc.Channel:
        """A blocking channel to the public port of the lobby or the table, as a
        player (server TLS, the room's CA)."""
        return player_channel_sync(self.public_target(name), self.pki.ca_file)

    def __getitem__(self, name: str) -> ServiceContainer:
        return self.containers[name]

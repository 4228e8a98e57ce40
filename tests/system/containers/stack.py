"""The five services and the gateway as containers of the images ``make images``
built (testcontainers).

Every container runs on the host's network (``network="host"``: traffic stays on
127.0.0.1, and no bridge or iptables rule is needed), on ports picked free for
the test and passed in the services' own ``PORT`` / ``METRICS_PORT`` (and
``PUBLIC_PORT``, the players' port of the lobby and the table), with a
read-only root filesystem and a tmpfs ``/tmp``, as in the Kubernetes manifests.
The lobby's SQLite file is on a host directory mounted at ``/var/lib/cardroom``,
so a restarted lobby container keeps its state.

The gateway, the room's one public door (services/gateway), is started last and
stopped first: its one port is ``PUBLIC_PORT`` (TLS; gRPC, gRPC-Web and Connect),
it has no internal port and no ``grpc.health.v1``, and it is ready when ``GET
/healthz`` answers 200 (every shard has answered it, one lately).  It calls the
lobby's and the table's internal ports (``GATEWAY_LOBBY_ADDR``,
``GATEWAY_TABLE_SHARDS``) as the identity ``gateway``.  A restarted service is
followed by the gateway, not restarted with it: :meth:`ContainerStack.restart`
waits until the gateway is ready again.

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
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
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

SERVICES = (*BACKENDS, "table")  # grpc.health.v1 on their internal port
GATEWAY = "gateway"
CONTAINERS = (*SERVICES, GATEWAY)  # started in this order, stopped in the reverse
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
        self.port = int(self.env.get("PORT") or 0)  # the gateway has none
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
        if not self.port:
            raise ValueError(f"{self.name} serves no internal port")
        return f"127.0.0.1:{self.port}"

    @property
    def public_target(self) -> str:
        """The players' port (server TLS) of the lobby, the table and the gateway."""
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

    def started_at(self) -> datetime:
        """When the container's process last started (a restart starts a new one)."""
        self.wrapped.reload()
        text = str(self.wrapped.attrs["State"]["StartedAt"])  # RFC 3339, nanoseconds
        seconds, _, fraction = text.rstrip("Z").partition(".")
        return datetime.fromisoformat(seconds).replace(
            microsecond=int((fraction + "000000")[:6]), tzinfo=UTC
        )

    def running(self) -> bool:
        """Started and not removed (stop() removes it)."""
        return self.container._container is not None

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


class GatewayContainer(ServiceContainer):
    """The gateway's container: ready when ``/healthz`` on its public port says 200."""

    def wait_healthy(self, timeout: float = START_TIMEOUT_S) -> None:
        """Until ``GET /healthz`` answers 200 (every shard has answered it); fails
        with the logs if the container exits or the deadline passes."""
        if not wait_healthz(self.public_target, self.pki.ca_file, timeout, gone=self._exited):
            raise RuntimeError(f"{self.name} container not healthy:\n{self.logs()}")


def healthz(target: str, ca_file: str | Path, timeout: float = 2.0) -> int | None:
    """The HTTP status of ``GET https://<target>/healthz`` (trusting the room's CA),
    or None when nothing answered (refused, reset, the TLS handshake failed)."""
    context = ssl.create_default_context(cafile=str(ca_file))
    try:
        with urllib.request.urlopen(
            f"https://{target}/healthz", context=context, timeout=timeout
        ) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:  # 503: not ready
        return int(error.code)
    except OSError:  # URLError is one: refused, reset, handshake
        return None


def wait_healthz(
    target: str, ca_file: str | Path, timeout: float, gone: Callable[[], bool]
) -> bool:
    """Poll ``/healthz`` until 200 (True), or until ``gone()`` (the server exited)
    or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if healthz(target, ca_file, timeout=1.0) == 200:
            return True
        if gone() or time.monotonic() > deadline:
            return False
        time.sleep(0.1)


class ContainerStack:
    """The room: dealer, betting, showdown and lobby, then the table pointed at
    them, then the gateway pointed at the lobby and the table."""

    def __init__(
        self, data: Path, pki_dir: Path, env: Mapping[str, Mapping[str, str]] | None = None
    ) -> None:
        refs = require_images()
        data.mkdir(parents=True, exist_ok=True)
        data.chmod(0o777)  # the lobby runs as uid 10001, whoever runs the tests
        self.pki = container_pki(pki_dir)
        ports = free_ports(2 * len(SERVICES) + len(PUBLIC) + 2)
        settings: dict[str, dict[str, str]] = {}
        for i, name in enumerate(SERVICES):
            settings[name] = {"PORT": str(ports[2 * i]), "METRICS_PORT": str(ports[2 * i + 1])}
        for name, port in zip(PUBLIC, ports[2 * len(SERVICES) : -2], strict=True):
            settings[name]["PUBLIC_PORT"] = str(port)
        # The gateway: its one port, its metrics, and where the room is (the
        # lobby's and the table's internal ports, as the identity ``gateway``).
        settings[GATEWAY] = {
            "PUBLIC_PORT": str(ports[-2]),
            "METRICS_PORT": str(ports[-1]),
            "GATEWAY_LOBBY_ADDR": f"127.0.0.1:{settings['lobby']['PORT']}",
            "GATEWAY_TABLE_SHARDS": f"127.0.0.1:{settings['table']['PORT']}",
        }
        for name in CONTAINERS:
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
        self.containers[GATEWAY] = GatewayContainer(
            GATEWAY, refs[GATEWAY], settings[GATEWAY], None, self.pki
        )

    def start(self) -> ContainerStack:
        try:
            for name in CONTAINERS:
                self.containers[name].start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """The gateway first (no player reaches the room any more), then the table
        (it stops calling the others), then the rest."""
        for name in reversed(CONTAINERS):
            container = self.containers[name]
            if container.running():
                container.stop()

    def restart(self, name: str) -> None:
        """``docker restart`` of ``name`` (see :meth:`ServiceContainer.restart`),
        then until the gateway, which calls the lobby and the table, is ready
        again: it follows a restarted service (its channels reconnect; the streams
        it carried for a restarted table end, and their clients reconnect).  A
        short restart may never take its ``/healthz`` to 503 (it needs one shard
        to have answered lately): the calls through it are what show it followed."""
        self.containers[name].restart()
        if name != GATEWAY:
            self.containers[GATEWAY].wait_healthy()

    def target(self, name: str) -> str:
        """``name``'s internal port (mutual TLS)."""
        return self.containers[name].target

    def public_target(self, name: str) -> str:
        """The players' port of the lobby, the table or the gateway."""
        return self.containers[name].public_target

    @property
    def door(self) -> str:
        """The room's one public door: the gateway's port (TLS, the room's CA)."""
        return self.containers[GATEWAY].public_target

    def channel(self, name: str, identity: str = "operator") -> grpc.Channel:
        """A blocking mutual-TLS channel to ``name``'s internal port as ``identity``."""
        return service_channel_sync(self.target(name), self.pki.dir(identity))

    def player_channel(self, name: str) -> grpc.Channel:
        """A blocking channel to the public port of the lobby or the table, as a
        player (server TLS, the room's CA)."""
        return player_channel_sync(self.public_target(name), self.pki.ca_file)

    def __getitem__(self, name: str) -> ServiceContainer:
        return self.containers[name]

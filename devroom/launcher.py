"""Run one service as its own process, the way production does: ``python -m``.

Used by the room (``devroom.stack``), the tests and the benchmarks.  By
default the process gets PORT=0 and METRICS_PORT=0, so every server has fresh
ports and parallel test workers never collide; the ports are read from the
service's ``serving`` log line.  stdout is drained on a thread (a full pipe would block the
server), and every line is kept for assertions and for failure messages.

Each service runs in a process group of its own, so a Ctrl-C in the terminal
reaches only the launcher, which then stops its services in order (a service
that got the SIGINT itself would stop under the launcher's feet).  A service
started from the main thread also gets PARENT_PID (``service_kit.process``): it
is sent SIGTERM when the launcher dies, even by SIGKILL.  Not from another thread:
Linux sends that signal when the *thread* that started the child exits.
"""

from __future__ import annotations

import atexit
import collections
import functools
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from poker_wire.channels import player_channel, service_channel, service_channel_sync
from service_kit.pki import Pki, issue_room

from .ports import PortInUseError

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 30.0
MAX_LINES = 50_000  # log lines kept per process (the newest)
# What service_kit prints when a port is held: "dealer: port 50051 (gRPC) is in use".
_PORT_IN_USE = re.compile(r"port (\d+) \((gRPC|metrics|public)\) is in use")


@functools.cache
def shared_pki() -> Pki:
    """This process's room CA and certificates, in a temporary directory made on
    first use: what a service started without a TLS_DIR of its own gets (every
    test's services, the benchmarks' rooms), so all of them run mutual TLS."""
    root = Path(tempfile.mkdtemp(prefix="cardroom-pki-"))
    atexit.register(shutil.rmtree, root, True)
    return issue_room(root)


class ServiceProcess:
    """A running ``python -m services.<name>``; use as a context manager.

    Its TLS_DIR is its own identity's directory of ``pki`` (``shared_pki()`` when
    none is given) unless ``env`` sets TLS_DIR or GRPC_PLAINTEXT."""

    def __init__(
        self, name: str, env: dict[str, str] | None = None, *, pki: Pki | None = None
    ) -> None:
        self.name = name
        self.lines: collections.deque[str] = collections.deque(maxlen=MAX_LINES)
        self._serving = threading.Event()
        self.port = 0
        self.metrics_port = 0
        self.public_port = 0
        given = env or {}
        tls: dict[str, str] = {}
        if not given.get("TLS_DIR") and given.get("GRPC_PLAINTEXT", "0") in ("", "0"):
            self.pki: Pki | None = pki or shared_pki()
            tls["TLS_DIR"] = str(self.pki.dir(name))
        else:
            self.pki = pki
        if name == "lobby" and "LOBBY_DB" not in given and "LOBBY_DB" not in os.environ:
            # LOBBY_DB's default is a file in the working directory, the repository
            # here: a lobby started without one (the tests' lobbies) keeps its
            # database in memory, as before, rather than share or leave a file.
            tls["LOBBY_DB"] = ":memory:"
        environment = {
            **os.environ,
            "PORT": "0",
            "METRICS_PORT": "0",
            "PUBLIC_PORT": "0",
            "LOG_LEVEL": "info",
            "PYTHONUNBUFFERED": "1",
            "PARENT_PID": str(os.getpid() if on_main_thread() else 0),
            **tls,
            **given,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", f"services.{name}"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            process_group=0,  # a terminal's Ctrl-C is for the launcher alone
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            record = self._json(line)
            if record.get("event") == "serving":
                self.port = int(record.get("port") or 0)  # the gateway has none
                self.metrics_port = int(record["metrics_port"])
                self.public_port = int(record.get("public_port") or 0)
                self._serving.set()

    @staticmethod
    def _json(line: str) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except ValueError:
            return {}
        return record if isinstance(record, dict) else {}

    @property
    def target(self) -> str:
        """The internal port (mutual TLS): for services, operators, auditors."""
        return f"127.0.0.1:{self.port}"

    @property
    def public_target(self) -> str:
        """The player plane's port (server TLS) of the lobby and the table."""
        if not self.public_port:
            raise ValueError(f"{self.name} serves no public port")
        return f"127.0.0.1:{self.public_port}"

    def channel(self, identity: str = "operator", *, options: Any = ()) -> grpc.Channel:
        """A blocking mutual-TLS channel to the internal port as ``identity``."""
        if self.pki is None:
            return grpc.insecure_channel(self.target, options=list(options))
        return service_channel_sync(self.target, self.pki.dir(identity), options=options)

    def aio_channel(self, identity: str = "operator", *, options: Any = ()) -> grpc.aio.Channel:
        """An asyncio mutual-TLS channel to the internal port as ``identity``."""
        return service_channel(
            self.target,
            None if self.pki is None else self.pki.dir(identity),
            options=options,
            plaintext=self.pki is None,
        )

    def player_channel(self, *, options: Any = ()) -> grpc.aio.Channel:
        """An asyncio channel to the public port, as a player (no certificate)."""
        if self.pki is None:
            return grpc.aio.insecure_channel(self.public_target, options=list(options))
        return player_channel(self.public_target, self.pki.ca_file, options=options)

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def records(self) -> list[dict[str, Any]]:
        return [r for r in (self._json(line) for line in self.lines) if r]

    def wait_serving(self) -> None:
        """Until the serving line is logged and health says SERVING.

        ``PortInUseError`` when the service exited because a port is held."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._serving.wait(0.05):
            if self.proc.poll() is not None:
                self._reader.join(timeout=5)  # every line the process wrote
                busy = _PORT_IN_USE.search(self.log)
                if busy is not None:
                    what = "" if busy[2] == "gRPC" else busy[2]
                    raise PortInUseError(int(busy[1]), self.name, what)
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start:\n{self.log}")
        if self.name == "gateway":
            self._wait_healthz(deadline)
            return
        with self.channel(self.name) as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)  # grpc_health ships no stubs
            while True:
                try:
                    reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} never became healthy:\n{self.log}")
                time.sleep(0.05)

    def _wait_healthz(self, deadline: float) -> None:
        """The gateway's readiness: ``GET /healthz`` on its public port (TLS) is
        200 once it has reached every shard."""
        context = ssl.create_default_context(
            cafile=str(self.pki.ca_file) if self.pki is not None else None
        )
        url = f"https://{self.public_target}/healthz"
        while True:
            try:
                with urllib.request.urlopen(url, context=context, timeout=1) as reply:
                    if reply.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} never became healthy:\n{self.log}")
            time.sleep(0.05)

    def terminate(self, timeout: float = 10.0) -> int:
        """SIGTERM, wait; SIGKILL if it does not stop in time.  Returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=5)
        return self.proc.returncode

    def __enter__(self) -> ServiceProcess:
        try:
            self.wait_serving()
        except BaseException:
            self.terminate()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.terminate()


def fresh_lobby_db() -> str:
    """A new lobby database file in a temporary directory removed at exit (for a
    room that measures or needs the lobby's durable store: ``LOBBY_DB``)."""
    root = tempfile.mkdtemp(prefix="cardroom-lobby-")
    atexit.register(shutil.rmtree, root, True)
    return os.path.join(root, "lobby.sqlite3")


def on_main_thread() -> bool:
    """Whether this is the process's main thread (which lives as long as it)."""
    return threading.current_thread() is threading.main_thread()

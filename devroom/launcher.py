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

import collections
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .ports import PortInUseError

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 30.0
MAX_LINES = 50_000  # log lines kept per process (the newest)
# What service_kit prints when a port is held: "dealer: port 50051 (gRPC) is in use".
_PORT_IN_USE = re.compile(r"port (\d+) \((gRPC|metrics)\) is in use")


class ServiceProcess:
    """A running ``python -m services.<name>``; use as a context manager."""

    def __init__(self, name: str, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.lines: collections.deque[str] = collections.deque(maxlen=MAX_LINES)
        self._serving = threading.Event()
        self.port = 0
        self.metrics_port = 0
        environment = {
            **os.environ,
            "PORT": "0",
            "METRICS_PORT": "0",
            "LOG_LEVEL": "info",
            "PYTHONUNBUFFERED": "1",
            "PARENT_PID": str(os.getpid() if on_main_thread() else 0),
            **(env or {}),
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
                self.port = int(record["port"])
                self.metrics_port = int(record["metrics_port"])
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
        return f"127.0.0.1:{self.port}"

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
        with grpc.insecure_channel(self.target) as channel:
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


def on_main_thread() -> bool:
    """Whether this is the process's main thread (which lives as long as it)."""
    return threading.current_thread() is threading.main_thread()

"""The whole card room on one machine: every service as its own process on 127.0.0.1.

``Stack`` starts dealer, betting, showdown and lobby, then the table service
pointed at them, waits for each to be healthy, and stops them in the reverse
order (SIGTERM: health goes NOT_SERVING, in-flight calls finish).  The main job
(``services.run``), the end-to-end tests and the full-stack benchmark all use it,
so they run the same processes the same way.

``ports="fixed"`` binds the documented ports (services/ports.py), as the main job
does so that the CLI finds the room; ``ports="free"`` lets every process pick free
ports (tests run side by side).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from .launcher import ServiceProcess
from .ports import DEFAULT_PORTS

BACKENDS = ("dealer", "betting", "showdown", "lobby")


class Stack:
    """The five services; use as a context manager."""

    def __init__(
        self,
        *,
        ports: Literal["fixed", "free"] = "free",
        env: Mapping[str, Mapping[str, str]] | None = None,
        common_env: Mapping[str, str] | None = None,
    ) -> None:
        self.ports = ports
        self.env = {name: dict(v) for name, v in (env or {}).items()}
        self.common_env = dict(common_env or {})
        self.processes: dict[str, ServiceProcess] = {}

    def _env(self, name: str) -> dict[str, str]:
        env = {**self.common_env, **self.env.get(name, {})}
        if self.ports == "fixed":
            port, metrics = DEFAULT_PORTS[name]
            env.setdefault("PORT", str(port))
            env.setdefault("METRICS_PORT", str(metrics))
        return env

    def start(self) -> Stack:
        try:
            started = {name: ServiceProcess(name, self._env(name)) for name in BACKENDS}
            self.processes.update(started)
            for process in started.values():
                process.wait_serving()
            table_env = self._env("table")
            for name in BACKENDS:
                table_env.setdefault(f"TABLE_{name.upper()}_ADDR", self.processes[name].target)
            self.processes["table"] = ServiceProcess("table", table_env)
            self.processes["table"].wait_serving()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> dict[str, int]:
        """SIGTERM every process, the table first; returns the exit codes."""
        codes: dict[str, int] = {}
        for name in ("table", *reversed(BACKENDS)):
            process = self.processes.pop(name, None)
            if process is not None:
                codes[name] = process.terminate()
        return codes

    def target(self, name: str) -> str:
        return self.processes[name].target

    def __getitem__(self, name: str) -> ServiceProcess:
        return self.processes[name]

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

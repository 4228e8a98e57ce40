"""The whole card room on one machine: every service as its own process on 127.0.0.1.

``Stack`` starts dealer, betting, showdown and lobby, then the table service
pointed at them, waits for each to be healthy, and stops them in the reverse
order (SIGTERM: health goes NOT_SERVING, in-flight calls finish).  The main job
(``devroom.room``, ``make run``), the tournament room, the end-to-end tests and the
full-stack benchmark all use it, so they run the same processes the same way.

``ports="fixed"`` binds the services' default ports (``service_kit.ports``), as the
main job does so that the CLI finds the room; ``ports="free"`` lets every process pick free
ports (tests run side by side); an int is a base port (``ports.ports_from``: gRPC
on base..base+4, metrics on base+5..base+9).  Ports given are checked before
anything starts: one held is ``PortInUseError`` naming it and its service.

``table_shards=n`` runs the table service as n processes, ``TABLE_SHARD=i/n``
each, as a deployment scales it out: each runs the lobby's tables whose id hashes
to its shard, and ``table_target(table_id)`` is where that table's players
connect.  The first shard is ``stack["table"]`` (the documented port when fixed);
the others are ``table.1``, ``table.2``... on free ports.

``gateway=True`` (the default) starts the gateway last, the room's one public
door (services/gateway): it reaches the lobby and every shard on their internal
ports as the identity ``gateway``, and ``gateway_target`` is where players,
bots, apps and browsers connect (50050 when fixed).  No client needs a shard's
address: the gateway routes each table's calls to the shard that runs it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import zlib
from collections.abc import Callable, Mapping

from poker_wire.channels import LOCAL_ROOM_PKI
from service_kit.pki import Pki, issue_room
from service_kit.ports import (
    DEFAULT_GATEWAY_PORT,
    DEFAULT_PORTS,
    DEFAULT_PUBLIC_PORTS,
    GATEWAY_METRICS_PORT,
)

from .launcher import ServiceProcess, shared_pki
from .ports import (
    PortInUseError,
    Ports,
    busy_port,
    gateway_ports_from,
    ports_from,
    public_port_from,
)

BACKENDS = ("dealer", "betting", "showdown", "lobby")


class Stack:
    """The five services; use as a context manager."""

    def __init__(
        self,
        *,
        ports: Ports = "free",
        env: Mapping[str, Mapping[str, str]] | None = None,
        common_env: Mapping[str, str] | None = None,
        table_shards: int = 1,
        pki: Pki | None = None,
        gateway: bool = True,
    ) -> None:
        if table_shards < 1:
            raise ValueError(f"table_shards must be at least 1, got {table_shards}")
        self.table_shards = table_shards
        self.ports = ports
        self.env = {name: dict(v) for name, v in (env or {}).items()}
        self.common_env = dict(common_env or {})
        self.processes: dict[str, ServiceProcess] = {}
        plaintext = self.common_env.get("GRPC_PLAINTEXT", "0") not in ("", "0")
        # The gateway always serves TLS: a plaintext bench room has none.
        self.gateway = gateway and not plaintext
        # The room's CA and certificates: the local room's own directory when it
        # binds the documented ports (the CLI and your bots trust its CA there),
        # else this process's (tests and benches side by side).  None: plaintext,
        # the bench's --plaintext run.
        self.pki: Pki | None = (
            None
            if plaintext
            else pki
            if pki is not None
            else issue_room(LOCAL_ROOM_PKI)
            if ports == "fixed"
            else shared_pki()
        )

    def _gateway_env(self) -> dict[str, str]:
        env = {**self.common_env, **self.env.get("gateway", {})}
        if self.ports == "fixed":
            env.setdefault("PUBLIC_PORT", str(DEFAULT_GATEWAY_PORT))
            env.setdefault("METRICS_PORT", str(GATEWAY_METRICS_PORT))
        elif isinstance(self.ports, int):
            public, metrics = gateway_ports_from(self.ports)
            env.setdefault("PUBLIC_PORT", str(public))
            env.setdefault("METRICS_PORT", str(metrics))
        return env

    def _env(self, name: str) -> dict[str, str]:
        if name == "gateway":
            return self._gateway_env()
        env = {**self.common_env, **self.env.get(name, {})}
        planned = (
            DEFAULT_PORTS
            if self.ports == "fixed"
            else ports_from(self.ports)
            if isinstance(self.ports, int)
            else {}
        )
        if name in planned:
            port, metrics = planned[name]
            env.setdefault("PORT", str(port))
            env.setdefault("METRICS_PORT", str(metrics))
            public = (
                DEFAULT_PUBLIC_PORTS.get(name)
                if self.ports == "fixed"
                else public_port_from(self.ports, name)
                if isinstance(self.ports, int)
                else None
            )
            if public:
                env.setdefault("PUBLIC_PORT", str(public))
        return env

    def check_ports(self) -> None:
        """``PortInUseError`` for the first port to bind that another socket holds
        (a room not stopped, another program): said before anything starts."""
        for name in (*BACKENDS, "table", *(["gateway"] if self.gateway else [])):
            env = self._env(name)
            host = env.get("HOST") or os.environ.get("HOST") or "127.0.0.1"
            for variable, what in (
                ("PORT", ""),
                ("METRICS_PORT", "metrics"),
                ("PUBLIC_PORT", "public"),
            ):
                port = int(env.get(variable) or 0)
                if port and busy_port(host, port):
                    raise PortInUseError(port, name, what)

    def start(self) -> Stack:
        self.check_ports()
        try:
            started = {
                name: ServiceProcess(name, self._env(name), pki=self.pki) for name in BACKENDS
            }
            self.processes.update(started)
            for process in started.values():
                process.wait_serving()
            table_env = self._env("table")
            for name in BACKENDS:
                table_env.setdefault(f"TABLE_{name.upper()}_ADDR", self.processes[name].target)
            for shard, name in enumerate(self.table_names):
                env = {**table_env, "TABLE_SHARD": f"{shard}/{self.table_shards}"}
                if shard:  # the documented ports are the first shard's; the others any
                    env["PORT"] = env["METRICS_PORT"] = "0"
                    if "PUBLIC_PORT" in env:
                        env["PUBLIC_PORT"] = "0"
                self.processes[name] = ServiceProcess("table", env, pki=self.pki)
            for name in self.table_names:
                self.processes[name].wait_serving()
            if self.gateway:
                env = self._env("gateway")
                env.setdefault("GATEWAY_LOBBY_ADDR", self.processes["lobby"].target)
                env.setdefault(
                    "GATEWAY_TABLE_SHARDS",
                    ",".join(self.processes[name].target for name in self.table_names),
                )
                self.processes["gateway"] = ServiceProcess("gateway", env, pki=self.pki)
                self.processes["gateway"].wait_serving()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> dict[str, int]:
        """SIGTERM every process, the gateway and the tables first; returns the exit codes."""
        codes: dict[str, int] = {}
        for name in ("gateway", *self.table_names, *reversed(BACKENDS)):
            process = self.processes.pop(name, None)
            if process is not None:
                codes[name] = process.terminate()
        return codes

    def target(self, name: str) -> str:
        return self.processes[name].target

    @property
    def table_names(self) -> list[str]:
        """The table service's processes: ``table``, then ``table.1``..."""
        return ["table", *(f"table.{i}" for i in range(1, self.table_shards))]

    def table_process(self, table_id: str) -> ServiceProcess:
        """The shard that runs ``table_id`` (the table service's own rule,
        ``crc32(table_id) % shards``)."""
        shard = zlib.crc32(table_id.encode()) % self.table_shards
        return self.processes[self.table_names[shard]]

    def table_target(self, table_id: str) -> str:
        """Where the players of ``table_id`` connect: its shard's public port."""
        return self.table_process(table_id).public_target

    @property
    def gateway_target(self) -> str:
        """The room's public door: where players, bots, apps and browsers connect."""
        return self.processes["gateway"].public_target

    def public_target(self, name: str) -> str:
        """The player plane's port of the lobby or the (first) table process."""
        return self.processes[name].public_target

    def __getitem__(self, name: str) -> ServiceProcess:
        return self.processes[name]

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# A signal this soon after the first is the same request again (see StopSignals).
ECHO_S = 0.5


class StopSignals:
    """SIGTERM, SIGINT (Ctrl-C) and SIGHUP ask a launcher (the room, the tournament
    room) to stop early: ``event`` is set, the launcher winds down, prints what was
    played and stops its services.  A second signal cancels ``task`` (stop at
    once, still stopping the services in the launcher's ``finally``), unless it
    comes within ``ECHO_S`` of the first: ``kill -TERM -<group>`` of ``make run``
    reaches the room twice, from the signal and from make passing it on to its
    child, and that is one request to stop, not two.

    Installed on the running loop before the services start: a signal that comes
    while the loop is blocked starting them waits until it runs again, rather than
    killing the launcher and orphaning what it started.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.event = asyncio.Event()
        self.signum: int | None = None
        self.count = 0  # the requests to stop (an echo within ECHO_S not counted)
        self._clock = clock
        self._first_at = 0.0
        self.task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, self._on_signal, signum)

    def _on_signal(self, signum: int) -> None:
        now = self._clock()
        if self.signum is not None and now - self._first_at < ECHO_S:
            return  # the first one again (make passing on a group's signal)
        self.count += 1
        if self.signum is None:
            self.signum = signum
            self._first_at = now
            print(
                f"\n{self.name}: stopping early, the summary follows; "
                "send it again to stop at once",
                flush=True,
            )
            self.event.set()
        elif self.task is not None:
            self.task.cancel()

    @property
    def name(self) -> str:
        """``SIGTERM``, ``SIGINT``... ("" before any)."""
        return signal.Signals(self.signum).name if self.signum else ""

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal: 128 + its number
        (130 for Ctrl-C, 143 for SIGTERM); 0 when no signal came."""
        return 128 + self.signum if self.signum else 0

    async def pending(self) -> bool:
        """Whether a stop was asked for, counting a signal that came while the loop
        was blocked (its handler runs at the loop's next turn)."""
        await asyncio.sleep(0.05)
        return self.event.is_set()

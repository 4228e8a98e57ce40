"""A throwaway PostgreSQL server for the tests that run the lobby on PostgreSQL.

Each pytest process (xdist worker) starts its own cluster in a temporary directory
on a free port (``initdb`` with trust authentication on 127.0.0.1 only, fsync off:
a test database), and each test module gets a fresh database in it.  The server
comes from Debian's ``postgresql`` package, which the project's setup installs
(``make test``); if it is missing the tests fail, they never skip.  As root the
server runs as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from tests.support.ports import free_port

READY_S = 30.0


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(
            f"PostgreSQL's {name} not found under /usr/lib/postgresql/*/bin: the tests "
            "need Debian's postgresql package (make test installs it)"
        )
    return found[-1]


class PostgresServer:
    """``start()`` a cluster, ``database()`` for a fresh database URL, ``stop()``."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="cardroom-pg-"))
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.root / "server.log"

    def _as_postgres(self, args: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args

    def start(self) -> PostgresServer:
        data = self.root / "data"
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        subprocess.run(
            self._as_postgres(
                [_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                self._as_postgres(
                    [
                        _bin("postgres"),
                        "-D",
                        str(data),
                        "-p",
                        str(self.port),
                        "-k",
                        str(self.root),
                        "-c",
                        "listen_addresses=127.0.0.1",
                        "-c",
                        "fsync=off",
                    ]
                ),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + READY_S
        while True:
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    return self
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    tail = self.log.read_text()[-2000:]
                    raise RuntimeError(f"PostgreSQL did not start: {tail}") from None
                time.sleep(0.1)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new, empty database; its URL."""
        name = f"lobby_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)

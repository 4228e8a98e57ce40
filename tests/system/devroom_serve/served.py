"""``python -m devroom.room`` as a process of its own, read line by line: what a
person sees when they start the room in a terminal (``make run ARGS=...``)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WAIT_S = 45.0  # guards against hangs, never an assertion on speed


class RoomProcess:
    """The room, in a session of its own (its services are its children)."""

    def __init__(self, *args: str) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devroom.room", *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, pattern: str, within: float = WAIT_S) -> re.Match[str]:
        """The first output line matching ``pattern``, waiting for it."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if (found := re.search(pattern, line)) is not None:
                    return found
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern!r}:\n{self.output}")

    def wait(self, within: float = WAIT_S) -> int:
        """Its exit status (it is killed, and the test fails, past ``within``)."""
        try:
            code = self.proc.wait(within)
        finally:
            self.kill()
        self._reader.join(timeout=10)
        return code

    def kill(self) -> None:
        """The test's own cleanup: the room and its session (its services run in
        process groups of their own, and follow their parent's death: PARENT_PID)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def sh(line: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One line as the person types it into a shell at the repository's root."""
    return subprocess.run(
        ["bash", "-c", line],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )

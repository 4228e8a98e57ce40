"""Where a service's CPU goes during the full-stack benchmark's window: py-spy on
one process, summarized as its top frames.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Profiler:
    """py-spy on one process for ``seconds`` (``record --format raw``, 100 Hz,
    without pausing the process)."""

    def __init__(self, pid: int, seconds: float) -> None:
        self.pid = pid
        self.seconds = seconds
        self.dir = tempfile.TemporaryDirectory(prefix="stack-profile-")
        self.output = Path(self.dir.name) / "table.txt"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which(
            "py-spy"
        )
        if spy is None:
            raise RuntimeError("py-spy is not installed (pip install py-spy)")
        self.proc = await asyncio.create_subprocess_exec(
            spy,
            "record",
            "--pid",
            str(self.pid),
            "--duration",
            str(max(1, round(self.seconds))),
            "--rate",
            "100",
            "--nonblocking",
            "--full-filenames",
            "--format",
            "raw",
            "--output",
            str(self.output),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )

    async def report(self, top: int = 25) -> str:
        assert self.proc is not None
        _, err = await self.proc.communicate()
        try:
            if self.proc.returncode != 0 or not self.output.exists():
                return f"py-spy failed (code {self.proc.returncode}): {err.decode().strip()}"
            return summarize_profile(self.output.read_text(), top)
        finally:
            self.dir.cleanup()


_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def _short(path: str) -> str:
    for marker in ("site-packages/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1].removeprefix(".11/").removeprefix(".12/")
    return path.removeprefix(str(ROOT) + "/")


def _ours(path: str) -> bool:
    """A frame of this repository's code (services, libs), not of a dependency."""
    if path.startswith("<") or "site-packages/" in path or "/lib/python3" in path:
        return False
    return not path.startswith("/") or path.startswith(str(ROOT))


def summarize_profile(raw: str, top: int = 25) -> str:
    """Top frames of py-spy's collapsed stacks: own samples by function and by file,
    and inclusive samples of the repository's own functions."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    files: Counter[str] = Counter()
    samples = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = []
        for frame in stack.split(";"):
            m = _FRAME.match(frame)
            if m is None or not m.group("line"):
                continue  # process/thread markers
            frames.append((f"{m.group('func')} ({_short(m.group('file'))})", m.group("file")))
        if not frames:
            continue
        samples += count
        own[frames[-1][0]] += count
        files[_short(frames[-1][1])] += count
        for name in {name for name, path in frames if _ours(path)}:
            inclusive[name] += count
    if not samples:
        return "py-spy recorded no samples"

    def table(title: str, counts: Counter[str], n: int) -> list[str]:
        lines = [title]
        for name, count in counts.most_common(n):
            lines.append(f"  {100 * count / samples:5.1f}%  {name}")
        return lines

    out = [
        f"{samples} samples (busy threads only; time in grpc's Cython code is counted"
        " in the Python frame that called it)"
    ]
    out += table("own time, by function:", own, top)
    out += table("own time, by file:", files, top)
    out += table("inclusive time, the repository's functions:", inclusive, top)
    return "\n".join(out)

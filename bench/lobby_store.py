"""The lobby's store under the stack bench: fsyncs, bytes written and the data
that lasts, per hand (issue 19; services/lobby/commits.py).

- fsyncs: the lobby's own count (``lobby_store_fsyncs_total``: its group
  fsyncs, checkpoints and log restarts), which ``strace -f -c -e
  trace=fsync,fdatasync -p PID`` confirms (docs/operations.md);
- bytes written: the lobby process's ``write_bytes`` (``/proc/PID/io``: what it
  dirtied for the storage, the log, the checkpoints' copies and the database
  file's growth, counted once per page dirtied);
- lasting bytes: the database's used size (pages in use, log included, read
  through a read-only connection at both ends of the window).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path


def write_bytes(pid: int) -> int:
    """Bytes the process caused to be written to storage so far (0 if unknown)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def used_bytes(path: str) -> int:
    """The SQLite database's pages in use, as its latest commit has them (0 if
    ``path`` is no SQLite file)."""
    if not path or path == ":memory:" or "://" in path or not Path(path).exists():
        return 0
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=5)
        try:
            (pages,) = db.execute("PRAGMA page_count").fetchone()
            (free,) = db.execute("PRAGMA freelist_count").fetchone()
            (size,) = db.execute("PRAGMA page_size").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return 0
    return int((pages - free) * size)


def figures(fsyncs: float, written: int, lasting: int, per_hand: float) -> dict[str, float]:
    """The bench keys from the window's differences (``per_hand``: 1 / hands)."""
    lasting_per_hand = lasting * per_hand
    written_per_hand = written * per_hand
    return {
        "stack_lobby_fsyncs_per_hand": round(fsyncs * per_hand, 3),
        "stack_lobby_bytes_written_per_hand": round(written_per_hand),
        "stack_lobby_lasting_bytes_per_hand": round(lasting_per_hand),
        "stack_lobby_write_amplification": (
            round(written_per_hand / lasting_per_hand, 2) if lasting_per_hand > 0 else 0.0
        ),
    }

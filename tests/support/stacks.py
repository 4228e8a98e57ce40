"""A test stack's service settings, and stopping it quickly (tests only).

:func:`stack_env` is what ``Stack(env=...)`` needs for scripted players to drive a
table (preset decks, the audit token, tables started on demand); :func:`stop_stack`
stops a stack faster than ``Stack.stop``.
"""

from __future__ import annotations

import threading

from devroom.stack import Stack

AUDIT_TOKEN = "e2e-audit-token"


def stack_env(**table: str) -> dict[str, dict[str, str]]:
    """``Stack(env=...)`` for tests: preset decks allowed in dealer and table, the
    audit token set, tables started only when a test first touches them (so that a
    table's first hand never starts before its preset deck is set), quick idle
    polls, and a roomy deadline on the table's downstream calls (a hand is voided
    when one fails; a loaded test machine can be slow).  Keyword arguments override
    or add table settings."""
    return {
        "dealer": {"DEALER_ALLOW_PRESET_DECKS": "1"},
        "table": {
            "TABLE_ALLOW_PRESET_DECKS": "1",
            "TABLE_AUDIT_TOKEN": AUDIT_TOKEN,
            "TABLE_DISCOVERY_S": "3600",
            "TABLE_IDLE_POLL_S": "0.3",  # idle tables ask the lobby 3 times a second
            "CALL_DEADLINE_S": "10",
            **table,
        },
    }


def stop_stack(stack: Stack) -> None:
    """``stack.stop()``, faster: the table first (it stops calling the others), then
    the four backends side by side."""
    table = stack.processes.pop("table", None)
    if table is not None:
        table.terminate()
    backends = [stack.processes.pop(name) for name in list(stack.processes)]
    threads = [threading.Thread(target=p.terminate) for p in backends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

"""A test stack's service settings, and stopping it quickly (tests only).

:func:`stack_env` is what ``Stack(env=...)`` needs for scripted players to drive a
table (preset decks, the audit token, tables started on demand); :func:`stop_stack`
stops a stack faster than ``Stack.stop``; :func:`public_channel` is a blocking
player's channel to a service's public port (server TLS, the room's CA).
"""

from __future__ import annotations

import threading
from typing import Any

import grpc

from devroom.launcher import ServiceProcess
from devroom.stack import Stack
from poker_wire.channels import player_channel_sync

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


def public_channel(process: ServiceProcess, *, options: Any = ()) -> grpc.Channel:
    """A blocking channel to ``process``'s public port, as a player: server TLS
    trusting the process's CA, no client certificate (plaintext when the process
    runs without TLS)."""
    if process.pki is None:
        return grpc.insecure_channel(process.public_target, options=list(options))
    return player_channel_sync(process.public_target, process.pki.ca_file, options=options)

"""Players' secret tokens: how they are made, stored (a SHA-256 digest, never the
token) and checked, in one place for the Lobby and the Tournaments services, so both
answer a missing, oversized or wrong token with the same status and message."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from poker_wire import check_id
from service_kit.errors import InvalidArgumentError, NotFoundError, PermissionDeniedError

from .store import LobbyStore, PlayerRow

MAX_TOKEN_LENGTH = 128
TOKEN_BYTES = 32  # 256 bits of secret; ``token_urlsafe`` gives 43 characters


def new_token() -> str:
    """A fresh secret token (URL-safe base64) that never begins with ``-``.

    About one ``token_urlsafe`` in 64 begins with ``-``, which command lines read as
    an option (``poker ... --token -abc``): such draws are thrown away and drawn
    again.  That costs under 0.03 bits of the 256, and every character after the
    first stays uniform.  (Clients must still accept old tokens that begin with
    ``-``: the ``poker`` CLI does.)
    """
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if not token.startswith("-"):
            return token


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def authenticate(store: LobbyStore, player_id: str, token: str) -> PlayerRow:
    """The player whose secret ``token`` this is: INVALID_ARGUMENT for a malformed
    id or token, NOT_FOUND for an unknown player, PERMISSION_DENIED for a wrong
    token (compared in constant time)."""
    pid = check_id(player_id, "player_id")
    if not token:
        raise InvalidArgumentError("token is required: the secret RegisterPlayer returned")
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidArgumentError(f"token is at most {MAX_TOKEN_LENGTH} characters")
    row = store.player(pid)
    if row is None:
        raise NotFoundError(f"no player {pid}")
    if not hmac.compare_digest(row.token_hash, token_hash(token)):
        raise PermissionDeniedError(f"wrong token for player {pid}")
    return row

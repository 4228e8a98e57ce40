"""The one error of the wire layer: a request field the rules cannot take.

``poker_wire`` is shared by the services and by client-side code (bots, the CLI),
so it raises its own type instead of a server's: ``service_kit`` reports a
``WireError`` as INVALID_ARGUMENT with its message, exactly as it reports its own
``InvalidArgumentError``.  It is deliberately not a ``ValueError``: code that
catches ``ValueError`` around a parse (an audit replaying a log, a card parser)
must not swallow a malformed request by accident.

>>> from poker_wire import check_count
>>> check_count(-1, "count", 0, 52)
Traceback (most recent call last):
...
poker_wire.errors.WireError: count must be 0..52, got -1
"""

from __future__ import annotations


class WireError(Exception):
    """A malformed request field: the message says which field and what is allowed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

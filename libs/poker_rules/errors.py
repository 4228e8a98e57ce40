"""Typed errors of the rules library.

Services map these to gRPC status codes: ``IllegalActionError`` and
``NotYourTurnError`` to FAILED_PRECONDITION, ``InvalidConfigError`` to
INVALID_ARGUMENT.  Every message says what was wrong and what is allowed, because
bot authors read them.
"""

from __future__ import annotations


class RulesError(Exception):
    """Base class: something the rules do not allow."""


class InvalidConfigError(RulesError, ValueError):
    """A game configuration or starting position that the rule book does not allow."""


class IllegalActionError(RulesError):
    """An action that is not legal now.  The hand state is unchanged."""


class NotYourTurnError(IllegalActionError):
    """An action from a player who is not the one to act."""


class HandOverError(IllegalActionError):
    """An action sent after the hand has ended."""


class DeckExhaustedError(RulesError):
    """The deck cannot serve a deal even after the reshuffle the rules allow."""

"""Structured JSON logs, one object per line on stdout.

Every line carries the service name, level and an ISO timestamp, plus whatever is
bound in the current context: servicers bind ``hand_id`` and ``table_id`` with
``bound_contextvars`` (``structlog.contextvars``) for the duration of a call, so a
hand can be followed across services by grepping one id.  grpc.aio runs each RPC
in its own task, so bindings never leak from one call into another.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog
from structlog.contextvars import bound_contextvars
from structlog.typing import EventDict, WrappedLogger

__all__ = ["StdlibToJson", "bound_contextvars", "configure_logging", "get_logger", "quieted"]

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def configure_logging(service: str, level: str) -> None:
    """JSON lines to stdout, filtered at ``level``, each tagged with ``service``."""

    def add_service(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
        event.setdefault("service", service)
        return event

    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            add_service,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level, logging.ERROR)),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    # What other libraries write through the standard logging module: warnings
    # and errors only, as the same JSON lines.
    root = logging.getLogger()
    root.handlers = [StdlibToJson()]
    root.setLevel(logging.WARNING)


class StdlibToJson(logging.Handler):
    """A standard-logging record as one of the room's JSON lines (``logger`` names
    its source, an exception is formatted into ``exception``).

    asyncio reports a task destroyed while pending, or an exception nobody
    retrieved, through the standard ``logging`` module; with no handler there,
    Python's last-resort handler printed those as plain text among the JSON lines
    (seen at a table service's shutdown after the services it calls had gone)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            extra: dict[str, Any] = {"logger": record.name}
            if record.exc_info:
                extra["exc_info"] = record.exc_info
            get_logger().log(record.levelno, record.getMessage(), **extra)
        except Exception:  # a logging failure must not end the service
            self.handleError(record)


@contextmanager
def quieted(level: str = "warning") -> Iterator[None]:
    """structlog lines below ``level`` dropped for the block, the configuration put
    back after it.

    For a service's code run inside another program (a bench building a room with
    the lobby's own functions, a test playing thousands of hands): there,
    ``configure_logging`` would be wrong, since it is a service's whole-process
    set-up (the root logger's handler, loggers cached on first use) and outlived
    the caller; in a pytest worker it sent a later test's asyncio errors into
    that test's captured stdout.

    >>> before = structlog.get_config()
    >>> with quieted("warning"):
    ...     get_logger().info("a deck opened")  # dropped
    >>> structlog.get_config() == before
    True
    """
    saved = structlog.get_config()
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level, logging.ERROR)),
        cache_logger_on_first_use=False,
    )
    try:
        yield
    finally:
        structlog.configure(**saved)


def get_logger(**initial: Any) -> structlog.typing.FilteringBoundLogger:
    """A logger with ``initial`` key-values bound."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(**initial)
    return logger

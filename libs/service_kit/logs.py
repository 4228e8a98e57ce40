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
from typing import Any

import structlog
from structlog.contextvars import bound_contextvars
from structlog.typing import EventDict, WrappedLogger

__all__ = ["StdlibToJson", "bound_contextvars", "configure_logging", "get_logger"]

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}


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


def get_logger(**initial: Any) -> structlog.typing.FilteringBoundLogger:
    """A logger with ``initial`` key-values bound."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(**initial)
    return logger

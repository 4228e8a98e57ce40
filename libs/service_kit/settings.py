"""Configuration from environment variables, typed, with documented defaults.

Every service reads the same server settings (the table below) plus its own, each
through ``env_int``/``env_float``/``env_bool``/``env_str``, which refuse a bad value
with a ``ConfigError`` naming the variable, instead of failing later somewhere
else.  A process is configured entirely by its environment, the same way on a
laptop and in a Kubernetes Deployment.

=================  ============================  =========================================
variable           default                       meaning
=================  ============================  =========================================
HOST               127.0.0.1                     address the gRPC and metrics servers bind
PORT               the service's (README)        gRPC port; 0 = any free port (reported in
                                                 the ``serving`` log line)
METRICS_PORT       the service's (README)        Prometheus ``/metrics`` port; 0 = any free
LOG_LEVEL          info                          debug, info, warning, error
SHUTDOWN_DRAIN_S   0                             after SIGTERM, seconds health reports
                                                 NOT_SERVING before the server stops (lets
                                                 load balancers notice first)
SHUTDOWN_GRACE_S   5                             seconds in-flight RPCs get to finish
MAX_MESSAGE_BYTES  4194304                       largest request accepted
EVENT_LOOP         uvloop                        uvloop, or asyncio for the stdlib loop
                                                 (``service_kit.loop``)
PARENT_PID         0 (none)                      set by a launcher (``services.launcher``):
                                                 SIGTERM when that process dies (Linux)
=================  ============================  =========================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

LOG_LEVELS = ("debug", "info", "warning", "error")


class ConfigError(ValueError):
    """An environment variable with a value the service cannot use."""


def env_str(
    name: str,
    default: str,
    *,
    choices: tuple[str, ...] = (),
    environ: Mapping[str, str] | None = None,
) -> str:
    """The variable's value, or ``default`` when unset or empty."""
    env = os.environ if environ is None else environ
    value = env.get(name, "").strip() or default
    if choices and value not in choices:
        raise ConfigError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def env_int(
    name: str,
    default: int,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """An integer variable within ``[minimum, maximum]``."""
    raw = env_str(name, str(default), environ=environ)
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected an integer") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ConfigError(f"{name}={value}: expected {minimum}..{maximum}")
    return value


def env_float(
    name: str, default: float, *, minimum: float = 0.0, environ: Mapping[str, str] | None = None
) -> float:
    """A non-negative (by default) number of seconds or similar."""
    raw = env_str(name, str(default), environ=environ)
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number") from None
    if not value >= minimum:  # also refuses NaN
        raise ConfigError(f"{name}={value}: expected at least {minimum}")
    return value


def env_secret(name: str, *, environ: Mapping[str, str] | None = None) -> str:
    """A secret: ``NAME``, or the first line of the file ``NAME_FILE`` names (how
    Kubernetes hands over a mounted Secret: a file is not shown by ``kubectl
    describe`` or inherited by child processes, an environment variable is).
    Empty when neither is set or the file does not exist (an optional Secret not
    created); both set, or a file that exists but cannot be read, is an error."""
    env = os.environ if environ is None else environ
    value = env.get(name, "").strip()
    path = env.get(f"{name}_FILE", "").strip()
    if not path:
        return value
    if value:
        raise ConfigError(f"set {name} or {name}_FILE, not both")
    try:
        with open(path, encoding="utf-8") as file:
            return file.readline().strip()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise ConfigError(f"{name}_FILE={path!r}: {exc.strerror}") from None


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_bool(name: str, default: bool, *, environ: Mapping[str, str] | None = None) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (case-insensitive)."""
    raw = env_str(name, "1" if default else "0", environ=environ).lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ConfigError(f"{name}={raw!r}: expected 1/true/yes/on or 0/false/no/off")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The settings every service has (see the module docstring for the variables)."""

    host: str
    port: int
    metrics_port: int
    log_level: str
    drain_seconds: float
    grace_seconds: float
    max_message_bytes: int
    parent_pid: int = 0

    @classmethod
    def from_env(
        cls,
        *,
        default_port: int,
        default_metrics_port: int,
        environ: Mapping[str, str] | None = None,
    ) -> ServerSettings:
        """Read the variables, with this service's default ports."""
        return cls(
            host=env_str("HOST", "127.0.0.1", environ=environ),
            port=env_int("PORT", default_port, minimum=0, maximum=65535, environ=environ),
            metrics_port=env_int(
                "METRICS_PORT", default_metrics_port, minimum=0, maximum=65535, environ=environ
            ),
            log_level=env_str("LOG_LEVEL", "info", choices=LOG_LEVELS, environ=environ),
            drain_seconds=env_float("SHUTDOWN_DRAIN_S", 0.0, environ=environ),
            grace_seconds=env_float("SHUTDOWN_GRACE_S", 5.0, environ=environ),
            max_message_bytes=env_int(
                "MAX_MESSAGE_BYTES", 4 * 1024 * 1024, minimum=1024, environ=environ
            ),
            parent_pid=env_int("PARENT_PID", 0, minimum=0, environ=environ),
        )

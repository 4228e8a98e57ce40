"""Configuration from environment variables: typed objects, read once, documented.

A process is configured entirely by its environment, the same way on a laptop and
in a Kubernetes Deployment.  Each service's settings are one frozen dataclass
whose every field is declared with ``setting(...)``: the variable's name, its
default, its bounds and a one-line meaning, in one place.  ``from_env`` reads them
all at start (``read_settings``), refusing a bad value with a ``ConfigError`` that
names the variable instead of failing later somewhere else; the tables in
``docs/services.md`` are generated from the same declarations
(``settings_table``), and a test fails when the two differ.

``ServerSettings`` (below) are the ones every service has; PORT and METRICS_PORT
default to the service's row of ``service_kit.ports.DEFAULT_PORTS``.  The
``env_*`` readers do the parsing and checking for one variable.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar, cast

from .grpc_core import LEGACY_ENDPOINTS

LOG_LEVELS = ("debug", "info", "warning", "error")
EVENT_LOOPS = ("uvloop", "asyncio")

T = TypeVar("T", bound=bool | int | float | str)
ENV: Final = "env"  # the field metadata key that holds a setting's Var
PARSE: Final = "parse"  # and, for a parsed setting, its parser


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
        raise ConfigError(f"{name}={value}: expected {_range_text(minimum, maximum)}")
    return value


def _range_text(minimum: float | None, maximum: float | None) -> str:
    """``"1..10"``, ``"at least 1"``, ``"at most 10"`` (numbers as the docs write them).

    >>> _range_text(1, 10), _range_text(1024, None), _range_text(0.5, None)
    ('1..10', 'at least 1024', 'at least 0.5')
    """
    low = None if minimum is None else format(minimum, "g")
    high = None if maximum is None else format(maximum, "g")
    if low is not None and high is not None:
        return f"{low}..{high}"
    return f"at least {low}" if low is not None else f"at most {high}"


def env_float(
    name: str,
    default: float,
    *,
    minimum: float = 0.0,
    maximum: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> float:
    """A finite number of seconds or similar within ``[minimum, maximum]``
    (non-negative by default; ``inf`` and ``nan`` are refused)."""
    raw = env_str(name, str(default), environ=environ)
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number") from None
    high = math.inf if maximum is None else maximum
    if not (math.isfinite(value) and minimum <= value <= high):  # NaN fails every test
        expected = _range_text(minimum, maximum)
        raise ConfigError(f"{name}={raw}: expected a finite number, {expected}")
    return value


def parse_address(name: str, text: str) -> str:
    """``host:port`` (a port 1..65535; ``[::1]:50051`` for IPv6), for the
    settings that say where another service is: a value without a port started
    the service and then failed every call, once a second, for ever.

    >>> parse_address("X_ADDR", "lobby.cardroom:50054")
    'lobby.cardroom:50054'
    >>> parse_address("X_ADDR", "nohostport")
    Traceback (most recent call last):
    ...
    service_kit.settings.ConfigError: X_ADDR: 'nohostport' is not host:port
    """
    address = text.strip()
    host, _, port = address.rpartition(":")
    bare_ipv6 = ":" in host and not (host.startswith("[") and host.endswith("]"))
    if not host or bare_ipv6 or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"{name}: {address!r} is not host:port")
    return address


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
class Var(Generic[T]):
    """One environment variable: its name, default, bounds and meaning.

    The type of ``default`` picks the reader (``env_bool``, ``env_int``,
    ``env_float``, ``env_str``; ``secret`` reads ``env_secret``).  ``shown`` and
    ``values`` replace the default and the accepted values in the docs when the
    plain value would mislead (a default that depends on the service, say).
    """

    name: str
    default: T
    doc: str
    minimum: int | float | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    secret: bool = False
    shown: str = ""
    values: str = ""

    def read(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        default: T | None = None,
        minimum: int | float | None = None,
    ) -> T:
        """The variable's value (``default`` and ``minimum`` override the declared
        ones, for a bound that depends on another setting)."""
        fallback = self.default if default is None else default
        low = self.minimum if minimum is None else minimum
        if self.secret:
            return cast(T, env_secret(self.name, environ=environ))
        if isinstance(fallback, bool):
            return cast(T, env_bool(self.name, fallback, environ=environ))
        if isinstance(fallback, int):
            return cast(
                T,
                env_int(
                    self.name,
                    fallback,
                    minimum=None if low is None else int(low),
                    maximum=self.maximum,
                    environ=environ,
                ),
            )
        if isinstance(fallback, float):
            floor = 0.0 if low is None else float(low)
            return cast(
                T,
                env_float(
                    self.name, fallback, minimum=floor, maximum=self.maximum, environ=environ
                ),
            )
        return cast(T, env_str(self.name, fallback, choices=self.choices, environ=environ))

    def default_text(self) -> str:
        """The default as the docs show it."""
        if self.shown:
            return self.shown
        if isinstance(self.default, bool):
            return "1" if self.default else "0"
        if isinstance(self.default, float):
            return format(self.default, "g")
        return str(self.default) if self.default != "" else "(empty)"

    def values_text(self) -> str:
        """What the variable accepts, as the docs show it."""
        if self.values:
            return self.values
        if self.secret:
            return "text"
        if isinstance(self.default, bool):
            return "0 or 1"
        if self.choices:
            return ", ".join(self.choices)
        if isinstance(self.default, int | float):
            kind = "integer" if isinstance(self.default, int) else "number"
            low = "" if self.minimum is None else format(self.minimum, "g")
            if self.maximum is not None:
                return f"{kind} {low}..{self.maximum}"
            return f"{kind} >= {low}" if low else kind
        return "text"


def setting(
    var: Var[T],
    *,
    parse: Callable[[str, str], Any] | None = None,
    default: Any = None,
) -> Any:
    """A settings field read from ``var``; with ``parse(name, text)``, the field
    holds what it returns (``default``: the parsed form of the var's default)."""
    value = var.default if default is None else default
    metadata: dict[str, object] = {ENV: var}
    if parse is not None:
        metadata[PARSE] = parse
    return field(default=value, metadata=metadata, repr=not var.secret)


class Settings(Protocol):
    """A settings dataclass (what ``read_settings`` and ``settings_table`` take)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


S = TypeVar("S", bound=Settings)


def variables(cls: type[Settings]) -> list[tuple[str, Var[Any]]]:
    """The (field name, Var) pairs of a settings class, in declaration order."""
    return [(f.name, f.metadata[ENV]) for f in fields(cls) if ENV in f.metadata]


def var_of(cls: type[Settings], name: str) -> Var[Any]:
    """The Var of one field."""
    var: Var[Any] = cls.__dataclass_fields__[name].metadata[ENV]
    return var


def read_settings(cls: type[S], environ: Mapping[str, str] | None = None, **known: Any) -> S:
    """``cls`` with every field read from the environment, except those ``known``
    gives (values a ``from_env`` read itself, with bounds of its own)."""
    values = dict(known)
    for item in fields(cls):
        if item.name in values or ENV not in item.metadata:
            continue
        var: Var[Any] = item.metadata[ENV]
        value = var.read(environ)
        parse = item.metadata.get(PARSE)
        values[item.name] = value if parse is None else parse(var.name, value)
    return cls(**values)


def settings_table(cls: type[Settings]) -> str:
    """The Markdown table of a settings class's variables (docs/services.md)."""
    lines = ["| variable | default | values | meaning |", "| --- | --- | --- | --- |"]
    for _, var in variables(cls):
        cells = (f"`{var.name}`", var.default_text(), var.values_text(), var.doc)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


CALL_DEADLINE: Final = Var(
    "CALL_DEADLINE_S",
    2.0,
    "deadline in seconds of every unary call a client makes (a stuck peer cannot "
    "hold a hand hostage)",
    minimum=0.001,
)
EVENT_LOOP: Final = Var(
    "EVENT_LOOP", "uvloop", "the asyncio event loop (`service_kit.loop`)", choices=EVENT_LOOPS
)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The settings every service has; PORT and METRICS_PORT default to the
    service's row of ``service_kit.ports.DEFAULT_PORTS``."""

    host: str = setting(Var("HOST", "127.0.0.1", "address the gRPC and metrics servers bind"))
    port: int = setting(
        Var(
            "PORT",
            0,
            "gRPC port; 0 = any free port (reported in the `serving` log line)",
            minimum=0,
            maximum=65535,
            shown="the service's",
        )
    )
    metrics_port: int = setting(
        Var(
            "METRICS_PORT",
            0,
            "Prometheus `/metrics` port; 0 = any free port",
            minimum=0,
            maximum=65535,
            shown="the service's",
        )
    )
    public_port: int = setting(
        Var(
            "PUBLIC_PORT",
            0,
            "lobby and table only: the player plane's port (server TLS, no client "
            "certificate); 0 = any free port",
            minimum=0,
            maximum=65535,
            shown="the service's",
        )
    )
    tls_dir: str = setting(
        Var(
            "TLS_DIR",
            "",
            "directory with `ca.crt`, `tls.crt`, `tls.key` (a cert-manager Secret's "
            "layout): the CA trusted and this service's certificate, which names its "
            "identity; re-read when the files change.  Required unless GRPC_PLAINTEXT=1",
            values="a directory",
        )
    )
    plaintext: bool = setting(
        Var(
            "GRPC_PLAINTEXT",
            False,
            "benchmarks only (`bench --plaintext`): serve and call without TLS or "
            "identities, to measure what TLS costs; never in a room",
        )
    )
    player_calls_per_s: float = setting(
        Var(
            "PLAYER_CALLS_PER_S",
            100.0,
            "player plane: unary calls a second one player (or connection) may make; "
            "past that RESOURCE_EXHAUSTED (the room's own identities are not limited)",
            minimum=0.1,
        )
    )
    player_burst: int = setting(
        Var(
            "PLAYER_BURST",
            500,
            "player plane: calls one player may make at once before the rate applies",
            minimum=1,
        )
    )
    log_level: str = setting(
        Var("LOG_LEVEL", "info", "log lines below it are dropped", choices=LOG_LEVELS)
    )
    drain_seconds: float = setting(
        Var(
            "SHUTDOWN_DRAIN_S",
            0.0,
            "after SIGTERM, seconds health reports NOT_SERVING before the server stops "
            "(lets load balancers notice first)",
        )
    )
    grace_seconds: float = setting(
        Var("SHUTDOWN_GRACE_S", 5.0, "seconds in-flight RPCs get to finish on shutdown")
    )
    gc_full_growth: float = setting(
        Var(
            "GC_FULL_GROWTH",
            1.0,
            "a full garbage collection when resident memory grew by this share since the "
            "last one (1.0: doubled, as Go's GOGC=100), instead of CPython's count of "
            "promoted objects (service_kit.heap: no needless pauses at 1,000 tables); "
            "0 = CPython's rule",
            minimum=0,
            maximum=10,
        )
    )
    gc_young: bool = setting(
        Var(
            "GC_YOUNG_COLLECTIONS",
            False,
            "CPython's young-generation collections; off, every cycle is left to the "
            "full collections on memory growth (GC_FULL_GROWTH; service_kit.heap: "
            "a table process's young collections found almost nothing and paused "
            "it for up to 68 ms); on only where GC_FULL_GROWTH is 0 or the service "
            "makes cycles (the lobby)",
            shown="off; lobby on",
        )
    )
    grpc_experiments: str = setting(
        Var(
            "GRPC_EXPERIMENTS",
            LEGACY_ENDPOINTS,
            "read by gRPC core itself when grpc loads (service_kit.grpc_core sets this "
            "default first): the EventEngine endpoints off, one thread hand-off fewer "
            "per message; a value of yours is used as it is (gRPC's defaults: "
            "event_engine_client,event_engine_listener,event_engine_for_all_other_endpoints)",
        )
    )
    max_message_bytes: int = setting(
        Var(
            "MAX_MESSAGE_BYTES",
            1024 * 1024,
            "largest request accepted, in bytes (a bigger one is RESOURCE_EXHAUSTED before "
            "it is read); the betting service's default is 4 MiB (its batches carry states)",
            minimum=1024,
            shown="1 MiB; betting 4 MiB",
        )
    )
    event_loop: str = setting(EVENT_LOOP)
    parent_pid: int = setting(
        Var(
            "PARENT_PID",
            0,
            "set by the room's launcher: SIGTERM when that process dies (Linux); 0 = none",
            minimum=0,
        )
    )

    @classmethod
    def from_env(
        cls,
        *,
        default_port: int,
        default_metrics_port: int,
        default_public_port: int = 0,
        default_max_message_bytes: int = 1024 * 1024,
        default_gc_young: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> ServerSettings:
        """Read the variables, with this service's default ports."""
        settings = read_settings(
            cls,
            environ,
            port=var_of(cls, "port").read(environ, default=default_port),
            metrics_port=var_of(cls, "metrics_port").read(environ, default=default_metrics_port),
            public_port=var_of(cls, "public_port").read(environ, default=default_public_port),
            max_message_bytes=var_of(cls, "max_message_bytes").read(
                environ, default=default_max_message_bytes
            ),
            gc_young=var_of(cls, "gc_young").read(environ, default=default_gc_young),
        )
        if not settings.tls_dir and not settings.plaintext:
            raise ConfigError(
                "TLS_DIR is required: the directory with ca.crt, tls.crt and tls.key "
                "(`python -m service_kit.pki DIR` issues a local set; the room does it "
                "itself); GRPC_PLAINTEXT=1 is for benchmarks only"
            )
        return settings

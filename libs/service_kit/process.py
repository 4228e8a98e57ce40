"""A service process's ties to the machine: the ports it binds and its launcher.

Why: a service that cannot bind its port used to die with a traceback from deep
in grpc ("Failed to bind to address"), and a service started by a launcher (the
main job, ``devroom.room``) lived on when that launcher was killed, holding its
ports.  ``BindError`` makes the first one line naming the port; ``follow_parent``
asks Linux to send SIGTERM when the launcher dies (``PR_SET_PDEATHSIG``), so even
a SIGKILLed room leaves nothing behind.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class BindError(RuntimeError):
    """A server could not listen on its port; the message names the port."""


def port_in_use(host: str, port: int) -> bool:
    """Whether binding ``host:port`` fails because another socket holds the port.

    With SO_REUSEADDR, as the gRPC and metrics servers bind: connections left in
    TIME_WAIT by a stopped server do not count, a listening socket does."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def bind_error(host: str, port: int, what: str, reason: str) -> BindError:
    """The one-line error of a failed bind: "port 50051 (gRPC) is in use"."""
    if port and port_in_use(host, port):
        return BindError(f"port {port} ({what}) is in use")
    return BindError(f"cannot listen on {host}:{port} ({what}): {reason}")


def follow_parent(parent_pid: int) -> None:
    """SIGTERM this process when ``parent_pid`` (the launcher) exits; exit now if
    it already has.  0 (the default, a service run on its own or in a container)
    does nothing; so does any system but Linux."""
    if not parent_pid or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
        return  # not allowed here: the launcher stops us itself, as before
    if os.getppid() != parent_pid:  # the launcher died before the prctl
        raise SystemExit(0)

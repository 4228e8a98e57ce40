"""``poker history | head``: a reader that closes the pipe early ends the CLI quietly."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

# The real main() with the history command replaced by one that prints far more than a
# pipe's buffer holds, so the write after the reader has gone raises BrokenPipeError.
SPEW = textwrap.dedent(
    """
    import sys
    from poker_cli import __main__ as cli

    async def spew(args):
        for i in range(200_000):
            print("hand", i, "of a long history")
        return 0

    cli.COMMANDS["history"] = spew
    sys.exit(cli.main(["history", "T1"]))
    """
)


def test_a_closed_pipe_ends_the_cli_without_a_traceback() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SPEW],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does after its lines
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert first == b"hand 0 of a long history\n"
    assert err == "", err  # no BrokenPipeError traceback, no "Exception ignored"
    assert code == 128 + signal.SIGPIPE  # the shell's status for a reader that went away

"""How the room's launchers take a stop signal (devroom.stack.StopSignals)."""

from __future__ import annotations

import asyncio
import signal

from devroom.stack import ECHO_S, STOP_SIGNALS, StopSignals


def test_the_same_signal_again_at_once_is_one_request_and_later_is_stop_at_once() -> None:
    """``kill -TERM -<group>`` of ``make run`` reaches the room twice (the group's
    signal and make passing it on): that stops early, with the summary.  Another
    signal a moment later (a second Ctrl-C) stops at once."""

    async def scenario() -> None:
        now = [100.0]
        made: asyncio.Queue[StopSignals] = asyncio.Queue()

        async def launcher() -> None:  # the task a second request cancels
            made.put_nowait(StopSignals(clock=lambda: now[0]))
            await asyncio.sleep(60)

        task = asyncio.create_task(launcher())
        signals = await made.get()
        try:
            signals._on_signal(signal.SIGTERM)
            assert signals.event.is_set() and signals.name == "SIGTERM"
            now[0] += ECHO_S / 10
            signals._on_signal(signal.SIGTERM)  # make's echo of the group's signal
            await asyncio.sleep(0.01)
            assert signals.count == 1 and not task.done()
            now[0] += ECHO_S
            signals._on_signal(signal.SIGINT)  # asked again: stop at once
            await asyncio.sleep(0.01)
            assert signals.count == 2 and task.cancelled()
            assert signals.exit_code == 128 + signal.SIGTERM  # the first one's
        finally:
            task.cancel()
            loop = asyncio.get_running_loop()
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)

    asyncio.run(scenario())

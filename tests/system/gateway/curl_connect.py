"""A player made of ``curl`` calls: the Connect protocol's JSON codec to the gateway.

``python -m tests.system.gateway.curl_connect --target 127.0.0.1:50050 --ca ca.crt
--table TABLE_ID [--hands 3] [--name NAME] [--buy-in CHIPS] [--timeout 120]
[--http1.1]``

What a browser, a shell script or anyone without a gRPC library does: every unary
call is one ``curl`` POST of a JSON body to ``https://HOST:PORT/poker.room.v1.Room/
<Method>`` (``content-type: application/json``), the answer a JSON body (an error:
an HTTP error status and ``{"code", "message"}``).  The seat's events come from
``Room.Follow`` on the Connect streaming protocol (``application/connect+json``):
the request and every message of the answer in an envelope (one flags byte, a
4-byte big-endian length, the JSON), read from ``curl -N`` as they arrive, until
the end-of-stream envelope (flags 0x02: ``{"error": ...}`` when the call failed).
Each YourTurn is answered with the unary ``Room.Act``.

The flow and the JSON line on stdout are those of the Node clients
(clients/node/grpc-client.mjs): register, follow the seat, sit down with the
table's minimum buy-in, answer every turn with a passive legal action until
``--hands`` hands the seat was dealt into have finished, stand up, read the hand
history.  Any failure: its message on stderr, exit status 1.

The bearer credential is given to curl in a header file (``-H @file``, mode
0600), never on its command line, where any user of the machine could read it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SERVICE = "poker.room.v1.Room"
CALL_TIMEOUT_S = 30.0
HISTORY_WAIT_S = 5.0
END_STREAM = 0x02
COMPRESSED = 0x01

Json = dict[str, Any]


class ConnectCallError(Exception):
    """A call the gateway refused: the Connect error code ("failed_precondition")."""

    def __init__(self, method: str, code: str, message: str) -> None:
        super().__init__(f"Room.{method}: {code}: {message}")
        self.code = code


class Curl:
    """The room's Connect JSON API, one ``curl`` process per call."""

    def __init__(self, target: str, ca_file: Path, workdir: Path, *, http1: bool = False) -> None:
        curl = shutil.which("curl")
        if curl is None:
            raise RuntimeError("curl is not installed")
        self.base = f"https://{target}/{SERVICE}"
        self.common = [curl, "--silent", "--show-error", "--cacert", str(ca_file)]
        if http1:
            self.common.append("--http1.1")
        self.headers = workdir / "headers"
        self.dump = workdir / "response-headers"
        self.credential = ""

    def set_credential(self, credential: str) -> None:
        self.credential = credential
        fd = os.open(self.headers, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"authorization: Bearer {credential}\n")

    def _command(self, method: str, content_type: str, max_time: float) -> list[str]:
        cmd = [
            *self.common,
            "--max-time",
            f"{max_time:.1f}",
            "-H",
            f"content-type: {content_type}",
            "-H",
            "connect-protocol-version: 1",
        ]
        if self.credential:
            cmd += ["-H", f"@{self.headers}"]
        return [*cmd, "--data-binary", "@-", f"{self.base}/{method}"]

    def call(self, method: str, request: Json, timeout: float = CALL_TIMEOUT_S) -> Json:
        """A unary call; the answer's JSON, or ConnectCallError."""
        cmd = self._command(method, "application/json", timeout)
        cmd[-1:-1] = ["--write-out", "\n%{http_code}"]
        done = subprocess.run(
            cmd,
            input=json.dumps(request).encode(),
            capture_output=True,
            timeout=timeout + 5,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"Room.{method}: curl exit status {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()}"
            )
        body, _, status = done.stdout.rpartition(b"\n")
        if status != b"200":
            raise _error(method, status.decode(), body)
        answer: Json = json.loads(body)
        return answer

    def stream(self, method: str, request: Json, max_time: float) -> Stream:
        """A server-streaming call on the Connect streaming protocol."""
        cmd = self._command(method, "application/connect+json", max_time)
        cmd[-1:-1] = ["--no-buffer", "--dump-header", str(self.dump)]
        payload = json.dumps(request).encode()
        proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdin is not None
        proc.stdin.write(struct.pack(">BI", 0, len(payload)) + payload)
        proc.stdin.close()
        return Stream(method, proc, self.dump)


def _error(method: str, status: str, body: bytes) -> ConnectCallError:
    """A unary call's error: the Connect error JSON, or what the body was."""
    try:
        error = json.loads(body)
        return ConnectCallError(method, str(error["code"]), str(error.get("message", "")))
    except (ValueError, KeyError, TypeError):
        text = body.decode(errors="replace")[:500]
        return ConnectCallError(method, f"http {status}", text)


class Stream:
    """The messages of a Connect streaming answer, read from curl's stdout."""

    def __init__(self, method: str, proc: subprocess.Popen[bytes], dump: Path) -> None:
        self.method = method
        self.proc = proc
        self.dump = dump
        self.closed = False

    def __iter__(self) -> Iterator[Json]:
        assert self.proc.stdout is not None
        while True:
            head = self.proc.stdout.read(5)
            if len(head) < 5:
                if self.closed:
                    return
                raise self._failure(head, "the stream ended")
            flags, length = struct.unpack(">BI", head)
            if flags & ~(COMPRESSED | END_STREAM):
                raise self._failure(head + self.proc.stdout.read(), "not an envelope")
            body = self.proc.stdout.read(length)
            if len(body) < length:
                raise self._failure(head + body, "a message cut short")
            if flags & COMPRESSED:
                raise RuntimeError(f"Room.{self.method}: a compressed message (none was asked)")
            message: Json = json.loads(body) if body else {}
            if flags & END_STREAM:
                error = message.get("error")
                if error:
                    raise ConnectCallError(
                        self.method, str(error.get("code")), str(error.get("message", ""))
                    )
                return
            yield message

    def _failure(self, read: bytes, what: str) -> Exception:
        """Why the answer is not (or no longer) a stream of envelopes: an HTTP error
        status (its body the error), or curl's own failure."""
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            lines = self.dump.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            lines = []
        statuses = [line.split()[1] for line in lines if line.startswith("HTTP/")]
        if statuses and statuses[-1] != "200":
            return _error(self.method, statuses[-1], read)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read().decode(errors="replace").strip()
        return RuntimeError(
            f"Room.{self.method}: {what} "
            f"(curl exit status {self.proc.returncode}: {err or 'no message'})"
        )

    def close(self) -> None:
        self.closed = True
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


# ------------------------------------------------------------------ the player

EVENT_KINDS = (
    "snapshot",
    "handStarted",
    "cardsDealt",
    "actionTaken",
    "streetStarted",
    "yourTurn",
    "drawTaken",
    "showdown",
    "handFinished",
    "actionRejected",
    "seatChanged",
    "pong",
    "batch",
    "toAct",
)


def event_kind(event: Json) -> str:
    """Which member of TableEvent's ``event`` oneof is set ("" for none)."""
    return next((kind for kind in EVENT_KINDS if kind in event), "")


def flatten(event: Json) -> list[Json]:
    """The events of one message, a batch (DELIVERY_ON_TURN) opened in order."""
    if event_kind(event) == "batch":
        return [e for inner in event["batch"].get("events", []) for e in flatten(inner)]
    return [event]


def passive_action(legal: Json) -> Json:
    """Check, else call, else the bring-in (stud), else stand pat (a draw's DISCARD
    of no card), else fold; a menu with none of those (it never should) gets its
    aggressive option at the lowest legal amount.  ``legal``: LegalActions' JSON."""
    kinds = set(legal.get("kinds", []))

    def has(kind: str) -> bool:
        return f"ACTION_KIND_{kind}" in kinds

    if has("CHECK") or legal.get("canCheck"):
        return {"kind": "ACTION_KIND_CHECK"}
    if has("CALL") or "callAmount" in legal:
        return {"kind": "ACTION_KIND_CALL"}
    if has("BRING_IN") or "bringInAmount" in legal:
        return {"kind": "ACTION_KIND_BRING_IN"}
    if has("DISCARD") or "maxDiscards" in legal:
        return {"kind": "ACTION_KIND_DISCARD", "cards": []}
    if has("FOLD") or legal.get("canFold"):
        return {"kind": "ACTION_KIND_FOLD"}
    raise_kind = legal.get("raiseKind", "ACTION_KIND_UNSPECIFIED")
    amounts = legal.get("toChoices") or [legal.get("minTo")]
    if raise_kind != "ACTION_KIND_UNSPECIFIED" and amounts[0] is not None:
        return {"kind": raise_kind, "amount": str(amounts[0])}
    raise RuntimeError(f"no action to choose in {legal}")


class SeatLog:
    """The seat's stream as the player follows it: the hands it was dealt into,
    those finished, its stack, and the turns to answer (each once)."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.dealt: set[str] = set()
        self.finished: list[str] = []
        self.voided: list[str] = []
        self.answered: set[tuple[str, str]] = set()
        self.stack: int | None = None
        self.rejections: list[str] = []
        self.seats: dict[str, int] = {}  # hand id -> the seat's number in it
        self.actions = 0  # the seat's actions the table applied (not the clock's)
        self.timeouts = 0  # ... and those the action clock applied for it

    def _mine(self, seats: list[Json]) -> Json | None:
        return next((s for s in seats if s.get("playerId") == self.player_id), None)

    def _deal_in(self, hand_id: str, seat: Json) -> None:
        self.dealt.add(hand_id)
        if seat.get("seat"):
            self.seats[hand_id] = int(seat["seat"])

    def handle(self, event: Json) -> list[Json]:
        """One message; the turns to answer: ``{handId, actionSeq, action}``."""
        turns: list[Json] = []
        for ev in flatten(event):
            kind = event_kind(ev)
            body: Json = ev.get(kind, {})
            hand_id = str(ev.get("handId", ""))
            if kind == "snapshot":
                mine = self._mine(body.get("seats", []))
                hand_id = str(body.get("handId", ""))
                if hand_id and mine and (mine.get("inHand") or mine.get("ownCards")):
                    self._deal_in(hand_id, mine)
                if "yourTurn" in body and hand_id:
                    self._turn(hand_id, body["yourTurn"], turns)
            elif kind == "handStarted":
                mine = self._mine(body.get("seats", []))
                if mine is not None:
                    self._deal_in(hand_id, mine)
            elif kind == "actionTaken":
                if body.get("seat") and body["seat"] == self.seats.get(hand_id):
                    if body.get("timeout"):
                        self.timeouts += 1
                    else:
                        self.actions += 1
            elif kind == "yourTurn":
                self.dealt.add(hand_id)
                self._turn(hand_id, body, turns)
            elif kind == "handFinished":
                if hand_id in self.dealt and hand_id not in self.finished + self.voided:
                    (self.voided if body.get("voided") else self.finished).append(hand_id)
                    mine = self._mine(body.get("seats", []))
                    if mine is not None:
                        self.stack = int(mine.get("stack", 0))
            elif kind == "actionRejected":
                self.rejections.append(json.dumps(body))
                print(f"action rejected: {json.dumps(body)}", file=sys.stderr)
        return turns

    def _turn(self, hand_id: str, your_turn: Json, turns: list[Json]) -> None:
        key = (hand_id, str(your_turn.get("actionSeq", "0")))
        if key in self.answered:
            return
        self.answered.add(key)
        turns.append(
            {
                "handId": hand_id,
                "actionSeq": key[1],
                "action": passive_action(your_turn.get("legal", {})),
            }
        )


def _finishes(event: Json) -> bool:
    return any(event_kind(e) == "handFinished" for e in flatten(event))


def _dealt_in(hand: Json, player_id: str) -> bool:
    """Whether a HandHistory's HandStarted lists the player."""
    return any(
        event_kind(e) == "handStarted"
        and any(s.get("playerId") == player_id for s in e["handStarted"].get("seats", []))
        for e in hand.get("events", [])
    )


def play(
    target: str,
    ca_file: Path,
    table_id: str,
    *,
    hands: int = 3,
    name: str | None = None,
    buy_in: int | None = None,
    timeout: float = 120.0,
    http1: bool = False,
) -> Json:
    """The whole flow; the JSON line's object."""
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryDirectory(prefix="curl-connect-") as tmp:
        room = Curl(target, ca_file, Path(tmp), http1=http1)
        registered = room.call("Register", {"name": name or f"curl-{secrets.token_hex(4)}"})
        player_id = str(registered["player"]["playerId"])
        room.set_credential(str(registered["credential"]))
        table = room.call("GetTable", {"tableId": table_id})
        chips = str(buy_in) if buy_in is not None else str(table.get("minBuyIn", "0"))
        log = SeatLog(player_id)

        # The stream first, then the seat: no event of the first hand is missed.
        stream = room.stream("Follow", {"tableId": table_id}, deadline - time.monotonic())
        seat = 0
        rebuys = 0
        leaving: Json | None = None
        seated = False
        try:
            events = iter(stream)
            first = next(events, None)
            if first is None or event_kind(first) != "snapshot":
                raise RuntimeError(f"Room.Follow: a Snapshot first, got {first!r}")
            seat = int(room.call("SitDown", {"tableId": table_id, "buyIn": chips}).get("seat", 0))
            seated = True
            for event in _chain(first, events):
                for turn in log.handle(event):
                    try:
                        room.call("Act", {"tableId": table_id, **turn})
                    except ConnectCallError as error:
                        # Too late or no longer the turn: nothing changed, go on.
                        if error.code != "failed_precondition":
                            raise
                        log.rejections.append(str(error))
                        print(error, file=sys.stderr)
                if not _finishes(event):
                    continue
                if leaving is not None:
                    break  # the hand a pending stand-up waited for is over
                if len(log.finished) >= hands:
                    leaving = room.call("StandUp", {"tableId": table_id})
                    if not leaving.get("pending"):
                        break
                    continue  # dealt into the next hand already: play it out
                if log.stack == 0:
                    # Broke before the hands were played: buy in again.
                    stood = room.call("StandUp", {"tableId": table_id})
                    if stood.get("pending"):
                        raise RuntimeError("broke, and the stand-up is pending")
                    sat = room.call("SitDown", {"tableId": table_id, "buyIn": chips})
                    seat = int(sat.get("seat", 0))
                    log.stack = None
                    rebuys += 1
                if time.monotonic() > deadline:
                    raise TimeoutError(f"timed out after {timeout} s")
            if leaving is None:
                raise RuntimeError(
                    f"the stream ended after {len(log.finished)} of {hands} hands"
                    if time.monotonic() < deadline
                    else f"timed out after {timeout} s"
                )
        except BaseException:
            # Leave no seat behind to time out at every turn (if that fails too,
            # the error that stopped the play is the one reported).
            if seated and leaving is None:
                with contextlib.suppress(Exception):
                    room.call("StandUp", {"tableId": table_id}, timeout=5.0)
            raise
        finally:
            stream.close()

        # The table's last 100 hands, and any of the player's older than those by
        # its id.  A hand whose HandFinished has just come may not be in the
        # history yet: the missing are asked for again for a few seconds.
        by_id: dict[str, Json] = {}
        history_waits = 0
        history_deadline = time.monotonic() + HISTORY_WAIT_S
        while True:
            history = room.call("GetHandHistory", {"tableId": table_id, "limit": 100})
            by_id.update({h["handId"]: h for h in history.get("hands", [])})
            for hand_id in [h for h in log.finished if h not in by_id]:
                try:
                    one = room.call("GetHandHistory", {"tableId": table_id, "handId": hand_id})
                except ConnectCallError as error:
                    if error.code != "not_found":
                        raise
                    continue
                by_id.update({h["handId"]: h for h in one.get("hands", [])})
            if all(h in by_id for h in log.finished) or time.monotonic() > history_deadline:
                break
            history_waits += 1
            time.sleep(0.2)
        return {
            "client": "curl connect+json",
            "table_id": table_id,
            "player_id": player_id,
            "seat": seat,
            "hands_played": len(log.finished),
            "hand_ids": log.finished,
            "history_count": len(history.get("hands", [])),
            "history_hand_ids": [
                h for h in log.finished if h in by_id and _dealt_in(by_id[h], player_id)
            ],
            "voided_hand_ids": log.voided,
            "actions": log.actions,
            "timeouts": log.timeouts,
            "rejections": len(log.rejections),
            "rebuys": rebuys,
            "history_waits": history_waits,
        }


def _chain(first: Json, rest: Iterator[Json]) -> Iterator[Json]:
    yield first
    yield from rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, help="the gateway, HOST:PORT")
    parser.add_argument("--ca", required=True, type=Path, help="the room's CA certificate")
    parser.add_argument("--table", required=True, help="the table id")
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--name")
    parser.add_argument("--buy-in", type=int)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds, for everything")
    parser.add_argument("--http1.1", dest="http1", action="store_true", help="not HTTP/2")
    args = parser.parse_args(argv)
    try:
        result = play(
            args.target,
            args.ca,
            args.table,
            hands=args.hands,
            name=args.name,
            buy_in=args.buy_in,
            timeout=args.timeout,
            http1=args.http1,
        )
    except Exception as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G4)
"""Issue acceptance point 3, leaks: many hands of every game, every message checked.

Three tables (Seven Card Stud, Stud Hi-Lo, 7-A draw no limit) play about thirty
hands each with random-legal players (folds, raises, all-ins with rebuys, draws,
showdowns, mucks).  Every seat has its own Play stream, seats alternating between
DELIVERY_EVERY_EVENT and DELIVERY_ON_TURN, and a spectator watches each table.
GetState snapshots of every seat are taken in the middle of hands, and after the
play every hand history is fetched as the public, every participant, a player of
another table and an outsider see it.

Then each hand's truth comes from the auditor's reveal (``leaks.hand_truth``) and
every message is scanned (``leaks.Scan``): no card reaches a viewer who may not
see it (G4, S12), no salt or reshuffle seed is ever sent, every card that is sent
sits on the seat that holds it, and each hand's commitment verifies.

The same play and the same scan run twice (issue 16, point 5): ``direct``, on the
table service's own public port, and through the room's ``door`` (the gateway),
where the seats take turns between Play (both deliveries), Follow + Act over
gRPC and Follow + Act in Connect JSON over HTTP/1.1 as a browser plays, two
spectators watch each table (gRPC, Connect JSON), and GetState and every hand
history are the door's answers (play.py).
"""

from __future__ import annotations

from collections import Counter

import pytest

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.table.v1 import table_pb2 as pb
from poker_wire.deck_proof import check_proof

from .leaks import HandTruth, Scan, attribution, audit, first, hand_truth
from .play import TablePlan, TableRecord, play_tables
from .room import DRAW_NL, STUD, STUD_HILO, VIAS, Room, Tendencies, Via, events_of

# Eight players who rarely fold reach seventh street without enough cards (S11):
# burns and stub are reshuffled (burned cards are then dealt, to their new owner
# only), or one community card is turned up for everyone.
FOLD = common.ACTION_KIND_FOLD
PASSIVE = Tendencies(fold=0.0, aggress=0.05)
PLANS = [
    TablePlan("sec stud", STUD, players=4, buy_in=1_500, hands=25),
    TablePlan("sec stud 8", STUD, players=8, buy_in=3_000, hands=6, tendencies=PASSIVE),
    TablePlan(
        "sec stud hi-lo", STUD_HILO, players=7, buy_in=1_500, hands=25, tendencies=Tendencies(0.02)
    ),
    TablePlan(
        "sec draw nl", DRAW_NL, players=5, buy_in=2_000, hands=30, tendencies=Tendencies(fold=0.1)
    ),
]


def truths_of(room: Room, records: list[TableRecord]) -> dict[str, HandTruth]:
    truths: dict[str, HandTruth] = {}
    for rec in records:
        public = {h.hand_id: h for viewer, _, h in rec.histories if viewer is None}
        assert set(rec.hand_ids) <= set(public), "every finished hand is in the history"
        for hand_id, history in public.items():
            reveal = room.reveal(rec.table_id, hand_id)
            truths[hand_id] = hand_truth(reveal, history)
    return truths


def _turns_seen(rec: TableRecord) -> str:
    """For a failure message: every turn the players were offered with the action_seq
    of each refusal (hand, player, how: event or snapshot, the menu)."""
    wanted = {r.action_seq for r in rec.rejected}
    seen = [f"refused: {[(r.action_seq, r.message) for r in rec.rejected]}"]
    for stream in rec.streams:
        for message in stream.messages:
            for event in events_of(message):
                kind = event.WhichOneof("event")
                turn = None
                if kind == "your_turn":
                    turn = event.your_turn
                elif kind == "snapshot" and event.snapshot.HasField("your_turn"):
                    turn = event.snapshot.your_turn
                if turn is not None and turn.action_seq in wanted:
                    hand_id = event.hand_id or event.snapshot.hand_id
                    seen.append(
                        f"{stream.player.name} {kind} hand={hand_id}"
                        f" seq={turn.action_seq} menu={turn.legal.description!r}"
                    )
    return "\n".join(seen)


@pytest.mark.slow
@pytest.mark.parametrize("via", VIAS)
def test_random_play_leaks_no_card_and_every_deck_verifies__G4_S12(room: Room, via: Via) -> None:
    records = play_tables(room, PLANS, seed=20240607, via=via)
    truths = truths_of(room, records)
    scan = Scan(truths)
    problems: list[str] = []
    ended: list[str] = []  # streams that did not last the play, actions refused
    for rec in records:
        assert rec.rejected == [], "random-legal players send legal actions only: " + _turns_seen(
            rec
        )
        for stream in rec.streams:
            label = (
                f"{rec.plan.name} seat stream of {stream.player.name}"
                f" ({stream.via}, delivery {stream.delivery})"
            )
            if stream.error is not None:
                ended.append(f"{label} ended with {stream.error!r}")
            if stream.refused:
                ended.append(f"{label}: actions refused: {stream.refused}")
            scan.stream(label, stream.player.player_id, stream.messages)
        assert rec.spectators
        for spectator in rec.spectators:
            label = f"{rec.plan.name} spectator ({spectator.via})"
            if spectator.error is not None:
                ended.append(f"{label} ended with {spectator.error!r}")
            scan.stream(label, None, spectator.messages)
        for player, snap in rec.snapshots:
            scan.snapshot(f"{rec.plan.name} GetState of {player.name}", player.player_id, snap)
        for viewer, label, history in rec.histories:
            pid = viewer.player_id if viewer else None
            scan.history(f"{rec.plan.name} {label} history", pid, history)
        for viewer, label, proof in rec.proofs:
            pid = viewer.player_id if viewer else None
            scan.proof(f"{rec.plan.name} {label} deck proof", pid, proof)
        problems += attribution_problems(rec, truths)
        problems += proof_problems(rec)
    assert not scan.violations, "\n".join(str(v) for v in scan.violations[:30])
    assert not problems, "\n".join(problems[:30])
    check_commitments(room, records, truths)
    check_mucks_in_history__S12(records, truths)
    coverage = check_coverage(records, truths, via)
    print(
        f"\nleak scan ({via}): {len(truths)} hands, {scan.messages} messages, "
        f"{scan.cards} cards checked; {dict(coverage)}"
    )
    # Checked last, so that a stream ended early still has what it got scanned.
    assert not ended, "\n".join(ended[:30])


def proof_problems(rec: TableRecord) -> list[str]:
    """G4a: every viewer's deck proof of every hand verifies against the card
    commitment its history's HandStarted carries (the streams got the same one:
    check_commitments) and against the cards that history shows."""
    problems: list[str] = []
    histories = {(id(viewer), h.hand_id): h for viewer, _, h in rec.histories}
    for viewer, label, proof in rec.proofs:
        verdict = check_proof(proof, histories[(id(viewer), proof.hand_id)])
        problems += [f"{label} deck proof of {proof.hand_id}: {p}" for p in verdict.problems]
    return problems


def attribution_problems(rec: TableRecord, truths: dict[str, HandTruth]) -> list[str]:
    """Every card a stream or snapshot puts on a seat is that seat's card."""
    problems: list[str] = []
    viewers: list[tuple[str | None, str, list[pb.TableEvent]]] = [
        (s.player.player_id, s.player.name, s.messages) for s in rec.streams
    ]
    viewers += [(None, f"spectator ({s.via})", s.messages) for s in rec.spectators]
    for pid, label, messages in viewers:
        for message in messages:
            for event in events_of(message):
                hand_id = event.snapshot.hand_id if event.HasField("snapshot") else event.hand_id
                truth = truths.get(hand_id)
                if truth is None:
                    continue
                seat = truth.seat_of.get(pid, 0) if pid else 0
                problems += [f"{label}: {p}" for p in attribution(event, truth, seat)]
    for player, snap in rec.snapshots:
        truth = truths.get(snap.hand_id)
        if truth is not None:
            seat = truth.seat_of.get(player.player_id, 0)
            event = pb.TableEvent(snapshot=snap)
            problems += [f"GetState {player.name}: {p}" for p in attribution(event, truth, seat)]
    return problems


def check_commitments(room: Room, records: list[TableRecord], truths: dict[str, HandTruth]) -> None:
    """G4: every hand's commitment, as every seat and the spectator got it, verifies;
    G4a: so does its per-card commitment, the same for everyone too."""
    for rec in records:
        seen: dict[str, set[bytes]] = {}
        cards: dict[str, set[bytes]] = {}
        messages = [m for s in rec.streams for m in s.messages]
        messages += [m for s in rec.spectators for m in s.messages]
        for message in messages:
            for event in events_of(message):
                if event.HasField("hand_started"):
                    seen.setdefault(event.hand_id, set()).add(event.hand_started.deck_commitment)
                    cards.setdefault(event.hand_id, set()).add(event.hand_started.card_commitment)
        for _, snap in rec.snapshots:
            seen.setdefault(snap.hand_id, set()).add(snap.deck_commitment)
            cards.setdefault(snap.hand_id, set()).add(snap.card_commitment)
        for hand_id in rec.hand_ids:
            truth = truths[hand_id]
            assert seen.get(hand_id) == {truth.commitment}, hand_id
            assert len(truth.commitment) == 32
            reveal = room.reveal(rec.table_id, hand_id)
            assert audit(reveal) == [], hand_id
            assert cards.get(hand_id) == {reveal.card_commitment}, hand_id
            assert len(reveal.card_commitment) == 32


def check_mucks_in_history__S12(records: list[TableRecord], truths: dict[str, HandTruth]) -> None:
    """S12: a called hand that was mucked is revealed in its participants' history,
    and only there (the leak scan already refuses it anywhere else)."""
    for rec in records:
        for viewer, label, history in rec.histories:
            truth = truths[history.hand_id]
            showdown = first(history.events, "showdown")
            if showdown is None:
                continue
            participant = viewer is not None and viewer.player_id in truth.seat_of
            for hand in showdown.showdown.hands:
                if not hand.mucked:
                    assert sorted(hand.cards) == sorted(truth.final(hand.seat))
                elif participant:
                    assert sorted(hand.cards) == sorted(truth.final(hand.seat)), label
                else:
                    assert not hand.cards, f"{label} sees a mucked hand"


def check_coverage(
    records: list[TableRecord], truths: dict[str, HandTruth], via: Via
) -> Counter[str]:
    """The play covered what the scan is meant to check (through the door: with
    every kind of client, each of which saw hands)."""
    seen: Counter[str] = Counter()
    for rec in records:
        seen["rebuys"] += rec.rebuys
        for s in rec.streams:
            seen[f"delivery {s.delivery}"] += 1
            seen["batches"] += sum(m.HasField("batch") for m in s.messages)
        for who, recordings in (("seat", rec.streams), ("spectator", rec.spectators)):
            for r in recordings:
                seen[f"{who} {r.via}"] += any(
                    e.HasField("hand_started") for m in r.messages for e in events_of(m)
                )
        seen["snapshots"] += len(rec.snapshots)
    for truth in truths.values():
        seen["hands"] += 1
        seen["folds"] += bool(truth.folded)
        seen["showdowns"] += bool(truth.shown_seats)
        seen["mucks"] += bool(truth.mucked_seats)
        seen["burns"] += bool(truth.burned)
        seen["draws"] += bool(truth.discards)
        seen["river reshuffled"] += truth.river == dpb.RIVER_OUTCOME_RESHUFFLED
        seen["community card"] += bool(truth.community)
        seen[f"game {common.Game.Name(truth.game)}"] += 1
    for rec in records:
        for viewer, _, history in rec.histories:
            if viewer is None:
                seen["all-ins"] += any(
                    e.action_taken.stack == 0 and e.action_taken.action.kind != FOLD
                    for e in history.events
                    if e.HasField("action_taken")
                )
    musts = ("rebuys", "batches", "folds", "showdowns", "mucks", "burns", "draws", "all-ins")
    for what in (*musts, "river reshuffled", "community card"):
        assert seen[what], f"the play had no {what}: {dict(seen)}"
    assert seen[f"delivery {pb.DELIVERY_ON_TURN}"] and seen[f"delivery {pb.DELIVERY_EVERY_EVENT}"]
    clients = ("direct",) if via == "direct" else ("door", "door, Connect JSON over HTTP/1.1")
    for client in clients:
        for who in ("seat", "spectator"):
            assert seen[f"{who} {client}"], f"no {who} saw a hand {client}: {dict(seen)}"
    return seen

# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G4a)
"""TableService.GetDeckProof: each viewer checks the deal of the cards it saw (G4a).

Two rooms in this process (``tests.support.phh_room``: the table's manager, runtime
and servicer over the real lobby, dealer, betting and showdown servicers):

- over real gRPC (the table's interceptors, TLS), a stud table of random bots and
  a spectator's Watch: a seated player's proof opens exactly its own down cards,
  every upcard and the hands its history shows at the showdown; the spectator's
  only the upcards and the hands shown; both verify against the card commitment
  the Watch got in HandStarted; the identity rules are GetHandHistory's;
- many random hands of every game, patient bots (they seldom fold, so eight stud
  players reach a short river, S11, and five draw players run the stub out, D6):
  every viewer's proof verifies, and every card it names is one the auditor's
  truth of the hand (``tests.system.security.leaks.HandTruth``, built from the
  dealer's log) lets that viewer see; the reveal's per-card commitment is the one
  of its order and salt.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from devroom.launcher import shared_pki
from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_rules.card_commitment import Verdict, card_leaf, commit_cards
from poker_wire.channels import player_channel
from poker_wire.deck_proof import check_proof, deal_rules, view_of
from services.dealer.audit import audit_reveal
from services.table.viewers import WatchLimits
from tests.support import phh_room
from tests.support.phh_room import Room, TableRun
from tests.system.security.leaks import hand_truth

from .bots import quiet, table_with_bots
from .inroom import WAIT_S, serving
from .streams import watch

K = common.ActionKind


def _cards_in(history: tpb.HandHistory) -> set[str]:
    """Every card the viewer's history of the hand shows."""
    seen: set[str] = set()
    for e in history.events:
        kind = e.WhichOneof("event")
        if kind == "cards_dealt":
            seen.update(e.cards_dealt.cards)
            if e.cards_dealt.community_card:
                seen.add(e.cards_dealt.community_card)
        elif kind == "draw_taken":
            seen.update(e.draw_taken.received)
        elif kind == "showdown":
            for h in e.showdown.hands:
                seen.update(h.cards)
    return seen


def _opened(proof: tpb.DeckProof) -> set[str]:
    return {p.card for p in proof.positions if p.card}


# ------------------------------------------------------------------ over gRPC


def test_a_seat_sees_its_own_cards_opened_a_spectator_only_the_public__G4a() -> None:
    with quiet():
        asyncio.run(_seat_and_spectator())


async def _seat_and_spectator() -> None:
    room, run = await table_with_bots(WatchLimits(), hands=6, seed=11)
    async with serving(room.servicer) as (_, public):
        channel = player_channel(public, shared_pki().ca_file)
        async with channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            spectator = watch(stub, run.table_id)
            await room.play(WAIT_S * 3)
            live = {
                e.hand_id: e.hand_started.card_commitment
                for e in _flat(spectator.events)
                if e.WhichOneof("event") == "hand_started"
            }
            await spectator.close()
            checked = 0
            for hand_id in run.hands:
                if hand_id not in live:
                    continue  # started before the Watch was open
                assert len(live[hand_id]) == 32
                runtime = room.manager.tables[run.table_id]
                public_history = await room.history(run, hand_id)
                truth = hand_truth(await runtime.reveal(hand_id), public_history)
                upcards = {c for cards in truth.up.values() for c in cards}
                shown = truth.shown
                proof = await stub.GetDeckProof(
                    tpb.GetDeckProofRequest(table_id=run.table_id, hand_id=hand_id),
                    timeout=WAIT_S,
                )
                assert proof.scheme == "cardroom-cards-v1" and len(proof.positions) == 52
                assert _opened(proof) == upcards | shown
                assert check_proof(proof, public_history, live[hand_id]).ok
                for player_id in run.players_of[hand_id]:
                    seat = truth.seat_of[player_id]
                    mine = await stub.GetDeckProof(
                        tpb.GetDeckProofRequest(
                            table_id=run.table_id,
                            hand_id=hand_id,
                            player_id=player_id,
                            token=room.token(player_id),
                        ),
                        timeout=WAIT_S,
                    )
                    # S12: the hand's participants see the called hands mucked too.
                    expected = set(truth.down[seat]) | upcards | shown | truth.mucked
                    assert _opened(mine) == expected, (hand_id, seat)
                    own = await room.history(run, hand_id, player_id)
                    verdict = check_proof(mine, own, live[hand_id])
                    assert verdict.ok, verdict.problems
                    assert set(verdict.checked) == _cards_in(own)
                    checked += 1
            assert checked >= 4, f"{checked} proofs of seats checked"
            await _refusals(stub, room, run)


async def _refusals(stub: table_pb2_grpc.TableServiceAsyncStub, room: Room, run: TableRun) -> None:
    """GetHandHistory's identity rules, and a hand id required and known."""
    hand_id = run.hands[-1]
    alice, bob = run.players_of[hand_id][:2]
    cases = {
        grpc.StatusCode.PERMISSION_DENIED: tpb.GetDeckProofRequest(
            table_id=run.table_id, hand_id=hand_id, player_id=alice, token=room.token(bob)
        ),
        grpc.StatusCode.INVALID_ARGUMENT: tpb.GetDeckProofRequest(table_id=run.table_id),
        grpc.StatusCode.NOT_FOUND: tpb.GetDeckProofRequest(
            table_id=run.table_id, hand_id="h-nowhere"
        ),
    }
    for code, request in cases.items():
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetDeckProof(request, timeout=WAIT_S)
        assert refused.value.code() == code, refused.value.details()
        assert refused.value.details()


def _flat(events: Sequence[tpb.TableEvent]) -> Iterator[tpb.TableEvent]:
    for e in events:
        if e.WhichOneof("event") == "batch":
            yield from _flat(e.batch.events)
        else:
            yield e


# ------------------------------------------------------------------ many hands


def patient(legal: common.LegalActions, cards: Sequence[str], rng: random.Random) -> common.Action:
    """A bot that seldom folds: so hands reach seventh street with many players."""
    if K.ACTION_KIND_FOLD in legal.kinds and len(legal.kinds) > 1 and rng.random() < 0.97:
        narrowed = common.LegalActions()
        narrowed.CopyFrom(legal)
        del narrowed.kinds[:]
        narrowed.kinds.extend(k for k in legal.kinds if k != K.ACTION_KIND_FOLD)
        legal = narrowed
    return RANDOM_ACTION(legal, cards, rng)


RANDOM_ACTION = phh_room.random_action


def stud(game: common.Game.ValueType) -> common.GameConfig:
    return common.GameConfig(game=game, ante=5, bring_in=10, small_bet=20, big_bet=40)


HILO_002 = stud(common.GAME_STUD_HILO)
HILO_002.river_shortage = common.RIVER_SHORTAGE_STUB_FIRST
HILO_002.burn_before_third = True
TABLES = {
    "stud, 8 seats": (stud(common.GAME_STUD), 8),
    "hi-lo, 8 seats, [002] river, burn before third": (HILO_002, 8),
    "7-A no limit, 5 seats": (
        common.GameConfig(
            game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=20, big_bet=40
        ),
        5,
    ),
    "7-A pot limit, 4 seats, no burn": (
        common.GameConfig(
            game=common.GAME_DRAW_7A,
            structure=common.STRUCTURE_POT_LIMIT,
            small_bet=20,
            big_bet=40,
            burn_before_draw=False,
        ),
        4,
    ),
}
HANDS = 25


@dataclass
class Case:
    """One viewer's proof of one hand, with what checks it."""

    table: str
    proof: tpb.DeckProof
    history: tpb.HandHistory  # the viewer's own
    published: bytes  # the card commitment of the hand's HandStarted
    verdict: Verdict  # Python's check


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    """Every viewer's proof of HANDS random hands at each of TABLES, checked."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(phh_room, "random_action", patient)
        with quiet():
            return asyncio.run(_many_hands())


def test_every_viewers_proof_of_random_hands_verifies_and_names_no_hidden_card__G4a(
    cases: list[Case],
) -> None:
    stats: Counter[str] = Counter()
    for case in cases:
        assert case.verdict.ok, (case.table, case.proof.hand_id, case.verdict.problems)
        assert set(case.verdict.checked) | set(case.verdict.reshuffled) == _cards_in(case.history)
        game = "draw" if case.history.config.game == common.GAME_DRAW_7A else "stud"
        stats[game] += 1
        if case.proof.reshuffled:
            stats[f"{game} reshuffled"] += 1
    # The reshuffles happened (S11, D6), and their cards were listed, not opened.
    assert stats["stud reshuffled"] and stats["draw reshuffled"], stats


async def _many_hands() -> list[Case]:
    room = Room(seed=5, timeout_p=0.01)
    runs = {
        name: await room.create_table(config, seats=seats, target=HANDS)
        for name, (config, seats) in TABLES.items()
    }
    await room.play(WAIT_S * 6)
    out: list[Case] = []
    for name, run in runs.items():
        runtime = room.manager.tables[run.table_id]
        for hand_id in run.hands:
            reveal = await runtime.reveal(hand_id)
            assert audit_reveal(reveal) == [], (name, hand_id)
            assert reveal.card_commitment == commit_cards(list(reveal.order), reveal.salt)
            public = await room.history(run, hand_id)
            truth = hand_truth(reveal, public)
            for player_id in [None, *run.players_of[hand_id]]:
                request = tpb.GetDeckProofRequest(table_id=run.table_id, hand_id=hand_id)
                if player_id is not None:
                    request.player_id, request.token = player_id, room.token(player_id)
                proof = await room.servicer.GetDeckProof(request, None)  # type: ignore[arg-type]
                history = await room.history(run, hand_id, player_id)
                seat = truth.seat_of.get(player_id or "", 0)
                named = _opened(proof) | set(proof.reshuffled)
                hidden = [
                    c
                    for c in named
                    if not truth.may_see(c, seat, history=True, after_showdown=True)
                ]
                assert hidden == [], (name, hand_id, seat, hidden)
                verdict = check_proof(proof, history, reveal.card_commitment)
                out.append(Case(name, proof, history, reveal.card_commitment, verdict))
    return out


# ------------------------------------------------------------------ the browser's check

WEB = Path(__file__).resolve().parents[3] / "clients" / "web"
RUNNER = """
import { fromJson } from "@bufbuild/protobuf";
import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { DeckProofSchema, HandHistorySchema } from "WEB/src/gen/poker/table/v1/table_pb";
import { verifyProof } from "WEB/src/deckproof";

if (!globalThis.crypto) (globalThis as any).crypto = webcrypto;  // Node 18
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const c of cases) {
  const v = await verifyProof(
    fromJson(DeckProofSchema, c.proof),
    fromJson(HandHistorySchema, c.history),
    new Uint8Array(Buffer.from(c.published, "base64")),
  );
  out.push({ ok: v.ok, problems: v.problems, checked: v.checked, reshuffled: v.reshuffled });
}
console.log(JSON.stringify(out));
"""


def _tampered(case: Case, rng: random.Random) -> tpb.DeckProof:
    """The proof with one thing changed that a check must catch."""
    bad = tpb.DeckProof()
    bad.CopyFrom(case.proof)
    opened = [p for p in bad.positions if p.card]
    sealed = [p for p in bad.positions if not p.card]
    how = rng.choice(["card", "nonce", "seal", "leaf", "listed"] if opened else ["leaf", "listed"])
    if how == "card":
        target = rng.choice(opened)
        taken = {p.card for p in opened}
        target.card = rng.choice([c for c in _deck(case) if c not in taken])
    elif how == "nonce":
        rng.choice(opened).nonce = bytes(32)
    elif how == "seal":  # the right leaf, but a card the viewer saw withheld
        target = rng.choice(opened)
        position = target.position
        leaf = card_leaf(position, target.card, target.nonce)
        target.Clear()
        target.position, target.leaf = position, leaf
    elif how == "leaf":
        target = rng.choice(sealed)
        target.leaf = bytes(32)
    else:
        bad.reshuffled.append(rng.choice([c for c in _deck(case) if c not in bad.reshuffled]))
    return bad


def _deck(case: Case) -> list[str]:
    started, _, _ = view_of(case.history.events)
    assert started is not None
    return list(deal_rules(case.history.config, started).deck)


def test_the_browsers_verifier_agrees_with_the_rooms_on_every_proof__G4a(
    cases: list[Case], tmp_path: Path
) -> None:
    """clients/web/src/deckproof.ts, bundled for Node as for the page, checks every
    proof above (and a tampered copy of each) as poker_wire.deck_proof does: the
    same verdict, the same cards checked and reshuffled."""
    node = shutil.which("node")
    assert node, "node is needed for the web client's checks (make setup)"
    runner = tmp_path / "runner.ts"
    runner.write_text(RUNNER.replace("WEB", str(WEB)))
    bundle = tmp_path / "runner.mjs"
    subprocess.run(
        [
            str(WEB / "node_modules/.bin/esbuild"),
            str(runner),
            "--bundle",
            "--platform=node",
            "--format=esm",
            "--log-level=warning",
            f"--outfile={bundle}",
        ],
        check=True,
        env={**os.environ, "NODE_PATH": str(WEB / "node_modules")},
        timeout=120,
    )
    rng = random.Random(17)
    checks: list[tuple[tpb.DeckProof, Case, Verdict]] = []
    for case in cases:
        checks.append((case.proof, case, case.verdict))
        bad = _tampered(case, rng)
        verdict = check_proof(bad, case.history, case.published)
        assert not verdict.ok, (case.table, bad)
        checks.append((bad, case, verdict))
    payload = [
        {
            "proof": json_format.MessageToDict(proof),
            "history": json_format.MessageToDict(case.history),
            "published": base64.b64encode(case.published).decode(),
        }
        for proof, case, _ in checks
    ]
    done = subprocess.run(
        [node, str(bundle)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    answers = json.loads(done.stdout)
    assert len(answers) == len(checks)
    for (proof, case, verdict), answer in zip(checks, answers, strict=True):
        where = (case.table, proof.hand_id, verdict.problems, answer["problems"])
        assert answer["ok"] == verdict.ok, where
        if verdict.ok:
            assert answer["checked"] == list(verdict.checked), where
            assert answer["reshuffled"] == list(verdict.reshuffled), where

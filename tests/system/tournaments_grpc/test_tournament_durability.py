"""Tournament state survives a lobby restart (SQLite through the store): entries,
seats, stacks, the bust log and the events are as before; the hand that was in
progress is voided (its stacks as at its start), as at ring tables."""

# ruff: noqa: N802  (test names carry the docs/rules.md rule ID)

from __future__ import annotations

from pathlib import Path

from poker.lobby.v1 import tournament_pb2 as tpb
from tests.support.lobby import ledger
from tests.support.tournaments import Driver, K, events, lobby_process, players, request, started


def test_T5_tournament_state_survives_a_lobby_restart(tmp_path: Path) -> None:
    env = {"LOBBY_DB": str(tmp_path / "lobby.sqlite3")}
    with lobby_process(env) as lobby:
        field = players(lobby, 5)
        tid = started(lobby, request(), field)
        d = Driver(lobby, tid)
        (table,) = d.open_tables()
        ids = [p.player_id for p in field]
        d.bust(table.table_id, [ids[0]], ids[1])
        d.play(table.table_id, {ids[1]: 2_500, ids[2]: 500})
        pending = d.next_hand(table.table_id)  # in progress when the lobby stops
        before = d.tournament()
        seen = events(lobby, tid)
        totals = ledger(lobby.lobby)
    with lobby_process(env) as lobby:
        d = Driver(lobby, tid)
        after = d.tournament()
        assert (after.entries, after.players_left, after.hands_played, after.level) == (
            before.entries,
            before.players_left,
            before.hands_played,
            before.level,
        )
        assert after.chips_in_play == 5_000
        assert events(lobby, tid) == seen
        assert ledger(lobby.lobby) == totals
        standings = lobby.tournaments.GetStandings(tpb.GetStandingsRequest(tournament_id=tid))
        chips = {s.player_id: s.chips for s in standings.standings}
        assert chips[ids[1]] == 2_500 and chips[ids[2]] == 500 and chips[ids[0]] == 0
        # The hand in progress was voided: the next hand is a new one, same stacks.
        fresh = d.next_hand(table.table_id)
        assert fresh.play and fresh.hand_id != pending.hand_id
        assert {s.player_id: s.stack for s in fresh.dealt_in} == {
            s.player_id: s.stack for s in pending.dealt_in
        }
        d.finish(fresh, table.table_id)
        assert events(lobby, tid)[-1].kind == K.TOURNAMENT_EVENT_KIND_HAND_FINISHED

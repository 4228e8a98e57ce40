# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_T3_...)
"""T1-T6 scenarios through the lobby's gRPC API (Tournaments + the table calls).

Players are scripted (Register, ReEnter, SetAway with their tokens); the test is
the table service: it asks NextHand for a tournament table and reports FinishHand
with final stacks it chooses, so every rule can be put in front of the lobby
exactly.  Each test names the rule it checks.
"""

from __future__ import annotations

import time

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from tests.support.lobby import ledger, refused
from tests.support.tournaments import (
    DRAW_NL,
    Driver,
    K,
    Lobby,
    balance,
    events,
    players,
    request,
    started,
    stud_levels,
)

# ---------------------------------------------------------------- T1 structure


def test_T1_levels_by_hands_set_the_stakes_of_each_hand(lobby: Lobby) -> None:
    field = players(lobby, 2)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    first = d.play(table.table_id)
    assert first.config.game == common.GAME_STUD_HILO
    assert (first.config.ante, first.config.bring_in, first.config.small_bet) == (5, 10, 20)
    d.play(table.table_id)
    third = d.play(table.table_id)  # levels last 2 hands: level 2 now
    assert (third.config.ante, third.config.bring_in, third.config.small_bet) == (10, 20, 40)
    assert third.config.big_bet == 80
    t = d.tournament()
    assert t.level == 2 and t.hands_played == 3
    ups = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_LEVEL_UP]
    assert [e.level for e in ups] == [1, 2]
    assert ups[1].stakes.small_bet == 40


def test_T1_draw_levels_post_the_levels_blinds(lobby: Lobby) -> None:
    field = players(lobby, 3)
    tid = started(lobby, request("draw"), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    plan = d.next_hand(table.table_id)
    # 15/40: not half of each other (D3's ring rule), the level says so.
    assert sorted(p.amount for p in plan.posts) == [15, 40]
    assert plan.config.small_bet == 40 and plan.config.structure == common.STRUCTURE_NO_LIMIT
    assert plan.big_blind_seat and plan.small_blind_seat and plan.button_seat
    d.finish(plan, table.table_id)


def test_T1_buy_in_and_fee_leave_the_balance_and_only_buy_ins_make_the_pool(
    lobby: Lobby,
) -> None:
    field = players(lobby, 3, balance=5_000)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    before = ledger(lobby.lobby)
    reply = lobby.tournaments.Register(field[0].entry(tid))
    assert reply.balance == 5_000 - 110 == balance(lobby, field[0])
    after = ledger(lobby.lobby)
    assert after.balances == before.balances - 110
    assert after.at_tables == before.at_tables + 110  # pool and fee are held money
    lobby.tournaments.Register(field[1].entry(tid))
    t = lobby.tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id=tid))
    assert (t.entries, t.prize_pool, t.fee) == (2, 200, 10)
    # Unregister before the start: everything back.
    back = lobby.tournaments.Unregister(
        tpb.UnregisterEntryRequest(
            tournament_id=tid, player_id=field[1].player_id, token=field[1].token
        )
    )
    assert (back.refunded, back.balance) == (110, 5_000)


def test_T1_late_registration_and_re_entry(lobby: Lobby) -> None:
    field = players(lobby, 4)
    tid = started(lobby, request(late_registration_level=1, max_entries=2), field[:3])
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    late = lobby.tournaments.Register(field[3].entry(tid))  # level 1: still open
    assert late.table_id == table.table_id and late.seat
    seated = d.seats(table.table_id)
    assert seated[late.seat] == field[3].player_id
    # field[0] busts in the first hand, and re-enters while registration is open.
    d.bust(table.table_id, [field[0].player_id], field[1].player_id)
    again = lobby.tournaments.ReEnter(field[0].entry(tid))
    assert again.entry == 2 and again.table_id
    assert d.tournament().entries == 5
    # Level 2 starts after 2 hands: registration closes.
    d.play(table.table_id)
    assert d.tournament().level == 2 and not d.tournament().registration_open
    d.bust(table.table_id, [field[0].player_id], field[2].player_id)
    code, message = refused(lambda: lobby.tournaments.ReEnter(field[0].entry(tid)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "registration closed" in message


def test_T1_levels_by_the_clock_with_a_break(lobby: Lobby) -> None:
    levels = stud_levels(2, hands=1)  # durations in seconds here
    schedule = [levels[0], tpb.TournamentLevel(is_break=True, duration=1), levels[1]]
    field = players(lobby, 2)
    tid = started(lobby, request(clock=tpb.LEVEL_CLOCK_SECONDS, schedule=schedule), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    assert d.play(table.table_id).config.small_bet == 20
    time.sleep(1.2)  # level 1 (1 s) is over: the break
    assert not d.next_hand(table.table_id).play
    assert d.tournament().on_break
    time.sleep(1.0)  # the break is over: level 2
    plan = d.play(table.table_id)
    assert plan.config.small_bet == 40 and d.tournament().level == 2
    kinds = [e.kind for e in events(lobby, tid)]
    assert K.TOURNAMENT_EVENT_KIND_BREAK in kinds


# ---------------------------------------------------------------- T2 seating


def test_T2_random_draw_fills_tables_evenly(lobby: Lobby) -> None:
    field = players(lobby, 13)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    tables = d.open_tables()
    assert sorted(t.players for t in tables) == [6, 7]
    seated = [p for t in tables for p in d.seats(t.table_id).values()]
    assert sorted(seated) == sorted(p.player_id for p in field)
    seats = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_SEATED]
    assert len(seats) == 13 and all(e.table_id and e.seat for e in seats)
    # A random draw: registration order is not seating order.
    order = [p.player_id for p in field]
    assert [e.player_id for e in seats] != order


# ---------------------------------------------------------------- T3 balancing


def test_T3_a_short_table_gets_a_player_from_the_fullest(lobby: Lobby) -> None:
    field = players(lobby, 16)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    a, b = (t.table_id for t in d.open_tables())
    at_a = list(d.seats(a).values())
    # B is in a hand while A loses three players: A cannot deal until B's hand ends.
    plan_b = d.next_hand(b)
    d.bust(a, at_a[:3], at_a[3])
    waiting = d.next_hand(a)
    assert not waiting.play
    assert [t.waiting for t in d.open_tables()] == [True, True]
    d.finish(plan_b, b)
    next_b = d.next_hand(b)  # B is between hands: one player moves to A first
    assert next_b.play and len(next_b.dealt_in) == 7
    counts = {t.table_id: t.players for t in d.open_tables()}
    assert counts == {a: 6, b: 7}
    moved = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_MOVED]
    assert len(moved) == 1 and (moved[0].from_table_id, moved[0].table_id) == (b, a)
    assert d.next_hand(a).play
    assert not any(t.waiting for t in d.open_tables())


def test_T3_button_game_moves_the_next_big_blind(lobby: Lobby) -> None:
    field = players(lobby, 10)
    tid = started(lobby, request("draw"), field)
    d = Driver(lobby, tid)
    a, b = (t.table_id for t in d.open_tables())
    plan_b = d.play(b)  # B has positions now
    at_b = d.seats(b)
    occupied = sorted(at_b)
    after_bb = [s for s in occupied if s > plan_b.big_blind_seat] or occupied
    next_big_blind = at_b[after_bb[0]]
    at_a = list(d.seats(a).values())
    d.bust(a, at_a[:2], at_a[2])
    plan_a = d.next_hand(a)  # B is idle: the move is made now
    moved = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_MOVED]
    assert [e.player_id for e in moved] == [next_big_blind]
    # The worst position at A: never the small blind or the button.
    assert moved[0].seat not in (plan_a.small_blind_seat, plan_a.button_seat)
    d.finish(plan_a, a)


def test_T3_tables_break_and_the_final_table_is_redrawn(lobby: Lobby) -> None:
    field = players(lobby, 12)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    a, b = (t.table_id for t in d.open_tables())
    at_a = list(d.seats(a).values())
    d.bust(a, at_a[:4], at_a[4])  # 8 players left: they fit at one table
    listed = {t.table_id for t in lobby.lobby.ListTables(pb.ListTablesRequest()).tables}
    final = d.next_hand(a)  # B is between hands: the plan is made whole now
    assert final.play and len(final.dealt_in) == 8
    t = d.tournament()
    broken = [x.table_id for x in t.tables if x.broken]
    assert len(broken) == 1 and t.final_table_id and t.final_table_id not in broken
    assert [x.players for x in t.tables if not x.broken] == [8]
    kinds = [e.kind for e in events(lobby, tid)]
    assert K.TOURNAMENT_EVENT_KIND_TABLE_BROKEN in kinds
    assert K.TOURNAMENT_EVENT_KIND_FINAL_TABLE in kinds
    # The broken table is no longer run (ListTables drops it); the final table is.
    after = {x.table_id for x in lobby.lobby.ListTables(pb.ListTablesRequest()).tables}
    assert {a, b} <= listed and broken[0] not in after and t.final_table_id in after
    d.finish(final, a)


def test_T3_a_late_entrant_at_full_tables_opens_a_table_that_is_then_balanced(
    lobby: Lobby,
) -> None:
    field = players(lobby, 4)
    req = request(seats_per_table=3, late_registration_level=1)
    tid = started(lobby, req, field[:3])
    d = Driver(lobby, tid)
    (first,) = d.open_tables()
    late = lobby.tournaments.Register(field[3].entry(tid))
    assert late.table_id != first.table_id  # every table was full: a new one
    assert sorted(t.players for t in d.open_tables()) == [1, 3]
    # The new table's NextHand balances first (the full table is between hands):
    # one player moves over, and both tables deal two-handed.
    plan = d.next_hand(late.table_id)
    assert plan.play and len(plan.dealt_in) == 2
    assert sorted(t.players for t in d.open_tables()) == [2, 2]
    moved = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_MOVED]
    assert [(e.from_table_id, e.table_id) for e in moved] == [(first.table_id, late.table_id)]
    d.finish(plan, late.table_id)
    assert len(d.play(first.table_id).dealt_in) == 2


# ---------------------------------------------------------------- T4 eliminations


def test_T4_simultaneous_busts_finish_by_starting_stack(lobby: Lobby) -> None:
    field = players(lobby, 4)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    w, x, y, z = (p.player_id for p in field)
    d.play(table.table_id, {w: 500, x: 1_200, y: 1_300, z: 1_000})
    d.bust(table.table_id, [w, x], y)  # x started the hand with more: x finishes 3rd
    places = {
        e.player_id: e.place
        for e in events(lobby, tid)
        if e.kind == K.TOURNAMENT_EVENT_KIND_ELIMINATED
    }
    assert places == {x: 3, w: 4}


def test_T4_equal_stacks_share_the_places_and_the_prize(lobby: Lobby) -> None:
    field = players(lobby, 4)
    payouts = [
        tpb.PayoutTier(min_entries=1, shares=[10_000]),
        tpb.PayoutTier(min_entries=3, shares=[5_000, 3_000, 2_000]),
    ]
    tid = started(lobby, request(payouts=payouts), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    w, x, y, z = (p.player_id for p in field)
    d.bust(table.table_id, [w, x], y)  # both started with 1000: tied for 3rd
    d.bust(table.table_id, [z], y)
    standings = lobby.tournaments.GetStandings(tpb.GetStandingsRequest(tournament_id=tid))
    assert standings.final
    by = {s.player_id: s for s in standings.standings}
    assert (by[w].place, by[w].tied, by[x].place, by[x].tied) == (3, 2, 3, 2)
    # 3rd and 4th pay 80 + 0 together: 40 each.
    assert (by[w].prize, by[x].prize, by[z].prize, by[y].prize) == (40, 40, 120, 200)


# ---------------------------------------------------------------- T5 payouts


def test_T5_payouts_sum_to_the_pool_and_reach_the_balances(lobby: Lobby) -> None:
    field = players(lobby, 5, balance=1_000)
    payouts = [
        tpb.PayoutTier(min_entries=1, shares=[10_000]),
        tpb.PayoutTier(min_entries=2, shares=[7_000, 3_000]),
    ]
    tid = started(lobby, request(payouts=payouts, buy_in=101, fee=9), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    ids = [p.player_id for p in field]
    for loser in ids[1:4]:
        d.bust(table.table_id, [loser], ids[0])
    d.bust(table.table_id, [ids[4]], ids[0])
    t = d.tournament()
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED and t.prize_pool == 505
    assert list(t.payouts) == [354, 151] and sum(t.payouts) == t.prize_pool
    assert balance(lobby, field[0]) == 1_000 - 110 + 354
    assert balance(lobby, field[4]) == 1_000 - 110 + 151
    assert balance(lobby, field[1]) == 1_000 - 110
    finished = [e for e in events(lobby, tid) if e.kind == K.TOURNAMENT_EVENT_KIND_HAND_FINISHED]
    assert {e.chips_in_play for e in finished} == {5 * 1_000}


def test_T5_a_result_that_creates_chips_is_refused_and_changes_nothing(lobby: Lobby) -> None:
    field = players(lobby, 2)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    plan = d.next_hand(table.table_id)
    bad = [
        pb.SeatInfo(seat=s.seat, player_id=s.player_id, stack=s.stack + 1) for s in plan.dealt_in
    ]
    code, message = refused(
        lambda: lobby.lobby.FinishHand(
            pb.FinishHandRequest(table_id=table.table_id, hand_id=plan.hand_id, final_stacks=bad)
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "T5" in message
    assert d.next_hand(table.table_id).hand_id == plan.hand_id  # still in progress
    d.finish(plan, table.table_id)


# ---------------------------------------------------------------- T6 away


def test_T6_an_away_player_is_dealt_in_and_folded_at_each_turn(lobby: Lobby) -> None:
    field = players(lobby, 3)
    tid = started(lobby, request("draw", config=DRAW_NL), field)
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    away = field[1]
    lobby.tournaments.SetAway(
        tpb.SetAwayRequest(tournament_id=tid, player_id=away.player_id, token=away.token, away=True)
    )
    plan = d.next_hand(table.table_id)
    dealt = {s.player_id: s for s in plan.dealt_in}
    assert away.player_id in dealt and dealt[away.player_id].fold_on_turn
    assert not any(s.fold_on_turn for p, s in dealt.items() if p != away.player_id)
    d.finish(plan, table.table_id)
    seat = lobby.tournaments.GetMySeat(
        tpb.GetMySeatRequest(tournament_id=tid, player_id=away.player_id, token=away.token)
    )
    assert seat.away and seat.table_id == table.table_id
    lobby.tournaments.SetAway(
        tpb.SetAwayRequest(
            tournament_id=tid, player_id=away.player_id, token=away.token, away=False
        )
    )
    plan = d.next_hand(table.table_id)
    assert not any(s.fold_on_turn for s in plan.dealt_in)
    d.finish(plan, table.table_id)

# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""Ring-game seating scenarios (B1-B6, D3, S3) driven through the lobby's gRPC API.

Scripted players sit down, stand up, sit out and come back (SitDown with its B2
``entry``, StandUp, SitOut, SitIn with its ``return_choice``, SetAutoPost and ImIn);
the test plays the table service: NextHand, then FinishHand with the stacks
unchanged (positions and posts are under test here; the property test moves chips
and ``test_history`` plays real hands).  GetTable shows the markers each hand
leaves behind.

Unless a test says otherwise the draw table has five seats and blinds 50/100, all
seats filled before the first hand, whose button is the first seat (the lobby does
not draw for it): button 1, small blind 2, big blind 3.
"""

from __future__ import annotations

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, ledger

from .client import (
    ANTE,
    BB,
    BUY_IN,
    SB,
    STUD,
    Player,
    create_table,
    dealt,
    finish,
    get_table,
    next_hand,
    play,
    positions,
    posts,
    seat_info,
)


def seated(
    lobby: LobbyClient, table_id: str, seats: list[int], **entry: pb.Entry.ValueType
) -> dict[int, Player]:
    """Players in ``seats`` (posting to come in, unless ``entry`` says otherwise)."""
    players = {}
    for s in seats:
        player = Player(lobby, f"p{s}")
        player.sit(table_id, s, **entry)
        players[s] = player
    return players


# ---------------------------------------------------------------- B1 dead button


def test_B1_big_blind_moves_one_player_small_blind_and_button_follow(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 3, 4])
    hands = [play(lobby, tid) for _ in range(6)]
    assert [positions(h) for h in hands] == [
        (1, 2, 3),
        (2, 3, 4),
        (3, 4, 1),
        (4, 1, 2),
        (1, 2, 3),
        (2, 3, 4),
    ]
    assert posts(hands[1]) == [(3, SB, True), (4, BB, True)]
    assert dealt(hands[1]) == [3, 4, 1, 2]  # dealing order: left of the button
    assert get_table(lobby, tid).button_seat == 2


def test_B1_button_dead_on_the_empty_seat_of_the_last_small_blind(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    play(lobby, tid)  # button 1, SB 2, BB 3
    play(lobby, tid)  # button 2, SB 3, BB 4
    players[3].stand()  # the button would go to seat 3
    hand = play(lobby, tid)
    assert positions(hand) == (3, 4, 5)  # dead button on the empty seat 3
    assert hand.button_dead
    assert dealt(hand) == [4, 5, 1, 2]
    assert posts(hand) == [(4, SB, True), (5, BB, True)]


def test_B1_nobody_gets_the_button_twice_in_a_row_back_from_heads_up(lobby: LobbyClient) -> None:
    """Heads-up the button posts the small blind (D3), so B1's "the button goes to
    the last small blind" would give it to the same player again when a third
    player comes in.  The button is dead instead: with seat 1 just right of the
    small blind (seat 2) there is no empty seat for it, so it lies dead on seat 1,
    whose player still acts last but does not hold it; then it moves on."""
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2])
    heads_up = play(lobby, tid)
    assert positions(heads_up) == (1, 1, 2) and not heads_up.button_dead  # D3
    Player(lobby, "p4").sit(tid, 4, entry=pb.ENTRY_POST_NOW)  # due the big blind
    three = play(lobby, tid)
    assert positions(three) == (1, 2, 4) and three.button_dead
    assert dealt(three) == [2, 4, 1]  # seat 1 still acts last
    assert posts(three) == [(2, SB, True), (4, BB, True)]
    table = get_table(lobby, tid)
    assert table.button_seat == 1 and table.button_dead
    after = play(lobby, tid)
    assert positions(after) == (2, 4, 1) and not after.button_dead  # B1: the last SB
    assert positions(play(lobby, tid)) == (4, 1, 2)


def test_B1_no_small_blind_when_the_last_big_blind_left(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    play(lobby, tid)  # button 1, SB 2, BB 3
    players[3].stand()
    hand = play(lobby, tid)
    assert positions(hand) == (2, 0, 4)  # nobody posts the small blind
    assert posts(hand) == [(4, BB, True)]


# ---------------------------------------------------------------- B2 new players


def test_B2a_new_player_in_the_seat_due_the_big_blind_posts_it(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 4])
    assert positions(play(lobby, tid)) == (1, 2, 4)
    # Seat 5 is left of the big blind: due it next hand, whatever it chose.
    Player(lobby, "late").sit(tid, 5, entry=pb.ENTRY_WAIT_FOR_BIG_BLIND)
    hand = play(lobby, tid)
    assert positions(hand) == (2, 4, 5)
    assert posts(hand) == [(4, SB, True), (5, BB, True)]
    assert not seat_info(lobby, tid, 5).new_player


def test_B2b_new_player_between_button_and_blinds_waits_for_the_button(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 4, 5])
    assert positions(play(lobby, tid)) == (1, 2, 4)
    Player(lobby, "late").sit(tid, 3, entry=pb.ENTRY_POST_NOW)
    blocked = play(lobby, tid)
    assert positions(blocked) == (2, 4, 5)
    assert 3 not in dealt(blocked)  # between the button 2 and the blinds
    passed = play(lobby, tid)  # the button moves from 2 to 4, past seat 3
    assert positions(passed) == (4, 5, 1)
    assert 3 in dealt(passed)
    assert (3, BB, True) in posts(passed)  # a live big blind to come in


def test_B2c_new_player_posts_a_live_big_blind_now(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 3, 4])
    play(lobby, tid)  # button 1, SB 2, BB 3
    Player(lobby, "late").sit(tid, 5, entry=pb.ENTRY_POST_NOW)
    hand = play(lobby, tid)
    assert positions(hand) == (2, 3, 4)
    assert dealt(hand) == [3, 4, 5, 1, 2]
    assert posts(hand) == [(3, SB, True), (4, BB, True), (5, BB, True)]


def test_B2c_new_player_may_wait_for_the_big_blind(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 3, 4])
    play(lobby, tid)
    Player(lobby, "late").sit(tid, 5, entry=pb.ENTRY_WAIT_FOR_BIG_BLIND)
    info = seat_info(lobby, tid, 5)
    assert info.new_player and info.return_choice == pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
    waits = play(lobby, tid)
    assert 5 not in dealt(waits)
    due = play(lobby, tid)
    assert positions(due) == (3, 4, 5)
    assert posts(due) == [(4, SB, True), (5, BB, True)]  # only the big blind


def test_B2c_wait_for_big_blind_bool_still_means_wait(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 3, 4])
    play(lobby, tid)
    late = Player(lobby, "late")
    lobby.SitDown(
        pb.SitDownRequest(
            player_id=late.id,
            token=late.token,
            table_id=tid,
            seat=5,
            buy_in=BUY_IN,
            wait_for_big_blind=True,
        ),
        timeout=5,
    )
    assert 5 not in dealt(play(lobby, tid))
    assert positions(play(lobby, tid))[2] == 5


def test_B2_new_player_may_choose_to_wait_for_the_button(lobby: LobbyClient) -> None:
    """Seat 5 could post now (B2c) but asks to wait for the button; the big blind
    travels ahead of the button and reaches the seat first (B2a)."""
    tid = create_table(lobby).table_id
    seated(lobby, tid, [1, 2, 3, 4])
    play(lobby, tid)  # button 1, SB 2, BB 3
    Player(lobby, "late").sit(tid, 5, entry=pb.ENTRY_WAIT_FOR_BUTTON)
    info = seat_info(lobby, tid, 5)
    assert info.wait_for_button and info.new_player
    waits = play(lobby, tid)
    assert positions(waits) == (2, 3, 4) and 5 not in dealt(waits)
    due = play(lobby, tid)
    assert positions(due) == (3, 4, 5)
    assert posts(due) == [(4, SB, True), (5, BB, True)]
    assert not seat_info(lobby, tid, 5).wait_for_button


# ---------------------------------------------------------------- B3 missed big blind


def _miss_big_blind(lobby: LobbyClient) -> tuple[str, dict[int, Player]]:
    """Five players; seat 4 sits out after hand 1 and misses the big blind in hand 2
    (button 2, SB 3, BB 5), then stays away in hand 3 (button 3, SB 5, BB 1)."""
    tid = create_table(lobby).table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    play(lobby, tid)
    away = players[4].sit_out()
    assert away.away and away.sitting_out
    missed = play(lobby, tid)
    assert positions(missed) == (2, 3, 5)  # the next active player posts the big blind
    assert 4 not in dealt(missed)
    info = seat_info(lobby, tid, 4)
    assert info.missed_big_blind and not info.missed_small_blind and info.orbits_away == 1
    assert positions(play(lobby, tid)) == (3, 5, 1)
    return tid, players


def test_B3_missed_big_blind_back_two_hands_later_posts_big_live_small_dead(
    lobby: LobbyClient,
) -> None:
    tid, players = _miss_big_blind(lobby)
    back = players[4].sit_in(pb.RETURN_CHOICE_POST)
    assert not back.away and back.missed_big_blind  # owed until posted
    hand = play(lobby, tid)
    assert positions(hand) == (5, 1, 2)
    assert dealt(hand) == [1, 2, 3, 4, 5]
    assert posts(hand) == [(1, SB, True), (2, BB, True), (4, BB, True), (4, SB, False)]
    info = seat_info(lobby, tid, 4)
    assert not (info.missed_big_blind or info.missed_small_blind)


def test_B3_missed_big_blind_may_wait_and_post_only_the_big_blind(lobby: LobbyClient) -> None:
    tid, players = _miss_big_blind(lobby)
    players[4].sit_in(pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND)
    hand = play(lobby, tid)  # BB 2: seat 4 waits
    assert 4 not in dealt(hand)
    hand = play(lobby, tid)  # BB 3
    assert 4 not in dealt(hand)
    due = play(lobby, tid)
    assert positions(due)[2] == 4
    assert [p for p in posts(due) if p[0] == 4] == [(4, BB, True)]  # no dead money


# ---------------------------------------------------------------- B4 missed small blind


def _miss_small_blind(lobby: LobbyClient, choice: pb.ReturnChoice.ValueType) -> str:
    """Seat 3 has the big blind in hand 1, sits out and so misses the small blind in
    hand 2 (no small blind posted), and asks to come back with ``choice``."""
    tid = create_table(lobby).table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    play(lobby, tid)  # button 1, SB 2, BB 3
    players[3].sit_out()
    missed = play(lobby, tid)
    assert positions(missed) == (2, 0, 4)
    info = seat_info(lobby, tid, 3)
    assert info.missed_small_blind and info.wait_for_button and not info.missed_big_blind
    players[3].sit_in(choice)
    return tid


def test_B4_missed_small_blind_waits_for_the_button_then_posts_it_dead(lobby: LobbyClient) -> None:
    tid = _miss_small_blind(lobby, pb.RETURN_CHOICE_POST)
    blocked = play(lobby, tid)  # the button moves onto seat 3, not past it
    assert positions(blocked) == (3, 4, 5)
    assert 3 not in dealt(blocked)
    back = play(lobby, tid)  # the button moves from 3 to 4: it has passed seat 3
    assert positions(back) == (4, 5, 1)
    assert posts(back) == [(5, SB, True), (1, BB, True), (3, SB, False)]
    assert not seat_info(lobby, tid, 3).missed_small_blind


def test_B4_missed_small_blind_may_wait_for_the_big_blind(lobby: LobbyClient) -> None:
    tid = _miss_small_blind(lobby, pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND)
    for _ in range(3):  # BB 5, 1, 2
        assert 3 not in dealt(play(lobby, tid))
    due = play(lobby, tid)
    assert positions(due)[2] == 3
    assert [p for p in posts(due) if p[0] == 3] == [(3, BB, True)]


# ---------------------------------------------------------------- B5


def test_B5_owes_at_most_one_big_and_one_small_blind(lobby: LobbyClient) -> None:
    tid = create_table(lobby, max_orbits_away=10).table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    play(lobby, tid)  # button 1, SB 2, BB 3
    players[3].sit_out()  # misses the small blind, then the big blind every orbit
    for _ in range(13):  # the big blind passes seat 3 in hands 6, 10 and 14
        play(lobby, tid)
    info = seat_info(lobby, tid, 3)
    assert info.orbits_away == 3
    assert info.missed_big_blind and info.missed_small_blind
    players[3].sit_in(pb.RETURN_CHOICE_POST)
    hand = next_hand(lobby, tid)
    mine = [p for p in posts(hand) if p[0] == 3]
    assert mine == [(3, BB, True), (3, SB, False)]  # one of each, however many missed
    play(lobby, tid)  # the same (pending) hand, reported


def test_B5_seat_lost_after_the_configured_orbits_chips_back_to_balance(
    lobby: LobbyClient,
) -> None:
    table = create_table(lobby, max_orbits_away=1)
    assert table.max_orbits_away == 1
    tid = table.table_id
    players = seated(lobby, tid, [1, 2, 3, 4, 5])
    before = ledger(lobby)
    play(lobby, tid)  # BB 3
    players[4].sit_out()
    lost_after = 0
    while any(s.seat == 4 for s in get_table(lobby, tid).occupied):
        play(lobby, tid)
        lost_after += 1
        assert lost_after < 10, "the seat should have been lost"
    # The big blind passes seat 4 in hand 2 (one orbit) and hand 6 (more than one).
    assert lost_after == 5
    me = players[4].get()
    assert (me.balance, me.at_tables) == (100_000, 0)  # every chip back
    after = ledger(lobby)
    assert after.granted == before.granted and after.at_tables == before.at_tables - BUY_IN


def test_B5_the_lobby_default_orbits_when_create_table_leaves_it_unset(lobby: LobbyClient) -> None:
    assert create_table(lobby).max_orbits_away == 3  # LOBBY_MAX_ORBITS_AWAY's default
    assert create_table(lobby, max_orbits_away=0).max_orbits_away == 0


# ---------------------------------------------------------------- B6, S3 stud


def test_B6_stud_player_sitting_out_is_not_dealt_in_and_owes_nothing(lobby: LobbyClient) -> None:
    tid = create_table(lobby, STUD, seats=4).table_id
    players = seated(lobby, tid, [1, 2, 3])
    first = play(lobby, tid)
    assert dealt(first) == [1, 2, 3] and posts(first) == []  # antes: the engine's (S3)
    assert first.button_seat == 0 and first.big_blind_seat == 0  # no button, no blinds
    players[2].sit_out()
    for _ in range(3):
        assert dealt(play(lobby, tid)) == [1, 3]
    info = seat_info(lobby, tid, 2)
    assert not (info.missed_big_blind or info.missed_small_blind)
    players[2].sit_in()
    back = play(lobby, tid)
    assert dealt(back) == [1, 2, 3] and posts(back) == []  # nothing to make up


def test_B6_stud_seat_lost_after_the_configured_orbits(lobby: LobbyClient) -> None:
    """Stud has no blinds: an orbit away is as many hands as the table has seats."""
    tid = create_table(lobby, STUD, seats=3, max_orbits_away=0).table_id
    players = seated(lobby, tid, [1, 2, 3])
    players[3].sit_out()
    hands = 0
    while any(s.seat == 3 for s in get_table(lobby, tid).occupied):
        play(lobby, tid)
        hands += 1
        assert hands < 10, "the seat should have been lost"
    assert hands == 3  # one orbit of a 3-seat table, more than max_orbits_away 0
    assert players[3].get().balance == 100_000


def test_S3_auto_post_off_not_dealt_in_without_im_in(lobby: LobbyClient) -> None:
    tid = create_table(lobby, STUD, seats=4).table_id
    players = seated(lobby, tid, [1, 2, 3])
    assert seat_info(lobby, tid, 3).auto_post  # on by default (S3)
    off = players[3].auto_post(False)
    assert not off.auto_post
    assert dealt(play(lobby, tid)) == [1, 2]  # did not post: not dealt in
    assert players[3].im_in().im_in
    assert dealt(play(lobby, tid)) == [1, 2, 3]  # "I'm in": antes this hand
    assert dealt(play(lobby, tid)) == [1, 2]  # for that hand only
    players[3].auto_post(True)
    assert dealt(play(lobby, tid)) == [1, 2, 3]
    config = get_table(lobby, tid).config
    assert config.ante == ANTE


# ---------------------------------------------------------------- D3 heads-up


def test_D3_heads_up_from_three_players_button_posts_the_small_blind(lobby: LobbyClient) -> None:
    tid = create_table(lobby).table_id
    players = seated(lobby, tid, [1, 2, 3])
    assert positions(play(lobby, tid)) == (1, 2, 3)
    players[1].stand()  # the button leaves: two players left
    hand = play(lobby, tid)
    button, small, big = positions(hand)
    assert button == small and big != small  # D3: the button posts the small blind
    assert {small, big} == {2, 3} and big != 3  # the big blind moved on
    assert dealt(hand) == [big, small]  # the button acts first before the draw
    assert posts(hand) == [(big, BB, True), (small, SB, True)]  # in dealing order
    following = play(lobby, tid)
    assert positions(following) == (big, big, small)  # heads-up: they swap every hand
    Player(lobby, "third").sit(tid, 1, entry=pb.ENTRY_POST_NOW)
    three = play(lobby, tid)
    # Back to three: B1 moves the big blind on (to the newcomer, B2a) and gives the
    # small blind to the last big blind; the button would go to the last small
    # blind, which heads-up was the button itself.  Nobody gets it twice in a row:
    # with no empty seat right of the small blind it lies dead on the holder's
    # seat, who still acts last but does not hold it.
    holder, last_big = following.button_seat, following.big_blind_seat
    assert not following.button_dead
    assert positions(three) == (holder, last_big, 1) and three.button_dead
    assert dealt(three) == [last_big, 1, holder]
    assert posts(three) == [(last_big, SB, True), (1, BB, True)]
    after = play(lobby, tid)
    assert positions(after) == (last_big, 1, holder)  # then it moves on (B1)
    assert not after.button_dead


def test_S3_im_in_said_during_a_hand_is_for_the_next_one(lobby: LobbyClient) -> None:
    """The table service plans hand n+1 as it reports hand n (FinishHand
    plan_next), so "I'm in" must reach the lobby while hand n runs: it then counts
    for n+1 even when hand n was the player's "I'm in" hand."""
    tid = create_table(lobby, STUD, seats=4).table_id
    players = seated(lobby, tid, [1, 2, 3])
    players[3].auto_post(False)
    players[3].im_in()
    hand = next_hand(lobby, tid)
    assert dealt(hand) == [1, 2, 3]
    assert not seat_info(lobby, tid, 3).im_in  # used by this hand
    players[3].im_in()  # while it runs
    following = finish(lobby, tid, hand, plan_next=True).next_hand
    assert dealt(following) == [1, 2, 3]
    finish(lobby, tid, following)
    assert dealt(play(lobby, tid)) == [1, 2]

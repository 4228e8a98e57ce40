"""The trust boundary, played as a hostile client against the local room.

Every internal method of every service (read from the protos' ``access`` option,
so a method added later is covered without touching this file) is called:

* over the public port of the lobby or the table, the connection a player has
  (TLS, no certificate): UNAUTHENTICATED;
* over the internal port without a client certificate, or in plaintext: the
  handshake is refused, no call reaches the service;
* with every identity of the room that the method's service does not list:
  PERMISSION_DENIED.

* with the ``gateway`` identity too (the room's public door, issue 16): it is one
  of the room's identities and no internal method lists it;
* at the door itself (the gateway's public port), which serves the Room API
  only: not found, whatever the credential and the protocol.

And nothing changes: the ledger's totals, every player's balance and every
seat's stack are the same before and after.  The room holds a hand in progress
at each table (a long action clock and no player connected), so the hand ids are
live and public, as in the chip-rewrite attack an outside tester made: FinishHand
with made-up final stacks for the current hand, which moved 5,000 chips.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest
from google.protobuf import descriptor_pool

from devroom.stack import Stack
from poker.common.v1 import access_pb2
from service_kit.identity import GATEWAY, IDENTITIES

from .hostile import (
    INTERNAL,
    HostileRoom,
    StackEndpoints,
    attack_every_internal_method,
    attack_the_door,
    chip_rewrite_attack,
    gateway_grant_attack,
    hold_hands,
    self_grant_attack,
)

pytestmark = pytest.mark.xdist_group("trust_boundary")


def test_the_planes_are_in_the_protos() -> None:
    """The split is visible in the protos: the hand protocol, the staff's calls,
    the audit and the three back-end services are internal; the players' are not."""
    names = {m.path for m in INTERNAL}
    for path in (
        "/poker.lobby.v1.LobbyHands/FinishHand",
        "/poker.lobby.v1.LobbyHands/NextHand",
        "/poker.lobby.v1.LobbyHands/VoidPendingHand",
        "/poker.lobby.v1.LobbyOperator/GetLedgerTotals",
        "/poker.lobby.v1.LobbyOperator/CreateTable",
        "/poker.lobby.v1.LobbyOperator/GrantChips",
        "/poker.dealer.v1.Dealer/OpenDeck",
        "/poker.dealer.v1.Dealer/CloseDeck",
        "/poker.table.v1.TableAudit/GetDeckReveal",
        "/poker.table.v1.TableCertification/PresetNextDeck",
        "/poker.lobby.v1.TournamentOperator/CreateTournament",
    ):
        assert path in names, path
    player = {"RegisterPlayer", "SitDown", "Play", "Watch", "GetState", "Register"}
    assert not {m.method.name for m in INTERNAL} & player
    pool = descriptor_pool.Default()
    assert pool.FindServiceByName("poker.lobby.v1.Lobby").GetOptions().Extensions[
        access_pb2.access
    ].plane == (access_pb2.PLANE_PLAYER)


@pytest.fixture(scope="module")
def hostile_stack() -> Iterator[Stack]:
    with Stack(ports="free") as stack:  # the gateway included
        yield stack


@pytest.fixture(scope="module")
def hostile_room(hostile_stack: Stack) -> HostileRoom:
    return asyncio.run(hold_hands(StackEndpoints(hostile_stack)))


def test_every_internal_method_refuses_players_strangers_and_other_identities(
    hostile_room: HostileRoom,
) -> None:
    """No certificate: UNAUTHENTICATED on the public port, no handshake on the
    internal one; another identity: PERMISSION_DENIED; and nothing changes.
    The door's identity, ``gateway``, is one of them: it may call no internal
    method, and every one was called as it."""
    tried: Counter[str] = Counter()
    assert asyncio.run(attack_every_internal_method(hostile_room, tried)) == []
    assert len(INTERNAL) >= 25
    assert GATEWAY in IDENTITIES
    assert not [m.path for m in INTERNAL if GATEWAY in m.callers]
    assert tried[GATEWAY] == len(INTERNAL)


def test_the_door_serves_no_internal_method(
    hostile_stack: Stack, hostile_room: HostileRoom
) -> None:
    assert asyncio.run(attack_the_door(hostile_room, hostile_stack.gateway_target)) == []


def test_the_doors_identity_cannot_grant_chips(hostile_room: HostileRoom) -> None:
    asyncio.run(gateway_grant_attack(hostile_room))


def test_chip_rewrite_attack_finish_hand_with_made_up_stacks_is_refused(
    hostile_room: HostileRoom,
) -> None:
    asyncio.run(chip_rewrite_attack(hostile_room))


def test_a_player_cannot_grant_themselves_chips(hostile_room: HostileRoom) -> None:
    asyncio.run(self_grant_attack(hostile_room))

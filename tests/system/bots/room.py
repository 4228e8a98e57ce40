"""A running room as the bot SDK's system tests see it: the door's address and CA,
the operator's port and certificate, and the players the tests make there through
``poker_bots.Lobby`` (the SDK's own lobby helpers, nothing else)."""

from __future__ import annotations

from dataclasses import dataclass

from devroom.stack import Stack
from poker.common.v1 import common_pb2 as c
from poker_bots import Credential, Lobby, Operator
from poker_bots.sdk import CALL, CHECK, RAISE, Action, LegalActions, choose, legal_kinds, safest
from poker_bots.view import TableView


@dataclass
class BotRoom:
    stack: Stack

    @property
    def target(self) -> str:
        """The room's one public door (the gateway)."""
        return self.stack.gateway_target

    @property
    def ca_file(self) -> str:
        assert self.stack.pki is not None
        return str(self.stack.pki.ca_file)

    def environment(self) -> dict[str, str]:
        """What a bot's program reads to find this room (docs/bots.md)."""
        return {"POKER_ROOM": self.target, "POKER_CA_FILE": self.ca_file}

    def lobby(self, credential: Credential | None = None) -> Lobby:
        """A lobby client on a channel of its own (close it: ``async with``)."""
        return Lobby(self.target, credential, ca_file=self.ca_file)

    def operator(self) -> Operator:
        assert self.stack.pki is not None
        return Operator(self.stack.target("lobby"), self.stack.pki.dir("operator"))

    async def create_table(self, config: c.GameConfig, **options: object) -> str:
        async with self.operator() as operator:
            table = await operator.create_table(config, **options)  # type: ignore[arg-type]
        return table.table_id

    async def seated(
        self, name: str, table_id: str, buy_in: int, seat: int = 0, grant: int = 0
    ) -> Credential:
        """A new player (granted ``grant`` chips more by the operator), sat down at
        ``table_id`` with ``buy_in``."""
        async with self.lobby() as lobby:
            me = await lobby.register(name)
            if grant:
                async with self.operator() as operator:
                    await operator.grant_chips(me.player_id, grant)
            await lobby.sit(table_id, buy_in, seat=seat)
        return me


class Shover:
    """All in whenever it may raise, else calls; stands pat at the draw."""

    def act(self, view: TableView, legal: LegalActions) -> Action:
        kinds = legal_kinds(legal)
        if legal.raise_kind in kinds:
            return choose(legal, RAISE, to=legal.max_to)
        if CALL in kinds:
            return choose(legal, CALL)
        return safest(legal)


class CheckOrFold:
    """Never puts a chip in that it can keep."""

    def act(self, view: TableView, legal: LegalActions) -> Action:
        return choose(legal, CHECK) if legal.can_check else safest(legal)

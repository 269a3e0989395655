"""A Grey Duck party over several tables (GREY-V2): seating, the Ducklings' rotation, standings.

Pure data, no I/O: the web page and the store build on it. Each table plays each hand as its
own one-hand match (``TableHand.match_options()`` configures :class:`GreyDuckGame` for it, the
store gives it a match id), because the players at a table change from hand to hand.

Decisions (the rulebook leaves them open):

* Tables: as few as possible with at most 5 players each, sizes as even as possible (6 -> 3+3,
  7 -> 4+3, 11 -> 4+4+3, 12 -> 4+4+4). The host may give other sizes of 3 to 5.
* Round 1: players sit in the order given, table by table; seat 0 of every table deals and the
  grey 1 leads (a first hand, no swap).
* After every hand, the Duckling of table k moves to table k+1 (the last table's to table 0) and
  takes the seat the Duckling of that table left; the Captain stays. The arriving Duckling deals
  the next hand there and swaps with that table's Captain (GREY-W1). A round's rotation happens
  once every table has reported its hand (a Duckling waits for the next table to finish).
* Points are GREY-S1 at the player's table (a 3-player table scores 4, 3, 1); the standings add
  every hand at every table, ties share a rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .core import RulesError
from .grey import HANDS_DEFAULT, TERMS, GreyDuckState, hand_points

PARTY_FORMAT_VERSION = 1
MIN_PARTY_PLAYERS = 6
MIN_TABLE, MAX_TABLE = 3, 5


class PartyError(RulesError, ValueError):
    """A party set-up or result that cannot be used; the message says what to fix."""


def even_table_sizes(num_players: int) -> list[int]:
    """As few tables of at most 5 as possible, sizes differing by at most one (GREY-V2)."""
    if num_players < MIN_PARTY_PLAYERS:
        raise PartyError(
            f"a party needs at least {MIN_PARTY_PLAYERS} players, got {num_players}; "
            "five or fewer play one ordinary table")
    tables = math.ceil(num_players / MAX_TABLE)
    base, extra = divmod(num_players, tables)
    return [base + 1 if k < extra else base for k in range(tables)]


@dataclass(frozen=True)
class TableHand:
    """One table during one hand: who sits where, the match recording it, its result."""

    round: int
    table: int
    players: tuple[str, ...]
    dealer: int
    captain: int | None = None
    duckling: int | None = None
    match_id: str | None = None
    order: tuple[str, ...] | None = None
    """Finishing order (names), first out first; None until the hand is reported."""

    def match_options(self, names: str = "classic") -> dict[str, Any]:
        """Options for the one-hand :class:`GreyDuckGame` match this table plays."""
        carried = self.captain is not None and self.duckling is not None
        return {
            "hands": 1,
            "names": names,
            "first_dealer": self.dealer,
            "swap_captain": self.captain if carried else -1,
            "swap_duckling": self.duckling if carried else -1,
        }

    def points(self) -> dict[str, int]:
        if self.order is None:
            return {}
        return dict(zip(self.order, hand_points(len(self.players)), strict=True))

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "players": list(self.players), "dealer": self.dealer,
                "captain": self.captain, "duckling": self.duckling, "match_id": self.match_id,
                "order": list(self.order) if self.order is not None else None}


class Party:
    """The state of a party: every table's hands so far and the seating of the current round."""

    def __init__(
        self,
        players: Sequence[str],
        *,
        hands: int = HANDS_DEFAULT,
        names: str = "classic",
        table_sizes: Sequence[int] | None = None,
    ) -> None:
        players = list(players)
        if not all(isinstance(p, str) and p.strip() for p in players):
            raise PartyError("every player needs a name")
        if len(set(players)) != len(players):
            raise PartyError("player names must be different from each other")
        sizes = list(table_sizes) if table_sizes is not None else even_table_sizes(len(players))
        if len(players) < MIN_PARTY_PLAYERS:
            raise PartyError(f"a party needs at least {MIN_PARTY_PLAYERS} players")
        if any(not MIN_TABLE <= s <= MAX_TABLE for s in sizes) or len(sizes) < 2:
            raise PartyError(
                f"tables seat {MIN_TABLE} to {MAX_TABLE} players and a party has 2 or more; "
                f"got {sizes}")
        if sum(sizes) != len(players):
            raise PartyError(
                f"table sizes {sizes} seat {sum(sizes)}, not the {len(players)} players")
        if not isinstance(hands, int) or hands < 1:
            raise PartyError(f"a party plays 1 or more hands, got {hands!r}")
        if names not in TERMS:
            raise PartyError(f"names must be one of {sorted(TERMS)}, got {names!r}")
        self.players = tuple(players)
        self.hands = hands
        self.names = names
        self.table_sizes = tuple(sizes)
        first: list[TableHand] = []
        start = 0
        for k, size in enumerate(sizes):
            first.append(TableHand(1, k, tuple(players[start:start + size]), dealer=0))
            start += size
        self.rounds: list[list[TableHand]] = [first]

    # -- where things stand --------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The hand being played now (1-based); equals ``hands`` once the party is over."""
        return len(self.rounds)

    def tables(self) -> list[TableHand]:
        """The current round's tables."""
        return list(self.rounds[-1])

    def is_over(self) -> bool:
        return self.round == self.hands and all(t.order is not None for t in self.rounds[-1])

    def _table(self, table: int) -> TableHand:
        current = self.rounds[-1]
        if not isinstance(table, int) or not 0 <= table < len(current):
            raise PartyError(f"table {table!r} does not exist; tables are 0..{len(current) - 1}")
        return current[table]

    # -- reporting ------------------------------------------------------------------------------
    def attach_match(self, table: int, match_id: str) -> None:
        """Note which stored match records this table's current hand."""
        hand = self._table(table)
        self.rounds[-1][table] = replace(hand, match_id=match_id)

    def record_hand(self, table: int, order: Sequence[str]) -> None:
        """Report a table's finishing order (names, first out first). When every table has
        reported, the Ducklings move on and the next round's seating is made (GREY-V2)."""
        if self.is_over():
            raise PartyError("the party is over; start a new party to keep playing")
        hand = self._table(table)
        if isinstance(order, str | bytes) or not isinstance(order, Sequence) \
                or not all(isinstance(name, str) for name in order):
            raise PartyError(
                f"table {table}'s finishing order must be a list of its players' names, "
                f"got {order!r:.60}")
        order = tuple(order)
        if sorted(order) != sorted(hand.players):
            raise PartyError(
                f"table {table} seats {', '.join(hand.players)}; the finishing order must name "
                f"each of them once, got {', '.join(order) or 'nobody'}")
        if hand.order is not None and hand.order != order:
            raise PartyError(
                f"table {table} already reported {', '.join(hand.order)} for hand {self.round}; "
                "use correct_hand() to change it")
        self.rounds[-1][table] = replace(hand, order=order)
        self._rotate_if_done()

    def correct_hand(self, table: int, order: Sequence[str]) -> None:
        """Replace a report of the current round. Once every table has reported, the next
        round is seated and earlier reports can no longer change (seats depend on them)."""
        hand = self._table(table)
        if hand.order is None:
            raise PartyError(f"table {table} has not reported hand {self.round} yet")
        self.rounds[-1][table] = replace(hand, order=None)
        try:
            self.record_hand(table, order)
        except PartyError:
            self.rounds[-1][table] = hand
            raise

    def record_state(self, table: int, state: GreyDuckState) -> None:
        """Report a table's hand from its finished one-hand match."""
        hand = self._table(table)
        if tuple(state.players) != hand.players:
            raise PartyError(
                f"that match seats {', '.join(state.players)}, but table {table} seats "
                f"{', '.join(hand.players)}")
        if not state.results:
            raise PartyError(f"the match for table {table} has not finished its hand yet")
        self.record_hand(table, [state.players[s] for s in state.results[-1]])

    def _rotate_if_done(self) -> None:
        current = self.rounds[-1]
        if any(t.order is None for t in current) or self.round >= self.hands:
            return
        count = len(current)
        ducklings = [t.order[-1] for t in current if t.order is not None]
        nxt: list[TableHand] = []
        for k, old in enumerate(current):
            assert old.order is not None
            arriving = ducklings[(k - 1) % count]
            seat = old.players.index(old.order[-1])
            players = old.players[:seat] + (arriving,) + old.players[seat + 1:]
            captain = players.index(old.order[0])
            nxt.append(TableHand(self.round + 1, k, players, dealer=seat, captain=captain,
                                 duckling=seat))
        self.rounds.append(nxt)

    # -- standings ----------------------------------------------------------------------------
    def standings(self) -> list[dict[str, Any]]:
        """One row per player, best first: rank (ties share), total, and each hand's points."""
        rows: dict[str, dict[str, Any]] = {
            p: {"name": p, "total": 0, "hands": []} for p in self.players}
        for rnd in self.rounds:
            for t in rnd:
                for place, (name, pts) in enumerate(t.points().items()):
                    rows[name]["total"] += pts
                    rows[name]["hands"].append(
                        {"round": t.round, "table": t.table, "place": place + 1, "points": pts})
        ordered = sorted(rows.values(), key=lambda r: (-r["total"], r["name"]))
        rank = 0
        for i, row in enumerate(ordered):
            if i == 0 or row["total"] != ordered[i - 1]["total"]:
                rank = i + 1
            row["rank"] = rank
        return ordered

    # -- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "v": PARTY_FORMAT_VERSION,
            "players": list(self.players),
            "hands": self.hands,
            "names": self.names,
            "table_sizes": list(self.table_sizes),
            "rounds": [[t.to_json() for t in rnd] for rnd in self.rounds],
        }

    @classmethod
    def from_json(cls, obj: Any) -> Party:
        """Rebuild a party by replaying its reports; the stored seating must agree."""
        if not isinstance(obj, Mapping):
            raise PartyError("a saved party must be a JSON object")
        if obj.get("v") != PARTY_FORMAT_VERSION:
            raise PartyError(
                f"party format version {obj.get('v')!r} is not supported (this ducktable reads "
                f"version {PARTY_FORMAT_VERSION})")
        try:
            party = cls(obj["players"], hands=obj["hands"], names=obj["names"],
                        table_sizes=obj["table_sizes"])
            rounds = obj["rounds"]
        except KeyError as exc:
            raise PartyError(f"a saved party needs the field {exc.args[0]!r}") from None
        except TypeError as exc:
            raise PartyError(f"a saved party has a field of the wrong kind: {exc}") from None
        if not isinstance(rounds, list) or not rounds:
            raise PartyError("a saved party needs at least one round")
        for number, rnd in enumerate(rounds, start=1):
            if (number != party.round or not isinstance(rnd, list)
                    or len(rnd) != len(party.tables())):
                raise PartyError(
                    f"round {number} of the saved party does not follow from the one before")
            for k, saved in enumerate(rnd):
                table = party.tables()[k]
                if not isinstance(saved, Mapping) or list(table.players) != saved.get("players"):
                    raise PartyError(
                        f"round {number}, table {k}: the saved seating does not match the "
                        "rotation (the Duckling of table k moves to table k+1)")
                if saved.get("match_id") is not None:
                    party.attach_match(k, str(saved["match_id"]))
            for k, saved in enumerate(rnd):
                if saved.get("order") is not None:
                    if number != party.round:
                        raise PartyError(f"round {number} has results after the next round began")
                    party.record_hand(k, saved["order"])
        return party

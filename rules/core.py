"""The shared shape of every game engine: verdicts, events, options and the Game/State split.

Why this module exists: five engines, the store, the web app and the camera tracker must all
speak the same small language. An engine declares its options and event types as data; the
framework here validates event fields, seats, turn order and game end once, so each engine
only writes the checks its own rulebook asks for (the OpenSpiel idea of a small, uniform API).

Pure: stdlib only, no I/O, no clock, no randomness except a seeded ``random.Random`` passed in.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

EVENT_FORMAT_VERSION = 2
"""Version of the JSON form of an event (docs/match-log-format.md). Bump on incompatible change."""

READABLE_EVENT_VERSIONS = (1, 2)
"""Event versions :meth:`Event.from_json` reads; older ones are upgraded by :func:`upgrade_v1`."""


def upgrade_v1(etype: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A version-1 event's fields in their version-2 spelling (docs/match-log-format.md).

    Version 2 renamed DUCK's draw field ``source`` to ``pile`` (``source`` is also the
    event's own member: who reported it), and gave Sitting Ducks one spelling: every action
    names its place(s) in ``position`` (no more ``positions``), and a discard names the action
    as its play does (``"action": "double_barrel"``, not ``"card": "action-double-barrel"``;
    ``shown`` likewise)."""
    out = dict(data)
    if etype == "draw" and "source" in out and "pile" not in out:
        out["pile"] = out.pop("source")
    if "positions" in out and "position" not in out:
        out["position"] = out.pop("positions")
    if etype == "discard" and isinstance(out.get("card"), str) and "action" not in out:
        out["action"] = _action_name(out.pop("card"))
        shown = out.get("shown")
        if isinstance(shown, list):
            out["shown"] = [_action_name(c) if isinstance(c, str) else c for c in shown]
    return out


def _action_name(label: str) -> str:
    """``action-double-barrel`` -> ``double_barrel`` (a Sitting Ducks card as its play)."""
    return label.removeprefix("action-").replace("-", "_")


# --------------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to "may this happen now?": legal or not, why, and on which rules.

    A verdict is truthy only when legal, so ``Verdict | None`` must be tested with
    ``is not None``, never with ``if verdict:``.
    """

    ok: bool
    reason: str
    rules: tuple[str, ...] = ()

    @classmethod
    def legal(cls, reason: str = "legal", *rules: str) -> Verdict:
        return cls(True, reason, tuple(rules))

    @classmethod
    def illegal(cls, reason: str, *rules: str) -> Verdict:
        return cls(False, reason, tuple(rules))

    def __bool__(self) -> bool:
        return self.ok

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "rules": list(self.rules)}

    def __str__(self) -> str:
        cited = f" [{', '.join(self.rules)}]" if self.rules else ""
        return f"{'LEGAL' if self.ok else 'ILLEGAL'}: {self.reason}{cited}"


class RulesError(Exception):
    """Base of the errors the rules package raises."""


class BadEvent(RulesError, ValueError):
    """An event that cannot even be read (malformed JSON, wrong field types, unknown type)."""


class JSONTextError(ValueError):
    """Text that :func:`read_json` cannot read; the message says where or why."""


def read_json(text: str | bytes) -> Any:
    """``json.loads``, with every text it cannot read raised as :class:`JSONTextError`.

    Why: besides malformed JSON, ``json.loads`` raises a bare ``ValueError`` for a number over
    Python's 4,300-digit limit and ``RecursionError`` for brackets nested thousands deep;
    callers that turn bad input into a clear message need one exception for all three.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"{exc.msg} at character {exc.pos}") from None
    except RecursionError:
        raise JSONTextError("brackets nested too deep") from None
    except ValueError:  # int() of a number with too many digits
        raise JSONTextError("a number too long to read") from None
    if _SURROGATE_ESCAPE.search(text if isinstance(text, str) else text.decode("latin-1")):
        # "\ud800" reads as a lone surrogate: text that cannot be stored, printed or shown
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise JSONTextError(
                "a \\u escape names a lone surrogate (half of a character); write the "
                "character itself or both halves of the pair"
            ) from None
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class IllegalEvent(RulesError):
    """Raised by :meth:`State.apply_or_raise` and :func:`replay`; carries the verdict."""

    def __init__(self, verdict: Verdict, index: int | None = None) -> None:
        where = f"event #{index}: " if index is not None else ""
        super().__init__(f"{where}{verdict}")
        self.verdict = verdict
        self.index = index


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One thing that happened at the table.

    ``type`` names an event type the game declares; ``seat`` is the acting seat (None for
    events nobody "does", such as a deal); ``data`` holds the type's fields (JSON values only);
    ``ts`` is a millisecond timestamp from the camera or the phone (used by Grey Duck races and
    timed game ends, never read from a clock here); ``source`` says who reported it.
    """

    type: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    ts: int | None = None
    source: str = "manual"

    SOURCES: ClassVar[tuple[str, ...]] = ("manual", "camera", "bot", "button")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": EVENT_FORMAT_VERSION, "type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.data:
            out["data"] = _plain(self.data)
        if self.ts is not None:
            out["ts"] = self.ts
        if self.source != "manual":
            out["source"] = self.source
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True)

    def content_key(self) -> str:
        """What the event says, without when or by whom it was reported: the camera's copy of
        a move, the phone's entry of it and its store round trip compare equal."""
        return json.dumps([self.type, self.seat, _plain(self.data)], sort_keys=True, default=str)

    @classmethod
    def from_json(cls, obj: Any) -> Event:
        """Build an event from its JSON form, raising :class:`BadEvent` with a clear message."""
        if isinstance(obj, str | bytes):
            try:
                obj = read_json(obj)
            except JSONTextError as exc:
                raise BadEvent(
                    f"event is not valid JSON ({exc}); "
                    'write it like {"type": "play", "seat": 1, "data": {...}}'
                ) from None
        if not isinstance(obj, dict):
            raise BadEvent("an event must be a JSON object with at least a 'type' field")
        version = obj.get("v", EVENT_FORMAT_VERSION)
        if isinstance(version, bool) or version not in READABLE_EVENT_VERSIONS:
            raise BadEvent(
                f"event format version {version!r} is not supported (this ducktable reads "
                f"versions {', '.join(map(str, READABLE_EVENT_VERSIONS))}); upgrade ducktable"
            )
        unknown = set(obj) - {"v", "type", "seat", "data", "ts", "source"}
        if unknown:
            raise BadEvent(
                f"unknown event field(s) {sorted(unknown)}; allowed: type, seat, data, ts, "
                "source, v. An event type's own fields go inside \"data\", e.g. "
                '{"type": "draw", "seat": 1, "data": {"pile": "deck"}}')
        etype = obj.get("type")
        if not isinstance(etype, str) or not etype:
            raise BadEvent("event 'type' must be a non-empty string")
        seat = obj.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise BadEvent(f"event 'seat' must be a whole number, got {seat!r}")
        data = obj.get("data", {})
        if not isinstance(data, dict):
            raise BadEvent("event 'data' must be a JSON object")
        ts = obj.get("ts")
        if ts is not None and (not isinstance(ts, int) or isinstance(ts, bool)):
            raise BadEvent(f"event 'ts' must be whole milliseconds, got {ts!r}")
        source = obj.get("source", "manual")
        if source not in cls.SOURCES:
            raise BadEvent(
                f"event 'source' says who reported it and must be one of {list(cls.SOURCES)}, "
                f"got {source!r}; an event type's own fields go inside \"data\", e.g. "
                '{"type": "draw", "seat": 1, "data": {"pile": "deck"}}')
        if version == 1:
            data = upgrade_v1(etype, data)
        return cls(type=etype, seat=seat, data=data, ts=ts, source=source)

    def with_data(self, **changes: Any) -> Event:
        merged = dict(self.data)
        merged.update(changes)
        return Event(self.type, self.seat, merged, self.ts, self.source)

    def without(self, *fields: str) -> Event:
        """A copy with some data fields removed (how hidden information is redacted)."""
        return Event(
            self.type,
            self.seat,
            {k: v for k, v in self.data.items() if k not in fields},
            self.ts,
            self.source,
        )


def _plain(value: Any) -> Any:
    """Deep-copy a JSON-ish value into plain dicts/lists (tuples become lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Field:
    """One field of an event type: its name, the JSON kind it must have, whether required.

    ``kind`` is one of: "int", "str", "bool", "card", "cards", "seat", "choice", "any".
    ``hidden`` marks information an observer at a real table cannot see (e.g. a card drawn
    from the face-down pile); :meth:`Game.public_event` removes such fields.

    ``shape`` says, for an "any" field, what its value is made of, so that a phone can offer
    taps instead of JSON: "positions" (one or two line positions), "arrangement" (the line's
    old positions in a new order), "action_list" (action names), "seat_counts" (a number per
    seat), "river" (a pad colour per cell), "pawns" (a start log per seat), "seat_tops" (two
    cards per seat), "seat_piles" (two piles of cards per seat), "pads" (a cell or the spare
    per duck due back).
    """

    name: str
    kind: str
    required: bool = True
    choices: tuple[Any, ...] = ()
    hidden: bool = False
    help: str = ""
    shape: str = ""


@dataclass(frozen=True)
class EventSpec:
    """Declares an event type: its fields, whether it must come from the seat to move,
    whether it is a chance outcome (deal, die roll), and a one-line description.
    """

    type: str
    fields: tuple[Field, ...] = ()
    turn_bound: bool = True
    chance: bool = False
    help: str = ""
    manual: bool = True
    """Shown on the phone's manual-entry page."""
    rules: tuple[str, ...] = ()
    """The rules its fields rest on, cited when a field is missing or out of range (e.g. a
    Bruce declare of 4 breaks BRUCE-T4, not merely a form)."""


@dataclass(frozen=True)
class OptionSpec:
    """A named rule option with its default (RULES.md marks these **config**)."""

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    help: str = ""
    rule: str = ""

    def validate(self, value: Any) -> Any:
        if self.choices and value not in self.choices:
            raise RulesError(
                f"option {self.name!r} must be one of {list(self.choices)}, got {value!r}"
            )
        if not self.choices and not isinstance(value, type(self.default)):
            raise RulesError(
                f"option {self.name!r} must be {type(self.default).__name__}, got {value!r}"
            )
        return value


# --------------------------------------------------------------------------------------------
# Game and State
# --------------------------------------------------------------------------------------------


class Game:
    """Static description of a game: players, options, event types, deck, rule texts.

    Subclasses set the class attributes and implement :meth:`new_state`.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    options_spec: ClassVar[tuple[OptionSpec, ...]] = ()
    event_specs: ClassVar[tuple[EventSpec, ...]] = ()

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = self.resolve_options(options or {})

    @classmethod
    def resolve_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        known = {o.name: o for o in cls.options_spec}
        unknown = set(given) - set(known)
        if unknown:
            raise RulesError(
                f"unknown option(s) {sorted(unknown)} for {cls.name}; known: {sorted(known)}"
            )
        return {
            name: spec.validate(copy.deepcopy(given.get(name, spec.default)))
            for name, spec in known.items()
        }

    @classmethod
    def event_spec(cls, etype: str) -> EventSpec | None:
        for spec in cls.event_specs:
            if spec.type == etype:
                return spec
        return None

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> State:
        raise NotImplementedError  # every concrete game overrides this

    def check_players(self, players: Sequence[str]) -> None:
        if not self.min_players <= len(players) <= self.max_players:
            raise RulesError(
                f"{self.title or self.name} is for {self.min_players} to {self.max_players} "
                f"players, got {len(players)}"
            )
        if len(set(players)) != len(players):
            raise RulesError("player names must be different from each other")

    def public_event(self, event: Event) -> Event:
        """The event as an observer at the table sees it: hidden fields removed."""
        spec = self.event_spec(event.type)
        if spec is None:
            return event
        hidden = [f.name for f in spec.fields if f.hidden]
        return event.without(*hidden) if hidden else event


class State:
    """The position of one match. Mutated only by :meth:`apply`, after a legal verdict.

    Engines implement ``_check_<type>(event) -> Verdict`` and ``_apply_<type>(event)`` for
    each declared event type, plus ``to_move``, ``is_over``, ``scores`` and the views.
    ``observer`` is True when hidden information (hands, the draw pile) is unknown.
    """

    def __init__(self, game: Game, players: Sequence[str], observer: bool) -> None:
        game.check_players(players)
        self.game = game
        self.players: tuple[str, ...] = tuple(players)
        self.observer = observer
        self.history: list[Event] = []

    # -- the small API ------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.players)

    def to_move(self) -> int | None:
        """Seat whose turn it is, or None when only a chance event (deal, roll) can follow."""
        raise NotImplementedError  # every concrete state overrides this

    def is_over(self) -> bool:
        raise NotImplementedError  # every concrete state overrides this

    def scores(self) -> list[int]:
        raise NotImplementedError  # every concrete state overrides this

    def winners(self) -> list[int]:
        """Seats sharing the highest score once the game is over (empty before)."""
        if not self.is_over():
            return []
        scores = self.scores()
        best = max(scores)
        return [seat for seat, s in enumerate(scores) if s == best]

    def legal_events(self, seat: int | None = None) -> list[Event]:
        """Every legal non-chance event for ``seat`` (default: the seat to move).

        Needs full information; bots use it. Observer states may return what they can.
        """
        raise NotImplementedError  # every concrete state overrides this

    def chance_event(self, rng: random.Random) -> Event:
        """Sample the next chance outcome (deal, die roll) with a seeded generator."""
        raise NotImplementedError  # every concrete state overrides this

    def needs_chance(self) -> bool:
        """True when the next event must be a chance outcome (e.g. a deal)."""
        return self.to_move() is None and not self.is_over()

    def public_view(self) -> dict[str, Any]:
        """What everyone at the table may see, as JSON-able data."""
        raise NotImplementedError  # every concrete state overrides this

    def player_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view plus their own hand. Games that hide
        nothing from the table (Bruce, Ducky Ducky) keep this: the public view and the seat."""
        view = self.public_view()
        view["seat"] = seat
        return view

    # -- checking and applying ------------------------------------------------------------
    def check(self, event: Event) -> Verdict:
        """Is ``event`` legal now? Never raises for bad input; never changes the state."""
        spec = self.game.event_spec(event.type)
        if spec is None:
            names = ", ".join(s.type for s in self.game.event_specs)
            return Verdict.illegal(
                f"'{event.type}' is not an event of {self.game.title}; known events: {names}"
            )
        problem = self._check_fields(spec, event)
        if problem:
            return Verdict.illegal(problem, *spec.rules)
        if self.is_over():
            return Verdict.illegal(
                "the game is over; start a new match to keep playing", *self.game_over_rules()
            )
        if spec.chance:
            if not self.needs_chance() and not self._chance_allowed(spec):
                return Verdict.illegal(
                    f"a '{spec.type}' is not expected now; {self.describe_next()}",
                    *self.next_rules(),
                )
        elif spec.turn_bound:
            if event.seat is None:
                return Verdict.illegal(f"a '{spec.type}' needs the seat that makes it",
                                       *spec.rules)
            mover = self.to_move()
            if mover is None:
                return Verdict.illegal(f"nobody may '{spec.type}' now; {self.describe_next()}",
                                       *self.next_rules())
            if event.seat != mover:
                return self.out_of_turn(spec, event, mover)
        method: Callable[[Event], Verdict] | None = getattr(self, f"_check_{spec.type}", None)
        if method is None:
            return Verdict.illegal(f"'{spec.type}' cannot be checked by this engine")
        try:
            return method(event)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            return Verdict.illegal(f"the '{spec.type}' event is malformed: {exc}")

    def apply(self, event: Event) -> Verdict:
        """Apply ``event`` if legal; otherwise leave the state untouched. Returns the verdict."""
        verdict = self.check(event)
        if not verdict.ok:
            return verdict
        getattr(self, f"_apply_{event.type}")(event)
        self.history.append(event)
        return verdict

    def apply_or_raise(self, event: Event) -> Verdict:
        verdict = self.apply(event)
        if not verdict.ok:
            raise IllegalEvent(verdict, len(self.history))
        return verdict

    def clone(self) -> State:
        return copy.deepcopy(self)

    # -- hooks engines may override -------------------------------------------------------
    def due_types(self) -> list[str]:
        """The event types the match waits for, the most usual first, where
        :meth:`legal_events` cannot list them (an observer does not know the hands): the phone's
        entry page opens the first one's form. Empty: ask :meth:`legal_events`."""
        return []

    def turn_rules(self) -> tuple[str, ...]:
        """Rule IDs that define turn order (cited when someone plays out of turn)."""
        return ()

    def game_over_rules(self) -> tuple[str, ...]:
        return ()

    def out_of_turn(self, spec: EventSpec, event: Event, mover: int) -> Verdict:
        """The verdict on a turn-bound event from ``event.seat`` while ``mover`` is to act."""
        assert event.seat is not None
        return Verdict.illegal(
            f"it is {self.players[mover]}'s turn (seat {mover}), not "
            f"{self.players[event.seat]}'s (seat {event.seat})",
            *self.turn_rules(),
        )

    def next_rules(self) -> tuple[str, ...]:
        """Rule IDs that decide what the match waits for now (cited when an event comes at
        the wrong moment: a play while a deal is due, a deal in the middle of a turn)."""
        return self.turn_rules()

    def _chance_allowed(self, spec: EventSpec) -> bool:
        """Whether a chance event of this type may come now although a seat is to move."""
        return False

    def describe_next(self) -> str:
        mover = self.to_move()
        if self.is_over():
            return "the game is over"
        if mover is None:
            return "the next event must be a deal or another chance outcome"
        return f"it is {self.players[mover]}'s turn (seat {mover})"

    # -- field validation -----------------------------------------------------------------
    def _check_fields(self, spec: EventSpec, event: Event) -> str | None:
        declared = {f.name: f for f in spec.fields}
        extra = set(event.data) - set(declared)
        if extra:
            return (
                f"'{spec.type}' has no field(s) {sorted(extra)}; its fields are "
                f"{sorted(declared) or 'none'}"
            )
        if event.seat is not None and not 0 <= event.seat < self.num_players:
            return f"seat {event.seat} does not exist; seats are 0..{self.num_players - 1}"
        for f in spec.fields:
            if f.name not in event.data:
                if f.required and not (f.hidden and self.observer):
                    return f"'{spec.type}' needs the field '{f.name}'" + (
                        f" ({f.help})" if f.help else ""
                    )
                continue
            problem = self._check_value(spec.type, f, event.data[f.name])
            if problem:
                return problem
        return None

    def _check_value(self, etype: str, f: Field, value: Any) -> str | None:
        where = f"'{etype}' field '{f.name}'"
        if value is None and not f.required:
            return None
        if f.kind == "int" and (not isinstance(value, int) or isinstance(value, bool)):
            return f"{where} must be a whole number, got {value!r}"
        if f.kind == "str" and not isinstance(value, str):
            return f"{where} must be text, got {value!r}"
        if f.kind == "bool" and not isinstance(value, bool):
            return f"{where} must be true or false, got {value!r}"
        if f.kind == "seat":
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{where} must be a seat number, got {value!r}"
            if not 0 <= value < self.num_players:
                return f"{where}: seat {value} does not exist; seats are 0..{self.num_players - 1}"
        if f.kind == "choice" and (isinstance(value, bool) or value not in f.choices):
            return f"{where} must be one of {list(f.choices)}, got {value!r}"
        if f.kind == "card":
            return self._check_card_label(where, value)
        if f.kind == "cards":
            if not isinstance(value, list):
                return f"{where} must be a list of cards, got {value!r}"
            for item in value:
                problem = self._check_card_label(where, item)
                if problem:
                    return problem
        return None

    def _check_card_label(self, where: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"{where} must be a card label such as 'yellow-5', got {value!r}"
        if not self.is_card_label(value):
            return f"{where}: {value!r} is not a card of {self.game.title}"
        return None

    def is_card_label(self, label: str) -> bool:
        """Whether ``label`` names a card of this game (engines override)."""
        return True

    def possible_cards(self, event_type: str, field: str) -> Mapping[str, int] | None:
        """How many copies of each card the ``field`` of an ``event_type`` event could still
        name now (cards already played or on view elsewhere left out), so a phone offers only
        those; None when the engine does not narrow it down: every card of the game. A card
        nobody has seen (a hidden hand at a real table) always stays possible."""
        return None


# --------------------------------------------------------------------------------------------
# Replay and simulation
# --------------------------------------------------------------------------------------------


def replay(game: Game, players: Sequence[str], events: Iterable[Event], *, observer: bool = False) -> State:
    """Rebuild a state from its event log. Raises :class:`IllegalEvent` naming the bad index."""
    state = game.new_state(players, observer=observer)
    for index, event in enumerate(events):
        verdict = state.apply(event)
        if not verdict.ok:
            raise IllegalEvent(verdict, index)
    return state


class Bot:
    """A player program: picks one of the legal events for its seat."""

    def choose(self, state: State, seat: int) -> Event:
        raise NotImplementedError  # RandomBot and the games' greedy bots override this

    @staticmethod
    def options(state: State, seat: int) -> list[Event]:
        """The legal events for ``seat``; asking a bot to move when it has none is a bug in
        the caller, said with what the game waits for."""
        options = state.legal_events(seat)
        if not options:
            raise RulesError(f"seat {seat} has no legal event; {state.describe_next()}")
        return options


class RandomBot(Bot):
    """Plays a uniformly random legal event, from a seeded generator (reproducible)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State, seat: int) -> Event:
        return self.rng.choice(self.options(state, seat))


def simulate(
    state: State,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    max_events: int = 100_000,
    on_event: Callable[[State, Event], None] | None = None,
) -> State:
    """Play ``state`` to the end: chance events from ``rng``, choices from ``bots``."""
    for _ in range(max_events):
        if state.is_over():
            return state
        if state.needs_chance():
            event = state.chance_event(rng)
        else:
            seat = state.to_move()
            assert seat is not None
            event = bots[seat].choose(state, seat)
        state.apply_or_raise(event)
        if on_event is not None:
            on_event(state, event)
    raise RulesError(f"the game did not end within {max_events} events")

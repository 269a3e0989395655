"""Tests of the match log store (device/store.py): durability, bad input, undo/correct, audit,
export/import, corrupt files, migrations and concurrency.

One file, as the store it tests is one: the guarantees share the Tally game and its fixtures.

Most tests use Tally, a tiny game defined here (it is also imported by test_cli_match.py and
test_crash_safety.py), so the store is tested apart from any real engine; the DUCK tests at the
end run the same guarantees on the real engine.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from ducktable.device import store as store_module
from ducktable.device.store import (
    LOG_FORMAT_VERSION,
    MatchStore,
    StoreError,
    parse_match_log,
)
from ducktable.rules import registry
from ducktable.rules.core import (
    Event,
    EventSpec,
    Field,
    Game,
    OptionSpec,
    RandomBot,
    State,
    Verdict,
    replay,
    simulate,
)

# --------------------------------------------------------------------------------------------
# Tally: a tiny game for testing the store
# --------------------------------------------------------------------------------------------

TALLY_CARDS = ("tally-1", "tally-2", "tally-3")


class TallyGame(Game):
    """Players take turns adding a card's value to their score; it ends at ``target`` total.

    A hidden ``deal`` (chance) starts it; ``bonus`` may be claimed by any seat at any time.
    Rule IDs: TALLY-1 turn order, TALLY-2 adding a card, TALLY-3 the end, TALLY-4 bonus.
    """

    name = "tally"
    title = "Tally"
    min_players = 2
    max_players = 4
    options_spec = (OptionSpec("target", 10, help="the total that ends the game", rule="TALLY-3"),)
    event_specs = (
        EventSpec("deal", (Field("secret", "int", hidden=True),), chance=True),
        EventSpec("add", (Field("card", "card"),)),
        EventSpec("bonus", (Field("n", "int"),), turn_bound=False),
    )

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> TallyState:
        return TallyState(self, players, observer)


class TallyState(State):
    def __init__(self, game: Game, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        self.dealt = False
        self.secret: int | None = None
        self.points = [0] * len(players)
        self.bonuses = [0] * len(players)
        self.turn = 0

    def to_move(self) -> int | None:
        return self.turn if self.dealt and not self.is_over() else None

    def is_over(self) -> bool:
        return sum(self.points) >= self.game.options["target"]

    def scores(self) -> list[int]:
        return [p + b for p, b in zip(self.points, self.bonuses, strict=True)]

    def is_card_label(self, label: str) -> bool:
        return label in TALLY_CARDS

    def turn_rules(self) -> tuple[str, ...]:
        return ("TALLY-1",)

    def game_over_rules(self) -> tuple[str, ...]:
        return ("TALLY-3",)

    def _check_deal(self, event: Event) -> Verdict:
        if self.dealt:
            return Verdict.illegal("already dealt", "TALLY-1")
        return Verdict.legal("dealt", "TALLY-1")

    def _apply_deal(self, event: Event) -> None:
        self.dealt = True
        self.secret = event.data.get("secret")

    def _check_add(self, event: Event) -> Verdict:
        return Verdict.legal(f"adds {event.data['card']}", "TALLY-2")

    def _apply_add(self, event: Event) -> None:
        assert event.seat is not None
        self.points[event.seat] += int(event.data["card"].rsplit("-", 1)[1])
        self.turn = (self.turn + 1) % self.num_players

    def _check_bonus(self, event: Event) -> Verdict:
        if event.seat is None:
            return Verdict.illegal("a bonus needs the seat that claims it", "TALLY-4")
        return Verdict.legal("bonus claimed", "TALLY-4")

    def _apply_bonus(self, event: Event) -> None:
        assert event.seat is not None
        self.bonuses[event.seat] += event.data["n"]

    def legal_events(self, seat: int | None = None) -> list[Event]:
        mover = self.to_move()
        if mover is None or (seat is not None and seat != mover):
            return []
        return [Event("add", mover, {"card": c}, source="bot") for c in TALLY_CARDS]

    def chance_event(self, rng: random.Random) -> Event:
        return Event("deal", None, {"secret": rng.randint(1, 99)}, source="bot")

    def public_view(self) -> dict[str, Any]:
        return {
            "total": sum(self.points),
            "target": self.game.options["target"],
            "seats": [{"name": n, "score": s} for n, s in zip(self.players, self.scores(),
                                                             strict=True)],
        }

    def player_view(self, seat: int) -> dict[str, Any]:
        return {**self.public_view(), "secret": None if self.observer else self.secret}


def register_tally(monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    """Make ``registry.make_game("tally")`` build :class:`TallyGame` (for tests only)."""
    entry = (TallyGame.__module__, "TallyGame", "")  # no greedy bot
    if monkeypatch is None:
        registry._GAMES["tally"] = entry
    else:
        monkeypatch.setitem(registry._GAMES, "tally", entry)


def deal(secret: int = 7) -> Event:
    return Event("deal", None, {"secret": secret})


def add(seat: int, card: str = "tally-1") -> Event:
    return Event("add", seat, {"card": card})


def fingerprint(state: State) -> dict[str, Any]:
    """Everything observable about a state, to compare two states for identity."""
    return {
        "history": [e.to_json() for e in state.history],
        "public": state.public_view(),
        "players": [state.player_view(s) for s in range(state.num_players)],
        "scores": state.scores(),
        "to_move": state.to_move(),
        "over": state.is_over(),
    }


def snapshot(store: MatchStore, match_id: int) -> dict[str, Any]:
    """What the store holds for a match, to assert that a refused input changed nothing."""
    return {
        "events": [e.to_json() for e in store.events(match_id)],
        "seq": store.seq(match_id),
        "audit": store.audit(match_id),
        "state": fingerprint(store.state(match_id)),
        "info": store.match(match_id),
    }


@pytest.fixture(autouse=True)
def _tally(monkeypatch: pytest.MonkeyPatch) -> None:
    register_tally(monkeypatch)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "matches.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[MatchStore]:
    s = MatchStore(db)
    yield s
    s.close()


# --------------------------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------------------------


def test_create_match_returns_info_with_resolved_options(store: MatchStore) -> None:
    info = store.create_match("tally", ["Ann", "Bob"], name="Friday")
    assert info.game == "tally"
    assert info.players == ["Ann", "Bob"]
    assert info.options == {"target": 10}  # defaults pinned at creation
    assert (info.observer, info.name, info.finished) == (False, "Friday", False)
    assert info.event_count == 0
    assert info.created.endswith("+00:00")
    assert store.match(info.id) == info
    assert store.list_matches() == [info]
    assert store.seq(info.id) == 0


def test_list_matches_newest_first(store: MatchStore) -> None:
    first = store.create_match("tally", ["a", "b"])
    second = store.create_match("tally", ["a", "b", "c"], {"target": 3}, observer=True)
    assert [m.id for m in store.list_matches()] == [second.id, first.id]
    assert store.match(second.id).observer is True


@pytest.mark.parametrize(
    ("game", "players", "options", "message"),
    [
        ("nope", ["a", "b"], None, "unknown game 'nope'"),
        ("tally", ["a"], None, "2 to 4 players"),
        ("tally", ["a", "a"], None, "must be different"),
        ("tally", ["a", "b"], {"colour": 1}, "unknown option"),
        ("tally", ["a", "b"], {"target": "ten"}, "must be int"),
    ],
)
def test_create_match_refuses_bad_setup(
    store: MatchStore, game: str, players: list[str], options: dict | None, message: str
) -> None:
    with pytest.raises(StoreError, match=message):
        store.create_match(game, players, options)
    assert store.list_matches() == []


@pytest.mark.parametrize("call", ["match", "events", "state", "seq", "audit", "export_jsonl",
                                  "undo"])
def test_unknown_match_id_is_a_store_error(store: MatchStore, call: str) -> None:
    with pytest.raises(StoreError, match="there is no match 42"):
        getattr(store, call)(42)


def test_match_ids_from_urls_may_be_text(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    assert store.submit(str(m.id), deal()).ok
    assert store.events(m.id) == [deal()]
    with pytest.raises(StoreError, match="a match id is a whole number, got 'x'"):
        store.match("x")


def test_check_and_submit_on_unknown_match_are_store_errors(store: MatchStore) -> None:
    with pytest.raises(StoreError, match="no match 5"):
        store.check(5, deal())
    with pytest.raises(StoreError, match="no match 5"):
        store.submit(5, deal())


def test_database_is_wal_with_full_synchronous_commits(store: MatchStore) -> None:
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION


# --------------------------------------------------------------------------------------------
# Submitting and checking
# --------------------------------------------------------------------------------------------


def test_submit_appends_and_state_follows(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    assert store.submit(m.id, deal()).ok
    verdict = store.submit(m.id, add(0, "tally-3"))
    assert verdict == Verdict.legal("adds tally-3", "TALLY-2")
    assert store.events(m.id) == [deal(), add(0, "tally-3")]
    assert store.state(m.id).scores() == [3, 0]
    assert store.seq(m.id) == 2
    assert store.match(m.id).event_count == 2


def test_submit_accepts_event_json_text_and_dicts(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    assert store.submit(m.id, '{"type": "deal", "data": {"secret": 3}}').ok
    assert store.submit(m.id, {"type": "add", "seat": 0, "data": {"card": "tally-2"}}).ok
    assert store.state(m.id).scores() == [2, 0]


def test_finished_flag_set_when_the_game_ends_TALLY_3(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"], {"target": 4})
    for event in (deal(), add(0, "tally-3"), add(1, "tally-1")):
        assert store.submit(m.id, event).ok
    assert store.match(m.id).finished is True
    assert store.state(m.id).is_over()


def test_check_changes_nothing(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    before = snapshot(store, m.id)
    assert store.check(m.id, add(0)) == Verdict.legal("adds tally-1", "TALLY-2")
    assert store.check(m.id, add(1)).ok is False
    assert snapshot(store, m.id) == before


BAD_INPUTS = [
    pytest.param('{"type": "add", "seat": 0, "data": {"card": ', "not valid JSON",
                 id="malformed-json"),
    pytest.param("[1, 2]", "must be a JSON object", id="not-an-object"),
    pytest.param({"type": "add", "seat": "zero", "data": {"card": "tally-1"}}, "whole number",
                 id="seat-not-a-number"),
    pytest.param(add(0, "tally-9"), "'tally-9' is not a card of Tally", id="unknown-card"),
    pytest.param(add(7), "seat 7 does not exist", id="wrong-seat"),
    pytest.param(add(1), "it is a's turn (seat 0), not b's (seat 1)", id="out-of-turn"),
    pytest.param(Event("shuffle", 0), "'shuffle' is not an event of Tally", id="unknown-type"),
    pytest.param(Event("add", 0, {"card": "tally-1", "colour": "red"}), "has no field",
                 id="extra-field"),
    pytest.param(Event("add", 0), "needs the field 'card'", id="missing-field"),
    pytest.param(deal(), "a 'deal' is not expected now", id="second-deal"),
]


@pytest.mark.parametrize(("event", "reason"), BAD_INPUTS)
def test_bad_input_gets_a_clear_verdict_and_changes_nothing(
    store: MatchStore, event: Any, reason: str
) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    before = snapshot(store, m.id)
    for call in (store.check, store.submit):
        verdict = call(m.id, event)
        assert verdict.ok is False
        assert reason in verdict.reason
    assert snapshot(store, m.id) == before
    assert store.submit(m.id, add(0)).ok  # the match goes on normally afterwards


def test_out_of_turn_verdict_cites_the_turn_rule_TALLY_1(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    assert store.submit(m.id, add(1)).rules == ("TALLY-1",)


def test_event_after_game_end_is_refused_and_nothing_lost_TALLY_3(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"], {"target": 3})
    for event in (deal(), add(0, "tally-3")):
        assert store.submit(m.id, event).ok
    before = snapshot(store, m.id)
    verdict = store.submit(m.id, add(1))
    assert verdict.ok is False
    assert "the game is over" in verdict.reason
    assert verdict.rules == ("TALLY-3",)
    assert snapshot(store, m.id) == before
    assert len(store.events(m.id)) == 2


def test_state_is_a_private_copy(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    mine = store.state(m.id)
    assert mine.apply(add(0, "tally-3")).ok
    assert store.state(m.id).scores() == [0, 0]
    assert store.events(m.id) == [deal()]


def test_observer_match_accepts_events_without_hidden_fields(store: MatchStore) -> None:
    observed = store.create_match("tally", ["a", "b"], observer=True)
    full = store.create_match("tally", ["a", "b"])
    secretless = Event("deal")
    assert store.submit(observed.id, secretless).ok
    verdict = store.submit(full.id, secretless)
    assert not verdict.ok and "needs the field 'secret'" in verdict.reason


# --------------------------------------------------------------------------------------------
# Durability and replay
# --------------------------------------------------------------------------------------------


def test_reopening_replays_to_the_identical_state(db: Path) -> None:
    with MatchStore(db) as first:
        m = first.create_match("tally", ["a", "b", "c"], {"target": 20})
        for event in (deal(), add(0, "tally-2"), add(1, "tally-3"), Event("bonus", 2, {"n": 5})):
            assert first.submit(m.id, event).ok
        expected = fingerprint(first.state(m.id))
        expected_info = first.match(m.id)
    with MatchStore(db) as second:
        assert fingerprint(second.state(m.id)) == expected
        assert second.match(m.id) == expected_info
        assert second.seq(m.id) == 4


def test_close_is_idempotent_and_later_calls_say_so(db: Path) -> None:
    s = MatchStore(db)
    m = s.create_match("tally", ["a", "b"])
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.state(m.id)
    with pytest.raises(StoreError, match="closed"):
        s.submit(m.id, deal())


def test_two_store_objects_on_one_file_see_each_others_events(db: Path) -> None:
    """Another process (here: another connection) appending is noticed through ``seq``."""
    with MatchStore(db) as a, MatchStore(db) as b:
        m = a.create_match("tally", ["a", "b"])
        assert a.submit(m.id, deal()).ok
        assert b.state(m.id).to_move() == 0  # b caches this state
        assert a.submit(m.id, add(0, "tally-3")).ok
        assert b.submit(m.id, add(1, "tally-2")).ok  # b's stale cache was rebuilt first
        assert a.state(m.id).scores() == [3, 2]
        assert [e.seat for e in b.events(m.id)] == [None, 0, 1]


# --------------------------------------------------------------------------------------------
# Undo, correction and the audit trail
# --------------------------------------------------------------------------------------------


def test_undo_removes_the_last_event_and_records_it(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    store.submit(m.id, add(0, "tally-2"))
    removed = store.undo(m.id, reason="misread card")
    assert removed == add(0, "tally-2")
    assert store.events(m.id) == [deal()]
    assert store.state(m.id).scores() == [0, 0]
    assert store.seq(m.id) == 3
    last = store.audit(m.id)[-1]
    assert last["action"] == "undo"
    assert last["index"] == 1
    assert last["previous"] == add(0, "tally-2").to_json()
    assert last["reason"] == "misread card"
    assert last["seq"] == 3
    assert store.submit(m.id, add(0, "tally-3")).ok  # play continues from the undone point


def test_undo_on_an_empty_log_returns_none_and_records_nothing(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    before = snapshot(store, m.id)
    assert store.undo(m.id) is None
    assert snapshot(store, m.id) == before


def test_undo_after_game_end_reopens_the_game(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"], {"target": 1})
    store.submit(m.id, deal())
    store.submit(m.id, add(0))
    assert store.match(m.id).finished
    store.undo(m.id)
    assert not store.match(m.id).finished
    assert store.submit(m.id, add(0, "tally-2")).ok


def test_correct_replaces_an_event_and_records_old_and_new(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    for event in (deal(), add(0, "tally-1"), add(1, "tally-1")):
        store.submit(m.id, event)
    verdict = store.correct(m.id, 1, add(0, "tally-3"), reason="camera misread")
    assert verdict.ok and verdict.rules == ("TALLY-2",)
    assert "event #1 corrected" in verdict.reason
    assert store.events(m.id) == [deal(), add(0, "tally-3"), add(1, "tally-1")]
    assert store.state(m.id).scores() == [3, 1]
    entry = store.audit(m.id)[-1]
    assert (entry["action"], entry["index"], entry["reason"]) == ("correct", 1, "camera misread")
    assert entry["event"] == add(0, "tally-3").to_json()
    assert entry["previous"] == add(0, "tally-1").to_json()


def test_correct_refuses_a_replacement_that_breaks_a_later_event_TALLY_3(
    store: MatchStore,
) -> None:
    m = store.create_match("tally", ["a", "b"], {"target": 3})
    for event in (deal(), add(0, "tally-1"), add(1, "tally-1")):
        store.submit(m.id, event)
    before = snapshot(store, m.id)
    verdict = store.correct(m.id, 1, add(0, "tally-3"))  # the game would end at event #1
    assert verdict.ok is False
    assert "would make event #2 illegal" in verdict.reason
    assert verdict.rules == ("TALLY-3",)
    assert snapshot(store, m.id) == before


def test_correct_refuses_an_illegal_replacement_and_bad_index(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    store.submit(m.id, add(0))
    before = snapshot(store, m.id)
    verdict = store.correct(m.id, 1, add(1))
    assert not verdict.ok and "event #1 cannot be replaced" in verdict.reason
    assert not store.correct(m.id, 1, "{oops").ok
    with pytest.raises(StoreError, match="no event #5; its events are numbered 0..1"):
        store.correct(m.id, 5, add(0))
    assert snapshot(store, m.id) == before


def test_audit_lists_every_change_in_order(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    store.submit(m.id, add(0))
    store.submit(m.id, add(0))  # refused: not recorded
    store.undo(m.id, "oops")
    store.submit(m.id, add(0, "tally-2"))
    store.correct(m.id, 1, add(0, "tally-3"), "fix")
    trail = store.audit(m.id)
    assert [(e["action"], e["index"], e["seq"]) for e in trail] == [
        ("create", None, 0), ("submit", 0, 1), ("submit", 1, 2), ("undo", 1, 3),
        ("submit", 1, 4), ("correct", 1, 5),
    ]
    assert all(e["time"].endswith("+00:00") for e in trail)


# --------------------------------------------------------------------------------------------
# Export and import
# --------------------------------------------------------------------------------------------


def test_export_then_import_gives_the_identical_state(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b", "c"], {"target": 9}, name="club night")
    for event in (deal(42), add(0, "tally-2"), Event("bonus", 2, {"n": 4}, ts=1234,
                                                      source="button"), add(1, "tally-3")):
        assert store.submit(m.id, event).ok
    text = store.export_jsonl(m.id)
    copy = store.import_jsonl(text)
    assert copy.id != m.id
    assert fingerprint(store.state(copy.id)) == fingerprint(store.state(m.id))
    original = store.match(m.id)
    for attr in ("game", "options", "players", "observer", "name", "created", "finished",
                 "event_count"):
        assert getattr(copy, attr) == getattr(original, attr)
    assert store.export_jsonl(copy.id) == text
    assert store.audit(copy.id)[0]["action"] == "import"


def test_export_format_is_a_header_then_one_event_per_line(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"], name="n")
    store.submit(m.id, deal(5))
    lines = store.export_jsonl(m.id).splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "ducktable-match-log"
    assert header["version"] == LOG_FORMAT_VERSION
    assert header["events"] == 1
    assert (header["game"], header["players"], header["options"]) == ("tally", ["a", "b"],
                                                                       {"target": 10})
    assert json.loads(lines[1]) == {"v": 2, "type": "deal", "data": {"secret": 5}}


def test_public_export_drops_hidden_fields_and_imports_as_observer(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal(77))
    store.submit(m.id, add(0, "tally-3"))
    text = store.export_jsonl(m.id, public=True)
    assert "77" not in text.split("\n", 1)[1]
    header = json.loads(text.splitlines()[0])
    assert header["public"] is True and header["observer"] is True
    copy = store.import_jsonl(text)
    assert copy.observer is True
    assert store.state(copy.id).scores() == [3, 0]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda lines: ["{not json"] + lines[1:], "line 1: not valid JSON"),
        (lambda lines: lines[1:], "must start with a header line"),
        (lambda lines: lines[:2] + ['{"type": "add", "seat": 1,'] + lines[3:],
         "line 3: event is not valid JSON"),
        (lambda lines: lines[:-1], "the header says 3 events but the file holds 2"),
        (lambda lines: lines[:2] + [json.dumps(add(1).to_json())] + lines[3:],
         "line 3: event #1 is refused: ILLEGAL: it is a's turn"),
        (lambda lines: [lines[0].replace('"version":2', '"version":7')] + lines[1:],
         "version 7 is not supported"),
        (lambda lines: [lines[0].replace('"tally"', '"chess"')] + lines[1:], "unknown game"),
        (lambda lines: [lines[0].replace('"format":"ducktable-match-log"', '"format":"csv"')]
         + lines[1:], "'format' must be"),
        (lambda lines: [lines[0].replace('"players":["a","b"]', '"players":"ab"')] + lines[1:],
         "needs \"players\""),
    ],
)
def test_import_refuses_bad_logs_with_the_line_and_stores_nothing(
    store: MatchStore, mutate: Any, message: str
) -> None:
    m = store.create_match("tally", ["a", "b"])
    for event in (deal(), add(0), add(1)):
        store.submit(m.id, event)
    lines = store.export_jsonl(m.id).splitlines()
    before = store.list_matches()
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace("[", r"\[")):
        store.import_jsonl("\n".join(mutate(lines)) + "\n")
    assert store.list_matches() == before


def test_parse_headerless_events_with_game_and_players_given() -> None:
    text = "\n".join(e.dumps() for e in (deal(), add(0))) + "\n\n"
    log = parse_match_log(text, game="tally", players=["x", "y"])
    assert (log.game, log.players, log.events, log.lines) == ("tally", ["x", "y"],
                                                             [deal(), add(0)], [1, 2])


# --------------------------------------------------------------------------------------------
# Damaged or unreadable databases, schema versions
# --------------------------------------------------------------------------------------------


def test_garbage_file_is_a_clear_store_error(db: Path) -> None:
    db.write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StoreError, match="cannot be read .*move it aside"):
        MatchStore(db)
    assert db.read_bytes().startswith(b"this is not a database")  # left untouched


def test_folder_in_place_of_the_file_is_a_clear_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder, not a file"):
        MatchStore(tmp_path)


def test_missing_parent_folder_is_a_clear_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        MatchStore(tmp_path / "nowhere" / "m.sqlite3")


def test_truncated_database_is_a_clear_store_error(db: Path) -> None:
    with MatchStore(db) as s:
        for _ in range(30):
            m = s.create_match("tally", ["a", "b"], name="x" * 500)
            s.submit(m.id, deal())
    size = db.stat().st_size
    assert size > 8192
    with db.open("r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(StoreError, match="move it aside"):
        MatchStore(db)


def test_damaged_event_row_is_reported_and_can_be_undone(db: Path) -> None:
    with MatchStore(db) as s:
        m = s.create_match("tally", ["a", "b"])
        s.submit(m.id, deal())
        s.submit(m.id, add(0))
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET body = '{broken' WHERE idx = 1")
    with MatchStore(db) as s:
        with pytest.raises(StoreError, match="event #1 of match 1 is damaged"):
            s.state(m.id)
        assert s.undo(m.id, "damaged row") is None  # removed though unreadable; recorded
        assert s.audit(m.id)[-1]["previous"] == "{broken"
        assert s.state(m.id).history == [deal()]


@pytest.mark.parametrize(("column", "text"), [("options", '{"bro'), ("players", '"a"'),
                                               ("players", "[1, 2]"), ("options", "[]")])
def test_a_damaged_match_row_is_listed_with_why_and_the_others_still_open(
        db: Path, column: str, text: str) -> None:
    with MatchStore(db) as s:
        first = s.create_match("tally", ["a", "b"])
        s.submit(first.id, deal())
        second = s.create_match("tally", ["c", "d"])
        s.submit(second.id, deal())
    with sqlite3.connect(db) as raw:
        raw.execute(f"UPDATE matches SET {column} = ? WHERE id = ?", (text, first.id))
    with MatchStore(db) as s:
        listed = {m.id: m for m in s.list_matches()}
        assert listed[second.id].damaged == "" and listed[second.id].players == ["c", "d"]
        why = listed[first.id].damaged
        assert f"match {first.id} is damaged in the database: its {column} cannot be read" in why
        assert listed[first.id].to_json()["damaged"] == why
        assert "damaged" not in listed[second.id].to_json()
        for reach in (s.state, s.export_jsonl, lambda mid: s.submit(mid, add(0))):
            with pytest.raises(StoreError, match="restore a backup"):
                reach(first.id)
        assert s.state(second.id).history == [deal()]
        assert len(s.events(first.id)) == 1  # its events are still there


def test_a_database_this_user_may_not_write_is_not_called_damaged(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite writes its journal beside the file even to read, so a folder the user may not
    write fails to open; the message must not send them to restore a backup. (Tests run as
    root on CI, who may write anywhere: the refusal is simulated.)"""
    MatchStore(db).close()

    class Refused:  # connects, then fails at the first statement, as SQLite does there
        def execute(self, *args: Any) -> None:
            raise sqlite3.OperationalError("unable to open database file")

        def close(self) -> None:
            pass

    monkeypatch.setattr(store_module.sqlite3, "connect", lambda *a, **k: Refused())
    with pytest.raises(StoreError, match="move it aside"):  # writable: damage is the likely cause
        MatchStore(db)
    monkeypatch.setattr(store_module.os, "access", lambda path, mode: Path(path) != db.parent)
    with pytest.raises(StoreError) as caught:
        MatchStore(db)
    assert f"this user may not write to the folder {db.parent}" in str(caught.value)
    assert "not damaged" in str(caught.value) and "backup" not in str(caught.value)


def test_a_reason_not_in_utf8_is_refused_and_nothing_is_undone(db: Path) -> None:
    with MatchStore(db) as s:
        m = s.create_match("tally", ["a", "b"])
        s.submit(m.id, deal())
        with pytest.raises(StoreError, match="not UTF-8 .* nothing was recorded"):
            s.undo(m.id, "oops \udcff")  # a command-line argument of another encoding
        assert s.events(m.id) == [deal()]


def test_database_from_a_newer_version_asks_to_upgrade(db: Path) -> None:
    MatchStore(db).close()
    with sqlite3.connect(db) as raw:
        raw.execute(f"PRAGMA user_version = {store_module.SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer ducktable .* upgrade ducktable"):
        MatchStore(db)


def test_migration_hook_upgrades_an_old_database(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MatchStore(db) as s:
        m = s.create_match("tally", ["a", "b"])
        s.submit(m.id, deal())
    new_version = store_module.SCHEMA_VERSION + 1

    def add_notes_table(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE notes (match_id INTEGER, text TEXT)")

    monkeypatch.setattr(store_module, "SCHEMA_VERSION", new_version)
    monkeypatch.setitem(store_module.MIGRATIONS, new_version - 1, add_notes_table)
    with MatchStore(db) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == new_version
        assert s.conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 0
        assert s.events(m.id) == [deal()]


def test_failed_migration_leaves_the_database_as_it_was(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MatchStore(db).close()

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        conn.execute("THIS IS NOT SQL")

    monkeypatch.setattr(store_module, "SCHEMA_VERSION", store_module.SCHEMA_VERSION + 1)
    monkeypatch.setitem(store_module.MIGRATIONS, store_module.SCHEMA_VERSION - 1, broken)
    with pytest.raises(StoreError):
        MatchStore(db)
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION - 1
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master")}
        assert "half_done" not in tables


# --------------------------------------------------------------------------------------------
# Concurrency and live views
# --------------------------------------------------------------------------------------------


def test_two_threads_submitting_lose_no_event_TALLY_4(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"], {"target": 1000})
    store.submit(m.id, deal())
    per_thread = 40
    verdicts: list[list[bool]] = [[], []]

    def claim(seat: int) -> None:
        for n in range(per_thread):
            verdicts[seat].append(store.submit(m.id, Event("bonus", seat, {"n": n + 1})).ok)

    threads = [threading.Thread(target=claim, args=(seat,)) for seat in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert verdicts == [[True] * per_thread, [True] * per_thread]
    events = store.events(m.id)
    assert len(events) == 1 + 2 * per_thread
    for seat in (0, 1):
        assert [e.data["n"] for e in events if e.seat == seat] == list(range(1, per_thread + 1))
    expected = sum(range(1, per_thread + 1))
    assert store.state(m.id).scores() == [expected, expected]
    assert store.seq(m.id) == 1 + 2 * per_thread


def test_wait_for_change_wakes_when_an_event_arrives(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    seen: list[int] = []
    started = threading.Event()

    def watch() -> None:
        started.set()
        seen.append(store.wait_for_change(m.id, 0, timeout=30))

    watcher = threading.Thread(target=watch)
    watcher.start()
    started.wait()
    store.submit(m.id, deal())
    watcher.join(timeout=30)
    assert not watcher.is_alive()
    assert seen == [1]


def test_wait_for_change_sees_another_store_objects_change(db: Path) -> None:
    with MatchStore(db) as a, MatchStore(db) as b:
        m = a.create_match("tally", ["a", "b"])
        result: list[int] = []
        watcher = threading.Thread(target=lambda: result.append(a.wait_for_change(m.id, 0, 30)))
        watcher.start()
        b.submit(m.id, deal())
        watcher.join(timeout=30)
        assert result == [1]


def test_wait_for_change_returns_current_seq_on_timeout(store: MatchStore) -> None:
    m = store.create_match("tally", ["a", "b"])
    store.submit(m.id, deal())
    assert store.wait_for_change(m.id, 1, timeout=0.05) == 1
    assert store.wait_for_change(m.id, 0, timeout=0) == 1  # already past: no waiting


# --------------------------------------------------------------------------------------------
# DUCK, the real engine
# --------------------------------------------------------------------------------------------


def duck_match_events(
    seed: int, players: int = 4, bot: str = "greedy"
) -> tuple[list[Event], State]:
    """A whole 5-round DUCK match between bots, reproducible from ``seed``."""
    from ducktable.rules import duck

    state = registry.make_game("duck").new_state([f"p{i}" for i in range(players)])
    bots = [duck.GreedyBot(random.Random(seed * 10 + i)) if bot == "greedy"
            else RandomBot(random.Random(seed * 10 + i)) for i in range(players)]
    events: list[Event] = []
    simulate(state, bots, random.Random(seed), on_event=lambda _s, e: events.append(e))
    return events, state


def test_duck_F1_whole_match_stored_reopened_and_replayed_identically(db: Path) -> None:
    events, final = duck_match_events(seed=11)
    with MatchStore(db) as s:
        m = s.create_match("duck", ["p0", "p1", "p2", "p3"])
        for event in events:
            assert s.submit(m.id, event).ok
        assert s.match(m.id).finished
    with MatchStore(db) as s:
        assert fingerprint(s.state(m.id)) == fingerprint(final)
        assert s.state(m.id).scores() == final.scores()


def test_duck_export_import_round_trip_and_public_log(store: MatchStore) -> None:
    events, final = duck_match_events(seed=5, players=3, bot="random")
    m = store.record_match("duck", ["p0", "p1", "p2"], None, events, action="simulate")
    copy = store.import_jsonl(store.export_jsonl(m.id))
    assert fingerprint(store.state(copy.id)) == fingerprint(final)
    public = store.export_jsonl(m.id, public=True)
    assert '"hands"' in public  # the round-end reveal shows hands face up
    assert all("draw_pile" not in line for line in public.splitlines()[1:])
    observed = store.import_jsonl(public)
    assert observed.observer
    assert store.state(observed.id).scores() == final.scores()


def test_duck_S2_out_of_turn_and_A1_bad_play_leave_the_store_unchanged(
    store: MatchStore,
) -> None:
    events, _ = duck_match_events(seed=3, players=3)
    m = store.create_match("duck", ["p0", "p1", "p2"])
    assert store.submit(m.id, events[0]).ok  # the deal; seat 1 (left of dealer 0) starts
    before = snapshot(store, m.id)
    wrong_seat = Event("duck", 2)
    verdict = store.submit(m.id, wrong_seat)
    assert not verdict.ok and "DUCK-S2" in verdict.rules
    bad_run = Event("play", 1, {"cards": ["red-1", "blue-2", "yellow-3"]})
    assert "DUCK-A2" in store.submit(m.id, bad_run).rules
    assert not store.submit(m.id, Event("play", 1, {"cards": ["green-3"]})).ok
    assert snapshot(store, m.id) == before


def test_duck_S1_observer_match_records_camera_events(store: MatchStore) -> None:
    m = store.create_match("duck", ["Ann", "Bob", "Cy"], observer=True)
    camera_deal = Event("deal", None, {"face_up": ["red-3", None, None]}, ts=1000,
                        source="camera")
    verdict = store.submit(m.id, camera_deal)
    assert verdict.ok and verdict.rules == ("DUCK-S1",)
    assert store.submit(m.id, Event("play", 1, {"cards": ["yellow-5"]}, source="camera")).ok
    assert store.events(m.id)[0] == camera_deal
    assert store.state(m.id).public_view()["seats"][1]["pile_top"] == "yellow-5"


# --------------------------------------------------------------------------------------------
# Benchmarks (run with --benchmark-enable to print figures; plain runs do one round)
# --------------------------------------------------------------------------------------------


def test_bench_submit_latency_synchronous_full(benchmark: Any, db: Path) -> None:
    """Submitting a whole 4-player DUCK match event by event, each committed and fsynced.

    The figure per event is the total divided by ``extra_info["events"]``.
    """
    events, final = duck_match_events(seed=2)
    with MatchStore(db) as s:

        def one_match() -> int:
            m = s.create_match("duck", ["p0", "p1", "p2", "p3"])
            for event in events:
                assert s.submit(m.id, event).ok
            return m.id

        benchmark.extra_info["events"] = len(events)
        match_id = benchmark.pedantic(one_match, rounds=3, iterations=1)
        assert s.state(match_id).scores() == final.scores()


def test_bench_replay_five_round_duck_match(benchmark: Any) -> None:
    """Time to rebuild a finished 4-player DUCK match from its log (what reopening costs)."""
    events, final = duck_match_events(seed=2)
    game = registry.make_game("duck")
    state = benchmark(lambda: replay(game, ["p0", "p1", "p2", "p3"], events))
    assert state.scores() == final.scores()


def test_huge_or_negative_match_ids_are_clear_errors(tmp_path):
    store = MatchStore(tmp_path / "m.sqlite3")
    for bad in (2**70, -1, 0, "99999999999999999999999"):
        with pytest.raises(StoreError, match="match"):
            store.match(bad)
    store.close()

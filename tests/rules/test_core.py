"""The rules core: event JSON, framework checks, bad input, replay errors."""

from __future__ import annotations

import random

import pytest
from ducktable.rules import (
    BadEvent,
    Event,
    IllegalEvent,
    RandomBot,
    Verdict,
    make_game,
    replay,
    simulate,
)
from ducktable.rules.catalogue import explain
from ducktable.rules.decks import DECKS, deck


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ('{"seat": 1}', "'type'"),
    ('{"type": "play", "seat": "two"}', "whole number"),
    ('{"type": "play", "data": [1]}', "'data' must be a JSON object"),
    ('{"type": "play", "ts": 1.5}', "milliseconds"),
    ('{"type": "play", "colour": "red"}', "unknown event field"),
    ('{"type": "play", "v": 99}', "version"),
    ('{"type": "play", "source": "telepathy"}', "source"),
    ('{"type": "play", "seat": ' + "9" * 5000 + "}", r"not valid JSON \(a number too long"),
    ("[" * 50_000, r"not valid JSON \(brackets nested too deep"),
])
def test_malformed_event_json_gives_a_clear_message(text, message):
    with pytest.raises(BadEvent, match=message):
        Event.from_json(text)


def test_event_json_keeps_timestamps_and_sources():
    event = Event("play", 2, {"cards": ["yellow-1"]}, ts=1234, source="camera")
    back = Event.from_json(event.dumps())
    assert back == event
    assert back.to_json()["v"] == 2


def test_unknown_card_wrong_seat_unknown_type_are_verdicts_not_exceptions():
    state = make_game("duck").new_state(["A", "B", "C"])
    state.apply_or_raise(state.chance_event(random.Random(0)))
    cases = [
        (        Event("play", 1, {"cards": ["green-3"]}), "not a card of DUCK"),
        (        Event("play", 9, {"cards": ["red-3"]}), "seat 9 does not exist"),
        (        Event("play", None, {"cards": ["red-3"]}), "needs the seat"),
        (        Event("jump", 1), "not an event of DUCK"),
        (        Event("draw", 1, {"pile": "deck", "card": "red-1"}), "has no field"),
        (        Event("play", 2, {"cards": ["red-3"]}), "turn"),
    ]
    for event, message in cases:
        verdict = state.check(event)
        assert not verdict.ok and message in verdict.reason, (event, verdict)


def test_events_after_the_game_end_are_refused():
    state = make_game("duck").new_state(["A", "B", "C"])
    simulate(state, [RandomBot(random.Random(i)) for i in range(3)], random.Random(1))
    assert state.is_over()
    before = state.scores()
    verdict = state.apply(Event("duck", 0))
    assert not verdict.ok and "game is over" in verdict.reason and "DUCK-F1" in verdict.rules
    assert state.scores() == before


def test_replay_names_the_first_refused_event():
    game = make_game("duck")
    events = [Event("duck", 1)]
    with pytest.raises(IllegalEvent) as info:
        replay(game, ["A", "B", "C"], events)
    assert info.value.index == 0 and "dealt" in str(info.value)


def test_verdict_text_cites_rules():
    verdict = Verdict.illegal("no", "DUCK-A1", "DUCK-A2")
    assert str(verdict) == "ILLEGAL: no [DUCK-A1, DUCK-A2]"
    assert not verdict and Verdict.legal()
    assert verdict.to_json() == {"ok": False, "reason": "no", "rules": ["DUCK-A1", "DUCK-A2"]}


def test_catalogue_explains_rules_in_our_words():
    assert "lifebelt" in explain("DUCK-A5")
    assert "no such rule" in explain("DUCK-Z9")


def test_decks_are_data_with_unique_labels():
    for d in DECKS.values():
        assert len(set(d.labels)) == len(d.labels)
        assert d.to_json()["cards"]
    assert sum(c.count for c in deck("grey").cards) == 54
    assert sum(c.count for c in deck("bruce").cards if c.label != "bruce") == 60
    assert sum(c.count for c in deck("sitting").cards if c.label.startswith("action-")) == 52
    with pytest.raises(KeyError, match="known decks"):
        deck("uno")

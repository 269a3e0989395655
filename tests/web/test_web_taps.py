"""Every event of every game entered by taps: no JSON box, and each value a bot chose is among
what the phone's menus, tick boxes and card picker offer (web/forms.py, web/pickers.py)."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event, RandomBot, State
from ducktable.rules.decks import DECKS
from ducktable.rules.registry import game_names, make_game
from ducktable.web import forms
from ducktable.web.entry import due_events, with_cards
from ducktable.web.words import (
    card_words,
    choice_words,
    event_words,
    seats_from_one,
    zone_words,
)

from .conftest import Phone

PLAYERS = {"duck": 3, "grey": 4, "bruce": 3, "ducky": 3, "sitting": 4}


def test_no_event_of_any_game_asks_for_json() -> None:
    for name in game_names():
        for spec in make_game(name).event_specs:
            for f in spec.fields:
                assert forms.widget_kind(f) != "json", (name, spec.type, f.name)


def test_no_form_help_names_the_engines_fields() -> None:
    """'with rest_seed: only its top cards' and 'e.g. double_barrel' read as words."""
    helped = 0
    for name in game_names():
        game = make_game(name)
        for observer in (False, True):
            state = game.new_state(["Ann", "Ben", "Cat", "Dee"][:game.min_players],
                                   observer=observer)
            widgets = [w for spec in game.event_specs for w in forms.build_form(spec, state).widgets]
            for w in widgets:
                assert not re.search(r"[a-z]_[a-z]", w.help), (name, w.name, w.help)
                helped += "rest seed" in w.help or "double barrel" in w.help
    assert helped >= 2


def tapped(form: forms.EventForm, filled: forms.EventForm, picker: list[str]) -> dict[str, str]:
    """What a phone submits when its user taps ``filled``'s values into the fresh ``form``;
    each value must be one the fresh form offers."""
    out = {forms.TYPE_FIELD: form.spec.type, forms.SEAT_FIELD: filled.seat_value}
    for fresh, w in zip(form.widgets, filled.widgets, strict=True):
        if w.kind == "items":
            offered = {item.name: item for item in fresh.items}
            for item in w.items:
                if not item.value:
                    continue
                there = offered.get(item.name)
                assert there is not None, (form.spec.type, item.name, "not offered")
                if item.kind == "select":
                    assert item.value in [v for v, _ in there.options], (item.name, item.value)
                elif item.kind in ("card", "cards"):
                    for card in re.split(r"[\s,]+", item.value):
                        assert card in picker, (item.name, card)
                out[item.name] = item.value
        elif w.kind in ("seat_card", "seat_cards"):
            for i, value in enumerate(w.seat_values):
                for card in re.split(r"[\s,]+", value):
                    assert not card or card in picker, (w.name, card)
                out[f"{w.name}.{i}"] = value
        elif w.kind in ("card", "cards"):
            for card in re.split(r"[\s,]+", w.value):
                assert not card or card in picker, (w.name, card)
            out[w.name] = w.value
        elif w.kind in ("choice",) or (w.kind == "int" and fresh.choices):
            assert not w.value or w.value in fresh.choices, (form.spec.type, w.name, w.value)
            out[w.name] = w.value
        else:
            typed = w.kind in ("json", "str", "int") and w.value
            assert not typed, (form.spec.type, w.name, "typed")
            out[w.name] = w.value
    return out


def round_trip(state: State, event: Event) -> None:
    spec = state.game.event_spec(event.type)
    assert spec is not None
    due = due_events(state)
    fresh = forms.build_form(spec, state, due=due)
    filled = forms.build_form(spec, state, event, due=due)
    deck = DECKS.get(state.game.name)
    picker = forms.picker_cards(state.game, state, deck.labels if deck else ())
    fresh = with_cards(fresh, state)  # the form's own picker: only the cards still possible
    parsed = forms.parse_event(spec, state, tapped(
        fresh, filled, picker if fresh.cards is None else fresh.cards))
    shown = {f.name for f in forms.shown_fields(spec, state.observer)}
    expected = {k: v for k, v in event.data.items() if k in shown and v is not None}
    if event.type in ("double_barrel", "two_at_one_blow"):
        ps = expected["position"]
        expected["position"] = sorted(ps) if isinstance(ps, list) else [ps]
    assert parsed.type == event.type and parsed.seat == event.seat
    assert parsed.data == expected, (event.type, parsed.data, expected)
    assert state.check(parsed).ok, state.check(parsed).reason


@pytest.mark.parametrize("observer", [False, True], ids=["full", "observer"])
@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_every_event_of_a_bot_match_can_be_tapped(name: str, observer: bool,
                                                  store: MatchStore) -> None:
    """Bots play a full-information match; before each event is recorded, the entry form at
    that moment must offer the taps that enter exactly that event (in observer mode too, with
    what an observer is asked for)."""
    info = store.create_match(name, [f"P{i}" for i in range(PLAYERS[name])], observer=False)
    rng = random.Random(3)
    bots = [RandomBot(random.Random(10 + i)) for i in range(PLAYERS[name])]
    seen: set[str] = set()
    game = make_game(name)
    for _ in range(400):
        state = store.state(info.id)
        if state.is_over():
            break
        event = next_event(state, bots, rng)
        if observer:
            viewer = store.state(info.id)
            viewer.observer = True
            public = game.public_event(event)
            if public.type == event.type and viewer.check(public).ok:
                round_trip(viewer, public)
        else:
            round_trip(state, event)
        seen.add(event.type)
        assert store.submit(info.id, event).ok
    assert len(seen) >= 3


def test_ducky_return_offers_the_empty_pads_of_each_colour(store: MatchStore) -> None:
    info = store.create_match("ducky", ["Ann", "Ben"], observer=False)
    rng = random.Random(1)
    bots = [RandomBot(random.Random(i)) for i in range(2)]
    for _ in range(3000):
        state = store.state(info.id)
        if any(e.type == "return" for e in due_events(state)):
            break
        assert store.submit(info.id, next_event(state, bots, rng)).ok
    else:
        pytest.fail("no card was completed")
    spec = state.game.event_spec("return")
    assert spec is not None
    form = forms.build_form(spec, state, due=due_events(state))
    items = form.widgets[0].items
    assert len(items) == 2  # a card holds two ducks
    for item in items:
        colour = item.label.split()[1]
        for value, _words in item.options[1:]:
            if value != "spare":
                assert state.pad_colour[int(value)] == colour and not state.duck[int(value)]


def dealt_sitting(store: MatchStore) -> State:
    """A three-player Sitting Ducks match whose line the bots have dealt (full information)."""
    info = store.create_match("sitting", ["Ann", "Ben", "Cat"], observer=False)
    rng = random.Random(2)
    bots = [RandomBot(random.Random(i)) for i in range(3)]
    while store.state(info.id).needs_chance():
        assert store.submit(info.id, next_event(store.state(info.id), bots, rng)).ok
    return store.state(info.id)


def test_sitting_positions_are_drawn_as_the_line_with_its_cards(store: MatchStore) -> None:
    state = dealt_sitting(store)
    spec = state.game.event_spec("double_barrel")
    assert spec is not None
    items = forms.build_form(spec, state).widgets[0].items
    first = state.gallery.spots[0].card
    assert [i.kind for i in items] == ["check"] * 6
    assert items[0].label == f"1: {card_words('sitting', first)}"
    with pytest.raises(forms.FormError, match="Fill in 'position'"):
        forms.parse_event(spec, state, {forms.SEAT_FIELD: "0"})


def test_a_duck_shuffle_naming_one_card_twice_is_a_clear_error(store: MatchStore) -> None:
    state = dealt_sitting(store)
    spec = state.game.event_spec("duck_shuffle")
    assert spec is not None
    form: dict[str, Any] = {forms.SEAT_FIELD: "0"}
    form.update({f"arrangement.{i}": "1" for i in range(1, 7)})
    with pytest.raises(forms.FormError, match="position 1 is put in two places"):
        forms.parse_event(spec, state, form)


def test_neighbours_piles_are_named_as_people() -> None:
    players = ["Ann", "Ben", "Cat"]
    assert choice_words("duck", "pile", "left", players, 0) == "Ben's pile (left of Ann)"
    assert choice_words("duck", "pile", "right", players, 0) == "Cat's pile (right of Ann)"
    assert choice_words("duck", "pile", "deck", players, 0) == "the draw pile"
    assert event_words("sitting", "double_barrel") == "Double barrel"
    assert event_words("grey", "quack") == "Quack (pass)"


def test_the_ducky_setup_page_has_menus_and_no_json(unlocked: Phone, store: MatchStore) -> None:
    info = store.create_match("ducky", ["Ada", "Bo", "Cy"], observer=True)
    page = unlocked.get(f"/match/{info.id}/entry").get_data(as_text=True)
    assert "<textarea" not in page
    assert '<select name="river.0">' in page and '<select name="pawns.2">' in page
    assert 'name="visible.1.0"' in page
    response = unlocked.post(f"/match/{info.id}/events",
                             {"_type": "setup", "river.1": "yellow", "_seat": ""})
    assert response.status_code == 400
    assert "Choose the pad colour of cell 0" in response.get_data(as_text=True)


def grey_after_first_play(store: MatchStore) -> tuple[int, list[str]]:
    """An observed Grey Duck match whose first trick was led by the holder of the grey 1."""
    names = ["Ann", "Ben", "Cat", "Dan"]
    info = store.create_match("grey", names, observer=True)
    assert store.submit(info.id, Event("deal", 0, {"leader": 1})).ok
    assert store.submit(info.id, Event("play", 1, {"cards": ["yellow-3"]})).ok
    return info.id, names


def test_a_later_players_play_records_the_quacks_before_it(unlocked: Phone,
                                                           store: MatchStore) -> None:
    """GREY-T3: Cat is to move; a play entered for Ann means Cat and Dan quacked."""
    match, _names = grey_after_first_play(store)
    response = unlocked.post(f"/match/{match}/events",
                             {"_type": "play", "_seat": "0", "cards": "yellow-5"})
    assert response.status_code == 303
    events = store.events(match)
    assert [(e.type, e.seat) for e in events[2:]] == [("quack", 2), ("quack", 3), ("play", 0)]
    page = unlocked.get(f"/match/{match}/entry").get_data(as_text=True)
    assert "first Cat, Dan quacked" in page


def test_one_undo_removes_the_play_and_the_quacks_it_recorded(unlocked: Phone,
                                                              store: MatchStore) -> None:
    """The entry that recorded Dan's and Ann's Quacks with Ben's play is undone as a whole;
    a Quack tapped by itself before it stays, and the next undo takes the entry before."""
    match, _names = grey_after_first_play(store)
    assert unlocked.post(f"/match/{match}/events",
                         {"_type": "quack", "_seat": "2"}).status_code == 303  # tapped: Cat
    before = store.events(match)
    response = unlocked.post(f"/match/{match}/events",  # Ben's play: Dan and Ann quacked
                             {"_type": "play", "_seat": "1", "cards": "yellow-7"})
    assert response.status_code == 303
    assert [(e.type, e.seat) for e in store.events(match)[len(before):]] == [
        ("quack", 3), ("quack", 0), ("play", 1)]
    assert unlocked.post(f"/match/{match}/undo").status_code == 303
    assert store.events(match) == before
    page = unlocked.get(f"/match/{match}/entry").get_data(as_text=True)
    assert "the last entry (Play cards, with the 2 Quacks the turn order implied" in page
    undone = [row for row in store.audit(match) if row["action"] == "undo"]
    assert len(undone) == 3  # each removed event is in the audit trail
    assert unlocked.post(f"/match/{match}/undo").status_code == 303  # Cat's tapped Quack alone
    assert [(e.type, e.seat) for e in store.events(match)] == [("deal", 0), ("play", 1)]


def test_the_quack_button_is_one_tap_for_the_player_to_move(unlocked: Phone,
                                                             store: MatchStore) -> None:
    match, _names = grey_after_first_play(store)
    page = unlocked.get(f"/match/{match}/entry").get_data(as_text=True)
    button = re.search(r'<form[^>]*class="one-tap-form">(.*?)</form>', page, re.S)
    assert button is not None
    assert '<input type="hidden" name="_seat" value="2">' in button.group(1)
    assert "Quack (pass) <small>Cat</small>" in button.group(1)
    assert unlocked.post(f"/match/{match}/events", {"_type": "quack", "_seat": "2"}).status_code == 303
    assert [(e.type, e.seat) for e in store.events(match)][-1] == ("quack", 2)


def test_a_leader_gets_no_quack_button(unlocked: Phone, store: MatchStore) -> None:
    info = store.create_match("grey", ["Ann", "Ben", "Cat"], observer=True)
    assert store.submit(info.id, Event("deal", 0, {"leader": 1})).ok
    page = unlocked.get(f"/match/{info.id}/entry").get_data(as_text=True)
    assert "one-tap-form" not in page  # Ben leads and must play (GREY-T3)


def test_the_dispute_form_stays_open_with_its_answer(phone: Phone, store: MatchStore) -> None:
    info = store.create_match("sitting", ["Ann", "Ben", "Cat"], observer=False)
    rng = random.Random(2)
    bots = [RandomBot(random.Random(i)) for i in range(3)]
    while store.state(info.id).needs_chance():
        assert store.submit(info.id, next_event(store.state(info.id), bots, rng)).ok
    mover = store.state(info.id).to_move()
    phone.get(f"/match/{info.id}/dispute")
    response = phone.post(f"/match/{info.id}/dispute",
                          {"_type": "two_at_one_blow", "_seat": str(mover),
                           "position.2": "on", "position.3": "on"})
    html = response.get_data(as_text=True)
    opened = re.findall(r'<details class="event" open id="dispute-([a-z_]+)">(.*?)</details>',
                        html, re.S)
    assert [name for name, _ in opened] == ["two_at_one_blow"]
    body = opened[0][1]
    assert 'class="verdict illegal"' in body and "Not allowed" in body
    assert re.search(r'name="position\.2" value="on" checked', body)
    assert "<textarea" not in body


def test_the_cameras_reasons_name_people_and_places_not_zones() -> None:
    players = ["Ann", "Ben"]
    assert zone_words("a card in seat1.trick could not be recognised", players) == \
        "a card in Ben's spot could not be recognised"
    assert zone_words("the reads of middle.draw disagree", players) == \
        "the reads of the draw pile disagree"
    assert zone_words("line.3 changed; line.2.target too; river.spare", players) == \
        "position 3 of the line changed; the target at position 2 of the line too; the spare pad"
    assert seats_from_one(zone_words("seat0.pile1 and seat7.trick", players)) == \
        "Ann's second pile and seat 8's spot"


def test_recorded_events_read_as_words(unlocked: Phone, store: MatchStore) -> None:
    """'Source left' and 'table reveal Hands 2101' once; now people and plain names."""
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    assert store.submit(info.id, Event("deal", 0, {"face_up": ["red-1", None, None]})).ok
    assert store.submit(info.id, Event("play", 1, {"cards": ["blue-3"]})).ok
    assert store.submit(info.id, Event("draw", 1, {"pile": "right"})).ok
    page = unlocked.get(f"/match/{info.id}/entry").get_data(as_text=True)
    recorded = page.split("Recorded events", 1)[1]
    assert "Draw a card" in recorded and "Ann&#39;s pile (right of Ben)" in recorded
    assert "Deal a new round" in recorded and "Ann: " in recorded
    assert ">table<" not in recorded and "draw</strong>" not in recorded


PICKS = re.compile(r'data-card="([^"]+)"')


def _play_picker(phone: Phone, match_id: int) -> list[str]:
    """The cards the entry page's play form offers in its picker."""
    page = phone.get(f"/match/{match_id}/entry").get_data(as_text=True)
    form = re.search(r'<form[^>]*data-type="play".*?</form>', page, re.S)
    assert form is not None
    return PICKS.findall(form.group(0))


def test_the_card_picker_leaves_out_cards_already_played(phone: Phone, store: MatchStore) -> None:
    """Grey Duck: every copy of a card laid this hand is gone from the play form's picker, at
    a full-information table and at a real one (an observer match fed what it can see); the
    cards nobody has seen (hidden hands) are all still offered."""
    from ducktable.rules.grey import DECK_COUNTS

    players = ["Ann", "Ben", "Cat", "Dan"]
    full = store.create_match("grey", players, observer=False)
    real = store.create_match("grey", players, observer=True)
    game = make_game("grey")
    rng = random.Random(5)
    bots = [RandomBot(random.Random(20 + i)) for i in range(4)]
    assert sorted(_play_picker(phone, real.id)) == sorted(DECK_COUNTS)  # nothing laid yet
    gone: set[str] = set()
    for _ in range(300):
        state = store.state(full.id)
        laid = Counter(c for e in state.history if e.type == "play" for c in e.data["cards"])
        gone = {label for label, n in DECK_COUNTS.items() if laid[label] >= n}
        if len(gone) >= 2:
            break
        event = next_event(state, bots, rng)
        assert store.submit(full.id, event).ok
        assert store.submit(real.id, game.public_event(event)).ok
    assert len(gone) >= 2, "the bots should lay every copy of two cards within one hand"
    left = sorted(label for label, n in DECK_COUNTS.items() if laid[label] < n)
    for match in (full, real):
        offered = _play_picker(phone, match.id)
        assert gone.isdisjoint(offered)
        assert sorted(offered) == left  # everything not laid: hidden hands stay possible

"""Manual entry, correction and undo (PIN held), and the dispute check (open to all)."""

from __future__ import annotations

import random
import re

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MatchStore
from ducktable.rules import make_game
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.core import Event, RandomBot

from .conftest import Phone, new_duck


def page_text(response) -> str:
    return response.get_data(as_text=True)


def dealt(store: MatchStore) -> int:
    """A DUCK observer match after the deal: Ada dealt blue-5 face up; Bo is to play."""
    info = new_duck(store)
    assert store.submit(info.id, Event("deal", None, {"face_up": ["blue-5", None, None]})).ok
    return info.id


def test_entry_page_offers_a_form_per_event_with_a_card_picker(phone: Phone,
                                                               store: MatchStore) -> None:
    match = dealt(store)
    page = page_text(phone.get(f"/match/{match}/entry"))
    for etype in ("deal", "play", "draw", "duck", "reveal"):
        assert f'id="form-{etype}"' in page
    assert 'data-card="yellow-0"' in page and 'data-card="towel"' not in page
    assert 'name="pin"' in page  # locked phone: the PIN goes with the form
    assert re.search(r'<option value="1" selected>Bo</option>', page)  # Bo is to move


def test_entering_a_play_records_it(unlocked: Phone, store: MatchStore) -> None:
    """DUCK-A1: a single card is a set of one."""
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    response = unlocked.post(f"/match/{match}/events",
                             {"_type": "play", "_seat": "1", "cards": "blue-3"})
    assert response.status_code == 303
    last = store.events(match)[-1]
    assert (last.type, last.seat, last.data, last.source) == ("play", 1, {"cards": ["blue-3"]},
                                                              "manual")
    assert last.ts is not None
    assert "Recorded #2 Play cards" in page_text(unlocked.get(f"/match/{match}/entry"))  # from 1


def test_an_illegal_event_is_refused_with_reason_and_rule_texts(unlocked: Phone,
                                                                store: MatchStore) -> None:
    """DUCK-S2: Cy may not play while it is Bo's turn; the typed cards stay in the form."""
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    response = unlocked.post(f"/match/{match}/events",
                             {"_type": "play", "_seat": "2", "cards": "red-4"})
    page = page_text(response)
    assert response.status_code == 422
    assert "it is Bo&#39;s turn" in page and "DUCK-S2" in page
    assert rule_texts("duck")["DUCK-S2"] in page
    assert 'value="red-4"' in page
    assert len(store.events(match)) == 1


def test_a_form_with_bad_input_says_what_to_fix(unlocked: Phone, store: MatchStore) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    response = unlocked.post(f"/match/{match}/events",
                             {"_type": "play", "_seat": "1", "cards": "blue-11"})
    assert response.status_code == 400
    assert "&#39;blue-11&#39; is not a card of DUCK" in page_text(response)
    unknown = unlocked.post(f"/match/{match}/events", {"_type": "fly", "_seat": "1"})
    assert unknown.status_code == 400 and "not an event of DUCK" in page_text(unknown)


def test_correcting_a_card_that_was_misread(unlocked: Phone, store: MatchStore) -> None:
    """"That was a blue 5, not a blue 3": the play is replaced and the log still replays."""
    match = dealt(store)
    assert store.submit(match, Event("play", 1, {"cards": ["blue-3"]})).ok
    form = page_text(unlocked.get(f"/match/{match}/events/1/correct"))
    assert 'value="blue-3"' in form
    response = unlocked.post(f"/match/{match}/events/1/correct",
                             {"_type": "play", "_seat": "1", "cards": "blue-5",
                              "_reason": "camera misread"})
    assert response.status_code == 303
    assert store.events(match)[1].data == {"cards": ["blue-5"]}
    assert store.audit(match)[-1]["reason"] == "camera misread"


def test_a_correction_that_breaks_the_log_is_refused(unlocked: Phone, store: MatchStore) -> None:
    """DUCK-A4: after a play the same seat draws; making the play someone else's breaks that."""
    match = dealt(store)
    assert store.submit(match, Event("play", 1, {"cards": ["blue-3"]})).ok
    assert store.submit(match, Event("draw", 1, {"pile": "deck"})).ok
    unlocked.get(f"/match/{match}/events/1/correct")
    response = unlocked.post(f"/match/{match}/events/1/correct",
                             {"_type": "play", "_seat": "2", "cards": "blue-3"})
    assert response.status_code == 422
    assert "cannot be replaced" in page_text(response)
    assert store.events(match)[1].seat == 1


def test_correcting_an_event_that_does_not_exist_is_a_404(unlocked: Phone,
                                                          store: MatchStore) -> None:
    match = dealt(store)
    assert unlocked.get(f"/match/{match}/events/5/correct").status_code == 404


def test_undo_removes_the_last_event(unlocked: Phone, store: MatchStore) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    assert unlocked.post(f"/match/{match}/undo").status_code == 303
    assert store.events(match) == []
    assert unlocked.post(f"/match/{match}/undo").status_code == 303
    assert "nothing to undo" in page_text(unlocked.get(f"/match/{match}/entry"))


def test_dispute_check_gives_the_verdict_and_changes_nothing(phone: Phone,
                                                             store: MatchStore) -> None:
    """DUCK-A2: a run needs three or more consecutive cards of one colour."""
    match = dealt(store)
    seq = store.seq(match)
    phone.get(f"/match/{match}/dispute")
    response = phone.post(f"/match/{match}/dispute",
                          {"_type": "play", "_seat": "1", "cards": "red-1, red-2"})
    page = page_text(response)
    assert response.status_code == 200
    assert 'class="verdict illegal"' in page and "DUCK-A2" in page
    assert rule_texts("duck")["DUCK-A2"] in page
    legal = page_text(phone.post(f"/match/{match}/dispute",
                                 {"_type": "play", "_seat": "1", "cards": "red-1, red-2, red-3"}))
    assert 'class="verdict legal"' in legal
    assert store.seq(match) == seq


def test_dispute_check_takes_an_event_as_json(phone: Phone, store: MatchStore) -> None:
    match = dealt(store)
    phone.get(f"/match/{match}/dispute")
    ok = phone.post(f"/match/{match}/dispute",
                    {"event_json": '{"type": "duck", "seat": 1}'})
    assert 'class="verdict legal"' in page_text(ok)
    bad = phone.post(f"/match/{match}/dispute", {"event_json": "{not json"})
    assert bad.status_code == 400 and "not valid JSON" in page_text(bad)


OPEN_FORM = re.compile(r'<details class="event" open id="form-([a-z_]+)">(.*?)</details>', re.S)


@pytest.mark.parametrize("game", ["duck", "grey", "bruce", "ducky", "sitting"])
def test_the_entry_page_opens_the_form_of_the_event_that_is_due(phone: Phone, store: MatchStore,
                                                                game: str) -> None:
    """Whatever the match waits for (a deal, a draw for one seat, a play), its form is the one
    open, with that seat chosen (the page once opened Grey Duck's swap form every time)."""
    players = ["Ada", "Bo", "Cy", "Di"][:max(3, make_game(game).min_players)]
    info = store.create_match(game, players, observer=False)
    rng = random.Random(3)
    bots = [RandomBot(random.Random(7 + i)) for i in range(len(players))]
    checked = 0
    for _ in range(40):
        state = store.state(info.id)
        if state.is_over():
            break
        due = state.chance_event(random.Random(0)) if state.needs_chance() else None
        allowed = {due.type} if due is not None else {e.type for e in state.legal_events()}
        opened = OPEN_FORM.search(phone.get(f"/match/{info.id}/entry").get_data(as_text=True))
        assert opened is not None and opened.group(1) in allowed, (state.describe_next(), allowed)
        seat = due.seat if due is not None else state.to_move()
        if seat is not None:
            assert f'<option value="{seat}" selected>' in opened.group(2)
        checked += 1
        assert store.submit(info.id, next_event(state, bots, rng)).ok
    assert checked >= 20


def test_an_observers_grey_duck_entry_opens_play_whose_hands_it_cannot_list(
        phone: Phone, store: MatchStore) -> None:
    """At a real table the hands are unknown, so the engine cannot list the plays: it names
    the due types itself (``due_types``), and the play form opens, not the swap's."""
    names = ["Ada", "Bo", "Cy", "Di"]
    game = make_game("grey")
    full = game.new_state(names)
    deal = full.chance_event(random.Random(5))
    full.apply_or_raise(deal)
    info = store.create_match("grey", names, observer=True)
    assert store.submit(info.id, game.public_event(deal)).ok
    page = phone.get(f"/match/{info.id}/entry").get_data(as_text=True)
    opened = OPEN_FORM.search(page)
    assert opened is not None and opened.group(1) == "play"  # a lead
    leader = full.to_move()
    lead = next(e for e in full.legal_events() if e.type == "play")
    assert store.submit(info.id, Event("play", leader, lead.data)).ok
    page = phone.get(f"/match/{info.id}/entry").get_data(as_text=True)
    opened = OPEN_FORM.search(page)
    assert opened is not None and opened.group(1) == "play"  # a follow: play, then quack
    assert page.index('id="form-quack"') < page.index('id="form-swap_pass"')


def test_a_due_choice_is_preselected_and_the_dispute_page_picks_the_seat_too(
        phone: Phone, store: MatchStore) -> None:
    """Sitting Ducks: after the pond's shuffle and the line, the action cards are due to be
    shuffled (pile: actions, not the pond); then each seat draws."""
    info = store.create_match("sitting", ["Ada", "Bo", "Cy"], observer=False)
    rng = random.Random(2)
    while True:
        state = store.state(info.id)
        due = state.chance_event(random.Random(0))
        if due.type == "shuffle" and due.data["pile"] == "actions":
            break
        assert store.submit(info.id, state.chance_event(rng)).ok
    opened = OPEN_FORM.search(phone.get(f"/match/{info.id}/entry").get_data(as_text=True))
    assert opened is not None and opened.group(1) == "shuffle"
    assert '<option value="actions" selected>the action cards</option>' in opened.group(2)
    assert store.submit(info.id, store.state(info.id).chance_event(rng)).ok
    drawer = store.state(info.id).draw_queue[0]
    dispute = phone.get(f"/match/{info.id}/dispute").get_data(as_text=True)
    opened = re.search(r'<details class="event" open id="dispute-([a-z_]+)">(.*?)</details>',
                       dispute, re.S)
    assert opened is not None and opened.group(1) == "draw"
    assert f'<option value="{drawer}" selected>' in opened.group(2)


def test_a_damaged_event_row_can_be_corrected_on_the_phone(unlocked: Phone,
                                                          store: MatchStore) -> None:
    import sqlite3

    match = dealt(store)
    assert store.submit(match, Event("play", 1, {"cards": ["blue-3"]})).ok
    assert store.submit(match, Event("draw", 1, {"pile": "deck"})).ok
    with sqlite3.connect(store.path) as raw:
        raw.execute("UPDATE events SET body = '{broken' WHERE match_id = ? AND idx = 1",
                    (match,))
    store._cache.clear()
    form = unlocked.get(f"/match/{match}/events/1/correct")
    assert form.status_code == 200, page_text(form)
    assert "{broken" in page_text(form) and "damaged" in page_text(form)
    response = unlocked.post(f"/match/{match}/events/1/correct",
                             {"_type": "play", "_seat": "1", "cards": "blue-3",
                              "_reason": "retyped"})
    assert response.status_code == 303, page_text(response)
    assert [e.type for e in store.events(match)] == ["deal", "play", "draw"]

"""A hand of each of the five games entered on a phone by taps alone (Playwright + chromium at
390×844): menus, tick boxes, the card picker and one-tap buttons; nothing typed but the PIN.

A full-information bot match is the script: each of its events, as an observer at a real table
sees it, is tapped into the entry page of an observed match, whose log must then hold exactly
that event. Grey Duck's Quacks are tapped only where they do not follow from who plays next
(the play entered after them records them), else with the big Quack button. The entry page
never shows a text box for JSON. Screenshots go to test-artifacts/taps-<game>-*.png.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from ducktable.device.demo import next_event
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event, RandomBot, State
from ducktable.rules.grey_quacks import quacks_before
from ducktable.rules.registry import make_game
from ducktable.web import forms
from ducktable.web.entry import ONE_TAP, due_events
from playwright.sync_api import Locator, Page, expect

from .conftest import ARTIFACTS, OpenPhone, every_part_problems

pytestmark = pytest.mark.browser

PIN = "2468"
NAMES = ["Ann", "Ben", "Cat"]


def script(game: str, players: int, seed: int, done: Any, limit: int = 400) -> list[Event]:
    """A bot match's events as an observer sees them, up to the first event ``done`` accepts
    (given the types seen so far, the event and the full-information state after it)."""
    g = make_game(game)
    full = g.new_state(NAMES[:players], observer=False)
    rng, bots = random.Random(seed), [RandomBot(random.Random(seed * 7 + i)) for i in range(players)]
    events: list[Event] = []
    seen: set[str] = set()
    while not full.is_over() and len(events) < limit:
        event = next_event(full, bots, rng)
        full.apply_or_raise(event)
        public = g.public_event(event)
        events.append(Event(public.type, public.seat, public.data))
        seen.add(event.type)
        if done(seen, event, full):
            return events
    raise AssertionError(f"{game} seed {seed}: the script did not finish in {limit} events")


class Server:
    def __init__(self, appliance: Appliance, store: MatchStore) -> None:
        self.appliance, self.store = appliance, store
        self.url = f"http://127.0.0.1:{appliance.server.port}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("taps")
    store = MatchStore(data / "matches.sqlite3")
    appliance = Appliance(store, {"INSTANCE_PATH": str(data), "TABLE_PIN": PIN},
                          host="127.0.0.1", port=0, threads=8, producers=[], cues=None)
    appliance.start()
    try:
        yield Server(appliance, store)
    finally:
        appliance.stop()


@pytest.fixture
def phone(open_phone: OpenPhone, server: Server) -> Page:
    tab = open_phone()
    tab.goto(f"{server.url}/history")
    tab.locator("a.unlock-link").click()  # the Unlock link in the nav
    tab.locator('input[name="pin"]').fill(PIN)  # the one thing typed: the PIN
    tab.locator("button[type=submit]", has_text="Unlock").click()
    expect(tab.locator(".top .lock")).to_have_text("unlocked")
    return tab


def pick_cards(form: Locator, box: Locator, cards: list[str]) -> None:
    box.click()
    for card in cards:
        form.locator(f'button.pick[data-card="{card}"]').click()
    expect(box).not_to_have_value("")  # the picker's script took the taps


def tap_widget(form: Locator, w: forms.Widget) -> None:
    """Tap the inputs of one widget to the value it was built with."""
    if w.kind == "items":
        for item in w.items:
            box = form.locator(f'[name="{item.name}"]')
            if item.kind == "check":
                if item.value:
                    box.check()
            elif item.kind == "select":
                box.select_option(item.value)
            elif item.value:
                pick_cards(form, box, re.split(r"[\s,]+", item.value))
    elif w.kind in ("seat_card", "seat_cards"):
        for i, value in enumerate(w.seat_values):
            if value:
                pick_cards(form, form.locator(f'[name="{w.name}.{i}"]'), re.split(r"[\s,]+", value))
    elif w.kind in ("card", "cards"):
        if w.value:
            pick_cards(form, form.locator(f'[name="{w.name}"]'), re.split(r"[\s,]+", w.value))
    elif w.kind == "bool":
        if w.value:
            form.locator(f'[name="{w.name}"]').check()
    elif w.value or w.kind in ("choice", "seat", "int"):
        form.locator(f'select[name="{w.name}"]').select_option(w.value)


def enter(page: Page, server: Server, match: int, event: Event) -> None:
    """Tap ``event`` into the entry page (or tap its one-tap button)."""
    page.wait_for_load_state("load")  # the page's script runs before taps count (a loaded machine)
    state = server.store.state(match)
    expect(page.locator("form.event-form textarea")).to_have_count(0)
    one_tap = page.locator(f'button[data-one-tap="{event.type}"]')
    if event.type in ONE_TAP.get(state.game.name, ()) and not event.data:
        expect(one_tap).to_have_count(1)
        expect(one_tap).to_contain_text(state.players[event.seat or 0])
        one_tap.click()
        return
    spec = state.game.event_spec(event.type)
    assert spec is not None
    built = forms.build_form(spec, state, event, due=due_events(state))
    details = page.locator(f"#form-{event.type}")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    form = details.locator("form")
    seat = form.locator('select[name="_seat"]')
    seat.select_option("" if event.seat is None else str(event.seat))
    for w in built.widgets:
        tap_widget(form, w)
    form.locator("button[type=submit]").click()


def play_by_taps(page: Page, server: Server, game: str, players: int,
                 events: list[Event]) -> dict[str, int]:
    """Enter ``events`` in a new observed match by taps; the log must end up the same."""
    info = server.store.create_match(game, NAMES[:players], observer=True)
    page.goto(f"{server.url}/match/{info.id}/entry")
    tapped = quacks_inferred = 0
    i = 0
    while i < len(events):
        event = events[i]
        before = len(server.store.events(info.id))
        if event.type == "quack":
            run_end = i
            while run_end < len(events) and events[run_end].type == "quack":
                run_end += 1
            state = server.store.state(info.id)
            if run_end < len(events) and [q.seat for q in quacks_before(state, events[run_end])] \
                    == [q.seat for q in events[i:run_end]]:
                quacks_inferred += run_end - i
                i = run_end  # the play after them records them
                continue
        enter(page, server, info.id, event)
        expect(page.locator(".flash.ok")).to_contain_text(f"Recorded #{i + 1} ")
        assert len(server.store.events(info.id)) == i + 1 > before
        tapped += 1
        i += 1
        if tapped == 3:
            page.screenshot(path=str(ARTIFACTS / f"taps-{game}-start.png"), full_page=True)
    logged = [(e.type, e.seat, e.data) for e in server.store.events(info.id)]
    assert logged == [(e.type, e.seat, e.data) for e in events]
    page.goto(f"{server.url}/match/{info.id}/entry")
    page.screenshot(path=str(ARTIFACTS / f"taps-{game}-end.png"), full_page=True)
    return {"events": len(events), "tapped": tapped, "quacks_inferred": quacks_inferred}


@pytest.fixture(autouse=True)
def _artifacts() -> None:
    ARTIFACTS.mkdir(exist_ok=True)


def test_a_duck_round_by_taps(phone: Page, server: Server) -> None:
    """DUCK-S1 deal to DUCK-B1/E1 reveal: a whole round, hands shown card by card."""
    events = script("duck", 3, 1, lambda seen, e, s: e.type == "reveal")
    assert play_by_taps(phone, server, "duck", 3, events)["tapped"] == len(events)


def test_a_grey_duck_hand_by_taps_with_quacks_inferred(phone: Page, server: Server) -> None:
    """GREY-D2 deal to GREY-H1: the Quacks that follow from the next play are not tapped."""
    events = script("grey", 3, 1, lambda seen, e, s: e.type == "deal" and "play" in seen)[:-1]
    quacks = sum(e.type == "quack" for e in events)
    result = play_by_taps(phone, server, "grey", 3, events)
    assert 0 < result["quacks_inferred"] <= quacks
    assert result["tapped"] == len(events) - result["quacks_inferred"]


def test_a_duck_duck_bruce_round_by_taps(phone: Page, server: Server) -> None:
    """BRUCE-T1..T4 for a whole round, to its scoring: reveals, stop and continue (one-tap),
    a Bruce declared, rolled and stolen, the shuffle."""
    def scored(seen: set[str], e: Event, s: State) -> bool:
        return len(s.public_view().get("round_points") or []) >= 1
    events = script("bruce", 3, 19, scored, limit=900)  # seed 19: the shortest round of 40
    assert {"reveal", "stop", "continue", "declare", "roll", "steal"} <= {e.type for e in events}
    assert play_by_taps(phone, server, "bruce", 3, events)["tapped"] == len(events)
    phone.goto(server.url + "/history")
    phone.locator("ul.matches a").first.click()  # the newest match: this one
    expect(phone.locator("#outcome")).to_contain_text("Round 1:")


def test_ducky_ducky_set_up_and_a_card_completed_by_taps(phone: Page, server: Server) -> None:
    """DUCKY-S1 set-up (river, pawns, top cards: menus and the card picker), moves, and a
    completed card's ducks put back (DUCKY-T5) on pads offered by colour."""
    events = script("ducky", 2, 1, lambda seen, e, s: e.type == "return")
    assert play_by_taps(phone, server, "ducky", 2, events)["tapped"] == len(events)


def test_sitting_ducks_with_double_barrel_and_duck_shuffle_by_taps(phone: Page, server: Server) -> None:
    """SIT-S1 set-up and turns including Double Barrel (SIT-A3) and Duck Shuffle (SIT-A12),
    positions tapped on the line's slots."""
    wanted = {"double_barrel", "duck_shuffle"}

    def done(seen: set[str], e: Event, s: State) -> bool:
        return wanted <= seen

    seed = next(seed for seed in range(200)
                if len(script("sitting", 3, seed, done, limit=2000)) <= 90)
    events = script("sitting", 3, seed, done)
    assert play_by_taps(phone, server, "sitting", 3, events)["tapped"] == len(events)


def test_the_pin_box_is_big_enough_not_to_zoom(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/unlock")
    box = page.locator('input[name="pin"]').bounding_box()
    size = page.locator('input[name="pin"]').evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert box is not None and box["height"] >= 44 and size >= 16
    text = page.locator("main").inner_text()
    assert text.count("table PIN") == 1  # said once


def test_the_first_phone_chooses_the_pin_and_settings(open_phone: OpenPhone,
                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    """A table started with no PIN of its own: the first phone is led to the welcome page,
    chooses the PIN and settings by tapping (the PIN typed twice), and is unlocked."""
    data = tmp_path_factory.mktemp("welcome")
    store = MatchStore(data / "matches.sqlite3")
    appliance = Appliance(store, {"INSTANCE_PATH": str(data)}, host="127.0.0.1", port=0,
                          threads=4, producers=[], cues=None)
    appliance.start()
    page = open_phone(axe=True)
    try:
        page.goto(f"http://127.0.0.1:{appliance.server.port}/")
        page.wait_for_url(re.compile(r"/welcome$"))
        assert every_part_problems(page, "welcome") == []
        pin = page.locator('input[name="new_pin"]')
        box = pin.bounding_box()
        size = pin.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert box is not None and box["height"] >= 44 and size >= 16
        pin.fill("97531")
        page.locator('input[name="new_pin_again"]').fill("97531")
        page.locator('input[name="name"]').fill("Garden table")
        page.locator('input[name="camera"]').uncheck()
        page.screenshot(path=str(ARTIFACTS / "taps-welcome.png"), full_page=True)
        page.locator("#welcome-form button[type=submit]").click()
        expect(page.locator(".flash.ok")).to_contain_text("Saved")
        expect(page.locator(".top .brand")).to_have_text("Garden table")
        expect(page.locator(".top .lock")).to_have_text("unlocked")
        page.goto(f"http://127.0.0.1:{appliance.server.port}/settings")
        assert every_part_problems(page, "settings") == []
        text = (data / "ducktable.toml").read_text()
        assert 'pin = "97531"' in text and "enabled = false" in text
    finally:
        appliance.stop()
        store.close()

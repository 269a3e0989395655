"""Each game's board on a phone (390 x 844) in a real browser, light and dark: the table drawn
as it looks (cards as card images), nothing wider than the screen, the turn line large, "my
seat" first, and no serious or critical accessibility problem by axe-core.

Bots play each of the five games to a mid-game position through a real store; the real app is
served on a local port and Debian's chromium (Playwright) opens every board. Screenshots go to
test-artifacts/board-<game>-<scheme>.png. axe-core comes with the dev extra
(axe-playwright-python ships axe.min.js; only the script is used, injected into each page).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MatchStore
from ducktable.rules.core import RandomBot, State
from ducktable.rules.decks import DECKS
from ducktable.web import create_app
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from .conftest import (
    ARTIFACTS,
    MEASURE,
    PHONE,
    OpenPhone,
    every_part_problems,
    serious_axe_problems,
)

pytestmark = pytest.mark.browser

NAMES = ["Ada", "Bruno", "Chloé", "Dev", "Maximiliane-Sophie", "Fay"]  # one long name: it must wrap
SCHEMES = ("light", "dark")
MY_SEAT = 2  # as the address counts seats: the second player


@dataclass(frozen=True)
class Position:
    """A game and how far bots play it: ``players``, and ``ready`` says when to stop."""

    game: str
    players: int
    ready: Callable[[State], bool]
    seed: int = 3


def _view(state: State) -> dict[str, Any]:
    return state.public_view()


POSITIONS = [
    # a round scored (its outcome in words) and the second under way, cards on the piles
    Position("duck", 4, lambda s: len(_view(s)["results"]) == 1
             and all(x["pile_size"] >= 1 for x in _view(s)["seats"])),
    # five players, at least three cards face up in the row
    Position("bruce", 5, lambda s: len(_view(s)["board"]["row"]) >= 3),
    Position("ducky", 4, lambda s: _view(s).get("turns_played", 0) >= 6),
    Position("grey", 4, lambda s: len(_view(s)["trick"]["plays"]) >= 2),
    # six players (six seats, six spots), a target aimed at the line, my seat's duck on it
    Position("sitting", 6, lambda s: any(spot["target"] for spot in _view(s)["line"])
             and any(spot["owner"] == MY_SEAT - 1 for spot in _view(s)["line"])),
]


def play_to(store: MatchStore, position: Position) -> int:
    info = store.create_match(position.game, NAMES[:position.players], {}, observer=False)
    rng = random.Random(position.seed)
    bots = [RandomBot(random.Random(position.seed + i)) for i in range(position.players)]
    for _ in range(3000):
        state = store.state(info.id)
        if position.ready(state):
            return info.id
        assert not state.is_over(), f"{position.game}: the game ended before the position"
        assert store.submit(info.id, next_event(state, bots, rng)).ok
    raise AssertionError(f"{position.game}: bots did not reach the position")


def play_to_end(store: MatchStore) -> int:
    """A one-hand Grey Duck match played to its end (the end banner and the celebration)."""
    info = store.create_match("grey", NAMES[:3], {"hands": 1}, observer=False)
    rng = random.Random(5)
    bots = [RandomBot(random.Random(i)) for i in range(3)]
    while not store.state(info.id).is_over():
        assert store.submit(info.id, next_event(store.state(info.id), bots, rng)).ok
    return info.id


@dataclass
class Site:
    url: str
    matches: dict[str, int]
    finished: int


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    data = tmp_path_factory.mktemp("boards")
    store = MatchStore(data / "matches.sqlite3")
    stop = threading.Event()
    app = create_app({"STORE": store, "TABLE_PIN": "4821", "SECRET_KEY": "boards-" + "x" * 32,
                      "INSTANCE_PATH": str(data), "STOP_EVENT": stop, "LIVE_WAIT_S": 0.1})
    matches = {p.game: play_to(store, p) for p in POSITIONS}
    finished = play_to_end(store)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_port}", matches, finished)
    finally:
        stop.set()  # ends the live streams
        server.shutdown()
        thread.join(5)
        store.close()


def phone(open_phone: OpenPhone, scheme: str = "light", motion: str = "no-preference") -> Page:
    return open_phone(device_scale_factor=1, color_scheme=scheme, reduced_motion=motion, axe=True)


# What each board must draw, as (selector, least count); every card is an SVG image.
DRAWN: dict[str, list[tuple[str, int]]] = {
    "duck": [(".table-centre svg.cardsvg.back", 1), (".seatbox .pile svg.cardsvg", 4),
             (".seatbox .fan svg.back", 1), ("#outcome", 1)],
    "bruce": [("section.row svg.cardsvg", 3), (".seatbox", 5), (".seatbox svg.cardsvg", 1)],
    "ducky": [(".river .cell", 20), (".river .log", 10), (".river .pawn", 4),
              (".river .pad svg.token", 1), (".seatbox .ducky-card svg.cardsvg", 4)],
    "grey": [(".trick .plays li", 2), (".trick .top-play svg.cardsvg", 1),
             (".seatbox .fan svg.back", 4)],
    "sitting": [(".spots-line .line-spot", 6), (".line-spot.aimed .aim svg.cardsvg", 1),
                (".seatbox", 6), (".table-centre svg.back", 2)],
}


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("game", list(DRAWN))
def test_each_board_draws_the_table_on_a_phone(open_phone: OpenPhone, site: Site, game: str,
                                               scheme: str) -> None:
    page = phone(open_phone, scheme)
    page.goto(f"{site.url}/match/{site.matches[game]}?seat={MY_SEAT}")
    for selector, least in DRAWN[game]:
        found = page.locator(selector).count()
        assert found >= least, f"{game}: {selector} drawn {found} times, want {least}+"
    # every card is an image named in words (no label such as yellow-5 read out)
    names = page.eval_on_selector_all(
        "svg.cardsvg", "els => els.map(e => [e.getAttribute('role'), e.getAttribute('aria-label')])")
    labels = set(DECKS[game].labels)
    assert names and all(role == "img" and label and (label not in labels or "-" not in label)
                         for role, label in names), names[:5]
    # nothing wider than the phone; every seat's place inside the screen
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{game}: the page is {width[0]} px wide on a {width[1]} px screen"
    for box in page.locator(".seatbox").all():
        shape = box.bounding_box()
        assert shape is not None and shape["x"] >= 0 and shape["x"] + shape["width"] <= PHONE["width"]
    # text 16 px or more, targets 44 px or more, the turn line large
    sizes = page.evaluate(MEASURE)
    assert sizes["small"] == [] and sizes["short"] == [], (sizes["small"][:5], sizes["short"][:5])
    assert sizes["turnPx"] >= 24 and sizes["turnWeight"] >= 700
    # my seat first among the places
    tops = page.eval_on_selector_all(
        ".seatbox", "els => els.map(e => [e.dataset.seat, e.getBoundingClientRect().top])")
    assert min(tops, key=lambda t: t[1])[0] == str(MY_SEAT - 1)
    marked = page.eval_on_selector_all(  # my ducks on the line, my pawn by the river
        ".owned", "els => els.map(e => [e.dataset.seat, getComputedStyle(e).boxShadow])")
    assert all((shadow != "none") == (seat == str(MY_SEAT - 1)) for seat, shadow in marked)
    if game in ("sitting", "ducky"):
        assert any(seat == str(MY_SEAT - 1) for seat, _ in marked), marked
    # no internals and no repeated score rows
    words = page.inner_text("#board")
    for internal in ("Elapsed ms", "Unseen", "Names classic", "Filled no", "Slots"):
        assert internal not in words
    assert words.count("Score\n") == 0
    if scheme == "dark":  # the page really is dark
        ground = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert ground == "rgb(20, 20, 19)"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"board-{game}-{scheme}.png"), full_page=True)
    problems = serious_axe_problems(page)
    assert not problems, f"{game} ({scheme}): " + "; ".join(problems)


def test_sitting_ducks_seats_wear_their_duck_colours(open_phone: OpenPhone, site: Site) -> None:
    page = phone(open_phone)
    page.goto(f"{site.url}/match/{site.matches['sitting']}")
    pairs = page.eval_on_selector_all(
        ".seatbox", """els => els.map(e => [
            getComputedStyle(e.querySelector('h3 .dot')).color,
            e.querySelector('.spot svg.cardsvg').getAttribute('aria-label')])""")
    colours = {"blue": "rgb(25, 110, 200)", "green": "rgb(30, 160, 60)",
               "orange": "rgb(250, 130, 20)", "yellow": "rgb(250, 205, 20)",
               "purple": "rgb(120, 40, 150)", "pink": "rgb(245, 110, 170)"}
    assert len(pairs) == 6
    for dot, duck in pairs:
        assert dot == colours[duck.split()[0]], (dot, duck)


def test_my_seat_is_remembered_on_the_phone(open_phone: OpenPhone, site: Site) -> None:
    page = phone(open_phone)
    board = f"{site.url}/match/{site.matches['bruce']}"
    page.goto(board)
    expect(page.locator("#live")).not_to_have_attribute("data-me", "4")
    page.select_option("#my-seat", "5")  # the fifth player
    expect(page.locator("#live")).to_have_attribute("data-me", "4")
    assert page.url.endswith("?seat=5")
    page.goto(board)  # no ?seat: the phone remembers
    expect(page.locator("#live")).to_have_attribute("data-me", "4")
    first = page.eval_on_selector_all(
        ".seatbox", "els => els.sort((a, b) => a.getBoundingClientRect().top"
                    " - b.getBoundingClientRect().top)[0].dataset.seat")
    assert first == "4"
    page.select_option("#my-seat", "")
    expect(page.locator("#live")).not_to_have_attribute("data-me", "4")


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_end_is_said_and_celebrated_briefly(open_phone: OpenPhone, site: Site,
                                                motion: str) -> None:
    page = phone(open_phone, motion=motion)
    page.goto(f"{site.url}/match/{site.finished}")
    expect(page.locator("#result .banner")).to_contain_text("win")
    expect(page.locator("#outcome")).to_contain_text("Hand 1:")
    confetti = page.eval_on_selector(".result .confetti", "e => getComputedStyle(e).display")
    cheer = page.eval_on_selector(".seatbox.winner", "e => getComputedStyle(e).animationName")
    if motion == "reduce":
        assert confetti == "none" and cheer == "none"
    else:
        assert confetti != "none" and cheer == "cheer"
        runs = page.eval_on_selector(
            ".seatbox.winner", "e => getComputedStyle(e).animationIterationCount")
        assert runs == "2"  # short: it stops by itself
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"board-end-{motion}.png"))
    assert not serious_axe_problems(page)


def test_axe_finds_a_real_problem_when_there_is_one(open_phone: OpenPhone, site: Site) -> None:
    """The check itself works: an image without a name is reported."""
    page = phone(open_phone)
    page.goto(f"{site.url}/match/{site.matches['duck']}")
    page.evaluate("document.querySelector('svg.cardsvg').removeAttribute('aria-label');"
                  "document.querySelector('svg.cardsvg title').remove()")
    assert any(p.startswith("svg-img-alt") for p in serious_axe_problems(page))




def unlocked_phone(open_phone: OpenPhone, url: str) -> Page:
    page = open_phone(device_scale_factor=1, axe=True)
    page.goto(f"{url}/unlock")
    page.fill('input[name="pin"]', "4821")
    page.locator('input[name="pin"]').press("Enter")
    expect(page.locator(".top .lock")).to_have_text("unlocked")
    return page


# Every page a person opens, for every game, unlocked, every fold open (conftest.MEASURE).
@pytest.mark.parametrize("game", list(DRAWN))
def test_every_page_of_a_game_is_readable_and_tappable(open_phone: OpenPhone, site: Site,
                                                       game: str) -> None:
    page = unlocked_phone(open_phone, site.url)
    match = site.matches[game]
    problems = []
    for name in ("", "/entry", "/dispute", "/events/1/correct", "/again"):
        page.goto(f"{site.url}/match/{match}{name}")
        problems += every_part_problems(page, f"{game}{name or ' board'}")
        if name == "/entry":
            page.screenshot(path=str(ARTIFACTS / f"every-{game}-entry.png"), full_page=True)
    assert problems == [], "\n".join(problems)


def test_every_page_of_the_table_is_readable_and_tappable(open_phone: OpenPhone,
                                                          site: Site) -> None:
    problems = []
    locked = open_phone(device_scale_factor=1, axe=True)
    for name in ("/unlock", "/history", "/join", "/setup"):
        locked.goto(site.url + name)
        problems += every_part_problems(locked, f"{name} (locked)")
    page = unlocked_phone(open_phone, site.url)
    for name in ("/setup", "/history", "/settings", "/party", "/join", f"/match/{site.finished}"):
        page.goto(site.url + name)
        problems += every_part_problems(page, name)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("zone", ["Pacific/Auckland", "America/Los_Angeles"])
def test_history_shows_times_in_the_phones_own_zone(open_phone: OpenPhone, site: Site,
                                                     zone: str) -> None:
    page = open_phone(timezone_id=zone, locale="en-GB")
    page.goto(f"{site.url}/history")
    times = page.eval_on_selector_all(
        "time[datetime]", "els => els.map(e => [e.getAttribute('datetime'), e.textContent])")
    assert len(times) == len(site.matches) + 1
    for stamp, shown in times:
        local = datetime.fromisoformat(stamp).astimezone(ZoneInfo(zone))
        assert "UTC" not in shown and "T" not in shown.split()[-1], shown
        assert local.strftime("%H:%M") in shown and str(local.day) in shown, (stamp, shown, zone)


def test_the_measure_finds_small_text_short_links_repeats_and_jargon(
        open_phone: OpenPhone, site: Site) -> None:
    """The page check itself works: each kind of problem, put into a good page, is reported."""
    page = open_phone(axe=True)
    page.goto(f"{site.url}/history")
    assert every_part_problems(page, "history") == []
    page.evaluate("""() => {  // styles set by script: the page's CSP refuses style attributes
      const main = document.querySelector("main");
      main.insertAdjacentHTML("beforeend", '<p id="tiny">tiny words</p>'
        + '<p><a href="/join" id="thin">a thin link</a></p>'
        + '<p>Ask the table for its PIN.</p><p class="help">Ask the table for its PIN.</p>'
        + '<p>Seat 0 played double_barrel.</p>');
      document.getElementById("tiny").style.fontSize = "12px";
      Object.assign(document.getElementById("thin").style, { display: "inline", minHeight: "0" });
    }""")
    found = "\n".join(every_part_problems(page, "history"))
    assert "small P. 12px \"tiny words\"" in found
    assert "short A.[a thin link]" in found
    assert "twice Ask the table for its PIN." in found
    assert "jargon Seat 0" in found and "jargon double_barrel" in found

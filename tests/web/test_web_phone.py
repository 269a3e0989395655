"""The phone at a real table: words instead of internals, counting from 1, local times, a short
camera problem line, the end of a game as a banner, and Play again (web/words.py, web/setup.py,
the templates). The browser checks of sizes and colours are in test_browser.py."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from ducktable.device.demo import next_event
from ducktable.device.runloop import CameraStatus
from ducktable.device.store import MatchStore
from ducktable.rules.core import RandomBot
from ducktable.rules.registry import game_class, game_names
from ducktable.web import create_app
from ducktable.web.camera import problem_line
from ducktable.web.words import (
    SEAT_OPTIONS,
    end_words,
    local_time,
    seats_from_one,
    winner_words,
)

from .conftest import PIN, PLAYERS, Phone, new_duck, play_bots

TAG = re.compile(r"<[^>]+>")


def shown(html: str) -> str:
    """The page's words as a person reads them (tags and attributes gone)."""
    return re.sub(r"\s+", " ", TAG.sub(" ", html))


def finished_grey(store: MatchStore, **options: object) -> int:
    """A one-hand Grey Duck match played to its end by bots (full information)."""
    info = store.create_match("grey", ["Ann", "Ben", "Cat"], {"hands": 1, **options},
                              observer=False)
    rng = random.Random(5)
    bots = [RandomBot(random.Random(i)) for i in range(3)]
    for _ in range(2000):
        state = store.state(info.id)
        if state.is_over():
            return info.id
        assert store.submit(info.id, next_event(state, bots, rng)).ok
    raise AssertionError("the bots did not finish a one-hand match")


# --------------------------------------------------------------------------------------------
# Words, not internals
# --------------------------------------------------------------------------------------------


def test_setup_shows_option_values_in_words_and_seats_from_one(phone: Phone) -> None:
    html = phone.get("/setup").get_data(as_text=True)
    words = shown(html)
    assert "Everyone tied for the highest hand discards it" in words
    assert "Only the dealer turns a card face up" in words
    assert "Classic names" in words
    assert "Seat 1" in words and "Seat 0" not in words
    for name in game_names():  # no identifier of a choice is what a person reads
        for spec in game_class(name).options_spec:
            for choice in spec.choices:
                if "_" in str(choice) or spec.name in SEAT_OPTIONS:
                    assert f">{choice}<" not in html, (name, spec.name, choice)
    # a seat option is a menu of seats counted from 1, its value still the engine's 0
    menu = re.search(r'<select name="opt\.duck\.first_dealer">(.*?)</select>', html, re.S)
    assert menu is not None
    assert '<option value="0" selected>Seat 1</option>' in menu.group(1)
    grey = re.search(r'<select name="opt\.grey\.swap_captain">(.*?)</select>', html, re.S)
    assert grey is not None and '<option value="-1" selected>Nobody' in grey.group(1)


def test_the_engines_sentences_name_seats_from_one() -> None:
    assert seats_from_one("it is Ann's turn (seat 0), not Bob's (seat 1)") == \
        "it is Ann's turn (seat 1), not Bob's (seat 2)"
    assert seats_from_one("seat 7 does not exist; seats are 0..2") == \
        "seat 8 does not exist; seats are 1..3"
    assert seats_from_one("the cards in seat0.discard") == "the cards in seat0.discard"


def test_words_for_the_end_of_bruce_and_for_winners() -> None:
    assert end_words("points:77") == "first to 77 points"
    assert end_words("rounds:1") == "after 1 round"
    assert winner_words([1], ["Ann", "Ben"]) == "Ben wins!"
    assert winner_words([0, 2], ["Ann", "Ben", "Cat"]) == "Ann and Cat share the win!"


def test_seat_options_still_start_the_match_with_the_engines_numbers(
        unlocked: Phone, store: MatchStore) -> None:
    unlocked.get("/setup")
    response = unlocked.post("/setup", {"game": "duck", "player_0": "Ada", "player_1": "Bo",
                                        "player_2": "Cy", "opt.duck.first_dealer": "2",
                                        "opt.duck.highest_tie": "none_discard"})
    assert response.status_code == 303
    info = store.list_matches()[0]
    assert info.options["first_dealer"] == 2 and info.options["highest_tie"] == "none_discard"


def test_board_and_entry_count_events_and_seats_from_one(unlocked: Phone,
                                                         store: MatchStore) -> None:
    info = new_duck(store, observer=False)
    play_bots(store, info.id, 2)
    board = unlocked.get(f"/match/{info.id}").get_data(as_text=True)
    values = [int(v) for v in re.findall(r'<li value="(\d+)">', board)]
    assert sorted(values) == [1, 2]  # the two events, numbered 1 and 2
    entry = unlocked.get(f"/match/{info.id}/entry").get_data(as_text=True)
    assert "correct #1</a>" in entry and "correct #0" not in entry
    assert 'href="/match/1/events/0/correct"' in entry  # the address keeps the log's index
    fix = unlocked.get(f"/match/{info.id}/events/0/correct").get_data(as_text=True)
    assert "Correct event #1" in fix


def test_history_shows_times_as_time_elements_with_a_readable_fallback(
        phone: Phone, store: MatchStore) -> None:
    new_duck(store)
    html = phone.get("/history").get_data(as_text=True)
    found = re.search(r'<time datetime="([^"]+)">([^<]+)</time>', html)
    assert found is not None
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", found.group(1))
    assert found.group(2).endswith(" UTC") and not re.search(r"\dT\d", found.group(2))  # not ISO
    assert "+00:00" not in shown(html)
    assert str(local_time("not a time")) == "<span>not a time</span>"


@pytest.mark.parametrize(("game", "hidden"), [
    ("grey", ["Names", "Unseen", "Over"]),
    ("bruce", ["Elapsed ms", "Phase"]),
])
def test_boards_hide_the_engines_bookkeeping(phone: Phone, store: MatchStore, game: str,
                                             hidden: list[str]) -> None:
    info = store.create_match(game, PLAYERS, {}, observer=False)
    play_bots(store, info.id, 3)
    words = shown(phone.get(f"/match/{info.id}").get_data(as_text=True))
    for internal in hidden:
        assert f" {internal} " not in words, internal
    if game == "bruce":
        assert "first to" in words  # the end rule in words, not points:77


def test_a_camera_problem_is_one_short_line_with_the_details_folded(
        store: MatchStore, tmp_path: Path) -> None:
    camera = CameraStatus()
    installer = ("the camera cannot be opened: No module named 'picamera2'\n"
                 + "\n".join(f"  step {i}: sudo apt install something-{i}" for i in range(7)))
    camera.set_problem(installer)
    app = create_app({"TESTING": True, "STORE": store, "TABLE_PIN": PIN,
                      "SECRET_KEY": "test-secret-" + "x" * 32, "INSTANCE_PATH": str(tmp_path),
                      "CAMERA": camera})
    info = new_duck(store)
    html = app.test_client().get(f"/match/{info.id}").get_data(as_text=True)
    box = re.search(r'<div class="camera-problem"[^>]*>(.*?)</div>', html, re.S)
    assert box is not None
    line = re.search(r"<p>(.*?)</p>", box.group(1), re.S)
    assert line is not None
    assert shown(line.group(1)).strip() == "Camera: The camera cannot be opened. Enter events by hand"
    assert "<details>" in box.group(1) and "something-6" in box.group(1)
    assert problem_line("the camera's pictures have run out (a folder or video file); camera "
                        "reading has stopped: enter events on the phone") == (
        "The camera's pictures have run out.",
        "the camera's pictures have run out (a folder or video file); camera reading has "
        "stopped: enter events on the phone")
    assert problem_line("no calibration") == ("No calibration.", "")


# --------------------------------------------------------------------------------------------
# The end of a game, and Play again
# --------------------------------------------------------------------------------------------


def test_a_finished_game_shows_a_banner_with_the_winner_and_play_again(
        phone: Phone, store: MatchStore) -> None:
    match = finished_grey(store)
    state = store.state(match)
    html = phone.get(f"/match/{match}").get_data(as_text=True)
    assert 'class="result"' in html and 'class="confetti"' in html
    expected = winner_words(state.winners(), ["Ann", "Ben", "Cat"])
    assert expected in html
    assert f'href="/match/{match}/again"' in html
    css = phone.get("/static/style.css").get_data(as_text=True)
    assert "prefers-reduced-motion: reduce" in css


def test_play_again_needs_the_pin_and_starts_the_same_game(
        phone: Phone, unlocked: Phone, store: MatchStore) -> None:
    match = finished_grey(store, names="minnesota")
    page = phone.get(f"/match/{match}/again").get_data(as_text=True)
    assert "Ann" in page and "Minnesota names" in page and 'name="pin"' in page
    refused = phone.post(f"/match/{match}/again", {})
    assert refused.status_code == 403 and len(store.list_matches()) == 1
    unlocked.get(f"/match/{match}/again")
    response = unlocked.post(f"/match/{match}/again", {})
    assert response.status_code == 303
    new = store.list_matches()[0]
    assert new.id != match and response.location == f"/match/{new.id}"
    old = store.match(match)
    assert (new.game, new.players, new.observer) == (old.game, old.players, old.observer)
    assert new.options["hands"] == 1 and new.options["names"] == "minnesota"
    assert store.events(new.id) == []


def test_play_again_with_the_pin_typed_on_its_page(phone: Phone, store: MatchStore) -> None:
    match = finished_grey(store)
    phone.get(f"/match/{match}/again")
    assert phone.post(f"/match/{match}/again", {"pin": PIN}).status_code == 303
    assert len(store.list_matches()) == 2


def test_setup_is_filled_in_with_the_last_matchs_names(phone: Phone, store: MatchStore) -> None:
    store.create_match("duck", ["Mum", "Dad", "Zoe", "Max"], {"duck_limit": 8}, observer=True)
    html = phone.get("/setup").get_data(as_text=True)
    for seat, name in enumerate(["Mum", "Dad", "Zoe", "Max"]):
        assert f'name="player_{seat}" value="{name}"' in html
    assert 'name="opt.duck.duck_limit" value="8"' in html
    other = phone.get("/setup?game=grey").get_data(as_text=True)  # names kept, options not
    assert 'name="player_0" value="Mum"' in other and 'value="grey" checked' in other


def test_unlock_page_says_it_once_and_has_a_large_pin_box(phone: Phone,
                                                          store: MatchStore) -> None:
    info = new_duck(store)
    phone.get("/setup")
    refused = phone.post(f"/match/{info.id}/undo", {})
    words = shown(refused.get_data(as_text=True))
    assert words.count("console") == 1  # what is needed is said once, not twice
    assert 'class="pin-entry"' in phone.get("/unlock").get_data(as_text=True)


def test_setup_after_a_full_information_match_is_still_a_real_table(
        phone: Phone, store: MatchStore) -> None:
    info = store.create_match("duck", ["Mum", "Dad", "Zoe"], {}, observer=False)
    assert 'value="observer" checked' in phone.get("/setup").get_data(as_text=True)
    again = phone.get(f"/setup?from={info.id}").get_data(as_text=True)  # "change something first"
    assert 'value="full" checked' in again and 'name="player_2" value="Zoe"' in again


def test_text_options_and_the_party_page_say_their_values_in_words(phone: Phone) -> None:
    setup = shown(phone.get("/setup").get_data(as_text=True))
    assert "now: first to" in setup  # Duck Duck Bruce's end, points:N
    assert "Board The standard board (20 cells" in setup  # Ducky Ducky's layout menu, "default"
    party = phone.get("/party").get_data(as_text=True)
    assert '<option value="minnesota">Minnesota names' in party


def test_party_tables_count_from_one(unlocked: Phone) -> None:
    unlocked.get("/party")
    players = "\n".join(["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"])
    assert unlocked.post("/party/new", {"players": players, "hands": "2"}).status_code == 303
    words = shown(unlocked.get("/party").get_data(as_text=True))
    assert "Table 1" in words and "Table 2" in words and "Table 0" not in words
    response = unlocked.post("/party/table/0/start", {})  # the address keeps the party's index
    assert response.status_code == 303
    assert "Table 1 plays match" in shown(unlocked.get("/party").get_data(as_text=True))
    missing = unlocked.post("/party/table/9/start", {})
    assert "tables are 1 to 2" in shown(missing.get_data(as_text=True))

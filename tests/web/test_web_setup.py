"""The setup page: game, seats and names, rule options from the engine's options_spec."""

from __future__ import annotations

import pytest
from ducktable.device.store import MatchStore

from .conftest import Phone

BASE = {"game": "duck", "player_0": "Ada", "player_1": "Bo", "player_2": "Cy"}


def test_setup_page_lists_games_and_their_declared_options(phone: Phone) -> None:
    page = phone.get("/setup").get_data(as_text=True)
    assert 'value="duck"' in page and 'value="grey"' in page
    assert 'name="opt.duck.duck_limit" value="10"' in page  # DUCK-B1 default limit
    assert "<option selected>dealer</option>" in page  # DUCK-S1 starting_face_up default
    assert 'name="opt.grey.names"' in page


def test_a_match_starts_with_names_options_and_mode(unlocked: Phone, store: MatchStore) -> None:
    unlocked.get("/setup")
    response = unlocked.post("/setup", {**BASE, "player_3": "Di", "opt.duck.duck_limit": "9",
                                        "opt.duck.starting_face_up": "everyone",
                                        "mode": "full", "name": "Friday"})
    assert response.status_code == 303
    info = store.list_matches()[0]
    assert response.location == f"/match/{info.id}"
    assert info.players == ["Ada", "Bo", "Cy", "Di"] and info.name == "Friday"
    assert info.options["duck_limit"] == 9 and info.options["starting_face_up"] == "everyone"
    assert info.observer is False


def test_names_may_skip_empty_seats(unlocked: Phone, store: MatchStore) -> None:
    unlocked.get("/setup")
    response = unlocked.post("/setup", {"game": "duck", "player_0": "Ada", "player_2": " Bo ",
                                        "player_4": "Cy"})
    assert response.status_code == 303
    assert store.list_matches()[0].players == ["Ada", "Bo", "Cy"]
    assert store.list_matches()[0].observer is True  # a real table is the default


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"player_2": ""}, "DUCK is for 3 to 5 players; 2 name(s) were given"),
        ({"player_2": "ada"}, "Two seats have the same name"),
        ({"game": "chess"}, "Choose a game from the list"),
        ({"opt.duck.duck_limit": "ten"}, "Option &#39;duck limit&#39; must be a number"),
        ({"opt.duck.highest_tie": "coin"}, "must be one of: all_tied_discard, none_discard"),
        ({"opt.duck.first_dealer": "7"}, "first_dealer"),
        ({"new_pin": "12"}, "New PIN: A table PIN is 4 to 8 digits"),
        ({"player_0": "x" * 40}, "is too long"),
    ],
)
def test_setup_mistakes_get_a_clear_message(unlocked: Phone, store: MatchStore,
                                            change: dict[str, str], message: str) -> None:
    unlocked.get("/setup")
    response = unlocked.post("/setup", {**BASE, **change})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert store.list_matches() == []
    assert 'value="Bo"' in response.get_data(as_text=True) or change.get("player_1")

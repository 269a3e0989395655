"""The setup page: game, seats and names, rule options from the engine's options_spec."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from ducktable.device.store import MatchStore
from ducktable.rules.registry import game_class, game_names

from .conftest import Phone

BASE = {"game": "duck", "player_0": "Ada", "player_1": "Bo", "player_2": "Cy"}


def test_setup_page_lists_games_and_their_declared_options(phone: Phone) -> None:
    page = phone.get("/setup").get_data(as_text=True)
    assert 'value="duck"' in page and 'value="grey"' in page
    assert 'name="opt.duck.duck_limit" value="10"' in page  # DUCK-B1 default limit
    assert '<option value="dealer" selected>' in page  # DUCK-S1 starting_face_up default
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
        ({"new_pin": "12"}, "New PIN: A table PIN is 4 to 12 digits"),
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


class _FormFields(HTMLParser):
    """The values a browser would send for a page's inputs, selects and text areas."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.offered: dict[str, list[str]] = {}  # each menu's option values
        self._select: str | None = None  # the menu being read
        self._chosen = False  # inside its selected option
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("type") == "checkbox":
            if "checked" in a:
                self.values[a["name"]] = "on"
        elif tag == "input" and "name" in a:
            self.values[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
            self.offered[a["name"]] = []
        elif tag == "option" and self._select and "value" in a:
            self.offered[self._select].append(a["value"])
        if tag == "option" and self._select and "selected" in a:
            if "value" in a:  # a menu sends its option's value, not the words shown
                self.values[self._select] = a["value"]
            else:
                self._chosen = True
        elif tag == "textarea":
            self._textarea = a["name"]
            self.values[a["name"]] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data
        elif self._select and self._chosen:
            self.values[self._select] = data
            self._chosen = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


@pytest.mark.parametrize("game", game_names())
def test_every_game_starts_with_the_options_the_page_shows(unlocked: Phone, store: MatchStore,
                                                           game: str) -> None:
    """What the page puts in each option's box is read back as that option (Sitting Ducks'
    action mix, a mapping, was once shown in a form the page then refused)."""
    fields = _FormFields()
    fields.feed(unlocked.get("/setup").get_data(as_text=True))
    options = {k: v for k, v in fields.values.items() if k.startswith(f"opt.{game}.")}
    assert options or not game_class(game).options_spec
    cls = game_class(game)
    names = {f"player_{i}": f"P{i}" for i in range(cls.min_players)}
    response = unlocked.post("/setup", {"game": game, **names, **options})
    assert response.status_code == 303, response.get_data(as_text=True)
    info = store.list_matches()[0]
    assert info.game == game
    assert cls.resolve_options(info.options) == cls.resolve_options({})


def _tap(fields: _FormFields, name: str, value: str) -> None:
    """Choose ``value`` in the menu ``name``, as a tap would: only what the menu offers."""
    assert value in fields.offered[name], (name, value, fields.offered.get(name))
    fields.values[name] = value


def _setup_fields(phone: Phone, url: str) -> _FormFields:
    page = phone.get(url).get_data(as_text=True)
    assert "<textarea" not in page and "JSON" not in page
    fields = _FormFields()
    fields.feed(page)
    return fields


def test_a_sitting_ducks_action_mix_is_chosen_by_taps(unlocked: Phone, store: MatchStore) -> None:
    fields = _setup_fields(unlocked, "/setup?game=sitting")
    mix = dict(game_class("sitting").resolve_options({})["action_mix"])
    assert {f"opt.sitting.action_mix.{kind}" for kind in mix} <= set(fields.offered)
    mix.update({"aim": 4, "fire": 8, "bottoms-up": 0})
    for kind in ("aim", "fire", "bottoms-up"):
        _tap(fields, f"opt.sitting.action_mix.{kind}", str(mix[kind]))
    options = {k: v for k, v in fields.values.items() if k.startswith("opt.sitting.")}
    names = {f"player_{i}": f"P{i}" for i in range(4)}
    response = unlocked.post("/setup", {"game": "sitting", **names, **options})
    assert response.status_code == 303, response.get_data(as_text=True)
    info = store.list_matches()[0]
    assert info.options["action_mix"] == mix
    deck = store.state(info.id).game.deck  # the engine built its deck from the chosen mix
    assert deck.card("action-aim").count == 4 and deck.card("action-bottoms-up").count == 0
    again = _setup_fields(unlocked, f"/setup?from={info.id}")
    assert again.values["opt.sitting.action_mix.aim"] == "4"
    assert again.values["opt.sitting.action_mix.bottoms-up"] == "0"


def test_a_ducky_board_of_ones_own_is_set_up_by_taps(unlocked: Phone, store: MatchStore) -> None:
    from ducktable.rules.ducky_board import dumps_layout, layout_from_json

    fields = _setup_fields(unlocked, "/setup?game=ducky")
    assert fields.values["opt.ducky.layout"] == "default"
    board = {"cells": 14, "pads_per_colour": 3, "logs": [
        {"faces": 1, "white_star": False, "blue_star": True},
        {"faces": 3, "white_star": True, "blue_star": False},
        {"faces": 6, "white_star": False, "blue_star": True},
        {"faces": 9, "white_star": True, "blue_star": False},
        {"faces": 12, "white_star": False, "blue_star": True}]}
    _tap(fields, "opt.ducky.layout", "custom")
    _tap(fields, "opt.ducky.layout.cells", "14")
    _tap(fields, "opt.ducky.layout.pads", "3")
    for i in range(16):  # untick every star, then tick the board's
        fields.values.pop(f"opt.ducky.layout.log{i}.white", None)
        fields.values.pop(f"opt.ducky.layout.log{i}.blue", None)
        _tap(fields, f"opt.ducky.layout.log{i}.faces", "")
    for i, log in enumerate(board["logs"]):
        _tap(fields, f"opt.ducky.layout.log{i}.faces", str(log["faces"]))
        for star in ("white", "blue"):
            if log[f"{star}_star"]:
                fields.values[f"opt.ducky.layout.log{i}.{star}"] = "on"
    options = {k: v for k, v in fields.values.items() if k.startswith("opt.ducky.")}
    names = {f"player_{i}": f"P{i}" for i in range(3)}
    response = unlocked.post("/setup", {"game": "ducky", **names, **options})
    assert response.status_code == 303, response.get_data(as_text=True)
    info = store.list_matches()[0]
    assert info.options["layout"] == dumps_layout(layout_from_json(board))
    assert store.state(info.id).layout.cells == 14
    again = _setup_fields(unlocked, f"/setup?from={info.id}")  # Play again shows the same board
    assert again.values["opt.ducky.layout"] == "custom"
    assert again.values["opt.ducky.layout.cells"] == "14"
    assert again.values["opt.ducky.layout.log2.faces"] == "6"
    # a board that cannot be played is explained and starts nothing
    _tap(fields, "opt.ducky.layout.pads", "2")
    options = {k: v for k, v in fields.values.items() if k.startswith("opt.ducky.")}
    response = unlocked.post("/setup", {"game": "ducky", **names, **options})
    assert response.status_code == 400
    assert "That board cannot be played" in response.get_data(as_text=True)
    assert len(store.list_matches()) == 1


def test_a_count_outside_the_menu_is_explained(unlocked: Phone, store: MatchStore) -> None:
    unlocked.get("/setup")
    names = {f"player_{i}": f"P{i}" for i in range(3)}
    for bad in ("many", "-1", "9" * 5000):
        response = unlocked.post("/setup", {"game": "sitting", **names,
                                            "opt.sitting.action_mix.aim": bad})
        assert response.status_code == 400
        assert "from its menu" in response.get_data(as_text=True)
    assert store.list_matches() == []

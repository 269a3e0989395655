"""The setup page: game, seats and names, rule options from the engine's options_spec."""

from __future__ import annotations

import json
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
        elif tag == "option" and self._select and "selected" in a:
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


def test_a_mapping_option_is_a_number_box_per_name_not_json(unlocked: Phone,
                                                            store: MatchStore) -> None:
    page = unlocked.get("/setup?game=sitting").get_data(as_text=True)
    assert "<textarea" not in page
    default = game_class("sitting").resolve_options({})["action_mix"]
    for part in default:
        assert f'name="opt.sitting.action_mix.{part}"' in page
    names = {f"player_{i}": f"P{i}" for i in range(3)}
    boxes = {f"opt.sitting.action_mix.{part}": str(n) for part, n in default.items()}
    response = unlocked.post("/setup", {"game": "sitting", **names,
                                        **boxes, "opt.sitting.action_mix.aim": "11"})
    assert response.status_code == 303
    assert store.list_matches()[0].options["action_mix"] == dict(default, aim=11)
    again = unlocked.get(f"/setup?from={store.list_matches()[0].id}").get_data(as_text=True)
    assert 'name="opt.sitting.action_mix.aim" value="11"' in again
    for bad in ("-1", "ten", "1" * 50):
        response = unlocked.post("/setup", {"game": "sitting", **names, **boxes,
                                            "opt.sitting.action_mix.aim": bad})
        assert response.status_code == 400
        assert "must be a whole number" in response.get_data(as_text=True)
    assert len(store.list_matches()) == 1


def test_a_mapping_option_is_read_as_json_and_a_bad_one_explained(unlocked: Phone,
                                                                   store: MatchStore) -> None:
    unlocked.get("/setup")
    names = {f"player_{i}": f"P{i}" for i in range(3)}
    mix = dict(game_class("sitting").resolve_options({})["action_mix"], aim=11)
    response = unlocked.post("/setup", {"game": "sitting", **names,
                                        "opt.sitting.action_mix": json.dumps(mix)})
    assert response.status_code == 303
    assert store.list_matches()[0].options["action_mix"]["aim"] == 11
    for bad in ("{'aim': 10}", "[1, 2]", "9" * 5000, "[" * 50_000):
        response = unlocked.post("/setup", {"game": "sitting", **names,
                                            "opt.sitting.action_mix": bad})
        assert response.status_code == 400
        assert "Option &#39;action mix&#39; must be written like" in response.get_data(as_text=True)
    assert len(store.list_matches()) == 1

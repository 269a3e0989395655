"""The boards without a browser: cards drawn as SVG in the renderer's look (web/cards_svg.py),
the round outcomes in words, Ducky Ducky's river with its logs and pawns, seat colours and the
my-seat address (web/boards.py, web/scoreboard.py). The browser checks are in
test_boards_browser.py."""

from __future__ import annotations

import re

import pytest
from ducktable.device.store import MatchStore
from ducktable.rules.decks import DECKS
from ducktable.rules.ducky_board import DEFAULT_LAYOUT
from ducktable.sim import render
from ducktable.vision.printing import PALETTES
from ducktable.web import boards
from ducktable.web.cards_svg import GAME_LOOK, PALETTE, card_back, card_name, card_svg
from ducktable.web.scoreboard import my_seat
from flask import Flask
from flask.testing import FlaskClient

from .conftest import play_bots

GAMES = ("duck", "bruce", "grey", "sitting", "ducky")


def hex_of(bgr: tuple[int, int, int]) -> str:
    b, g, r = bgr
    return f"#{r:02x}{g:02x}{b:02x}"


def test_the_cards_have_the_renderers_colours() -> None:
    assert {name: hex_of(c) for name, c in PALETTES["reference"].items()} == PALETTE
    for game in GAMES:
        panel, back = render._GAME_LOOK["reference"][game]
        assert GAME_LOOK[game] == (hex_of(panel), hex_of(back)), game


@pytest.mark.parametrize("game", GAMES)
def test_every_card_of_every_deck_is_an_image_named_in_words(game: str) -> None:
    for card in DECKS[game].cards:
        svg = str(card_svg(card.label, game))
        assert svg.startswith('<svg class="cardsvg m" viewBox="0 0 200 300" role="img"'), card
        name = card_name(game, card.label)
        assert f'aria-label="{name}"' in svg and f"<title>{name}</title>" in svg
        assert card.label not in name or "-" not in card.label  # words, not the label
        assert "back" not in svg.split(">", 1)[0]


def test_card_names_say_the_card() -> None:
    assert card_name("duck", "yellow-5") == "yellow 5"
    assert card_name("duck", "lifebelt-7-red") == "red lifebelt minus 7"
    assert card_name("duck", "towel") == "towel"
    assert card_name("bruce", "bruce") == "Bruce"
    assert card_name("grey", "grey-D") == "grey Duck"
    assert card_name("sitting", "duck-pink") == "pink duck"
    assert card_name("sitting", "action-two-at-one-blow") == "action card: two at one blow"
    assert card_name("sitting", "sky-3") == "sky card 3"
    assert card_name("ducky", "card-green-pink") == "card for a green and a pink duck"


def test_a_card_the_table_cannot_see_is_drawn_as_its_back() -> None:
    for hidden in (None, "unknown", "back", "not-a-card"):
        svg = str(card_svg(hidden, "duck"))
        assert 'class="cardsvg m back"' in svg and 'aria-label="face-down card"' in svg
    assert str(card_svg(None, "duck")) == str(card_back("duck", "m"))
    assert GAME_LOOK["grey"][1] in str(card_back("grey"))  # each game its own back colour
    assert GAME_LOOK["duck"][1] not in str(card_back("grey"))


def test_the_card_faces_follow_the_deck_data() -> None:
    yellow5 = str(card_svg("yellow-5", "duck"))
    assert PALETTE["yellow"] in yellow5 and ">5</text>" in yellow5
    blue3 = str(card_svg("blue-3", "duck"))
    assert PALETTE["blue"] in blue3 and PALETTE["yellow"] not in blue3
    # Bruce: as many ducks as the value (each duck has one eye)
    for value in (1, 2, 3, 4):
        face = str(card_svg(f"teal-{value}", "bruce"))
        eyes = face.count(f'r="{0.06 * (34 if value <= 2 else 26):g}" fill="#191919"')
        assert eyes == value, (value, eyes)
    ducky = str(card_svg("card-green-pink", "ducky"))
    assert PALETTE["green"] in ducky and PALETTE["pink"] in ducky and ">GP</text>" in ducky


# --------------------------------------------------------------------------------------------
# Words and layout
# --------------------------------------------------------------------------------------------

PLAYERS = ["Ann", "Ben", "Cat"]


def test_duck_round_outcomes_say_whether_the_duck_was_right() -> None:
    view = {"results": [
        {"round": 1, "ender": 0, "how": "ducked_right", "lifebelt": 7, "discarded": [2],
         "towel_cards": [None, "blue-5", None]},
        {"round": 2, "ender": 1, "how": "ducked_wrong", "lifebelt": 6, "discarded": [],
         "towel_cards": ["red-8", None, "yellow-2"]},
        {"round": 3, "ender": 2, "how": "out", "lifebelt": 9, "discarded": [0, 1],
         "towel_cards": [None, None, None]},
    ]}
    lines = boards.round_outcomes("duck", view, PLAYERS)
    assert lines[0] == ("Round 3: Cat played out their hand — lifebelt +9. "
                        "Ann and Ben held the highest hand and discard it.")
    assert lines[1] == ("Round 2: Ben called DUCK and was wrong — lifebelt −6. "
                        "To the towel: Ann red 8 and Cat yellow 2.")
    assert lines[2] == ("Round 1: Ann called DUCK and was right — lifebelt +7. "
                        "To the towel: Ben blue 5. Cat held the highest hand and discards it.")


def test_bruce_and_grey_outcomes_and_none_for_games_without_rounds() -> None:
    bruce = boards.round_outcomes("bruce", {"round_points": [[4, 9, 9], [12, 3, 1]]}, PLAYERS)
    assert bruce == ["Round 2: Ann scores most (12). Ann 12, Ben 3, Cat 1.",
                     "Round 1: Ben and Cat score most (9). Ann 4, Ben 9, Cat 9."]
    grey = boards.round_outcomes(
        "grey", {"results": [[2, 0, 1]], "terms": {"captain": "Captain", "duckling": "Gosling"}},
        PLAYERS)
    assert grey == ["Hand 1: Cat went out first (Captain); Ben was last (Gosling)."]
    assert boards.round_outcomes("ducky", {"results": [[0, 1]]}, PLAYERS) == []
    assert boards.round_outcomes("duck", {"results": "garbage"}, PLAYERS) == []


def test_sitting_ducks_seats_take_their_duck_colour() -> None:
    view = {"seats": [{"colour": "blue"}, {"colour": "orange"}, {"colour": None}]}
    assert boards.seat_classes("sitting", view, 3) == ["duck-blue", "duck-orange", "seat-2"]
    assert boards.seat_classes("duck", view, 3) == ["seat-0", "seat-1", "seat-2"]


def test_the_ducky_river_has_its_logs_and_pawns() -> None:
    view = {"board": {"river": [{"pad": "white" if i in (3, 7) else "blue", "duck": i % 2 == 0}
                                for i in range(20)]},
            "seats": [{"seat": 0, "pawn": 0}, {"seat": 1, "pawn": 2}, {"seat": 2, "pawn": None}]}
    river = boards.ducky_river(view, {"layout": "default"})
    assert len(river) == 20
    logged = [c for c in river if c.log is not None]
    assert [c.index for c in logged] == [log.faces for log in DEFAULT_LAYOUT.logs]
    assert river[1].pawn == 0 and river[5].pawn == 1  # logs 0 and 2 face cells 1 and 5
    assert river[3].white_star and river[1].blue_star and not river[1].white_star
    assert river[0].words == "cell 1: blue pad with a duck"
    assert river[1].words == "cell 2: blue pad; log 1"
    assert boards.ducky_river(view, {"layout": "{not json"})[1].log is None  # no failure


def test_my_seat_counts_from_one_and_ignores_nonsense() -> None:
    assert my_seat("2", 3) == 1 and my_seat(" 1 ", 3) == 0
    for raw in (None, "", "0", "4", "-1", "two", "1.5"):
        assert my_seat(raw, 3) is None, raw


# --------------------------------------------------------------------------------------------
# The pages
# --------------------------------------------------------------------------------------------


def test_the_board_page_marks_my_seat_but_the_board_is_everyones(client: FlaskClient,
                                                                 store: MatchStore) -> None:
    info = store.create_match("bruce", PLAYERS, {}, observer=False)
    play_bots(store, info.id, 10)
    mine = client.get(f"/match/{info.id}?seat=3").get_data(as_text=True)
    assert 'data-me="2" data-me-fixed="1"' in mine
    assert '<option value="3" selected>Cat</option>' in mine
    plain = client.get(f"/match/{info.id}?seat=seven").get_data(as_text=True)
    assert "data-me=" not in plain
    board = re.compile(r'<div id="board">(.*)</div>\s*</section>', re.S)
    found_mine, found_plain = board.search(mine), board.search(plain)
    assert found_mine and found_plain and found_mine.group(1) == found_plain.group(1)


@pytest.mark.parametrize("game", GAMES)
def test_each_board_draws_cards_and_no_bookkeeping(client: FlaskClient, store: MatchStore,
                                                   game: str) -> None:
    from ducktable.device.demo import demo_players

    info = store.create_match(game, demo_players(game), {}, observer=False)
    play_bots(store, info.id, 40)
    page = client.get(f"/match/{info.id}").get_data(as_text=True)
    assert page.count('<svg class="cardsvg') >= 3
    assert page.count('<section class="seatbox') == len(info.players)
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    for internal in ("Elapsed ms", "Unseen", "Names classic", "Filled no", "Slots", "Label card"):
        assert internal not in words, (game, internal)
    board = page.split('id="board"', 1)[1]
    assert not re.search(r">\s*Score\s*<", board)  # the score once, in each seat's place


def test_a_board_gives_each_drawing_once_and_every_card_its_name() -> None:
    from ducktable.web.cards_svg import share_drawings
    from markupsafe import Markup

    page = Markup("<p>").join([card_svg("yellow-5", "duck"), card_back("duck", "s"),
                               card_back("duck", "s"), card_svg("yellow-5", "duck", "s"),
                               card_svg("towel", "duck")])
    shared = str(share_drawings(page))
    assert shared.count("<symbol ") == 3  # yellow 5, the back, the towel
    assert shared.count('<use href="#card-drawing-') == 5
    assert [m for m in re.findall(r'aria-label="([^"]+)"', shared)] == [
        "yellow 5", "face-down card", "face-down card", "yellow 5", "towel"]
    assert shared.startswith('<svg class="card-drawings" aria-hidden="true"')
    assert len(shared) < len(str(page))
    assert str(share_drawings("<p>no cards</p>")) == "<p>no cards</p>"


def test_a_game_without_a_board_of_its_own_gets_the_generic_table(app: Flask,
                                                                  store: MatchStore) -> None:
    """A future game with no game-<name>.html still shows its per-seat figures and scores."""
    from ducktable.web.scoreboard import board_snapshot
    from flask import render_template

    info = store.create_match("grey", PLAYERS, {}, observer=False)
    play_bots(store, info.id, 5)
    with app.test_request_context():
        snap = board_snapshot(store.match(info.id))
        html = render_template("board.html", snap=snap, game_template="game-generic.html")
    assert '<table class="seats">' in html and "<th scope=\"row\">Cards</th>" in html
    assert html.count('<td class="score" data-seat=') == 3


def test_a_bruce_raid_is_said_in_words(client: FlaskClient, store: MatchStore) -> None:
    import random as _random

    from ducktable.device.demo import next_event
    from ducktable.rules.core import RandomBot

    info = store.create_match("bruce", PLAYERS, {}, observer=False)
    rng = _random.Random(2)
    bots = [RandomBot(_random.Random(i)) for i in range(3)]
    for _ in range(3000):
        state = store.state(info.id)
        if state.public_view()["board"]["bruce"] is not None:
            break
        assert store.submit(info.id, next_event(state, bots, rng)).ok
    view = store.state(info.id).public_view()
    assert view["board"]["bruce"] is not None, "no Bruce card came up"
    page = client.get(f"/match/{info.id}").get_data(as_text=True)
    raid = re.search(r'<p class="raid" id="raid">([^<]+)</p>', page)
    assert raid is not None and raid.group(1).startswith(f"Bruce! {PLAYERS[view['turn']]} raids")

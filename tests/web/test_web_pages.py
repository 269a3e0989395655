"""The read-only pages: scoreboard, live stream, history, join QR code, error pages."""

from __future__ import annotations

import json
import re
import sqlite3

from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.web import create_app
from ducktable.web.cards_svg import card_name
from flask import Flask
from flask.testing import FlaskClient

from .conftest import PLAYERS, new_duck, play_bots, play_until_round_scored


def text(response) -> str:
    return response.get_data(as_text=True)


def test_home_goes_to_setup_when_there_is_no_match(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 302 and response.location.endswith("/setup")


def test_home_follows_the_newest_match(client: FlaskClient, store: MatchStore) -> None:
    new_duck(store)
    second = new_duck(store)
    response = client.get("/")
    assert response.location.endswith(f"/match/{second.id}?follow=1")


def test_a_finished_match_keeps_the_phones_an_older_unfinished_one_does_not_take_over(
        app: Flask, client: FlaskClient, store: MatchStore) -> None:
    old = new_duck(store)  # left unfinished last week
    newest = new_duck(store, observer=False)
    play_bots(store, newest.id, 100_000)
    assert store.match(newest.id).finished and not store.match(old.id).finished
    assert client.get("/").location.endswith(f"/match/{newest.id}?follow=1")
    response = app.test_client().get(f"/match/{newest.id}/live", buffered=False)
    board = read_board_messages(response, 1)[0]
    assert board["over"] and board["newer"] is None  # no jump back to the old match
    response.close()


def test_scoreboard_shows_seats_turn_and_the_live_stream(client: FlaskClient,
                                                         store: MatchStore) -> None:
    info = new_duck(store)
    page = text(client.get(f"/match/{info.id}"))
    for name in PLAYERS:
        assert name in page
    assert "round 1 must be dealt by Ada" in page  # DUCK-S1: seat 0 deals first
    assert f'data-live-url="/match/{info.id}/live"' in page
    assert "/static/app.js" in page and "/static/style.css" in page
    assert "https://" not in page and "http://" not in page  # nothing from a CDN
    assert '<noscript><meta http-equiv="refresh" content="10"></noscript>' in page  # no JS: reloads
    following = text(client.get(f"/match/{info.id}?follow=1"))
    assert '<meta http-equiv="refresh" content="10; url=/">' in following  # the table's match
    assert 'id="live-state" data-state="connecting" hidden>' in page  # shown by the script


def test_duck_scoreboard_shows_what_makes_up_each_score(client: FlaskClient,
                                                        store: MatchStore) -> None:
    """DUCK-F1: towel cards plus green lifebelts minus red ones, per seat, and a round chart."""
    info = new_duck(store, observer=False)
    play_until_round_scored(store, info.id)
    state = store.state(info.id)
    page = text(client.get(f"/match/{info.id}"))
    for seat, score in enumerate(state.scores()):
        assert (f'<span class="seat-score" data-seat="{seat}"><span class="visually-hidden">'
                f'score </span>{score}</span>') in page
    towel_card = next(card for s in state.seats for card in s.towel)
    assert f'aria-label="{card_name("duck", towel_card)}"' in page  # drawn as a card
    assert 'aria-label="green lifebelt plus' in page or 'aria-label="red lifebelt minus' in page
    assert '<svg class="chart"' in page and "<polyline" in page
    assert "Round 2 of 5" in page


def test_scoreboard_hides_hidden_cards_of_the_deal(client: FlaskClient, store: MatchStore) -> None:
    """The deal's hands are hidden information: the public board never lists them."""
    info = new_duck(store, observer=False)
    play_bots(store, info.id, 1)
    deal = store.events(info.id)[0]
    hand_card = deal.data["hands"][1][0]
    page = text(client.get(f"/match/{info.id}"))
    assert "draw pile" in page.lower()
    board_events = page.split("Last events", 1)[1]
    assert "Hands" not in board_events and "Draw pile" not in board_events
    assert deal.data["face_up"][0] in board_events
    assert hand_card not in json.dumps(client.get(f"/match/{info.id}/view.json").get_json())


def test_view_json_gives_the_public_view(client: FlaskClient, store: MatchStore) -> None:
    info = new_duck(store)
    data = client.get(f"/match/{info.id}/view.json").get_json()
    assert data["match"]["players"] == PLAYERS
    assert data["scores"] == [0, 0, 0] and data["to_move"] is None and data["over"] is False


def test_unknown_match_is_a_404_page_that_says_so(client: FlaskClient) -> None:
    response = client.get("/match/99")
    assert response.status_code == 404 and "There is no match 99" in text(response)
    assert client.get("/match/99/view.json").get_json()["status"] == 404


def read_board_messages(response, count: int) -> list[dict]:
    messages: list[dict] = []
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
            if "event: board" in block and data:
                messages.append(json.loads("".join(data)))
        if len(messages) >= count:
            break
    return messages


def test_live_stream_sends_the_board_now_and_after_each_change(app: Flask,
                                                               store: MatchStore) -> None:
    info = new_duck(store)
    client = app.test_client()
    response = client.get(f"/match/{info.id}/live", buffered=False)
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    first = read_board_messages(response, 1)[0]
    assert first["seq"] == store.seq(info.id) and "round 1 must be dealt" in first["board"]
    assert store.submit(info.id, Event("deal", None, {"face_up": ["blue-3", None, None]})).ok
    second = read_board_messages(response, 1)[0]
    assert second["seq"] > first["seq"]
    assert 'title="blue-3"' in second["board"] and "Bo (seat 2) must play" in second["board"]  # seats from 1
    response.close()


def test_live_stream_tells_an_old_match_about_a_newer_one(app: Flask, store: MatchStore) -> None:
    old = new_duck(store)
    newer = new_duck(store)
    response = app.test_client().get(f"/match/{old.id}/live", buffered=False)
    assert read_board_messages(response, 1)[0]["newer"] == newer.id
    response.close()


def test_live_stream_ends_at_shutdown(app: Flask, store: MatchStore) -> None:
    info = new_duck(store)
    response = app.test_client().get(f"/match/{info.id}/live", buffered=False)
    read_board_messages(response, 1)
    app.config["STOP_EVENT"].set()
    rest = b"".join(c if isinstance(c, bytes) else c.encode() for c in response.response)
    assert b"event: board" not in rest  # the generator returned instead of waiting forever


def test_virtual_leds_show_the_cue_board(store: MatchStore, tmp_path) -> None:
    from ducktable.web import create_app

    class FakeCues:
        def snapshot(self) -> dict:
            return {"pattern": "whose-turn", "seats": ["off", "on", "off"], "status": "off",
                    "buzzer": False, "seq": 1}

    app = create_app({"TESTING": True, "STORE": store, "TABLE_PIN": "1234", "CUES": FakeCues(),
                      "SECRET_KEY": "k" * 40, "INSTANCE_PATH": str(tmp_path)})
    info = new_duck(store)
    page = text(app.test_client().get(f"/match/{info.id}"))
    assert 'class="led seat-1 on"' in page and 'class="led seat-0 off"' in page
    assert "Whose turn" in page


def test_history_lists_matches_and_per_player_totals(client: FlaskClient,
                                                     store: MatchStore) -> None:
    first = new_duck(store, observer=False)
    play_until_round_scored(store, first.id)
    scores = store.state(first.id).scores()
    new_duck(store, players=["Ada", "Dee", "Eve"])
    page = text(client.get("/history"))
    assert "DUCK: totals" in page
    ada = re.search(r'<th scope="row">Ada</th><td>(\d+)</td><td>(\d+) <small>of (\d+)</small>'
                    r"</td><td>(-?\d+)</td>", page)
    assert ada is not None and ada.groups() == ("2", "0", "0", str(scores[0]))
    assert f"/match/{first.id}/export.jsonl" in page


def test_a_damaged_match_row_is_listed_not_a_500(app: Flask, store: MatchStore) -> None:
    damaged = new_duck(store)
    healthy = new_duck(store, players=["Ada", "Dee", "Eve"])
    with sqlite3.connect(store.path) as raw:  # damaged on disk while the table was off
        raw.execute("UPDATE matches SET options = '{x' WHERE id = ?", (damaged.id,))
    reopened = MatchStore(store.path)
    client = create_app({**app.config, "STORE": reopened}).test_client()
    page = text(client.get("/history"))
    assert f"match {damaged.id} is damaged in the database" in page
    assert f"/match/{healthy.id}" in page
    response = client.get(f"/match/{damaged.id}")
    assert response.status_code < 500
    assert "is damaged in the database" in text(response)
    assert client.get(f"/match/{damaged.id}/export.jsonl").status_code < 500
    assert client.get("/").status_code < 500
    reopened.close()


def test_export_is_public_unless_unlocked(client: FlaskClient, store: MatchStore) -> None:
    info = new_duck(store, observer=False)
    play_bots(store, info.id, 1)
    hidden_card = store.events(info.id)[0].data["hands"][0][0]
    public = text(client.get(f"/match/{info.id}/export.jsonl"))
    assert '"public":true' in public and '"hands"' not in public
    assert '"hands"' not in text(client.get(f"/match/{info.id}/export.jsonl?full=1"))
    assert hidden_card  # the full log exists, but only an unlocked phone gets it


def test_join_page_has_a_local_svg_qr_code_of_the_scoreboard(app: Flask) -> None:
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000/"
    client = app.test_client()
    page = text(client.get("/join"))
    assert "<svg" in page and "http://192.168.1.20:8000/" in page
    image = client.get("/join.svg")
    assert image.mimetype == "image/svg+xml" and image.get_data(as_text=True).startswith("<svg")
    assert 'width="' not in image.get_data(as_text=True)[:200]  # scales with the page


def test_pages_carry_security_headers(client: FlaskClient) -> None:
    response = client.get("/setup")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"


def test_generic_board_renders_every_installed_game(client: FlaskClient,
                                                    store: MatchStore) -> None:
    """Every game's board draws one place per seat, whatever bots have done."""
    from ducktable.device.demo import demo_players
    from ducktable.rules.registry import game_names

    for game in game_names():
        info = store.create_match(game, demo_players(game), observer=False)
        play_bots(store, info.id, 30)
        response = client.get(f"/match/{info.id}")
        assert response.status_code == 200, game
        assert text(response).count('<section class="seatbox') == len(info.players), game


def test_six_sitting_ducks_players_get_only_per_seat_rows(client: FlaskClient,
                                                           store: MatchStore) -> None:
    """The line has six places and the view keeps six recent events: at a six-player table
    neither may be taken for one value per player."""
    from ducktable.web.present import seat_rows

    names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"]
    info = store.create_match("sitting", names, observer=False)
    play_bots(store, info.id, 30)
    view = store.state(info.id).public_view()
    assert len(view["line"]) == 6 and len(view["last_events"]) == 6
    keys = {row.key for row in seat_rows(view, 6)}
    assert not keys & {"line", "last_events"}
    assert all(not isinstance(v, dict) for row in seat_rows(view, 6) for v in row.values)
    page = text(client.get(f"/match/{info.id}"))
    assert "Ts 1" not in page and "Owner" not in page
    assert page.count('<section class="seatbox') == 6


def test_table_facts_name_the_dealer_and_leader_not_their_seat_numbers() -> None:
    from ducktable.web.present import table_facts

    facts = dict(table_facts({"dealer": 0, "leader": 2, "round": 2, "draw_pile": 0},
                             ["Ada", "Bo", "Cy"]))
    assert facts["Dealer"] == "Ada" and facts["Leader"] == "Cy"
    assert facts["Round"] == 2 and facts["Draw pile"] == 0  # other numbers stay numbers


def test_the_sitting_ducks_board_shows_the_line_with_its_owners(client: FlaskClient,
                                                                store: MatchStore) -> None:
    info = store.create_match("sitting", ["Ada", "Bo", "Cy"], observer=False)
    play_bots(store, info.id, 12)
    line = store.state(info.id).public_view()["line"]
    page = text(client.get(f"/match/{info.id}"))
    shown = page.split('<ol class="spots-line">', 1)[1].split("</ol>", 1)[0]
    items = shown.split('<li class="line-spot')[1:]
    assert len(items) == 6
    owned = [(spot["owner"], item) for spot, item in zip(line, items, strict=True)
             if spot["owner"] is not None]
    assert owned and all(["Ada", "Bo", "Cy"][owner] in item for owner, item in owned)

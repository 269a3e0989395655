"""Grey Duck's multiple-tables party page (GREY-V2): start, play a table, record, standings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ducktable.device.store import MatchStore
from ducktable.rules.grey_party import Party
from flask import Flask

from .conftest import Phone

PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]


def text(response) -> str:
    return response.get_data(as_text=True)


def test_without_a_party_the_page_offers_to_start_one(phone: Phone) -> None:
    page = text(phone.get("/party"))
    assert "No party yet" in page and "Start the party" in page
    assert phone.client.get("/party.json").status_code == 404


def test_starting_a_party_seats_the_tables(unlocked: Phone, app: Flask) -> None:
    """GREY-V2: 7 players sit at a table of 4 and one of 3."""
    unlocked.get("/party")
    response = unlocked.post("/party/new", {"players": "\n".join(PLAYERS), "hands": "3"})
    assert response.status_code == 303
    page = text(unlocked.get("/party"))
    assert 'id="table-0"' in page and 'id="table-1"' in page and 'id="table-2"' not in page
    saved = json.loads(Path(app.config["PARTY_FILE"]).read_text())
    assert saved["table_sizes"] == [4, 3] and saved["hands"] == 3


def test_recording_every_table_moves_the_ducklings_and_sums_standings(
    unlocked: Phone, app: Flask
) -> None:
    """GREY-S1 points per table (4, 3, 2, 1 and 4, 3, 1), summed over the party."""
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS), "hands": "2"})
    first = {f"place_{i}": name for i, name in enumerate(["Dan", "Cat", "Ben", "Ann"])}
    assert unlocked.post("/party/table/0/record", first).status_code == 303
    second = {f"place_{i}": name for i, name in enumerate(["Gus", "Fay", "Eve"])}
    assert unlocked.post("/party/table/1/record", second).status_code == 303
    party = Party.from_json(json.loads(Path(app.config["PARTY_FILE"]).read_text()))
    assert party.round == 2
    assert "Eve" in party.tables()[0].players  # table 1's Duckling moved to table 0
    standings = {row["name"]: row["total"] for row in party.standings()}
    assert standings["Dan"] == 4 and standings["Gus"] == 4 and standings["Eve"] == 1
    page = text(unlocked.get("/party"))
    assert '<th scope="row">Dan</th><td class="score">4</td>' in page


def test_a_wrong_finishing_order_is_refused_with_the_reason(unlocked: Phone) -> None:
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS)})
    response = unlocked.post("/party/table/0/record", {"place_0": "Gus"})
    assert response.status_code == 400
    assert "the finishing order must name each of them once" in text(response)


def test_a_table_match_is_started_in_the_store(unlocked: Phone, store: MatchStore) -> None:
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS)})
    assert unlocked.post("/party/table/1/start").status_code == 303
    info = store.list_matches()[0]
    assert info.game == "grey" and info.players == ["Eve", "Fay", "Gus"]
    assert info.options["hands"] == 1
    assert f'href="/match/{info.id}"' in text(unlocked.get("/party"))
    early = unlocked.post("/party/table/1/record")
    assert early.status_code == 400 and "has not finished its hand" in text(early)


def test_party_mistakes_get_messages(unlocked: Phone) -> None:
    unlocked.get("/party")
    few = unlocked.post("/party/new", {"players": "Ann\nBen"})
    assert few.status_code == 400 and "at least 6 players" in text(few)
    bad = unlocked.post("/party/load", {"party_json": "{nope"})
    assert bad.status_code == 400 and "not JSON" in text(bad)
    wrong = unlocked.post("/party/load", {"party_json": '{"v": 9}'})
    assert wrong.status_code == 400 and "version 9 is not supported" in text(wrong)
    missing = unlocked.post("/party/table/5/record", {"place_0": "Ann"})
    assert missing.status_code == 400 and "Start a party first" in text(missing)


def test_a_party_file_round_trips(unlocked: Phone, app: Flask) -> None:
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS), "hands": "4"})
    saved = unlocked.client.get("/party.json").get_data(as_text=True)
    Path(app.config["PARTY_FILE"]).unlink()
    assert unlocked.post("/party/load", {"party_json": saved}).status_code == 303
    assert json.loads(Path(app.config["PARTY_FILE"]).read_text())["hands"] == 4


def test_a_damaged_party_file_is_reported_not_a_crash(phone: Phone, app: Flask) -> None:
    Path(app.config["PARTY_FILE"]).write_text("{broken")
    page = phone.get("/party")
    assert page.status_code == 200 and "cannot be used" in text(page)


def _saved_with(change: dict[str, object]) -> str:
    """A saved 7-player party whose first table of round 1 has ``change`` applied."""
    saved = Party(PLAYERS, hands=4).to_json()
    saved["rounds"][0][0].update(change)
    return json.dumps(saved)


def test_a_party_file_of_the_wrong_kinds_is_refused_with_the_reason(unlocked: Phone,
                                                                     app: Flask) -> None:
    unlocked.get("/party")
    for change, reason in [({"order": 5}, "finishing order must be a list"),
                           ({"order": [1, 2, 3, 4]}, "finishing order must be a list"),
                           ({"order": [{}, {}, {}, {}]}, "finishing order must be a list")]:
        response = unlocked.post("/party/load", {"party_json": _saved_with(change)})
        assert response.status_code == 400, change
        assert reason in text(response)
    huge = _saved_with({}).replace('"hands": 4', '"hands": ' + "9" * 5000)
    response = unlocked.post("/party/load", {"party_json": huge})
    assert response.status_code == 400 and "a number too long to read" in text(response)
    assert not Path(app.config["PARTY_FILE"]).exists()  # nothing was saved


def test_a_party_file_of_the_wrong_kinds_on_disk_is_reported(phone: Phone, app: Flask) -> None:
    Path(app.config["PARTY_FILE"]).write_text(_saved_with({"order": [1, 2, 3, 4]}))
    page = phone.get("/party")
    assert page.status_code == 200 and "finishing order must be a list" in text(page)
    assert phone.client.get("/party.json").status_code == 404


def test_a_party_table_naming_no_match_of_this_table_is_refused(unlocked: Phone) -> None:
    unlocked.get("/party")
    assert unlocked.post("/party/load",
                         {"party_json": _saved_with({"match_id": "abc"})}).status_code == 303
    response = unlocked.post("/party/table/0/record", {})
    assert response.status_code == 400
    assert "is not a match of this table" in text(response)


@pytest.mark.parametrize("match_id", ["²", "١", "9" * 40, "-1"])
def test_a_party_match_id_of_odd_digits_is_refused_not_a_crash(unlocked: Phone,
                                                               match_id: str) -> None:
    unlocked.get("/party")
    assert unlocked.post("/party/load",
                         {"party_json": _saved_with({"match_id": match_id})}).status_code == 303
    assert unlocked.get("/party").status_code == 200
    response = unlocked.post("/party/table/0/record", {})
    assert response.status_code == 400
    assert "is not a match of this table" in text(response)

"""The party page for a party across Pis: host, join and leave from the phone (with the PIN),
every table shown live, who moves where next."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ducktable.device.party_file import PartyFile, link_settings
from ducktable.device.party_link import party_state
from ducktable.rules.grey_party import Party
from flask import Flask

from .conftest import Phone

PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]


def text(response) -> str:
    return response.get_data(as_text=True)


def folder_of(app: Flask) -> Path:
    return Path(app.config["PARTY_FILE"]).parent


def hosted(app: Flask) -> Party:
    """A hosted party, hand 1: table 1 finished, table 2's Pi playing, table 3's Pi gone."""
    party = Party(PLAYERS + ["Hal", "Ivy"], hands=3, table_sizes=[3, 3, 3])
    party.record_hand(0, ["Cat", "Ann", "Ben"])
    PartyFile(app.config["PARTY_FILE"]).save(party, "feed01")
    live = {1: {"connected": True, "hand": 1, "match_id": 4, "events": 17, "out": ["Eve"],
                "cards": {"Dan": 3, "Eve": 0, "Fay": 5}, "queued": 0},
            2: {"connected": False, "hand": 1, "queued": 1}}
    state = party_state(party, "feed01", live, {})
    folder = folder_of(app)
    (folder / "party-live.json").write_text(json.dumps({**state, "role": "host",
                                                        "broker": "127.0.0.1:1883"}))
    (folder / "party-link.json").write_text(json.dumps({"role": "host", "broker": ""}))
    return party


def test_the_host_page_shows_every_table_live_and_who_moves_next(phone: Phone,
                                                                 app: Flask) -> None:
    hosted(app)
    page = text(phone.get("/party"))
    assert "This Pi hosts the party" in page
    assert 'data-refresh="/party/live"' in page and "party.js" in page
    fragment = text(phone.get("/party/live"))
    assert fragment.startswith("{#") is False and 'id="party-live"' in fragment
    table1, table2, table3 = (fragment.split(f'id="live-{k}"')[1].split("</li>")[0]
                              for k in range(3))
    assert "finished hand 1" in table1
    assert "● connected" in table2 and "17 events" in table2 and "out: Eve" in table2
    assert "Dan 3" in table2
    assert "not connected" in table3 and "its results wait on its Pi" in table3
    assert "<strong>Ben</strong> moves from table 1 to table 2" in fragment
    assert "Table 2's Duckling <small>(still playing)</small> moves from table 2 to table 3" \
        in fragment


def test_a_joined_pi_shows_the_hosts_party_not_its_own(phone: Phone, app: Flask) -> None:
    party = Party(PLAYERS, hands=2)
    party.record_hand(1, ["Gus", "Fay", "Eve"])
    state = party_state(party, "feed02", {0: {"connected": True, "hand": 1, "match_id": 9}}, {})
    folder = folder_of(app)
    (folder / "party-link.json").write_text(json.dumps({"role": "join", "table": 0}))
    (folder / "party-live.json").write_text(json.dumps(
        {**state, "role": "join", "table": 0, "broker": "192.168.1.20:1883"}))
    page = text(phone.get("/party"))
    assert "This Pi plays table 1 of the party hosted at 192.168.1.20:1883" in page
    assert '<a href="/match/9">this table\'s match 9</a>' in page  # the hand it plays now
    assert '<th scope="row">Gus</th><td class="score">4</td>' in page
    assert "Start a new party" not in page and "Leave the party" in page


def test_hosting_and_joining_need_the_pin_and_are_kept_for_ducktable_run(
        phone: Phone, unlocked: Phone, app: Flask) -> None:
    folder = folder_of(app)
    phone.get("/party")
    locked = phone.post("/party/link/join", {"table": "2"})
    assert locked.status_code == 403 and link_settings(folder) is None
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS), "hands": "3"})
    assert unlocked.post("/party/link/host", {"table": "1"}).status_code == 303
    assert link_settings(folder) == {"role": "host", "broker": "", "broker_port": 1883,
                                     "table": 0, "bots": None, "seed": 0, "mdns": True}
    assert "Stop hosting" in text(unlocked.get("/party"))
    assert unlocked.post("/party/link/stop").status_code == 303
    assert link_settings(folder) is None
    joined = unlocked.post("/party/link/join", {"table": "2", "broker": "10.0.0.5:1884"})
    assert joined.status_code == 303
    assert link_settings(folder) == {"role": "join", "broker": "10.0.0.5:1884", "table": 1,
                                     "bots": None, "seed": 0}


def test_link_mistakes_get_one_line_messages(unlocked: Phone, app: Flask) -> None:
    unlocked.get("/party")
    no_party = unlocked.post("/party/link/host", {})
    assert no_party.status_code == 400 and "Start a party first" in text(no_party)
    for form, reason in [({}, "Say which table this Pi plays"),
                         ({"table": "two"}, "The table is a number from 1"),
                         ({"table": "0"}, "The table is a number from 1"),
                         ({"table": "1", "broker": "pi:port"}, "is not HOST:PORT")]:
        response = unlocked.post("/party/link/join", form)
        assert response.status_code == 400 and reason in text(response), form
    assert link_settings(folder_of(app)) is None


def test_a_link_that_cannot_start_says_why(phone: Phone, app: Flask) -> None:
    folder = folder_of(app)
    (folder / "party-link.json").write_text(json.dumps({"role": "join", "table": 0}))
    (folder / "party-live.json").write_text(json.dumps(
        {"role": "join", "problem": "no party host answered on this network within 5 s"}))
    page = text(phone.get("/party"))
    assert "The party link cannot start: no party host answered" in page


def test_a_result_the_host_counted_meanwhile_is_not_lost_by_a_phone(unlocked: Phone,
                                                                   app: Flask) -> None:
    """The phone's changes and the link's go through the party file's lock: a phone recording
    table 2 keeps what the link recorded for table 1 a moment before."""
    unlocked.get("/party")
    unlocked.post("/party/new", {"players": "\n".join(PLAYERS), "hands": "2"})
    file = PartyFile(app.config["PARTY_FILE"])
    with file.update() as held:  # as the host's link does when a table's result arrives
        held[0].record_hand(0, ["Dan", "Cat", "Ben", "Ann"])
    time.sleep(0.01)
    form = {f"place_{i}": name for i, name in enumerate(["Gus", "Fay", "Eve"])}
    assert unlocked.post("/party/table/1/record", form).status_code == 303
    loaded = file.load()
    assert loaded is not None and loaded[1] == json.loads(
        Path(app.config["PARTY_FILE"]).read_text())["id"]
    assert loaded[0].round == 2 and loaded[0].rounds[0][0].order == ("Dan", "Cat", "Ben", "Ann")


def test_a_host_run_from_the_command_line_shows_live_and_an_old_partys_state_does_not(
        phone: Phone, app: Flask) -> None:
    hosted(app)
    (folder_of(app) / "party-link.json").unlink()  # `ducktable party host`, not the phone
    page = text(phone.get("/party"))
    assert "Tables now" in page and "● connected" in page and "as the host saw them at" in page
    party = Party(PLAYERS, hands=2)
    PartyFile(app.config["PARTY_FILE"]).save(party, "new999")  # a new party since
    page = text(phone.get("/party"))
    assert "Tables now" not in page and "● connected" not in page

"""Garbage to every route: whatever arrives, the answer is a page with a message, never a 500,
and nothing recorded is lost.

The phone is unlocked and sends a valid CSRF token, so the garbage reaches the views
themselves (a locked phone is also tried, to cover the refusal paths).
"""

from __future__ import annotations

import json
import random
import re

from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from flask import Flask

from .conftest import Phone, new_duck, play_bots

FIELDS = (
    "_type", "_seat", "_reason", "cards", "card", "face_up.0", "face_up.1", "hands.0",
    "source", "game", "player_0", "player_1", "player_2", "opt.duck.duck_limit",
    "opt.duck.starting_face_up", "opt.grey.hands", "pin", "new_pin", "mode", "name",
    "event_json", "party_json", "players", "hands", "table_sizes", "names", "place_0", "next",
    "request", "rank", "follow", "full",
)
NASTY = (
    "", " ", "\x00", "-1", "0", "1", "2", "99999999999999999999999", "1e309", "nan", "[", "{}",
    "null", "true", '{"type": "play", "seat": 1, "data": {"cards": ["blue-3"]}}',
    '{"type": 5}', '{"v": 1, "type": "play", "seat": true}', "blue-3", "blue-3, blue-4, blue-5",
    "yellow-5," * 300, "💥" * 500, "<script>alert(1)</script>", "../../etc/passwd", "%00",
    "play", "deal", "duck", "draw", "reveal", "grey", "quack", "duck\nAda\nBo", "observer",
    "full", "//evil.example/", "4821",
)


def garbage_form(rng: random.Random) -> dict[str, str]:
    return {rng.choice(FIELDS): rng.choice(NASTY) for _ in range(rng.randint(1, 8))}


def urls_for(app: Flask, ids: dict[str, list[object]]) -> list[tuple[str, str]]:
    """(method, url) for every route, with its parameters filled with real and odd values."""
    out: list[tuple[str, str]] = []
    for rule in app.url_map.iter_rules():
        methods = sorted(m for m in rule.methods or () if m in ("GET", "POST"))
        paths = [rule.rule]
        for arg in rule.arguments:
            values = ids.get(arg, ["x"])
            paths = [p.replace(f"<int:{arg}>", str(v)).replace(f"<path:{arg}>", str(v))
                     .replace(f"<{arg}>", str(v)) for p in paths for v in values]
        out += [(m, p) for p in paths for m in methods]
    return out


def test_garbage_to_every_route_never_gives_a_500(app: Flask, unlocked: Phone,
                                                  store: MatchStore) -> None:
    duck = new_duck(store, observer=False)
    play_bots(store, duck.id, 25)
    observer = new_duck(store)
    assert store.submit(observer.id, Event("deal", None, {"face_up": ["red-1", None, None]})).ok
    grey = store.create_match("grey", ["A", "B", "C", "D"], observer=True)
    before = {info.id: store.events(info.id) for info in store.list_matches()}
    ids = {
        "match_id": [duck.id, observer.id, grey.id, 0, 999999, 2**70],
        "index": [0, 3, 10**9],
        "table": [0, 7],
        "filename": ["style.css", "../secret-key", "nope.js"],
    }
    rng = random.Random(20240611)
    locked = Phone(app.test_client())
    locked.get("/setup")
    failures: list[str] = []
    routes = urls_for(app, ids)
    assert len(routes) > 40
    for method, url in routes:
        for attempt in range(12):
            who = locked if attempt == 11 else unlocked
            query = "?" + "&".join(f"{k}={v}" for k, v in garbage_form(rng).items())
            if method == "GET":
                response = who.client.get(url + (query if attempt else ""))
            elif attempt == 10:
                response = who.client.post(url, data=b"\xff\xfe{" * 50,
                                           content_type="multipart/form-data; boundary=zz",
                                           headers={"X-CSRF-Token": who.token})
            else:
                response = who.post(url, garbage_form(rng))
            if response.status_code >= 500:
                failures.append(f"{method} {url} -> {response.status_code}")
            elif response.status_code >= 400 and response.mimetype == "text/html":
                page = response.get_data(as_text=True)
                assert re.search(r'class="problem"|class="verdict', page), (method, url)
            response.close()  # live streams never end by themselves
    assert failures == []
    for match_id, events in before.items():
        kept = {e.dumps() for e in store.events(match_id)}
        recorded = {
            json.dumps(entry["previous"], separators=(",", ":"), sort_keys=True)
            for entry in store.audit(match_id)
            if entry["action"] in ("undo", "correct")
        }
        for event in events:  # nothing vanished without a trace in the audit trail
            assert event.dumps() in kept or event.dumps() in recorded


def test_the_live_stream_of_an_unknown_match_is_a_404_not_a_stream(unlocked: Phone) -> None:
    response = unlocked.client.get("/match/424242/live")
    assert response.status_code == 404 and response.mimetype == "text/html"


def test_too_large_a_request_gets_a_message(unlocked: Phone, store: MatchStore) -> None:
    info = new_duck(store)
    response = unlocked.client.post(f"/match/{info.id}/dispute",
                                    data={"event_json": "x" * (600 * 1024),
                                          "csrf_token": unlocked.token})
    assert response.status_code == 413 and "too large" in response.get_data(as_text=True)


def test_a_wrong_method_says_so(unlocked: Phone, store: MatchStore) -> None:
    info = new_duck(store)
    response = unlocked.client.delete(f"/match/{info.id}")
    assert response.status_code in (400, 405)
    get_undo = unlocked.client.get(f"/match/{info.id}/undo")
    assert get_undo.status_code == 405 and "POST" in get_undo.headers["Allow"]


def test_numbers_too_long_and_nesting_too_deep_get_a_message(app: Flask, unlocked: Phone,
                                                             store: MatchStore) -> None:
    """``json.loads`` raises other errors than malformed JSON for these two: every box that
    reads JSON (an event to check, Ducky Ducky's board fields, an option, a party file) must
    still answer with a message."""
    duck = new_duck(store)
    ducky = store.create_match("ducky", ["A", "B", "C"], observer=True)
    ids = {"match_id": [duck.id, ducky.id], "index": [0], "table": [0],
           "filename": ["style.css"]}
    fields = (*FIELDS, "river", "pawns", "visible", "covered", "pads", "opt.sitting.action_mix")
    failures = []
    for method, url in urls_for(app, ids):
        if method != "POST":
            continue
        for value in ("9" * 5000, "[" * 50_000):
            for etype in ("setup", "play"):
                form = {**{name: value for name in fields}, "_type": etype, "_seat": "0",
                        "game": "sitting"}
                response = unlocked.post(url, form)
                if response.status_code >= 500:
                    failures.append(f"{url} {etype} {value[:3]}... -> {response.status_code}")
                response.close()
    assert failures == []
    assert store.events(duck.id) == [] and store.events(ducky.id) == []

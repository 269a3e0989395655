"""A game night: many phones on one table. Entries sent twice are recorded once (web/
idempotency.py); live streams hold no server thread and slow or idle connections lock nobody
out (web/asgi.py, web/live.py, on the real server); the figures come from ``ducktable bench
web``, these tests only check what can fail without a clock."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.web import asgi, idempotency
from flask import Flask

from .conftest import PIN, Phone, new_duck

DEAL = Event("deal", None, {"face_up": ["blue-3", None, None]})
KEY = "0123456789abcdef0123456789abcdef"
PLAY = {"_type": "play", "_seat": "1", "cards": "blue-3"}


def dealt(store: MatchStore) -> int:
    info = new_duck(store)
    assert store.submit(info.id, DEAL).ok
    return info.id


# ---- entry keys through the web app ------------------------------------------------------------


def test_an_entry_sent_twice_is_recorded_once_and_answered_alike(unlocked: Phone,
                                                                  store: MatchStore) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    first = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    again = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    assert first.status_code == again.status_code == 303
    assert first.location == again.location
    assert len(store.events(match)) == 2  # the deal and one play
    page = unlocked.get(f"/match/{match}/entry").get_data(as_text=True)
    assert "sent twice; it is recorded once" in page


def test_a_key_in_the_header_works_as_the_form_field(unlocked: Phone, store: MatchStore) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    for _ in range(3):
        response = unlocked.post(f"/match/{match}/events", PLAY,
                                 headers={"Idempotency-Key": KEY})
        assert response.status_code == 303
    assert len(store.events(match)) == 2


def test_a_refused_entry_can_be_sent_again_with_its_key(unlocked: Phone, store: MatchStore) -> None:
    """Nothing was recorded, so the key was not used: the fixed entry goes through."""
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    refused = unlocked.post(f"/match/{match}/events",
                            {**PLAY, "_seat": "2", "cards": "red-4", "idempotency_key": KEY})
    assert refused.status_code == 422
    fixed = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    assert fixed.status_code == 303 and len(store.events(match)) == 2


def test_a_late_first_try_does_not_record_the_entry_again(unlocked: Phone, store: MatchStore) -> None:
    """The retry was recorded first; the first try, arriving late, gets the retry's answer."""
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    retry = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    late = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    assert (retry.status_code, late.status_code) == (303, 303)
    assert [e.type for e in store.events(match)] == ["deal", "play"]
    assert [a["action"] for a in store.audit(match)].count("submit") == 2  # deal + one play


def test_a_second_try_while_the_first_is_still_recording_waits_for_its_answer(
        unlocked: Phone, store: MatchStore, monkeypatch: pytest.MonkeyPatch) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    with store.entry_key(KEY):  # the first try: recorded, its answer not sent yet
        assert store.submit(match, Event("play", 1, {"cards": ["blue-3"]})).ok
    answered = threading.Timer(0.3, store.save_entry_answer, (KEY, idempotency.Answer(
        303, f"/match/{match}/entry", "text/html", b"")))
    answered.start()
    second = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": KEY})
    answered.join()
    assert second.status_code == 303 and second.location.endswith(f"/match/{match}/entry")
    assert len(store.events(match)) == 2
    monkeypatch.setattr(idempotency, "WAIT_S", 0.2)
    other = "f" * 32
    with store.entry_key(other):  # a first try that never answers (it crashed meanwhile)
        assert store.submit(match, Event("draw", 1, {"pile": "deck"})).ok
    third = unlocked.post(f"/match/{match}/events",
                          {"_type": "draw", "_seat": "1", "pile": "deck", "idempotency_key": other})
    assert third.status_code == 409 and "recorded once" in third.get_data(as_text=True)
    assert len(store.events(match)) == 3


def test_a_malformed_key_is_a_clear_400(unlocked: Phone, store: MatchStore) -> None:
    match = dealt(store)
    unlocked.get(f"/match/{match}/entry")
    response = unlocked.post(f"/match/{match}/events", {**PLAY, "idempotency_key": "a b"})
    assert response.status_code == 400
    assert "entry key is not valid" in response.get_data(as_text=True)
    assert len(store.events(match)) == 1


def test_a_new_match_sent_twice_is_created_once(unlocked: Phone, store: MatchStore) -> None:
    form = {"game": "duck", "player_0": "Ada", "player_1": "Bo", "player_2": "Cy",
            "idempotency_key": KEY}
    unlocked.get("/setup")
    first = unlocked.post("/setup", form)
    again = unlocked.post("/setup", form)
    assert first.status_code in (302, 303) and again.location == first.location
    assert len(store.list_matches()) == 1


def test_the_scoreboard_gives_the_live_camera_forms_its_token(app: Flask, store: MatchStore) -> None:
    """The live message is one for all phones: its camera forms come without a token and the
    page carries the phone's own for the script to fill in."""
    info = new_duck(store)
    page = app.test_client().get(f"/match/{info.id}").get_data(as_text=True)
    assert re.search(r'data-csrf="[^"]{20,}"', page)
    script = app.test_client().get("/static/app.js").get_data(as_text=True)
    assert "live.dataset.csrf" in script and "getRandomValues" in script


# ---- the live hub ------------------------------------------------------------------------------


def read_seqs(response, count: int) -> list[int]:
    seqs: list[int] = []
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        seqs += [int(n) for n in re.findall(r"^id: (\d+)$", text, flags=re.M)]
        if len(seqs) >= count:
            break
    return seqs


def test_a_board_that_cannot_be_built_ends_its_own_streams_only(app: Flask,
                                                                 store: MatchStore) -> None:
    broken, healthy = new_duck(store), new_duck(store)
    watching = app.test_client().get(f"/match/{healthy.id}/live", buffered=False)
    assert read_seqs(watching, 1) == [0]
    store.conn.execute("UPDATE events SET body = 'x' WHERE match_id = ?", (broken.id,))
    assert store.submit(broken.id, DEAL).ok
    store.conn.execute("UPDATE events SET body = '{' WHERE match_id = ?", (broken.id,))
    store.conn.execute("UPDATE matches SET seq = seq + 1 WHERE id = ?", (broken.id,))
    failing = app.test_client().get(f"/match/{broken.id}/live", buffered=False)
    rest = b"".join(c if isinstance(c, bytes) else c.encode() for c in failing.response)
    assert b"event: board" not in rest  # ended, without a board
    assert store.submit(healthy.id, DEAL).ok
    assert read_seqs(watching, 1) == [1]  # the other match's stream goes on
    watching.close()


def test_thirty_streams_of_one_match_share_one_message_per_change(app: Flask,
                                                                  store: MatchStore) -> None:
    from ducktable.web import scoreboard

    info = new_duck(store)
    built: list[int] = []
    real = scoreboard.live_message

    def counting(match_id: int, newer, camera) -> bytes:
        built.append(match_id)
        return real(match_id, newer, camera)

    hub = scoreboard.board_hub(app)
    hub.build = counting
    streams = [app.test_client().get(f"/match/{info.id}/live", buffered=False) for _ in range(30)]
    assert all(read_seqs(r, 1) == [0] for r in streams)
    assert store.submit(info.id, DEAL).ok
    assert all(read_seqs(r, 1) == [1] for r in streams)
    assert built == [info.id, info.id]  # one build for the board now, one after the deal
    for r in streams:
        r.close()


# ---- history from summaries ------------------------------------------------------------------


def test_history_pages_list_fifty_matches_and_total_every_match(client, store: MatchStore) -> None:
    from ducktable.bench.web import build_history
    from ducktable.web.history import PAGE_SIZE

    store.close()
    count, _ = build_history(store.path, 2 * PAGE_SIZE + 5, 20 * (2 * PAGE_SIZE + 5))
    reopened = MatchStore(store.path)
    try:
        app = client.application
        app.extensions["ducktable.store"] = reopened
        first = client.get("/history").get_data(as_text=True)
        ids = [int(i) for i in re.findall(r'<a href="/match/(\d+)">#', first)]
        assert ids == list(range(count, count - PAGE_SIZE, -1))
        older = re.search(r'href="/history\?before=(\d+)">Older matches', first)
        assert older is not None
        second = client.get(f"/history?before={older.group(1)}").get_data(as_text=True)
        assert [int(i) for i in re.findall(r'<a href="/match/(\d+)">#', second)][0] == count - PAGE_SIZE
        totals = {(g, n): (m, f, w, p) for g, n, m, f, w, p in reopened.player_totals()}
        by_hand: dict[tuple[str, str], list[int]] = {}
        for info in reopened.list_matches():
            for seat, name in enumerate(info.players):
                t = by_hand.setdefault((info.game, name), [0, 0, 0, 0])
                t[0] += 1
                t[1] += info.finished
                t[2] += info.finished and seat in (info.winners or [])
                t[3] += (info.scores or [])[seat]
        assert totals == {k: tuple(v) for k, v in by_hand.items()}
        assert sum(m for m, *_ in totals.values()) >= count * 3  # every match, not one page
        assert client.get("/history?before=-4").status_code == 200  # nonsense: the newest page
    finally:
        reopened.close()


# ---- the real server: streams hold no thread ---------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Appliance, int]]:
    store = MatchStore(tmp_path / "matches.sqlite3")
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    appliance = Appliance(store, {"INSTANCE_PATH": str(tmp_path), "TABLE_PIN": PIN,
                                  "SECRET_KEY": "s" * 40}, port=0, threads=2)
    appliance.start()
    try:
        yield appliance, info.id
    finally:
        appliance.stop()


def open_stream(port: int, match_id: int) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/match/{match_id}/live")
    response = conn.getresponse()
    assert response.status == 200 and response.readline() == b"retry: 1000\n"
    return conn, response


def next_seq(response: http.client.HTTPResponse) -> int:
    while True:
        line = response.readline()
        assert line, "the stream ended"
        if line.startswith(b"data: "):
            return int(json.loads(line[6:])["seq"])


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_forty_streams_on_two_worker_threads_all_get_the_event_and_pages_still_load(
        server: tuple[Appliance, int]) -> None:
    appliance, match = server
    port = appliance.server.port
    streams = [open_stream(port, match) for _ in range(40)]  # a thread each would need 40
    try:
        assert all(next_seq(r) == 0 for _, r in streams)
        assert get(port, f"/match/{match}")[0] == 200
        assert appliance.store.submit(match, DEAL).ok
        assert all(next_seq(r) == 1 for _, r in streams)
        assert get(port, "/history")[0] == 200
    finally:
        for conn, _ in streams:
            conn.close()


def test_idle_and_trickling_connections_lock_nobody_out(
        server: tuple[Appliance, int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asgi, "BODY_TIMEOUT_S", 1.0)
    appliance, match = server
    port = appliance.server.port
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    trickling = []
    for _ in range(10):  # headers begun, never finished
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /history HTTP/1.1\r\nHost: x\r\n")
        trickling.append(s)
    bodies = []
    for _ in range(4):  # a POST whose body never comes: more than the 2 worker threads
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /unlock HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-"
                  b"urlencoded\r\nContent-Length: 100\r\n\r\npin=")
        bodies.append(s)
    try:
        status, page = get(port, f"/match/{match}")
        assert status == 200 and "scoreboard" in page
        bodies[0].settimeout(10)
        answer = bodies[0].recv(1000)
        assert answer.startswith(b"HTTP/1.1 408") and b"send it again" in bodies[0].recv(1000) + answer
    finally:
        for s in idle + trickling + bodies:
            s.close()


def test_a_connection_that_sends_no_request_is_closed_after_the_header_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ducktable.device import runloop

    monkeypatch.setattr(runloop, "HEADER_TIMEOUT_S", 0.5)
    store = MatchStore(tmp_path / "matches.sqlite3")
    appliance = Appliance(store, {"INSTANCE_PATH": str(tmp_path), "TABLE_PIN": PIN}, port=0)
    appliance.start()
    try:
        idle = socket.create_connection(("127.0.0.1", appliance.server.port))
        trickling = socket.create_connection(("127.0.0.1", appliance.server.port))
        trickling.sendall(b"GET / HTTP/1.1\r\n")
        for s in (idle, trickling):
            s.settimeout(20)
            assert s.recv(100) == b""  # closed by the server, not left holding a file
            s.close()
        assert get(appliance.server.port, "/history")[0] == 200  # a whole request is served
    finally:
        appliance.stop()


def test_the_live_stream_of_an_unknown_match_is_the_apps_404_page(
        server: tuple[Appliance, int]) -> None:
    appliance, _ = server
    status, page = get(appliance.server.port, "/match/4242/live")
    assert status == 404 and "There is no match 4242" in page

"""Fixtures for the web tests: an app on a temporary store, a client, CSRF and PIN helpers.

Following flaskr's tests/conftest.py: ``app`` builds the application with a test
configuration, ``client`` talks to it. ``Phone`` wraps a client the way a phone uses the
pages: it reads the CSRF token from a page and posts forms with it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MatchInfo, MatchStore
from ducktable.rules.core import RandomBot
from ducktable.web import create_app
from flask import Flask
from flask.testing import FlaskClient

PIN = "4821"
PLAYERS = ["Ada", "Bo", "Cy"]
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(tmp_path / "matches.sqlite3")
    yield s
    s.close()


@pytest.fixture
def app(store: MatchStore, tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "STORE": store,
            "TABLE_PIN": PIN,
            "SECRET_KEY": "test-secret-" + "x" * 32,
            "INSTANCE_PATH": str(tmp_path),
            "PIN_FILE": str(tmp_path / "table-pin"),
            "PARTY_FILE": str(tmp_path / "party.json"),
            "LIVE_WAIT_S": 0.05,
        }
    )


class Phone:
    """A test client used like a phone: fetch a page, then post its form with the token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.token = ""

    def get(self, url: str, **kwargs: Any) -> Any:
        response = self.client.get(url, **kwargs)
        found = TOKEN.search(response.get_data(as_text=True))
        if found:
            self.token = found.group(1)
        return response

    def post(self, url: str, data: dict[str, Any] | None = None, *, token: bool = True,
             **kwargs: Any) -> Any:
        if token and not self.token:
            self.get("/setup")
        form = dict(data or {})
        if token:
            form.setdefault("csrf_token", self.token)
        return self.client.post(url, data=form, **kwargs)

    def unlock(self, pin: str = PIN) -> Any:
        self.get("/unlock")
        return self.post("/unlock", {"pin": pin, "next": "/history"})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def phone(client: FlaskClient) -> Phone:
    return Phone(client)


@pytest.fixture
def unlocked(app: Flask) -> Phone:
    p = Phone(app.test_client())
    response = p.unlock()
    assert response.status_code == 303
    return p


def new_duck(store: MatchStore, *, observer: bool = True, players: list[str] | None = None,
             **options: Any) -> MatchInfo:
    return store.create_match("duck", players or PLAYERS, options, observer=observer)


def play_bots(store: MatchStore, match_id: int, events: int, seed: int = 7) -> None:
    """Let random bots add up to ``events`` events to a full-information match."""
    rng = random.Random(seed)
    info = store.match(match_id)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(info.players))]
    for _ in range(events):
        state = store.state(match_id)
        if state.is_over():
            return
        assert store.submit(match_id, next_event(state, bots, rng)).ok


def play_until_round_scored(store: MatchStore, match_id: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    info = store.match(match_id)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(info.players))]
    while True:
        state = store.state(match_id)
        event = next_event(state, bots, rng)
        assert store.submit(match_id, event).ok
        if event.type == "reveal":
            return

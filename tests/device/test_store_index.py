"""Match summaries and entry keys (device/store_index.py): kept with every change, migrated
from a schema-1 database, and an entry recorded once however often it is sent."""

from __future__ import annotations

import random
import sqlite3
import threading
from pathlib import Path

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MIGRATIONS, SCHEMA_VERSION, MatchStore, StoreError
from ducktable.device.store_index import Answer, DuplicateEntry
from ducktable.rules.core import Event, RandomBot

DEAL = Event("deal", None, {"face_up": ["blue-3", None, None]})
PLAY = Event("play", 1, {"cards": ["blue-3"]})


@pytest.fixture
def store(tmp_path: Path):
    s = MatchStore(tmp_path / "matches.sqlite3")
    yield s
    s.close()


def play(store: MatchStore, match_id: int, events: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(store.match(match_id).players))]
    for _ in range(events):
        state = store.state(match_id)
        if state.is_over():
            return
        assert store.submit(match_id, next_event(state, bots, rng)).ok


def test_the_summary_follows_every_change(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"])
    assert (info.event_count, info.scores, info.winners) == (0, [0, 0, 0], [])
    play(store, info.id, 100_000)
    state = store.state(info.id)
    summary = store.match(info.id)
    assert state.is_over() and summary.finished
    assert summary.event_count == len(state.history) == len(store.events(info.id))
    assert summary.scores == [int(s) for s in state.scores()] and summary.winners == state.winners()
    store.undo(info.id)
    after = store.match(info.id)
    assert after.event_count == summary.event_count - 1 and not after.finished
    assert after.scores == [int(s) for s in store.state(info.id).scores()] and after.winners == []


def test_newest_match_is_the_highest_id(store: MatchStore) -> None:
    assert store.newest_match() is None
    store.create_match("duck", ["Ann", "Ben", "Cat"])
    second = store.create_match("grey", ["Ann", "Ben", "Cat"])
    assert store.newest_match() == second == store.list_matches()[0]


def schema_1_database(path: Path, events: int = 40) -> tuple[list[Event], list[int]]:
    """A real schema-1 file at ``path`` holding one duck match of Ann, Ben and Cat: a match
    played now, then the file turned back into schema 1. Returns its events and scores."""
    with MatchStore(path) as store:
        info = store.create_match("duck", ["Ann", "Ben", "Cat"])
        play(store, info.id, events)
        played = store.events(info.id)
        expected = [int(s) for s in store.state(info.id).scores()]
    raw = sqlite3.connect(path)
    raw.executescript("DROP TABLE matches; DROP TABLE events; DROP TABLE audit;"
                      " DROP TABLE entry_keys;")
    MIGRATIONS[0](raw)
    raw.execute("INSERT INTO matches (game, options, players, observer, created, seq) VALUES"
                f" ('duck', '{{}}', '[\"Ann\", \"Ben\", \"Cat\"]', 0, '2026-01-01', {len(played)})")
    raw.executemany("INSERT INTO events VALUES (1, ?, ?)",
                    [(i, e.dumps()) for i, e in enumerate(played)])
    raw.execute("PRAGMA user_version=1")
    raw.commit()
    raw.execute("PRAGMA journal_mode=DELETE")  # no -wal beside it: one file, as on an old card
    raw.close()
    return played, expected


def test_a_schema_1_database_is_upgraded_and_its_scores_worked_out_once(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    events, expected = schema_1_database(path)
    with MatchStore(path) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        listed = store.list_matches()[0]
        assert listed.event_count == len(events) and listed.scores is None
        assert store.summary(1).scores == expected
    with MatchStore(path) as store:
        assert store.match(1).scores == expected  # kept: no replay next time


def test_a_summary_of_a_log_that_no_longer_replays_says_why(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    assert store.submit(info.id, DEAL).ok
    store.conn.execute("UPDATE matches SET scores = NULL WHERE id = ?", (info.id,))
    store.conn.execute("UPDATE events SET body = '{\"v\": 2, \"type\": \"play\", \"seat\": 2,"
                       " \"data\": {\"cards\": [\"red-4\"]}}' WHERE match_id = ?", (info.id,))
    store.conn.execute("UPDATE matches SET seq = seq + 1 WHERE id = ?", (info.id,))
    with pytest.raises(StoreError, match="no longer replays"):
        store.summary(info.id)


def test_an_entry_sent_twice_is_recorded_once(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    with store.entry_key("k" * 32) as claim:
        assert store.submit(info.id, DEAL).ok
    assert claim.claimed
    with store.entry_key("k" * 32), pytest.raises(DuplicateEntry):
        store.submit(info.id, DEAL)
    assert len(store.events(info.id)) == 1 and store.seq(info.id) == 1
    assert store.entry_answer("k" * 32) == Answer(None, None, None, b"")  # not answered yet
    store.save_entry_answer("k" * 32, Answer(303, "/match/1/entry", "text/html", b"ok"))
    assert store.entry_answer("k" * 32) == Answer(303, "/match/1/entry", "text/html", b"ok")
    assert store.entry_answer("z" * 32) is None


def test_a_refused_entry_claims_no_key_so_its_retry_runs_again(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    with store.entry_key("retry-key-1") as claim:
        assert not store.submit(info.id, PLAY).ok  # nothing dealt yet: refused, nothing written
    assert not claim.claimed and store.entry_answer("retry-key-1") is None
    with store.entry_key("retry-key-1"):
        assert store.submit(info.id, DEAL).ok
    assert len(store.events(info.id)) == 1


def test_one_key_from_many_threads_at_once_records_one_entry(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    outcomes: list[str] = []
    start = threading.Barrier(8)

    def send() -> None:
        start.wait()
        try:
            with store.entry_key("same-entry-key"):
                outcomes.append("ok" if store.submit(info.id, DEAL).ok else "refused")
        except DuplicateEntry:
            outcomes.append("duplicate")

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["duplicate"] * 7 + ["ok"]
    assert len(store.events(info.id)) == 1


def test_a_malformed_key_is_refused_before_anything_is_written(store: MatchStore) -> None:
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    with pytest.raises(ValueError, match="8 to 64 letters"), store.entry_key("a b"):
        store.submit(info.id, DEAL)
    assert store.events(info.id) == []

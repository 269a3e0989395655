"""What the match store keeps beside the logs so that nothing has to replay the whole history:
each match's summary (event count, scores, winners) and the keys of the entries already recorded.

Why this module exists: listing the matches, finding the current one and the history page
must cost the same with 3 matches or 1,000 matches and 500,000 events, so a match's summary is
written in the same transaction as every change of its log (``write_summary``) and read from
its row, never worked out by counting or replaying. And a phone that sends an entry again (it
gave up waiting, or the person tapped twice) must not record it twice: every entry carries a
key, and the key is claimed in the transaction that records the entry (``claim_key``), against
a unique constraint, so the second attempt finds it and gets the first one's answer.

The store (device/store.py) calls these inside its own write transactions; the schema change
that adds them is ``migrate_1_to_2``, and a schema-1 file that cannot be upgraded (the card is
full or read-only) is read through ``read_schema_1``.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ducktable.rules.core import State

KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""What an entry key looks like: 8 to 64 letters, digits, '-' or '_' (the phones send 32 hex)."""

KEEP_KEYS = timedelta(days=2)
"""How long a key is remembered: far longer than any phone keeps retrying an entry."""

_SCHEMA_V2 = """
ALTER TABLE matches ADD COLUMN event_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN scores TEXT;    -- JSON array of ints, NULL: not worked out yet
ALTER TABLE matches ADD COLUMN winners TEXT;   -- JSON array of seats ([] until it is over)
UPDATE matches SET event_count = (SELECT COUNT(*) FROM events WHERE match_id = matches.id);
CREATE TABLE entry_keys (                      -- one row per entry recorded with a key
    key          TEXT PRIMARY KEY,
    created      TEXT NOT NULL,                -- ISO-8601, UTC: old keys are forgotten
    status       INTEGER,                      -- the answer given (NULL until it was sent)
    location     TEXT,
    content_type TEXT,
    body         BLOB
);
CREATE INDEX entry_keys_by_age ON entry_keys (created);
"""


def migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Add the summary columns (event counts filled now; scores when first asked for, see
    ``MatchStore.summary``) and the entry-key table."""
    for statement in _SCHEMA_V2.split(";"):
        if statement.strip():
            conn.execute(statement)


def read_schema_1(conn: sqlite3.Connection) -> None:
    """Let a schema-1 database that cannot be written (a full or read-only card) be read as if
    it were schema 2, without changing the file: temporary views, in memory, shadow ``matches``
    (event counts counted, scores kept by ``keep_summary`` once worked out) and an empty
    ``entry_keys``. A ``backup`` still copies the file as it is; ``restore`` upgrades it."""
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("CREATE TEMP TABLE summaries (match_id INTEGER PRIMARY KEY, finished INTEGER,"
                 " scores TEXT, winners TEXT)")
    conn.execute(
        "CREATE TEMP VIEW matches AS SELECT m.id, m.game, m.options, m.players, m.observer,"
        " m.name, m.created, COALESCE(s.finished, m.finished) AS finished, m.seq,"
        " (SELECT COUNT(*) FROM main.events e WHERE e.match_id = m.id) AS event_count,"
        " s.scores, s.winners FROM main.matches m LEFT JOIN temp.summaries s ON s.match_id = m.id")
    conn.execute("CREATE TEMP TABLE entry_keys (key TEXT PRIMARY KEY, created TEXT NOT NULL,"
                 " status INTEGER, location TEXT, content_type TEXT, body BLOB)")


def keep_summary(conn: sqlite3.Connection, match_id: int, state: State) -> None:
    """Keep a summary worked out for a database read through ``read_schema_1`` (in memory)."""
    over = state.is_over()
    conn.execute(
        "INSERT OR REPLACE INTO temp.summaries (match_id, finished, scores, winners)"
        " VALUES (?, ?, ?, ?)",
        (match_id, int(over), json.dumps([int(s) for s in state.scores()]),
         json.dumps(state.winners() if over else [])))


def write_summary(conn: sqlite3.Connection, match_id: int, state: State | None) -> None:
    """Record the match's summary as its log now stands (``state`` None: the log no longer
    replays; the count is still right, the scores are unknown)."""
    if state is None:
        conn.execute(
            "UPDATE matches SET event_count = (SELECT COUNT(*) FROM events WHERE match_id = ?),"
            " scores = NULL, winners = NULL WHERE id = ?", (match_id, match_id))
        return
    over = state.is_over()
    conn.execute(
        "UPDATE matches SET event_count = ?, finished = ?, scores = ?, winners = ? WHERE id = ?",
        (len(state.history), int(over), json.dumps([int(s) for s in state.scores()]),
         json.dumps(state.winners() if over else []), match_id))


def read_ints(text: Any) -> list[int] | None:
    """A summary column's list of whole numbers, or None when it is missing or damaged."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return None
    return value


_TOTALS = """
SELECT m.game, p.value, COUNT(*), SUM(m.finished),
       SUM(m.finished AND EXISTS (SELECT 1 FROM json_each(m.winners) w WHERE w.value = p.key)),
       SUM(json_extract(m.scores, '$[' || p.key || ']'))
FROM matches m, json_each(m.players) p
WHERE json_valid(m.players) AND json_valid(m.options) AND json_valid(m.scores)
  AND json_valid(m.winners) AND json_array_length(m.scores) = json_array_length(m.players)
GROUP BY m.game, p.value
"""


def player_totals(conn: sqlite3.Connection) -> list[tuple[str, str, int, int, int, int]]:
    """Per game and player name: matches, finished matches, wins and points, summed by SQLite
    over the summaries (a match without a readable summary is left out)."""
    return [(str(game), str(name), int(n), int(done or 0), int(wins or 0), int(points or 0))
            for game, name, n, done, wins, points in conn.execute(_TOTALS)]


def unsummarised(conn: sqlite3.Connection) -> list[int]:
    """The matches whose scores were never worked out (a database from before summaries)."""
    return [int(mid) for (mid,) in conn.execute("SELECT id FROM matches WHERE scores IS NULL")]


# ---- entry keys --------------------------------------------------------------------------------


class DuplicateEntry(Exception):
    """The entry's key was already claimed: the entry is (being) recorded by an earlier try."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the entry {key} was already recorded")
        self.key = key


@dataclass
class Claim:
    """The entry key a thread's writes are recorded under; ``claimed`` once a write claimed it."""

    key: str
    claimed: bool = False


@dataclass(frozen=True)
class Answer:
    """What the first try of an entry answered (status None: it has not answered yet)."""

    status: int | None
    location: str | None
    content_type: str | None
    body: bytes


def check_key(key: str) -> str:
    """``key`` when it looks like an entry key; ValueError saying what one is otherwise."""
    if not KEY_PATTERN.fullmatch(key):
        raise ValueError("an entry key is 8 to 64 letters, digits, '-' or '_'")
    return key


def check_unclaimed(conn: sqlite3.Connection, key: str) -> None:
    """:class:`DuplicateEntry` when an earlier try of the entry holds ``key``."""
    if conn.execute("SELECT 1 FROM entry_keys WHERE key = ?", (key,)).fetchone() is not None:
        raise DuplicateEntry(key)


def claim_key(conn: sqlite3.Connection, key: str) -> None:
    """Claim ``key`` in the current write transaction; :class:`DuplicateEntry` when an earlier
    try holds it. Keys older than ``KEEP_KEYS`` are forgotten on the way."""
    now = datetime.now(UTC)
    conn.execute("DELETE FROM entry_keys WHERE created < ?", ((now - KEEP_KEYS).isoformat(),))
    try:
        conn.execute("INSERT INTO entry_keys (key, created) VALUES (?, ?)", (key, now.isoformat()))
    except sqlite3.IntegrityError:
        raise DuplicateEntry(key) from None


def find_answer(conn: sqlite3.Connection, key: str) -> Answer | None:
    """The answer recorded for ``key``; None when no entry claimed it."""
    row = conn.execute("SELECT status, location, content_type, body FROM entry_keys WHERE key = ?",
                       (key,)).fetchone()
    if row is None:
        return None
    status, location, content_type, body = row
    return Answer(None if status is None else int(status), location, content_type, bytes(body or b""))


def save_answer(conn: sqlite3.Connection, key: str, answer: Answer) -> None:
    conn.execute(
        "UPDATE entry_keys SET status = ?, location = ?, content_type = ?, body = ? WHERE key = ?",
        (answer.status, answer.location, answer.content_type, answer.body, key))

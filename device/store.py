"""The match log store: every match's events, kept durably in SQLite.

One file because it is the one place that writes the user's data: the schema, its migrations,
the transactions and the read API change together, and durability is checked in one place.

Why this module exists: a match is event-sourced (game + options + seats + an append-only list
of events), and the events are the user's data. This store is the one place that writes them.
An event is acknowledged (``submit`` returns a legal verdict) only after its transaction is
committed with ``synchronous=FULL`` in WAL mode, so a crash or power cut never loses an
acknowledged event, and reopening the file replays to the identical state.

The live log (``events``) only ever grows at its end, except for two recorded edits: ``undo``
removes the last event and ``correct`` replaces one event when the whole log still replays.
Every change also lands in the append-only ``audit`` table, so nothing is ever silently lost.

States are rebuilt with :func:`ducktable.rules.core.replay` and cached per match together with
the match's change counter (``seq``); a new event is applied to a clone of the cached state, so
a refused event or a failed write can never corrupt the cache. One connection serves all
threads behind a lock; other processes may use the same file (the cache notices their changes
through ``seq``).

Beside the logs, each match's summary (event count, scores, winners) is written with every
change, and a write made under an entry key claims that key, so that an entry sent twice is
recorded once: both in device/store_index.py.

The exported JSONL form is documented in docs/match-log-format.md.
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ducktable.rules import registry
from ducktable.rules.core import (
    BadEvent,
    Event,
    Game,
    IllegalEvent,
    JSONTextError,
    RulesError,
    State,
    Verdict,
    read_json,
    replay,
)

from . import store_index
from .store_index import Answer, Claim
from .store_index import DuplicateEntry as DuplicateEntry  # re-exported: the web app's door
from .store_index import check_key as check_key

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of a database this code writes. Bump it and add a migration."""

LOG_FORMAT = "ducktable-match-log"
LOG_FORMAT_VERSION = 2
"""Version of the exported match log (docs/match-log-format.md). Bump on incompatible change."""

READABLE_LOG_VERSIONS = (1, 2)
"""Version 1 logs hold version-1 events, which :meth:`Event.from_json` upgrades."""

WAIT_POLL_S = 0.25
"""How often :meth:`MatchStore.wait_for_change` also looks for changes made by other processes."""

BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process holding the database's write lock."""


class StoreError(Exception):
    """A problem the user can fix (unknown match, bad log file, unreadable database).

    The message says what was wrong and what to do.
    """


class NoSuchMatch(StoreError):
    """The match id names no match in this database (a phone's 404, not a disk fault)."""


@dataclass(frozen=True)
class MatchInfo:
    """A match's identity and summary, as listed on the phone and by ``ducktable show``."""

    id: int
    game: str
    options: dict[str, Any]
    players: list[str]
    observer: bool
    name: str
    created: str
    finished: bool
    event_count: int
    damaged: str = ""
    """Why the match's own row (its options or players) cannot be read; "" when it can. Such
    a match is still listed, so that one damaged row does not hide the others."""
    scores: list[int] | None = None
    """Each seat's score as the log stands, from the match's summary; None when not known
    (the log does not replay, or it was never worked out: see ``MatchStore.summary``)."""
    winners: list[int] | None = None
    """The winning seats of a finished match ([] while it is played); None when not known."""

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "game": self.game,
            "options": dict(self.options),
            "players": list(self.players),
            "observer": self.observer,
            "name": self.name,
            "created": self.created,
            "finished": self.finished,
            "event_count": self.event_count,
        }
        if self.damaged:
            out["damaged"] = self.damaged
        return out


@dataclass(frozen=True)
class MatchLog:
    """A parsed match log file: the header's facts and the events, in order."""

    game: str
    players: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    observer: bool = False
    name: str = ""
    created: str = ""
    public: bool = False
    events: list[Event] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The file line number (1-based) of each event, for error messages."""


# --------------------------------------------------------------------------------------------
# Schema and migrations
# --------------------------------------------------------------------------------------------

_SCHEMA_V1 = """
CREATE TABLE matches (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    game      TEXT    NOT NULL,
    options   TEXT    NOT NULL,            -- JSON object: the resolved rule options
    players   TEXT    NOT NULL,            -- JSON array of names, seat order
    observer  INTEGER NOT NULL,            -- 1: camera/phone match with hidden information
    name      TEXT    NOT NULL DEFAULT '',
    created   TEXT    NOT NULL,            -- ISO-8601
    seq       INTEGER NOT NULL DEFAULT 0,  -- grows on every change of the match
    finished  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE events (                      -- the live log
    match_id  INTEGER NOT NULL REFERENCES matches(id),
    idx       INTEGER NOT NULL,            -- 0-based position in the log
    body      TEXT    NOT NULL,            -- Event.to_json() as compact JSON
    PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;
CREATE TABLE audit (                       -- append-only: every change, never edited
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id  INTEGER NOT NULL REFERENCES matches(id),
    seq       INTEGER NOT NULL,
    time      TEXT    NOT NULL,
    action    TEXT    NOT NULL,            -- create, import, submit, undo, correct
    idx       INTEGER,
    event     TEXT,                        -- the event added or the replacement
    previous  TEXT,                        -- the event removed or replaced
    reason    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_by_match ON audit (match_id, id);
"""


def _migrate_0_to_1(conn: sqlite3.Connection) -> None:
    # one statement at a time: executescript() would commit the surrounding transaction
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            conn.execute(statement)


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    0: _migrate_0_to_1,
    1: store_index.migrate_1_to_2,  # match summaries and entry keys
}
"""``MIGRATIONS[v]`` turns a version-``v`` database into version ``v + 1`` (in a transaction)."""


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------


class MatchStore:
    """Durable, thread-safe storage of matches and their event logs (see the module doc)."""

    connection_factory: type[sqlite3.Connection] = sqlite3.Connection
    """The connection class (tests inject disk faults through a subclass)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._changed = threading.Condition(threading.Lock())
        self._generation = 0
        self._cache: dict[int, tuple[int, State]] = {}
        self._pending: dict[int, tuple[int, State]] = {}  # cache entries awaiting the commit
        self._conn: sqlite3.Connection | None = None
        self._local = threading.local()  # the entry key of this thread's writes, if any
        self._totals: tuple[Any, list[tuple[str, str, int, int, int, int]]] | None = None
        self.journal_mode = ""
        self._summaries_in_memory = False  # a schema-1 file read through store_index.read_schema_1
        self.read_only = ""
        """Why the database could only be opened for reading (a full, read-only or failing
        card); "" when it is writable. Reading works either way; writes are refused with it."""
        self._conn = self._open()

    # -- opening and closing ---------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(
                f"the match database {self.path} is a folder, not a file; give the path of a "
                "database file (it is created if missing)"
            )
        if not self.path.parent.is_dir():
            raise StoreError(
                f"the folder {self.path.parent} for the match database does not exist; "
                "create it or choose another data folder"
            )
        existed = self.path.exists()
        _make_private(self.path)
        try:
            conn = self._connect(str(self.path))
        except sqlite3.Error as exc:
            exc = _with_cause(exc, self.path)
            if existed and _card_fault(exc):
                return self._open_read_only(exc)
            raise StoreError(
                _card_fault(exc, self.path)
                or f"cannot open the match database {self.path} ({exc}); check that the file "
                "is readable and writable"
            ) from None
        try:
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems[:3]))
            self._migrate(conn)
        except sqlite3.Error as exc:
            conn.close()
            exc = _with_cause(exc, self.path)
            if existed and _card_fault(exc):
                return self._open_read_only(exc)
            raise StoreError(_unopenable(self.path, exc)) from None
        except StoreError:
            conn.close()
            raise
        self.journal_mode = str(mode)  # "wal" except on file systems without shared memory
        for suffix in ("-wal", "-shm"):
            _make_private(Path(f"{self.path}{suffix}"), create=False)
        return conn

    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        return sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE)
            check_same_thread=False,  # one connection behind self._lock
            factory=self.connection_factory,
            uri=uri,
        )

    def _open_read_only(self, fault: sqlite3.Error) -> sqlite3.Connection:
        """Open for reading after ``fault`` (a full, read-only or failing card) made a writable
        opening fail: the matches can still be shown, exported and backed up."""
        why = _unwritable(self.path, fault)
        target = self.path.resolve().as_uri()
        last: sqlite3.Error = fault
        for query in ("?mode=ro", "?immutable=1"):  # immutable: no -shm can be made either
            try:
                conn = self._connect(target + query, uri=True)
            except sqlite3.Error as exc:
                last = exc
                continue
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                conn.execute("SELECT COUNT(*) FROM matches").fetchone()
            except sqlite3.Error as exc:
                conn.close()
                last = exc
                continue
            if version > SCHEMA_VERSION:
                conn.close()
                raise StoreError(f"{why}; besides, the database was written by a newer "
                                 f"ducktable (schema {version}); upgrade ducktable")
            if version != SCHEMA_VERSION and version != 1:
                conn.close()
                raise StoreError(f"{why}; the database (schema {version}) cannot be read "
                                 f"without being upgraded to schema {SCHEMA_VERSION}")
            if version == 1:  # read as it is; upgraded when the card can be written again
                try:
                    store_index.read_schema_1(conn)
                except sqlite3.Error as exc:
                    conn.close()
                    last = exc
                    continue
                self._summaries_in_memory = True
            self.read_only = why.replace("; nothing was recorded", "") + (
                "; only reading works until then (show, export, backup, the scoreboard)")
            self.journal_mode = "read-only"
            return conn
        raise StoreError(_unopenable(self.path, last)) from None

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the match database {self.path} was written by a newer ducktable (schema "
                f"{version}, this one reads up to {SCHEMA_VERSION}); upgrade ducktable"
            )
        if version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
            conn.execute(f"PRAGMA user_version={int(version)}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close the database (idempotent). Later calls raise :class:`StoreError`."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._cache.clear()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- low-level helpers ---------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the match store is closed; open it again")
        return self._conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.conn
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreError(_card_fault(exc, self.path) or _unreadable(self.path, exc)
                                 ) from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: everything or nothing, durable once the block returns."""
        with self._lock:
            conn = self.conn
            if self.read_only:
                raise StoreError(self.read_only.replace(
                    "; only reading works", "; nothing was recorded; only reading works"))
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(_unwritable(self.path, exc)) from None
            claim: Claim | None = getattr(self._local, "claim", None)
            changes = conn.total_changes
            claiming = False
            try:
                if claim is not None and not claim.claimed:
                    store_index.check_unclaimed(conn, claim.key)  # an earlier try: do nothing
                yield conn
                if claim is not None and not claim.claimed and conn.total_changes != changes:
                    store_index.claim_key(conn, claim.key)  # only a write that changed something
                    claiming = True
                conn.execute("COMMIT")
                if claim is not None and claiming:
                    claim.claimed = True
                self._cache.update(self._pending)  # only states whose events are on disk
            except BaseException as exc:
                for match_id in self._pending:
                    self._cache.pop(match_id, None)
                with suppress(sqlite3.Error):  # already gone: nothing was written either way
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(_unwritable(self.path, exc)) from None
                if isinstance(exc, UnicodeEncodeError):  # sqlite3 stores text as UTF-8
                    raise StoreError(
                        "some text given is not UTF-8 (a name or reason typed in another "
                        "encoding?); type it again; nothing was recorded") from None
                raise
            finally:
                self._pending.clear()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def _row(self, conn: sqlite3.Connection, match_id: int) -> tuple[Any, ...]:
        row = conn.execute(
            f"SELECT {_INFO_COLUMNS} FROM matches WHERE id = ?",
            (_match_id(match_id),),
        ).fetchone()
        if row is None:
            raise NoSuchMatch(
                f"there is no match {match_id}; list the matches with `ducktable show`"
            )
        return tuple(row)

    def _seq(self, conn: sqlite3.Connection, match_id: int) -> int:
        row = conn.execute(
            "SELECT seq FROM matches WHERE id = ?", (_match_id(match_id),)
        ).fetchone()
        if row is None:
            raise NoSuchMatch(
                f"there is no match {match_id}; list the matches with `ducktable show`"
            )
        return int(row[0])

    def _game(self, info: MatchInfo) -> Game:
        if info.damaged:
            raise StoreError(info.damaged)
        try:
            return registry.make_game(info.game, info.options)
        except RulesError as exc:
            raise StoreError(f"match {info.id} cannot be opened: {exc}") from None

    def _cached_state(self, conn: sqlite3.Connection, match_id: int) -> State:
        """The current state of a match (not a copy: callers clone before changing it)."""
        seq = self._seq(conn, match_id)
        cached = self._cache.get(match_id)
        if cached is not None and cached[0] == seq:
            return cached[1]
        info = _info(self._row(conn, match_id))
        events = self._load_events(conn, match_id)
        try:
            state = replay(self._game(info), info.players, events, observer=info.observer)
        except IllegalEvent as exc:
            raise StoreError(
                f"match {match_id} no longer replays: {exc}; export it with `ducktable export "
                f"{match_id}` to inspect the log, then undo or correct that event"
            ) from None
        except RulesError as exc:
            raise StoreError(f"match {match_id} cannot be replayed: {exc}") from None
        self._cache[match_id] = (seq, state)
        return state

    def _load_events(self, conn: sqlite3.Connection, match_id: int) -> list[Event]:
        events = []
        for idx, event, problem in self._load_rows(conn, match_id):
            if event is None:
                raise StoreError(_damaged_row(match_id, idx, problem))
            events.append(event)
        return events

    def _load_rows(self, conn: sqlite3.Connection,
                   match_id: int) -> list[tuple[int, Event | None, str]]:
        """Every row of the live log: its index, the event (None when the row cannot be read)
        and, for a damaged row, why; a damaged row does not hide the others."""
        rows: list[tuple[int, Event | None, str]] = []
        for idx, body in conn.execute(
            "SELECT idx, body FROM events WHERE match_id = ? ORDER BY idx", (match_id,)
        ):
            try:
                rows.append((int(idx), Event.from_json(body), ""))
            except BadEvent as exc:
                rows.append((int(idx), None, str(exc)))
        return rows

    def _raw_body(self, conn: sqlite3.Connection, match_id: int, idx: int) -> str:
        row = conn.execute("SELECT body FROM events WHERE match_id = ? AND idx = ?",
                           (match_id, idx)).fetchone()
        return "" if row is None else str(row[0])

    def _audit(
        self,
        conn: sqlite3.Connection,
        match_id: int,
        seq: int,
        action: str,
        index: int | None = None,
        event: Event | None = None,
        previous: str | None = None,
        reason: str = "",
    ) -> None:
        conn.execute(
            "INSERT INTO audit (match_id, seq, time, action, idx, event, previous, reason)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (match_id, seq, _now(), action, index,
             event.dumps() if event is not None else None, previous, reason),
        )

    def _bump(self, conn: sqlite3.Connection, match_id: int, state: State | None) -> int:
        """Advance the match's ``seq`` and record its summary as ``state`` stands."""
        conn.execute("UPDATE matches SET seq = seq + 1 WHERE id = ?", (match_id,))
        store_index.write_summary(conn, match_id, state)
        return self._seq(conn, match_id)

    # -- matches ---------------------------------------------------------------------------
    def create_match(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        observer: bool = False,
        name: str = "",
    ) -> MatchInfo:
        """Start a new match with no events. Unknown games, options or seat lists are refused."""
        return self.record_match(game, players, options, observer=observer, name=name)

    def record_match(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        events: Sequence[Event] = (),
        *,
        observer: bool = False,
        name: str = "",
        created: str = "",
        action: str = "import",
        lines: Sequence[int] | None = None,
    ) -> MatchInfo:
        """Store a whole match at once (an import or a simulation) in one transaction.

        The events must replay from the start; otherwise a :class:`StoreError` names the
        first refused one (and its line in the log file, given ``lines``) and nothing is stored.
        """
        players = [str(p) for p in players]
        try:
            engine = registry.make_game(game, dict(options or {}))
            state = engine.new_state(players, observer=observer)
        except RulesError as exc:
            where = "line 1: " if lines is not None else ""
            raise StoreError(f"{where}cannot start a {game!r} match: {exc}") from None
        for index, event in enumerate(events):
            verdict = state.apply(event)
            if not verdict.ok:
                where = f"line {lines[index]}: " if lines is not None else ""
                raise StoreError(
                    f"{where}event #{index} is refused: {verdict}; fix or remove that event "
                    "(nothing was stored)"
                )
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO matches (game, options, players, observer, name, created, seq,"
                " finished) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                (game, json.dumps(engine.options, sort_keys=True), json.dumps(players),
                 int(observer), name, created or _now(seconds=True), int(state.is_over())),
            )
            match_id = int(cur.lastrowid or 0)
            conn.executemany(
                "INSERT INTO events (match_id, idx, body) VALUES (?, ?, ?)",
                [(match_id, i, e.dumps()) for i, e in enumerate(events)],
            )
            if events:
                seq = self._bump(conn, match_id, state)
                self._audit(conn, match_id, seq, action,
                            reason=f"{len(events)} events")
            else:
                store_index.write_summary(conn, match_id, state)
                self._audit(conn, match_id, 0, "create")
            info = _info(self._row(conn, match_id))
            self._pending[match_id] = (self._seq(conn, match_id), state)
        return info

    def list_matches(self, limit: int | None = None, before: int | None = None) -> list[MatchInfo]:
        """Every match, newest first; ``limit`` of them at most, and only those with an id
        below ``before`` when given (a page of the history)."""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_INFO_COLUMNS} FROM matches WHERE id < ? ORDER BY id DESC LIMIT ?",
                (2**63 - 1 if before is None else before, -1 if limit is None else limit),
            ).fetchall()
        return [_info(row) for row in rows]

    def player_totals(self) -> list[tuple[str, str, int, int, int, int]]:
        """(game, player, matches, finished, wins, points) over every match's summary; the
        matches without scores yet are worked out first (see :meth:`summary`)."""
        with self._read() as conn:
            key = (self.generation, *conn.execute("SELECT COUNT(*), TOTAL(seq) FROM matches").fetchone())
            if self._totals is not None and self._totals[0] == key:
                return self._totals[1]  # nothing changed since (here or in another process)
            missing = store_index.unsummarised(conn)
        for match_id in missing:
            with suppress(StoreError):  # a match that does not replay stays out of the totals
                self.summary(match_id)
        with self._read() as conn:
            totals = store_index.player_totals(conn)
        self._totals = (key, totals)
        return totals

    def newest_match(self) -> MatchInfo | None:
        """The match with the highest id (the table's current one), or None when there is
        none; one row read, however long the history."""
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_INFO_COLUMNS} FROM matches ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else _info(row)

    def summary(self, match_id: int) -> MatchInfo:
        """The match with its scores and winners, worked out by replaying it and kept when its
        summary did not have them yet (a database from before summaries); StoreError when the
        log does not replay."""
        info = self.match(match_id)
        if info.damaged:
            raise StoreError(info.damaged)
        if info.scores is not None:
            return info
        if self.read_only:
            with self._read() as conn:
                state = self._cached_state(conn, info.id)
                if self._summaries_in_memory:
                    store_index.keep_summary(conn, info.id, state)
        else:
            with self._write() as conn:
                state = self._cached_state(conn, info.id)
                store_index.write_summary(conn, info.id, state)
        over = state.is_over()
        return replace(info, scores=[int(s) for s in state.scores()],
                       winners=state.winners() if over else [])

    def match(self, match_id: int) -> MatchInfo:
        match_id = _match_id(match_id)
        with self._read() as conn:
            return _info(self._row(conn, match_id))

    def events(self, match_id: int) -> list[Event]:
        """The live log (undone events excluded, corrections applied), oldest first."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            self._seq(conn, match_id)  # unknown match -> StoreError
            return self._load_events(conn, match_id)

    def log_rows(self, match_id: int) -> list[tuple[Event | None, str]]:
        """The live log row by row: each event, or None and the row's text when the row is
        too damaged to read (so that it can be shown and corrected)."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            self._seq(conn, match_id)
            return [(event, "" if event is not None else self._raw_body(conn, match_id, idx))
                    for idx, event, _ in self._load_rows(conn, match_id)]

    def state_before(self, match_id: int, index: int) -> State:
        """The match as it stood before event ``#index`` (a private copy), for correcting that
        event while a later one, or the event itself, keeps the whole log from replaying."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            info = _info(self._row(conn, match_id))
            rows = self._load_rows(conn, match_id)[:max(0, index)]
        game = self._game(info)
        events = []
        for idx, event, why in rows:
            if event is None:
                raise StoreError(_damaged_row(match_id, idx, why))
            events.append(event)
        try:
            return replay(game, info.players, events, observer=info.observer)
        except IllegalEvent as exc:
            raise StoreError(f"match {match_id} no longer replays: {exc}") from None

    def state(self, match_id: int) -> State:
        """The match's current state: a private copy the caller may change freely."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            return _clone(self._cached_state(conn, match_id))

    def seq(self, match_id: int) -> int:
        """The match's change counter: it grows on every submit, undo and correction."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            return self._seq(conn, match_id)

    def wait_for_change(self, match_id: int, after_seq: int, timeout: float) -> int:
        """Block until the match's ``seq`` exceeds ``after_seq`` or ``timeout`` seconds pass.

        Returns the current ``seq`` (equal to ``after_seq`` on a timeout). Changes made by this
        store wake the waiter at once; changes by other processes are seen within
        ``WAIT_POLL_S``.
        """
        match_id = _match_id(match_id)
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            with self._changed:
                generation = self._generation
            current = self.seq(match_id)
            remaining = deadline - time.monotonic()
            if current > after_seq or remaining <= 0:
                return current
            with self._changed:
                if self._generation == generation:
                    self._changed.wait(min(remaining, WAIT_POLL_S))

    @property
    def generation(self) -> int:
        """A counter that grows on every change this store makes (to any match)."""
        with self._changed:
            return self._generation

    def wait_for_any_change(self, after_generation: int, timeout: float) -> int:
        """Block until this store changes any match after ``after_generation`` (see
        :attr:`generation`), or ``timeout`` seconds pass; returns the generation. Changes made
        by other processes do not wake it: callers that care poll ``seq`` as well."""
        with self._changed:
            if self._generation == after_generation:
                self._changed.wait(max(0.0, timeout))
            return self._generation

    def wake_waiters(self) -> None:
        """Wake every thread waiting in :meth:`wait_for_any_change` or :meth:`wait_for_change`
        at once, though nothing changed (a live stream that needs its first message now)."""
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    # -- entry keys (device/store_index.py) ------------------------------------------------
    @contextmanager
    def entry_key(self, key: str) -> Iterator[Claim]:
        """Record the writes this thread makes in the block under the entry key ``key``: the
        first write transaction that changes something claims it; any write transaction raises
        :class:`DuplicateEntry` (nothing is written) when an earlier try of the same entry
        already claimed it."""
        claim = self._local.claim = Claim(store_index.check_key(key))
        try:
            yield claim
        finally:
            self._local.claim = None

    def entry_answer(self, key: str) -> Answer | None:
        """What the entry with ``key`` answered (``status`` None: it has not yet); None when
        no entry with that key was recorded."""
        with self._read() as conn:
            return store_index.find_answer(conn, key)

    def save_entry_answer(self, key: str, answer: Answer) -> None:
        """Keep the answer the entry ``key`` gave, for its later tries."""
        with self._lock:
            if self.read_only:
                return
            conn = self.conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                store_index.save_answer(conn, key, answer)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise StoreError(_unwritable(self.path, exc)) from None

    # -- events ----------------------------------------------------------------------------
    def check(self, match_id: int, event: Event | Mapping[str, Any] | str) -> Verdict:
        """The dispute check: would ``event`` be legal now? Changes nothing.

        ``event`` may also be its JSON form; unreadable input gets an illegal verdict.
        """
        match_id = _match_id(match_id)
        parsed = _as_event(event)
        if isinstance(parsed, Verdict):
            return parsed
        with self._read() as conn:
            return self._cached_state(conn, match_id).check(parsed)

    def submit(self, match_id: int, event: Event | Mapping[str, Any] | str) -> Verdict:
        """Check ``event`` and, if legal, append it durably. Returns the verdict.

        A legal verdict is returned only after the event is committed to disk. An illegal one
        changes nothing.
        """
        match_id = _match_id(match_id)
        parsed = _as_event(event)
        if isinstance(parsed, Verdict):
            return parsed
        with self._write() as conn:
            candidate = _clone(self._cached_state(conn, match_id))
            verdict = candidate.apply(parsed)
            if not verdict.ok:
                return verdict
            index = len(candidate.history) - 1
            conn.execute(
                "INSERT INTO events (match_id, idx, body) VALUES (?, ?, ?)",
                (match_id, index, parsed.dumps()),
            )
            seq = self._bump(conn, match_id, candidate)
            self._audit(conn, match_id, seq, "submit", index, parsed)
            self._pending[match_id] = (seq, candidate)
        return verdict

    def undo(self, match_id: int, reason: str = "") -> Event | None:
        """Remove the last event of the live log, recording it in the audit trail.

        Returns the removed event, or None when the log is empty (nothing is recorded then).
        Works even when the log no longer replays, so a damaged last event can be removed
        (None is returned for an event too damaged to read; the audit keeps its text).
        """
        removed = self.undo_last(match_id, 1, reason)
        return removed[0] if removed else None

    def undo_last(self, match_id: int, count: int, reason: str = "",
                  seq: int | None = None) -> list[Event | None]:
        """Remove the last ``count`` events in one transaction (one entry that recorded
        several, e.g. a play and the Quacks it implied), each recorded in the audit trail;
        all or none. ``seq``: the match's change counter the caller saw; when the match
        changed since, StoreError and nothing is removed. Returns the removed events, oldest
        first (None for one too damaged to read); [] when the log is empty."""
        match_id = _match_id(match_id)
        with self._write() as conn:
            now = self._seq(conn, match_id)
            if seq is not None and now != seq:
                raise StoreError(f"match {match_id} changed meanwhile (another phone or the "
                                 "camera recorded something); look at it again; nothing was undone")
            rows = conn.execute(
                "SELECT idx, body FROM events WHERE match_id = ? ORDER BY idx DESC LIMIT ?",
                (match_id, max(1, count)),
            ).fetchall()
            if not rows:
                return []
            last = {int(i) for i, _ in rows}
            damaged = [(i, why) for i, event, why in self._load_rows(conn, match_id)
                       if event is None and i not in last]
            if damaged:
                first, why = damaged[0]
                raise StoreError(
                    f"{_damaged_row(match_id, first, why, undo=False)}; undo would remove "
                    f"event #{rows[0][0]}, which is not damaged, so nothing was undone"
                )
            for index, body in rows:
                conn.execute("DELETE FROM events WHERE match_id = ? AND idx = ?",
                             (match_id, index))
                state = self._replay_rows(conn, match_id)
                new_seq = self._bump(conn, match_id, state)
                self._audit(conn, match_id, new_seq, "undo", index, None, body, reason)
            if state is not None:
                self._pending[match_id] = (new_seq, state)
        removed: list[Event | None] = []
        for _, body in reversed(rows):
            try:
                removed.append(Event.from_json(body))
            except BadEvent:
                removed.append(None)
        return removed

    def _replay_rows(self, conn: sqlite3.Connection, match_id: int) -> State | None:
        """The state of the log as it stands in this transaction, or None if it won't replay."""
        self._cache.pop(match_id, None)
        try:
            return self._cached_state(conn, match_id)
        except StoreError:
            return None
        finally:
            self._cache.pop(match_id, None)

    def correct(
        self, match_id: int, index: int, event: Event | Mapping[str, Any] | str, reason: str = ""
    ) -> Verdict:
        """Replace event ``#index`` by ``event`` if the whole log still replays; recorded.

        Returns the replacement's verdict, or an illegal verdict naming the first event the
        replacement would make illegal (then nothing changes).
        """
        match_id = _match_id(match_id)
        parsed = _as_event(event)
        if isinstance(parsed, Verdict):
            return parsed
        with self._write() as conn:
            info = _info(self._row(conn, match_id))
            rows = self._load_rows(conn, match_id)
            for i, event, why in rows:
                if event is None and i != index:
                    raise StoreError(_damaged_row(match_id, i, why))
            events: list[Event | None] = [event for _, event, _ in rows]
            if not 0 <= index < len(events):
                raise StoreError(
                    f"match {match_id} has no event #{index}; its events are numbered "
                    f"0..{len(events) - 1}" if events else f"match {match_id} has no events yet"
                )
            state = self._game(info).new_state(info.players, observer=info.observer)
            verdict = Verdict.legal()
            for i, old in enumerate(events):
                step = state.apply(parsed if i == index or old is None else old)
                if i == index:
                    verdict = step
                    if not step.ok:
                        return Verdict.illegal(
                            f"event #{index} cannot be replaced: {step.reason}", *step.rules
                        )
                elif not step.ok:
                    return Verdict.illegal(
                        f"replacing event #{index} would make event #{i} illegal: {step.reason}",
                        *step.rules,
                    )
            kept = events[index]
            previous = kept.dumps() if kept is not None else self._raw_body(conn, match_id, index)
            conn.execute(
                "UPDATE events SET body = ? WHERE match_id = ? AND idx = ?",
                (parsed.dumps(), match_id, index),
            )
            seq = self._bump(conn, match_id, state)
            self._audit(conn, match_id, seq, "correct", index, parsed, previous, reason)
            self._pending[match_id] = (seq, state)
        return Verdict(True, f"event #{index} corrected: {verdict.reason}", verdict.rules)

    def audit(self, match_id: int) -> list[dict[str, Any]]:
        """Every recorded change of the match, oldest first, with its time (ISO-8601, UTC)."""
        match_id = _match_id(match_id)
        with self._read() as conn:
            self._seq(conn, match_id)
            rows = conn.execute(
                "SELECT seq, time, action, idx, event, previous, reason FROM audit"
                " WHERE match_id = ? ORDER BY id",
                (match_id,),
            ).fetchall()
        return [
            {
                "seq": seq,
                "time": when,
                "action": action,
                "index": idx,
                "event": _loads_or_text(event),
                "previous": _loads_or_text(previous),
                "reason": reason,
            }
            for seq, when, action, idx, event, previous, reason in rows
        ]

    # -- backup and restore ------------------------------------------------------------------
    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """Copy the whole database, recent events still in the write-ahead log included, to
        ``dest`` (replaced if it exists; mode 0600), with SQLite's online backup API: the
        store keeps working meanwhile. Works on a read-only store too."""
        dest = Path(dest)
        if dest.is_dir():
            raise StoreError(f"{dest} is a folder; give the name of the backup file to write")
        if dest.resolve() == self.path.resolve():
            raise StoreError("a backup must go to another file than the match database itself")
        if not dest.parent.is_dir():
            raise StoreError(f"the folder {dest.parent} does not exist; create it or choose "
                             "another place for the backup")
        tmp = dest.with_name(f".{dest.name}.part")
        try:
            tmp.unlink(missing_ok=True)
            _make_private(tmp)
            target = sqlite3.connect(tmp)
            try:
                with self._lock:
                    self.conn.backup(target)
            finally:
                target.close()
            os.replace(tmp, dest)
        except (sqlite3.Error, OSError) as exc:
            with suppress(OSError):
                tmp.unlink()
            fault = _card_fault(exc) if isinstance(exc, sqlite3.Error) else ""
            raise StoreError(
                f"could not write the backup {dest} ({fault or exc}); choose a place with "
                "free space that this user may write (e.g. a USB stick)") from None
        return dest

    def restore(self, source: str | os.PathLike[str]) -> Path:
        """Replace every match by those of the backup ``source`` (made by :meth:`backup`).

        The data replaced is first saved beside the database; that file's path is returned,
        so a restore never loses recorded events. A file that is not a ducktable database,
        or one from a newer ducktable, is refused and nothing changes."""
        source = Path(source)
        if not source.is_file():
            raise StoreError(f"the backup {source} does not exist (or is not a file); give the "
                             "path of a file made by `ducktable backup`")
        if self.read_only:
            raise StoreError(self.read_only.replace(
                "; only reading works", "; nothing was restored; only reading works"))
        try:
            src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the backup {source} ({exc})") from None
        try:
            try:
                version = src.execute("PRAGMA user_version").fetchone()[0]
                problems = [row[0] for row in src.execute("PRAGMA quick_check")]
                tables = {row[0] for row in src.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
            except sqlite3.Error as exc:
                raise StoreError(f"{source} is not a ducktable match database ({exc}); give "
                                 "a file made by `ducktable backup`") from None
            if not {"matches", "events", "audit"} <= tables or version < 1:
                raise StoreError(f"{source} is not a ducktable match database (it has no "
                                 "matches); give a file made by `ducktable backup`")
            if version > SCHEMA_VERSION:
                raise StoreError(f"the backup {source} was written by a newer ducktable "
                                 f"(schema {version}); upgrade ducktable to restore it")
            if problems != ["ok"]:
                raise StoreError(f"the backup {source} is damaged ({'; '.join(problems[:3])}); "
                                 "nothing was restored")
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            kept = self.backup(self.path.with_name(f"{self.path.name}.before-restore-{stamp}"))
            with self._lock:
                try:
                    src.backup(self.conn)
                    self._migrate(self.conn)
                except sqlite3.Error as exc:
                    raise StoreError(
                        f"{_unwritable(self.path, exc)}; the data from before is in {kept}"
                    ) from None
                finally:
                    self._cache.clear()
        finally:
            src.close()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()
        return kept

    # -- export and import -------------------------------------------------------------------
    def export_jsonl(self, match_id: int, public: bool = False) -> str:
        """The match log as JSONL: a header line, then one event per line.

        ``public=True`` removes hidden fields (what an observer could not see); such a log
        replays as an observer match.
        """
        match_id = _match_id(match_id)
        with self._read() as conn:
            info = _info(self._row(conn, match_id))
            rows = self._load_rows(conn, match_id)
            events: list[Event | str] = [
                event if event is not None
                else " ".join(self._raw_body(conn, match_id, idx).splitlines())
                for idx, event, _ in rows
            ]
        if info.damaged:
            raise StoreError(info.damaged)
        if public:
            game = self._game(info)
            for idx, event, why in rows:
                if event is None:
                    raise StoreError(f"{_damaged_row(match_id, idx, why)}; a public export "
                                     "needs every event readable (a plain export keeps the "
                                     "damaged line as it is)")
            events = [game.public_event(e) for e in events if isinstance(e, Event)]
        return dump_match_log(
            game=info.game,
            players=info.players,
            options=info.options,
            observer=info.observer or public,
            name=info.name,
            created=info.created,
            public=public,
            events=events,
        )

    def import_jsonl(self, text: str) -> MatchInfo:
        """Store a match from its exported log (verified by replaying it first)."""
        log = parse_match_log(text)
        return self.record_match(
            log.game,
            log.players,
            log.options,
            log.events,
            observer=log.observer,
            name=log.name,
            created=log.created,
            lines=log.lines,
        )


# --------------------------------------------------------------------------------------------
# The JSONL match log format (docs/match-log-format.md)
# --------------------------------------------------------------------------------------------


def dump_match_log(
    *,
    game: str,
    players: Sequence[str],
    options: Mapping[str, Any],
    events: Sequence[Event | str],
    observer: bool = False,
    name: str = "",
    created: str = "",
    public: bool = False,
) -> str:
    """Write a match log: the header line, then one compact event JSON per line (a text, for
    an event row too damaged to read, is written as it is, so that nothing is lost)."""
    header = {
        "format": LOG_FORMAT,
        "version": LOG_FORMAT_VERSION,
        "game": game,
        "players": list(players),
        "options": dict(options),
        "observer": observer,
        "public": public,
        "name": name,
        "created": created,
        "events": len(events),
    }
    lines = [json.dumps(header, sort_keys=True, separators=(",", ":"))]
    lines.extend(e if isinstance(e, str) else e.dumps() for e in events)
    return "\n".join(lines) + "\n"


def parse_match_log(
    text: str,
    *,
    game: str | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    observer: bool | None = None,
) -> MatchLog:
    """Read a match log, raising :class:`StoreError` with the line number of any problem.

    A file without a header line (just events) is accepted when ``game`` and ``players`` are
    given; given values also override the header's.
    """
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    header: dict[str, Any] = {}
    if numbered:
        first_line, first = numbered[0]
        try:
            obj = read_json(first)
        except JSONTextError as exc:
            raise StoreError(
                f"line {first_line}: not valid JSON ({exc}); a match log starts with a "
                f'header line like {{"format": "{LOG_FORMAT}", "version": 1, ...}}'
            ) from None
        if isinstance(obj, dict) and "format" in obj:
            header = _check_header(obj, first_line)
            numbered = numbered[1:]
    if not header and (game is None or players is None):
        raise StoreError(
            f"line 1: a match log must start with a header line "
            f'{{"format": "{LOG_FORMAT}", "version": {LOG_FORMAT_VERSION}, "game": ..., '
            '"players": [...]}; for a file of bare events give the game and the players'
        )
    events: list[Event] = []
    lines: list[int] = []
    for number, line in numbered:
        try:
            events.append(Event.from_json(line))
        except BadEvent as exc:
            raise StoreError(f"line {number}: {exc}") from None
        lines.append(number)
    expected = header.get("events")
    if expected is not None and expected != len(events):
        raise StoreError(
            f"the header says {expected} events but the file holds {len(events)}; the file "
            "may be cut short or edited; fix the header's \"events\" count if the edit was "
            "intended"
        )
    return MatchLog(
        game=game if game is not None else header["game"],
        players=list(players) if players is not None else list(header["players"]),
        options=dict(options) if options is not None else dict(header.get("options", {})),
        observer=observer if observer is not None else bool(header.get("observer", False)),
        name=str(header.get("name", "")),
        created=str(header.get("created", "")),
        public=bool(header.get("public", False)),
        events=events,
        lines=lines,
    )


def _check_header(obj: dict[str, Any], line: int) -> dict[str, Any]:
    if obj.get("format") != LOG_FORMAT:
        raise StoreError(f"line {line}: 'format' must be {LOG_FORMAT!r}, got {obj['format']!r}")
    version = obj.get("version")
    if isinstance(version, bool) or version not in READABLE_LOG_VERSIONS:
        raise StoreError(
            f"line {line}: match log version {version!r} is not supported (this ducktable "
            f"reads versions {', '.join(map(str, READABLE_LOG_VERSIONS))}); upgrade ducktable"
        )
    if not isinstance(obj.get("game"), str):
        raise StoreError(f"line {line}: the header needs \"game\": the game's name, e.g. \"duck\"")
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise StoreError(f"line {line}: the header needs \"players\": a list of names")
    if not isinstance(obj.get("options", {}), dict):
        raise StoreError(f"line {line}: the header's \"options\" must be a JSON object")
    count = obj.get("events")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
        raise StoreError(f"line {line}: the header's \"events\" must be a whole number")
    return obj


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


_INFO_COLUMNS = ("id, game, options, players, observer, name, created, finished, seq, event_count,"
                 " scores, winners")
"""The columns of ``matches`` that :func:`_info` reads, in its order."""


def _info(row: Any) -> MatchInfo:
    mid, game, options, players, observer, name, created, finished, _seq, count, scores, winners = row
    parsed: dict[str, Any] = {}
    damaged = ""
    for field_name, text, kind in (("options", options, dict), ("players", players, list)):
        try:
            value = read_json(text)
        except (TypeError, JSONTextError) as exc:
            value, why = None, str(exc)
        else:
            why = f"a {type(value).__name__}, not a {kind.__name__}"
        if not isinstance(value, kind) or (kind is list and not all(
                isinstance(p, str) for p in value)):
            damaged = damaged or (
                f"match {mid} is damaged in the database: its {field_name} cannot be read "
                f"({why}); the other matches are not affected; restore a backup of the "
                "database to get this one back")
            value = kind()
        parsed[field_name] = value
    return MatchInfo(
        id=int(mid),
        game=game,
        options=parsed["options"],
        players=parsed["players"],
        observer=bool(observer),
        name=name,
        created=created,
        finished=bool(finished),
        event_count=int(count),
        damaged=damaged,
        scores=store_index.read_ints(scores),
        winners=store_index.read_ints(winners),
    )


def _clone(state: State) -> State:
    """A deep copy of ``state`` that shares its history's events and its game.

    Events are frozen values that engines never change, and the game is static, so sharing
    them is safe; copying them made a clone of a finished DUCK match about 10 times slower.
    """
    memo: dict[int, Any] = {id(e): e for e in state.history}
    memo[id(state.game)] = state.game
    return copy.deepcopy(state, memo)


def _match_id(match_id: Any) -> int:
    if isinstance(match_id, bool) or not isinstance(match_id, int | str):
        raise StoreError(f"a match id is a whole number, got {match_id!r}")
    try:
        number = int(match_id)
    except ValueError:
        raise StoreError(f"a match id is a whole number, got {match_id!r}") from None
    if not 0 < number < 2**63:
        raise StoreError(f"no match {match_id!r}: match ids are positive whole numbers")
    return number


def _as_event(event: Event | Mapping[str, Any] | str) -> Event | Verdict:
    """An :class:`Event`, or an illegal verdict saying why the input is not one."""
    if isinstance(event, Event):
        return event
    try:
        return Event.from_json(dict(event) if isinstance(event, Mapping) else event)
    except BadEvent as exc:
        return Verdict.illegal(str(exc))


def _loads_or_text(body: str | None) -> Any:
    if body is None:
        return None
    try:
        return read_json(body)
    except JSONTextError:
        return body


def _now(seconds: bool = False) -> str:
    return datetime.now(UTC).isoformat(timespec="seconds" if seconds else "milliseconds")


def _damaged_row(match_id: int, idx: int, why: str, undo: bool = True) -> str:
    fix = (f"correct it (`ducktable correct {match_id} {idx} EVENT`, or on the phone at "
           f"/match/{match_id}/events/{idx}/correct)")
    if undo:
        fix += ", or undo it if it is the last"
    return (f"event #{idx} of match {match_id} is damaged in the database ({why}); {fix}; "
            f"`ducktable export {match_id}` writes the damaged line as it is")


def _unreadable(path: Path, exc: sqlite3.Error) -> str:
    return (
        f"the match database {path} cannot be read ({exc}); if it is damaged, move it aside "
        "(e.g. rename it to matches.sqlite3.broken) so a new one is created, and restore a "
        "backup or re-import exported match logs"
    )


def _unopenable(path: Path, exc: sqlite3.Error) -> str:
    """Why a database could not be opened: a full or failing card, a folder or file this user
    may not write (SQLite writes its journal beside the file even to read), else damage."""
    fault = _card_fault(exc, path)
    if fault:
        return fault
    for place in (path.parent, path):
        if place.exists() and not os.access(place, os.W_OK):
            kind = "folder" if place.is_dir() else "file"
            return (
                f"the match database {path} cannot be opened ({exc}): this user may not write "
                f"to the {kind} {place}; the data is not damaged. Run ducktable as the user "
                "who owns it, or make it writable (e.g. chown or chmod u+w)"
            )
    return _unreadable(path, exc)


def _card_fault(exc: sqlite3.Error, path: Path | None = None) -> str:
    """What a full, read-only or failing disk (the Pi's SD card) did, in words; "" when
    ``exc`` is none of these."""
    text = str(exc).lower()
    where = f"the match database {path}" if path is not None else "the match database"
    if "full" in text:
        return (f"the disk (SD card) holding {where} is full ({exc}); free some space (delete "
                "old exports, logs or videos), then try again; nothing was recorded")
    if "readonly" in text or "read-only" in text:
        return (f"{where} is on a read-only file system or is a read-only file ({exc}); an SD "
                "card that develops faults often turns read-only: copy the data off now "
                "(`ducktable backup FILE` onto another disk) and replace the card, or remount "
                "it read-write; nothing was recorded")
    if "i/o error" in text:
        return (f"the disk (SD card) holding {where} reported an I/O error ({exc}); the card "
                "may be failing: make a backup now (`ducktable backup FILE` onto another "
                "disk) and replace the card; nothing was recorded")
    return ""


def _with_cause(exc: sqlite3.Error, path: Path) -> sqlite3.Error:
    """``exc``, or when SQLite only says it could not open or write a file, the state of the
    file system that explains it (mounted read-only, or no free space left)."""
    if _card_fault(exc):
        return exc
    try:
        fs = os.statvfs(path.parent)
    except OSError:
        return exc
    if fs.f_flag & os.ST_RDONLY:
        return sqlite3.OperationalError(f"{exc}: the file system is mounted read-only")
    if fs.f_bfree == 0 or (fs.f_bavail == 0 and os.geteuid() != 0):
        return sqlite3.OperationalError(f"{exc}: the disk is full")
    return exc


def _make_private(path: Path, create: bool = True) -> None:
    """Create ``path`` empty with mode 0600 (SQLite gives its -wal and -shm files the mode of
    the database), or take group and other access from an existing file of this user."""
    with suppress(OSError):
        if create and not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        elif path.exists() and path.stat().st_uid == os.getuid() \
                and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)


def _unwritable(path: Path, exc: sqlite3.Error) -> str:
    fault = _card_fault(exc, path)
    if fault:
        return fault
    return (
        f"could not write to the match database {path} ({exc}); check that the disk has free "
        "space, the file is writable and no other program holds it locked; nothing was recorded"
    )

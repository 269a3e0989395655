"""SD-card faults, damaged rows, backups and file modes of the match store.

A Pi's SD card fills up, turns read-only or starts giving I/O errors; the store must say which
of these happened (not "damaged", not a chmod problem, not "there is no match") and keep
reading. The faults are injected through the store's connection class.
"""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.store import MIGRATIONS, MatchStore, NoSuchMatch, StoreError, parse_match_log

from tests.device.test_store import add, deal, register_tally
from tests.device.test_store_index import schema_1_database

FULL = "database or disk is full"
READ_ONLY = "attempt to write a readonly database"
IO = "disk I/O error"
WRITES = ("BEGIN", "INSERT", "UPDATE", "DELETE", "CREATE", "PRAGMA JOURNAL_MODE")


class Faulty(sqlite3.Connection):
    """A connection whose writes (and, when asked, reads) fail with ``fail``."""

    fail: str | None = None
    fail_reads = False

    def _check(self, sql: str) -> None:
        head = sql.lstrip().upper()
        in_memory = head.startswith("CREATE TEMP") or " TEMP." in head  # never on the card
        if Faulty.fail and (Faulty.fail_reads or (head.startswith(WRITES) and not in_memory)):
            raise sqlite3.OperationalError(Faulty.fail)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().executemany(sql, *args)


@pytest.fixture(autouse=True)
def _faulty(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    register_tally(monkeypatch)
    monkeypatch.setattr(MatchStore, "connection_factory", Faulty)
    Faulty.fail, Faulty.fail_reads = None, False
    yield
    Faulty.fail, Faulty.fail_reads = None, False


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "matches.sqlite3"
    with MatchStore(path) as s:
        m = s.create_match("tally", ["a", "b"])
        s.submit(m.id, deal())
        s.submit(m.id, add(0))
    return path


WRONG_WORDS = ("move it aside", "chmod", "chown", "There is no match", "there is no match")


def _says(exc: pytest.ExceptionInfo[StoreError], *words: str) -> None:
    text = str(exc.value)
    for word in words:
        assert word in text, text
    for wrong in WRONG_WORDS:
        assert wrong not in text, text


@pytest.mark.parametrize(("fault", "words"), [(FULL, ("is full", "free some space")),
                                               (READ_ONLY, ("read-only",)),
                                               (IO, ("I/O error", "backup"))])
def test_a_card_fault_at_start_opens_for_reading_and_says_what_is_wrong(
        db: Path, fault: str, words: tuple[str, ...]) -> None:
    Faulty.fail = fault
    with MatchStore(db) as s:
        assert any(w in s.read_only for w in words), s.read_only
        assert [m.id for m in s.list_matches()] == [1]
        assert s.state(1).history == [deal(), add(0)]
        assert len(parse_match_log(s.export_jsonl(1)).events) == 2
        with pytest.raises(StoreError) as caught:
            s.submit(1, add(1))
        _says(caught, *words)
        assert "nothing was recorded" in str(caught.value)
    Faulty.fail = None
    with MatchStore(db) as s:
        assert s.read_only == ""
        assert len(s.events(1)) == 2


@pytest.mark.parametrize(("fault", "words"), [(FULL, ("is full", "free some space")),
                                               (READ_ONLY, ("read-only",)),
                                               (IO, ("I/O error", "backup"))])
def test_a_card_fault_while_running_says_what_is_wrong_and_keeps_reading(
        db: Path, fault: str, words: tuple[str, ...]) -> None:
    with MatchStore(db) as s:
        Faulty.fail = fault
        for write in (lambda: s.submit(1, add(1)), lambda: s.undo(1),
                      lambda: s.correct(1, 1, add(0, "tally-2")),
                      lambda: s.create_match("tally", ["c", "d"])):
            with pytest.raises(StoreError) as caught:
                write()
            _says(caught, *words)
        assert s.state(1).history == [deal(), add(0)]
        assert len(parse_match_log(s.export_jsonl(1)).events) == 2
        Faulty.fail = None
        assert s.submit(1, add(1)).ok


def test_an_io_error_on_reading_is_not_called_a_missing_match(db: Path) -> None:
    with MatchStore(db) as s:
        Faulty.fail, Faulty.fail_reads = IO, True
        with pytest.raises(StoreError) as caught:
            s.match(1)
        assert not isinstance(caught.value, NoSuchMatch)
        _says(caught, "I/O error")
        Faulty.fail = None
        with pytest.raises(NoSuchMatch):
            s.match(99)


# -- damaged event rows -------------------------------------------------------------------------


def _damage(db: Path, idx: int, body: str = "{broken") -> None:
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET body = ? WHERE idx = ?", (body, idx))


def test_a_damaged_row_in_the_middle_is_exported_and_can_be_corrected(db: Path) -> None:
    with MatchStore(db) as s:
        s.submit(1, add(1))
    _damage(db, 1)
    with MatchStore(db) as s:
        with pytest.raises(StoreError, match="event #1 of match 1 is damaged.*correct"):
            s.state(1)
        text = s.export_jsonl(1)
        assert text.splitlines()[2] == "{broken"  # kept as it is, for the user to repair
        with pytest.raises(StoreError, match="event #1 .* damaged"):
            s.undo(1)  # would remove the healthy last event, not the damaged one
        assert len(s.audit(1)) == 4 and s.match(1).event_count == 3
        verdict = s.correct(1, 1, add(0), "retyped")
        assert verdict.ok, verdict
        assert s.state(1).history == [deal(), add(0), add(1)]
        assert s.audit(1)[-1]["previous"] == "{broken"


def test_a_damaged_last_row_can_still_be_undone(db: Path) -> None:
    _damage(db, 1)
    with MatchStore(db) as s:
        assert s.undo(1, "damaged row") is None
        assert s.state(1).history == [deal()]


# -- backup, restore, file modes ----------------------------------------------------------------


def test_backup_holds_the_events_still_in_the_wal(db: Path, tmp_path: Path) -> None:
    with MatchStore(db) as s:
        for _ in range(5):
            s.submit(1, add(1 - len(s.events(1)) % 2))
        wanted = len(s.events(1))
        copy = tmp_path / "backup.sqlite3"
        s.backup(copy)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    raw = sqlite3.connect(copy)
    try:
        assert raw.execute("SELECT COUNT(*) FROM events").fetchone()[0] == wanted
    finally:
        raw.close()


def test_restore_brings_back_a_backup_and_keeps_the_replaced_data(db: Path,
                                                                 tmp_path: Path) -> None:
    copy = tmp_path / "backup.sqlite3"
    with MatchStore(db) as s:
        s.backup(copy)
        s.submit(1, add(1))
        kept = s.restore(copy)
        assert len(s.events(1)) == 2
        assert kept.exists()
    with MatchStore(kept) as old:
        assert len(old.events(1)) == 3


def test_restore_refuses_a_file_that_is_no_backup(db: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database " * 100)
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.close()
    with MatchStore(db) as s:
        for bad, why in ((junk, "not a ducktable match database"),
                         (other, "not a ducktable match database"),
                         (tmp_path / "missing.sqlite3", "does not exist")):
            with pytest.raises(StoreError, match=why):
                s.restore(bad)
        assert len(s.events(1)) == 2


def test_the_database_and_its_wal_files_are_private(tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite3"
    with MatchStore(path) as s:
        s.create_match("tally", ["a", "b"])
        for suffix in ("", "-wal", "-shm"):
            made = Path(f"{path}{suffix}")
            assert made.exists()
            assert stat.S_IMODE(made.stat().st_mode) == 0o600, suffix


def test_the_cli_shows_and_exports_from_a_full_card_and_says_why_it_cannot_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.device import cli, paths

    data = tmp_path / "data"
    data.mkdir()
    with MatchStore(paths.database_path(data)) as s:
        m = s.create_match("tally", ["a", "b"])
        s.submit(m.id, deal())
    Faulty.fail = FULL
    assert cli.main(["--data-dir", str(data), "show", "1"]) == 0
    out, err = capsys.readouterr()
    assert "is full" in err and "a" in out
    assert cli.main(["--data-dir", str(data), "export", "1"]) == 0
    out, err = capsys.readouterr()
    assert len(parse_match_log(out).events) == 1
    assert cli.main(["--data-dir", str(data), "undo", "1"]) == 2
    out, err = capsys.readouterr()
    assert "is full" in err and "nothing was recorded" in err and "move it aside" not in err
    assert "Traceback" not in err


def test_a_read_only_mount_is_named_not_called_a_permission_problem(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite only says "unable to open database file" there; the mount flag says why."""
    import os

    from ducktable.device import store as store_module

    real = os.statvfs(db.parent)

    class ReadOnlyMount:
        f_flag = real.f_flag | os.ST_RDONLY
        f_bavail = real.f_bavail
        f_bfree = real.f_bfree

    monkeypatch.setattr(store_module.os, "statvfs", lambda path: ReadOnlyMount())
    monkeypatch.setattr(store_module.os, "access", lambda path, mode: False)
    Faulty.fail = "unable to open database file"
    with MatchStore(db) as s:
        assert "read-only" in s.read_only and "chmod" not in s.read_only
        assert len(s.events(1)) == 2


def test_an_older_database_on_a_full_card_is_still_shown_exported_and_backed_up(
        db: Path, tmp_path: Path) -> None:
    """An older schema on a card that takes no writes is read as it is; the file stays as it
    was and a backup copies it, to be upgraded where it can be written."""
    with MatchStore(db) as s:
        events = s.events(1)
    raw = sqlite3.connect(db)  # the same match, in a schema-1 file
    raw.executescript("DROP TABLE matches; DROP TABLE events; DROP TABLE audit;"
                      " DROP TABLE entry_keys;")
    MIGRATIONS[0](raw)
    raw.execute("INSERT INTO matches (game, options, players, observer, created, seq) VALUES"
                " ('tally', '{}', '[\"a\", \"b\"]', 0, '2026-01-01', 2)")
    raw.executemany("INSERT INTO events VALUES (1, ?, ?)", [(i, e.dumps()) for i, e in enumerate(events)])
    raw.execute("PRAGMA user_version=1")
    raw.commit()
    raw.close()
    Faulty.fail = FULL
    with MatchStore(db) as s:
        assert "is full" in s.read_only
        assert [m.event_count for m in s.list_matches()] == [2]
        assert s.events(1) == events
        assert len(parse_match_log(s.export_jsonl(1)).events) == 2
        with pytest.raises(StoreError, match="is full"):
            s.submit(1, add(1))
        copy = s.backup(tmp_path / "copy.sqlite3")
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA user_version").fetchone()[0] == 1  # the file untouched
    check.close()
    Faulty.fail = None
    with MatchStore(copy) as s:
        assert s.events(1) == events


def test_a_schema_1_database_on_a_read_only_card_is_read_without_being_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An old file that cannot be upgraded (the card is read-only) is still shown, listed,
    exported, backed up and on the scoreboard and history pages; the file stays as it was."""
    import hashlib

    from ducktable.device import cli, paths
    from ducktable.web import create_app

    data = tmp_path / "data"
    data.mkdir()
    path = paths.database_path(data)
    events, scores = schema_1_database(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    path.chmod(0o444)
    Faulty.fail = READ_ONLY  # what the card answers to every write, whoever runs this
    with MatchStore(path) as s:
        assert "read-only" in s.read_only
        listed = s.list_matches()
        assert [m.id for m in listed] == [1] and listed[0].event_count == len(events)
        assert s.newest_match() == listed[0]
        assert s.summary(1).scores == scores and s.state(1).history == events
        assert len(parse_match_log(s.export_jsonl(1)).events) == len(events)
        totals = {name: points for _, name, _, _, _, points in s.player_totals()}
        assert totals == dict(zip(["Ann", "Ben", "Cat"], scores, strict=True))
        assert s.entry_answer("k" * 32) is None
        with pytest.raises(StoreError, match="nothing was recorded"):
            s.submit(1, events[-1])
        copy = s.backup(tmp_path / "copy.sqlite3")
        client = create_app({"TESTING": True, "STORE": s, "TABLE_PIN": "4821",
                             "SECRET_KEY": "k" * 40, "INSTANCE_PATH": str(tmp_path),
                             "PIN_FILE": str(tmp_path / "pin")}).test_client()
        board = client.get("/match/1")
        assert board.status_code == 200 and all(n in board.text for n in ("Ann", "Ben", "Cat"))
        history = client.get("/history")
        assert history.status_code == 200 and "Ann" in history.text
        exported = client.get("/match/1/export.jsonl")
        assert exported.status_code == 200
        assert len(parse_match_log(exported.text).events) == len(events)
    for command in (["show"], ["show", "1"], ["export", "1"],
                    ["backup", str(tmp_path / "cli-copy.sqlite3")]):
        assert cli.main(["--data-dir", str(data), *command]) == 0, command
        out, err = capsys.readouterr()
        assert "read-only" in err and "Traceback" not in err
        if command[0] == "show":
            assert "Ann" in out and "Traceback" not in out
        if command[0] == "export":
            assert len(parse_match_log(out).events) == len(events)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    Faulty.fail = None
    path.chmod(0o644)
    with MatchStore(copy) as s:  # the backup holds every event, and upgrades like the original
        assert s.events(1) == events and s.summary(1).scores == scores

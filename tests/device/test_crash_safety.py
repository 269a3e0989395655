"""Crash safety of the match store: a writer killed with SIGKILL loses no acknowledged event.

A child process appends events and prints each acknowledged index (flushing stdout) right after
``submit`` returns; the test kills it mid-stream, reads every index it had printed, reopens the
database and checks that each of those events is there, in order, and that the log replays.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from ducktable.device.store import MatchStore
from ducktable.rules import registry
from ducktable.rules.core import Event, replay

from tests.device.test_store import deal, duck_match_events, fingerprint, register_tally

ROOT = Path(__file__).resolve().parents[2]  # the repository: child imports tests.device
GIVE_UP_S = 120  # only a safety net so a broken child cannot hang the suite

TALLY_WRITER = """
import sys
sys.path.insert(0, {root!r})
from tests.device import test_store
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
test_store.register_tally()
store = MatchStore(sys.argv[1])
match_id = int(sys.argv[2])
i = 0
while True:
    verdict = store.submit(match_id, Event("bonus", i % 2, {{"n": i}}))
    if not verdict.ok:
        sys.exit(f"refused: {{verdict}}")
    print(i, flush=True)
    i += 1
"""

DUCK_WRITER = """
import sys
import time
sys.path.insert(0, {root!r})
from tests.device import test_store
from ducktable.device.store import MatchStore
store = MatchStore(sys.argv[1])
match_id = int(sys.argv[2])
events, _ = test_store.duck_match_events(seed=int(sys.argv[3]))
for i, event in enumerate(events):
    verdict = store.submit(match_id, event)
    if not verdict.ok:
        sys.exit(f"refused: {{verdict}}")
    print(i, flush=True)
time.sleep(600)  # finished early (a slow parent): wait to be killed all the same
"""

IMPORT_WRITER = """
import sys
sys.path.insert(0, {root!r})
from tests.device import test_store
from ducktable.device.store import MatchStore
test_store.register_tally()
store = MatchStore(sys.argv[1])
text = open(sys.argv[2]).read()
while True:
    print(store.import_jsonl(text).id, flush=True)
"""


def run_and_kill(code: str, args: list[str], kill_after: int) -> list[int]:
    """Run ``code`` in a child, SIGKILL it after ``kill_after`` printed lines; every line."""
    child = subprocess.Popen(
        [sys.executable, "-c", code.format(root=str(ROOT)), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    safety = threading.Timer(GIVE_UP_S, child.kill)
    safety.start()
    try:
        assert child.stdout is not None
        acknowledged: list[int] = []
        while len(acknowledged) < kill_after:
            line = child.stdout.readline()
            if not line:
                pytest.fail(f"the writer stopped early: {child.stderr.read() if child.stderr else ''}")
            acknowledged.append(int(line))
        os.kill(child.pid, signal.SIGKILL)
        # read on from the same buffered file: ``communicate`` reads the pipe itself and would
        # miss lines ``readline`` had already buffered (a busy machine: several at once)
        rest = child.stdout.read()
        child.wait()
        child.stdout.close()
        if child.stderr is not None:
            child.stderr.close()
    finally:
        safety.cancel()
    assert child.returncode == -signal.SIGKILL
    acknowledged += [int(line) for line in rest.splitlines() if line.strip()]
    return acknowledged


@pytest.mark.parametrize("kill_after", [1, 37, 150])
def test_sigkill_while_appending_loses_no_acknowledged_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill_after: int
) -> None:
    register_tally(monkeypatch)
    db = tmp_path / "matches.sqlite3"
    with MatchStore(db) as s:
        m = s.create_match("tally", ["a", "b"], {"target": 10**9})
        assert s.submit(m.id, deal()).ok
    acknowledged = run_and_kill(TALLY_WRITER, [str(db), str(m.id)], kill_after)
    assert acknowledged == list(range(len(acknowledged)))
    with MatchStore(db) as s:
        events = s.events(m.id)
        stored = [e.data["n"] for e in events[1:]]
        # every acknowledged event is there; at most the one in flight may follow it
        assert stored[: len(acknowledged)] == acknowledged
        assert len(stored) - len(acknowledged) in (0, 1)
        state = s.state(m.id)
        assert fingerprint(state) == fingerprint(
            replay(registry.make_game("tally", {"target": 10**9}), ["a", "b"], events)
        )
        assert s.seq(m.id) == len(events)
        submits = [e for e in s.audit(m.id) if e["action"] == "submit"]
        assert len(submits) == len(events)
        assert s.submit(m.id, Event("bonus", 0, {"n": -1})).ok  # the log takes new events


def test_duck_sigkill_mid_match_then_finish_the_match_F1(tmp_path: Path) -> None:
    """Killed in round 1 or 2 of a DUCK match; after reopening, play goes on to the same end."""
    db = tmp_path / "matches.sqlite3"
    seed = 4
    events, final = duck_match_events(seed=seed)
    with MatchStore(db) as s:
        m = s.create_match("duck", ["p0", "p1", "p2", "p3"])
    acknowledged = run_and_kill(DUCK_WRITER, [str(db), str(m.id), str(seed)], kill_after=60)
    with MatchStore(db) as s:
        stored = s.events(m.id)
        assert stored[: len(acknowledged)] == events[: len(acknowledged)]
        assert stored == events[: len(stored)]
        assert len(stored) - len(acknowledged) in (0, 1)
        assert fingerprint(s.state(m.id)) == fingerprint(
            replay(registry.make_game("duck"), ["p0", "p1", "p2", "p3"], stored)
        )
        for event in events[len(stored):]:
            assert s.submit(m.id, event).ok
        assert fingerprint(s.state(m.id)) == fingerprint(final)
        assert s.match(m.id).finished


def test_sigkill_during_imports_leaves_only_whole_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import is one transaction: a killed import leaves nothing half-stored."""
    register_tally(monkeypatch)
    db = tmp_path / "matches.sqlite3"
    log = tmp_path / "log.jsonl"
    with MatchStore(db) as s:
        m = s.create_match("tally", ["a", "b"], {"target": 10**9})
        s.submit(m.id, deal())
        for n in range(200):
            s.submit(m.id, Event("bonus", n % 2, {"n": n}))
        log.write_text(s.export_jsonl(m.id))
    imported = run_and_kill(IMPORT_WRITER, [str(db), str(log)], kill_after=3)
    with MatchStore(db) as s:
        matches = {info.id: info for info in s.list_matches()}
        assert set(imported) <= set(matches)
        assert all(info.event_count == 201 for info in matches.values())
        assert len(matches) - 1 - len(imported) in (0, 1)

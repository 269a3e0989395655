"""The run loop's camera half (device/runloop.py) records a mend the camera made by itself, a
misread it saw the truth of later, as a correction of the store's log before the frame's events."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.runloop import CameraProducer, TableLink
from ducktable.device.store import MatchStore
from ducktable.rules import make_game
from ducktable.rules.core import Event
from ducktable.rules.misread import Mend, find_mends, relabel
from ducktable.sim import table_video


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(tmp_path / "matches.sqlite3")
    yield s
    s.close()


class OneFrame:
    def __init__(self) -> None:
        self.left = 1

    def read(self) -> Any:
        self.left -= 1
        return None if self.left < 0 else "frame"

    def __enter__(self) -> OneFrame:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class MendingReader:
    """A table reader that mended event 12 (read blue-8, the table showed blue-7 plainly since)
    and then applied the event the rules had refused before."""

    def __init__(self, mend: Mend, then: Event) -> None:
        self.mends, self.then = [mend], then
        self.pending = self.problem = None

    def take_mends(self) -> list[Mend]:
        taken, self.mends = self.mends, []
        return taken

    def events(self, state: Any, frame: Any) -> list[Event]:
        return [self.then]


def test_a_mend_the_camera_made_is_recorded_as_a_correction_before_the_frames_events(store: MatchStore) -> None:
    game = table_video.bot_game("duck", 0, 3)
    g = make_game("duck", game.options)
    truth = [replace(g.public_event(e), source="camera") for e in game.events]
    info = store.create_match("duck", list(game.players), dict(game.options), observer=True)
    for k, event in enumerate(truth[:13]):
        assert store.submit(info.id, relabel(event, "blue-7", "blue-8") if k == 11 else event).ok
    state = store.state(info.id)
    (mend,) = [m for m in find_mends(state, truth[13], reason=state.check(truth[13]).reason, seen=["blue-7"])
               if m.now == "blue-7"]
    CameraProducer(OneFrame, MendingReader(mend, truth[13])).run(TableLink(store, threading.Event()))
    assert [e.content_key() for e in store.events(info.id)] == [e.content_key() for e in truth[:14]]
    (corrected,) = [a for a in store.audit(info.id) if a["action"] == "correct"]
    assert corrected["index"] == 11 and "mended its own misread" in corrected["reason"]
    assert corrected["previous"]["data"]["cards"] == ["blue-8"]

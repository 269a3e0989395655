"""The camera's table reader (vision/reader.py): rendered frames of a DUCK bot game in, the true
events out; in step with a store that people change by hand; problems said, never raised.

The frames come from the synthetic table (vision/table_video.py) calibrated from its markers,
read by the shipped classifier. Each test reads at most a few dozen frames.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.rules import make_game
from ducktable.rules.core import Event, State
from ducktable.sim import table_video
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import duck_layout
from ducktable.vision.reader import (
    CameraTableReader,
    calibration_path,
    empty_table_path,
    make_table_reader,
    reading_view,
)
from ducktable.vision.store_sync import event_key

SEED = 7  # a game whose deal, first play and first draw the shipped model reads right
PLAYERS = 3


@dataclass
class Video:
    """A rendered bot game: its true public events, the frames' truth and the frames."""

    truth: list[Event]
    shots: list[table_video.Shot]
    renderer: table_video.TableRenderer

    def frame(self, index: int) -> np.ndarray:
        return _frame(index)

    def first_frame_of_event(self, k: int) -> int:
        """The first frame at which ``k`` true events have happened."""
        return next(i for i, shot in enumerate(self.shots) if shot.event_index >= k)


@cache
def video() -> Video:
    game = table_video.bot_game("duck", SEED, PLAYERS)
    g = make_game("duck")
    renderer = table_video.TableRenderer("duck", duck_layout(PLAYERS), background_seed=SEED)
    return Video([g.public_event(e) for e in game.events], table_video.script_for(game, SEED), renderer)


@cache
def _frame(index: int) -> np.ndarray:
    v = video()
    return v.renderer.frame(v.shots[index], index)


@cache
def classifier() -> object:
    from ducktable.vision.classify import CardClassifier

    return CardClassifier.load(threads=1)


def calibrate(data_dir: Path, *, empty_picture: bool = True) -> Path:
    """What ``ducktable calibrate`` keeps: the layout with the camera's view (and, optionally,
    the picture of the empty table beside it)."""
    empty = video().renderer.empty_table()
    path = calibration_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    calibrate_from_markers(duck_layout(PLAYERS), empty).layout.save(path)
    if empty_picture:
        cv2.imwrite(str(empty_table_path(path)), empty)
    return path


def new_reader(data_dir: Path, *, recheck_s: float = 2.0, drift_every: int = 30) -> CameraTableReader:
    return CameraTableReader(calibration_path(data_dir), classifier=classifier(), recheck_s=recheck_s,
                             drift_every=drift_every)


class Store:
    """Stands in for the match store: the state is the replay of the log, events are checked."""

    def __init__(self) -> None:
        self.log: list[Event] = []

    def state(self) -> State:
        state = make_game("duck").new_state(("P1", "P2", "P3"), observer=True)
        for event in self.log:
            state.apply_or_raise(event)
        return state

    def submit(self, event: Event) -> bool:
        state = self.state()
        if not state.check(event).ok:
            return False
        self.log.append(event)
        return True


def run(reader: CameraTableReader, store: Store, frames: range) -> Iterator[tuple[int, list[Event]]]:
    """Feed frames as the run loop does: the store's state, then record what comes back."""
    for index in frames:
        events = reader.events(store.state(), video().frame(index))
        for event in events:
            assert store.submit(event), f"the store refused the camera's {event.dumps()}"
        yield index, events


def same(a: Event, b: Event) -> bool:
    return event_key(a) == event_key(b)


def test_DUCK_A1_B1_camera_reads_the_first_true_events_of_a_rendered_game(tmp_path: Path) -> None:
    calibrate(tmp_path)
    v = video()
    reader = new_reader(tmp_path)
    store = Store()
    last = v.first_frame_of_event(3) + 12
    applied = [e for _, events in run(reader, store, range(last)) for e in events]
    assert [e.type for e in applied] == ["deal", "play", "draw"]
    assert all(same(a, t) for a, t in zip(applied, v.truth, strict=False))
    assert all(e.source == "camera" and e.ts is not None for e in applied)
    assert reader.problem is None and reader.skipped == 0


def test_DUCK_a_camera_giving_more_pixels_is_read_at_the_calibrated_size_with_cards_cut_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pi camera at 1920 x 1080 on a table calibrated at 1280 x 720: the reader works on the
    view at 1280 x 720 (zones, hands, the moved-camera check) and the detector cuts the cards
    from the full picture; the same true events come out."""
    from ducktable.vision import detect

    calibrate(tmp_path)
    sizes: list[tuple[tuple[int, ...], tuple[int, ...] | None]] = []
    search = detect.detect_cards

    def spy(frame: np.ndarray, **options: object) -> list[detect.Detection]:
        detail = options.get("detail")
        sizes.append((frame.shape, None if detail is None else np.asarray(detail).shape))
        return search(frame, **options)

    monkeypatch.setattr(detect, "detect_cards", spy)
    v = video()
    reader = new_reader(tmp_path)
    store = Store()
    applied = []
    for index in range(v.first_frame_of_event(3) + 12):
        big = cv2.resize(v.frame(index), (1920, 1080), interpolation=cv2.INTER_CUBIC)
        for event in reader.events(store.state(), big):
            assert store.submit(event)
            applied.append(event)
    assert [e.type for e in applied] == ["deal", "play", "draw"]
    assert all(same(a, t) for a, t in zip(applied, v.truth, strict=False))
    assert reader.problem is None and reader.skipped == 0
    assert sizes and set(sizes) == {((720, 1280, 3), (1080, 1920, 3))}


def test_reading_view_scales_a_large_picture_down_and_keeps_it_for_the_crops() -> None:
    small = np.zeros((720, 1280, 3), np.uint8)
    assert reading_view(small) == (small, None)
    view, detail = reading_view(np.zeros((1080, 1920, 3), np.uint8))
    assert view.shape == (720, 1280, 3) and detail is not None and detail.shape == (1080, 1920, 3)
    view, detail = reading_view(np.zeros((2592, 4608), np.uint8))
    assert view.shape == (720, 1280) and detail is not None
    # at the size the table was calibrated at: whole when that is the picture's own size
    big = np.zeros((1080, 1920, 3), np.uint8)
    assert reading_view(big, (1920, 1080)) == (big, None)
    view, detail = reading_view(big, (1280, 720))
    assert view.shape == (720, 1280, 3) and detail is big
    assert reading_view(big, (1280, 960))[1] is None  # another shape: left for the reader to report


def test_DUCK_follower_resyncs_to_an_event_entered_by_hand_and_does_not_apply_it_again(
        tmp_path: Path) -> None:
    """The phone records the first play before the camera has seen it settle: the camera takes
    the store's word, never submits that play itself, and goes on with the draw."""
    calibrate(tmp_path)
    v = video()
    reader = new_reader(tmp_path)
    store = Store()
    play_starts = v.first_frame_of_event(2)
    seen = [e for _, events in run(reader, store, range(play_starts)) for e in events]
    assert [e.type for e in seen] == ["deal"]
    assert store.submit(Event(v.truth[1].type, v.truth[1].seat, v.truth[1].data, 1, "manual"))
    later = [e for _, events in run(reader, store, range(play_starts, v.first_frame_of_event(3) + 12))
             for e in events]
    assert [e.type for e in later] == ["draw"] and same(later[0], v.truth[2])
    assert [e.source for e in store.log] == ["camera", "manual", "camera"]


def test_DUCK_an_undone_camera_event_is_not_applied_again_but_suggested(tmp_path: Path) -> None:
    """A person undoes the deal the camera recorded; the table still shows it. The camera must
    not fight the undo: it holds the deal as a suggestion for a person instead."""
    calibrate(tmp_path)
    v = video()
    reader = new_reader(tmp_path)
    store = Store()
    frames = iter(run(reader, store, range(v.first_frame_of_event(2))))
    for _, events in frames:
        if events:
            break
    assert [e.type for e in store.log] == ["deal"]
    store.log.pop()  # undone on the phone
    again = [e for _, events in frames for e in events]
    assert again == [] and store.log == []
    assert reader.pending is not None and same(reader.pending.event, v.truth[0])
    assert "took this event back" in reader.pending.why


class Unsure:
    """A classifier that names every card the dealer's start card, but with little confidence."""

    def __init__(self, label: str) -> None:
        self.label = label

    def classify(self, crops: list[np.ndarray]) -> list[object]:
        @dataclass
        class Result:
            label: str
            confidence: float

        return [Result(self.label, 0.3) for _ in crops]


def test_an_unsure_read_is_pending_with_its_reason_and_a_rejection_is_not_suggested_again(
        tmp_path: Path) -> None:
    calibrate(tmp_path)
    v = video()
    start_card = v.truth[0].data["face_up"][0]
    reader = CameraTableReader(calibration_path(tmp_path), classifier=Unsure(f"duck/{start_card}"))
    store = Store()
    deal_frames = range(v.first_frame_of_event(1), v.first_frame_of_event(2))
    frames = iter(run(reader, store, deal_frames))
    for _, events in frames:
        assert events == []  # never applied silently
        if reader.pending is not None:
            break
    assert reader.pending is not None and reader.pending.event.type == "deal"
    assert "low confidence" in reader.pending.why
    reader.reject(reader.pending.event)
    assert reader.pending is None
    for _, events in frames:
        assert events == [] and reader.pending is None
    assert store.log == []


def test_missing_calibration_says_to_calibrate_and_is_picked_up_once_written(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    reader = new_reader(tmp_path, recheck_s=0.0)
    store = Store()
    with caplog.at_level(logging.WARNING):
        assert reader.events(store.state(), video().frame(0)) == []
    assert reader.problem is not None and "ducktable calibrate" in reader.problem
    assert "ducktable calibrate" in caplog.text
    calibrate(tmp_path, empty_picture=False)  # the first frame stands in for the empty table
    for index in range(3):
        reader.events(store.state(), video().frame(index))
    assert reader.problem is None


def test_a_moved_camera_stops_reading_and_says_to_recalibrate_until_it_is_back(tmp_path: Path) -> None:
    calibrate(tmp_path)
    reader = new_reader(tmp_path, drift_every=1)
    store = Store()
    v = video()
    assert reader.events(store.state(), v.frame(0)) == []
    assert reader.problem is None
    moved = cv2.warpAffine(v.frame(1), np.array([[1, 0, 40], [0, 1, 25]], np.float32), (1280, 720))
    assert reader.events(store.state(), moved) == []
    assert reader.problem is not None and "moved" in reader.problem
    assert "ducktable calibrate" in reader.problem
    reader.events(store.state(), v.frame(2))
    assert reader.problem is None


@pytest.mark.parametrize("garbage", [
    None, "frame", b"\x00" * 100, np.zeros((10, 10, 3), np.uint8), np.zeros((720, 1280, 3), np.float32),
    np.zeros((720, 1280, 5), np.uint8), np.zeros((0, 0, 3), np.uint8), np.full((720, 1280), np.nan),
], ids=["none", "text", "bytes", "tiny", "float", "five-channels", "empty", "nan"])
def test_garbage_frames_are_skipped_with_a_log_line(tmp_path: Path, garbage: object,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    calibrate(tmp_path)
    reader = new_reader(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert reader.events(Store().state(), garbage) == []
    assert reader.skipped == 1 and "skipped frame" in caplog.text


def test_odd_but_usable_pictures_are_read_and_noise_applies_nothing(tmp_path: Path) -> None:
    """Grey or BGRA pictures are converted; random noise of the right size is read as a table
    with nothing on it and a hand everywhere, and gives no event."""
    calibrate(tmp_path)
    reader = new_reader(tmp_path)
    state = Store().state()
    rng = np.random.default_rng(0)
    grey = cv2.cvtColor(video().frame(0), cv2.COLOR_BGR2GRAY)
    bgra = cv2.cvtColor(video().frame(1), cv2.COLOR_BGR2BGRA)
    noise = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    for picture in (grey, bgra, noise, noise):
        assert reader.events(state, picture) == []
    assert reader.skipped == 0


def test_make_table_reader_reads_the_settings_it_is_given(tmp_path: Path) -> None:
    @dataclass
    class Settings:
        table: str = "kitchen"
        model: str = ""
        drift_every: int = 7

    reader = make_table_reader(Settings(), tmp_path)
    assert reader.layout_path == tmp_path / "calibration" / "kitchen.json"
    assert reader.drift_every == 7 and reader.model is None
    assert reader.decks_dir == tmp_path / "decks"


def test_SIT_the_sitting_ducks_line_is_read_by_the_board_reader_into_true_events(tmp_path: Path) -> None:
    """The board path: a Sitting Ducks line photographed by a tilted camera (hands, light,
    noise), calibrated from its markers; the reader picks the line reader for the game."""
    import zlib

    from ducktable.sim import board_games, board_pictures
    from ducktable.vision import boards

    seed = 3
    true = board_games.bot_game("sitting", seed)
    shots = board_games.script_for(true, seed)
    rng = np.random.default_rng([seed, 0xCA3E])
    homography = board_pictures.random_view(rng)
    line = boards.LineBoard()
    layout = line.layout()

    def photo(index: int) -> np.ndarray:
        shot = shots[index]
        content = board_pictures.LineContent.from_zones(shot.contents())
        plane_rng = np.random.default_rng([seed, zlib.crc32(repr(content).encode())])
        plane = board_pictures.draw_line(content, line, plane_rng)
        hands = [layout.zone(z).centre for z in sorted(shot.covered) if z.startswith("line.")]
        return board_pictures.photograph(plane, homography, np.random.default_rng([seed, index]), hands=hands)[0]

    path = calibration_path(tmp_path)
    path.parent.mkdir(parents=True)
    first = photo(0)
    calibrate_from_markers(layout, first).layout.save(path)
    cv2.imwrite(str(empty_table_path(path)), first)
    g = make_game("sitting")
    truth = [g.public_event(e) for e in true.events]
    reader = CameraTableReader(path)
    log: list[Event] = []
    for index in range(40):
        state = g.new_state(true.players, observer=True)
        for event in log:
            state.apply_or_raise(event)
        log += reader.events(state, photo(index))
    assert reader.problem is None
    assert len(log) >= 2 and [event_key(e) for e in log] == [event_key(t) for t in truth[:len(log)]]

"""The camera's table reader (vision/reader.py) on Grey Duck, Duck Duck Bruce, Ducky Ducky and
Sitting Ducks: rendered frames of a short bot game in, only true events out, in step with a
store that people add to.

The frames come from the games' synthetic tables (vision/table_video_grey.py,
vision/table_video_bruce.py; for the board games vision/boards.py's board, with the cards that
lie beside it, Ducky Ducky's piles and Sitting Ducks' played pile, drawn here), calibrated from
their markers and read by the shipped classifier. Each frame carries its camera time, and the
reader's clock is fixed, so every event's time is ``BASE_MS`` plus the time of the frame it was
dated from. Each test reads at most 140 frames (under 20 s of one core).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from ducktable.rules import make_game
from ducktable.rules.core import Event, State
from ducktable.rules.ducky import CARD_SLOTS
from ducktable.rules.ducky_board import resolve_layout
from ducktable.rules.grey import GreyDuckState
from ducktable.rules.infer_grey import grey_zone, trick_zone
from ducktable.rules.infer_sitting import PLAYED_ZONE
from ducktable.sim import board_games, board_pictures, render, table_video_bruce, table_video_grey
from ducktable.sim.table_script import Press, same_event
from ducktable.sim.table_video import Shot, TableRenderer
from ducktable.vision import boards
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import TableLayout
from ducktable.vision.pile_layouts import ducky_table_layout, sitting_table_layout
from ducktable.vision.reader import CameraTableReader, calibration_path, empty_table_path

from tests.vision.test_reader import classifier

BASE_MS = 1_000_000
"""The wall-clock time the reader gives the first frame (its clock is fixed at 1000 s)."""


@dataclass(frozen=True)
class Frame:
    """A camera frame as the run loop gets it: the picture and the camera's time."""

    image: np.ndarray
    timestamp_ms: float


@dataclass
class Clip:
    """A rendered bot game: its true public events, the frames' truth (``shots``), the presses
    (what a person tells by button or phone, by true event number), the table's layout, the
    picture of the empty table and how frame ``i`` is drawn."""

    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    truth: list[Event]
    shots: Sequence[Any]  # table_video.Shot or board_games.BoardShot: ts, event_index, covered, contents()
    presses: dict[int, Press]
    layout: TableLayout
    empty: np.ndarray
    draw: Callable[[int], np.ndarray]

    def frame(self, index: int) -> Frame:
        return Frame(self.draw(index), self.shots[index].ts)

    def first_frame_of_event(self, k: int) -> int:
        """The first frame at which ``k`` true events have happened."""
        return next(i for i, shot in enumerate(self.shots) if shot.event_index >= k)

    def first_seen(self, zone: str, cards: list[str]) -> int:
        """The first frame showing ``cards`` in ``zone`` with no hand over it."""
        want = sorted(cards)
        return next(i for i, shot in enumerate(self.shots)
                    if zone not in shot.covered and sorted(shot.contents()[zone]) == want)

    def new_state(self) -> State:
        return make_game(self.game, self.options).new_state(self.players, observer=True)


@cache
def grey_clip() -> Clip:
    """Grey Duck, 3 players, seed 6: a lead, a Quack, an out-of-turn grey Drake, more Quacks,
    a pair and a grey 2 laid on it, within 90 frames (the shipped model reads them right)."""
    seed, players = 6, 3
    game, happenings = table_video_grey.grey_bot_game(seed, players)
    script = table_video_grey.grey_script(game, happenings, random.Random(seed))
    return _card_clip(game, script.shots, script.presses, table_video_grey.grey_layout(players), seed)


@cache
def bruce_clip() -> Clip:
    """Duck Duck Bruce, 3 players, seed 1: the shuffle, a row grown card by card, a stop."""
    seed, players = 1, 3
    game = table_video_bruce.bruce_bot_game(seed, players)
    script = table_video_bruce.bruce_script(game, random.Random(seed))
    return _card_clip(game, script.shots, script.presses, table_video_bruce.bruce_layout(players), seed)


def _card_clip(game: Any, shots: list[Shot], presses: list[Press], layout: TableLayout, seed: int) -> Clip:
    g = make_game(game.game, game.options)
    truth = [g.public_event(e) for e in game.events]
    renderer = TableRenderer(game.game, layout, background_seed=seed)
    return Clip(game.game, game.players, dict(game.options), truth, shots, {p.index: p for p in presses},
                layout, renderer.empty_table(), lambda index: renderer.frame(shots[index], index))


def calibrate(clip: Clip, data_dir: Path) -> Path:
    """What ``ducktable calibrate`` keeps for the clip's table."""
    empty = clip.empty
    path = calibration_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    calibrate_from_markers(clip.layout, empty).layout.save(path)
    cv2.imwrite(str(empty_table_path(path)), empty)
    return path


class Unsure:
    """The shipped classifier, but with ``label`` read at low confidence while ``armed``."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.armed = False

    def classify(self, crops: list[np.ndarray], games: set[str] | None = None) -> list[Any]:
        results = classifier().classify(crops, games=games)  # type: ignore[attr-defined]
        if not self.armed:
            return list(results)

        @dataclass
        class Result:
            label: str
            confidence: float

        return [Result(r.label, 0.3 if r.label == self.label else r.confidence) for r in results]


@dataclass
class Table:
    """A match being played: the store (its log is the truth; events are checked by the rules
    as device/store.py does), the camera reader fed frame by frame as the run loop feeds it,
    and the buttons people press (Quacks, Bruce's declaration and roll), entered in order."""

    clip: Clip
    reader: CameraTableReader
    log: list[Event] = field(default_factory=list)
    camera: list[int] = field(default_factory=list)  # log positions the camera recorded

    def state(self) -> State:
        state = self.clip.new_state()
        for event in self.log:
            state.apply_or_raise(event)
        return state

    def submit(self, event: Event) -> bool:
        if not self.state().check(event).ok:
            return False
        self.log.append(event)
        return True

    def press_due(self, index: int) -> None:
        """Buttons pressed by frame ``index`` whose turn in the log has come."""
        while (press := self.clip.presses.get(len(self.log))) is not None and press.frame <= index:
            true = self.clip.truth[press.index]
            ts = BASE_MS + self.clip.shots[press.frame].ts
            assert self.submit(Event(true.type, true.seat, true.data, ts, "button"))

    def run(self, frames: range, before: Callable[[int], None] = lambda index: None) -> Iterator[int]:
        """Feed ``frames``; ``before(i)`` runs before frame ``i`` (what people do meanwhile).
        Yields each frame number after the camera's events of that frame are recorded."""
        for index in frames:
            before(index)
            self.press_due(index)
            for event in self.reader.events(self.state(), self.clip.frame(index)):
                assert self.submit(event), f"the store refused the camera's {event.dumps()}"
                self.camera.append(len(self.log) - 1)
            self.press_due(index)
            yield index

    def assert_true(self, at_least: int) -> None:
        """The log is the true log so far, at least ``at_least`` events long."""
        assert len(self.log) >= at_least, [e.type for e in self.log]
        for k, event in enumerate(self.log):
            assert same_event(event, self.clip.truth[k]), f"event #{k}: {event.dumps()} != {self.clip.truth[k].dumps()}"


def new_table(clip: Clip, data_dir: Path, reader_classifier: Any = None) -> Table:
    path = calibrate(clip, data_dir)
    reader = CameraTableReader(path, classifier=reader_classifier or classifier(), clock=lambda: BASE_MS / 1000)
    return Table(clip, reader)


# ---- Grey Duck -----------------------------------------------------------------------------------

def test_GREY_D2_T1_G1_camera_reads_only_true_events_and_dates_greys_when_they_first_appeared(
        tmp_path: Path) -> None:
    """Deal (the grey 1's holder leads), plays and greys come from the camera, Quacks from the
    buttons; every grey, the out-of-turn one included, is dated by the frame where it first
    showed on its pile (GREY-G1 races are decided on those times), not when it settled."""
    clip = grey_clip()
    table = new_table(clip, tmp_path)
    for _ in table.run(range(90)):
        pass
    table.assert_true(9)
    assert table.reader.problem is None and table.reader.skipped == 0
    kinds = [table.log[k].type for k in table.camera]
    assert kinds[:2] == ["deal", "play"] and "grey" in kinds
    replay = clip.new_state()
    out_of_turn = 0
    for k, event in enumerate(table.log):
        assert isinstance(replay, GreyDuckState)
        if k in table.camera and event.type in ("play", "grey"):
            assert event.seat is not None
            zone, cards = ((grey_zone(event.seat), [event.data["card"]]) if event.type == "grey"
                           else (trick_zone(event.seat), event.data["cards"]))
            assert event.ts == BASE_MS + clip.shots[clip.first_seen(zone, cards)].ts, event.dumps()
            out_of_turn += event.type == "grey" and event.seat != replay.turn
        replay.apply_or_raise(event)
    assert out_of_turn >= 1


PAIR = 6
"""Grey clip event #6: P3 leads yellow 2 and yellow 2; P1's grey 2 (event #7) follows it."""


@pytest.mark.parametrize("answer, after", [("confirm", 12), ("typed", 4), ("typed", 12)],
                         ids=["confirmed", "typed-before-the-grey", "typed-after-the-grey"])
def test_GREY_G1_an_event_settled_by_hand_has_the_same_time_in_the_store_and_in_the_camera(
        tmp_path: Path, answer: str, after: int) -> None:
    """The camera is unsure of P3's pair; a person settles it ``after`` frames after it showed.
    Confirmed on the phone, the store records the camera's own guess, dated when the cards
    first showed; typed on the Enter page, it records the phone's time. Either way the camera's
    copy of the log keeps the store's time: the race rules compare it with the greys that
    follow, and camera and store must judge them alike, so the store never refuses what the
    camera reports. P1's grey 2, laid on the pair after it showed, comes from the camera once
    the pair is in: at once when confirmed (the camera catches up with the frames it saw
    meanwhile), on its own when typed before the grey showed. (Typed after, the phone's time is
    later than the grey's, so neither store nor camera takes the grey as laid on the pair.)"""
    clip = grey_clip()
    unsure = Unsure("grey/yellow-2")
    table = new_table(clip, tmp_path, unsure)
    pair_shows = clip.first_seen(trick_zone(2), ["yellow-2", "yellow-2"])
    grey_shows = clip.first_seen(grey_zone(0), ["grey-2"])
    answered: list[int] = []

    def people(index: int) -> None:
        unsure.armed = index >= clip.first_frame_of_event(PAIR)
        pending = table.reader.pending
        if answered or pending is None or len(table.log) != PAIR or index < pair_shows + after:
            return
        assert pending.event.type == "play" and "low confidence" in pending.why
        answered.append(index)
        if answer == "confirm":  # web/camera.py records the notice's event as it is
            assert table.submit(pending.event)
        else:
            true = clip.truth[PAIR]
            assert table.submit(Event(true.type, true.seat, true.data, BASE_MS + clip.shots[index].ts, "manual"))

    for _ in table.run(range(clip.first_frame_of_event(PAIR + 2) + 10), people):
        pass
    assert answered == [pair_shows + after], "the camera did not ask about the pair in time"
    assert table.log[PAIR].ts == BASE_MS + clip.shots[pair_shows if answer == "confirm" else answered[0]].ts
    assert [(e.ts, e.source) for e in table.reader.history] == [(e.ts, e.source) for e in table.log]
    if answer == "confirm" or answered[0] < grey_shows:
        table.assert_true(PAIR + 2)
        assert PAIR not in table.camera and PAIR + 1 in table.camera
        assert table.log[PAIR + 1].ts == BASE_MS + clip.shots[grey_shows].ts
    else:
        table.assert_true(PAIR + 1)


# ---- Duck Duck Bruce ------------------------------------------------------------------------------

def test_BRUCE_T1_T2_camera_reads_only_true_events_of_a_rendered_game(tmp_path: Path) -> None:
    """The shuffle, each card turned over (and the ``continue`` it implies), then a stop that
    keeps the row in the nest: the first events all come from the camera, and are true."""
    clip = bruce_clip()
    table = new_table(clip, tmp_path)
    for _ in table.run(range(clip.first_frame_of_event(9) + 10)):
        pass
    table.assert_true(9)
    assert [e.type for e in table.log[:8]] == ["shuffle", "reveal", "continue", "reveal", "reveal",
                                               "continue", "reveal", "stop"]
    assert table.camera == list(range(len(table.log)))
    assert all(e.source == "camera" and e.ts is not None and e.ts >= BASE_MS for e in table.log)
    assert table.reader.problem is None and table.reader.skipped == 0


# ---- Ducky Ducky ------------------------------------------------------------------------------------

@cache
def ducky_clip() -> Clip:
    """Ducky Ducky, 3 players, seed 1 (setup, a move, the fallen duck taken, two fish, a move
    within 70 frames): the board drawn by vision/boards.py, the seats' piles beyond its long
    edges (pile_layouts.ducky_table_layout), photographed by a tilted 1080p camera with hands over what
    changes, light and noise."""
    seed = 1
    true = board_games.bot_game("ducky", seed)
    shots = board_games.script_for(true, seed)
    board = resolve_layout(None)
    river = boards.RiverBoard.of(board)
    layout = ducky_table_layout(len(true.players), board)
    homography = board_pictures.piles_view(np.random.default_rng([seed, 0xD0C]))

    @lru_cache(maxsize=6)
    def view(zones: tuple[tuple[str, tuple[str, ...]], ...]) -> np.ndarray:
        content = dict(zones)
        draw_rng = np.random.default_rng([seed, zlib.crc32(repr(zones).encode())])
        plane = board_pictures.draw_river(board_pictures.RiverContent.from_zones(content, board), river, draw_rng)
        board_pictures.draw_ducky_piles(plane, layout, content, draw_rng)
        return board_pictures.view_of(plane, homography, board_pictures.PILES_FRAME)

    def draw(index: int) -> np.ndarray:
        shot = shots[index]
        hands = [layout.zone(z).centre for z in sorted(shot.covered)]
        return board_pictures.photograph(None, homography, np.random.default_rng([seed, index]), hands=hands,
                                 seen=view(shot.zones), size=board_pictures.PILES_FRAME)[0]

    g = make_game("ducky")
    return Clip("ducky", true.players, dict(g.options), [g.public_event(e) for e in true.events], shots, {},
                layout, draw(0), draw)


def test_DUCKY_S1_T1_T5_setup_takes_and_fish_read_from_the_board_and_the_piles(tmp_path: Path) -> None:
    """The seats' piles are read with the board: the camera's set-up holds every seat's two
    visible cards (DUCKY-S1), and the fallen duck taken and the ducks fished onto cards (a
    token on a card's slot, DUCKY-T4/T5) come from the piles. A person confirms the camera's
    guesses that are right when it asks; nothing is entered by hand, and nothing is false."""
    clip = ducky_clip()
    table = new_table(clip, tmp_path)
    confirmed: list[int] = []

    def person(index: int) -> None:
        pending = table.reader.pending
        k = len(table.log)
        if pending is not None and k < len(clip.truth) and same_event(pending.event, clip.truth[k]):
            assert table.submit(pending.event)  # web/camera.py records the guess as it is
            confirmed.append(k)

    for _ in table.run(range(130), person):  # a river flow is slid by hand over several frames
        pass
    table.assert_true(6)
    assert [e.type for e in table.log[:6]] == ["setup", "move", "take", "fish", "fish", "move"]
    assert sorted(confirmed + table.camera) == list(range(len(table.log)))  # nothing entered by hand
    assert table.log[0].data["visible"] == clip.truth[0].data["visible"]
    assert {table.log[k].type for k in table.camera} >= {"fish"}
    assert all(e.source == "camera" for e in table.log)
    assert table.reader.problem is None and table.reader.skipped == 0


def _card_with_tokens(label: str, tokens: tuple[int, ...], upside_down: bool = False) -> np.ndarray:
    """A crop of ``label`` as the detector gives it (100 x 150), with duck tokens on the slots
    numbered in ``tokens`` (0: the card's first slot), maybe turned 180 degrees."""
    h, w = 150, 100
    plane = np.zeros((h + 2 * board_pictures.MARGIN, w + 2 * board_pictures.MARGIN, 3), np.float32)
    board_pictures.paste_card(plane, render.render_card("ducky", label, width=w, height=h), (w / 2, h / 2), 0.0)
    for slot in tokens:
        board_pictures.duck_token(plane, (w / 2, h * (0.3 if slot == 0 else 0.7)), 0.42 * w,
                          boards.DUCK_COLOURS[CARD_SLOTS[label][slot]], 0.7 + slot)
    m = board_pictures.MARGIN
    crop = plane[m:m + h, m:m + w].clip(0, 255).astype(np.uint8)
    return np.ascontiguousarray(crop[::-1, ::-1]) if upside_down else crop


@pytest.mark.parametrize("label, tokens, upside_down, classifier_says", [
    ("card-yellow-blue", (), False, "card-yellow-blue"),
    ("card-yellow-blue", (1,), False, "unknown"),
    ("card-yellow-blue", (0, 1), True, "unknown"),
    ("card-green-pink", (0,), True, "unknown"),
    ("card-pink-pink", (1,), False, "card-pink-pink"),
    ("card-blue-blue", (0, 1), False, "unknown"),
])
def test_DUCKY_T5_a_card_and_its_duck_tokens_are_read_from_the_slots_colours(
        label: str, tokens: tuple[int, ...], upside_down: bool, classifier_says: str) -> None:
    """The ducks on a card, in slot order, whichever end of the card is up; the slots' colours
    name the card where a token hides its print from the classifier."""
    from ducktable.rules.infer_ducky import card_labels
    from ducktable.vision.pile_reading import ducky_card

    crop = _card_with_tokens(label, tokens, upside_down)
    reads = ducky_card(crop, classifier_says, 0.2 if classifier_says == "unknown" else 0.9)
    filled = [slot in tokens for slot in range(2)]
    assert tuple(r.label for r in reads) == card_labels(label, filled)
    assert min(r.confidence for r in reads) >= 0.5


def test_DUCKY_a_card_the_classifier_and_the_slots_name_differently_is_unsure() -> None:
    from ducktable.vision.pile_reading import ducky_card

    reads = ducky_card(_card_with_tokens("card-yellow-green", ()), "card-blue-pink", 0.95)
    assert [r.label for r in reads] == ["card-yellow-green"] and reads[0].confidence < 0.5


def test_DUCKY_T5_a_token_is_read_on_a_card_the_classifier_names_otherwise() -> None:
    """A token hiding its slot's print makes the classifier name another card now and then: the
    token is still read (the card stays unsure), so the card's ducks do not come and go from
    frame to frame (which dated a fished duck after the hand had left, as if no hand laid it)."""
    from ducktable.vision.pile_reading import ducky_card

    reads = ducky_card(_card_with_tokens("card-green-blue", (0,)), "card-blue-blue", 0.9)
    assert [r.label for r in reads] == ["card-green-blue", "duck-green"]
    assert reads[0].confidence < 0.5 and reads[1].confidence >= 0.5


# ---- Sitting Ducks ---------------------------------------------------------------------------------

@cache
def sitting_clip() -> Clip:
    """Sitting Ducks, 3 players, seed 4 (the shuffles, the line revealed, nine draws, then a No
    Time played on position 3, within 135 frames): the line drawn by vision/boards.py, the pile
    of played action cards right of it (pile_layouts.sitting_table_layout), photographed by a tilted
    camera with hands over what changes, light and noise."""
    seed = 4
    true = board_games.bot_game("sitting", seed)
    shots = board_games.script_for(true, seed)
    line = boards.LineBoard()
    layout = sitting_table_layout()
    homography = board_pictures.random_view(np.random.default_rng([seed, 0xCA3E]))

    @lru_cache(maxsize=4)
    def view(zones: tuple[tuple[str, tuple[str, ...]], ...]) -> np.ndarray:
        content = dict(zones)
        draw_rng = np.random.default_rng([seed, zlib.crc32(repr(zones).encode())])
        played = content.get(PLAYED_ZONE, ())
        pile = (played[-1], layout.zone(PLAYED_ZONE).centre) if played else None
        plane = board_pictures.draw_line(board_pictures.LineContent.from_zones(content), line, draw_rng, played=pile)
        return board_pictures.view_of(plane, homography)

    def draw(index: int) -> np.ndarray:
        shot = shots[index]
        hands = [layout.zone(z).centre for z in sorted(shot.covered)]
        return board_pictures.photograph(None, homography, np.random.default_rng([seed, index]), hands=hands,
                                 seen=view(shot.zones))[0]

    g = make_game("sitting")
    return Clip("sitting", true.players, dict(g.options), [g.public_event(e) for e in true.events], shots, {},
                layout, draw(0), draw)


def test_SIT_A1_an_action_card_on_the_played_pile_is_read_with_the_line(tmp_path: Path) -> None:
    """Sitting Ducks' actions are told apart by the card laid on the played pile (a line that
    changes with no card laid waits for a person): the reader reads that pile beside the line,
    so the No Time that follows the shuffles, the reveal and the draws comes from the camera."""
    clip = sitting_clip()
    _no_time_by_camera(clip, new_table(clip, tmp_path))


def _no_time_by_camera(clip: Clip, table: Table) -> None:
    """Reads the Sitting Ducks clip to 12 frames past its 13th event: the No Time after the
    shuffles, the reveal and the draws, every event from the camera."""
    for _ in table.run(range(clip.first_frame_of_event(13) + 12)):
        pass
    table.assert_true(13)
    assert table.log[12].type == "no_time" and table.camera == list(range(len(table.log)))
    assert table.reader.problem is None and table.reader.skipped == 0


def test_SIT_A1_a_camera_giving_more_pixels_reads_the_played_pile_from_its_full_picture(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same clip taken at 1920 x 1080 (the Pi camera's main stream) on the table calibrated
    at 1280 x 720: the line and the pile's zones are read on the 1280 x 720 view, the pile's
    cards cut from the full picture, and the same true events come out."""
    from ducktable.vision import pile_reading

    scales: set[float] = set()
    search = pile_reading.detect_cards

    def spy(window: np.ndarray, **options: Any) -> Any:
        detail = options["detail"]
        scales.add(round(detail.shape[1] / window.shape[1], 1))
        return search(window, **options)

    monkeypatch.setattr(pile_reading, "detect_cards", spy)
    clip = sitting_clip()
    large = replace(clip, draw=lambda i: cv2.resize(clip.draw(i), (1920, 1080), interpolation=cv2.INTER_CUBIC))
    _no_time_by_camera(clip, new_table(large, tmp_path))
    assert scales == {1.5}

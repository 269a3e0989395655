"""The still-table gate and the card locator's path through FrameReader (vision/still_gate.py,
vision/frame_reader.py): a still table repeats a reading only once every card on it is settled
(named surely), a moved card is looked at again, a card the locator missed sends the frame to
the edge search, and a card it cut so that nothing names it is cut again by the edge search once
it lies still."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.snapshot import TableSnapshot
from ducktable.sim import table_video
from ducktable.vision.augment import CaptureLook
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.classify import CardClassifier
from ducktable.vision.detect import Detection
from ducktable.vision.frame_reader import FrameReader
from ducktable.vision.layout import TableLayout, duck_layout
from ducktable.vision.locator import CardLocator
from ducktable.vision.pipeline import game_namer
from ducktable.vision.reader import make_table_reader, reading_view
from ducktable.vision.still_gate import StillGate

SEED = 7


def _noisy(picture: np.ndarray, seed: int, spread: int = 3) -> np.ndarray:
    noise = np.random.default_rng(seed).integers(-spread, spread + 1, picture.shape)
    return np.clip(picture.astype(np.int16) + noise, 0, 255).astype(np.uint8)


def test_noise_is_still_and_a_card_sized_change_is_not() -> None:
    table = np.full((720, 1280, 3), 120, np.uint8)
    gate = StillGate()
    assert not gate.look(gate.small(table))  # no reference yet
    gate.keep(gate.small(table))
    assert gate.look(gate.small(_noisy(table, 1)))
    moved = table.copy()
    moved[300:420, 600:680] = 230  # a card laid
    assert not gate.look(gate.small(moved))
    here = np.array([[600, 300], [680, 300], [680, 420], [600, 420]], np.float32)
    assert gate.changed_at(here)
    assert not gate.changed_at(here + np.float32([400, 0]))


@cache
def _table() -> tuple[TableLayout, np.ndarray, list[np.ndarray]]:
    """The calibrated layout, the empty table, and two frames of one still table with three
    cards or more (each with its own noise)."""
    game = table_video.bot_game("duck", SEED, 3)
    shots = table_video.script_for(game, SEED)
    layout = duck_layout(3)
    look = CaptureLook.random(np.random.default_rng([SEED, 0xCA97]))
    renderer = table_video.TableRenderer("duck", layout, SEED, look=look)
    empty, _ = reading_view(renderer.empty_picture())
    calibrated = calibrate_from_markers(layout, empty).layout
    k = next(i for i in range(len(shots) - 1) if not shots[i].covered and not shots[i + 1].covered
             and shots[i].zones == shots[i + 1].zones and sum(len(c) for _, c in shots[i].zones) >= 3)
    frames = [renderer.frame(shots[k], k), renderer.frame(shots[k + 1], k + 1)]
    return calibrated, empty, frames


class _Counting:
    """The shipped classifier's namer, counting the cards it is asked about."""

    def __init__(self) -> None:
        self.name = game_namer(CardClassifier.load(threads=1), "duck")
        self.asked = 0

    def __call__(self, detections: list[Detection]) -> list[tuple[str, float]]:
        self.asked += len(detections)
        return self.name(detections)


def test_a_still_table_is_classified_until_settled_then_repeated() -> None:
    layout, empty, frames = _table()
    namer = _Counting()
    reader = FrameReader(layout, empty, "duck", namer, locator=CardLocator.load(threads=1))
    first = reader.read(frames[0], 0, 0)
    cards = namer.asked
    assert cards >= 3
    snapshots = [reader.read(frames[i % 2], 67 * i, i) for i in range(1, FrameReader.SETTLED)]
    # still frames, but each card is cut from each and looked at afresh until settled
    assert namer.asked == cards * FrameReader.SETTLED
    assert all(_labels(s) == _labels(first) for s in snapshots)
    before = namer.asked
    for i in range(FrameReader.SETTLED, FrameReader.FULL_EVERY - 1):
        assert reader.read(frames[i % 2], 67 * i, i).zones == snapshots[-1].zones
    assert namer.asked == before  # settled and still: the reading repeated, nobody asked
    # every frame after the first was still: the locator searched none of them
    assert reader.counts["still"] == FrameReader.FULL_EVERY - 2
    reader.read(frames[0], 67 * 99, 99)  # a second on: every card classified afresh again
    assert namer.asked == before + cards


def test_a_card_named_unsurely_is_looked_at_afresh_in_every_still_frame() -> None:
    """`bench reader` seed 0: a start card named unsurely in five frames, then once surely, was
    repeated from that one reading frame after frame (the tracker took eight sure reads of it).
    A reading below FrameReader.SURE never counts toward settling."""
    layout, empty, frames = _table()
    namer = _Unsure()
    reader = FrameReader(layout, empty, "duck", namer, locator=CardLocator.load(threads=1))
    reader.read(frames[0], 0, 0)
    for i in range(1, FrameReader.FULL_EVERY - 1):  # still frames
        before = namer.named_asked
        seen = reader.read(frames[i % 2], 67 * i, i)
        named = sum(1 for zone in seen.zones.values() for card in zone.cards if card.label != UNKNOWN)
        assert named >= 3 and namer.named_asked - before == named
    assert reader.counts["still"] == FrameReader.FULL_EVERY - 2


class _Unsure:
    """The shipped namer, every card it names named at 0.6; counts the named cards asked."""

    def __init__(self) -> None:
        self.name = _Counting()
        self.named_asked = 0

    def __call__(self, detections: list[Detection]) -> list[tuple[str, float]]:
        named = [(label, 0.6 if label != UNKNOWN else conf) for label, conf in self.name(detections)]
        self.named_asked += sum(label != UNKNOWN for label, _ in named)
        return named


def test_a_card_the_locator_missed_sends_the_frame_to_the_edge_search() -> None:
    layout, empty, frames = _table()
    reader = FrameReader(layout, empty, "duck", _Counting(), locator=_Blind(CardLocator.load(threads=1)))
    edges = FrameReader(layout, empty, "duck", _Counting())
    seen = reader.read(frames[0], 0, 0)
    assert reader.counts["fallback"] == 1
    assert _labels(seen) == _labels(edges.read(frames[0], 0, 0))
    assert sum(len(labels) for labels in _labels(seen).values()) >= 3


def test_an_unnamed_card_lying_still_is_cut_again_by_the_edge_search_alone() -> None:
    """The locator's outline moved off its card (as one that took a side of the neighbour's):
    just laid, the card stays unnamed; lying still, the edge search cuts and names it, and the
    rest of the reading stays the locator's."""
    layout, empty, frames = _table()
    reader = FrameReader(layout, empty, "duck", _Counting(), locator=_Askew(CardLocator.load(threads=1)))
    edges = FrameReader(layout, empty, "duck", _Counting())
    first = reader.read(frames[0], 0, 0)
    assert any(UNKNOWN in labels for labels in _labels(first).values())
    assert reader.counts["recut"] == reader.counts["fallback"] == 0
    for i in range(1, FrameReader.FULL_EVERY + 1):  # still frames, then a full reading
        seen = reader.read(frames[i % 2], 67 * i, i)
    assert reader.counts["recut"] == 1 and reader.counts["fallback"] == 0
    assert _labels(seen) == _labels(edges.read(frames[0], 0, 0))
    assert all(UNKNOWN not in labels for labels in _labels(seen).values())


def _labels(snapshot: TableSnapshot) -> dict[str, tuple[str, ...]]:
    return {name: zone.labels for name, zone in snapshot.zones.items()}


class _Blind:
    """The locator, missing the first card it finds."""

    def __init__(self, locator: CardLocator) -> None:
        self.locator = locator

    def locate(self, image: np.ndarray) -> list[tuple[np.ndarray, float]]:
        return self.locator.locate(image)[1:]


class _Askew:
    """The locator, its leftmost card's outline moved down by a third of the card (the
    leftmost, not the first: the order of the locator's cards follows its scores, which any
    retraining reshuffles; the draw pile's back, moved, goes unnamed, a lifebelt card does not)."""

    def __init__(self, locator: CardLocator) -> None:
        self.locator = locator

    def locate(self, image: np.ndarray) -> list[tuple[np.ndarray, float]]:
        found = sorted(self.locator.locate(image), key=lambda f: float(np.mean(f[0][:, 0])))
        (quad, score), *rest = found
        moved = np.asarray(quad, np.float32).copy()
        moved[:, 1] += float(np.ptp(moved[:, 1])) / 3
        return [(moved, score), *rest]


def test_run_reads_with_the_locator_unless_the_settings_say_edges(tmp_path: Path) -> None:
    assert make_table_reader(SimpleNamespace(), tmp_path).detector == "network"
    assert make_table_reader(SimpleNamespace(detector="edges"), tmp_path).detector == "edges"
    with pytest.raises(ValueError, match="unknown detector 'yolo'; use one of network, edges"):
        make_table_reader(SimpleNamespace(detector="yolo"), tmp_path)

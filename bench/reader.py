"""``ducktable bench reader``: ``ducktable run``'s table reader, today's and the locator's, paired.

Why this module exists: the camera must keep up with a real table on one Pi core, and a card
laid must reach the phones soon after it lies there plainly. This plays a rendered DUCK game
(:mod:`ducktable.sim.table_video`, every picture through a camera's capture:
:mod:`ducktable.vision.augment`), taken as the Pi camera's main stream takes them (1920 x 1080
by default: ``device.camera.PiCameraSource``) and read at 1280 x 720, into two of ``run``'s own readers
(:class:`~ducktable.vision.reader.CameraTableReader`), the edge-map search's and the card
locator's, in one process on one core, taking turns frame by frame (which goes first alternates),
so both see the same machine load. Each reader has its own copy of the match as the store holds
it: the events it returns are recorded there, and a simulated person enters an event the camera
lags behind on, as people do on the phones.

Time: the video's clock (15 frames a second). A reader is busy for the CPU time its read took;
the camera hands it the newest frame when it is free (``every_frame``: every frame, queued).
An event reaches the store when the read that returned it ends; its latency counts from the
first frame that shows a part of it with no hand over what changed (:func:`first_clear_ms`).
Its cards reach the phones sooner where the reader's news shows them first (a play laid out in
the reveal area, before it goes onto the pile): that latency is measured too.

Where that latency goes is broken down per event (:class:`EventStages`): the first clear frame;
*decidable*, the frame at which a perfect camera (every frame read at once and right, the true
cards straight from the script: :func:`decidable_ms`) lets the same inferrer record it, so
what lies before is the game's own (a play's cards laid out are no play until they reach the
pile); the reader's first read of what decided it (the event's time stamp: the tracker dates a
change by its first read); the tracker settled on it; the frame whose read applied it; the store.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules import make_game
from ducktable.rules.core import Event, State
from ducktable.rules.infer_base import TableFollower
from ducktable.rules.infer_duck import DuckInferrer
from ducktable.rules.snapshot import seat_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.sim.table_video import Shot, TableRenderer, bot_game, oracle_snapshots, script_for
from ducktable.vision.augment import CaptureLook
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import duck_layout
from ducktable.vision.reader import CameraTableReader, calibration_path, empty_table_path, reading_view

RECALL_EVERY = 10
"""Every this many frames, where no hand is in the picture, both detectors alone look for the
true cards (how often the locator misses a card the table video has, piles included)."""
RSS_FRAMES = 60
"""Frames the locator's reader reads alone in a fresh process to measure its memory."""
READERS = (("edges", "edge-map search (today)"), ("network", "card locator"))
"""The two readers compared: ``CameraTableReader``'s detector and the name printed."""
LAG_FRAMES = 90
PATIENCE_FRAMES = 15
"""A simulated person enters the next true event once the camera has lagged behind the table
for :data:`LAG_FRAMES` video frames (6 seconds) with nothing new, or has held a guess for a
person for :data:`PATIENCE_FRAMES` (as the replays' person does)."""
NEWS_AHEAD = 2
"""How many true events not yet recorded the reader's news is matched against."""
SLOWEST = 4
"""Events listed stage by stage under the figures, the slowest first."""
CAPTURE = (1920, 1080)
"""The pictures' size: the Pi camera's main stream (``device.camera.PiCameraSource``). ``run``
reads them at 1280 x 720 and cuts the cards from the full picture; pictures taken at 1280 x 720
give cards 50 px wide, whose yellow digits neither the classifier nor the digit reader was
measured at."""
HOLD = 15
"""Video frames the table stays still after each change (a second): people do not play three
moves a second, and a reader that drops frames needs a table that holds still to see it."""


@dataclass(frozen=True)
class _Frame:
    """What a camera source hands the run loop: a picture and its timestamp."""

    image: np.ndarray
    timestamp_ms: float


@dataclass(frozen=True)
class EventStages:
    """Where one camera event's latency went: video milliseconds of each stage (see the module
    notes); ``decidable`` is the first clear frame's where a perfect camera could not decide it
    alone, ``settled`` the frame's that applied it where the tracker no longer tells."""

    index: int
    type: str
    clear: float
    decidable: float
    first_read: float
    settled: float
    proposed: float
    stored: float

    @classmethod
    def of(cls, index: int, kind: str, *times: float) -> EventStages:
        """The stages from their times in order, each no earlier than the one before (a deal's
        start card is read before the inferrer's reads in a row make it decidable: the tracker
        then took no time of its own), so the stages add up to the whole latency."""
        kept: list[float] = []
        for t in times:
            kept.append(max(t, kept[-1]) if kept else t)
        return cls(index, kind, *kept)


STAGES = (("game: first clear frame -> decidable", "clear", "decidable"),
          ("reader: decidable -> first read", "decidable", "first_read"),
          ("tracker: first read -> settled", "first_read", "settled"),
          ("inferrer: settled -> proposed", "settled", "proposed"),
          ("read's end: proposed -> stored", "proposed", "stored"),
          ("decidable -> store", "decidable", "stored"))
"""The breakdown's rows: a name and the two stages it spans."""


@dataclass
class ReaderFigures:
    """One reader's figures over the clip."""

    detector: str
    title: str
    cpu_ms: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    shown: list[tuple[int, str, float]] = field(default_factory=list)
    """Per camera event that lays cards (:func:`event_cards`) and has a first clear frame: its
    index, type and the milliseconds from that frame to the phones: to when the reader's news
    (cards seen that no recorded event explains yet) first showed all its cards, or to the
    store if that came first."""
    camera_events: list[Event] = field(default_factory=list)
    wrong: int = 0
    wrong_said: list[str] = field(default_factory=list)
    """What each wrong event was, and what the truth had there."""
    stopped: str = ""
    """Why this reader's game stopped before the clip's end (a true event refused after a
    wrong camera event), or empty."""
    by_hand: int = 0
    frames_read: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    stages: list[EventStages] = field(default_factory=list)
    """Each camera event that has a first clear frame, broken down (see :class:`EventStages`)."""

    def median(self) -> float:
        return _percentile(self.cpu_ms, 50)

    def p95(self) -> float:
        return _percentile(self.cpu_ms, 95)

    def sustained_fps(self) -> float:
        """Frames one core reads a second: 1000 / the mean CPU ms of a frame."""
        return 1000 / max(float(np.mean(self.cpu_ms)), 1e-9) if self.cpu_ms else 0.0


@dataclass
class ReaderBench:
    seed: int
    players: int
    first: int
    frames: int
    total_frames: int
    hold: int
    every_frame: bool
    cpu: int | None
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    readers: list[ReaderFigures] = field(default_factory=list)
    rss_peak_mb: float = 0.0
    recall: dict[str, int] = field(default_factory=lambda: {"cards": 0, "edges": 0, "network": 0})
    """True cards on the frames looked at for recall (:data:`RECALL_EVERY`), and how many of
    them each detector found alone."""
    capture: tuple[int, int] = CAPTURE
    reader_rss_mb: float = 0.0
    """Peak RSS of a process that only reads the clip's first frames with the locator's reader
    (what ``ducktable run``'s camera side holds, without the renderer and the other reader)."""

    @property
    def events_equal(self) -> bool:
        """Both readers' camera events are the same events, in the same order."""
        old, new = self.readers
        return len(old.camera_events) == len(new.camera_events) and all(
            same_event(a, b) for a, b in zip(old.camera_events, new.camera_events, strict=True))


def same_event(a: Event, b: Event) -> bool:
    """The same game event (a reveal's hands in any order within each hand)."""
    if a.type != b.type or a.seat != b.seat:
        return False
    if a.type == "reveal":
        return [sorted(h) for h in a.data["hands"]] == [sorted(h) for h in b.data["hands"]]
    return dict(a.data) == dict(b.data)


def event_cards(event: Event) -> list[str]:
    """The cards a DUCK event puts on the table for all to see: a play's cards, a deal's start
    cards (none for the others: what a draw takes goes into a hand)."""
    if event.type == "play":
        return list(event.data["cards"])
    if event.type == "deal":
        return [card for card in event.data["face_up"] if card is not None]
    return []


def first_clear_ms(shots: Sequence[Shot], events: Sequence[Event]) -> dict[int, int]:
    """For each true event (by index), the timestamp of the first frame that shows a part of
    it plainly: the table differs from how it stood just before the event's first change (a
    play's cards laid out, a card taken, a hand spread), with no hand over what differs. A
    play's cards laid out in the reveal area before the play itself belong to the play; the
    reveal's later hands and the table cleared after it belong to the reveal, not to the next
    deal. Events that change no zone (a card drawn from the deck) are left out."""
    clear: dict[int, int] = {}
    starts = {shots[i].event_index - 1: i for i in range(1, len(shots))
              if shots[i].event_index != shots[i - 1].event_index}  # event -> its first frame
    for k, s in sorted(starts.items()):
        origin, end = s, s
        while end + 1 < len(shots) and shots[end].covered:
            end += 1  # the event's own change: the hand over the table, then the table shown
        event = events[k] if k < len(events) else None
        if event is not None and event.type == "play" and event.seat is not None:
            laid_out = tuple(event.data["cards"])
            zone = seat_zone(event.seat, "reveal")
            while origin > 0 and sorted(shots[origin - 1].contents().get(zone, ())) == sorted(laid_out):
                origin -= 1  # the cards lay out in the reveal area before they went on the pile
        base = shots[origin - 1].contents()
        for j in range(origin, end + 1):
            now = shots[j].contents()
            differs = {name for name in set(base) | set(now) if base.get(name, ()) != now.get(name, ())}
            if differs and not differs & shots[j].covered:
                clear[k] = shots[j].ts
                break
    return clear


def decidable_ms(game: Any, shots: Sequence[Shot]) -> dict[int, int]:
    """For each true event (by index), the timestamp of the frame at which a perfect camera
    records it: every frame's true cards read at once (a tracker that settles on one read), the
    zones a hand covers hidden, fed to DUCK's inferrer, and a person who enters what it leaves
    to them as the bench's person does (an event after one only a person can settle waits for
    them). Events that camera leaves to a person are left out."""
    g = make_game("duck", game.options)
    truth = [g.public_event(e) for e in game.events]
    follower = TableFollower(g.new_state(list(game.players), observer=True), DuckInferrer(),
                             StabilityTracker(window=1, needed=1))
    decided: dict[int, int] = {}
    lagging = waiting = 0
    for snapshot, shot in zip(oracle_snapshots(shots, ["yellow-1"]), shots, strict=True):
        k = len(follower.state.history)
        step = follower.feed(snapshot)
        for n, inference in enumerate(step.applied):
            if k + n < len(truth) and same_event(inference.event, truth[k + n]):
                decided[k + n] = snapshot.ts
        if follower.state.is_over() or len(follower.state.history) >= len(truth):
            break
        behind = shot.event_index > len(follower.state.history)  # as the bench's person does
        lagging = lagging + 1 if behind and not step.applied else 0
        waiting = waiting + 1 if behind and follower.pending is not None else 0
        if lagging >= LAG_FRAMES or waiting >= PATIENCE_FRAMES:
            entered = len(follower.state.history)
            follower.confirm(truth[entered])  # then it catches up: what it applies is decided now
            for n in range(entered + 1, min(len(follower.state.history), len(truth))):
                if same_event(follower.state.history[n], truth[n]):
                    decided[n] = snapshot.ts
            lagging = waiting = 0
    return decided


def run(*, seed: int = 0, players: int = 3, first: int = 0, frames: int | None = 900,
        hold: int = HOLD, every_frame: bool = False, classifier: Any = None, pin_core: bool = True,
        capture: tuple[int, int] = CAPTURE, progress: Callable[[str], None] | None = None) -> ReaderBench:
    """Play ``frames`` frames (None: all) of DUCK game ``seed`` from frame ``first`` into both
    readers (see the module notes) and measure them."""
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.locator import CardLocator

    cv2.setNumThreads(1)
    cpu = _pin_one_core() if pin_core else None
    game = bot_game("duck", seed, players)
    shots = script_for(game, seed, hold=hold)
    total = len(shots)
    clip = shots[first:] if frames is None else shots[first:first + frames]
    if not clip:
        raise ValueError(f"the game has {total} frames: nothing from frame {first} on")
    clear = first_clear_ms(shots, game.events)
    decidable = decidable_ms(game, shots)
    layout = duck_layout(players)
    look = CaptureLook.random(np.random.default_rng([seed, 0xCA97]))
    renderer = TableRenderer("duck", layout, seed, look=look, capture_size=capture)
    empty, _ = reading_view(renderer.empty_picture())
    classifier = classifier or CardClassifier.load(threads=1)
    locator = CardLocator.load(threads=1)
    bench = ReaderBench(seed, players, first, len(clip), total, hold, every_frame, cpu, os.getloadavg(),
                        capture=capture)
    g = make_game("duck", game.options)
    truth = [g.public_event(e) for e in game.events]
    with tempfile.TemporaryDirectory(prefix="ducktable-bench-reader-") as folder:
        path = calibration_path(folder)
        path.parent.mkdir(parents=True)
        calibrate_from_markers(layout, empty).layout.save(path)
        cv2.imwrite(str(empty_table_path(path)), empty)
        players_names = list(game.players)
        # the reader's clock is the video's: its events are stamped in video milliseconds
        lanes = [_Lane(ReaderFigures(name, title),
                       CameraTableReader(Path(path), classifier=classifier, detector=name,
                                         clock=lambda: clip[0].ts / 1000),
                       g.new_state(players_names, observer=True))
                 for name, title in READERS]
        # the truth's events before the clip were entered already
        for lane in lanes:
            for event in truth[:clip[0].event_index]:
                lane.state.apply_or_raise(event)
        said = time.monotonic()
        pictures = Path(folder) / "frames"
        pictures.mkdir()
        for n, shot in enumerate(clip):
            picture = renderer.frame(shot, first + n)
            if n < RSS_FRAMES:
                cv2.imwrite(str(pictures / f"{n:05d}.jpg"), picture, [cv2.IMWRITE_JPEG_QUALITY, 95])
            if n % RECALL_EVERY == 0 and not shot.covered:
                view = reading_view(picture)[0]
                to_view = np.float32(view.shape[1] / picture.shape[1])
                _count_found(bench.recall, view, [q * to_view for q in renderer.card_quads(shot)], locator)
            arrives_next = clip[n + 1].ts if n + 1 < len(clip) else float("inf")
            for lane in (lanes if n % 2 == 0 else lanes[::-1]):
                lane.step(_Frame(picture, float(shot.ts)), shot, arrives_next, every_frame, truth, clear,
                          decidable)
            if progress is not None and time.monotonic() - said > 30:
                said = time.monotonic()
                progress(f"frame {n + 1} of {len(clip)}")
        for lane in lanes:
            lane.figures.counts = lane.reader.counts
            bench.readers.append(lane.figures)
        bench.reader_rss_mb = _reader_alone_rss_mb(Path(path), pictures, players)
    bench.load_after = os.getloadavg()
    bench.rss_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return bench


@dataclass
class _Lane:
    """One reader with its copy of the store's match and its own clock (video ms)."""

    figures: ReaderFigures
    reader: CameraTableReader
    state: State
    free_at: float = 0.0
    lagging: int = 0
    waiting: int = 0
    shown_at: dict[int, float] = field(default_factory=dict)

    def step(self, frame: _Frame, shot: Shot, arrives_next: float, every_frame: bool,
             truth: Sequence[Event], clear: dict[int, int], decidable: dict[int, int]) -> None:
        if self.figures.stopped:
            return
        if not every_frame and self.free_at >= arrives_next:
            self._person(shot, truth)
            return  # busy until a newer frame came: this one is never read
        start = max(self.free_at, frame.timestamp_ms)
        t0 = time.process_time()
        events = list(self.reader.events(self.state, frame))
        took = (time.process_time() - t0) * 1000
        self.free_at = start + took
        self.figures.cpu_ms.append(took)
        self.figures.frames_read += 1
        self._watch_news(len(self.state.history) + len(events), truth)
        for event in events:
            k = len(self.state.history)
            if k < len(truth) and not same_event(event, truth[k]):
                self.figures.wrong += 1
                self.figures.wrong_said.append(f"event {k}: {event.dumps()} for {truth[k].dumps()}")
            self.figures.camera_events.append(event)
            if k in clear:
                self.figures.latency_ms.append(self.free_at - clear[k])
                if event_cards(truth[k]):
                    self.figures.shown.append(
                        (k, event.type, min(self.shown_at.get(k, self.free_at), self.free_at) - clear[k]))
                first_read = float(event.ts) if event.ts is not None else frame.timestamp_ms
                self.figures.stages.append(EventStages.of(
                    k, event.type, clear[k], decidable.get(k, clear[k]), first_read,
                    self._settled_ms(event, frame.timestamp_ms), frame.timestamp_ms, self.free_at))
            self.state.apply_or_raise(event)
        self._person(shot, truth, progressed=bool(events))

    def _watch_news(self, upcoming: int, truth: Sequence[Event]) -> None:
        """Note when the reader's news first shows every card of one of the next true events
        not yet recorded (the phones show them from then on). The next two: a play is laid out
        before the draw ahead of it is recorded (a draw from the deck shows when the next
        player starts)."""
        seen = Counter(card for _, zone_cards in self.reader.news for card in zone_cards)
        for k in range(upcoming, min(upcoming + NEWS_AHEAD, len(truth))):
            cards = event_cards(truth[k])
            if k not in self.shown_at and cards and not Counter(cards) - seen:
                self.shown_at[k] = self.free_at

    def _settled_ms(self, event: Event, read_at: float) -> float:
        """When the reader's tracker settled on what ``event`` rests on: the latest settling of
        the zones whose new content was first read when the event is stamped (the inferrer
        stamps an event with the first read of the zones it rests on); ``read_at`` when none."""
        follower = self.reader._sync.follower  # (the bench looks inside ``run``'s own reader)
        if follower is None or event.ts is None:
            return read_at
        settled = [zone.settled_ts for zone in follower.tracker.view().values() if zone.first_seen_ts == event.ts]
        return float(max(settled)) if settled else read_at

    def _person(self, shot: Shot, truth: Sequence[Event], progressed: bool = False) -> None:
        """Enter the next true event on the phone when the camera lags too long behind."""
        behind = shot.event_index > len(self.state.history)
        self.lagging = self.lagging + 1 if behind and not progressed else 0
        self.waiting = self.waiting + 1 if behind and self.reader.pending is not None else 0
        if self.lagging >= LAG_FRAMES or self.waiting >= PATIENCE_FRAMES:
            k = len(self.state.history)
            verdict = self.state.apply(truth[k])
            if not verdict.ok:  # an earlier camera event was wrong: this reader's game ends here
                self.figures.stopped = (f"{shot.ts / 1000:.1f} s into the video: the true event #{k} "
                                        f"was refused: {verdict}")
                return
            self.figures.by_hand += 1
            self.lagging = self.waiting = 0


def _count_found(recall: dict[str, int], picture: np.ndarray, true_quads: Sequence[np.ndarray],
                 locator: Any) -> None:
    """Add the true cards of ``picture`` and those each detector finds (IoU 0.5 or more)."""
    from ducktable.vision.detect import detect_cards, quad_iou

    recall["cards"] += len(true_quads)
    for name, found in (("edges", detect_cards(picture)), ("network", detect_cards(picture, locator=locator))):
        recall[name] += sum(any(quad_iou(q, d.quad) >= 0.5 for d in found) for q in true_quads)


def _reader_alone_rss_mb(calibration: Path, pictures: Path, players: int) -> float:
    """Peak RSS (MB) of a fresh process reading ``pictures`` with the locator's reader."""
    done = subprocess.run([sys.executable, "-m", "ducktable.bench.reader", str(calibration),
                           str(pictures), str(players)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the reader's memory could not be measured: {done.stderr.strip()[-500:]}")
    return float(done.stdout.split()[-1])


def _read_alone(calibration: Path, pictures: Path, players: int) -> float:
    """Read every picture in ``pictures`` as ``ducktable run`` does; this process's peak RSS
    (VmHWM: ``ru_maxrss`` would report the parent's, inherited across fork and exec)."""
    from ducktable.vision.classify import CardClassifier

    cv2.setNumThreads(1)
    reader = CameraTableReader(calibration, classifier=CardClassifier.load(threads=1), detector="network")
    state = make_game("duck").new_state([f"P{k + 1}" for k in range(players)], observer=True)
    for n, file in enumerate(sorted(pictures.glob("*.jpg"))):
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image is None:
            raise RuntimeError(f"cannot read {file}")
        for event in reader.events(state, _Frame(image, n * 1000 / 15)):
            state.apply_or_raise(event)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _pin_one_core() -> int | None:
    """Run on one core (the first this process may use); None where the OS cannot pin."""
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        return None
    return cpu


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def _spread(values: Sequence[float]) -> str:
    return f"{_percentile(values, 50):.0f} / {_percentile(values, 95):.0f}"


def report(bench: ReaderBench) -> str:
    old, new = bench.readers
    last = bench.first + bench.frames - 1
    how = "every frame read (queued)" if bench.every_frame else "the newest frame when free"
    lines = [
        f"reader bench: DUCK seed {bench.seed}, {bench.players} players, frames {bench.first}-{last} "
        f"of {bench.total_frames} ({bench.capture[0]}x{bench.capture[1]} read at 1280x720, camera-like, "
        f"15 fps video, the table still {bench.hold} "
        f"frames after each change; {how})",
        f"one core: {'cpu ' + str(bench.cpu) if bench.cpu is not None else 'not pinned'}; load average "
        f"{bench.load_before[0]:.2f} before, {bench.load_after[0]:.2f} after",
        f"{'':34}{old.title:>26}{new.title:>18}",
    ]

    def row(name: str, a: str, b: str) -> None:
        lines.append(f"{name:34}{a:>26}{b:>18}")

    row("frames read", str(old.frames_read), str(new.frames_read))
    row("CPU ms per frame, median", f"{old.median():.1f}", f"{new.median():.1f}")
    row("CPU ms per frame, p95", f"{old.p95():.1f}", f"{new.p95():.1f}")
    row("sustained fps (1000 / mean ms)", f"{old.sustained_fps():.1f}", f"{new.sustained_fps():.1f}")
    row("events by the camera", str(len(old.camera_events)), str(len(new.camera_events)))
    row("wrong events", str(old.wrong), str(new.wrong))
    row("events entered by the person", str(old.by_hand), str(new.by_hand))
    row("first clear frame -> store, p50 ms", f"{_percentile(old.latency_ms, 50):.0f}",
        f"{_percentile(new.latency_ms, 50):.0f}")
    row("first clear frame -> store, p95 ms", f"{_percentile(old.latency_ms, 95):.0f}",
        f"{_percentile(new.latency_ms, 95):.0f}")
    shown = [[ms for _, _, ms in r.shown] for r in (old, new)]
    row("cards laid: first clear -> phones", str(len(shown[0])), str(len(shown[1])))
    row("  p50 ms", f"{_percentile(shown[0], 50):.0f}", f"{_percentile(shown[1], 50):.0f}")
    row("  p95 ms", f"{_percentile(shown[0], 95):.0f}", f"{_percentile(shown[1], 95):.0f}")
    lines.append("(cards laid: plays and deals; phones: shown as seen, not yet recorded, or stored if sooner)")
    lines.append("where the latency went, ms per event, p50 / p95 (see bench/reader.py):")
    for name, start, end in STAGES:
        row(f"  {name}", *(_spread([getattr(e, end) - getattr(e, start) for e in r.stages])
                           for r in (old, new)))
    ratio_median = new.median() / old.median() if old.cpu_ms and new.cpu_ms else float("nan")
    ratio_mean = (float(np.mean(new.cpu_ms)) / float(np.mean(old.cpu_ms))
                  if old.cpu_ms and new.cpu_ms else float("nan"))
    lines.append(f"new / old CPU per frame: median {ratio_median:.3f}, mean {ratio_mean:.3f}")
    counts = new.counts
    if counts:
        lines.append(f"card locator path: {counts.get('still', 0)} of {counts.get('frames', 0)} frames "
                     f"still (the last reading repeated), {counts.get('fallback', 0)} searched again "
                     f"by edges, {counts.get('recut', 0)} searched by edges for an unnamed card; "
                     f"cards classified {counts.get('classified', 0)}, kept their name "
                     f"{counts.get('kept', 0)}")
    cards = bench.recall["cards"]
    if cards:
        lines.append(f"true cards found by each detector alone, on every {RECALL_EVERY}th frame with no "
                     f"hand: edge-map search {bench.recall['edges']} of {cards}, card locator "
                     f"{bench.recall['network']} of {cards}")
    for figures in bench.readers:
        slow = sorted(figures.stages, key=lambda e: e.stored - e.clear, reverse=True)[:SLOWEST]
        if slow:
            lines.append(f"{figures.title}: slowest events, ms after the first clear frame "
                         "(decidable, first read, settled, proposed, stored):")
        for e in slow:
            lines.append(f"  #{e.index} {e.type}: " + ", ".join(
                f"{getattr(e, stage) - e.clear:.0f}" for stage in ("decidable", "first_read", "settled",
                                                                    "proposed", "stored")))
        late = sorted(figures.shown, key=lambda x: x[2], reverse=True)[:SLOWEST]
        if late:
            lines.append(f"{figures.title}: cards laid slowest to the phones: "
                         + ", ".join(f"#{k} {kind} {ms:.0f} ms" for k, kind, ms in late))
        for said in figures.wrong_said:
            lines.append(f"{figures.title}: wrong {said}")
        if figures.stopped:
            lines.append(f"{figures.title}: stopped at {figures.stopped}")
    lines.append(f"events the same (both readers): {'yes' if bench.events_equal else 'no'}")
    lines.append(f"peak RSS of the locator's reader alone: {bench.reader_rss_mb:.0f} MB (a fresh process "
                 f"reading the first {RSS_FRAMES} frames as JPEG); of this bench's process: "
                 f"{bench.rss_peak_mb:.0f} MB (both readers and the renderer's cache)")
    return "\n".join(lines)


if __name__ == "__main__":  # the memory measurement's own process (see _reader_alone_rss_mb)
    print(f"{_read_alone(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])):.1f}")

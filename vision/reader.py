"""The camera's side of ``ducktable run``: frames of a real table in, the game events they show out.

Why this module exists: the run loop (device/runloop.py) hands every camera frame, with the
match's current state from the store, to a *table reader* and records the events it returns.
This module builds that reader and keeps it going: the table layout and homography saved by
``ducktable calibrate`` (:mod:`.layout`, reloaded when it is written again), a moved camera
noticed (:class:`~.calibrate.DriftWatch`), bad frames skipped, frame times put on the phones'
clock. What it delegates: how each game's table becomes a snapshot and which inferrer reads it
(:mod:`.table_views`, with :mod:`.pile_layouts` and :mod:`.pile_reading` for the cards beside
a board), and the camera's copy of the match kept in step with the store's log, with what
people took back or rejected (:mod:`.store_sync`).

Events added by hand (a phone, a button, a confirmed camera guess) are walked into the copy
with the store's time, and what the copy then catches up on from the frames it kept is reported
like the frame's own events. What the camera is unsure of is exposed as
:attr:`CameraTableReader.pending` for the phones to confirm or reject; what keeps the camera
from reading at all (no calibration, a moved camera, no model) as
:attr:`CameraTableReader.problem`, a sentence that says what to do. A bad frame is skipped with
a log line; nothing here raises into the run loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules.core import Event, State
from ducktable.rules.infer_base import Inference
from ducktable.rules.misread import Mend
from ducktable.rules.snapshot import TableSnapshot

from .calibrate import DriftWatch
from .layout import LayoutError, TableLayout
from .pipeline import Classify, game_namer
from .store_sync import StoreSync, match_key
from .table_views import TableView, table_view

log = logging.getLogger(__name__)

CALIBRATION_FOLDER = "calibration"
"""Where ``ducktable calibrate`` keeps layouts inside the data folder (device/paths.py's
CALIBRATION_NAME; vision may not import device, a test keeps the two equal)."""
DECKS_FOLDER = "decks"
"""Enrolled decks inside the data folder (device/paths.py's DECKS_NAME)."""
EMPTY_TABLE_SUFFIX = "-empty.png"
"""``<table>-empty.png`` beside ``<table>.json``: the picture of the empty table taken at
calibration, which hand detection and the moved-camera check compare frames with. Without it
the first good frame is used instead."""

DRIFT_EVERY = 30
"""Frames between two checks that the camera has not moved (two seconds at 15 fps)."""
RECHECK_S = 2.0
"""How often a missing or changed calibration file is looked for again."""
READ_SIDE = 1280
"""The table reader works on the camera's picture scaled down to at most this many pixels
across (its *view*: zones, hands, a moved camera, calibration), as the detector searches at
this size; a larger picture is kept only to cut the cards from (see :func:`reading_view`)."""
MIN_SIDE = 64
FRAME_GAP_MS = 66
"""Timestamp step for frames that come without one (plain arrays)."""


def calibration_path(data_dir: str | Path, table: str = "default") -> Path:
    """The layout file ``ducktable calibrate --table TABLE`` writes."""
    return Path(data_dir) / CALIBRATION_FOLDER / f"{table}.json"


def empty_table_path(layout_path: Path) -> Path:
    return layout_path.with_name(layout_path.stem + EMPTY_TABLE_SUFFIX)


# ---- frames ---------------------------------------------------------------------------------

def frame_image(frame: Any) -> tuple[np.ndarray | None, float | None, str]:
    """The BGR picture of ``frame`` (a camera Frame with ``image`` and ``timestamp_ms``, or an
    array), its timestamp, and why it cannot be used ("" when it can)."""
    if frame is None:
        return None, None, "no picture (None)"
    image = getattr(frame, "image", frame)
    stamp = getattr(frame, "timestamp_ms", None)
    ts = float(stamp) if isinstance(stamp, int | float) and np.isfinite(stamp) else None
    if not isinstance(image, np.ndarray):
        return None, None, f"not a picture ({type(image).__name__})"
    if image.dtype != np.uint8:
        return None, None, f"pixels of type {image.dtype}, not 8-bit"
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.ndim != 3 or image.shape[2] != 3:
        return None, None, f"an array of shape {image.shape}, not a colour picture"
    if min(image.shape[:2]) < MIN_SIDE:
        return None, None, f"a picture of only {image.shape[1]}x{image.shape[0]} pixels"
    return np.ascontiguousarray(image), ts, ""


def reading_view(picture: np.ndarray, size: tuple[int, int] | None = None
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """The view the table reader works on, and the full picture when the camera gave more
    pixels than that (None otherwise). ``size`` (width, height): the view's size, that of the
    picture the table was calibrated with; None: at most :data:`READ_SIDE` across.

    Why both: everything the reader measures (zones, hands, a moved camera, the calibration)
    is judged at one size whatever the camera gives, while a card's crop gains from every
    pixel the camera has: on the benchmark's tables, 1920 x 1080 pictures searched at
    1280 x 720 name 99.87% of the cards found right, against 99.50% at 1280 x 720, and DUCK's
    faint yellow digits go wrong 3 times instead of 21 (docs/benchmarks.md). Down to half size the view is scaled
    bilinearly: 1.6 ms for a 1920 x 1080 picture on one core here against 10 ms by pixel area,
    and on those tables the detector finds as many cards in it; further down, by area (bilinear
    would skip pixels).
    """
    h, w = picture.shape[:2]
    scale = READ_SIDE / max(h, w) if size is None else size[0] / w
    if scale >= 1.0 or (size is not None and abs(h * scale - size[1]) > 2):
        return picture, None  # (another shape than the calibration's: the reader says so)
    target = (round(w * scale), round(h * scale)) if size is None else size
    how = cv2.INTER_LINEAR if scale >= 0.5 else cv2.INTER_AREA
    view = cv2.resize(picture, target, interpolation=how)
    return view, picture


def calibration_view(picture: np.ndarray, game: str) -> np.ndarray:
    """The picture ``ducktable calibrate`` measures ``game``'s table on, whose size the camera
    reader then reads every picture at (:func:`reading_view`): at most :data:`READ_SIDE` across,
    but the whole picture for Ducky Ducky, whose board with the seats' piles beyond its long
    edges needs every pixel of a wide view (:data:`~.boards.PILES_FRAME`)."""
    return picture if game == "ducky" else reading_view(picture)[0]


class CameraTableReader:
    """Frame + the store's state -> the events the camera is sure of (run loop's TableReader).

    After each call: :attr:`pending` is the event waiting for a person (or None), :attr:`news`
    the cards seen that no recorded event explains yet, :attr:`problem` what stops the camera
    from reading (or None), :attr:`skipped` how many bad frames were skipped. :meth:`reject`
    tells it a person said no to the pending event.
    """

    def __init__(self, layout_path: Path, *, decks_dir: Path | None = None, model: str | None = None,
                 classifier: Any = None, drift_every: int = DRIFT_EVERY,
                 clock: Callable[[], float] = time.time, recheck_s: float = RECHECK_S,
                 detector: str = "network") -> None:
        """``detector``: "network", the card locator with the edge-map search where it is in
        doubt (see :class:`~.frame_reader.FrameReader`), or "edges", the edge-map search on
        every frame (:data:`~.locator.DETECTORS`)."""
        from .locator import DETECTORS

        if detector not in DETECTORS:
            raise ValueError(f"unknown detector {detector!r}; use one of {', '.join(DETECTORS)}")
        self.detector = detector
        self.layout_path = Path(layout_path)
        self.decks_dir = decks_dir
        self.model = model or None
        self.drift_every = max(1, drift_every)
        self.clock = clock
        self.recheck_s = recheck_s
        self.pending: Inference | None = None
        self.problem: str | None = None
        self.skipped = 0
        self.frames = 0
        self.seconds: dict[str, float] = {"read": 0.0, "follow": 0.0, "drift": 0.0}
        self._classifier = classifier
        self._locator: Any = None
        self._saved: TableLayout | None = None
        self._stamp: tuple[float, float] | None = None  # (layout, empty picture) mtimes read
        self._checked_at = -1e18
        self._empty: np.ndarray | None = None
        self._drift: DriftWatch | None = None
        self._moved = False
        self._since_check: int | None = None
        self._view: TableView | None = None
        self._view_key: str | None = None
        self._sync = StoreSync()
        self._last_ts = -1
        self._offset_ms: float | None = None
        self._said: str | None = None
        self._mends: list[Mend] = []

    # -- the run loop's protocol ------------------------------------------------------------
    def events(self, state: State, frame: Any) -> list[Event]:
        self.frames += 1
        image, stamp, bad = frame_image(frame)
        if image is None:
            self._skip(bad)
            return []
        try:
            return self._events(state, image, stamp)
        except Exception as exc:  # a frame the readers choke on must not stop the camera
            self._skip(f"it could not be read ({type(exc).__name__}: {exc})")
            log.debug("frame %d failed", self.frames, exc_info=True)
            return []

    @property
    def counts(self) -> dict[str, int]:
        """How the current game's card path spent its frames: read, still (the last reading
        repeated), fallback (searched again by edges), cards classified and kept (empty for the
        board games, or before a game is read)."""
        return dict(self._view.counts) if self._view is not None else {}

    @property
    def news(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The cards the table shows plainly that no recorded event explains yet, zone by zone
        (``TableFollower.news``): the phones show them at once, a laid-out play before it
        reaches the pile. Nothing while the camera cannot read."""
        follower = self._sync.follower
        if follower is None or self.problem is not None:
            return ()
        return follower.news()

    def take_mends(self) -> list[Mend]:
        """Earlier camera events the camera mended itself since the last call (the table showed
        the true card plainly): the run loop records them as corrections of the store's log."""
        taken, self._mends = self._mends, []
        return taken

    @property
    def history(self) -> list[Event]:
        """The match's events as the camera's copy holds them (the store's log, once the next
        frame has brought the copy up to it)."""
        return self._sync.history

    def reject(self, event: Event) -> None:
        """A person said the camera's pending ``event`` is not what happened: drop it and do
        not suggest it again at this point of the game."""
        follower = self._sync.follower
        if follower is None:
            return
        self._sync.reject(event)
        self.pending = follower.pending

    def new_match(self) -> None:
        """Another match is being played (two matches of the same players look alike to the
        reader): forget the follower, what people took back and what they rejected."""
        self._sync.forget()
        self._view = self._view_key = None
        self.pending = None

    def snapshot(self, state: State, frame: Any) -> TableSnapshot | None:
        """What this reader sees of ``state``'s table in ``frame`` (a camera Frame or an array),
        read exactly as for :meth:`events` but not followed: None when it cannot read (see
        :attr:`problem`, or a skipped frame). The replays (``replay-video --reader run``) feed
        their pictures through here."""
        self.frames += 1
        image, stamp, bad = frame_image(frame)
        if image is None:
            self._skip(bad)
            return None
        t0 = time.perf_counter()
        try:
            snapshot = self._snapshot(state, image, stamp)
        except Exception as exc:  # as events(): a frame the readers choke on is skipped
            self._skip(f"it could not be read ({type(exc).__name__}: {exc})")
            return None
        self.seconds["read"] += time.perf_counter() - t0
        if snapshot is not None:
            self._say(None)
        return snapshot

    # -- one frame -------------------------------------------------------------------------------
    def _events(self, state: State, picture: np.ndarray, stamp: float | None) -> list[Event]:
        t0 = time.perf_counter()
        snapshot = self._snapshot(state, picture, stamp)
        if snapshot is None:
            return self._stop()
        t1 = time.perf_counter()
        assert self._view is not None
        follower = self._sync.follow(state, self._view.inferrer)
        # walking in an event settled by hand, the follower caught up with what the table did
        # meanwhile: what it applied then is the camera's to report, like this frame's events
        caught_up = follower.state.history[len(state.history):]
        step = follower.feed(snapshot)
        self._mends.extend(step.mended)
        self.seconds["read"] += t1 - t0
        self.seconds["follow"] += time.perf_counter() - t1
        self.pending = follower.pending
        self._say(None)
        return [*caught_up, *(inference.event for inference in step.applied)]

    def _snapshot(self, state: State, picture: np.ndarray, stamp: float | None) -> TableSnapshot | None:
        """The frame's snapshot, or None (with :attr:`problem` said) when the table cannot be
        read: no calibration, another picture size, a moved camera, a game it cannot read."""
        if not self._calibration_ready():
            return None
        calibrated = None if self._empty is None else (self._empty.shape[1], self._empty.shape[0])
        image, detail = reading_view(picture, calibrated)
        assert self._saved is not None
        if self._empty is None:
            self._empty = image.copy()
            self._drift = DriftWatch(self._saved, self._empty)
            log.warning("no picture of the empty table was saved with the calibration (%s); "
                        "the first camera frame stands in for it", empty_table_path(self.layout_path))
        if self._empty.shape != image.shape:
            self._say(
                f"the camera now gives {picture.shape[1]}x{picture.shape[0]} pictures (read at "
                f"{image.shape[1]}x{image.shape[0]}) but the table was calibrated at "
                f"{self._empty.shape[1]}x{self._empty.shape[0]}; set the camera back or run "
                "`ducktable calibrate` again")
            return None
        if not self._camera_in_place(image):
            return None
        view = self._table_view(state)
        if view is None:
            return None
        return view.read(image, self._timestamp(stamp), self.frames, detail)

    def _stop(self, problem: str | None = None) -> list[Event]:
        if problem is not None:
            self._say(problem)
        self.pending = None
        return []

    def _say(self, problem: str | None) -> None:
        """Keep ``problem`` for the scoreboard; log it once when it starts and when it ends."""
        if problem != self._said:
            if problem is not None:
                log.warning("camera: %s", problem)
            elif self._said is not None:
                log.warning("camera: reading the table again")
            self._said = problem
        self.problem = problem

    def _skip(self, why: str) -> None:
        self.skipped += 1
        if self.skipped <= 10 or self.skipped % 100 == 0:
            log.warning("camera: skipped frame %d: %s (%d skipped so far)", self.frames, why, self.skipped)

    def _timestamp(self, stamp: float | None) -> int:
        """Wall-clock milliseconds for this frame (phones stamp their events the same way),
        spaced as the camera spaced them, and always increasing."""
        if stamp is None:
            ts = self._last_ts + FRAME_GAP_MS if self._last_ts >= 0 else int(self.clock() * 1000)
        else:
            if self._offset_ms is None:
                self._offset_ms = self.clock() * 1000 - stamp
            ts = int(self._offset_ms + stamp)
        ts = max(ts, self._last_ts + 1)
        self._last_ts = ts
        return ts

    # -- calibration and a moved camera ---------------------------------------------------------
    def _calibration_ready(self) -> bool:
        """Load (or reload, when ``ducktable calibrate`` wrote it again) the calibration; False
        with :attr:`problem` set when there is none."""
        now = time.monotonic()
        if now - self._checked_at < self.recheck_s:
            return self._saved is not None
        self._checked_at = now
        empty_path = empty_table_path(self.layout_path)
        try:
            stamp = (self.layout_path.stat().st_mtime,
                     empty_path.stat().st_mtime if empty_path.is_file() else 0.0)
        except OSError:
            stamp = None
        if stamp is not None and stamp == self._stamp:
            return self._saved is not None
        self._stamp = stamp
        self._saved, self._view, self._view_key = None, None, None
        self._empty, self._drift, self._moved, self._since_check = None, None, False, None
        try:
            saved = TableLayout.load(self.layout_path)
            if saved.homography is None:
                raise LayoutError(f"{self.layout_path} holds no camera calibration; run `ducktable calibrate`")
        except LayoutError as exc:
            self._say(f"{exc} (the scoreboard works meanwhile: enter events on the phone)")
            return False
        self._saved = saved
        if empty_path.is_file():
            picture = cv2.imread(str(empty_path), cv2.IMREAD_COLOR)
            if picture is None:
                log.warning("camera: cannot read %s; the first camera frame stands in for it", empty_path)
            else:
                self._empty = picture
                self._drift = DriftWatch(saved, picture)
        log.info("camera: using the calibration %s", self.layout_path)
        return True

    def _camera_in_place(self, image: np.ndarray) -> bool:
        """Check on the first frame, then every ``drift_every`` frames (every frame once it
        moved), that the camera sees the table as calibrated; False with :attr:`problem` set
        when it does not."""
        assert self._drift is not None
        if self._since_check is not None and not self._moved:
            self._since_check += 1
            if self._since_check < self.drift_every:
                return True
        self._since_check = 0
        t0 = time.perf_counter()
        drift = self._drift.check(image)
        self.seconds["drift"] += time.perf_counter() - t0
        self._moved = drift.moved
        if drift.moved:
            self._say(drift.message)
            return False
        return True

    # -- the game's view -------------------------------------------------------
    def _table_view(self, state: State) -> TableView | None:
        key = match_key(state)
        if self._view is not None and key == self._view_key:
            return self._view
        assert self._saved is not None and self._empty is not None
        try:
            self._view = table_view(state, self._saved, self._empty, self._classify_for, self._card_locator())
        except LayoutError as exc:
            self._view = None
            self._say(f"{exc}; enter the events of {state.game.title or state.game.name} on the phone")
            return None
        except ValueError as exc:
            self._view = None
            self._say(f"the camera cannot follow {state.game.title or state.game.name} yet ({exc}); "
                      "enter its events on the phone")
            return None
        self._view_key = key
        return self._view

    def _card_locator(self) -> Any:
        """The card locator, loaded once; None for the edge-map search alone, or (with a log
        line) when the locator cannot be loaded: the edge-map search reads every frame then."""
        if self.detector != "network":
            return None
        if self._locator is None:
            from .classify import ModelError
            from .locator import CardLocator

            try:
                self._locator = CardLocator.load(threads=1)
            except ModelError as exc:
                log.warning("camera: the card locator cannot be loaded (%s); the slower edge-map "
                            "search finds the cards instead", exc)
                self.detector = "edges"
                return None
        return self._locator

    def _classify_for(self, game: str) -> Classify:
        if self._classifier is None:
            from .classify import CardClassifier, ModelError

            decks = self.decks_dir if self.decks_dir is not None and self.decks_dir.is_dir() else None
            try:
                self._classifier = CardClassifier.load(self.model, prototypes_dir=decks, threads=1)
            except ModelError as exc:
                raise LayoutError(f"the card classifier cannot be loaded ({exc})") from None
        return game_namer(self._classifier, game)


def make_table_reader(camera: Any, data_dir: str | Path, *, classifier: Any = None) -> CameraTableReader:
    """The factory ``[camera] reader`` names (device/cli_run.py calls it with the camera
    settings and the data folder). Reads ``camera.table`` (which calibration, default
    "default"), ``camera.model`` (a classifier .onnx, default the shipped one),
    ``camera.drift_every`` and ``camera.detector`` ("network" or "edges") when present. Never
    fails for a missing calibration or model: the reader reports those as its
    :attr:`~CameraTableReader.problem`."""
    data = Path(data_dir)
    table = str(getattr(camera, "table", "") or "default")
    return CameraTableReader(
        calibration_path(data, table),
        decks_dir=data / DECKS_FOLDER,
        model=str(getattr(camera, "model", "") or "") or None,
        classifier=classifier,
        drift_every=int(getattr(camera, "drift_every", DRIFT_EVERY) or DRIFT_EVERY),
        detector=str(getattr(camera, "detector", "") or "network"),
    )

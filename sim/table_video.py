"""Synthetic videos of whole bot games at a table, and replaying them through the camera path.

Why this module exists: camera frames of a real game must become the game's true event
log. A bot game gives that truth; this module turns it into what a camera would see
(a *script* of table contents frame by frame, with hands reaching over the zones being changed
and now and then over others), renders the frames with :func:`ducktable.sim.scene.compose_table`
plus markers, hands and sensor noise, and runs them through detector -> classifier -> zones ->
stability tracker -> inference -> engine, comparing what was applied with the truth.

Two reading modes: ``oracle`` builds each snapshot straight from the script (true labels,
with optional random misreads) to test the tracker and inference alone; ``camera`` renders
frames and reads them with the real detector and either the true labels of the cards found
(``labels="truth"``) or the shipped classifier (``labels="model"``). A simulated person
watches the scoreboard and enters what the camera holds back or misses (see :func:`replay`);
the figures count how many events the camera got right alone, and any it got wrong.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from ducktable.rules import Event, make_game, simulate
from ducktable.rules.core import Bot, State
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.duck import DuckState, GreedyBot
from ducktable.rules.infer_base import MAX_MENDS_ASKED, Inferrer, TableFollower
from ducktable.rules.infer_duck import DuckInferrer
from ducktable.rules.misread import Mend, same_suspect
from ducktable.rules.snapshot import HIDDEN, CardRead, TableSnapshot, ZoneRead, middle_zone, seat_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.vision.augment import CaptureLook, capture
from ducktable.vision.frame_reader import FrameReader, model_classifier
from ducktable.vision.layout import CARD_SCALE, TableLayout, duck_layout

FPS = 15
FRAME_MS = 1000 / FPS
REVEAL_SHOWN_S = 1.5
"""Seconds the round-end hands lie shown, still, after the last is spread, before they are swept
up: the players sum every hand to find the lowest and the highest (DUCK-B2, B3, E1) and each picks
their highest card to tuck (E2) while the hands lie face up, which takes seconds at a real table.
1.5 s is a short count, kept short so that the camera has no more time than a quick table
gives it."""
REVEAL_HOLD = math.ceil(REVEAL_SHOWN_S * FPS)
""":data:`REVEAL_SHOWN_S` in frames."""


# ---- the script: what lies on the table, frame by frame ------------------------------------------

@dataclass(frozen=True)
class Shot:
    """One frame's truth: every zone's cards (reading order) and the zones a hand covers."""

    zones: tuple[tuple[str, tuple[str, ...]], ...]
    covered: frozenset[str]
    ts: int
    event_index: int  # how many true events have happened by this frame

    def contents(self) -> dict[str, tuple[str, ...]]:
        return dict(self.zones)


class Counted(Protocol):
    """A frame's truth that says how many true events have happened by it."""

    @property
    def event_index(self) -> int: ...


def frames_shown(shots: Sequence[Counted], max_frames: int | None) -> int:
    """How many of ``shots`` a video cut after ``max_frames`` frames plays: on past the cut
    until the next event begins, so that the events those frames reach are shown whole (an
    event counts from its hand's first frame; its change and the still table after it follow),
    as a camera needs to see them; every frame without a cut."""
    if max_frames is None or max_frames >= len(shots):
        return len(shots)
    reached = shots[max_frames - 1].event_index
    return next((i for i in range(max_frames, len(shots)) if shots[i].event_index > reached), len(shots))


@dataclass
class _Stage:
    """The table as the script changes it; ``emit`` adds frames of the current contents."""

    zone_names: list[str]
    rng: random.Random
    hold: int
    cover: int
    stray_hands: float
    shots: list[Shot] = field(default_factory=list)
    zones: dict[str, list[str]] = field(default_factory=dict)
    event_index: int = 0

    def __post_init__(self) -> None:
        self.zones = {name: [] for name in self.zone_names}

    def _shot(self, covered: Sequence[str]) -> None:
        view = tuple((name, tuple(self.zones[name])) for name in self.zone_names)
        ts = round(len(self.shots) * FRAME_MS)
        self.shots.append(Shot(view, frozenset(covered), ts, self.event_index))

    def change(self, reach: Sequence[str], apply: Callable[[], None]) -> None:
        """A hand reaches over ``reach`` for a few frames, changes the table, and leaves."""
        for _ in range(self.cover):
            self._shot(reach)
        apply()
        for _ in range(max(1, self.cover // 2)):
            self._shot(reach)
        self.settle()

    def settle(self, frames: int | None = None) -> None:
        """``frames`` (default ``hold``) frames of a still table, now and then a stray hand."""
        for _ in range(self.hold if frames is None else frames):
            stray = [self.rng.choice(self.zone_names)] if self.rng.random() < self.stray_hands else []
            self._shot(stray)


def duck_script(state: DuckState, events: Sequence[Event], rng: random.Random, *, hold: int = 5,
                cover: int = 2, stray_hands: float = 0.05, straight_single: float = 0.0,
                piles: Callable[[DuckState, int], list[str]] | None = None) -> list[Shot]:
    """The frames of a DUCK game played by the convention of :mod:`ducktable.rules.infer_duck`.

    ``state`` is a fresh full-information state; ``events`` the true log, replayed on it.
    """
    n = state.num_players
    names = [seat_zone(s, k) for s in range(n) for k in ("discard", "reveal")]
    names += [middle_zone("draw"), middle_zone("lifebelt")]
    stage = _Stage(names, rng, hold, cover, stray_hands)
    z = stage.zones
    discard = {s: seat_zone(s, "discard") for s in range(n)}
    reveal = {s: seat_zone(s, "reveal") for s in range(n)}

    def set_piles() -> None:
        for s in range(n):
            pile = state.seats[s].pile
            z[discard[s]] = [pile[-1]] if pile else []
        z[middle_zone("draw")] = ["back"] if state.draw_count > 0 and state.phase != "deal" else []
        z[middle_zone("lifebelt")] = [] if state.is_over() else [f"lifebelt-{state.lifebelt}-green"]

    stage.settle()
    for event in events:
        seat = event.seat
        if event.type == "deal":
            state.apply_or_raise(event)
            stage.event_index += 1
            stage.change([*discard.values(), middle_zone("draw"), middle_zone("lifebelt")], set_piles)
            continue
        if event.type == "play":
            assert seat is not None
            cards = list(event.data["cards"])
            if len(cards) > 1 or rng.random() >= straight_single:
                stage.change([reveal[seat]], partial(z.__setitem__, reveal[seat], cards))

            def played(s: int = seat) -> None:
                z[reveal[s]] = []
                set_piles()

            state.apply_or_raise(event)
            stage.event_index += 1
            stage.change([reveal[seat], discard[seat]], played)
            continue
        if event.type == "draw":
            assert seat is not None
            source = event.data["pile"]
            reach = middle_zone("draw") if source == "deck" else discard[
                state.left(seat) if source == "left" else state.right(seat)]
            state.apply_or_raise(event)
            stage.event_index += 1
            stage.change([reach], set_piles)
            continue
        if event.type == "duck":
            assert seat is not None
            hand = sorted(state.seats[seat].hand.elements())
            rng.shuffle(hand)
            state.apply_or_raise(event)
            stage.event_index += 1
            stage.change([reveal[seat]], partial(z.__setitem__, reveal[seat], hand))
            continue
        if event.type == "reveal":
            shown = [list(h) for h in event.data["hands"]]
            state.apply_or_raise(event)
            stage.event_index += 1
            for s in range(n):
                if shown[s] and not z[reveal[s]]:
                    rng.shuffle(shown[s])
                    stage.change([reveal[s]], partial(z.__setitem__, reveal[s], shown[s]))
            stage.settle(max(0, REVEAL_HOLD - hold))  # the hands are counted before they go

            def cleared() -> None:
                for name in names:
                    z[name] = []
                set_piles()

            stage.change(names, cleared)
            continue
        raise ValueError(f"the DUCK script does not know the event {event.type!r}")
    return stage.shots


# ---- bot games --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BotGame:
    """A finished full-information game: its players, options, true log and final scores."""

    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    events: tuple[Event, ...]
    scores: tuple[int, ...]


def bot_game(game: str, seed: int, players: int = 3) -> BotGame:
    rng = random.Random(seed)
    g = make_game(game)
    names = tuple(f"P{i + 1}" for i in range(players))
    state = g.new_state(names)
    bots: list[Bot] = [GreedyBot(random.Random(seed * 100 + i)) for i in range(players)]
    simulate(state, bots, rng)
    return BotGame(game, names, dict(g.options), tuple(state.history), tuple(state.scores()))


def script_for(game: BotGame, seed: int, **kwargs: Any) -> list[Shot]:
    if game.game != "duck":
        raise ValueError(f"no table script for {game.game!r} yet (DUCK only)")
    state = make_game("duck", game.options).new_state(game.players)
    assert isinstance(state, DuckState)
    return duck_script(state, game.events, random.Random(seed), **kwargs)


def inferrer_for(game: str) -> Inferrer:
    if game == "duck":
        return DuckInferrer()
    raise ValueError(f"no camera inference for {game!r} yet (DUCK only)")


# ---- oracle snapshots -------------------------------------------------------------------------

def oracle_snapshots(shots: Sequence[Shot], labels: Sequence[str], *, misread: float = 0.0,
                     seed: int = 0) -> Iterator[TableSnapshot]:
    """Snapshots straight from the script: true labels, covered zones marked, and with
    probability ``misread`` per card and frame a wrong label or ``unknown`` instead."""
    rng = random.Random(seed)
    for index, shot in enumerate(shots):
        zones: dict[str, ZoneRead] = {}
        for name, cards in shot.zones:
            if name in shot.covered:
                zones[name] = HIDDEN
                continue
            reads = []
            for label in cards:
                if misread and rng.random() < misread:
                    wrong = UNKNOWN if rng.random() < 0.5 else rng.choice(labels)
                    reads.append(CardRead(wrong, 0.3 if wrong == UNKNOWN else 0.6))
                else:
                    reads.append(CardRead(label, 0.95))
            zones[name] = ZoneRead(tuple(reads))
        yield TableSnapshot(shot.ts, zones, index)


# ---- rendering ----------------------------------------------------------------------------------

class TableRenderer:
    """Draws script frames: cards as :func:`~ducktable.sim.scene.compose_scene` draws them,
    plus markers, hands and per-frame noise.

    The camera view and the table's cover and light depend on the background seed alone, so
    they are made once per renderer; each distinct table content then only lays its cards and
    camera effects on them (the same pixels as ``compose_scene``, at half the cost) and is
    cached; every frame gets its own hands and sensor noise. ``homography`` is the true
    table->frame view.
    """

    def __init__(self, game: str, layout: TableLayout, background_seed: int, *, tilt_deg: float = 4.0,
                 markers: bool = True, size: tuple[int, int] = (1280, 720),
                 capture_size: tuple[int, int] | None = None, look: CaptureLook | None = None) -> None:
        """``capture_size``: take the pictures at this size instead of ``size`` (the same table
        and view, as a camera mode with more pixels sees it). ``look``: every picture, the
        empty table's too, goes through that camera's exposure, white balance, focus, noise
        and JPEG (:func:`~ducktable.vision.augment.capture`); None: clean renders with a little
        sensor noise."""
        from ducktable.sim import scene

        self.game = game
        self.layout = layout
        self.seed = background_seed
        self.tilt = tilt_deg
        self.size = size if capture_size is None else capture_size
        self.markers = markers
        self.look = look
        self._scene = scene
        # the first draws of compose_scene's background generator, in its order
        bg_rng = np.random.default_rng([background_seed, 0xB6])
        self._view = scene._View.random(bg_rng, size, tilt_deg=tilt_deg, keep_table=True)
        if capture_size is not None:
            self._view = self._view.taken_at(capture_size)
        self._background = scene._Background.random(bg_rng, self._view, clutter_items=0)
        self.homography: np.ndarray = np.asarray(self._view.homography, np.float64)
        self._cache: dict[Any, np.ndarray] = {}
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        self._quads: dict[Any, list[np.ndarray]] = {}

    def empty_table(self) -> np.ndarray:
        """The empty table as rendered (shared: copy before drawing on it)."""
        return self._base(())

    def empty_picture(self) -> np.ndarray:
        """The empty table as the camera takes it (what ``ducktable calibrate`` is given)."""
        if self.look is None:
            return self.empty_table()
        rng = np.random.default_rng([self.seed, 0xE3])
        return capture(self._noisy(self.empty_table().copy(), rng), self.look, rng, noise=False)

    def _base(self, zones: tuple[tuple[str, tuple[str, ...]], ...]) -> np.ndarray:
        key = zones
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
                self._quads.clear()
            placements = []
            for name, cards in zones:
                zone = self.layout.zone(name)
                spots = zone.slot_centres() if zone.kind == "spread" else [zone.centre] * len(cards)
                for k, label in enumerate(cards):
                    jitter = random.Random(zlib.crc32(f"{name}/{k}/{label}".encode()))
                    x, y = spots[min(k, len(spots) - 1)]
                    placements.append(self._scene.Placement(
                        f"{self.game}/{label}", (x + jitter.uniform(-3, 3), y + jitter.uniform(-3, 3)),
                        jitter.uniform(-4, 4), CARD_SCALE))
            scene = self.compose(placements, zlib.crc32(repr(key).encode()))
            image = scene.image
            if self.markers:
                paste_markers(image, self.layout, self.homography)
            self._cache[key] = image
            self._quads[key] = [card.quad for card in scene.cards]
        return self._cache[key]

    def compose(self, placements: list[Any], effects_seed: int) -> Any:
        """``compose_scene(self.seed, placements, effects_seed, ...)`` with the view and
        background made once (see the class docstring)."""
        fx_rng = np.random.default_rng([effects_seed, 0xEF])
        return self._scene._draw(self._view, self._background, list(placements), "reference", fx_rng,
                                 hand_count=0, seed=self.seed)

    def card_quads(self, shot: Shot) -> list[np.ndarray]:
        """Where the cards of ``shot`` lie in its frame (hands not considered)."""
        self._base(shot.zones)
        return self._quads[shot.zones]

    def frame(self, shot: Shot, index: int) -> np.ndarray:
        return self.frame_and_hands(shot, index)[0]

    def frame_and_hands(self, shot: Shot, index: int) -> tuple[np.ndarray, np.ndarray]:
        """The frame, and where hands lie in it (uint8 mask, 255 = hand or arm): the truth
        that :class:`~ducktable.vision.layout.CoverWatch` is measured against."""
        image = self._base(shot.zones).copy()
        rng = np.random.default_rng([self.seed, index])
        hands = np.zeros(image.shape[:2], np.uint8)
        for name in sorted(shot.covered):
            hands |= draw_hand(image, _map(self.homography, self.layout.zone(name).centre), rng)
        image = self._noisy(image, rng)
        if self.look is not None:
            image = capture(image, self.look, rng, noise=False)
        return image, hands

    def _noisy(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-frame sensor noise (sigma 2, or the ``look``'s): a frame-sized window, at a random place, of one of
        a few stored noise fields a little larger than the frame, which is as good as fresh
        noise to the detector and a tenth of the cost (a window is a view: nothing is copied)."""
        h, w = image.shape[:2]
        if not self._noise:
            bank = np.random.default_rng([self.seed, 0x901])
            sigma = 2.0 if self.look is None else self.look.noise_sigma
            for _ in range(2):
                field = bank.normal(0, sigma, (h + NOISE_SLACK, w + NOISE_SLACK, *image.shape[2:])).round()
                self._noise.append((np.clip(field, 0, 255).astype(np.uint8),
                                    np.clip(-field, 0, 255).astype(np.uint8)))
        up, down = self._noise[int(rng.integers(len(self._noise)))]
        dy, dx = int(rng.integers(up.shape[0] - h + 1)), int(rng.integers(up.shape[1] - w + 1))
        return cv2.subtract(cv2.add(image, up[dy:dy + h, dx:dx + w]), down[dy:dy + h, dx:dx + w])


NOISE_SLACK = 160
"""How much larger than a frame the stored noise fields are: 161 x 161 windows of each."""


def _map(homography: np.ndarray, xy: tuple[float, float]) -> tuple[float, float]:
    p = cv2.perspectiveTransform(np.array([[xy]], np.float64), homography)[0, 0]
    return float(p[0]), float(p[1])


def paste_markers(image: np.ndarray, layout: TableLayout, homography: np.ndarray) -> None:
    """Print the layout's ArUco markers onto the table in ``image`` (in place)."""
    h, w = image.shape[:2]
    key = (tuple(sorted(layout.markers.items())), layout.marker_size, homography.tobytes(), (w, h))
    if key not in _MARKER_OVERLAYS:
        if len(_MARKER_OVERLAYS) >= 8:
            _MARKER_OVERLAYS.clear()
        _MARKER_OVERLAYS[key] = _marker_overlay(layout, homography, (w, h))
    paint, mask = _MARKER_OVERLAYS[key]
    shade = float(np.mean(cv2.mean(image)[:3])) / 255 * 0.3 + 0.7  # printed paper takes the room's light
    image[mask] = (paint[mask].astype(np.float32) * shade).astype(np.uint8)


_MARKER_OVERLAYS: dict[Any, tuple[np.ndarray, np.ndarray]] = {}


def _marker_overlay(layout: TableLayout, homography: np.ndarray,
                    size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The markers as seen by the camera (paint and where it lies); kept per view."""
    from ducktable.vision.calibrate import marker_image

    w, h = size
    paint_all = np.zeros((h, w, 3), np.uint8)
    mask_all = np.zeros((h, w), bool)
    for marker_id in layout.markers:
        side = 120
        tile = cv2.cvtColor(marker_image(marker_id, side), cv2.COLOR_GRAY2BGR)
        border = (tile.shape[0] - side) // 2
        corners = layout.marker_corners(marker_id)
        scale = layout.marker_size / side
        # the tile's outer square is the marker plus its white border, around the same centre
        centre = corners.mean(axis=0)
        half = (side / 2 + border) * scale
        outer = np.array([[centre[0] - half, centre[1] - half], [centre[0] + half, centre[1] - half],
                          [centre[0] + half, centre[1] + half], [centre[0] - half, centre[1] + half]])
        dst = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), homography).reshape(4, 2)
        src = np.array([[0, 0], [tile.shape[1], 0], [tile.shape[1], tile.shape[0]], [0, tile.shape[0]]],
                       np.float32)
        warp = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        paint = cv2.warpPerspective(tile, warp, (w, h), flags=cv2.INTER_AREA)
        cover = cv2.warpPerspective(np.full(tile.shape[:2], 255, np.uint8), warp, (w, h))
        mask = cover > 127
        paint_all[mask] = paint[mask]
        mask_all |= mask
    return paint_all, mask_all


SKINS = np.array([[70, 100, 150], [110, 145, 200], [150, 175, 225], [45, 65, 100], [90, 125, 175]],
                 np.float32)
"""Skin tones (BGR), light to dark."""
SLEEVES = np.array([[40, 40, 40], [120, 60, 30], [60, 60, 160], [200, 200, 200], [70, 110, 70],
                    [150, 150, 150], [30, 80, 140]], np.float32)
"""Sleeve colours (BGR): black, navy, red, white, green, grey, brown."""


def draw_hand(image: np.ndarray, target: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """A hand over ``target`` with its arm reaching in from the nearest edge, in place: shaded
    skin (darker towards its outline), half the time a sleeve on the arm, and a soft shadow on
    the table. Returns where it lies (uint8 mask, 255 = hand or arm)."""
    h, w = image.shape[:2]
    tx, ty = target
    edges = [(tx, -40.0), (tx, h + 40.0), (-40.0, ty), (w + 40.0, ty)]
    sx, sy = min(edges, key=lambda p: math.hypot(p[0] - tx, p[1] - ty))
    palm = (int(tx + rng.normal(0, 8)), int(ty + rng.normal(0, 8)))
    angle = math.atan2(ty - sy, tx - sx)
    hand = np.zeros((h, w), np.uint8)
    arm = np.zeros((h, w), np.uint8)
    cv2.line(arm, (int(sx), int(sy)), palm, 255, int(rng.uniform(55, 75)), cv2.LINE_AA)
    cv2.ellipse(hand, palm, (int(rng.uniform(45, 60)), int(rng.uniform(38, 50))),
                float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA)
    for k in range(5):
        a = angle + (k - 2) * 0.3
        base = (palm[0] + math.cos(a) * 40, palm[1] + math.sin(a) * 40)
        tip = (base[0] + math.cos(a) * 45, base[1] + math.sin(a) * 45)
        cv2.line(hand, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255, 16, cv2.LINE_AA)
    skin = SKINS[int(rng.integers(len(SKINS)))] * rng.uniform(0.9, 1.1)
    sleeve = np.zeros((h, w), np.uint8)
    if rng.random() < 0.5:  # a sleeve from a little behind the wrist
        wrist = (palm[0] - math.cos(angle) * rng.uniform(60, 110), palm[1] - math.sin(angle) * rng.uniform(60, 110))
        cv2.line(sleeve, (int(sx - math.cos(angle) * 50), int(sy - math.sin(angle) * 50)),
                 (int(wrist[0]), int(wrist[1])), 255, 90)
    cloth = SLEEVES[int(rng.integers(len(SLEEVES)))] * rng.uniform(0.85, 1.15)
    mask = cv2.max(hand, arm)
    x, y, bw, bh = cv2.boundingRect(mask)
    if not bw or not bh:
        return mask
    pad = 40
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
    colour = np.empty((y1 - y0, x1 - x0, 3), np.float32)
    colour[:] = skin
    colour[sleeve[y0:y1, x0:x1] > 0] = cloth
    cover = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
    roi = image[y0:y1, x0:x1].astype(np.float32)
    shadow = cv2.GaussianBlur(np.roll(cover, (int(rng.integers(6, 18)), int(rng.integers(-10, 10))), (0, 1)),
                              (0, 0), 9)
    roi *= (1 - rng.uniform(0.25, 0.45) * shadow)[..., None]
    rounded = 0.72 + 0.33 * cv2.GaussianBlur(cover, (0, 0), 10)  # darker towards the outline
    paint = colour * rounded[..., None]
    roi += cover[..., None] * (paint - roi)
    image[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    return mask


# ---- replay and comparison ----------------------------------------------------------------------

@dataclass
class ReplayResult:
    """How one replayed game compares with its truth."""

    seed: int
    true_events: int
    camera_right: int = 0  # true events the camera applied by itself, correctly
    confirmed: int = 0  # events a person entered (the camera lagged behind the table too long)
    accepted: int = 0  # of those, the camera's own pending guess, only confirmed
    pending_episodes: int = 0  # times the camera held an event for a person
    wrong_applied: int = 0  # camera events applied that the true log does not contain
    mended: int = 0  # of those, mended later: by the camera itself or by a person's one tap
    mended_by_hand: int = 0  # of those, by a person answering the camera's question
    exact_scores: bool = False
    true_scores: tuple[int, ...] = ()
    seen_scores: tuple[int, ...] = ()
    frames: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    cells_read: int = 0
    cells_right: int = 0
    first_problem: str = ""
    camera_in_video: int = 0  # camera_right when the frames ran out (before a person entered the rest)
    hand_in_video: int = 0  # confirmed, likewise
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per true event type: ``true``, ``camera`` (applied alone, right), ``confirmed`` (by a
    person) and ``wrong`` (the camera applied something else in its place)."""

    def tally(self, event_type: str, outcome: str) -> None:
        counts = self.by_type.setdefault(event_type, {"true": 0, "camera": 0, "confirmed": 0, "wrong": 0})
        counts[outcome] += 1


def _same(a: Event, b: Event) -> bool:
    if a.type != b.type or a.seat != b.seat:
        return False
    if a.type == "reveal":
        return [sorted(h) for h in a.data["hands"]] == [sorted(h) for h in b.data["hands"]]
    return dict(a.data) == dict(b.data)


def replay(game: BotGame, snapshots: Iterator[tuple[TableSnapshot, Shot]], *, seed: int = 0,
           patience_frames: int = 15, lag_frames: int = 90,
           tracker: StabilityTracker | None = None) -> ReplayResult:
    """Feed snapshots to a follower on an observer state. A simulated person, watching the
    scoreboard, enters the true event once the camera has held a guess for it for
    ``patience_frames`` frames (accepting the guess when it is right), or has lagged behind
    the table with nothing to show for ``lag_frames`` frames; and whatever is left at the end.
    Events are entered only once they happened at the table."""
    g = make_game(game.game, game.options)
    truth = [g.public_event(e) for e in game.events]
    state: State = g.new_state(game.players, observer=True)
    follower = TableFollower(state, inferrer_for(game.game), tracker or StabilityTracker(window=5, needed=3))
    result = ReplayResult(seed, len(truth), true_scores=game.scores)
    for event in truth:
        result.tally(event.type, "true")
    stuck = waited = 0
    was_pending = False
    ok = True

    def check_new(start: int) -> bool:
        """Judge the events applied from ``start`` on; a wrong one is counted and the game goes
        on (a later refusal leads back to it), unless it is not a misread card (an extra or
        missing event: the log and the truth no longer line up)."""
        for k in range(start, len(follower.log)):
            inference = follower.log[k]
            if inference.why in ("confirmed by hand", "entered by hand"):
                continue
            if k < len(truth) and _same(inference.event, truth[k]):
                result.camera_right += 1
                result.tally(truth[k].type, "camera")
            else:
                result.wrong_applied += 1
                result.tally(truth[k].type if k < len(truth) else inference.event.type, "wrong")
                expected = truth[k].dumps() if k < len(truth) else "nothing"
                result.first_problem = result.first_problem or (
                    f"event #{k}: applied {inference.event.dumps()} but the truth is {expected}")
                if k >= len(truth) or (inference.event.type, inference.event.seat) != (truth[k].type, truth[k].seat):
                    return False
        return True

    def mended(step_mends: Sequence[Mend]) -> None:
        """Count the camera's own mends: a right one mends a wrong event, a wrong one is one."""
        for mend in step_mends:
            if true_mend(mend, _truth_at(truth)):
                result.mended += 1
                continue
            result.wrong_applied += 1
            result.tally(mend.mended.type, "wrong")
            result.first_problem = result.first_problem or mend_problem(mend)

    for snapshot, shot in snapshots:
        result.frames += 1
        for name, cards in shot.zones:
            if name not in shot.covered and name.endswith(("discard", "reveal")):
                read = snapshot.zone(name)
                if read is not None and not read.occluded:
                    result.cells_read += 1
                    result.cells_right += read.labels == cards
        before = len(follower.log)
        t0 = time.perf_counter()
        step = follower.feed(snapshot)
        result.seconds["follow"] = result.seconds.get("follow", 0.0) + time.perf_counter() - t0
        mended(step.mended)
        ok = check_new(before)
        if not ok:
            break
        result.pending_episodes += step.pending is not None and not was_pending
        was_pending = step.pending is not None
        behind = shot.event_index > len(follower.log)
        stuck = stuck + 1 if behind and len(follower.log) == before else 0
        waited = waited + 1 if behind and step.pending is not None else 0
        if waited >= patience_frames or stuck >= lag_frames:
            before = len(follower.log)
            if not _confirmed(follower, truth, result):
                ok = False
                break
            stuck = waited = 0
            was_pending = follower.pending is not None
            ok = check_new(before)
            if not ok:
                break
    result.camera_in_video, result.hand_in_video = result.camera_right, result.confirmed
    if ok:  # the video is over: a person enters whatever the camera did not settle
        while not follower.state.is_over() and len(follower.log) < len(truth):
            before = len(follower.log)
            if not _confirmed(follower, truth, result, camera_on=False) or not check_new(before):
                break
    state = follower.state  # (a mend replays the log into a new state)
    result.seen_scores = tuple(state.scores()) if state.is_over() else ()
    left_wrong = any(not _same(i.event, t) for i, t in zip(follower.log, truth, strict=False))
    result.exact_scores = result.seen_scores == game.scores and not left_wrong
    return result


def _confirmed(follower: TableFollower, truth: list[Event], result: ReplayResult, camera_on: bool = True) -> bool:
    """:func:`_confirm`, False when the true event was refused (the game cannot go on; what was
    counted so far, a wrong camera event included, stays in ``result``)."""
    try:
        _confirm(follower, truth, result, camera_on)
    except RuntimeError:
        return False
    return True


def _confirm(follower: TableFollower, truth: list[Event], result: ReplayResult, camera_on: bool = True) -> None:
    """The person enters the next true event; when the rules refuse it because of an earlier
    camera misread, they answer the camera's question (one tap on the card it really was) where
    it offers the true one, and enter it again."""
    k = len(follower.log)
    if follower.pending is not None and _same(follower.pending.event, truth[k]):
        result.accepted += 1  # the camera's own guess, only confirmed
    verdict = follower.confirm(truth[k], catch_up=camera_on)
    if not verdict.ok:
        right = tapped_mend(follower, truth[k], verdict.reason, _truth_at(truth))
        if right is not None and follower.mend(right):
            result.mended += 1
            result.mended_by_hand += 1
            verdict = follower.confirm(truth[k], catch_up=camera_on)
    result.confirmed += 1
    result.tally(truth[k].type, "confirmed")
    if not verdict.ok:
        result.first_problem = result.first_problem or f"event #{k}: the true event was refused: {verdict}"
        raise RuntimeError(result.first_problem)


TruthAt = Callable[[int], Event | None]
"""The true event at a place of the follower's log (None: none there)."""


def _truth_at(truth: Sequence[Event]) -> TruthAt:
    return lambda index: truth[index] if index < len(truth) else None


def true_mend(mend: Mend, truth_at: TruthAt, same: Callable[[Event, Event], bool] = _same) -> bool:
    """Whether ``mend`` gives the true event at its place."""
    true = truth_at(mend.index)
    return true is not None and same(mend.mended, true)


def tapped_mend(follower: TableFollower, refused: Event, reason: str, truth_at: TruthAt,
                same: Callable[[Event, Event], bool] = _same) -> Mend | None:
    """The choice a person taps when the rules refuse the true event ``refused`` for ``reason``:
    of the choices the camera's question offers, the one the truth has; None when it offers none."""
    offered = same_suspect(follower.mends_for(refused, reason))[:MAX_MENDS_ASKED]
    return next((mend for mend in offered if true_mend(mend, truth_at, same)), None)


def mend_problem(mend: Mend) -> str:
    """The first problem's words for a mend the camera made by itself that the truth does not have."""
    return (f"event #{mend.index}: the camera mended {mend.recorded.dumps()} into {mend.mended.dumps()}, "
            "which the truth does not have")


def oracle_replay(seed: int, *, players: int = 3, misread: float = 0.02, hold: int = 5) -> ReplayResult:
    """One DUCK bot game replayed from oracle snapshots (no pixels); ``hold``: frames the table
    stays still after each change (see :func:`duck_script`)."""
    game = bot_game("duck", seed, players)
    shots = script_for(game, seed, hold=hold)
    labels = sorted({c for e in game.events if e.type == "reveal" for h in e.data["hands"] for c in h})
    snaps = oracle_snapshots(shots, labels or ["yellow-1"], misread=misread, seed=seed)
    return replay(game, zip(snaps, shots, strict=True), seed=seed)


def camera_replay(seed: int, *, players: int = 3, labels: str = "truth", tilt_deg: float = 4.0,
                  max_frames: int | None = None, frames_dir: str | None = None,
                  snapshots_dir: str | None = None, hold: int = 5,
                  capture_size: tuple[int, int] | None = None, camera_like: bool = True,
                  reader: str = "replay") -> ReplayResult:
    """One DUCK bot game rendered frame by frame and read back through the camera path
    (``camera_like`` and ``reader``: see :class:`CameraFrames`).

    With ``snapshots_dir`` the camera's reads (one snapshot per frame, JSON lines) are kept
    there and used again next time, so a change to tracking or inference is measured on the
    same reads in seconds instead of minutes; delete the folder after changing the renderer,
    the detector or the cover watch (a new classifier gets new files by itself).
    """
    game = bot_game("duck", seed, players)
    shots = script_for(game, seed, hold=hold)
    shots = shots[:frames_shown(shots, max_frames)]
    cache = None if snapshots_dir is None else reads_cache(
        "duck", snapshots_dir, players=players, seed=seed, hold=hold, tilt_deg=tilt_deg, labels=labels,
        capture_size=capture_size, camera_like=camera_like, reader=reader)
    snapshots = CameraFrames("duck", shots, duck_layout(players), seed=seed, labels=labels, tilt_deg=tilt_deg,
                             frames_dir=frames_dir, cache=cache, capture_size=capture_size,
                             camera_like=camera_like, reader=reader, players=players)
    result = replay(game, zip(snapshots, shots, strict=True), seed=seed)
    result.seconds.update(snapshots.seconds)
    return result


# ---- rendered frames ---------------------------------------------------------------------------

PROGRESS_EVERY_S: float | None = None
"""When set (``replay-video`` sets it in each process that replays), a game whose frames are
rendered and read says how far it is on stderr this often: such a game takes minutes."""


class FrameProgress:
    """Says on stderr, every :data:`PROGRESS_EVERY_S` seconds, how many of a game's frames
    have been read; silent when that is None."""

    def __init__(self, label: str, total: int) -> None:
        self.label, self.total = label, total
        self.start = self.said = time.monotonic()

    def tick(self, done: int) -> None:
        if PROGRESS_EVERY_S is None:
            return
        now = time.monotonic()
        if now - self.said >= PROGRESS_EVERY_S:
            self.said = now
            rate = done / max(now - self.start, 1e-9)
            left = (self.total - done) / max(rate, 1e-9)
            print(f"  ... {self.label}: frame {done} of {self.total} ({rate:.1f} frames/s, about "
                  f"{left / 60:.0f} min left)", file=sys.stderr, flush=True)


@dataclass
class CameraFrames:
    """A game's script shots rendered (cards, markers, hands, noise) and read back by detector,
    labels (the true ones of the cards found, or the shipped classifier with ``labels="model"``)
    and zones, after calibrating from the markers of the empty table. Iterate for snapshots;
    ``seconds`` holds where the time went."""

    game: str
    shots: Sequence[Shot]
    layout: TableLayout
    _: KW_ONLY
    seed: int
    labels: str = "truth"
    tilt_deg: float = 4.0
    max_frames: int | None = None
    frames_dir: str | None = None
    cache: Path | None = None
    capture_size: tuple[int, int] | None = None
    """Pictures taken at this size (the table as at 1280 x 720, more pixels), read as the camera
    reader reads them: at 1280 x 720, the cards cut from the full picture."""
    camera_like: bool = True
    """Every picture goes through a camera's capture (:class:`~ducktable.vision.augment.CaptureLook`,
    drawn from the seed: exposure, white balance, focus, noise, JPEG 60-95); False: clean renders."""
    reader: str = "replay"
    """``replay``: the card path read directly (:class:`~ducktable.vision.frame_reader.FrameReader`);
    ``run``: ``ducktable run``'s own reader (:class:`~ducktable.vision.reader.CameraTableReader`,
    calibrated from the empty table's picture saved as ``ducktable calibrate`` saves it);
    ``labels`` must then be "model"."""
    players: int = 3
    options: Mapping[str, Any] | None = None
    seconds: dict[str, float] = field(default_factory=dict, init=False)

    def __iter__(self) -> Iterator[TableSnapshot]:
        """The reads of every frame; with a ``cache`` file (see :func:`reads_cache`)
        kept reads are used again, and new ones are all taken before the first is given (the
        replay may stop early) and then kept."""
        shots = self.shots[:frames_shown(self.shots, self.max_frames)]
        reads, kept = kept_or_read(self.cache, len(shots), lambda: self._read(shots))
        if kept:
            self.seconds["cached_reads"] = 1.0
        yield from reads

    def renderer(self) -> TableRenderer:
        """The game's renderer, with this camera's capture when :attr:`camera_like`."""
        look = CaptureLook.random(np.random.default_rng([self.seed, 0xCA97])) if self.camera_like else None
        return TableRenderer(self.game, self.layout, background_seed=self.seed, tilt_deg=self.tilt_deg,
                             capture_size=self.capture_size, look=look)

    def _read(self, shots: Sequence[Shot]) -> Iterator[TableSnapshot]:
        if self.reader == "run":
            yield from self._read_as_run(shots)
            return
        from ducktable.vision.calibrate import calibrate_from_markers
        from ducktable.vision.reader import reading_view

        game = self.game
        renderer = self.renderer()
        empty, _ = reading_view(renderer.empty_picture())
        calibrated = calibrate_from_markers(self.layout, empty).layout
        reader = FrameReader(calibrated, empty, game, model_classifier(game) if self.labels == "model" else None)
        render_s = 0.0
        for index, shot, picture, took in self._pictures(renderer, shots):
            render_s += took
            image, detail = reading_view(picture)
            yield reader.read(image, shot.ts, index, shot, detail=detail)
            self.seconds.update(reader.seconds, render=render_s)

    def _pictures(self, renderer: TableRenderer, shots: Sequence[Shot]
                  ) -> Iterator[tuple[int, Shot, np.ndarray, float]]:
        """Each shot's picture and the seconds it took to render (written to ``frames_dir``)."""
        if self.frames_dir is not None:
            Path(self.frames_dir).mkdir(parents=True, exist_ok=True)
        progress = FrameProgress(f"{self.game} seed {self.seed}", len(shots))
        for index, shot in enumerate(shots):
            progress.tick(index)
            t0 = time.perf_counter()
            picture = renderer.frame(shot, index)
            took = time.perf_counter() - t0
            if self.frames_dir is not None:
                cv2.imwrite(f"{self.frames_dir}/frame-{index:05d}.jpg", picture)
            yield index, shot, picture, took

    def _read_as_run(self, shots: Sequence[Shot]) -> Iterator[TableSnapshot]:
        """The pictures read by ``ducktable run``'s reader, from a calibration made as
        ``ducktable calibrate --empty-table`` makes it, in a folder of its own."""
        import tempfile

        from ducktable.vision.calibrate import calibrate_from_markers
        from ducktable.vision.frame_reader import shipped_model
        from ducktable.vision.reader import CameraTableReader, calibration_path, empty_table_path, reading_view

        if self.labels != "model":
            raise ValueError("`ducktable run`'s reader names the cards with the classifier: use --mode model")
        renderer = self.renderer()
        empty, _ = reading_view(renderer.empty_picture())
        state = make_game(self.game, self.options).new_state(
            [f"P{k + 1}" for k in range(self.players)], observer=True)
        with tempfile.TemporaryDirectory(prefix="ducktable-replay-") as folder:
            path = calibration_path(folder)
            path.parent.mkdir(parents=True)
            calibrate_from_markers(self.layout, empty).layout.save(path)
            cv2.imwrite(str(empty_table_path(path)), empty)
            reader = CameraTableReader(path, classifier=shipped_model())
            render_s = 0.0
            for index, shot, picture, took in self._pictures(renderer, shots):
                render_s += took
                seen = reader.snapshot(state, picture)
                if seen is None:
                    raise RuntimeError(f"run's reader could not read frame {index}: "
                                       f"{reader.problem or 'the frame was skipped'}")
                yield TableSnapshot(shot.ts, seen.zones, index)
                self.seconds.update(read=reader.seconds["read"], render=render_s)


def kept_or_read(cache: Path | None, count: int, read: Callable[[], Iterator[TableSnapshot]]
                 ) -> tuple[Iterable[TableSnapshot], bool]:
    """The camera's reads of a game's ``count`` frames, and whether they are kept ones: from the
    ``cache`` file (:func:`reads_cache`) when it holds them all, else from ``read`` — with a
    cache all taken at once and then kept (a replay may stop at a wrong event before the end)."""
    if cache is None:
        return read(), False
    kept = read_snapshots(cache)
    if kept is not None and len(kept) >= count:
        return kept[:count], True
    snapshots = list(read())
    write_snapshots(cache, snapshots)
    return snapshots, False


def reads_cache(game: str, snapshots_dir: str, *, players: int, seed: int, hold: int, tilt_deg: float,
                labels: str, options: Mapping[str, Any] | None = None,
                capture_size: tuple[int, int] | None = None, camera_like: bool = True,
                reader: str = "replay") -> Path:
    """Where one game's camera reads are kept: every input that changes them is in the name
    (the renderer, detector and cover watch are not: the folder is cleared after changing them);
    non-default game options by a checksum."""
    held = "" if hold == 5 else f"-hold{hold}"
    opts = f"-opts{zlib.crc32(json.dumps(options, sort_keys=True).encode()):08x}" if options else ""
    taken = "" if capture_size is None else f"-at{capture_size[0]}x{capture_size[1]}"
    how = ("-camera" if camera_like else "-clean") + ("-run" if reader == "run" else "")
    return Path(snapshots_dir) / (f"{game}-{players}p-seed{seed}{held}{opts}-tilt{tilt_deg:g}{taken}{how}"
                                  f"-{_reads_tag(labels)}.jsonl")


def _reads_tag(labels: str) -> str:
    """Names what gave the labels: the true ones, or which classifier (by its checksum)."""
    if labels != "model":
        return labels
    from ducktable.vision.classify import default_model_path, read_manifest

    return "model-" + read_manifest(default_model_path()).sha256[:10]


def write_snapshots(path: Path, snapshots: Sequence[TableSnapshot]) -> None:
    """One snapshot per line; written whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(s.dumps() + "\n" for s in snapshots))
    tmp.replace(path)


def read_snapshots(path: Path) -> list[TableSnapshot] | None:
    """The snapshots kept in ``path``, or None when there are none (or they cannot be read)."""
    try:
        return [TableSnapshot.from_json(line) for line in path.read_text().splitlines() if line]
    except (OSError, ValueError):
        return None

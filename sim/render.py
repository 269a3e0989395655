"""Procedural card faces and backs for every deck in :mod:`ducktable.rules.decks`.

The classifier is trained on these drawings (the ``reference`` edition) and the ``alternate``
edition — other art, fonts, palette, paper and layout — stands in for a real printing that the
model never saw, so enrolment can be measured honestly. Drawing is pure and deterministic: the
same arguments always give the same pixels (no global randomness; per-card variation comes from
a CRC of the label). Identifying marks (corner indices) sit in two opposite corners, drawn once
and then again on the card turned by 180°, so an upside-down card carries the same marks.

Everything is drawn on a 2x canvas of the requested size and shrunk with area averaging, which
gives smooth edges at any output size.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.rules import decks
from ducktable.vision.printing import DRAWABLE_DECKS, EDITIONS, card_labels
from ducktable.vision.printing import GAMES as GAMES  # the five games' decks, which it draws
from ducktable.vision.printing import PALETTES as _PALETTES

BGR = tuple[int, int, int]
_SUPERSAMPLE = 2
_BASE_W, _BASE_H = 200.0, 300.0  # design units: every coordinate below is in this space

@dataclass(frozen=True)
class Style:
    """Everything that differs between two printings of the same deck."""

    paper: BGR
    ink: BGR
    index_font: int
    title_font: int
    index_thickness: float
    art: str  # which duck drawing: "round" or "angular"
    index_at_right: bool  # alternate printing puts its indices top-right / bottom-left
    frame: float  # width of the light margin, in design units
    back_pattern: str


STYLES = {
    "reference": Style(
        paper=(244, 246, 247), ink=(25, 25, 25), index_font=cv2.FONT_HERSHEY_DUPLEX,
        title_font=cv2.FONT_HERSHEY_SIMPLEX, index_thickness=3.2, art="round",
        index_at_right=False, frame=9.0, back_pattern="lattice",
    ),
    "alternate": Style(
        paper=(222, 238, 246), ink=(70, 45, 35),
        index_font=cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC,
        title_font=cv2.FONT_HERSHEY_COMPLEX, index_thickness=2.4, art="angular",
        index_at_right=True, frame=12.0, back_pattern="rings",
    ),
}

# Per-game panel colours (inside the light margin) and back colours, per edition.
_GAME_LOOK: dict[str, dict[str, tuple[BGR, BGR]]] = {
    #            panel            back
    "reference": {
        "duck": ((235, 225, 200), (160, 90, 20)),
        "bruce": ((200, 232, 245), (40, 90, 160)),
        "grey": ((225, 225, 225), (90, 90, 90)),
        "sitting": ((225, 240, 215), (60, 130, 40)),
        "ducky": ((240, 220, 240), (140, 60, 150)),
        "standard52": ((250, 250, 250), (40, 40, 170)),
    },
    "alternate": {
        "duck": ((215, 235, 235), (80, 120, 40)),
        "bruce": ((230, 215, 210), (120, 50, 60)),
        "grey": ((205, 215, 230), (60, 60, 110)),
        "sitting": ((240, 230, 200), (150, 100, 40)),
        "ducky": ((210, 240, 225), (50, 140, 110)),
        "standard52": ((235, 245, 250), (30, 100, 40)),
    },
}


# ---- public API --------------------------------------------------------------------------------
def render_card(
    game: str, label: str, *, edition: str = "reference", width: int = 200, height: int = 300
) -> np.ndarray:
    """The upright face of one card as an ``height x width x 3`` BGR uint8 image."""
    style = _style(edition)
    if game not in DRAWABLE_DECKS:
        raise KeyError(f"cannot draw cards of {game!r}; known decks: {list(DRAWABLE_DECKS)}")
    if label not in card_labels(game):
        raise KeyError(f"{label!r} is not a card face of {game!r}; see card_labels({game!r})")
    attrs = dict(decks.deck(game).card(label).attrs)
    canvas = _Canvas(width, height, edition, style)
    canvas.fill_card(_GAME_LOOK[edition][game][0])
    _DRAWERS[game](canvas, label, attrs)
    return canvas.result()


# ---- invented printings for training (domain randomisation) ----------------------------------
TRAINING_INDEX_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC,
    cv2.FONT_HERSHEY_DUPLEX | cv2.FONT_ITALIC, cv2.FONT_HERSHEY_PLAIN | cv2.FONT_ITALIC,
)
"""Index fonts of the invented printings. The serif Hershey fonts (COMPLEX, TRIPLEX, in any
slant) are left out: the alternate edition prints with them, and it must stay unseen."""
TRAINING_TITLE_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                        cv2.FONT_HERSHEY_PLAIN)


def render_variant(game: str, label: str, variant: int, *, width: int = 200,
                   height: int = 300) -> np.ndarray:
    """``label`` as printed by invented printing number ``variant`` (training only).

    A printing keeps the reference art and layout but picks its own index font (from
    :data:`TRAINING_INDEX_FONTS`), stroke weight, paper, ink, margin, index corner, and shifts
    every shade a little, so the classifier learns what a card says rather than one printer's
    typeface. Deterministic in ``variant``; it never draws the alternate edition's fonts or art.
    """
    if game not in DRAWABLE_DECKS:
        raise KeyError(f"cannot draw cards of {game!r}; known decks: {list(DRAWABLE_DECKS)}")
    if label not in card_labels(game):
        raise KeyError(f"{label!r} is not a card face of {game!r}; see card_labels({game!r})")
    style, palette, panel = _variant_look(game, variant)
    attrs = dict(decks.deck(game).card(label).attrs)
    canvas = _Canvas(width, height, "reference", style, palette)
    canvas.fill_card(panel)
    _DRAWERS[game](canvas, label, attrs)
    return canvas.result()


def _variant_look(game: str, variant: int) -> tuple[Style, dict[str, BGR], BGR]:
    rng = np.random.default_rng([4099, variant])
    base = STYLES["reference"]

    def shade(c: BGR, spread: float) -> BGR:
        d = rng.uniform(-spread, spread, 3)
        return tuple(int(np.clip(v + dv, 0, 255)) for v, dv in zip(c, d, strict=True))  # type: ignore[return-value]

    style = Style(
        paper=shade((240, 240, 240), 18), ink=shade((40, 40, 40), 35),
        index_font=int(rng.choice(TRAINING_INDEX_FONTS)),
        title_font=int(rng.choice(TRAINING_TITLE_FONTS)),
        index_thickness=float(rng.uniform(1.8, 4.0)), art=base.art,
        index_at_right=bool(rng.random() < 0.5), frame=float(rng.uniform(5.0, 14.0)),
        back_pattern=base.back_pattern)
    palette = {name: shade(c, 30) for name, c in _PALETTES["reference"].items()}
    game_rng = np.random.default_rng([4099, variant, zlib.crc32(game.encode())])
    ref_panel = _GAME_LOOK["reference"][game][0]
    panel: BGR = tuple(int(np.clip(v + d, 0, 255))  # type: ignore[assignment]
                       for v, d in zip(ref_panel, game_rng.uniform(-30, 30, 3), strict=True))
    return style, palette, panel


def render_back(
    game: str, *, edition: str = "reference", width: int = 200, height: int = 300
) -> np.ndarray:
    """The back of a card of ``game`` (a symmetric pattern, no identifying marks)."""
    style = _style(edition)
    if game not in DRAWABLE_DECKS:
        raise KeyError(f"cannot draw cards of {game!r}; known decks: {list(DRAWABLE_DECKS)}")
    colour = _GAME_LOOK[edition][game][1]
    canvas = _Canvas(width, height, edition, style)
    canvas.fill_card(colour)
    light: BGR = (min(255, colour[0] + 70), min(255, colour[1] + 70), min(255, colour[2] + 70))
    seed = zlib.crc32(f"{game}/{edition}".encode())
    if style.back_pattern == "lattice":
        step = 20.0 + seed % 4 * 3
        for k in range(-20, 30):
            canvas.line((k * step, 0), (k * step + 300, 300), light, 2.0)
            canvas.line((k * step, 300), (k * step + 300, 0), light, 2.0)
    else:
        for r in range(12, 200, 14):
            canvas.circle((100, 150), r, light, 2.5)
    canvas.ellipse((100, 150), (40, 60), 0, style.paper, -1)
    canvas.ellipse((100, 150), (40, 60), 0, light, 3)
    initial = decks.deck(game).title[0]
    canvas.text(initial, (100, 150), 46, style.title_font, colour, 4.0)
    return canvas.result()


# ---- the canvas: design units -> pixels ------------------------------------------------------
class _Canvas:
    """A supersampled drawing surface addressed in 200 x 300 design units."""

    def __init__(self, width: int, height: int, edition: str, style: Style,
                 palette: dict[str, BGR] | None = None) -> None:
        if width < 16 or height < 16:
            raise ValueError(f"card size {width}x{height} is too small; use at least 16x16")
        self.width, self.height = width, height
        self.edition, self.style = edition, style
        self.palette = palette if palette is not None else _PALETTES[edition]
        self.sx = width * _SUPERSAMPLE / _BASE_W
        self.sy = height * _SUPERSAMPLE / _BASE_H
        self.img = np.zeros((height * _SUPERSAMPLE, width * _SUPERSAMPLE, 3), np.uint8)

    # geometry
    def p(self, xy: tuple[float, float]) -> tuple[int, int]:
        return (round(xy[0] * self.sx), round(xy[1] * self.sy))

    def s(self, v: float) -> int:
        return max(1, round(v * (self.sx + self.sy) / 2))

    def colour(self, name: str) -> BGR:
        return self.palette[name]

    # primitives
    def fill_card(self, panel: BGR) -> None:
        self.img[:] = self.style.paper
        f = self.style.frame
        self.rect((f, f), (_BASE_W - f, _BASE_H - f), panel, -1, radius=10)

    def rect(self, a: tuple[float, float], b: tuple[float, float], colour: BGR, thickness: float,
             radius: float = 0.0) -> None:
        if radius <= 0:
            cv2.rectangle(self.img, self.p(a), self.p(b), colour, self._t(thickness), cv2.LINE_AA)
            return
        x0, y0 = a
        x1, y1 = b
        r = radius
        if thickness < 0:
            self.rect((x0 + r, y0), (x1 - r, y1), colour, -1)
            self.rect((x0, y0 + r), (x1, y1 - r), colour, -1)
        else:
            for p, q in (((x0 + r, y0), (x1 - r, y0)), ((x0 + r, y1), (x1 - r, y1)),
                         ((x0, y0 + r), (x0, y1 - r)), ((x1, y0 + r), (x1, y1 - r))):
                self.line(p, q, colour, thickness)
        for cx, cy, ang in ((x0 + r, y0 + r, 180), (x1 - r, y0 + r, 270),
                            (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90)):
            cv2.ellipse(self.img, self.p((cx, cy)), (self.s(r), self.s(r)), 0, ang, ang + 90,
                        colour, self._t(thickness), cv2.LINE_AA)

    def circle(self, c: tuple[float, float], r: float, colour: BGR, thickness: float) -> None:
        cv2.circle(self.img, self.p(c), self.s(r), colour, self._t(thickness), cv2.LINE_AA)

    def ellipse(self, c: tuple[float, float], axes: tuple[float, float], angle: float,
                colour: BGR, thickness: float, arc: tuple[float, float] = (0, 360)) -> None:
        ax = (max(1, round(axes[0] * self.sx)), max(1, round(axes[1] * self.sy)))
        cv2.ellipse(self.img, self.p(c), ax, angle, arc[0], arc[1], colour, self._t(thickness),
                    cv2.LINE_AA)

    def line(self, a: tuple[float, float], b: tuple[float, float], colour: BGR,
             thickness: float) -> None:
        cv2.line(self.img, self.p(a), self.p(b), colour, self._t(thickness), cv2.LINE_AA)

    def poly(self, pts: list[tuple[float, float]], colour: BGR, thickness: float) -> None:
        arr = np.array([self.p(q) for q in pts], np.int32)
        if thickness < 0:
            cv2.fillPoly(self.img, [arr], colour, cv2.LINE_AA)
        else:
            cv2.polylines(self.img, [arr], True, colour, self._t(thickness), cv2.LINE_AA)

    def text(self, s: str, centre: tuple[float, float], height: float, font: int, colour: BGR,
             thickness: float, max_width: float = 1e9) -> None:
        """``s`` centred on ``centre`` with its capitals ``height`` design units tall."""
        if height <= 0 or not s:
            return
        t = self._t(thickness)
        (_, h1), _ = cv2.getTextSize(s, font, 1.0, t)
        scale = height * self.sy / max(h1, 1)
        (w, h), _ = cv2.getTextSize(s, font, scale, t)
        if w > max_width * self.sx:
            scale *= max_width * self.sx / w
            (w, h), _ = cv2.getTextSize(s, font, scale, t)
        cx, cy = self.p(centre)
        cv2.putText(self.img, s, (cx - w // 2, cy + h // 2), font, scale, colour, t, cv2.LINE_AA)

    def rotate180(self) -> None:
        self.img = np.ascontiguousarray(self.img[::-1, ::-1])

    def result(self) -> np.ndarray:
        return cv2.resize(self.img, (self.width, self.height), interpolation=cv2.INTER_AREA)

    def _t(self, thickness: float) -> int:
        return -1 if thickness < 0 else max(1, round(thickness * (self.sx + self.sy) / 2))


# ---- shared pieces ---------------------------------------------------------------------------
def _corner_indices(cv: _Canvas, text: str, colour: BGR,
                    pip: Callable[[_Canvas, tuple[float, float], float], None] | None = None
                    ) -> None:
    """The card's index (and an optional pip under it) in two opposite corners."""
    st = cv.style
    x = _BASE_W - 36 if st.index_at_right else 36
    size = 40 if len(text) == 1 else 32 if len(text) == 2 else 26
    for _ in range(2):
        cv.text(text, (x, 48), size, st.index_font, colour, st.index_thickness * 1.2,
                max_width=44)
        if text in ("6", "9", "+6", "-6", "+9", "-9"):
            cv.line((x - 14, 76), (x + 14, 76), colour, 3.5)  # tells 6 from 9 when turned
        if pip is not None:
            pip(cv, (x, 94), 10)
        cv.rotate180()


def _title(cv: _Canvas, text: str, y: float, colour: BGR, size: float = 16) -> None:
    cv.text(text, (100, y), size, cv.style.title_font, colour, 2.0, max_width=150)


def _duck(cv: _Canvas, c: tuple[float, float], size: float, body: BGR,
          facing: int = 1) -> None:
    """A duck seen from the side; ``round`` (reference) or ``angular`` (alternate) art."""
    x, y = c
    f = facing
    ink = cv.style.ink
    beak = cv.colour("orange") if body != cv.colour("orange") else cv.colour("red")
    if cv.style.art == "round":
        cv.ellipse((x, y + 0.25 * size), (0.62 * size, 0.38 * size), 0, body, -1)
        cv.poly([(x - f * 0.55 * size, y + 0.1 * size), (x - f * 0.85 * size, y - 0.12 * size),
                 (x - f * 0.45 * size, y + 0.3 * size)], body, -1)  # tail
        cv.circle((x + f * 0.35 * size, y - 0.3 * size), 0.3 * size, body, -1)
        cv.poly([(x + f * 0.6 * size, y - 0.36 * size), (x + f * 0.95 * size, y - 0.26 * size),
                 (x + f * 0.6 * size, y - 0.18 * size)], beak, -1)
        cv.circle((x + f * 0.42 * size, y - 0.38 * size), 0.06 * size, ink, -1)
        cv.ellipse((x - f * 0.05 * size, y + 0.2 * size), (0.3 * size, 0.15 * size), 0, ink, 1.5,
                   arc=(0, 180))
    else:
        cv.poly([(x - f * 0.8 * size, y - 0.05 * size), (x + f * 0.55 * size, y + 0.05 * size),
                 (x + f * 0.35 * size, y + 0.55 * size), (x - f * 0.5 * size, y + 0.55 * size)],
                body, -1)
        cv.poly([(x + f * 0.15 * size, y - 0.7 * size), (x + f * 0.6 * size, y - 0.7 * size),
                 (x + f * 0.55 * size, y + 0.1 * size), (x + f * 0.15 * size, y + 0.1 * size)],
                body, -1)
        cv.poly([(x + f * 0.6 * size, y - 0.55 * size), (x + f * 1.0 * size, y - 0.45 * size),
                 (x + f * 0.6 * size, y - 0.35 * size)], beak, -1)
        cv.rect((x + f * 0.38 * size - 0.06 * size, y - 0.6 * size),
                (x + f * 0.38 * size + 0.06 * size, y - 0.48 * size), ink, -1)
        cv.line((x - f * 0.5 * size, y + 0.3 * size), (x + f * 0.2 * size, y + 0.3 * size), ink, 2)


def _dog(cv: _Canvas, c: tuple[float, float], size: float) -> None:
    """Bruce the dog: a face with ears (round or angular)."""
    x, y = c
    fur = cv.colour("brown")
    ink = cv.style.ink
    if cv.style.art == "round":
        cv.ellipse((x - 0.75 * size, y - 0.1 * size), (0.25 * size, 0.55 * size), 15, ink, -1)
        cv.ellipse((x + 0.75 * size, y - 0.1 * size), (0.25 * size, 0.55 * size), -15, ink, -1)
        cv.circle((x, y), 0.7 * size, fur, -1)
        cv.ellipse((x, y + 0.35 * size), (0.38 * size, 0.28 * size), 0, (200, 220, 235), -1)
    else:
        for s in (-1, 1):
            cv.poly([(x + s * 0.35 * size, y - 0.55 * size), (x + s * 0.85 * size, y - 1.0 * size),
                     (x + s * 0.75 * size, y - 0.15 * size)], ink, -1)
        cv.poly([(x - 0.7 * size, y - 0.6 * size), (x + 0.7 * size, y - 0.6 * size),
                 (x + 0.5 * size, y + 0.7 * size), (x - 0.5 * size, y + 0.7 * size)], fur, -1)
    cv.circle((x - 0.25 * size, y - 0.15 * size), 0.09 * size, ink, -1)
    cv.circle((x + 0.25 * size, y - 0.15 * size), 0.09 * size, ink, -1)
    cv.ellipse((x, y + 0.25 * size), (0.14 * size, 0.09 * size), 0, ink, -1)


def _waves(cv: _Canvas, y: float, colour: BGR, amp: float = 5.0, step: float = 20.0) -> None:
    pts = [(x, y + amp * math.sin(x / step * 2 * math.pi)) for x in np.arange(12, 189, 4.0)]
    for a, b in zip(pts, pts[1:], strict=False):
        cv.line(a, b, colour, 2.5)


_SHAPES = ("circle", "square", "triangle", "diamond", "star", "cross", "hexagon", "bar", "ring",
           "drop")


def _shape(cv: _Canvas, kind: str, c: tuple[float, float], r: float, colour: BGR) -> None:
    """One of ten simple suit symbols, told apart by outline rather than only by colour."""
    x, y = c
    if kind == "circle":
        cv.circle(c, r, colour, -1)
    elif kind == "square":
        cv.rect((x - r * 0.85, y - r * 0.85), (x + r * 0.85, y + r * 0.85), colour, -1)
    elif kind == "triangle":
        cv.poly([(x, y - r), (x + r, y + r * 0.8), (x - r, y + r * 0.8)], colour, -1)
    elif kind == "diamond":
        cv.poly([(x, y - r * 1.2), (x + r * 0.8, y), (x, y + r * 1.2), (x - r * 0.8, y)],
                colour, -1)
    elif kind == "star":
        pts = [(x + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 5),
                y - (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 5)) for k in range(10)]
        cv.poly(pts, colour, -1)
    elif kind == "cross":
        cv.rect((x - r, y - r * 0.3), (x + r, y + r * 0.3), colour, -1)
        cv.rect((x - r * 0.3, y - r), (x + r * 0.3, y + r), colour, -1)
    elif kind == "hexagon":
        cv.poly([(x + r * math.cos(k * math.pi / 3), y + r * math.sin(k * math.pi / 3))
                 for k in range(6)], colour, -1)
    elif kind == "bar":
        cv.rect((x - r * 1.1, y - r * 0.45), (x + r * 1.1, y + r * 0.45), colour, -1)
    elif kind == "ring":
        cv.circle(c, r * 0.8, colour, r * 0.35)
    else:  # drop
        cv.circle((x, y + r * 0.3), r * 0.7, colour, -1)
        cv.poly([(x - r * 0.68, y + r * 0.15), (x, y - r * 1.1), (x + r * 0.68, y + r * 0.15)],
                colour, -1)


# ---- DUCK ------------------------------------------------------------------------------------
def _draw_duck_game(cv: _Canvas, label: str, attrs: dict) -> None:
    kind = attrs["kind"]
    water = cv.colour("blue")
    if kind == "duck":
        colour = cv.colour(attrs["colour"])
        value = str(attrs["value"])
        _corner_indices(cv, value, colour,
                        lambda c, p, r: c.circle(p, r * 0.8, colour, -1))
        _waves(cv, 205, water)
        _waves(cv, 215, water)
        _duck(cv, (100, 150), 58, colour)
        cv.text(value, (100, 250), 36, cv.style.index_font, colour, 4)
    elif kind == "lifebelt":
        green = attrs["side"] == "green"
        colour = cv.colour("green" if green else "red")
        sign = "+" if green else "-"
        text = f"{sign}{attrs['value']}"
        cv.rect((20, 20), (180, 280), colour, -1, radius=8)
        _corner_indices(cv, text, cv.colour("white"))
        ring_a, ring_b = cv.colour("white"), cv.colour("red" if green else "black")
        for k in range(8):
            cv.ellipse((100, 150), (62, 62), 0, ring_a if k % 2 == 0 else ring_b, 18,
                       arc=(k * 45, k * 45 + 45))
        cv.text(str(attrs["value"]), (100, 150), 36, cv.style.index_font, cv.colour("white"), 4)
        if attrs["value"] in (6, 9):  # the centre number, too, must not read 9 for 6 when turned
            cv.line((86, 177), (114, 177), cv.colour("white"), 4)
    else:  # towel
        stripes = ("red", "white", "blue", "white", "yellow", "white")
        for k in range(13):
            cv.rect((24, 30 + k * 18.5), (176, 30 + (k + 1) * 18.5),
                    cv.colour(stripes[k % len(stripes)]), -1)
        cv.rect((40, 128), (160, 172), cv.style.paper, -1, radius=6)
        _title(cv, "TOWEL", 150, cv.style.ink, 18)


# ---- Duck Duck Bruce -------------------------------------------------------------------------
def _draw_bruce(cv: _Canvas, label: str, attrs: dict) -> None:
    if attrs["kind"] == "bruce":
        cv.rect((15, 15), (185, 285), cv.colour("brown"), 4, radius=8)
        _dog(cv, (100, 145), 52)
        _title(cv, "BRUCE", 240, cv.colour("brown"), 18)
        cv.rotate180()
        _title(cv, "BRUCE", 240, cv.colour("brown"), 18)
        cv.rotate180()
        return
    suit = attrs["suit"]
    colour = cv.colour(suit)
    shape = _SHAPES[decks.BRUCE_SUITS.index(suit)]
    cv.rect((15, 15), (185, 285), colour, 5, radius=8)
    _corner_indices(cv, str(attrs["value"]), colour,
                    lambda c, p, r: _shape(c, shape, p, r, colour))
    n = attrs["value"]
    spots = {1: [(100, 150)], 2: [(100, 110), (100, 190)],
             3: [(100, 95), (100, 150), (100, 205)],
             4: [(72, 110), (128, 110), (72, 190), (128, 190)]}[n]
    size = 34 if n <= 2 else 26
    for k, (x, y) in enumerate(spots):
        _duck(cv, (x, y), size, colour, facing=1 if k % 2 == 0 else -1)
    _shape(cv, shape, (100, 252), 9, colour)
    cv.rotate180()
    _shape(cv, shape, (100, 252), 9, colour)
    cv.rotate180()


# ---- Grey Duck -------------------------------------------------------------------------------
def _draw_grey(cv: _Canvas, label: str, attrs: dict) -> None:
    grey = attrs["colour"] == "grey"
    colour = cv.colour("grey" if grey else "yellow")
    rank = attrs["rank"]
    if grey:
        cv.rect((15, 15), (185, 285), cv.colour("black"), 5, radius=8)
    ink = cv.style.ink
    _corner_indices(cv, rank, ink, lambda c, p, r: c.circle(p, r * 0.8, colour, -1))
    cv.circle((100, 150), 64, colour, -1)
    if rank == "D":
        _duck(cv, (100, 150), 52, cv.colour("white") if not grey else cv.colour("black"))
        cv.poly([(80, 92), (88, 78), (100, 90), (112, 78), (120, 92)], cv.colour("orange"), -1)
    else:
        _duck(cv, (100, 158), 44, cv.colour("white"))
    cv.text(rank, (100, 252), 36, cv.style.index_font, ink, 4)


# ---- Sitting Ducks ---------------------------------------------------------------------------
_ACTION_ICONS = {
    "aim": "crosshair", "fire": "burst", "double-barrel": "two-crosshairs",
    "billy-the-duck": "duck", "ricochet": "zigzag", "two-at-one-blow": "two-bursts",
    "move-left": "arrow-left", "move-right": "arrow-right", "duck-march": "three-ducks",
    "slow-down": "swap-back", "no-time": "swap-forward", "turbo-duck": "speed",
    "duck-shuffle": "shuffle", "duck-dance": "notes", "cover": "stack", "bottoms-up": "shield",
}


def _crosshair(cv: _Canvas, c: tuple[float, float], r: float, colour: BGR) -> None:
    cv.circle(c, r, colour, 4)
    cv.circle(c, r * 0.45, colour, 3)
    x, y = c
    cv.line((x - r * 1.3, y), (x + r * 1.3, y), colour, 3)
    cv.line((x, y - r * 1.3), (x, y + r * 1.3), colour, 3)


def _burst(cv: _Canvas, c: tuple[float, float], r: float, colour: BGR) -> None:
    x, y = c
    pts = [(x + (r if k % 2 == 0 else r * 0.5) * math.sin(k * math.pi / 8),
            y - (r if k % 2 == 0 else r * 0.5) * math.cos(k * math.pi / 8)) for k in range(16)]
    cv.poly(pts, colour, -1)


def _arrow(cv: _Canvas, c: tuple[float, float], r: float, colour: BGR, direction: int) -> None:
    x, y = c
    d = direction
    cv.rect((x - r * 0.8, y - r * 0.2), (x + r * 0.8, y + r * 0.2), colour, -1)
    cv.poly([(x + d * r * 1.2, y), (x + d * r * 0.4, y - r * 0.6), (x + d * r * 0.4, y + r * 0.6)],
            colour, -1)


def _action_icon(cv: _Canvas, action: str, c: tuple[float, float]) -> None:
    icon = _ACTION_ICONS[action]
    red, ink = cv.colour("red"), cv.style.ink
    yellow = cv.colour("yellow")
    x, y = c
    if icon == "crosshair":
        _crosshair(cv, c, 32, red)
    elif icon == "burst":
        _burst(cv, c, 40, cv.colour("orange"))
        _burst(cv, c, 20, yellow)
    elif icon == "two-crosshairs":
        _crosshair(cv, (x - 32, y), 20, red)
        _crosshair(cv, (x + 32, y), 20, red)
    elif icon == "duck":
        _duck(cv, (x, y + 5), 42, yellow)
        _crosshair(cv, (x + 20, y - 18), 14, red)
    elif icon == "zigzag":
        pts = [(x - 50, y + 25), (x - 20, y - 25), (x + 10, y + 25), (x + 45, y - 25)]
        for a, b in zip(pts, pts[1:], strict=False):
            cv.line(a, b, ink, 4)
        _burst(cv, (x + 45, y - 25), 12, red)
    elif icon == "two-bursts":
        _burst(cv, (x - 30, y), 24, red)
        _burst(cv, (x + 30, y), 24, red)
    elif icon == "arrow-left":
        _arrow(cv, c, 40, red, -1)
    elif icon == "arrow-right":
        _arrow(cv, c, 40, red, 1)
    elif icon == "three-ducks":
        for k in range(3):
            _duck(cv, (x - 45 + 45 * k, y), 22, yellow)
    elif icon in ("swap-back", "swap-forward"):
        d = -1 if icon == "swap-back" else 1
        _arrow(cv, (x, y - 20), 30, ink, d)
        _arrow(cv, (x, y + 20), 30, red, -d)
    elif icon == "speed":
        _duck(cv, (x + 15, y), 36, yellow)
        for k in range(3):
            cv.line((x - 65, y - 20 + 20 * k), (x - 30, y - 20 + 20 * k), ink, 3)
    elif icon == "shuffle":
        cv.line((x - 45, y - 25), (x + 45, y + 25), ink, 4)
        cv.line((x - 45, y + 25), (x + 45, y - 25), red, 4)
        _arrow(cv, (x + 40, y + 25), 12, ink, 1)
        _arrow(cv, (x + 40, y - 25), 12, red, 1)
    elif icon == "notes":
        for k, dx in enumerate((-25, 25)):
            cv.ellipse((x + dx, y + 20), (12, 9), -20, ink, -1)
            cv.line((x + dx + 10, y + 18), (x + dx + 10, y - 30 - 5 * k), ink, 3)
        cv.line((x - 15, y - 30), (x + 35, y - 35), ink, 5)
    elif icon == "stack":
        for k in range(3):
            cv.rect((x - 35 + 8 * k, y - 35 + 10 * k), (x + 15 + 8 * k, y + 15 + 10 * k),
                    cv.style.paper if k < 2 else yellow, -1)
            cv.rect((x - 35 + 8 * k, y - 35 + 10 * k), (x + 15 + 8 * k, y + 15 + 10 * k), ink, 2)
    else:  # shield
        cv.poly([(x - 35, y - 35), (x + 35, y - 35), (x + 35, y), (x, y + 40), (x - 35, y)],
                cv.colour("blue"), -1)
        cv.line((x - 18, y), (x + 18, y), cv.colour("white"), 5)


def _draw_sitting(cv: _Canvas, label: str, attrs: dict) -> None:
    kind = attrs["kind"]
    ink = cv.style.ink
    water = cv.colour("blue")
    if kind == "duck":
        colour = cv.colour(attrs["colour"])
        cv.rect((15, 15), (185, 285), colour, 5, radius=8)
        _corner_indices(cv, attrs["colour"][:2].upper(), colour,
                        lambda c, p, r: c.circle(p, r * 0.8, colour, -1))
        for y in (200, 214, 228):
            _waves(cv, y, water)
        _duck(cv, (100, 150), 60, colour)
    elif kind == "water":
        for y in range(40, 270, 14):
            _waves(cv, y, water, amp=4 + (y % 3), step=24)
        _title(cv, "WATER", 150, ink, 16)
    elif kind == "sky":
        pos = str(attrs["position"])
        cv.rect((20, 20), (180, 280), cv.colour("white"), -1, radius=8)
        cv.rect((24, 24), (176, 276), cv.colour("sky"), -1, radius=8)
        _corner_indices(cv, pos, ink)
        for cx, cy in ((70, 110), (120, 190)):
            cv.ellipse((cx, cy), (34, 16), 0, cv.colour("white"), -1)
            cv.ellipse((cx + 16, cy - 8), (20, 13), 0, cv.colour("white"), -1)
        cv.circle((100, 150), 24, cv.style.paper, -1)
        cv.text(pos, (100, 150), 26, cv.style.index_font, ink, 3)
    elif kind == "target":
        for k in range(2):
            _crosshair(cv, (100, 150), 50 - 20 * k, cv.colour("red"))
        _title(cv, "TARGET", 250, ink, 14)
        cv.rotate180()
        _title(cv, "TARGET", 250, ink, 14)
        cv.rotate180()
    else:  # action
        action = attrs["action"]
        words = action.replace("-", " ").upper().split()
        lines = [" ".join(words)] if len(" ".join(words)) <= 9 else _split(words)
        cv.rect((15, 15), (185, 285), cv.colour("red"), 3, radius=8)
        for _ in range(2):
            for k, line in enumerate(lines):
                _title(cv, line, 36 + 18 * k, ink, 13)
            cv.rotate180()
        if cv.style.art != "round":  # the other printing sets its icons on a badge
            cv.circle((100, 150), 62, cv.colour("white"), -1)
            cv.circle((100, 150), 62, cv.colour("blue"), 3)
        _action_icon(cv, action, (100, 150))


def _split(words: list[str]) -> list[str]:
    """Two balanced lines for a long action title."""
    best = min(range(1, len(words)),
               key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return [" ".join(words[:best]), " ".join(words[best:])]


# ---- Ducky Ducky -----------------------------------------------------------------------------
def _draw_ducky(cv: _Canvas, label: str, attrs: dict) -> None:
    ink = cv.style.ink
    if attrs["kind"] == "gift":
        box, ribbon = cv.colour("red"), cv.colour("yellow")
        cv.rect((50, 110), (150, 210), box, -1, radius=4)
        cv.rect((92, 110), (108, 210), ribbon, -1)
        cv.rect((50, 152), (150, 168), ribbon, -1)
        cv.ellipse((85, 100), (18, 10), 20, ribbon, 5)
        cv.ellipse((115, 100), (18, 10), -20, ribbon, 5)
        for _ in range(2):
            _title(cv, "GIFT", 40, ink, 16)
            cv.rotate180()
        return
    a, b = attrs["slots"]
    for k, (colour_name, y) in enumerate(((a, 90), (b, 210))):
        colour = cv.colour(colour_name)
        cv.circle((100, y), 46, colour, 5)
        _duck(cv, (100, y + 4), 34, colour, facing=1 if k == 0 else -1)
    marks = f"{a[0].upper()}{b[0].upper()}"
    _corner_indices(cv, marks, ink)


# ---- standard 52-card deck -------------------------------------------------------------------
_SUIT_SIGNS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def _suit(cv: _Canvas, suit: str, c: tuple[float, float], r: float, colour: BGR) -> None:
    x, y = c
    if suit == "diamonds":
        cv.poly([(x, y - r * 1.2), (x + r * 0.85, y), (x, y + r * 1.2), (x - r * 0.85, y)],
                colour, -1)
    elif suit == "hearts":
        cv.circle((x - r * 0.48, y - r * 0.3), r * 0.55, colour, -1)
        cv.circle((x + r * 0.48, y - r * 0.3), r * 0.55, colour, -1)
        cv.poly([(x - r * 1.0, y - r * 0.15), (x + r * 1.0, y - r * 0.15), (x, y + r * 1.0)],
                colour, -1)
    elif suit == "spades":
        cv.circle((x - r * 0.48, y + r * 0.2), r * 0.55, colour, -1)
        cv.circle((x + r * 0.48, y + r * 0.2), r * 0.55, colour, -1)
        cv.poly([(x - r * 1.0, y + r * 0.05), (x + r * 1.0, y + r * 0.05), (x, y - r * 1.0)],
                colour, -1)
        cv.poly([(x, y + r * 0.3), (x + r * 0.35, y + r * 1.0), (x - r * 0.35, y + r * 1.0)],
                colour, -1)
    else:  # clubs
        for dx, dy in ((0, -0.45), (-0.5, 0.2), (0.5, 0.2)):
            cv.circle((x + dx * r, y + dy * r), r * 0.45, colour, -1)
        cv.poly([(x, y), (x + r * 0.35, y + r * 1.0), (x - r * 0.35, y + r * 1.0)], colour, -1)


def _draw_standard(cv: _Canvas, label: str, attrs: dict) -> None:
    suit, rank = attrs["suit"], attrs["rank"]
    colour = cv.colour("red") if suit in ("hearts", "diamonds") else cv.colour("black")
    _corner_indices(cv, rank, colour, lambda c, p, r: _suit(c, suit, p, r, colour))
    if rank in ("J", "Q", "K"):
        cv.rect((50, 80), (150, 220), colour, 3)
        cv.text(rank, (100, 150), 60, cv.style.index_font, colour, 5)
        return
    n = 1 if rank == "A" else int(rank)
    cols = 1 if n <= 3 else 2
    rows = math.ceil(n / cols)
    k = 0
    for row in range(rows):
        for col in range(cols):
            if k >= n:
                break
            x = 100 if cols == 1 or (n % 2 == 1 and k == n - 1) else 70 + 60 * col
            y = 150 if rows == 1 else 80 + 140 * row / (rows - 1)
            _suit(cv, suit, (x, y), 30 if n == 1 else 12, colour)
            k += 1


_DRAWERS: dict[str, Callable[[_Canvas, str, dict], None]] = {
    "duck": _draw_duck_game, "bruce": _draw_bruce, "grey": _draw_grey,
    "sitting": _draw_sitting, "ducky": _draw_ducky, "standard52": _draw_standard,
}


def _style(edition: str) -> Style:
    try:
        return STYLES[edition]
    except KeyError:
        raise KeyError(f"no edition called {edition!r}; choose one of {list(EDITIONS)}") from None

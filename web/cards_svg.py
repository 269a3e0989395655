"""Cards drawn as cards: one inline SVG per card, from its label and the game's deck data.

Why this module exists: the phones must show the table as it looks, and a card is easier to
recognise by its colour, its duck and its corner index than by a label such as ``yellow-5``.
The drawing follows the synthetic renderer's reference printing (sim/render.py: the same
200 x 300 design units, palette, panel colours, corner indices and motifs) but is written
here, because the live path never imports sim/ and a phone needs vectors, not pixels. A card
the table cannot see (observer mode, a face-down pile) is drawn as the game's card back.

Every card is ``role="img"`` with its name in words as ``aria-label``, so a screen reader says
"yellow 5" or "green lifebelt plus 7", never the label.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from typing import Any

from ducktable.rules.decks import BRUCE_SUITS, DECKS
from markupsafe import Markup, escape

# The reference printing's colours (sim/render.py and vision/printing.py, there as BGR).
PALETTE: dict[str, str] = {
    "yellow": "#facd14", "blue": "#196ec8", "red": "#d72828", "orange": "#fa8214",
    "lime": "#a0d728", "green": "#1ea03c", "teal": "#009696", "purple": "#782896",
    "pink": "#f56eaa", "brown": "#82461e", "grey": "#808080", "white": "#fafafa",
    "black": "#191919", "sky": "#96cdeb",
}
PAPER, INK = "#f7f6f4", "#191919"
# Per game: (panel inside the light margin, back colour), as the renderer's reference look.
GAME_LOOK: dict[str, tuple[str, str]] = {
    "duck": ("#c8e1eb", "#145aa0"),
    "bruce": ("#f5e8c8", "#a05a28"),
    "grey": ("#e1e1e1", "#5a5a5a"),
    "sitting": ("#d7f0e1", "#28823c"),
    "ducky": ("#f0dcf0", "#963c8c"),
}
FRAME = 9.0
SHAPES = ("circle", "square", "triangle", "diamond", "star", "cross", "hexagon", "bar", "ring",
          "drop")
"""Bruce's suit symbols, one per suit in deck order (told apart by outline, not only colour)."""

_FONT = 'font-family="system-ui, sans-serif" font-weight="700" text-anchor="middle"'
_TURN = 'transform="rotate(180 100 150)"'


@functools.lru_cache(maxsize=8)
def _attrs(game: str) -> dict[str, Mapping[str, Any]]:
    deck = DECKS.get(game)
    return {} if deck is None else {c.label: c.attrs for c in deck.cards}


def is_card(game: str, label: object) -> bool:
    return isinstance(label, str) and label in _attrs(game)


def card_name(game: str, label: str) -> str:
    """A card in words: ``yellow-5`` -> ``yellow 5``, ``lifebelt-7-red`` -> ``red lifebelt
    minus 7``, ``action-double-barrel`` -> ``action card: double barrel``."""
    a = _attrs(game).get(label)
    if a is None:
        return label.replace("-", " ")
    kind = a.get("kind")
    if kind == "lifebelt":
        sign = "plus" if a["side"] == "green" else "minus"
        return f"{a['side']} lifebelt {sign} {a['value']}"
    if kind in ("towel", "water", "target", "gift", "bruce"):
        return "Bruce" if kind == "bruce" else str(kind)
    if kind == "sky":
        return f"sky card {a['position']}"
    if kind == "action":
        return f"action card: {str(a['action']).replace('-', ' ')}"
    if kind == "card":
        first, second = a["slots"]
        return f"card for a {first} and a {second} duck"
    if kind == "duck-token":
        return f"{a['colour']} duck"
    if kind == "pad":
        return f"{a['colour']} lily pad"
    if game == "sitting":
        return f"{a['colour']} duck"
    colour = a.get("colour") or a.get("suit") or ""
    value = a.get("value", a.get("rank", ""))
    return f"{colour} {'Duck' if value == 'D' else value}".strip()


# ---- primitives, in the renderer's 200 x 300 design units ------------------------------------
def _circle(cx: float, cy: float, r: float, fill: str, stroke: float = 0) -> str:
    if stroke:
        return (f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="none" stroke="{fill}" '
                f'stroke-width="{stroke:g}"/>')
    return f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{fill}"/>'


def _ellipse(cx: float, cy: float, rx: float, ry: float, fill: str) -> str:
    return f'<ellipse cx="{cx:g}" cy="{cy:g}" rx="{rx:g}" ry="{ry:g}" fill="{fill}"/>'


def _rect(x0: float, y0: float, x1: float, y1: float, fill: str, stroke: float = 0,
          radius: float = 0) -> str:
    paint = (f'fill="none" stroke="{fill}" stroke-width="{stroke:g}"' if stroke
             else f'fill="{fill}"')
    return (f'<rect x="{x0:g}" y="{y0:g}" width="{x1 - x0:g}" height="{y1 - y0:g}" '
            f'rx="{radius:g}" {paint}/>')


def _poly(points: list[tuple[float, float]], fill: str) -> str:
    return '<polygon points="{}" fill="{}"/>'.format(
        " ".join(f"{x:.1f},{y:.1f}" for x, y in points), fill)


def _text(s: str, x: float, y: float, size: float, fill: str) -> str:
    return (f'<text x="{x:g}" y="{y + size * 0.36:g}" font-size="{size:g}" {_FONT} '
            f'fill="{fill}">{escape(s)}</text>')


def _line(x0: float, y0: float, x1: float, y1: float, colour: str, width: float) -> str:
    return (f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1:g}" stroke="{colour}" '
            f'stroke-width="{width:g}" stroke-linecap="round"/>')


def _turned(parts: list[str]) -> list[str]:
    """The same marks again on the card turned by 180 degrees (indices in two corners)."""
    return [*parts, f"<g {_TURN}>{''.join(parts)}</g>"]


def _duck(x: float, y: float, size: float, body: str, facing: int = 1) -> str:
    """The renderer's round duck seen from the side."""
    f, s = facing, size
    beak = PALETTE["orange"] if body != PALETTE["orange"] else PALETTE["red"]
    return "".join([
        _ellipse(x, y + 0.25 * s, 0.62 * s, 0.38 * s, body),
        _poly([(x - f * 0.55 * s, y + 0.1 * s), (x - f * 0.85 * s, y - 0.12 * s),
               (x - f * 0.45 * s, y + 0.3 * s)], body),
        _circle(x + f * 0.35 * s, y - 0.3 * s, 0.3 * s, body),
        _poly([(x + f * 0.6 * s, y - 0.36 * s), (x + f * 0.95 * s, y - 0.26 * s),
               (x + f * 0.6 * s, y - 0.18 * s)], beak),
        _circle(x + f * 0.42 * s, y - 0.38 * s, 0.06 * s, INK),
    ])


def _waves(y: float, colour: str, amp: float = 5.0, step: float = 20.0) -> str:
    pts = [(x, y + amp * math.sin(x / step * 2 * math.pi)) for x in range(12, 189, 4)]
    return '<polyline points="{}" fill="none" stroke="{}" stroke-width="2.5"/>'.format(
        " ".join(f"{x},{py:.1f}" for x, py in pts), colour)


def _index(text: str, colour: str, pip: str = "") -> list[str]:
    size = 40 if len(text) == 1 else 32 if len(text) == 2 else 26
    marks = [_text(text, 36, 48, size, colour)]
    if text in ("6", "9", "+6", "-6", "+9", "-9"):
        marks.append(_line(22, 76, 50, 76, colour, 3.5))  # tells 6 from 9 when turned
    if pip:
        marks.append(pip)
    return _turned(marks)


def _shape(kind: str, x: float, y: float, r: float, colour: str) -> str:
    """One of Bruce's ten suit symbols."""
    if kind == "circle":
        return _circle(x, y, r, colour)
    if kind == "square":
        return _rect(x - r * 0.85, y - r * 0.85, x + r * 0.85, y + r * 0.85, colour)
    if kind == "triangle":
        return _poly([(x, y - r), (x + r, y + r * 0.8), (x - r, y + r * 0.8)], colour)
    if kind == "diamond":
        return _poly([(x, y - r * 1.2), (x + r * 0.8, y), (x, y + r * 1.2), (x - r * 0.8, y)],
                     colour)
    if kind == "star":
        return _poly([(x + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 5),
                       y - (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 5))
                      for k in range(10)], colour)
    if kind == "cross":
        return (_rect(x - r, y - r * 0.3, x + r, y + r * 0.3, colour)
                + _rect(x - r * 0.3, y - r, x + r * 0.3, y + r, colour))
    if kind == "hexagon":
        return _poly([(x + r * math.cos(k * math.pi / 3), y + r * math.sin(k * math.pi / 3))
                      for k in range(6)], colour)
    if kind == "bar":
        return _rect(x - r * 1.1, y - r * 0.45, x + r * 1.1, y + r * 0.45, colour)
    if kind == "ring":
        return _circle(x, y, r * 0.8, colour, r * 0.35)
    return (_circle(x, y + r * 0.3, r * 0.7, colour)
            + _poly([(x - r * 0.68, y + r * 0.15), (x, y - r * 1.1), (x + r * 0.68, y + r * 0.15)],
                    colour))


def _crosshair(x: float, y: float, r: float, colour: str) -> str:
    return (_circle(x, y, r, colour, 4) + _circle(x, y, r * 0.45, colour, 3)
            + _line(x - r * 1.3, y, x + r * 1.3, y, colour, 3)
            + _line(x, y - r * 1.3, x, y + r * 1.3, colour, 3))


# ---- faces, per game -------------------------------------------------------------------------
def _duck_face(a: Mapping[str, Any]) -> list[str]:
    if a["kind"] == "duck":
        colour, value = PALETTE[a["colour"]], str(a["value"])
        return [*_index(value, colour, _circle(36, 94, 8, colour)),
                _waves(205, PALETTE["blue"]), _waves(215, PALETTE["blue"]),
                _duck(100, 150, 58, colour), _text(value, 100, 250, 36, colour)]
    if a["kind"] == "lifebelt":
        green = a["side"] == "green"
        colour = PALETTE["green" if green else "red"]
        stripe = PALETTE["red" if green else "black"]
        ring = [f'<circle cx="100" cy="150" r="62" fill="none" stroke="{PALETTE["white"]}" '
                f'stroke-width="18"/>',
                f'<circle cx="100" cy="150" r="62" fill="none" stroke="{stripe}" '
                f'stroke-width="18" stroke-dasharray="48.7 48.7"/>']
        return [_rect(20, 20, 180, 280, colour, radius=8),
                *_index(f"{'+' if green else '-'}{a['value']}", PALETTE["white"]),
                *ring, _text(str(a["value"]), 100, 150, 36, PALETTE["white"])]
    stripes = ("red", "white", "blue", "white", "yellow", "white")
    towel = [_rect(24, 30 + k * 18.5, 176, 30 + (k + 1) * 18.5, PALETTE[stripes[k % 6]])
             for k in range(13)]
    return [*towel, _rect(40, 128, 160, 172, PAPER, radius=6), _text("TOWEL", 100, 150, 22, INK)]


def _bruce_face(a: Mapping[str, Any]) -> list[str]:
    if a["kind"] == "bruce":
        fur, x, y, s = PALETTE["brown"], 100, 145, 52
        dog = [_rect(15, 15, 185, 285, fur, 4, 8),
               f'<ellipse cx="{x - 0.75 * s:g}" cy="{y - 0.1 * s:g}" rx="{0.25 * s:g}" '
               f'ry="{0.55 * s:g}" fill="{INK}" transform="rotate(15 {x - 0.75 * s:g} '
               f'{y - 0.1 * s:g})"/>',
               f'<ellipse cx="{x + 0.75 * s:g}" cy="{y - 0.1 * s:g}" rx="{0.25 * s:g}" '
               f'ry="{0.55 * s:g}" fill="{INK}" transform="rotate(-15 {x + 0.75 * s:g} '
               f'{y - 0.1 * s:g})"/>',
               _circle(x, y, 0.7 * s, fur), _ellipse(x, y + 0.35 * s, 0.38 * s, 0.28 * s, "#ebdcc8"),
               _circle(x - 0.25 * s, y - 0.15 * s, 0.09 * s, INK),
               _circle(x + 0.25 * s, y - 0.15 * s, 0.09 * s, INK),
               _ellipse(x, y + 0.25 * s, 0.14 * s, 0.09 * s, INK)]
        return [*dog, *_turned([_text("BRUCE", 100, 240, 24, fur)])]
    suit, n = a["suit"], int(a["value"])
    colour, shape = PALETTE[suit], SHAPES[BRUCE_SUITS.index(suit)]
    spots = {1: [(100, 150)], 2: [(100, 110), (100, 190)],
             3: [(100, 95), (100, 150), (100, 205)],
             4: [(72, 110), (128, 110), (72, 190), (128, 190)]}[n]
    size = 34 if n <= 2 else 26
    ducks = [_duck(x, y, size, colour, 1 if k % 2 == 0 else -1) for k, (x, y) in enumerate(spots)]
    return [_rect(15, 15, 185, 285, colour, 5, 8),
            *_index(str(n), colour, _shape(shape, 36, 94, 10, colour)), *ducks,
            *_turned([_shape(shape, 100, 252, 9, colour)])]


def _grey_face(a: Mapping[str, Any]) -> list[str]:
    grey = a["colour"] == "grey"
    colour, rank = PALETTE["grey" if grey else "yellow"], str(a["rank"])
    parts = [_rect(15, 15, 185, 285, PALETTE["black"], 5, 8)] if grey else []
    parts += [*_index(rank, INK, _circle(36, 94, 8, colour)), _circle(100, 150, 64, colour)]
    if rank == "D":
        parts += [_duck(100, 150, 52, PALETTE["black"] if grey else PALETTE["white"]),
                  _poly([(80, 92), (88, 78), (100, 90), (112, 78), (120, 92)], PALETTE["orange"])]
    else:
        parts.append(_duck(100, 158, 44, PALETTE["white"]))
    return [*parts, _text(rank, 100, 252, 36, INK)]


_ACTION_ICON_SIZE = 32


def _sitting_face(a: Mapping[str, Any]) -> list[str]:
    kind, water = a["kind"], PALETTE["blue"]
    if kind == "duck":
        colour = PALETTE[a["colour"]]
        return [_rect(15, 15, 185, 285, colour, 5, 8),
                *_index(str(a["colour"])[:2].upper(), colour, _circle(36, 94, 8, colour)),
                *(_waves(y, water) for y in (200, 214, 228)), _duck(100, 150, 60, colour)]
    if kind == "water":
        return [*(_waves(y, water, 4 + (y % 3), 24) for y in range(40, 270, 14)),
                _rect(50, 134, 150, 166, PAPER, radius=6), _text("WATER", 100, 150, 20, INK)]
    if kind == "sky":
        pos = str(a["position"])
        return [_rect(20, 20, 180, 280, PALETTE["white"], radius=8),
                _rect(24, 24, 176, 276, PALETTE["sky"], radius=8), *_index(pos, INK),
                _ellipse(70, 110, 34, 16, PALETTE["white"]),
                _ellipse(120, 190, 34, 16, PALETTE["white"]),
                _circle(100, 150, 24, PAPER), _text(pos, 100, 150, 28, INK)]
    if kind == "target":
        return [_crosshair(100, 150, 50, PALETTE["red"]), _crosshair(100, 150, 30, PALETTE["red"]),
                *_turned([_text("TARGET", 100, 250, 20, INK)])]
    words = str(a["action"]).replace("-", " ").upper()
    lines = [words] if len(words) <= 9 else _split(words.split())
    title = [_text(line, 100, 36 + 20 * k, 17, INK) for k, line in enumerate(lines)]
    return [_rect(15, 15, 185, 285, PALETTE["red"], 3, 8), *_turned(title),
            _crosshair(100, 150, _ACTION_ICON_SIZE, PALETTE["red"])]


def _split(words: list[str]) -> list[str]:
    """Two balanced lines for a long action title (as the renderer splits it)."""
    if len(words) < 2:
        return words
    best = min(range(1, len(words)),
               key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return [" ".join(words[:best]), " ".join(words[best:])]


def _ducky_face(a: Mapping[str, Any]) -> list[str]:
    kind = a["kind"]
    if kind == "gift":
        box, ribbon = PALETTE["red"], PALETTE["yellow"]
        return [_rect(50, 110, 150, 210, box, radius=4), _rect(92, 110, 108, 210, ribbon),
                _rect(50, 152, 150, 168, ribbon), _ellipse(85, 100, 18, 10, ribbon),
                _ellipse(115, 100, 18, 10, ribbon), *_turned([_text("GIFT", 100, 40, 22, INK)])]
    if kind == "pad":
        return [_circle(100, 150, 70, PALETTE[a["colour"]])]
    if kind == "duck-token":
        return [_duck(100, 150, 60, PALETTE[a["colour"]])]
    first, second = a["slots"]
    parts: list[str] = []
    for k, (name, y) in enumerate(((first, 90), (second, 210))):
        colour = PALETTE[name]
        parts += [_circle(100, y, 46, colour, 5), _duck(100, y + 4, 34, colour, 1 if k == 0 else -1)]
    return [*parts, *_index(f"{first[0].upper()}{second[0].upper()}", INK)]


_FACES = {"duck": _duck_face, "bruce": _bruce_face, "grey": _grey_face,
          "sitting": _sitting_face, "ducky": _ducky_face}


# ---- public ----------------------------------------------------------------------------------
def _svg(inner: str, name: str, css: str) -> Markup:
    return _svg_box("0 0 200 300", inner, name, css)


def _paper(panel: str) -> str:
    return (_rect(0, 0, 200, 300, PAPER, radius=14)
            + _rect(FRAME, FRAME, 200 - FRAME, 300 - FRAME, panel, radius=10))


@functools.lru_cache(maxsize=1024)
def _face_markup(game: str, label: str, css: str) -> Markup:
    attrs = _attrs(game)[label]
    panel = GAME_LOOK.get(game, ("#ffffff", "#555555"))[0]
    inner = _paper(panel) + "".join(_FACES[game](attrs)) + _rect(
        0.75, 0.75, 199.25, 299.25, "#0005", 1.5, 14)
    return _svg(inner, card_name(game, label), css)


def card_svg(label: object, game: str, size: str = "m", extra: str = "") -> Markup:
    """One card face as inline SVG (``size``: s, m or l; ``extra``: more CSS classes). A label
    that is not a card of ``game`` (None, "unknown", "back") is drawn as the card's back."""
    css = f"cardsvg {size} {extra}".strip()
    if not isinstance(label, str) or game not in _FACES or not is_card(game, label):
        return card_back(game, size, extra)
    return _face_markup(game, label, css)


@functools.lru_cache(maxsize=64)
def card_back(game: str, size: str = "m", extra: str = "", name: str = "face-down card") -> Markup:
    """The back of a card of ``game``: the renderer's lattice, an oval and the deck's initial."""
    panel, back = GAME_LOOK.get(game, ("#ffffff", "#555555"))
    light = _lighter(back)
    lattice = "".join(
        _line(k * 23, 0, k * 23 + 300, 300, light, 2) + _line(k * 23, 300, k * 23 + 300, 0, light, 2)
        for k in range(-14, 10))
    deck = DECKS.get(game)
    initial = deck.title[0] if deck is not None else "?"
    # (the paper margin is painted over the lattice: no clip path, whose id would repeat
    # once per card on a page)
    inner = (_rect(0, 0, 200, 300, back, radius=14) + lattice
             + _rect(4.5, 4.5, 195.5, 295.5, PAPER, 9, 12)
             + _ellipse(100, 150, 40, 60, PAPER) + _text(initial, 100, 150, 52, back)
             + _rect(0.75, 0.75, 199.25, 299.25, "#0005", 1.5, 14))
    return _svg(inner, name, f"cardsvg {size} back {extra}".strip())


@functools.lru_cache(maxsize=16)
def duck_token(colour: str) -> Markup:
    """A duck standing on a lily pad (Ducky Ducky's river): the duck alone, no card around it."""
    fill = PALETTE.get(colour, PALETTE["yellow"])
    return _svg_box("0 0 100 100", _duck(50, 52, 52, fill), f"{colour} duck", "token")


def _svg_box(box: str, inner: str, name: str, css: str) -> Markup:
    return Markup('<svg class="{}" viewBox="{}" role="img" aria-label="{}"><title>{}</title>{}'
                  '</svg>').format(css, box, name, name, Markup(inner))


def _lighter(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(min(255, c + 70) for c in (r, g, b)))


def card_row(labels: list[object] | None, game: str, size: str = "m") -> Markup:
    """Several cards side by side (the caller's CSS lays them out and wraps them)."""
    return Markup("").join(card_svg(label, game, size) for label in labels or [])


_CARD = re.compile(r'(<svg class="cardsvg[^"]*" viewBox="(0 0 \d+ \d+)" role="img" '
                   r'aria-label="[^"]*"><title>[^<]*</title>)(.*?)(</svg>)', re.S)


def share_drawings(html: str) -> Markup:
    """A page of cards with each distinct drawing given once: the drawings go into one hidden
    ``<svg>`` of symbols at the top and every card shows its own with ``<use>``. A board holds
    dozens of cards, many alike (a fan of backs, a hand); the live stream sends the board to
    every phone after every change, so this keeps it a fraction of its size. Each card keeps
    its own name (``aria-label``)."""
    drawings: dict[str, str] = {}
    boxes: dict[str, str] = {}

    def use(found: re.Match[str]) -> str:
        head, box, inner, tail = found.groups()
        ident = drawings.setdefault(inner, f"card-drawing-{len(drawings)}")
        boxes[ident] = box
        return f'{head}<use href="#{ident}"/>{tail}'

    body = _CARD.sub(use, str(html))
    if not drawings:
        return Markup(body)
    symbols = "".join(f'<symbol id="{ident}" viewBox="{boxes[ident]}">{inner}</symbol>'
                      for inner, ident in drawings.items())
    return Markup(f'<svg class="card-drawings" aria-hidden="true" focusable="false">'
                  f'<defs>{symbols}</defs></svg>{body}')

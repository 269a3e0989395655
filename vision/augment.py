"""Synthetic training and test imagery: what a camera does to a printed card, and what else it sees.

The classifier only ever trains on rendered cards, so this module makes them look photographed:
the detector's imperfect crop (perspective residue, a few pixels of misalignment, table showing
at an edge, a finger over a corner), then light (gradients, glare, colour casts), optics (blur),
and the sensor (noise, JPEG). It also draws:

* *foreign designs* — families of invented cards (one template, many indices) that teach the
  embedding to tell any two printed cards apart, not only the ones we know. They use only
  drawing styles that no rendered edition uses;
* *clutter* — crops that are not one whole card (table, hands, slivers of cards), the
  ``unknown`` class;
* *photos* — a card lying on a surface or held in a hand at any angle, for enrolment tests.

Everything takes a ``numpy.random.Generator``, so a seed reproduces a data set exactly.
No torch here: CI tests this module without the training extra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

Image = np.ndarray

# Fonts the foreign designs may use. The alternate edition's fonts (COMPLEX, TRIPLEX, italics)
# are excluded so "never seen in training" stays true for it.
FOREIGN_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX,
                  cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
_GLYPHS = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"


# ---- camera effects --------------------------------------------------------------------------
def detector_crop(card: Image, rng: np.random.Generator, *, size: tuple[int, int] = (100, 150),
                  jitter: float = 0.035, zoom: float = 0.0, surround: Image | None = None
                  ) -> Image:
    """``card`` as the detector would cut it out: corners off by up to ``jitter`` of the size.

    ``zoom`` > 0 cuts that share off every side (the detector locked onto a frame printed
    inside the card); < 0 takes in that much table around it. Where the crop reaches past the
    card the table shows (``surround``, or a random colour). ``size`` is (width, height).
    """
    h, w = card.shape[:2]
    cw, ch = size
    zx, zy = zoom * w, zoom * h
    src = np.array([[zx, zy], [w - zx, zy], [w - zx, h - zy], [zx, h - zy]], np.float32)
    shift = rng.uniform(-jitter, jitter, (4, 2)) * np.array([w, h])
    slide = rng.uniform(-jitter / 2, jitter / 2, 2) * np.array([w, h])  # misalignment
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    m = cv2.getPerspectiveTransform((src + shift + slide).astype(np.float32), dst)
    if surround is None:
        border = tuple(int(v) for v in rng.integers(0, 200, 3))
        return cv2.warpPerspective(card, m, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, size,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    warped = cv2.warpPerspective(card, m, size, flags=cv2.INTER_LINEAR)
    bg = cv2.resize(surround, size)
    return np.where(mask[..., None] > 127, warped, bg)


def photometric(img: Image, rng: np.random.Generator, strength: float = 1.0,
                card_px: float | None = None) -> Image:
    """Light, optics and sensor: gradient, cast, glare, blur, noise, JPEG (each sometimes).

    ``card_px`` is a card's width in the image (default: the image width), so blur is sized
    relative to the card.
    """
    h, w = img.shape[:2]
    card_px = card_px or w
    out: np.ndarray = img.astype(np.float32)
    # lighting: brightness/contrast, then a linear gradient across the card
    gain = rng.uniform(1 - 0.4 * strength, 1 + 0.25 * strength)
    out = (out - 128) * rng.uniform(1 - 0.3 * strength, 1 + 0.15 * strength) + 128 * gain
    angle = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle))
    out *= (1 + rng.uniform(0, 0.6 * strength) * ramp)[..., None]
    # colour cast (white balance off, warm or cool light)
    out *= rng.uniform(1 - 0.18 * strength, 1 + 0.18 * strength, 3).astype(np.float32)
    if rng.random() < 0.3 * strength:  # glare: a soft bright spot
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.15, 0.45) * w
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        out += (spot * rng.uniform(60, 160))[..., None]
    if rng.random() < 0.5:
        out = np.clip(out, 0, 255)
        gamma = rng.uniform(0.7, 1.4)
        out = 255 * (out / 255) ** gamma
    out = np.clip(out, 0, 255).astype(np.uint8)
    blur = rng.random()
    if blur < 0.35 * strength:
        sigma = rng.uniform(0.3, 1.4) * card_px / 100
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    elif blur < 0.5 * strength:  # motion blur along a random direction
        k = int(rng.integers(3, 6))
        line = np.zeros((k, k), np.float32)
        line[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = np.asarray(cv2.warpAffine(line, rot, (k, k)))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < 0.7:
        sigma = rng.uniform(0, 9 * strength)
        noise = rng.normal(0, sigma, out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(25, 95))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded)
    return out


def occlude(img: Image, rng: np.random.Generator) -> Image:
    """A fingertip over part of one edge, as when a card is held in a hand."""
    h, w = img.shape[:2]
    out = img.copy()
    skin = _skin(rng)
    side = int(rng.integers(4))
    along = rng.uniform(0.15, 0.85)
    cx, cy = [(along * w, 0), (w, along * h), (along * w, h), (0, along * h)][side]
    axes = (int(rng.uniform(0.08, 0.16) * w), int(rng.uniform(0.1, 0.2) * h))
    cv2.ellipse(out, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, skin, -1,
                cv2.LINE_AA)
    return out


def augment_card(card: Image, rng: np.random.Generator, *, size: tuple[int, int] = (100, 150),
                 strength: float = 1.0) -> Image:
    """One training view of ``card`` (an upright render): crop, maybe turned 180°, photographed."""
    r = rng.random()
    zoom = (rng.uniform(0.04, 0.1) if r < 0.15 * strength
            else rng.uniform(-0.06, -0.02) if r < 0.25 * strength else 0.0)
    crop = detector_crop(card, rng, size=size, jitter=0.035 * strength, zoom=zoom,
                         surround=surface(rng, (size[0] // 2, size[1] // 2)))
    if rng.random() < 0.5:
        crop = np.ascontiguousarray(crop[::-1, ::-1])
    if rng.random() < 0.12 * strength:
        crop = occlude(crop, rng)
    if rng.random() < 0.4 * strength:  # a small, far card: detail lost, then scaled up
        small = int(rng.uniform(0.6, 1.0) * size[0])
        crop = cv2.resize(crop, (small, round(small * size[1] / size[0])),
                          interpolation=cv2.INTER_AREA)
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_LINEAR)
    return photometric(crop, rng, strength)


# ---- things that are not one of our cards ----------------------------------------------------
def surface(rng: np.random.Generator, size: tuple[int, int]) -> Image:
    """A table top, cloth or floor: wood grain, plain with noise, check or a gradient."""
    w, h = size
    base = rng.integers(20, 200, 3).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = int(rng.integers(4))
    if kind == 0:  # wood grain
        f = rng.uniform(0.05, 0.3)
        pattern = np.sin(yy * f + 3 * np.sin(xx * f / 7)) * 0.5 + 0.5
    elif kind == 1:
        pattern = np.zeros((h, w), np.float32) + 0.5
    elif kind == 2:  # cloth check
        p = int(rng.integers(4, 20))
        pattern = (((xx // p) + (yy // p)) % 2).astype(np.float32)
    else:
        a = rng.uniform(0, 2 * math.pi)
        pattern = (xx * math.cos(a) + yy * math.sin(a)) / max(w, h) + 0.5
    tint = base[None, None, :] * (0.7 + 0.5 * pattern[..., None])
    tint += rng.normal(0, rng.uniform(2, 15), (h, w, 3)).astype(np.float32)
    return np.clip(tint, 0, 255).astype(np.uint8)


def clutter(rng: np.random.Generator, cards: list[Image], *,
            size: tuple[int, int] = (100, 150)) -> Image:
    """A crop that is not one whole card: bare table, a hand, or slivers of several cards."""
    w, h = size
    out = surface(rng, size)
    kind = int(rng.integers(3))
    if kind == 1:  # a hand
        cv2.ellipse(out, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                    (int(w * rng.uniform(0.3, 0.6)), int(h * rng.uniform(0.2, 0.5))),
                    rng.uniform(0, 180), 0, 360, _skin(rng), -1, cv2.LINE_AA)
    elif kind == 2 and cards:  # parts of cards overlapping, shifted well off the crop
        for _ in range(int(rng.integers(1, 4))):
            card = cards[int(rng.integers(len(cards)))]
            scale = rng.uniform(0.6, 1.4)
            angle = rng.uniform(0, 360)
            centre = (rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h)
            if 0.3 * w < centre[0] < 0.7 * w and 0.3 * h < centre[1] < 0.7 * h:
                centre = (centre[0] + w * 0.45, centre[1])
            m = cv2.getRotationMatrix2D((card.shape[1] / 2, card.shape[0] / 2), angle, scale)
            m[:, 2] += np.array(centre) - np.array([card.shape[1] / 2, card.shape[0] / 2])
            mask = cv2.warpAffine(np.full(card.shape[:2], 255, np.uint8), m, size)
            warped = cv2.warpAffine(card, m, size)
            out = np.where(mask[..., None] > 127, warped, out)
    if rng.random() < 0.5:
        out = np.ascontiguousarray(out[::-1, ::-1])
    return photometric(out, rng)


# ---- invented decks: many identities for a general-purpose embedding ------------------------
def foreign_card(family: int, member: int, *, width: int = 100, height: int = 150) -> Image:
    """Card ``member`` of invented deck ``family`` (deterministic).

    A family shares paper, frame, font, layout and art; its members differ the way real decks
    do — by index text, ink colour and the number or kind of symbols — so telling them apart
    needs the same attention to detail as ``yellow-5`` versus ``yellow-6``.
    """
    frng = np.random.default_rng([7919, family])
    mrng = np.random.default_rng([7919, family, member])
    s = 2  # supersampling
    W, H = width * s, height * s
    paper = frng.integers(200, 256, 3)
    img = np.empty((H, W, 3), np.uint8)
    img[:] = paper
    font = int(frng.choice(FOREIGN_FONTS))
    palette = [tuple(int(v) for v in frng.integers(0, 230, 3)) for _ in range(5)]
    # a third of the decks are told apart by their index alone (one ink, one picture)
    index_only = frng.random() < 0.35
    ink = palette[0 if index_only else int(mrng.integers(len(palette)))]
    margin = int(frng.uniform(0.04, 0.1) * W)
    if frng.random() < 0.7:  # panel
        panel = tuple(int(v) for v in frng.integers(120, 256, 3))
        cv2.rectangle(img, (margin, margin), (W - margin, H - margin), panel, -1)
    if frng.random() < 0.6:  # frame in the member's ink
        cv2.rectangle(img, (margin, margin), (W - margin, H - margin), ink,
                      int(frng.integers(2, 8)), cv2.LINE_AA)
    # the centre art: a family shape drawn 1..n times, or a big index
    art = int(frng.integers(4))
    n = int(frng.integers(1, 6)) if index_only else int(mrng.integers(1, 6))
    shape = (int(frng.integers(5)) if index_only or frng.random() < 0.5
             else int(mrng.integers(5)))
    if art == 0:
        positions = [(W / 2, H * (k + 1) / (n + 1)) for k in range(n)]
    elif art == 1:
        positions = [(W * (0.35 + 0.3 * (k % 2)), H * (0.25 + 0.5 * (k // 2) / max(1, (n - 1) // 2)))
                     for k in range(n)]
    else:
        positions = [(W / 2, H / 2)]
    r = int(W * (0.22 if len(positions) == 1 else 0.09))
    shape_rng = np.random.default_rng([7919, family, 1 << 20]) if index_only else mrng
    for x, y in positions:
        _foreign_shape(img, shape, (int(x), int(y)), r, ink, shape_rng)
    order = frng.permutation(len(_GLYPHS))
    if index_only:  # distinct indices within the deck, as real decks have
        lead = _GLYPHS[int(order[-1])] if frng.random() < 0.3 else ""
        text = lead + _GLYPHS[int(order[member % (len(_GLYPHS) - 1)])]
    else:
        text = "".join(_GLYPHS[int(mrng.integers(len(_GLYPHS)))]
                       for _ in range(int(frng.integers(1, 3))))
    if art == 3:
        _foreign_text(img, text, (W // 2, H // 2), H * 0.25, font, ink, W * 0.7)
    corner = (int(W * frng.uniform(0.15, 0.22)), int(H * frng.uniform(0.1, 0.17)))
    if frng.random() < 0.4:  # index in the top-right (and bottom-left) corner instead
        corner = (W - corner[0], corner[1])
    size = H * frng.uniform(0.07, 0.15)
    _foreign_text(img, text, corner, size, font, ink, W * 0.25)
    if frng.random() < 0.8:  # most decks repeat the index in the opposite corner
        img = np.ascontiguousarray(img[::-1, ::-1])
        _foreign_text(img, text, corner, size, font, ink, W * 0.25)
        img = np.ascontiguousarray(img[::-1, ::-1])
    return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)


def _foreign_shape(img: Image, kind: int, c: tuple[int, int], r: int, colour: tuple[int, ...],
                   rng: np.random.Generator) -> None:
    x, y = c
    col = tuple(int(v) for v in colour)
    if kind == 0:
        cv2.circle(img, c, r, col, -1, cv2.LINE_AA)
    elif kind == 1:
        cv2.rectangle(img, (x - r, y - r), (x + r, y + r), col, -1)
    elif kind == 2:
        k = int(rng.integers(3, 8))
        pts = np.array([(x + r * math.cos(2 * math.pi * i / k), y + r * math.sin(2 * math.pi * i / k))
                        for i in range(k)], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    elif kind == 3:
        cv2.ellipse(img, c, (r, max(1, r // 2)), float(rng.uniform(0, 180)), 0, 360, col, -1,
                    cv2.LINE_AA)
    else:
        cv2.line(img, (x - r, y - r), (x + r, y + r), col, max(2, r // 4), cv2.LINE_AA)
        cv2.line(img, (x - r, y + r), (x + r, y - r), col, max(2, r // 4), cv2.LINE_AA)


def _foreign_text(img: Image, text: str, c: tuple[int, int], height: float, font: int,
                  colour: tuple[int, ...], max_width: float) -> None:
    (_, h1), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = height / max(h1, 1)
    thickness = max(1, int(height / 12))
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    if w > max_width:
        scale *= max_width / w
        (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    cv2.putText(img, text, (c[0] - w // 2, c[1] + h // 2), font, scale,
                tuple(int(v) for v in colour), thickness, cv2.LINE_AA)


# ---- photos of one card, for enrolment -------------------------------------------------------
def photo_of_card(card: Image, rng: np.random.Generator, *, size: tuple[int, int] = (640, 480),
                  held: bool = False, blur_sigma: float = 0.0) -> Image:
    """A photo of one card lying on a surface (or held in a hand) at any angle.

    The card fills roughly a third to a half of the frame height, is turned by any angle, seen
    at a slight slant, and lit unevenly. ``held`` adds fingers over one edge.
    """
    w, h = size
    photo = surface(rng, size)
    ch, cw = card.shape[:2]
    target_h = rng.uniform(0.45, 0.7) * h
    scale = target_h / ch
    angle = rng.uniform(0, 2 * math.pi)
    centre = np.array([rng.uniform(0.4, 0.6) * w, rng.uniform(0.4, 0.6) * h])
    corners = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2],
                        [-cw / 2, ch / 2]]) * scale
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    dst = corners @ rot.T + centre
    dst += rng.uniform(-0.04, 0.04, (4, 2)) * target_h  # slight slant
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), m, size)
    warped = cv2.warpPerspective(card, m, size, flags=cv2.INTER_LINEAR)
    photo = np.where(mask[..., None] > 127, warped, photo)
    if held:
        side = int(rng.integers(4))
        edge = dst[side] * 0.5 + dst[(side + 1) % 4] * 0.5
        skin = _skin(rng)
        cv2.ellipse(photo, (int(edge[0]), int(edge[1])),
                    (int(0.06 * target_h), int(0.1 * target_h)), rng.uniform(0, 180), 0, 360,
                    skin, -1, cv2.LINE_AA)
    photo = photometric(photo, rng, strength=0.6, card_px=cw * scale)
    if blur_sigma > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), blur_sigma)
    return photo


def _skin(rng: np.random.Generator) -> tuple[int, int, int]:
    tones = ((90, 130, 190), (120, 160, 220), (60, 90, 140), (40, 60, 100), (150, 180, 230))
    b, g, r = tones[int(rng.integers(len(tones)))]
    d = rng.integers(-15, 16, 3)
    return (int(b + d[0]), int(g + d[1]), int(r + d[2]))


# ---- a table camera's pictures ---------------------------------------------------------------
@dataclass(frozen=True)
class CaptureLook:
    """How one table camera takes its pictures, fixed while it films a game: exposure, white
    balance, focus, sensor noise and JPEG quality, within the spread of :func:`photometric`'s
    light, optics and sensor (the real-photo work's capture model), milder where a fixed camera
    over a table differs from a hand-held photo (no glare spot, no gradient of its own: the
    rendered table has its light already)."""

    gain: float  # exposure, 1 = as rendered
    white: tuple[float, float, float]  # white balance, a gain per channel (BGR)
    focus_sigma: float  # blur of the lens, in pixels of a 1280-wide picture
    noise_sigma: float  # sensor noise, grey levels
    quality: int  # JPEG quality of the delivered picture

    @classmethod
    def random(cls, rng: np.random.Generator) -> CaptureLook:
        white = rng.uniform(0.9, 1.1, 3)
        return cls(gain=float(rng.uniform(0.8, 1.15)),
                   white=(float(white[0]), float(white[1]), float(white[2])),
                   focus_sigma=float(rng.uniform(0.0, 0.9)), noise_sigma=float(rng.uniform(1.5, 4.0)),
                   quality=int(rng.integers(60, 96)))

    def to_json(self) -> dict[str, float | int | list[float]]:
        return {"gain": round(self.gain, 3), "white": [round(v, 3) for v in self.white],
                "focus_sigma": round(self.focus_sigma, 2), "noise_sigma": round(self.noise_sigma, 2),
                "quality": self.quality}


def capture(image: Image, look: CaptureLook, rng: np.random.Generator, *, noise: bool = True) -> Image:
    """``image`` as a camera with ``look`` delivers it: exposure and white balance (flickering
    by 2% from frame to frame, as auto exposure does), lens blur, sensor noise (``noise`` False:
    the caller adds its own) and JPEG compression. The blur is scaled to the picture's width."""
    flicker = float(rng.uniform(0.98, 1.02))
    b, g, r = (look.gain * flicker * v for v in look.white)
    out = np.asarray(cv2.multiply(image, np.array([b, g, r, 1.0]), dtype=cv2.CV_8U))
    sigma = look.focus_sigma * image.shape[1] / 1280
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if noise and look.noise_sigma > 0:
        field = rng.normal(0, look.noise_sigma, out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + field, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return np.asarray(decoded) if decoded is not None else out


def table_camera_crop(card: Image, rng: np.random.Generator, *, size: tuple[int, int] = (100, 150),
                      card_width: tuple[float, float] = (50.0, 105.0)) -> Image:
    """``card`` as the table reader cuts it from a table camera's picture (training only).

    A camera over the table sees a card only ``card_width`` pixels across, and its picture is
    blurred, noisy and JPEG-compressed twice (the scene's render, then the camera's delivery),
    each time with the colour kept at half resolution (4:2:0). A coloured index with little
    brightness contrast to its paper (DUCK's yellow digits) lives almost only in that colour,
    so this is what blurs a yellow 5 into an 8. The crop is cut at that small size and
    scaled up to ``size`` as :func:`~ducktable.vision.detect.crop_card` scales it.
    """
    width = rng.uniform(*card_width)
    small = (max(16, round(width)), max(24, round(width * card.shape[0] / card.shape[1])))
    face = cv2.resize(card, small, interpolation=cv2.INTER_AREA)
    crop = detector_crop(face, rng, size=small, jitter=0.025,
                         surround=surface(rng, (small[0] // 2, small[1] // 2)))
    out = crop.astype(np.float32)
    out *= rng.uniform(0.75, 1.15) * rng.uniform(0.9, 1.1, 3).astype(np.float32)  # light, balance
    for focus, noise, quality, shot in ((1.4, (1.0, 6.0), (45, 96), True),
                                        (1.5, (1.5, 4.0), (60, 96), False)):
        sigma = rng.uniform(0.0, focus)
        if sigma > 0.3:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigma), np.float32)
        spread = rng.uniform(*noise)
        if shot:  # the scene's sensor: one field for all channels, stronger where bright
            field = rng.standard_normal(out.shape[:2] + (1,)).astype(np.float32) * spread
            out = out + field * (0.5 + out / 255.0)
        else:
            out = out + rng.normal(0, spread, out.shape).astype(np.float32)
        ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*quality))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        out = (decoded if decoded is not None else np.clip(out, 0, 255)).astype(np.float32)
    result = cv2.resize(out.astype(np.uint8), size, interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        result = np.ascontiguousarray(result[::-1, ::-1])
    return result

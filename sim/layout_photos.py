"""Photos of a deck laid out for layout enrolment (:mod:`ducktable.vision.layout_plan`).

Why this module exists: the tests and the benchmark of layout enrolment need photos of grids
of cards whose every place is known, with what a hand and a camera do to them: cards a little
off their places and crooked, the whole grid turned, the camera tilted, JPEG loss.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ducktable.sim.scene import DEFAULT_CARD_WIDTH_FRAC, Placement, Scene, compose_scene
from ducktable.vision.layout_plan import Layout

SIZE = (1600, 1200)


def layout_photo(layout: Layout, round_: int, seed: int, *, tilt_deg: float = 6.0,
                 turn_deg: float = 0.0, labels: Sequence[str | None] | None = None,
                 size: tuple[int, int] = SIZE, edition: str = "reference") -> Scene:
    """``layout`` laid in ``round_`` (or ``labels`` at its places, row by row, None for an
    empty place) on a table chosen by ``seed``; the grid fills about 80% of the picture and is
    turned by ``turn_deg``, each card moved by about 6 pixels and turned by about 3 degrees."""
    rng = np.random.default_rng([seed, 0x1A7])
    w, h = size
    pitch = np.array([w * 0.8 / layout.cols, h * 0.8 / layout.rows])
    card_w = min(pitch[0] * 0.7, pitch[1] * 0.7 / 1.5)
    if abs(np.sin(np.radians(turn_deg))) > 0.5:  # the grid on its side: keep it in the picture
        fit = min(w / (layout.rows * pitch[1] * 1.25), h / (layout.cols * pitch[0] * 1.25))
        card_w *= fit
        pitch *= fit
    angle = np.radians(turn_deg)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    placements = []
    for i, label in enumerate(labels if labels is not None else layout.labels(round_)):
        if label is None:
            continue
        r, c = divmod(i, layout.cols)
        offset = np.array([c - (layout.cols - 1) / 2, r - (layout.rows - 1) / 2]) * pitch
        centre = np.array([w / 2, h / 2]) + rot @ offset + rng.normal(0, 6, 2)
        placements.append(Placement(f"{layout.game}/{label}", (float(centre[0]), float(centre[1])),
                                    turn_deg + float(rng.normal(0, 3)),
                                    card_w / (DEFAULT_CARD_WIDTH_FRAC * w)))
    return compose_scene(seed, placements, seed + 1, size=size, edition=edition,
                         tilt_deg=tilt_deg)

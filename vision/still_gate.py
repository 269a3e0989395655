"""Has anything on the table moved since the last frame that was read in full?

Why this module exists: most of a game's frames show a table where nothing moves (players
think, talk, count). Reading such a frame again costs the detector, the classifier and the
hand check and gives the same snapshot. :class:`StillGate` compares the frame, shrunk and grey,
with the one last read in full: where no pixel changed by more than :data:`StillGate.LEVELS`
grey levels the earlier reading stands. A card laid, a hand, a light switched on all change far
more than that; a camera's noise, averaged over 4 x 4 pixels, changes 2-6 levels (measured on
the rendered table videos' camera-like frames: JPEG, noise, blur, exposure).

The gate also says *where* things changed (:meth:`StillGate.changed_at`), so a card whose place
did not change keeps its name without being classified again.
"""

from __future__ import annotations

import cv2
import numpy as np


class StillGate:
    """The grey, shrunk frame last read in full, and the comparison of later frames with it."""

    SCALE = 0.25
    """The frame is compared at a quarter of its width and height (by pixel area)."""
    LEVELS = 12
    """A small pixel that changed by more than this many grey levels (of 255) changed."""
    PIXELS = 4
    """This many changed small pixels (1 x 4 frame pixels each) make the frame a moved one."""
    GROW = 2
    """Changed places grow by this many small pixels (a card's edge, its shadow)."""

    def __init__(self) -> None:
        self.reference: np.ndarray | None = None
        self.changed: np.ndarray | None = None
        """Where the last :meth:`look` saw change (small pixels), None before a reference."""

    def small(self, frame: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return cv2.resize(grey, None, fx=self.SCALE, fy=self.SCALE, interpolation=cv2.INTER_AREA)

    def look(self, small: np.ndarray) -> bool:
        """True when ``small`` (from :meth:`small`) shows the table as the reference did; keeps
        where it changed for :meth:`changed_at`."""
        if self.reference is None or self.reference.shape != small.shape:
            self.changed = None
            return False
        moved = cv2.absdiff(small, self.reference) > self.LEVELS
        if int(np.count_nonzero(moved)) < self.PIXELS:
            self.changed = np.zeros(moved.shape, bool)
            return True
        grown = cv2.dilate(moved.astype(np.uint8), np.ones((2 * self.GROW + 1,) * 2, np.uint8))
        self.changed = grown.astype(bool)
        return False

    def keep(self, small: np.ndarray) -> None:
        """``small`` was read in full: later frames are compared with it."""
        self.reference = small

    def changed_at(self, quad: np.ndarray) -> bool:
        """Whether anything changed inside ``quad``'s bounding box (frame pixels) at the last
        :meth:`look`; True when it is not known."""
        if self.changed is None:
            return True
        h, w = self.changed.shape
        x0, y0 = np.floor(quad.min(axis=0) * self.SCALE).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0) * self.SCALE).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1 + 1, w), min(y1 + 1, h)
        if x0 >= x1 or y0 >= y1:
            return True
        return bool(self.changed[y0:y1, x0:x1].any())

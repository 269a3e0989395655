"""Layout enrolment for the phone page: the plan, each uploaded photo read and kept, the deck stored.

Why this module exists: the web pages may not import the camera side (vision/, numpy, OpenCV),
so the enrolment page talks to this object, given to the app as ``ENROLMENT``. It keeps what
each layout photo gave on disk (``<data>/enrol-pending/<game>/L<n>R<r>/``: the cards cut from it,
what was read at each place, the photo with the cards outlined), so a phone can photograph the
layouts one by one, retake one, and store the deck when all are in. Every problem with an
upload is an :class:`EnrolmentInputError` with a one-line message.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

MAX_UPLOAD_BYTES = 16 * 1024 * 1024
MAX_PIXELS = 50_000_000
MAX_SIDE = 4000
"""Photos larger than this on their long side are shrunk first (a phone's 12 MP is 4000)."""
MIN_SIDE = 240
"""A layout photo smaller than this each way cannot show 14 cards well enough to enrol them."""
PENDING_NAME = "enrol-pending"


class EnrolmentInputError(ValueError):
    """An upload or a request that cannot be used; the message says what to do."""


class LayoutEnrolment:
    """Plans, reads and stores layout enrolments in ``data_dir``; one photo is read at a time."""

    def __init__(self, data_dir: str | Path, *, search: Any = None) -> None:
        self.data_dir = Path(data_dir)
        self._search = search
        self._lock = threading.Lock()

    # ---- the plan ----------------------------------------------------------------------------
    def games(self) -> list[tuple[str, str]]:
        from ducktable.rules import decks
        from ducktable.vision.printing import GAMES

        return [(game, decks.deck(game).title) for game in GAMES]

    def layouts(self, game: str) -> list[dict[str, Any]]:
        """Each layout as plain data: number, cards, and the grid of each round (rows of labels
        or None)."""
        from ducktable.vision.layout_plan import ROUNDS, LayoutPlanError, plan_layouts

        if game not in dict(self.games()):
            raise EnrolmentInputError(f"no game called {game!r}; pick one from the list")
        try:
            plan = plan_layouts(game)
        except LayoutPlanError as exc:
            raise EnrolmentInputError(str(exc)) from None
        return [{"number": layout.number, "count": layout.count, "cards": layout.cards,
                 "grids": {r: layout.grid(r) for r in range(1, ROUNDS + 1)}} for layout in plan]

    # ---- reading one photo -------------------------------------------------------------------
    def read(self, game: str, number: int, round_: int, data: bytes) -> dict[str, Any]:
        """Read the uploaded photo of layout ``number`` in ``round_`` and keep what it gave
        (replacing an earlier photo of it)."""
        import cv2
        from ducktable.vision import layout_reading
        from ducktable.vision.layout_plan import find_layout

        self._check_layout(game, number, round_)
        image = decode_photo(data)
        layout = find_layout(game, number)
        with self._lock:
            if self._search is None:
                self._search = layout_reading.detector_search()
            reading = layout_reading.read_layout(image, layout, round_, search=self._search)
            folder = self._folder(game, number, round_)
            if folder.exists():
                shutil.rmtree(folder)
            (folder / "crops").mkdir(parents=True)
            for label, crop in reading.crops.items():
                cv2.imwrite(str(folder / "crops" / f"{label}.png"), crop)
            ok, jpeg = cv2.imencode(".jpg", layout_reading.annotate(image, reading),
                                    [cv2.IMWRITE_JPEG_QUALITY, 85])
            if ok:
                (folder / "annotated.jpg").write_bytes(jpeg.tobytes())
            summary = {"number": number, "round": round_, "named": reading.named,
                       "cards": len(layout.cards), "ms": round(reading.ms),
                       "places": [{"row": p.row, "col": p.col, "label": p.label,
                                   "status": p.status, "message": p.message}
                                  for p in reading.places],
                       "retake": reading.retake}
            (folder / "reading.json").write_text(json.dumps(summary), encoding="utf-8")
        return summary

    def reading(self, game: str, number: int, round_: int) -> dict[str, Any] | None:
        """What the kept photo of this layout and round gave, or None."""
        self._check_layout(game, number, round_)
        path = self._folder(game, number, round_) / "reading.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def annotated(self, game: str, number: int, round_: int) -> bytes | None:
        self._check_layout(game, number, round_)
        try:
            return (self._folder(game, number, round_) / "annotated.jpg").read_bytes()
        except OSError:
            return None

    # ---- storing the deck --------------------------------------------------------------------
    def store(self, game: str) -> dict[str, Any]:
        """Enrol ``game`` from every layout photo kept; returns what was stored and the check's
        lines. Raises :class:`EnrolmentInputError` when no photo is kept."""
        import cv2
        from ducktable.vision.classify import CardClassifier, ModelError
        from ducktable.vision.enroll import EnrolmentError
        from ducktable.vision.layout_plan import find_layout
        from ducktable.vision.layout_reading import LayoutReading, Place, enroll_layouts

        from .paths import enrolled_decks_dir

        layouts = self.layouts(game)
        readings = []
        for layout in layouts:
            for round_ in layout["grids"]:
                kept = self.reading(game, layout["number"], round_)
                if kept is None:
                    continue
                folder = self._folder(game, layout["number"], round_)
                crops = {p.stem: cv2.imread(str(p), cv2.IMREAD_COLOR)
                         for p in sorted((folder / "crops").glob("*.png"))}
                places = [Place(p["row"], p["col"], p["label"], p["status"], None, p["message"])
                          for p in kept["places"]]
                readings.append(LayoutReading(find_layout(game, layout["number"]), round_,
                                              places, {k: v for k, v in crops.items()
                                                       if v is not None}))
        if not readings:
            raise EnrolmentInputError("no layout photo yet: photograph at least one layout first")
        with self._lock:
            try:
                classifier = CardClassifier.load()
                report = enroll_layouts(readings, enrolled_decks_dir(self.data_dir),
                                        classifier=classifier)
            except (EnrolmentError, ModelError) as exc:
                raise EnrolmentInputError(str(exc)) from None
        return {"deck": report.deck, "cards": len(report.labels),
                "deck_dir": str(report.deck_dir), "not_enrolled": report.not_enrolled,
                "problems": [p.message for p in report.problems], "retake": report.retake}

    # ---- helpers -----------------------------------------------------------------------------
    def _check_layout(self, game: str, number: int, round_: int) -> None:
        layouts = self.layouts(game)
        if not 1 <= number <= len(layouts):
            raise EnrolmentInputError(f"layout {number} does not exist: there are layouts 1 to "
                                      f"{len(layouts)}")
        if round_ not in layouts[0]["grids"]:
            raise EnrolmentInputError(f"round {round_} does not exist: each layout is laid in "
                                      f"rounds 1 and 2")

    def _folder(self, game: str, number: int, round_: int) -> Path:
        return self.data_dir / PENDING_NAME / game / f"L{number}R{round_}"


def decode_photo(data: bytes) -> Any:
    """The uploaded bytes as a BGR image, shrunk to :data:`MAX_SIDE`; a one-line
    :class:`EnrolmentInputError` for an empty, huge, corrupt or non-image upload."""
    import cv2
    import numpy as np

    if not data:
        raise EnrolmentInputError("no photo was sent: choose or take a photo first")
    if len(data) > MAX_UPLOAD_BYTES:
        raise EnrolmentInputError(f"the photo is larger than {MAX_UPLOAD_BYTES // 2**20} MB: "
                                  "send a smaller one (a phone photo is 2-6 MB)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        if width * height > MAX_PIXELS:
            raise EnrolmentInputError(f"the picture is {width} x {height} pixels, too many: "
                                      "send a photo of at most 50 megapixels")
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise EnrolmentInputError("that file is not a photo that can be read (corrupt or "
                                  "another kind of file): send a JPEG or PNG photo")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise EnrolmentInputError("the picture has too many pixels: send a photo of at most "
                                  "50 megapixels")
    if min(image.shape[:2]) < MIN_SIDE:
        raise EnrolmentInputError(f"the photo is only {image.shape[1]} x {image.shape[0]} "
                                  f"pixels: take a photo of the whole layout with the camera "
                                  f"(at least {MIN_SIDE} pixels each way)")
    factor = MAX_SIDE / max(image.shape[:2])
    if factor < 1:
        image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    return image

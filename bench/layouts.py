"""How well layout enrolment reads its grids: ``ducktable bench layouts``.

Two kinds of photos, both with every place known:

* rendered DUCK layouts (sim/layout_photos.py): the whole deck in its 3 layouts, both rounds,
  on random tables, the camera tilted 0-12 degrees, the grid turned a little, a quarter or
  a half;
* with ``--photos DIR``, grids composed from real photographs cut to the card
  (``DIR/<label>/*.jpg``): the first photo of each label laid in round 1, the second in round 2,
  pasted on a plain table, the picture warped as by a tilted camera and saved as JPEG. The
  remaining photos of each label are then named by the photo deck the layouts enrolled.

It prints, per layout photo, the cards read at their right place, wrongly and not at all, and
milliseconds per photo; then what the leave-one-out check said. It asserts nothing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.sim.layout_photos import layout_photo
from ducktable.vision.card_index import CropReads, IndexReader, enrolment_reads
from ducktable.vision.enroll import IMAGE_SUFFIXES
from ducktable.vision.features import (
    CardFeatures,
    PhotoDeck,
    enrolment_layouts,
    enrolment_retakes,
    enrolment_views,
    ink_layouts,
)
from ducktable.vision.layout_plan import ROUNDS, Layout, plan_faces, plan_layouts
from ducktable.vision.layout_reading import (
    OK,
    CardSearch,
    LayoutReading,
    detector_search,
    enroll_layouts,
    read_layout,
)

TURNS = (0.0, 4.0, -5.0, 90.0, 180.0)


@dataclass
class Tally:
    """Cards of the layout photos: read at the right place, at a wrong one, not read."""

    photos: int = 0
    cards: int = 0
    right: int = 0
    wrong: int = 0
    ms: list[float] = field(default_factory=list)
    retake: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    def add(self, reading: LayoutReading, truth: dict[tuple[int, int], str],
            centres: dict[tuple[int, int], np.ndarray]) -> None:
        """Count ``reading`` against the label and the photo position of each place laid."""
        self.photos += 1
        self.cards += len(truth)
        self.ms.append(reading.ms)
        for place in reading.places:
            if place.status != OK or place.quad is None:
                continue
            found = np.asarray(place.quad).mean(axis=0)
            nearest = min(centres, key=lambda k: float(np.linalg.norm(centres[k] - found)))
            if truth[nearest] == place.label:
                self.right += 1
            else:
                self.wrong += 1

    def line(self, title: str) -> str:
        missed = self.cards - self.right - self.wrong
        return (f"  {title}: {self.photos} layout photos, {self.cards} cards: read at the right "
                f"place {self.right} ({_pct(self.right, self.cards)}), wrong {self.wrong}, not "
                f"read {missed}; {statistics.median(self.ms):.0f} ms per photo (median, max "
                f"{max(self.ms):.0f})")


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def rendered(seeds: int, search: CardSearch, progress: Callable[[str], None]) -> Tally:
    """DUCK's layouts rendered ``seeds`` times over, both rounds, then enrolled and checked
    (nothing stored)."""
    tally = Tally()
    rng = np.random.default_rng(0)
    for seed in range(seeds):
        progress(f"seed {seed}: rendering and reading DUCK's layouts")
        readings = []
        for layout in plan_layouts("duck"):
            for round_ in range(1, ROUNDS + 1):
                turn = float(rng.choice(TURNS))
                scene = layout_photo(layout, round_, 1000 * seed + 10 * layout.number + round_,
                                     tilt_deg=float(rng.uniform(0, 12)), turn_deg=turn)
                reading = read_layout(scene.image, layout, round_, search=search)
                truth, centres = _truth_of_scene(layout, round_, scene.cards)
                tally.add(reading, truth, centres)
                readings.append(reading)
        progress(f"seed {seed}: enrolling and checking (leave one out)")
        tally.retake += enroll_layouts(readings, None).retake
        progress(f"seed {seed}: {tally.right} of {tally.cards} cards right so far")
    return tally


def _truth_of_scene(layout: Layout, round_: int, cards: Sequence[object]
                    ) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], np.ndarray]]:
    labels = layout.labels(round_)
    truth, centres = {}, {}
    by_label = {c.label.split("/", 1)[1]: np.asarray(c.quad).mean(axis=0)  # type: ignore[attr-defined]
                for c in cards}
    for index, label in enumerate(labels):
        if label is not None and label in by_label:
            place = divmod(index, layout.cols)
            truth[place], centres[place] = label, by_label[label]
    return truth, centres


# ---- grids composed from real photographs ----------------------------------------------------

@dataclass
class RealResult:
    tally: Tally
    held_out: int
    named_right: int
    named_wrong: int


def real(folder: Path, features: CardFeatures, search: CardSearch,
         progress: Callable[[str], None], *, held_out: int = 8) -> RealResult:
    """Grids of ``folder``'s photos (cut to the card): read, enrolled, checked; then up to
    ``held_out`` other photos per label named by the enrolled photo deck."""
    photos = {p.name: sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
              for p in sorted(folder.iterdir()) if p.is_dir()}
    photos = {label: files for label, files in photos.items() if len(files) >= 2}
    if not photos:
        raise ValueError(f"{folder} has no label with two photos or more")
    plan = plan_faces(folder.name.lower().replace(" ", "-")[:40] or "photos", list(photos))
    tally = Tally()
    readings = []
    for layout in plan:
        for round_ in range(1, ROUNDS + 1):
            image, truth, centres = compose_grid(layout, round_, photos, seed=layout.number * 7 + round_)
            reading = read_layout(image, layout, round_, search=search)
            tally.add(reading, truth, centres)
            readings.append(reading)
            progress(f"layout {layout.number} round {round_}: {reading.named} of "
                     f"{len(truth)} read")
    report = enroll_layouts(readings, None)
    tally.retake = report.retake
    crops: dict[str, list[np.ndarray]] = {}
    for reading in readings:
        for label, crop in reading.crops.items():
            crops.setdefault(label, []).append(crop)
    index = IndexReader.load()
    deck = PhotoDeck.fit(enrolment_views(features, crops), enrolment_layouts(crops),
                         enrolment_reads(index, crops), enrolment_retakes(features, crops))
    rest = [(label, f) for label, files in photos.items() for f in files[2:2 + held_out]]
    images = [cv2.imread(str(f), cv2.IMREAD_COLOR) for _, f in rest]
    kept = [(label, im) for (label, _), im in zip(rest, images, strict=True) if im is not None]
    shown = [im for _, im in kept]
    reads = CropReads(index, shown).of(deck.index.box) if deck.index is not None else None
    matches = deck.match(features.embed(shown), layouts=ink_layouts(shown), read_index=reads) if kept else []
    right = sum(1 for (label, _), m in zip(kept, matches, strict=True) if m.label == label)
    wrong = sum(1 for (label, _), m in zip(kept, matches, strict=True)
                if m.label not in (label, UNKNOWN))
    return RealResult(tally, len(kept), right, wrong)


def compose_grid(layout: Layout, round_: int, photos: dict[str, list[Path]], *, seed: int,
                 size: tuple[int, int] = (1600, 1200)
                 ) -> tuple[np.ndarray, dict[tuple[int, int], str],
                            dict[tuple[int, int], np.ndarray]]:
    """The photos of ``layout``'s cards (round 1: each label's first, round 2: its second)
    pasted at their places on a plain table, each turned a little, the picture warped as by a
    camera tilted a few degrees, JPEG quality 85; the truth per place and its centre in the
    picture."""
    rng = np.random.default_rng(seed)
    w, h = size
    table = np.full((h, w, 3), (60, 95, 120), np.float32)
    table += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    pitch = np.array([w * 0.8 / layout.cols, h * 0.8 / layout.rows])
    card_w = min(pitch[0] * 0.72, pitch[1] * 0.72 / 1.5)
    truth, centres = {}, {}
    for index, label in enumerate(layout.labels(round_)):
        if label is None:
            continue
        row, col = divmod(index, layout.cols)
        crop = cv2.imread(str(photos[label][round_ - 1]), cv2.IMREAD_COLOR)
        if crop is None:
            continue
        if crop.shape[1] > crop.shape[0]:
            crop = np.ascontiguousarray(np.rot90(crop))
        centre = np.array([w / 2, h / 2]) + (np.array([col - (layout.cols - 1) / 2,
                                                       row - (layout.rows - 1) / 2]) * pitch
                                             + rng.normal(0, 5, 2))
        angle = np.radians(rng.normal(0, 3))
        half = np.array([card_w, card_w * 1.5]) / 2
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        quad = (corners @ rot.T + centre).astype(np.float32)
        ch, cw = crop.shape[:2]
        warp = cv2.getPerspectiveTransform(
            np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32), quad)
        pasted = cv2.warpPerspective(crop, warp, (w, h)).astype(np.float32)
        mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), warp, (w, h))
        table[mask > 0] = pasted[mask > 0]
        truth[(row, col)] = label
        centres[(row, col)] = centre
    tilt = rng.uniform(0.03, 0.08) * w
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + np.array([[tilt, 0], [-tilt, 0], [0, 0], [0, 0]], np.float32)
    camera = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(np.clip(table, 0, 255).astype(np.uint8), camera, (w, h),
                                borderMode=cv2.BORDER_REPLICATE)
    moved = {k: cv2.perspectiveTransform(v.reshape(1, 1, 2).astype(np.float64), camera)[0, 0]
             for k, v in centres.items()}
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    return (image if decoded is None else np.asarray(decoded)), truth, moved


def run(seeds: int, folder: Path | None, progress: Callable[[str], None]) -> str:
    """Every figure of the benchmark, as the lines it prints."""
    search = detector_search()
    start = time.perf_counter()
    lines = ["layout enrolment: grid photos read place by place"]
    if seeds:
        synthetic = rendered(seeds, search, progress)
        lines.append(synthetic.line(f"rendered DUCK, {seeds} deck(s) of 3 layouts x 2 rounds"))
        lines.append(f"    leave-one-out check: {len(synthetic.retake)} card(s) to retake"
                     + (f" ({'; '.join(synthetic.retake[:3])})" if synthetic.retake else ""))
    if folder is not None:
        result = real(folder, CardFeatures.load(), search, progress)
        lines.append(result.tally.line(f"grids composed from the photos of {folder.name}"))
        lines.append(f"    leave-one-out check: {len(result.tally.retake)} line(s) to retake"
                     + (f" ({'; '.join(result.tally.retake[:3])})" if result.tally.retake
                        else ""))
        lines.append(f"    its other photos named by the deck the layouts enrolled: "
                     f"{result.named_right} of {result.held_out} right "
                     f"({_pct(result.named_right, result.held_out)}), wrong "
                     f"{result.named_wrong}")
    lines.append(f"  ({time.perf_counter() - start:.0f} s in all)")
    return "\n".join(lines)

"""How well enrolment works on real photographs: ``ducktable bench photos DIR``.

Renders say nothing about a real printing in real light, so this benchmark takes a folder of
real photos (``DIR/<label>/*.jpg``), finds the card in each the way enrolment does, and then,
for k photos per label (1, 2, 5), enrols k at random and names the rest, over several rounds
(cross-validation). It prints named right / wrong / unknown, the photos where no card was
found, the worst confusions and milliseconds per photo. With ``unknown=True`` half the labels
are left out of each enrolment and their photos must come out ``unknown``: a printing or a card
the table has not learnt must not be named.

Folders of photos already cut to the card (``crops=True``) skip the finding. It returns the
figures and a report; it asserts nothing.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.card_index import IndexReader, Read, as_views
from ducktable.vision.enroll import IMAGE_SUFFIXES, CardFinder, enrollable, found_card
from ducktable.vision.features import RETAKES, CardFeatures, PhotoDeck, ink_layouts, retaken
from ducktable.vision.photo_finder import MAX_HIDDEN_TO_NAME, find_photo_cards, nameable

KS = (1, 2, 5)
INDEX_TIMED = 50
"""Crops on which one second look at the index is timed."""
TARGETS = {"right": 0.99, "wrong": 0.005, "unknown_rejected": 0.99, "found": 0.99}
RETAKE_SEED = 1234
"""Seeds each crop's re-photographed copies, with the crop's row."""


@dataclass
class Photos:
    """The cards found in a folder of photos: embeddings of each crop and its half-turned twin,
    and the share of each card's face that was hidden (by a hand or the picture's edge)."""

    labels: list[str]
    embeddings: np.ndarray
    turned: np.ndarray
    files: int
    not_found: list[str] = field(default_factory=list)
    find_ms: float = 0.0
    embed_ms: float = 0.0
    hidden: np.ndarray = field(default_factory=lambda: np.zeros(0))
    layouts: np.ndarray | None = None
    """Ink layouts of each crop and of its half-turned twin (:func:`ink_layout`), for the
    naming's second look; None leaves it out."""
    turned_layouts: np.ndarray | None = None
    index_reads: list[list[list[Read]]] | None = None
    """Per crop, what the index reader reads in every box (:data:`~ducktable.vision.card_index.BOXES`),
    the crop as it is then turned half way; None leaves the index's second look out."""
    index_ms: float = 0.0
    """Milliseconds one second look at the index costs (both corners, one box)."""
    retakes: np.ndarray | None = None
    """Per crop, the embeddings of its re-photographed copies as enrolment makes them
    (:func:`~ducktable.vision.features.retaken`: crops x copies x features, the copies then
    their half-turned twins); None enrols the photos alone."""

    def hidden_share(self, row: int) -> float:
        return float(self.hidden[row]) if len(self.hidden) else 0.0

    def view_reads(self, rows: Sequence[int]) -> list[list[Read]]:
        """The index reads of enrolment views made of ``rows``: each photo, then each photo
        turned half way (as :func:`~ducktable.vision.features.enrolment_views` orders them)."""
        if self.index_reads is None:
            return []
        return as_views([self.index_reads[row] for row in rows])

    def deck_of(self, chosen: Mapping[str, list[int]]) -> PhotoDeck:
        """A photo deck enrolled from the ``chosen`` rows of each label as enrolment makes one:
        each photo and its half-turned twin, with their ink layouts and index reads where read,
        and the photos' re-photographed copies where made."""
        views = {label: np.vstack([self.embeddings[rows], self.turned[rows]]) for label, rows in chosen.items()}
        layouts = None
        if self.layouts is not None and self.turned_layouts is not None:
            layouts = {label: np.vstack([self.layouts[rows], self.turned_layouts[rows]])
                       for label, rows in chosen.items()}
        reads = ({label: self.view_reads(rows) for label, rows in chosen.items()}
                 if self.index_reads is not None else None)
        retakes = None
        if self.retakes is not None:
            half = self.retakes.shape[1] // 2
            retakes = {label: np.vstack([self.retakes[rows, :half], self.retakes[rows, half:]])
                       for label, rows in chosen.items()}
        return PhotoDeck.fit(views, layouts, reads, retakes)

    def reader_of(self, deck: PhotoDeck, rows: Sequence[int],
                  looked: Counter[str] | None = None) -> Callable[[int], list[Read]] | None:
        """``read_index`` for ``deck.match`` of ``rows``: their reads in the deck's box, each
        read counted in ``looked["index"]``."""
        reads, index = self.index_reads, deck.index
        if reads is None or index is None:
            return None

        def read(i: int) -> list[Read]:
            if looked is not None:
                looked["index"] += 1
            return [reads[rows[i]][side][index.box] for side in (0, 1)]
        return read

    @property
    def refused(self) -> int:
        """Photos whose card enrolment would refuse (hidden in part)."""
        return sum(not enrollable(self.hidden_share(row)) for row in range(len(self.labels)))

    @property
    def found(self) -> float:
        return len(self.labels) / self.files if self.files else 0.0


@dataclass
class Outcome:
    """Counts of one enrolment size (k photos per label) over all rounds."""

    k: int
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)
    strangers: int = 0
    strangers_named: int = 0
    strangers_as_themselves: int = 0
    """Of ``strangers_named``: photos of another printing named as their own face (its ten of
    hearts as the enrolled ten of hearts), which is no mistake."""
    labels_tested: int = 0
    looked: Counter[str] = field(default_factory=Counter)
    """Second looks taken (``looked["index"]``: crops whose printed index was read)."""

    @property
    def named(self) -> int:
        return self.right + self.wrong + self.unknown


def read_folder(folder: Path, features: CardFeatures, *, crops: bool = False,
                find: CardFinder | None = None, index: IndexReader | None = None,
                progress: Callable[[str], None] | None = None, retakes: int = RETAKES) -> Photos:
    """Find and embed the card of every photo under ``folder/<label>/``, read its index in
    every box with ``index`` where given, and embed ``retakes`` re-photographed copies of it
    for enrolment (0: none, for photos that are only named; each crop's copies seeded by its
    place in the folder)."""
    find = find or find_photo_cards
    labels: list[str] = []
    cut: list[np.ndarray] = []
    hidden: list[float] = []
    not_found: list[str] = []
    files = 0
    find_s = embed_s = 0.0
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for path in sorted(sub.iterdir()):
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            files += 1
            started = time.perf_counter()
            found = [image] if crops else find(image)
            find_s += time.perf_counter() - started
            if len(found) != 1:
                not_found.append(f"{sub.name}/{path.name}: {len(found)} cards found")
                continue
            labels.append(sub.name)
            crop, hidden_share = found_card(found[0])
            cut.append(crop)
            hidden.append(hidden_share)
        if progress:
            progress(f"{sub.name}: {len(labels)} cards found in {files} photos so far")
    rows = []
    for crop in cut:  # one at a time, as the table names a card: the time per card is the figure
        started = time.perf_counter()
        rows.append(features.embed([crop]))
        embed_s += time.perf_counter() - started
    embeddings = np.vstack(rows) if rows else np.zeros((0, features.dim), np.float32)
    turned_cut = [cv2.rotate(c, cv2.ROTATE_180) for c in cut]
    turned = features.embed(turned_cut)
    reads, index_ms = None, 0.0
    if index is not None:
        reads = [index.corner_reads(crop) for crop in cut]
        started = time.perf_counter()
        for crop in cut[:INDEX_TIMED]:
            index.corner_reads(crop, boxes=(0,))
        index_ms = 1000 * (time.perf_counter() - started) / max(min(len(cut), INDEX_TIMED), 1)
    again = None
    if retakes and cut:
        again = np.stack([features.embed(retaken(crop, np.random.default_rng([RETAKE_SEED, row]), retakes))
                          for row, crop in enumerate(cut)])
    return Photos(labels, embeddings, turned, files, not_found,
                  1000 * find_s / max(files, 1), 1000 * embed_s / max(len(cut), 1),
                  np.array(hidden, np.float64), ink_layouts(cut), ink_layouts(turned_cut),
                  reads, index_ms, again)


def crops_of(folder: Path, *, crops: bool = False, limit: int = 60,
             find: CardFinder | None = None) -> list[np.ndarray]:
    """Up to ``limit`` cards found in ``folder``'s photos, spread over its labels (the photos
    taken in turn from each label's folder)."""
    find = find or find_photo_cards
    lists = [sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
             for sub in sorted(folder.iterdir()) if sub.is_dir() and not sub.name.startswith(".")]
    cut: list[np.ndarray] = []
    for depth in range(max((len(files) for files in lists), default=0)):
        for files in lists:
            if len(cut) >= limit:
                return cut
            if depth < len(files) and (image := cv2.imread(str(files[depth]))) is not None:
                found = [image] if crops else find(image)
                cut += [found_card(card)[0] for card in found[:1]]
    return cut


def cross_validate(photos: Photos, k: int, *, rounds: int = 5, seed: int = 0,
                   unknown: bool = False) -> Outcome:
    """Enrol ``k`` photos per label and name the others, ``rounds`` times. Labels with no
    photo left to name are skipped. With ``unknown`` half the labels (a new half each round)
    are not enrolled and their photos are counted as strangers.

    As enrolment does, a photo whose card is partly hidden is never enrolled: the draw passes
    it over for the label's next photo, as a user would take another one. As naming does, a
    card hidden too much to be named is answered ``unknown``."""
    rng = random.Random(seed)
    by_label = _rows_by_label(photos.labels)
    usable = sorted(label for label, rows in by_label.items() if len(rows) > k)
    outcome = Outcome(k, labels_tested=len(usable))
    if len(usable) < (4 if unknown else 2):
        return outcome
    for _ in range(rounds):
        enrolled = usable
        if unknown:
            enrolled = sorted(rng.sample(usable, len(usable) // 2))
        picked: dict[str, list[int]] = {}
        tests: list[int] = []
        for label in usable:
            rows = by_label[label][:]
            rng.shuffle(rows)
            if label in enrolled:
                chosen = [row for row in rows if enrollable(photos.hidden_share(row))][:k]
                if not chosen:
                    tests += rows
                    continue
                picked[label] = chosen
                tests += [row for row in rows if row not in chosen]
            else:
                tests += rows
        deck = photos.deck_of(picked)
        matches = deck.match(photos.embeddings[tests], layouts=None if photos.layouts is None
                             else photos.layouts[tests], read_index=photos.reader_of(deck, tests, outcome.looked))
        for row, match in zip(tests, matches, strict=True):
            truth = photos.labels[row]
            said = match.label if nameable(photos.hidden_share(row)) else UNKNOWN
            if truth not in enrolled:
                outcome.strangers += 1
                outcome.strangers_named += said != UNKNOWN
            elif said == truth:
                outcome.right += 1
            elif said == UNKNOWN:
                outcome.unknown += 1
            else:
                outcome.wrong += 1
                outcome.confusions[(truth, said)] += 1
    return outcome


def another_printing(photos: Photos, others: Photos, k: int, *, rounds: int = 5,
                     seed: int = 0) -> Outcome:
    """Enrol ``k`` photos of every label of ``photos`` and name every photo of ``others``
    (another printing or another game): each one named is counted as a stranger named, and
    apart those named as the face their folder says they are. As at the table, the second
    looks (ink layout and colour, printed index) are taken where both sets have them."""
    rng = random.Random(seed)
    by_label = _rows_by_label(photos.labels)
    outcome = Outcome(k, labels_tested=len(by_label))
    for _ in range(rounds):
        picked: dict[str, list[int]] = {}
        for label, rows in by_label.items():
            pool = [row for row in rows if enrollable(photos.hidden_share(row))]
            chosen = rng.sample(pool, min(k, len(pool)))
            if chosen:
                picked[label] = chosen
        deck = photos.deck_of(picked)
        matches = deck.match(others.embeddings, layouts=others.layouts if deck.layouts is not None else None,
                             read_index=others.reader_of(deck, range(len(others.labels))))
        said = [m.label if nameable(others.hidden_share(i)) else UNKNOWN
                for i, m in enumerate(matches)]
        outcome.strangers += len(said)
        outcome.strangers_named += sum(label != UNKNOWN for label in said)
        outcome.strangers_as_themselves += sum(
            label == truth for label, truth in zip(said, others.labels, strict=True))
    return outcome


def run(folder: Path, *, features: CardFeatures | None = None, crops: bool = False,
        ks: Sequence[int] = KS, rounds: int = 5, seed: int = 0, unknown: bool = False,
        find: CardFinder | None = None, index: IndexReader | None = None,
        progress: Callable[[str], None] | None = None) -> tuple[Photos, list[Outcome]]:
    features = features or CardFeatures.load()
    photos = read_folder(folder, features, crops=crops, find=find, index=index, progress=progress)
    outcomes = [cross_validate(photos, k, rounds=rounds, seed=seed, unknown=unknown) for k in ks]
    return photos, outcomes


def report(folder: Path, photos: Photos, outcomes: Sequence[Outcome]) -> str:
    labels = len(set(photos.labels))
    lines = [f"{folder}: {photos.files} photos, {labels} labels with a card found",
             f"  card found in {percent(len(photos.labels), photos.files)} of the photos "
             f"(target >= {TARGETS['found']:.0%}); {len(photos.not_found)} without one"]
    lines += [f"    {line}" for line in photos.not_found[:5]]
    if photos.refused:
        lines.append(f"  {photos.refused} of the cards found partly hidden (a hand, the picture's "
                     f"edge): never enrolled, named unknown when more than "
                     f"{MAX_HIDDEN_TO_NAME:.0%} is hidden")
    lines.append(f"  ms per photo: finding {photos.find_ms:.1f}, naming {photos.embed_ms:.1f} "
                 f"(one core)" + (f"; a second look at the printed index {photos.index_ms:.1f}"
                                  if photos.index_reads is not None else ""))
    for o in outcomes:
        if not o.named and not o.strangers:
            lines.append(f"  k={o.k}: too few photos per label to enrol {o.k} and name the rest")
            continue
        lines.append(f"  k={o.k} photo(s) per label enrolled, {o.named} named: right "
                     f"{percent(o.right, o.named)}, wrong {percent(o.wrong, o.named)}, unknown "
                     f"{percent(o.unknown, o.named)} (targets: right >= 99%, wrong <= 0.5%)")
        if photos.index_reads is not None:
            share = o.looked["index"] / max(o.named + o.strangers, 1)
            lines.append(f"      printed index read on {percent(o.looked['index'], o.named + o.strangers)} "
                         f"of them: {photos.embed_ms + share * photos.index_ms:.1f} ms a card on average")
        if o.strangers:
            lines.append(f"      photos of labels not enrolled: {o.strangers}, wrongly named "
                         f"{o.strangers_named} ({percent(o.strangers_named, o.strangers)}; "
                         f"target <= 1%)")
        worst = ", ".join(f"{a} as {b} x{n}" for (a, b), n in o.confusions.most_common(5))
        if worst:
            lines.append(f"      worst confusions: {worst}")
    return "\n".join(lines)


def _rows_by_label(labels: Sequence[str]) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        rows.setdefault(label, []).append(i)
    return rows


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "-"


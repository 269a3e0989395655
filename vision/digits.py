"""A second reader for the digit of DUCK's number cards, asked after the card classifier.

Why it exists: at the table camera's size a DUCK number card is 70-105 frame pixels wide and its
digit is printed in the card's own colour; a yellow digit on the light blue paper has almost no
brightness contrast and lives in the colour the camera's JPEG keeps at half resolution, so the
classifier, which sees the whole card at 64 x 96, reads a yellow 5 as a 3 or an 8. This reader
looks only at the digit's boxes (the corner indices and the number under the duck) at the
crop's own 100 x 150 resolution, each box standardised on its own so the paper's colour cast
goes and the faint yellow stroke keeps its contrast, and combines what the boxes say.

The crop may be upside down (the detector does not know which end is the top): the top-left
index and the turned bottom-right one swap places, and the bottom number goes to the top turned,
so four boxes are read - the two corners and both ends' centres - and a box may answer
"no digit here" (:data:`NO_DIGIT`), which the vote weighs down.

:func:`settle_digit` decides what the reading changes: only a classifier's unsure name of a
yellow number card, only to another yellow number, only when the reader is sure; an unsure name
the reader agrees with surely enough is made sure, and a sure one it surely contradicts unsure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.vision.model_files import ModelCorruptError, checked_session, read_manifest, shipped

DIGIT_FILE = "digit_reader.onnx"
HINT = ("run `python -m ducktable.training.digit_reader` to retrain it, or restore the file from "
        "the repository")
CROP_W, CROP_H = 100, 150
"""The detector's crop (``detect.CROP_SIZE``); a crop of another size is scaled to it."""
BOX_W, BOX_H = 32, 36
"""A digit box, crop pixels: the index digit is about 14 x 20 there, the rest absorbs an
outline off by up to 4 px (the detector's jitter at the table camera's size)."""
BOXES = ((2, 6, False), (66, 108, True), (34, 107, False), (34, 7, True))
"""(left, top, turned) of each box in the crop: the top-left index, the bottom-right one (turned
180 degrees), the number under the duck, and the top centre turned (where that number lies
when the crop is upside down)."""
NO_DIGIT = 9
"""The class a box answers when no digit lies in it; classes 0-8 are the digits."""
STD_FLOOR = 4.0
"""A box's channel is divided by its spread, at least this much (0-255 scale): a blank box's
noise is not blown up into strokes."""

READER_SURE = 0.99
"""The reader's card-level probability from which its digit replaces an unsure classifier's.
Every card so renamed among held-out yellow crops was renamed right: 61 of 2,700 cut as from
the table camera (cards 70-105 px wide; 121 at 50-105 px), 30 of 720 cut from rendered tables."""
CLASSIFIER_SURE = 0.9
"""A classifier's name at least this sure is not renamed by the reader. On 2,700 held-out
yellow crops at the replays' sizes (cards 70-105 px wide) the reader is right on 99.7% and the
classifier on 95.2%, but on the replays' own frames (DUCK seed 12) the reader read a yellow 5
the classifier named at 0.965-0.996 as an 8 at 0.998-1.0 in eight frames in a row. When the
reader reads another digit at :data:`READER_DOUBTS` or more, the name is made unsure instead."""
READER_DOUBTS = 0.95
"""The reader's card-level probability of another digit from which a sure classifier's name is
made unsure, so that what rests on it is asked. On held-out yellow crops (the three sets of
:data:`AGREED_SURE`), where the reader contradicted a sure classifier at 0.95 or more, the
reader was right 140 times of 141 (104 of 104 at 0.99 or more). With 0.99 here, a DUCK start
card in pictures taken at 1280 x 720 (`bench reader` seed 0, cards 50 px wide) was recorded
wrong: the classifier named the yellow 1 a 6 at 0.96-1.0 frame after frame, the reader read a 1
at 0.95-1.0. The hands of a DUCK round end (model-mode seed 16) held a yellow 2 the classifier
named a 3 at 0.98 and the reader a 2 at 1.0."""
AGREED_SURE = 0.95
"""The reader's card-level probability from which, reading the digit an unsure classifier named,
it makes that name sure (the reader's probability becomes the card's). Classifier below 0.9 and
reader agreeing at 0.95 or more were right on 373 of 374 held-out yellow crops (2,700 cut as
from the table camera at 70-105 px wide, 2,700 at 50-105 px, 720 cut from 60 rendered tables;
the wrong one a 0 named an 8 by both, the reader at 0.991), while the classifier's own sure names
(0.9 and above) were wrong on 250 of 5,285; agreeing at 0.90-0.95 was wrong on 4 of 34."""
YELLOW_PREFIX = "duck/yellow-"


def box_inputs(crops: Sequence[np.ndarray]) -> np.ndarray:
    """(n * 4, 4, BOX_H, BOX_W) float32: each crop's four boxes, upright, as B, G, R and
    yellowness ((R + G) / 2 - B) channels, each standardised over its box."""
    out = np.empty((len(crops) * len(BOXES), 4, BOX_H, BOX_W), np.float32)
    for i, crop in enumerate(crops):
        img = np.asarray(crop)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        if img.shape[:2] != (CROP_H, CROP_W):
            img = cv2.resize(img, (CROP_W, CROP_H), interpolation=cv2.INTER_LINEAR)
        img = img[..., :3].astype(np.float32)
        for k, (x, y, turned) in enumerate(BOXES):
            box = img[y:y + BOX_H, x:x + BOX_W]
            if turned:
                box = box[::-1, ::-1]
            chans = np.concatenate([box, ((box[..., 2] + box[..., 1]) / 2 - box[..., 0])[..., None]],
                                   axis=2).transpose(2, 0, 1)
            mean = chans.mean(axis=(1, 2), keepdims=True)
            std = np.maximum(chans.std(axis=(1, 2), keepdims=True), STD_FLOOR)
            out[i * len(BOXES) + k] = (chans - mean) / std
    return out


def combine(box_logits: np.ndarray) -> np.ndarray:
    """(n, 9) digit probabilities of n cards from their boxes' (n * 4, 10) logits: each box's
    log-probabilities of the nine digits (given a digit is there), weighted by its probability
    that a digit is there, summed."""
    logits = box_logits.reshape(-1, len(BOXES), NO_DIGIT + 1).astype(np.float64)
    logits = logits - logits.max(axis=2, keepdims=True)
    probs = np.exp(logits) / np.exp(logits).sum(axis=2, keepdims=True)
    there = 1.0 - probs[..., NO_DIGIT]
    digit = np.log(np.maximum(probs[..., :NO_DIGIT], 1e-12))
    digit -= np.log(np.exp(digit).sum(axis=2, keepdims=True))
    score = (there[..., None] * digit).sum(axis=1)
    score -= score.max(axis=1, keepdims=True)
    return np.exp(score) / np.exp(score).sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class DigitReading:
    digit: int
    confidence: float


class DigitReader:
    """The digit network with one onnxruntime session, opened once."""

    def __init__(self, session: Any, input_name: str = "boxes") -> None:
        self.session = session
        self.input_name = input_name

    @classmethod
    def load(cls, path: str | Path | None = None, *, threads: int = 1) -> DigitReader:
        model = Path(path) if path is not None else shipped(DIGIT_FILE)
        info = read_manifest(model, "digit reader", HINT, "input")
        inp = info["input"]
        if (inp.get("height"), inp.get("width"), inp.get("boxes")) != (BOX_H, BOX_W, [list(b) for b in BOXES]):
            raise ModelCorruptError(f"the digit reader {model} was trained on other boxes than "
                                    f"this code cuts; {HINT}")
        session = checked_session(model, str(info["sha256"]), threads, "digit reader", HINT)
        return cls(session, str(info["input"]["name"]))

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(n, 9): each crop's probability of each digit 0-8."""
        if not crops:
            return np.zeros((0, NO_DIGIT), np.float64)
        logits = self.session.run(None, {self.input_name: box_inputs(crops)})[0]
        return combine(np.asarray(logits))

    def read(self, crops: Sequence[np.ndarray]) -> list[DigitReading]:
        probs = self.probabilities(crops)
        return [DigitReading(int(np.argmax(p)), float(p.max())) for p in probs]


def yellow_digit(label: str) -> int | None:
    """The digit of a DUCK yellow number card's label (``duck/yellow-5`` -> 5), else None."""
    if not label.startswith(YELLOW_PREFIX):
        return None
    rest = label[len(YELLOW_PREFIX):]
    return int(rest) if rest.isdigit() and int(rest) < NO_DIGIT else None


def settle_digit(label: str, confidence: float, reading: DigitReading) -> tuple[str, float]:
    """What a yellow number card named ``label`` at ``confidence`` becomes given the reader's
    ``reading``: the reader's digit when the classifier was unsure (below
    :data:`CLASSIFIER_SURE`) and the reader is sure (:data:`READER_SURE`); the same name, made as
    sure as the reader, when the reader reads that digit at :data:`AGREED_SURE` or more (two
    readers that agree); the sure classifier's name made unsure (the reader's doubt of it) when
    the reader reads another digit at :data:`READER_DOUBTS` or more: neither is trusted to
    overrule the other, so whatever rests on the card is asked; else the same."""
    named = yellow_digit(label)
    if named is None:
        return label, confidence
    if confidence >= CLASSIFIER_SURE:
        if reading.digit != named and reading.confidence >= READER_DOUBTS:
            return label, min(confidence, 1.0 - reading.confidence)  # two sure readers disagree: ask
        return label, confidence
    if reading.digit == named:
        return (label, reading.confidence) if reading.confidence >= AGREED_SURE else (label, confidence)
    if reading.confidence < READER_SURE:
        return label, confidence
    return f"{YELLOW_PREFIX}{reading.digit}", reading.confidence

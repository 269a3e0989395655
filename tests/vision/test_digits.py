"""The DUCK digit reader: its boxes either way up, the boxes' vote, what it may change of the
classifier's name, and the shipped network on yellow cards at the table camera's size."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from ducktable.rules.decks import UNKNOWN
from ducktable.sim import render
from ducktable.vision import augment
from ducktable.vision.detect import Detection
from ducktable.vision.digits import (
    AGREED_SURE,
    BOXES,
    CLASSIFIER_SURE,
    NO_DIGIT,
    READER_DOUBTS,
    READER_SURE,
    DigitReader,
    DigitReading,
    box_inputs,
    combine,
    settle_digit,
    yellow_digit,
)


def test_a_crop_turned_over_gives_the_same_corner_boxes_swapped_and_the_centre_ones_swapped() -> None:
    crop = render.render_card("duck", "yellow-5", width=100, height=150)
    up, down = box_inputs([crop, np.ascontiguousarray(crop[::-1, ::-1])]).reshape(2, len(BOXES), 4, 36, 32)
    assert np.allclose(up[0], down[1], atol=1e-4) and np.allclose(up[1], down[0], atol=1e-4)
    assert np.allclose(up[2], down[3], atol=1e-4) and np.allclose(up[3], down[2], atol=1e-4)
    assert np.allclose(up.mean(axis=(2, 3)), 0, atol=1e-4)  # each box standardised on its own


def logits(*boxes: int) -> np.ndarray:
    """Box logits each sure of one class (a digit or NO_DIGIT)."""
    out = np.zeros((len(boxes), NO_DIGIT + 1), np.float32)
    out[np.arange(len(boxes)), list(boxes)] = 8.0
    return out


def test_the_vote_weighs_a_box_without_a_digit_down() -> None:
    probs = combine(logits(5, 5, 3, NO_DIGIT))
    assert int(np.argmax(probs[0])) == 5 and probs.shape == (1, 9)
    alone = combine(logits(NO_DIGIT, NO_DIGIT, 3, NO_DIGIT))
    assert int(np.argmax(alone[0])) == 3
    assert combine(logits(5, 5, 5, NO_DIGIT))[0, 5] > probs[0, 5]


def test_only_a_yellow_number_card_has_a_digit_to_check() -> None:
    assert yellow_digit("duck/yellow-5") == 5
    assert [yellow_digit(x) for x in ("duck/blue-5", "grey/yellow-5", "duck/towel", UNKNOWN)] == [None] * 4


def test_a_sure_classifier_name_is_not_overruled_by_the_reader() -> None:
    for sure in (0.3, READER_DOUBTS - 0.01):
        assert settle_digit("duck/yellow-3", CLASSIFIER_SURE, DigitReading(5, sure)) == (
            "duck/yellow-3", CLASSIFIER_SURE)


def test_a_sure_classifier_name_a_sure_reader_contradicts_is_made_unsure() -> None:
    """DUCK seed 16: a revealed yellow 2 named a 3 at 0.98, the reader reading a 2 at 1.0;
    `bench reader` seed 0: a start card yellow 1 named a 6 at 1.0, the reader reading a 1 at 0.96."""
    for sure in (READER_DOUBTS, 0.96, 1.0):
        label, confidence = settle_digit("duck/yellow-3", 0.98, DigitReading(2, sure))
        assert label == "duck/yellow-3" and confidence <= 1.0 - READER_DOUBTS
    assert settle_digit("duck/yellow-3", 0.98, DigitReading(3, 1.0)) == ("duck/yellow-3", 0.98)


def test_an_unsure_name_is_changed_only_by_a_sure_reading() -> None:
    unsure = CLASSIFIER_SURE - 0.01
    assert settle_digit("duck/yellow-3", unsure, DigitReading(5, READER_SURE)) == ("duck/yellow-5", READER_SURE)
    assert settle_digit("duck/yellow-3", unsure, DigitReading(5, READER_SURE - 0.01)) == ("duck/yellow-3", unsure)
    assert settle_digit("duck/yellow-3", 0.6, DigitReading(3, 0.4)) == ("duck/yellow-3", 0.6)
    assert settle_digit("duck/blue-3", 0.6, DigitReading(5, 1.0)) == ("duck/blue-3", 0.6)


def test_an_unsure_name_the_reader_agrees_with_surely_is_made_sure() -> None:
    unsure = CLASSIFIER_SURE - 0.2
    assert settle_digit("duck/yellow-2", unsure, DigitReading(2, AGREED_SURE)) == ("duck/yellow-2", AGREED_SURE)
    assert settle_digit("duck/yellow-2", unsure, DigitReading(2, 0.9999)) == ("duck/yellow-2", 0.9999)
    assert settle_digit("duck/yellow-2", unsure, DigitReading(2, AGREED_SURE - 0.01)) == ("duck/yellow-2", unsure)
    assert settle_digit("duck/yellow-2", 0.95, DigitReading(2, 0.96)) == ("duck/yellow-2", 0.95)


def table_crops(label: str, n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    card = render.render_card("duck", label)
    return [augment.table_camera_crop(card, rng, size=(100, 150), card_width=(70.0, 105.0))
            for _ in range(n)]


@pytest.fixture(scope="module")
def reader() -> DigitReader:
    return DigitReader.load()


@pytest.mark.parametrize("digit", range(9))
def test_the_shipped_reader_reads_yellow_digits_at_the_table_cameras_size(
        reader: DigitReader, digit: int) -> None:
    read = reader.read(table_crops(f"yellow-{digit}", 20, 100 + digit))
    assert sum(r.digit == digit for r in read) >= 18


def test_clean_yellow_cards_are_read_either_way_up(reader: DigitReader) -> None:
    for digit in range(9):
        card = render.render_card("duck", f"yellow-{digit}", width=100, height=150)
        read = reader.read([card, np.ascontiguousarray(card[::-1, ::-1])])
        assert [r.digit for r in read] == [digit, digit]
        assert min(r.confidence for r in read) >= READER_SURE


def on_its_own(crop: np.ndarray) -> Detection:
    quad = np.array([[0, 0], [100, 0], [100, 150], [0, 150]], np.float32)
    return Detection(quad=quad, crop=crop, score=1.0, area=15_000.0)


@pytest.mark.parametrize("seed", [0, 30])
def test_a_yellow_5_the_classifier_reads_as_an_8_at_table_size_is_named_right(seed: int) -> None:
    """Rendered yellow 5s cut as from the table camera that the classifier alone names a yellow
    8 (at 0.50 and 0.74) are named a yellow 5 once the digit reader has looked."""
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.pipeline import name_detections

    crop = table_crops("yellow-5", 1, seed)[0]
    alone = CardClassifier.load(digits=False).classify([crop], games={"duck"})
    assert [r.label for r in alone] == ["duck/yellow-8"]
    found = name_detections([on_its_own(crop)], CardClassifier.load(), games={"duck"})
    assert [r.label for r in found] == ["duck/yellow-5"]


def test_a_stand_in_classifier_with_settle_digits_has_its_yellow_names_checked() -> None:
    from ducktable.vision.classify import CardClassifier, Classification
    from ducktable.vision.pipeline import name_detections

    class Misreads:
        digits = DigitReader.load()
        _enrolled_games: set[str] = set()
        settle_digits = CardClassifier.settle_digits

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [Classification("duck/yellow-3", 0.8, np.zeros(64, np.float32), similarity=0.7)
                    for _ in crops]

    crop = table_crops("yellow-5", 1, 0)[0]
    found = name_detections([on_its_own(crop)], Misreads())
    assert [r.label for r in found] == ["duck/yellow-5"]
    enrolled = Misreads()
    enrolled._enrolled_games = {"duck"}  # an enrolled DUCK deck: our drawing's reader stays out
    assert [r.label for r in name_detections([on_its_own(crop)], enrolled)] == ["duck/yellow-3"]


def test_a_reader_trained_on_other_boxes_or_changed_is_refused(tmp_path: Path) -> None:
    from ducktable.vision.digits import DIGIT_FILE
    from ducktable.vision.model_files import ModelCorruptError, shipped

    model = tmp_path / DIGIT_FILE
    shutil.copy(shipped(DIGIT_FILE), model)
    info = json.loads(shipped(DIGIT_FILE).with_suffix(".json").read_text(encoding="utf-8"))
    info["input"]["boxes"][0] = [0, 0, False]
    model.with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    with pytest.raises(ModelCorruptError, match="other boxes"):
        DigitReader.load(model)
    shutil.copy(shipped(DIGIT_FILE).with_suffix(".json"), model.with_suffix(".json"))
    DigitReader.load(model)
    model.write_bytes(model.read_bytes()[:-10])
    with pytest.raises(ModelCorruptError, match="does not match"):
        DigitReader.load(model)

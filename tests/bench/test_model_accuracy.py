"""A reduced run of the model card's benchmark on freshly rendered images, with the shipped model.

A retrained model that reads worse, rejects less or enrols worse fails here. The full figures
(``python -m ducktable.bench.evaluate``) are in models/MODEL_CARD.md; the bounds below sit a
little under them because these samples are smaller.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from ducktable.bench import evaluate
from ducktable.bench.cards import pipeline_check
from ducktable.sim import render
from ducktable.vision.classify import CardClassifier, default_model_path
from ducktable.vision.enroll import detector_finder
from ducktable.vision.locator import DETECTORS, load_locator
from ducktable.vision.pipeline import CardReader

SEED = 31337  # not a seed the model card's benchmark uses
# Shipped model at this seed (measured again 2026-11-23): reference 100% (281 crops), unknown
# deck rejected 98.1%, alternate edition after enrolment duck 100% (114 crops), grey 100% (54),
# ducky 97.0% (33): 99.5% of 201. Bounds allow two or three misses more (more for the
# enrolment, pooled over the three games: its figures have been lower with earlier code).
REFERENCE_MIN = 0.99
REJECTION_MIN = 0.95
ENROLLED_MIN = 0.95
# 60 rendered tables from this seed: 709 of 715 cards found with either detector; the edge-map
# search's all named right, the card locator's 707 right and 2 wrong (2026-11-24; 710 of 710
# with an earlier edge search). Wrong names are allowed one more than measured.
SCENES = 60
SCENE_MIN = 0.99


@pytest.fixture(scope="module")
def classifier() -> CardClassifier:
    return CardClassifier.load()


def test_reference_cards_are_read_right(classifier: CardClassifier) -> None:
    crops, truth = evaluate.reference_crops(classifier, 2, SEED)
    predicted = [c.label for c in classifier.classify(crops)]
    assert evaluate.accuracy(predicted, truth) >= REFERENCE_MIN
    wrong = sum(p not in (t, "unknown") for p, t in zip(predicted, truth, strict=True))
    assert wrong <= 1  # a wrong label is worse than "unknown"


@pytest.mark.parametrize("detector", DETECTORS)
def test_cards_found_on_rendered_tables_are_named_right(classifier: CardClassifier,
                                                        detector: str) -> None:
    """The bench's check (``ducktable bench vision``) on fresh tables: detector (the shipped
    card locator, or the edge-map search alone), classifier and its second look at the cards
    it could not name, as ``ducktable identify`` reads."""
    reader = CardReader(classifier, locator=load_locator(detector))
    tally = pipeline_check(range(SEED, SEED + SCENES), reader)
    assert tally.labelled >= 0.99 * tally.cards
    assert tally.labelled_right / tally.labelled >= SCENE_MIN
    assert tally.labelled_wrong <= 3 and tally.named_false <= 1


def test_a_deck_neither_trained_nor_enrolled_is_rejected(classifier: CardClassifier) -> None:
    crops = evaluate.unknown_deck_crops(1, SEED)
    labels = [c.label for c in classifier.classify(crops)]
    assert np.mean([lab == "unknown" for lab in labels]) >= REJECTION_MIN


@pytest.mark.parametrize("games", [
    pytest.param(("duck",), id="duck"),
    pytest.param(("duck", "grey", "ducky"), id="three-games", marks=pytest.mark.slow),
])
def test_an_unseen_printing_is_read_after_two_photos_per_card(
        classifier: CardClassifier, games: tuple[str, ...]) -> None:
    """The alternate edition (never trained on) after enrolling two photos per card;
    DUCK, whose italic serif numerals were the hardest to enrol, by default."""
    right = total = 0
    for game in games:
        with tempfile.TemporaryDirectory() as tmp:
            run = evaluate.enrol_alternate(classifier, game, shots=2, per_class=3, seed=SEED,
                                           find=detector_finder(), store=Path(tmp))
        n = 3 * len(render.card_labels(game))
        right += round(run.accuracy_in_game * n)
        total += n
        assert run.before_wrong <= 0.02  # before enrolment it says unknown rather than guess
    assert right / total >= ENROLLED_MIN


def test_the_card_times_its_models_in_turn(classifier: CardClassifier) -> None:
    """fp32 and int8 are timed crop by crop in turn (a drifting machine affects both alike):
    one median per model given, in their order."""
    crops = evaluate.reference_crops(classifier, 1, SEED)[0][:4]
    model = default_model_path()
    times = evaluate.ms_per_card([model, model], crops, repeats=8)
    assert len(times) == 2 and all(0 < t < 1000 for t in times)


def test_the_int8_copy_reads_as_well_as_fp32(classifier: CardClassifier, tmp_path: Path
                                             ) -> None:
    """The model card's int8 figures come from this copy. With 8-bit weights, onnxruntime's
    products saturated on an x86 core without VNNI and the copy read 3 points worse."""
    crops, truth = evaluate.reference_crops(classifier, 2, SEED)
    calibration = evaluate.reference_crops(classifier, 1, SEED + 1)[0][::2]
    int8 = CardClassifier.load(evaluate.quantize_int8(default_model_path(), tmp_path,
                                                      calibration))
    fp32_right = evaluate.accuracy([c.label for c in classifier.classify(crops)], truth)
    int8_right = evaluate.accuracy([c.label for c in int8.classify(crops)], truth)
    assert int8_right >= fp32_right - 0.01

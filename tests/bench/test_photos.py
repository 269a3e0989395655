"""`ducktable bench photos`: enrol k photos per label, name the rest, count right, wrong, unknown.

CI keeps this reduced check on rendered cards passed through the capture model (photos of a
card on a surface or in a hand, any angle and light); the real-photo figures are in
docs/benchmarks.md.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.bench import photos, photos_speed
from ducktable.device import cli
from ducktable.sim import render
from ducktable.vision import augment
from ducktable.vision.features import CardFeatures, PhotoDeck
from ducktable.vision.photo_finder import MAX_HIDDEN_TO_NAME

LABELS = ("yellow-7", "blue-1", "red-8", "lifebelt-8-green", "towel", "blue-5")


def write_photos(folder: Path, game: str, labels: tuple[str, ...], n: int, seed: int) -> Path:
    for i, label in enumerate(labels):
        card = render.render_card(game, label, width=200, height=300)
        rng = np.random.default_rng([seed, i])
        (folder / label).mkdir(parents=True, exist_ok=True)
        for k in range(n):
            cv2.imwrite(str(folder / label / f"{k}.jpg"),
                        augment.photo_of_card(card, rng, held=k % 4 == 3))
    return folder


@pytest.fixture(scope="module")
def duck_photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_photos(tmp_path_factory.mktemp("photos") / "duck", "duck", LABELS, 4, seed=1)


@pytest.fixture(scope="module")
def features() -> CardFeatures:
    return CardFeatures.load()


@pytest.fixture(scope="module")
def read(duck_photos: Path, features: CardFeatures) -> photos.Photos:
    return photos.read_folder(duck_photos, features)


@pytest.fixture(scope="module")
def few_photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three cards, three photos each: enough for the command's every step."""
    return write_photos(tmp_path_factory.mktemp("few") / "duck", "duck", LABELS[:3], 3, seed=2)


def test_photos_are_enrolled_k_at_a_time_and_the_rest_named(
        duck_photos: Path, read: photos.Photos, features: CardFeatures) -> None:
    outcomes = [photos.cross_validate(read, k, rounds=2) for k in (1, 2)]
    assert read.files == 24 and read.found >= 0.9
    assert read.embeddings.shape == (len(read.labels), features.dim)
    one, two = outcomes
    for o in outcomes:
        assert o.named == o.right + o.wrong + o.unknown > 0
    # every photo left over is named once a round: (4 - k) a label
    assert two.named == sum(max(0, read.labels.count(lab) - 2) for lab in LABELS) * 2
    assert two.right / two.named >= 0.8 and two.wrong <= 1
    text = photos.report(duck_photos, read, outcomes)
    assert "k=1 photo(s) per label enrolled" in text and "k=2 photo(s)" in text
    assert f"{100 * two.right / two.named:.2f}%" in text


def test_labels_left_out_of_the_enrolment_are_counted_as_strangers(read: photos.Photos) -> None:
    o = photos.cross_validate(read, 2, rounds=2, unknown=True)
    # half the labels are left out each round: all their photos are strangers
    assert o.strangers >= len(LABELS) // 2 * 3 * 2 and o.named > 0
    assert 0 <= o.strangers_named <= o.strangers
    assert photos.cross_validate(read, 9, rounds=1).named == 0  # too few photos to enrol 9


def test_another_games_cards_are_not_named(read: photos.Photos, features: CardFeatures,
                                           tmp_path: Path) -> None:
    others = photos.read_folder(write_photos(tmp_path / "std", "standard52",
                                             ("A-clubs", "7-hearts", "K-spades"), 2, seed=5),
                                features)
    o = photos.another_printing(read, others, 2, rounds=2)
    assert o.strangers == 2 * len(others.labels)
    assert o.strangers_named == 0


def test_the_command_prints_the_figures_and_refuses_a_missing_folder(
        few_photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "photos", str(few_photos), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "card found in" in out and "k=5: too few photos" in out
    assert "k=2 photo(s) per label enrolled" in out
    assert cli.main(["bench", "photos", str(tmp_path / "nowhere")]) != 0
    err = capsys.readouterr().err
    assert "is not a folder" in err and "Traceback" not in err


def test_enroll_check_stores_nothing_and_says_what_to_retake(
        few_photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert cli.main(["--data-dir", str(data), "enroll", str(few_photos), "--check"]) == 0
    out = capsys.readouterr().out
    assert "checked deck 'duck'" in out and "nothing was stored" in out
    assert not (data / "decks").exists()


def test_naming_speed_is_timed_paired_and_the_embedding_is_unchanged(
        few_photos: Path, features: CardFeatures, capsys: pytest.CaptureFixture[str]) -> None:
    crops = photos.crops_of(few_photos, limit=4)
    assert len(crops) == 4 and all(c.shape[:2] == (150, 100) for c in crops)
    speed = photos_speed.measure(features, crops, rounds=1)
    assert speed.cards == 4 and speed.shipped_ms > 0 and speed.first_ms > 0
    assert speed.network_ms > 0 and speed.largest_difference < 1e-5
    assert f"{speed.ratio:.2f}x" in photos_speed.report(speed)
    assert cli.main(["bench", "photos", str(few_photos), "--rounds", "1", "--speed", "3"]) == 0
    assert "median of 3 crops" in capsys.readouterr().out
    assert cli.main(["bench", "photos", str(few_photos), "--speed", "-1"]) != 0
    assert "--speed must be" in capsys.readouterr().err


def _photos_of(vectors: dict[str, np.ndarray], hidden: list[float]) -> photos.Photos:
    """Cards already found: the embeddings given per label, with how much of each is hidden."""
    labels = [label for label, rows in vectors.items() for _ in rows]
    rows = np.vstack(list(vectors.values())).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return photos.Photos(labels, rows, rows.copy(), len(labels), hidden=np.array(hidden))


def _cards(n: int, per_label: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n, 64))
    return {f"card-{i}": centres[i] + 0.05 * rng.normal(size=(per_label, 64)) for i in range(n)}


def test_a_photo_enrolment_would_refuse_is_never_drawn_and_the_next_one_is() -> None:
    cards = _cards(4, 4, seed=3)
    # card-0's first photo is a hand over card-1 (it looks like card-1); enrolled, every photo
    # of card-1 could be named card-0
    cards["card-0"][0] = cards["card-1"][0]
    hidden = [0.0] * 16
    hidden[0] = 0.3
    read = _photos_of(cards, hidden)
    assert read.refused == 1
    o = photos.cross_validate(read, 2, rounds=6)
    assert o.named == 6 * (4 * 2) and o.wrong == 0  # k = 2 of 4 each round, the refused named
    # the refused photo itself (hidden more than naming allows) is answered unknown, not card-1
    assert o.unknown == 6 and o.right == o.named - o.unknown
    text = photos.report(Path("cards"), read, [o])
    assert "1 of the cards found partly hidden" in text


def test_a_card_hidden_too_much_is_unknown_rather_than_a_guess() -> None:
    cards = _cards(3, 3, seed=4)
    cards["card-2"][2] = cards["card-0"][1]  # a hand over card-2 leaves what looks like card-0
    for share, wrong in ((0.0, True), (MAX_HIDDEN_TO_NAME + 0.05, False)):
        hidden = [0.0] * 9
        hidden[8] = share
        o = photos.cross_validate(_photos_of(cards, hidden), 2, rounds=4)
        # card-2's odd photo is named whenever it is not enrolled itself (refused when hidden)
        assert (o.wrong > 0) == wrong
        assert o.confusions.get(("card-2", "card-0"), 0) == o.wrong


def test_the_printed_index_is_read_on_every_photo_and_takes_its_second_look(
        tmp_path: Path, features: CardFeatures, few_photos: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from ducktable.vision.card_index import BOXES, IndexReader

    folder = write_photos(tmp_path / "std", "standard52", ("6-hearts", "9-hearts", "8-hearts"), 4, seed=3)
    read = photos.read_folder(folder, features, index=IndexReader.load())
    assert read.index_reads is not None and len(read.index_reads) == len(read.labels)
    assert all(len(sides) == 2 and len(sides[0]) == len(BOXES) for sides in read.index_reads)
    assert read.index_ms > 0
    with_index = photos.cross_validate(read, 2, rounds=2)
    without = photos.cross_validate(replace(read, index_reads=None), 2, rounds=2)
    assert with_index.named == without.named > 0
    assert with_index.wrong <= without.wrong
    assert without.looked["index"] == 0 and with_index.looked["index"] <= with_index.named
    assert "ms a card on average" in photos.report(folder, read, [with_index])
    assert cli.main(["bench", "photos", str(few_photos), "--rounds", "1", "--no-index"]) == 0
    assert "printed index" not in capsys.readouterr().out


def test_another_printing_is_named_with_the_second_looks_the_table_takes(
        read: photos.Photos, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ink's layout and colour part printings the pictures alone take for each other (red
    hearts from black spades): the check must name strangers as the table does, with them."""
    assert read.layouts is not None
    asked: list[tuple[bool, bool]] = []
    match = PhotoDeck.match

    def recorded(deck: PhotoDeck, *args: object, **kwargs: object) -> object:
        asked.append((deck.layouts is not None, kwargs.get("layouts") is not None))
        return match(deck, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PhotoDeck, "match", recorded)
    photos.another_printing(read, read, 2, rounds=1)
    assert asked == [(True, True)]

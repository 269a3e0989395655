"""The classifier runtime: manifest and SHA-256 checks, rejection, enrolled prototypes, fakes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.sim import render
from ducktable.vision.classify import (
    CardClassifier,
    ModelCorruptError,
    ModelMissingError,
    PrototypeError,
    Prototypes,
    default_model_path,
    manifest_path,
    preprocess,
    write_deck_prototypes,
)

LABELS = ["duck/yellow-1", "duck/blue-1", "grey/yellow-1", "back", "unknown"]
AXES = np.eye(5, dtype=np.float32)  # class k's prototype is axis k of a 5-d embedding


class FakeSession:
    """Stands in for onnxruntime: each crop gets the next queued embedding and its cosine
    scores; a crop turned by 180° (the classifier's turned view of a crop it has just seen)
    gets that crop's embedding again, as a card reads the same either way up, or ``turned``
    when given (a model that sees something else in the turned view)."""

    def __init__(self, embeddings: list[np.ndarray], turned: np.ndarray | None = None) -> None:
        self.queue = [e / np.linalg.norm(e) for e in embeddings]
        self.turned = None if turned is None else turned / np.linalg.norm(turned)
        self.calls: list[tuple[list[str] | None, dict[str, np.ndarray]]] = []
        self.fresh: list[tuple[np.ndarray, np.ndarray]] = []  # the last call's new crops

    def run(self, output_names: list[str] | None, feeds: dict[str, np.ndarray]) -> list:
        self.calls.append((output_names, feeds))
        before, self.fresh = self.fresh, []
        out = []
        for view in next(iter(feeds.values())):
            emb = next((e for v, e in before + self.fresh
                        if np.array_equal(view, v[:, ::-1, ::-1])), None)
            if emb is None:
                emb = self.queue.pop(0)
                self.fresh.append((view, emb))
            elif self.turned is not None:
                emb = self.turned
            out.append(emb)
        emb = np.stack(out).astype(np.float32)
        return [emb, emb @ AXES.T]


@pytest.fixture
def fake_model(tmp_path: Path) -> Path:
    """A manifest for a 5-class model (the .onnx itself is never opened with a fake session)."""
    model = tmp_path / "fake.onnx"
    manifest = {
        "sha256": "0" * 64, "labels": LABELS, "embedding_dim": 5, "scale": 20.0,
        "input": {"name": "crops", "width": 16, "height": 24, "mean": [0.5] * 3,
                  "std": [0.25] * 3},
        "outputs": {"embedding": "embedding", "scores": "scores"},
        "thresholds": {"class": 0.6, "prototype": 0.7},
    }
    manifest_path(model).write_text(json.dumps(manifest))
    return model


def crops(n: int) -> list[np.ndarray]:
    """``n`` plain crops, each a different grey, with a white top edge (so a crop turned by
    180° differs from itself)."""
    out = [np.full((150, 100, 3), 40 * k, np.uint8) for k in range(n)]
    for crop in out:
        crop[:12] = 255
    return out


def vec(*pairs: tuple[int, float]) -> np.ndarray:
    v = np.zeros(5, np.float32)
    for axis, value in pairs:
        v[axis] = value
    return v


def test_an_injected_session_gets_the_preprocessed_batch(fake_model: Path) -> None:
    session = FakeSession([vec((0, 1.0)), vec((3, 1.0))])
    clf = CardClassifier.load(fake_model, session=session)
    result = clf.classify(crops(2))
    assert [r.label for r in result] == ["duck/yellow-1", "back"]
    names, feeds = session.calls[0]
    assert names == ["embedding", "scores"]
    batch = feeds["crops"]
    assert batch.shape == (2, 3, 24, 16) and batch.dtype == np.float32  # both named clearly
    assert batch[1, :, 2:].mean() == pytest.approx((40 / 255 - 0.5) / 0.25, abs=1e-4)
    assert len(session.calls) == 1  # so neither was looked at turned
    assert result[0].embedding.shape == (5,) and 0 < result[0].confidence <= 1
    assert result[0].seconds >= 0


def test_only_a_crop_not_named_clearly_is_also_looked_at_turned(fake_model: Path) -> None:
    # crop 0 is clearly duck/yellow-1; crop 1 only just (0.63 against the threshold of 0.6),
    # and turned it is clearly duck/yellow-1: the two views of crop 1 are averaged
    unclear = vec((0, 0.63), (1, 0.55), (4, 0.55))
    session = FakeSession([vec((0, 1.0)), unclear], turned=vec((0, 1.0)))
    clf = CardClassifier.load(fake_model, session=session)
    first, second = clf.classify(crops(2))
    batches = [feeds["crops"] for _, feeds in session.calls]
    assert [len(b) for b in batches] == [2, 1]  # one crop looked at turned
    assert np.array_equal(batches[1][0], batches[0][1, :, ::-1, ::-1])
    assert first.label == second.label == "duck/yellow-1"
    assert first.similarity == pytest.approx(1.0, abs=1e-5)
    both_ways = (unclear[0] / np.linalg.norm(unclear) + 1.0) / 2  # the scores averaged
    assert second.similarity == pytest.approx(both_ways, abs=1e-5)
    # turned it is clearly another card: averaged, neither view wins, so it is unknown
    session = FakeSession([unclear], turned=vec((3, 1.0)))
    [third] = CardClassifier.load(fake_model, session=session).classify(crops(1))
    assert [len(feeds["crops"]) for _, feeds in session.calls] == [1, 1]
    assert third.label == "unknown"


def test_a_crop_like_nothing_known_is_unknown_not_a_wrong_label(fake_model: Path) -> None:
    # best similarity 0.54 < class threshold 0.6
    session = FakeSession([vec((0, 0.5), (1, 0.45), (2, 0.4), (3, 0.4), (4, 0.3))])
    clf = CardClassifier.load(fake_model, session=session)
    [result] = clf.classify(crops(1))
    assert result.label == "unknown"
    assert 0 <= result.confidence <= 1


def test_the_unknown_class_winning_means_unknown(fake_model: Path) -> None:
    clf = CardClassifier.load(fake_model, session=FakeSession([vec((4, 1.0), (0, 0.5))]))
    assert clf.classify(crops(1))[0].label == "unknown"


def test_naming_the_game_limits_the_candidates(fake_model: Path) -> None:
    near_grey = vec((2, 1.0), (1, 0.8))  # grey/yellow-1 best, duck/blue-1 second
    clf = CardClassifier.load(fake_model, session=FakeSession([near_grey, near_grey]))
    assert clf.classify(crops(1))[0].label == "grey/yellow-1"
    assert clf.classify(crops(1), games={"duck"})[0].label == "duck/blue-1"


def test_enrolled_custom_deck_is_recognised_and_replaces_nothing_else(fake_model: Path) -> None:
    star = vec((0, 0.2), (1, 0.2), (2, 0.8), (4, 0.5))  # like grey/yellow-1, more like a star
    store = fake_model.parent / "enrolled"
    write_deck_prototypes(store / "mydeck", Prototypes(("mydeck/star",), star[None] /
                                                      np.linalg.norm(star)),
                          {"model_sha256": "0" * 64})
    session = FakeSession([star, vec((0, 1.0))])
    clf = CardClassifier.load(fake_model, session=session, prototypes_dir=store)
    assert [r.label for r in clf.classify(crops(2))] == ["mydeck/star", "duck/yellow-1"]


def test_an_enrolled_game_deck_replaces_the_models_own_classes(fake_model: Path) -> None:
    printed = vec((1, 0.2), (3, 0.3), (0, 0.93))
    store = fake_model.parent / "enrolled"
    protos = Prototypes(("duck/blue-1",), (printed / np.linalg.norm(printed))[None])
    write_deck_prototypes(store / "duck", protos, {"model_sha256": "0" * 64})
    # the model alone would say yellow-1; the enrolled printing says blue-1
    clf = CardClassifier.load(fake_model, session=FakeSession([printed, printed]))
    assert clf.classify(crops(1))[0].label == "duck/yellow-1"
    enrolled = clf.with_prototypes(protos)
    assert enrolled.classify(crops(1))[0].label == "duck/blue-1"
    assert enrolled.session is clf.session


def test_prototypes_made_with_another_model_are_refused(fake_model: Path) -> None:
    store = fake_model.parent / "enrolled"
    write_deck_prototypes(store / "old", Prototypes(("old/x",), AXES[:1]),
                          {"model_sha256": "f" * 64})
    with pytest.raises(PrototypeError, match="enrol it again") as err:
        CardClassifier.load(fake_model, session=FakeSession([]), prototypes_dir=store)
    assert isinstance(err.value, ValueError) and "old" in str(err.value)


def test_no_crops_no_work(fake_model: Path) -> None:
    session = FakeSession([])
    assert CardClassifier.load(fake_model, session=session).classify([]) == []
    assert session.calls == []


def test_preprocess_takes_any_size_grey_or_bgra_and_refuses_floats() -> None:
    images = [np.zeros((150, 100, 3), np.uint8), np.zeros((30, 20), np.uint8),
              np.zeros((300, 200, 4), np.uint8)]
    assert preprocess(images, 64, 96, [0.5] * 3, [0.25] * 3).shape == (3, 3, 96, 64)
    with pytest.raises(ValueError, match="crop 0 .* uint8"):
        preprocess([np.zeros((150, 100, 3), np.float32)], 64, 96, [0.5] * 3, [0.25] * 3)


def test_preprocess_normalises_each_channel_as_the_manifest_says() -> None:
    """The looked-up levels are the figures of normalising every pixel: channel by channel,
    crop by crop, in NCHW order."""
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 256, (150, 100, 3), dtype=np.uint8),
             rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)]
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.25, 0.3]
    batch = preprocess(crops, 64, 96, mean, std)
    for crop, got in zip(crops, batch, strict=True):
        shrink = crop.shape[0] >= 96
        small = cv2.resize(crop, (64, 96),
                           interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
        for c in range(3):
            want = (small[..., c].astype(np.float32) / 255.0 - np.float32(mean[c])) \
                / np.float32(std[c])
            assert np.array_equal(got[c], want)
    assert preprocess([], 64, 96, mean, std).shape == (0, 3, 96, 64)


# ---- the shipped model files -----------------------------------------------------------------
@pytest.fixture
def model_copy(tmp_path: Path) -> Path:
    src = default_model_path()
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    shutil.copy(manifest_path(src), manifest_path(dst))
    return dst


def test_shipped_manifest_labels_are_every_face_plus_back_and_unknown() -> None:
    manifest = json.loads(manifest_path(default_model_path()).read_text())
    expected = [f"{g}/{lab}" for g in render.GAMES for lab in render.card_labels(g)]
    assert manifest["labels"] == [*expected, "back", "unknown"]
    assert manifest["input"]["width"] * 1.5 == manifest["input"]["height"]


def test_onnx_metadata_carries_the_same_labels_and_preprocessing() -> None:
    clf = CardClassifier.load()
    meta = clf.session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["labels"]) == list(clf.manifest.labels)
    assert json.loads(meta["preprocessing"])["width"] == clf.manifest.width


def test_a_tampered_model_file_is_refused_with_what_to_do(model_copy: Path) -> None:
    data = bytearray(model_copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model_copy.write_bytes(bytes(data))
    with pytest.raises(ModelCorruptError, match="make model") as err:
        CardClassifier.load(model_copy)
    assert isinstance(err.value, ValueError)
    assert str(model_copy) in str(err.value) and "SHA-256" in str(err.value)


def test_a_missing_model_or_manifest_is_named(model_copy: Path) -> None:
    manifest = manifest_path(model_copy)
    kept = manifest.read_text()
    manifest.unlink()
    with pytest.raises(ModelMissingError, match="manifest") as err:
        CardClassifier.load(model_copy)
    assert isinstance(err.value, FileNotFoundError) and str(manifest) in str(err.value)
    manifest.write_text(kept)
    model_copy.unlink()
    with pytest.raises(FileNotFoundError, match="make model"):
        CardClassifier.load(model_copy)


def test_an_unreadable_manifest_is_a_clear_error(model_copy: Path) -> None:
    manifest_path(model_copy).write_text("{not json")
    with pytest.raises(ModelCorruptError, match="cannot be read"):
        CardClassifier.load(model_copy)
    manifest_path(model_copy).write_text(json.dumps({"labels": []}))
    with pytest.raises(ModelCorruptError, match="incomplete"):
        CardClassifier.load(model_copy)


def test_the_session_is_created_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime

    made = []
    real = onnxruntime.InferenceSession

    def counting(*args: object, **kwargs: object) -> object:
        made.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", counting)
    clf = CardClassifier.load()
    card = render.render_card("grey", "grey-D", width=100, height=150)
    for _ in range(3):
        clf.classify([card, card])
    assert sorted(Path(str(args[0])).name for args in made) == ["card_classifier.onnx", "digit_reader.onnx"]


def test_the_runtime_never_imports_torch() -> None:
    code = ("import sys, numpy as np\n"
            "from ducktable.vision.classify import CardClassifier\n"
            "from ducktable.sim import render\n"
            "clf = CardClassifier.load()\n"
            "print(clf.classify([render.render_card('duck', 'towel')])[0].label)\n"
            "print('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["duck/towel", "False"]


@pytest.mark.parametrize(("game", "label"), [
    ("duck", "yellow-5"), ("duck", "lifebelt-7-red"), ("bruce", "bruce"), ("grey", "grey-D"),
    ("sitting", "action-fire"), ("ducky", "gift"),
])
def test_clean_renders_are_read_right_side_up_and_upside_down(game: str, label: str) -> None:
    clf = CardClassifier.load()
    card = render.render_card(game, label, width=100, height=150)
    results = clf.classify([card, np.ascontiguousarray(card[::-1, ::-1])])
    assert [r.label for r in results] == [f"{game}/{label}"] * 2
    assert np.allclose(np.linalg.norm(results[0].embedding), 1, atol=1e-3)


def test_shipped_model_files_stay_small() -> None:
    folder = default_model_path().parent
    shipped = [p for p in folder.iterdir() if p.suffix in (".onnx", ".json", ".md", ".png")]
    assert default_model_path() in shipped
    assert sum(p.stat().st_size for p in shipped) < 30_000_000  # the Pi's budget for model files


def test_an_enrolled_label_is_scored_by_its_nearest_view(fake_model: Path) -> None:
    """A label with one view almost equal to the query beats a label whose many views are all
    only fairly close (two photos per card, each with its re-photographed views)."""
    query = vec((0, 0.6), (2, 0.8))
    near = query / np.linalg.norm(query)
    far = vec((0, 1.0))
    # "a": one view almost equal to the query, the other 31 unlike it; "b": 32 fairly close views
    a_views = [far] * 20 + [near] + [far] * 11
    b_views = [(near + 0.35 * far) / np.linalg.norm(near + 0.35 * far)] * 32
    protos = Prototypes(tuple(["mydeck/b"] * 16 + ["mydeck/a"] * 32 + ["mydeck/b"] * 16),
                        np.stack(b_views[:16] + a_views + b_views[16:]).astype(np.float32))
    clf = CardClassifier.load(fake_model, session=FakeSession([query])).with_prototypes(protos)
    [result] = clf.classify(crops(1))
    assert result.label == "mydeck/a"
    assert result.similarity == pytest.approx(1.0, abs=1e-5)


# ---- the second look: recuts of one card -----------------------------------------------------
def test_a_second_look_names_a_card_two_recuts_agree_on(fake_model: Path) -> None:
    # class threshold 0.6, margin 0.04: 0.9 and 0.8 clear it, the unknown recut abstains
    session = FakeSession([vec((0, 0.9), (4, 0.1)), vec((0, 0.8), (4, 0.4)), vec((4, 1.0))])
    clf = CardClassifier.load(fake_model, session=session)
    named = clf.classify_recuts(crops(3))
    assert named is not None and named.label == "duck/yellow-1"
    assert named.similarity == pytest.approx(0.9 / np.hypot(0.9, 0.1), abs=1e-5)
    assert named.threshold == pytest.approx(0.6)
    assert named.recut == 0  # the clearer of the two votes


def test_a_second_look_needs_two_clear_votes(fake_model: Path) -> None:
    # the second recut is named (0.62 >= 0.6) but not clearly (under 0.6 + 0.04)
    unclear = vec((0, 0.62), (4, 0.5), (1, 0.6))
    clf = CardClassifier.load(fake_model, session=FakeSession([unclear, vec((0, 1.0)), unclear]))
    assert clf.classify(crops(1))[0].label == "duck/yellow-1"
    assert clf.classify_recuts(crops(2)) is None


def test_a_recut_naming_another_card_vetoes_the_second_look(fake_model: Path) -> None:
    session = FakeSession([vec((0, 1.0)), vec((0, 1.0)), vec((1, 1.0))])
    clf = CardClassifier.load(fake_model, session=session)
    assert clf.classify_recuts(crops(3)) is None


def test_a_second_look_at_an_enrolled_card_clears_the_enrolled_threshold(fake_model: Path
                                                                         ) -> None:
    """Enrolled labels have their own threshold (0.7 here): a recut just over it names the
    card on a first look but is no clear vote on a second."""
    star = vec((0, 0.2), (1, 0.2), (2, 0.8), (4, 0.5))
    star /= np.linalg.norm(star)
    store = fake_model.parent / "enrolled"
    write_deck_prototypes(store / "mydeck", Prototypes(("mydeck/star",), star[None]),
                          {"model_sha256": "0" * 64})
    side = vec((3, 1.0)) - star * star[3]
    side /= np.linalg.norm(side)
    barely = 0.72 * star + np.sqrt(1 - 0.72**2) * side  # similarity 0.72 to the star
    clf = CardClassifier.load(fake_model, session=FakeSession([barely, star, barely, star, star]),
                              prototypes_dir=store)
    [first] = clf.classify(crops(1))
    assert first.label == "mydeck/star" and first.threshold == pytest.approx(0.7)
    assert clf.classify_recuts(crops(2)) is None  # one clear vote (the star), one unclear
    named = clf.classify_recuts(crops(2))
    assert named is not None and named.label == "mydeck/star"

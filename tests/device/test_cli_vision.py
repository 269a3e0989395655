"""``ducktable identify``, ``enroll`` and ``bench vision``: wiring, output and one-line errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
from ducktable.device import cli, cli_vision
from ducktable.sim.scene import Placement, compose_table


class FakeClassifier:
    """Names every crop after its mean colour: light cards are "duck/yellow-5"."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def classify(self, crops: Sequence[np.ndarray], *, games: Any = None) -> list[Any]:
        self.calls.append(len(crops))
        return [SimpleNamespace(label="duck/yellow-5" if c.mean() > 120 else "unknown",
                                confidence=0.93) for c in crops]


@pytest.fixture
def fake_classifier(monkeypatch: pytest.MonkeyPatch) -> FakeClassifier:
    fake = FakeClassifier()
    monkeypatch.setattr(cli_vision, "load_classifier", lambda model, prototypes: fake)
    return fake


@pytest.fixture
def table_photo(tmp_path: Path) -> Path:
    image = compose_table(3, [Placement("duck/yellow-5", (400, 300), 20.0, 1.4),
                              Placement("duck/red-2", (800, 380), -15.0, 1.4)], 0)
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), image)
    return path


def test_identify_prints_cards_and_writes_an_annotated_copy(
        fake_classifier: FakeClassifier, table_photo: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path / "data"), "identify", str(table_photo)])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("duck/yellow-5") == 2 and "0.93" in out
    assert "2 card(s) named" in out
    annotated = cv2.imread(str(tmp_path / "table-identified.jpg"))
    original = cv2.imread(str(table_photo))
    assert annotated is not None and original is not None
    assert annotated.shape == original.shape
    assert np.abs(annotated.astype(int) - original.astype(int)).sum() > 0
    assert fake_classifier.calls == [2]


@pytest.mark.parametrize("detector", ["network", "edges"])
def test_identify_finds_the_cards_with_either_detector(
        fake_classifier: FakeClassifier, table_photo: Path, tmp_path: Path, detector: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path / "data"), "identify", str(table_photo),
                       "--detector", detector])
    assert status == 0 and "2 card(s) named" in capsys.readouterr().out


def test_identify_reads_a_close_up_with_the_edge_search(
        fake_classifier: FakeClassifier, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One card filling the photo is nothing like the tables the locator learned: when it finds
    nothing, the photo is read again with the edge-map search, and the user is told."""
    close_up = tmp_path / "close-up.jpg"
    cv2.imwrite(str(close_up), compose_table(3, [Placement("duck/yellow-5", (640, 360), 10.0,
                                                           5.0)], 0))
    status = cli.main(["--data-dir", str(tmp_path / "data"), "identify", str(close_up)])
    out = capsys.readouterr().out
    assert status == 0 and "1 card(s) named" in out
    assert "read again with the edge-map search" in out


def test_identify_reports_a_damaged_locator_clearly(
        fake_classifier: FakeClassifier, table_photo: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.vision import locator

    model = tmp_path / "card_locator.onnx"
    model.write_bytes(b"not a model")
    model.with_suffix(".json").write_text(locator.default_locator_path().with_suffix(".json")
                                          .read_text())
    monkeypatch.setattr(locator, "default_locator_path", lambda: model)
    status = cli.main(["--data-dir", str(tmp_path / "data"), "identify", str(table_photo)])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "does not match its manifest" in err and "make locator" in err


def test_identify_missing_image_is_one_line(fake_classifier: FakeClassifier, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path), "identify", str(tmp_path / "nope.jpg")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip() == f"ducktable: error: no such image: {tmp_path / 'nope.jpg'}"


def test_identify_corrupt_image_is_one_line(fake_classifier: FakeClassifier, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 truncated")
    status = cli.main(["--data-dir", str(tmp_path), "identify", str(bad)])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "cannot read" in err and "broken.jpg" in err


def test_identify_unwritable_output_is_one_line(fake_classifier: FakeClassifier,
                                                table_photo: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path), "identify", str(table_photo),
                       "--out", str(tmp_path / "missing-folder" / "x.png")])
    assert status == 2 and "cannot write the annotated image" in capsys.readouterr().err


def test_identify_reports_a_missing_model_clearly(table_photo: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path), "identify", str(table_photo),
                       "--model", str(tmp_path / "none.onnx")])
    err = capsys.readouterr().err
    assert status == 2 and "none" in err and len(err.strip().splitlines()) == 1


def test_enroll_folder_calls_the_enrolment_with_the_data_folder(
        fake_classifier: FakeClassifier, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.vision import enroll

    photos = tmp_path / "mydeck"
    (photos / "yellow-5").mkdir(parents=True)
    seen: dict[str, Any] = {}

    def fake_enroll(folder: Path, target: Path, *, deck: str | None, classifier: Any
                    ) -> enroll.EnrolmentReport:
        seen.update(folder=folder, target=target, deck=deck, classifier=classifier)
        return enroll.EnrolmentReport("duck", target / "duck", {"yellow-5": 2},
                                      [enroll.PhotoProblem(folder / "x.jpg", "x.jpg: blurred")],
                                      ["red-1"])

    monkeypatch.setattr(enroll, "enroll_folder", fake_enroll)
    status = cli.main(["--data-dir", str(tmp_path / "data"), "enroll", str(photos),
                       "--deck", "duck"])
    out = capsys.readouterr().out
    assert status == 0
    assert seen["folder"] == photos and seen["deck"] == "duck"
    assert seen["target"] == tmp_path / "data" / "decks"
    assert seen["classifier"] is fake_classifier
    assert "skipped x.jpg: blurred" in out and "yellow-5 x2" in out and "red-1" in out


def test_enroll_from_camera_feeds_frames_to_the_guided_enrolment(
        fake_classifier: FakeClassifier, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.vision import enroll

    shots = tmp_path / "shots"
    shots.mkdir()
    for i in range(3):
        cv2.imwrite(str(shots / f"{i}.png"), np.full((20, 30, 3), 40 * i, np.uint8))
    got: dict[str, Any] = {}

    def fake_guided(frames: Any, labels: Sequence[str], prompt: Any, find: Any, *,
                    shots: int) -> dict[str, list[np.ndarray]]:
        images = list(frames)
        got.update(values=[int(f.mean()) for f in images], labels=list(labels), shots=shots)
        prompt("show yellow-5")
        return {"yellow-5": images[:1]}

    def fake_store(crops: Any, target: Path, deck: str, classifier: Any, **kw: Any) -> Path:
        got.update(stored=sorted(crops), target=target, deck=deck)
        return target / deck

    monkeypatch.setattr(enroll, "guided_enrolment", fake_guided)
    monkeypatch.setattr(enroll, "enroll_crops", fake_store)
    status = cli.main(["--data-dir", str(tmp_path / "data"), "enroll", "--camera", str(shots),
                       "--deck", "duck", "--labels", "yellow-5", "--shots", "1"])
    out = capsys.readouterr().out
    assert status == 0
    assert got["values"] == [0, 40, 80] and got["labels"] == ["yellow-5"] and got["shots"] == 1
    assert got["stored"] == ["yellow-5"] and got["deck"] == "duck"
    assert "show yellow-5" in out and "enrolled deck 'duck'" in out


@pytest.mark.parametrize("argv, message", [
    (["enroll"], "give a folder of labelled photos"),
    (["enroll", "x", "--camera", "0"], "not both"),
    (["enroll", "--camera", "synthetic"], "--camera needs --deck"),
    (["enroll", "--camera", "/no/such/cam", "--deck", "duck"], "no camera, file or folder"),
    (["enroll", "--camera", "synthetic", "--deck", "my-deck"], "list its cards with --labels"),
])
def test_enroll_argument_problems_are_one_line(
        fake_classifier: FakeClassifier, tmp_path: Path, argv: list[str], message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_bench_vision_prints_every_figure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.vision import classify

    monkeypatch.setattr(classify.CardClassifier, "load",
                        classmethod(lambda cls, *a, **k: FakeClassifier()))
    status = cli.main(["--data-dir", str(tmp_path), "bench", "vision", "--scenes", "2",
                       "--empty", "1", "--speed-frames", "1", "--capture-scenes", "1", "--no-memory"])
    out = capsys.readouterr().out
    assert status == 0
    for figure in ("detection recall", "detection precision", "label accuracy",
                   "false cards per 100 frames", "detector only", "full read (12 cards)",
                   "ms per card", "at 1920x1080", "named wrong"):
        assert figure in out
    # the counts behind the share: 99.50% may be no card to spare
    assert re.search(r"label accuracy +[01]\.\d{4} of matched cards \(\d+ of \d+\)", out)


@pytest.mark.parametrize(("part", "shown", "left_out"), [
    ("--scenes", "detection recall", "full read (12 cards)"),
    ("--empty", "false cards per 100 frames", "detection recall"),
    ("--speed-frames", "full read (12 cards)", "false cards per 100 frames"),
    ("--capture-scenes", "at 1920x1080", "detection recall"),
])
def test_bench_vision_measures_only_the_parts_given_frames(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        part: str, shown: str, left_out: str) -> None:
    """A part given 0 frames is left out of the report (``--speed-frames 0`` once crashed at
    the end of a long accuracy run)."""
    from ducktable.vision import classify

    monkeypatch.setattr(classify.CardClassifier, "load",
                        classmethod(lambda cls, *a, **k: FakeClassifier()))
    argv = {"--scenes": "0", "--empty": "0", "--speed-frames": "0", "--capture-scenes": "0", part: "1"}
    status = cli.main(["--data-dir", str(tmp_path), "bench", "vision", "--no-memory",
                       *[word for pair in argv.items() for word in pair]])
    out = capsys.readouterr().out
    assert status == 0 and shown in out and left_out not in out


def test_bench_vision_names_the_detector_it_measured(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.vision import classify

    monkeypatch.setattr(classify.CardClassifier, "load",
                        classmethod(lambda cls, *a, **k: FakeClassifier()))
    for detector, words in (("network", "card locator network"), ("edges", "edge-map search")):
        status = cli.main(["--data-dir", str(tmp_path), "bench", "vision", "--no-memory",
                           "--scenes", "1", "--empty", "0", "--speed-frames", "0",
                           "--capture-scenes", "0", "--detector", detector])
        assert status == 0 and words in capsys.readouterr().out.splitlines()[0]


def test_bench_without_a_benchmark_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench"]) == 2
    out = capsys.readouterr().out
    assert "vision" in out and "all" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--scenes", "-1"], "--scenes must not be negative"),
    (["--scenes", "0", "--empty", "0", "--speed-frames", "0", "--capture-scenes", "0"],
     "nothing to measure"),
])
def test_bench_vision_argument_problems_are_one_line(
        tmp_path: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--data-dir", str(tmp_path), "bench", "vision", *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_bench_vision_reads_scenes_in_several_processes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The worker processes load the shipped model themselves; the report is the usual one."""
    status = cli.main(["--data-dir", str(tmp_path), "bench", "vision", "--jobs", "2",
                       "--scenes", "3", "--empty", "0", "--speed-frames", "0",
                       "--capture-scenes", "0", "--no-memory"])
    captured = capsys.readouterr()
    assert status == 0 and "in 2 processes" in captured.err
    found = re.search(r"label accuracy +[01]\.\d{4} of matched cards \((\d+) of (\d+)\)", captured.out)
    assert found and int(found[2]) >= 20  # three scenes' cards, read

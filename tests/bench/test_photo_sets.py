"""The real-photo set builder (:mod:`ducktable.bench.photo_sets`) on a tiny bare git mirror made
here, laid out like the Vosloo repository: which files become which labels, how photos are
re-encoded, what SETS.json records, that a rebuild gives the same bytes, and the refusals and
messages the command line gives. No network: git only reads the folder made in ``tmp_path``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.bench import photo_sets
from ducktable.bench.photo_sets import SETS, Item, Repo

ROOT = Path(__file__).resolve().parents[2]
VOSLOO = next(s for s in SETS if s.name == "vosloo_piatnik")
RDPONG = next(s for s in SETS if s.name == "rdpong_bicycle")
# git without the user's or the system's settings, and without a GIT_DIR a hook may have set
GIT_ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True,
                          text=True).stdout.strip()


def _photo(width: int, height: int, seed: int) -> np.ndarray:
    """A smooth picture with a few blocks on it (JPEG keeps such pictures close)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    img = np.stack([xx * 255 // width, yy * 255 // height, (xx + yy) * 127 // (width + height)], axis=-1)
    img = img.astype(np.uint8)
    for _ in range(4):
        x, y = rng.integers(0, width - 8), rng.integers(0, height - 8)
        img[y:y + height // 5, x:x + width // 5] = rng.integers(0, 256, 3)
    return img


def _jpeg(img: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()


SMALL = _jpeg(_photo(40, 60, 1))
FILES = {
    "out/angle_1/AC_01.jpg": SMALL,
    "out/angle_1/AC_02.jpg": SMALL,  # the same photo again: dropped as a duplicate
    "out/angle_1/10H_00.jpg": _jpeg(_photo(1600, 1000, 2)),  # shrunk to 1280 x 800
    "out/angle_1/KS_13.jpg": b"not a picture",  # unreadable: skipped
    "out/angle_1/1C_01.jpg": SMALL,  # no such card: not taken
    "out/angle_2/QD_01.jpg": SMALL,  # another angle: not taken
    "LICENSE": b"MIT License\n\nCopyright (c) 2020 t\n",
}


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, str]:
    """A mirrors folder holding a bare clone of a Vosloo-like repository, and its commit."""
    work = tmp_path / "work"
    for name, data in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    _git(work, "init", "-q")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "photos")
    commit = _git(work, "rev-parse", "HEAD")
    folder = tmp_path / "mirrors"
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(folder / "Vosloo+playing-cards-detection" / "repo"))
    return folder, commit


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_set_is_built_from_its_mirror_at_its_commit(mirrors: tuple[Path, str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    folder, commit = mirrors
    monkeypatch.setattr(photo_sets, "SETS", (dataclasses.replace(VOSLOO, commit=commit),))
    out = tmp_path / "photos"
    assert photo_sets.main(["--mirrors", str(folder), "--out", str(out)]) == 0
    built = out / "sets" / "vosloo_piatnik"
    assert sorted(_tree(built)) == ["10H/angle1_00.jpg", "AC/angle1_01.jpg"]
    assert (out / "sheets" / "vosloo_piatnik.png").is_file()
    # re-encoded as JPEG quality 92, the large one shrunk to 1280 px on its longest side
    source = cv2.imdecode(np.frombuffer(SMALL, np.uint8), cv2.IMREAD_COLOR)
    assert source is not None
    assert (built / "AC" / "angle1_01.jpg").read_bytes() == cv2.imencode(
        ".jpg", source, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    big = cv2.imread(str(built / "10H" / "angle1_00.jpg"))
    assert big is not None and big.shape == (800, 1280, 3)

    meta = json.loads((out / "sets" / "SETS.json").read_text())["vosloo_piatnik"]
    assert (meta["repository"], meta["commit"], meta["url"]) == (
        "Vosloo/playing-cards-detection", commit, "https://github.com/Vosloo/playing-cards-detection")
    assert meta["licence"] == "LICENSE: MIT" and meta["kind"] == "crop" and meta["full_scene"] is False
    assert (meta["n_available_in_repo"], meta["n_labels"], meta["n_photos"]) == (4, 2, 2)
    assert (meta["n_distinct_source_images"], meta["photos_per_label_min"], meta["photos_per_label_max"]) == (2, 1, 1)
    assert meta["skipped_unreadable"] == ["out/angle_1/KS_13.jpg"]
    assert meta["dropped_duplicates"] == [{"label": "AC", "path": "out/angle_1/AC_02.jpg", "same_as": "angle1_01.jpg"}]
    assert list(meta["files"]) == ["AC", "10H"]  # clubs before hearts
    assert meta["files"]["10H"] == [{"name": "angle1_00.jpg", "source": "out/angle_1/10H_00.jpg",
                                     "orig_size": [1600, 1000], "size": [1280, 800]}]
    assert meta["files"]["AC"][0]["size"] == [40, 60]
    table = (out / "sets" / "SETS.md").read_text()
    assert f"| vosloo_piatnik | Vosloo/playing-cards-detection | {commit} | LICENSE: MIT | 2 | 2 (2) |" in table


def test_a_rebuild_gives_the_same_bytes(mirrors: tuple[Path, str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder, commit = mirrors
    monkeypatch.setattr(photo_sets, "SETS", (dataclasses.replace(VOSLOO, commit=commit),))
    first, second = tmp_path / "first", tmp_path / "second"
    assert photo_sets.main(["--mirrors", str(folder), "--out", str(first)]) == 0
    before = _tree(first)
    (first / "sets" / "vosloo_piatnik" / "AC" / "stale.jpg").write_bytes(b"left from before")
    assert photo_sets.main(["--mirrors", str(folder), "--out", str(first)]) == 0
    assert photo_sets.main(["--mirrors", str(folder), "--out", str(second), "--only", "vosloo_piatnik"]) == 0
    assert _tree(first) == before == _tree(second)


def test_an_out_inside_a_git_work_tree_is_refused(mirrors: tuple[Path, str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = mirrors
    inside = [tmp_path / "work" / "photos"] + ([ROOT / "photos-check"] if (ROOT / ".git").exists() else [])
    for out in inside:
        assert photo_sets.main(["--mirrors", str(folder), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"refusing --out {out}: it lies inside the git work tree ") and err.count("\n") == 1
        assert not out.exists()


def test_a_missing_mirror_or_commit_is_named_in_one_line_and_the_rest_is_built(
        mirrors: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, commit = mirrors
    gone = dataclasses.replace(VOSLOO, name="vosloo_gone", commit="1" * 40)
    monkeypatch.setattr(photo_sets, "SETS", (dataclasses.replace(VOSLOO, commit=commit), RDPONG, gone))
    out = tmp_path / "photos"
    assert photo_sets.main(["--mirrors", str(folder), "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    rdpong_dir = folder / "rd-pong+EE326-Project-Playing-Card-Recognition" / "repo"
    rdpong = "rd-pong/EE326-Project-Playing-Card-Recognition"
    assert err[0] == (f"[rdpong_bicycle] no mirror of {rdpong} at {rdpong_dir}; "
                      f"get it with: git clone --bare https://github.com/{rdpong} {rdpong_dir}")
    vosloo_dir = folder / "Vosloo+playing-cards-detection" / "repo"
    assert err[1].startswith(f"[vosloo_gone] commit {'1' * 40} of Vosloo/playing-cards-detection is not in ")
    assert err[1].endswith(f"git clone --bare https://github.com/Vosloo/playing-cards-detection {vosloo_dir}")
    assert len(err) == 2
    assert list(json.loads((out / "sets" / "SETS.json").read_text())) == ["vosloo_piatnik"]
    assert sorted(p.name for p in (out / "sets").iterdir()) == ["SETS.json", "SETS.md", "vosloo_piatnik"]


def _labels(rule: photo_sets.Callable[[list[photo_sets.Row], Repo], list[Item]],
            paths: list[str]) -> dict[str, tuple[str, str]]:
    items = rule([(p, "0" * 40, 1) for p in paths], Repo(Path("unused"), "0" * 40))
    return {it.source: (it.label, it.stem) for it in items}


def test_label_rules_name_cards_the_same_way_in_every_set() -> None:
    assert _labels(photo_sets.items_vosloo, ["out/angle_1/10H_05.jpg", "out/angle_1/1C_01.jpg"]) == {
        "out/angle_1/10H_05.jpg": ("10H", "angle1_05")}
    assert _labels(photo_sets.items_anima_templates, ["matlab/input/Datensaetze/Templates/Herz_Koenig.JPG",
                                                      "matlab/input/Datensaetze/Templates/Pik_Zehn.JPG"]) == {
        "matlab/input/Datensaetze/Templates/Herz_Koenig.JPG": ("KH", "template_Herz_Koenig"),
        "matlab/input/Datensaetze/Templates/Pik_Zehn.JPG": ("10S", "template_Pik_Zehn")}
    assert _labels(photo_sets.items_rdpong, ["training/10hearts.jpg", "training/Jhearts.jpg",
                                             "training/Aspades.jpg"]) == {
        "training/10hearts.jpg": ("10H", "10hearts"), "training/Aspades.jpg": ("AS", "Aspades")}
    base = "Playing Card Classifier Model/dataset/"
    assert _labels(photo_sets.items_ece395, [base + "train/CT/CT-5.jpg", base + "test/Black_Joker/Black_Joker-12.jpg",
                                             base + "train/Nothing/Nothing-1.jpg"]) == {
        base + "train/CT/CT-5.jpg": ("10C", "train_005"),
        base + "test/Black_Joker/Black_Joker-12.jpg": ("JOKER", "test_012")}
    assert _labels(photo_sets.items_yuchenrao, ["old_data/Queen_heart_3.jpg", "data/Queen_heart_3.jpg"]) == {
        "old_data/Queen_heart_3.jpg": ("QH", "photo03")}
    assert _labels(photo_sets.items_obind, ["datasets/raw/hearts_king/img7.jpg"]) == {
        "datasets/raw/hearts_king/img7.jpg": ("KH", "img007")}
    assert _labels(photo_sets.items_filhodeed, ["datasets/cards/10_of_clubs2.png", "datasets/cards/king_of_hearts.png",
                                                "datasets/cards/ace_of_spades2.png"]) == {
        "datasets/cards/10_of_clubs2.png": ("10C", "10_of_clubs2")}
    assert _labels(photo_sets.items_setgame, ["images_original/train/07-3-green-wave-dashed/IMG (copy) 1.png"]) == {
        "images_original/train/07-3-green-wave-dashed/IMG (copy) 1.png": ("3-green-squiggle-striped",
                                                                          "train_IMG_copy_1")}
    assert _labels(photo_sets.items_tomwhite_crops, ["data/train-v2/labelled/2-red-empty-ovals/a-b.jpg"]) == {
        "data/train-v2/labelled/2-red-empty-ovals/a-b.jpg": ("2-red-oval-open", "a_b")}
    scene = photo_sets.items_anima_scenes([("matlab/input/Datensaetze/Spielsimulation/Spiel 1/Spielzug_3.jpg",
                                            "0" * 40, 1)], Repo(Path("unused"), "0" * 40))
    assert [(it.label, it.stem, it.info["other_cards_in_photo"]) for it in scene] == [
        ("KC", "spiel1_zug03", ["AD"]), ("AD", "spiel1_zug03", ["KC"])]


def test_a_capped_set_keeps_an_even_spread() -> None:
    items = [Item(f"p{i:02d}", "AC", f"s{i:02d}", {}) for i in range(99)]
    kept = photo_sets.spread(items, 30)
    assert len(kept) == 30 and kept[0] == items[0] and kept[-1] == items[-1]
    assert photo_sets.spread(items, None) == items


def test_the_docstring_names_every_repository_and_commit() -> None:
    doc = photo_sets.__doc__ or ""
    for s in SETS:
        assert s.repo in doc and s.commit in doc and s.name in doc
    assert "UNO" in doc

"""``ducktable layout-sheet`` and ``ducktable enroll-layout``: the sheet written as PDF or PNG
pages, rendered layout photos read and checked, bad arguments as one line."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from ducktable.device import cli
from ducktable.sim.layout_photos import layout_photo
from ducktable.vision.layout_plan import plan_layouts


def test_the_sheet_as_pdf_and_as_png_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    assert cli.main(["layout-sheet", "duck", str(tmp_path / "sheet.pdf")]) == 0
    out = capsys.readouterr().out
    assert "layout 1: lifebelt-6-green" in out and "3 layout(s) of 3 x 5" in out
    assert (tmp_path / "sheet.pdf").read_bytes().count(b"/Type /Page ") == 6
    assert cli.main(["layout-sheet", "grey", str(tmp_path / "grey.png"), "--rows", "3",
                     "--cols", "4"]) == 0
    pages = sorted(p.name for p in tmp_path.glob("grey-*.png"))
    assert pages == ["grey-L1R1.png", "grey-L1R2.png", "grey-L2R1.png", "grey-L2R2.png"]
    assert cv2.imread(str(tmp_path / "grey-L1R1.png")) is not None


@pytest.mark.parametrize(("args", "message"), [
    (["layout-sheet", "chess", "x.pdf"], "no deck called 'chess'"),
    (["layout-sheet", "duck", "x.txt"], "must end in .pdf or .png"),
    (["layout-sheet", "duck", "x.pdf", "--rows", "1"], "grid will not work"),
    (["enroll-layout", "duck", "a.jpg"], "LAYOUT:ROUND=PHOTO"),
    (["enroll-layout", "duck", "7:1=a.jpg"], "layout 7 does not exist"),
    (["enroll-layout", "duck", "1:3=a.jpg"], "round 3 does not exist"),
    (["enroll-layout", "duck", "1:1=nope.jpg"], "no such image"),
])
def test_bad_arguments_are_one_line(args: list[str], message: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        status = cli.main(args)
    err = capsys.readouterr().err
    assert status != 0 and message in err and "Traceback" not in err


def test_enroll_layout_reads_and_checks_rendered_photos(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = plan_layouts("grey")[0]
    args = []
    for round_ in (1, 2):
        path = tmp_path / f"r{round_}.jpg"
        cv2.imwrite(str(path), layout_photo(layout, round_, 40 + round_).image)
        args.append(f"1:{round_}={path}")
    status = cli.main(["--data-dir", str(tmp_path / "data"), "enroll-layout", "grey", *args,
                       "--check", "--annotated", str(tmp_path / "seen")])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("9 of 9 cards read") == 2
    assert "checked 9 cards of 'grey'; nothing was stored" in out
    assert "not photographed yet: grey-1" in out
    # The check ran: it passed, or it names cards to retake. The card model, asked first, may
    # still take a pale rendered yellow digit for its neighbour (docs/benchmarks.md).
    retakes = [line for line in out.splitlines() if line.startswith("retake ")]
    assert ("check: every photo was named right from the others" in out) != bool(retakes)
    assert all(line.startswith("retake yellow-") for line in retakes)
    assert sorted(p.name for p in (tmp_path / "seen").iterdir()) == [
        "layout1-round1.jpg", "layout1-round2.jpg"]
    assert not (tmp_path / "data" / "decks" / "grey").exists()

"""``ducktable replay-video``, ``calibrate`` and ``bench`` for every game kind: one
summary format, clear messages for what cannot be done, layouts for all five games."""

from __future__ import annotations

import json
import re

import cv2
import pytest
from ducktable.device import cli
from ducktable.sim import board_pictures
from ducktable.sim.table_video import TableRenderer
from ducktable.sim.table_video_bruce import bruce_layout
from ducktable.sim.table_video_grey import grey_layout
from ducktable.vision.layout import TableLayout

SUMMARY_KEYS = {"games", "exact_scores", "exact_rate", "event_accuracy_camera_alone", "entered_by_hand",
                "wrong_applied", "zone_read_accuracy", "tracker_ms_per_frame", "wall_s", "per_event"}


@pytest.mark.parametrize("game", ["grey", "bruce", "ducky", "sitting"])
def test_replay_video_prints_a_line_per_game_and_one_summary_for_every_game(game, capsys):
    assert cli.main(["replay-video", "--game", game, "--games", "1", "--seed", "2", "--json"]) == 0
    *games, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(games) == 1 and games[0]["game"] == game and games[0]["wrong_applied"] == 0
    assert set(summary) >= SUMMARY_KEYS and summary["games"] == 1 and summary["game"] == game
    assert summary["exact_scores"] == 1


def test_replay_video_for_people_shows_the_headline_and_every_event_type(capsys):
    assert cli.main(["replay-video", "--game", "bruce", "--games", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "bruce game 3 (3p, oracle): exact scores" in out
    assert "1/1 games with the exact scores" in out and "events by camera alone" in out
    assert "roll" in out and "stop" in out


def test_replay_video_of_all_kinds_prints_totals_per_kind_and_varies_the_card_games_players(capsys):
    """--game all: --games games of every kind (the card games at 3, 4, 5 players in turn), each
    kind's summary, then one line of totals per kind that adds up its games' lines."""
    assert cli.main(["replay-video", "--game", "all", "--games", "2", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    games = re.findall(r"^(\w+) game \d+ \((\d)p, oracle\): .*?, (\d+)/(\d+) events by camera, (\d+) pressed, "
                       r"(\d+) entered by hand, (\d+) wrong", out, re.MULTILINE)
    assert len(games) == 10
    for kind in ("duck", "grey", "bruce"):
        assert [g[1] for g in games if g[0] == kind] == ["3", "4"]
    table = out[out.index("per game kind:"):].splitlines()[2:]
    assert [row.split()[0] for row in table] == ["duck", "grey", "bruce", "ducky", "sitting"]
    for row in table:
        mine = [g for g in games if g[0] == row.split()[0]]
        camera, visible, pressed, hand, wrong = (sum(int(g[k]) for g in mine) for k in (2, 3, 4, 5, 6))
        cells = row.split()
        assert cells[1] == "2" and cells[3] == f"{camera}/{visible}"
        assert (cells[5], cells[7], cells[8]) == (str(wrong), str(hand), str(pressed))
    assert table[0].split()[2] == "3-4"
    assert int(table[1].split()[8]) > 0  # Grey Duck's Quacks: left to the phone by the rules, counted apart


@pytest.mark.parametrize("argv, words", [
    (["--game", "duck", "--players", "7"], "3 to 5 players"),
    (["--game", "grey", "--hold", "2"], "at least 3"),
    (["--game", "all", "--players", "5"], "ducky is for 2 to 4 players"),
    (["--game", "sitting", "--mode", "truth", "--clean-frames"], "for the card games"),
    (["--games", "0"], "at least 1"),
    (["--jobs", "0"], "at least 1"),
    (["--misread", "2"], "between 0 and 1"),
    (["--max-frames", "10"], "need --mode truth or model"),
    (["--game", "sitting", "--mode", "truth", "--snapshots", "x"], "card games"),
    (["--capture", "1920x1080"], "need --mode truth or model"),
    (["--mode", "truth", "--capture", "big"], "like 1920x1080"),
    (["--mode", "truth", "--capture", "10x10"], "between 320x180"),
])
def test_replay_video_refuses_what_it_cannot_do_with_a_clear_message(argv, words, capsys):
    assert cli.main(["replay-video", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("game, seed, frames", [("duck", 1, 120), ("sitting", 3, 50)])
def test_replay_video_takes_the_pictures_at_the_camera_size_asked_and_reads_them_as_run_does(
        game, seed, frames, capsys, tmp_path):
    """--capture 1920x1080: the same table with more pixels, read at 1280x720 with the cards cut
    from the full picture; the first events come out right. --write-frames keeps the pictures
    as taken."""
    argv = ["replay-video", "--game", game, "--mode", "truth", "--games", "1", "--seed", str(seed),
            "--max-frames", str(frames), "--capture", "1920x1080", "--json",
            "--write-frames", str(tmp_path)]
    assert cli.main(argv) == 0, capsys.readouterr().err
    run, _ = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert run["wrong_applied"] == 0 and run["camera_right"] >= 1
    written = sorted(tmp_path.glob("frame-*.jpg"))
    assert len(written) == run["frames"] >= frames and written[-1].name == f"frame-{len(written) - 1:05d}.jpg"
    assert cv2.imread(str(written[0])).shape == (1080, 1920, 3)


@pytest.mark.parametrize("game, picture", [
    ("grey", lambda: TableRenderer("grey", grey_layout(4), 3).empty_table()),
    ("bruce", lambda: TableRenderer("bruce", bruce_layout(4), 3).empty_table()),
    ("ducky", lambda: board_pictures.board_photo("river", 11).image),
    ("sitting", lambda: board_pictures.board_photo("line", 12).image),
])
def test_calibrate_saves_a_layout_for_every_game(game, picture, tmp_path, capsys):
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), picture())
    argv = ["--data-dir", str(tmp_path), "calibrate", str(photo), "--game", game, "--players", "4",
            "--table", game]
    assert cli.main(argv) == 0, capsys.readouterr().err
    saved = TableLayout.load(tmp_path / "calibration" / f"{game}.json")
    assert saved.homography is not None and len(saved.zones) > 5


def test_calibrate_saves_the_zones_the_camera_reader_uses(tmp_path, capsys):
    """Ducky Ducky's calibration holds each seat's piles and gifts beside the board (the
    reader needs them), and --empty-table keeps the picture to judge hands against."""
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), board_pictures.board_photo("river", 11).image)
    argv = ["--data-dir", str(tmp_path), "calibrate", str(photo), "--game", "ducky", "--players", "3",
            "--empty-table"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    saved = TableLayout.load(tmp_path / "calibration" / "default.json")
    names = {z.name for z in saved.zones}
    assert {"seat0.pile0", "seat2.gifts"} <= names and "seat3.pile0" not in names
    kept = cv2.imread(str(tmp_path / "calibration" / "default-empty.png"))
    assert kept is not None and kept.shape == cv2.imread(str(photo)).shape
    assert "empty table" in capsys.readouterr().out


def test_calibrate_refuses_a_player_count_the_game_does_not_have(tmp_path, capsys):
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), TableRenderer("grey", grey_layout(3), 3).empty_table())
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(photo), "--game", "grey",
                     "--players", "9"]) == 2
    assert "3 to 5 players" in capsys.readouterr().err


def test_bench_replay_and_boards_print_their_figures(capsys):
    assert cli.main(["bench", "replay", "--game", "sitting", "--oracle-games", "1", "--camera-games", "0",
                     "--json"]) == 0
    (summary,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(summary) >= SUMMARY_KEYS and summary["game"] == "sitting" and summary["mode"] == "oracle"
    assert cli.main(["bench", "boards", "--frames", "2"]) == 0
    out = capsys.readouterr().out
    assert "Ducky Ducky river cells" in out and "Sitting Ducks positions" in out
    assert cli.main(["bench", "replay", "--oracle-games", "0", "--camera-games", "0"]) == 2
    assert "nothing to replay" in capsys.readouterr().err


def test_calibrate_works_on_a_large_picture_at_the_size_the_camera_reader_reads(tmp_path, capsys):
    """A 1920 x 1080 picture (the Pi camera's main stream) is calibrated at 1280 x 720, as the
    reader works; the same view as the picture taken at 1280 x 720, and corners given by hand
    are in the picture's own pixels."""
    small = TableRenderer("grey", grey_layout(4), 3).empty_table()
    photo = tmp_path / "big.png"
    cv2.imwrite(str(photo), cv2.resize(small, (1920, 1080), interpolation=cv2.INTER_CUBIC))
    argv = ["--data-dir", str(tmp_path), "calibrate", str(photo), "--game", "grey", "--players", "4",
            "--empty-table"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    assert "1280x720" in capsys.readouterr().out
    kept = cv2.imread(str(tmp_path / "calibration" / "default-empty.png"))
    assert kept is not None and kept.shape == (720, 1280, 3)
    big = TableLayout.load(tmp_path / "calibration" / "default.json")
    cv2.imwrite(str(tmp_path / "small.png"), small)
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(tmp_path / "small.png"), "--game", "grey",
                     "--players", "4", "--table", "small"]) == 0
    plain = TableLayout.load(tmp_path / "calibration" / "small.json")
    assert big.homography is not None and plain.homography is not None
    corner = big.to_frame([[0.0, 0.0]])[0]
    assert abs(corner - plain.to_frame([[0.0, 0.0]])[0]).max() < 2.0
    by_hand = ",".join(f"{v * 1.5:g}" for v in (100, 100, 1100, 100, 1100, 600, 100, 600))
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(photo), "--game", "grey", "--players", "4",
                     "--table", "hand", "--corners", by_hand]) == 0
    hand = TableLayout.load(tmp_path / "calibration" / "hand.json")
    assert abs(hand.to_frame([[0.0, 0.0]])[0] - [100, 100]).max() < 0.5

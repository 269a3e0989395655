"""``ducktable replay-video``, ``calibrate`` and ``bench`` for every game kind (issue 5): one
summary format, clear messages for what cannot be done, layouts for all five games."""

from __future__ import annotations

import json

import cv2
import pytest
from ducktable.device import cli
from ducktable.vision import boards
from ducktable.vision.layout import TableLayout
from ducktable.vision.table_video import TableRenderer
from ducktable.vision.table_video_bruce import bruce_layout
from ducktable.vision.table_video_grey import grey_layout

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


@pytest.mark.parametrize("argv, words", [
    (["--game", "duck", "--players", "7"], "3 to 5 players"),
    (["--game", "grey", "--hold", "2"], "at least 3"),
    (["--games", "0"], "at least 1"),
    (["--jobs", "0"], "at least 1"),
    (["--misread", "2"], "between 0 and 1"),
    (["--max-frames", "10"], "need --mode truth or model"),
    (["--game", "sitting", "--mode", "truth", "--snapshots", "x"], "card games"),
])
def test_replay_video_refuses_what_it_cannot_do_with_a_clear_message(argv, words, capsys):
    assert cli.main(["replay-video", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("game, picture", [
    ("grey", lambda: TableRenderer("grey", grey_layout(4), 3).empty_table()),
    ("bruce", lambda: TableRenderer("bruce", bruce_layout(4), 3).empty_table()),
    ("ducky", lambda: boards.board_photo("river", 11).image),
    ("sitting", lambda: boards.board_photo("line", 12).image),
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
    cv2.imwrite(str(photo), boards.board_photo("river", 11).image)
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

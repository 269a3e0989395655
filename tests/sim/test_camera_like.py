"""Replays on camera-like pictures (vision/augment.py's capture model through the renderer), read
by the card path or by ``ducktable run``'s own reader, and ``replay-video``'s options for it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from ducktable.device import cli
from ducktable.sim import table_video
from ducktable.vision import augment
from ducktable.vision.layout import duck_layout


def test_a_cameras_look_is_drawn_within_its_ranges_and_the_same_seed_gives_the_same_picture():
    looks = [augment.CaptureLook.random(np.random.default_rng(seed)) for seed in range(40)]
    assert all(60 <= look.quality <= 95 and 0.8 <= look.gain <= 1.15 for look in looks)
    assert len({look.quality for look in looks}) > 10 and all(0.9 <= w <= 1.1 for look in looks for w in look.white)
    picture = np.full((72, 128, 3), 128, np.uint8)
    cv2.putText(picture, "8", (50, 55), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 200, 240), 3)
    look = augment.CaptureLook(gain=0.8, white=(1.1, 1.0, 0.9), focus_sigma=0.0, noise_sigma=3.0, quality=60)
    one = augment.capture(picture, look, np.random.default_rng(1))
    two = augment.capture(picture, look, np.random.default_rng(1))
    assert np.array_equal(one, two) and not np.array_equal(one, picture)
    grey = one[:20, :40].reshape(-1, 3).mean(axis=0)  # the plain part: exposure and white balance
    assert grey[0] == pytest.approx(128 * 0.8 * 1.1, abs=5) and grey[2] == pytest.approx(128 * 0.8 * 0.9, abs=5)
    assert one[:20, :40].std() > 1.5  # sensor noise


def test_replay_frames_are_camera_like_by_default_and_clean_when_asked():
    """The default frames differ from the clean renders by the camera's capture, the empty
    table's picture too; the clean frames are the renders of before."""
    layout = duck_layout(3)
    game = table_video.bot_game("duck", 1, 3)
    shots = table_video.script_for(game, 1)[:30]
    camera = table_video.CameraFrames("duck", shots, layout, seed=1).renderer()
    clean = table_video.CameraFrames("duck", shots, layout, seed=1, camera_like=False).renderer()
    assert camera.look is not None and clean.look is None
    taken, rendered = camera.frame(shots[20], 20), clean.frame(shots[20], 20)
    assert taken.shape == rendered.shape
    gap = np.abs(taken.astype(int) - rendered.astype(int)).mean()
    assert gap > 2, "the capture changed next to nothing"
    assert not np.array_equal(camera.empty_picture(), clean.empty_picture())
    assert np.array_equal(clean.empty_picture(), clean.empty_table())


def test_runs_own_reader_reads_the_camera_like_frames_as_the_replay_reader_does():
    """``reader="run"``: the pictures go through CameraTableReader, calibrated from the empty
    table saved as ``ducktable calibrate`` saves it; the first events come out the same and
    right as with the card path, and nothing wrong is recorded."""
    direct = table_video.camera_replay(1, labels="model", max_frames=45)
    as_run = table_video.camera_replay(1, labels="model", max_frames=45, reader="run")
    assert direct.wrong_applied == as_run.wrong_applied == 0, (direct.first_problem, as_run.first_problem)
    assert as_run.camera_in_video >= 2  # the deal and the first play at least
    assert abs(as_run.camera_in_video - direct.camera_in_video) <= 1
    assert as_run.cells_read > 100 and as_run.cells_right / as_run.cells_read > 0.9


@pytest.mark.parametrize("argv, words", [
    (["--game", "duck", "--mode", "truth", "--reader", "run"], "use --mode model"),
    (["--game", "sitting", "--mode", "model", "--reader", "run"], "card games"),
    (["--game", "ducky", "--mode", "model", "--clean-frames"], "always"),
    (["--game", "duck", "--clean-frames"], "need --mode truth or model"),
])
def test_replay_video_says_which_pictures_and_readers_go_together(argv, words, capsys):
    assert cli.main(["replay-video", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_replay_video_says_what_it_replays_and_how_far_a_game_is(capsys, monkeypatch):
    from ducktable.device import cli_table

    monkeypatch.setattr(cli_table, "PROGRESS_EVERY_S", 0.0)  # a line for every frame
    assert cli.main(["replay-video", "--game", "duck", "--mode", "truth", "--games", "1", "--seed", "3",
                     "--max-frames", "12", "--json"]) == 0
    err = capsys.readouterr().err
    assert "replaying 1 duck game(s) in truth mode (camera-like pictures)" in err
    shown = table_video.frames_shown(table_video.script_for(table_video.bot_game("duck", 3, 3), 3), 12)
    assert f"duck seed 3: frame {shown - 1} of {shown}" in err
    assert cli.main(["replay-video", "--game", "duck", "--mode", "truth", "--games", "1", "--seed", "3",
                     "--max-frames", "12", "--json", "--quiet", "--clean-frames"]) == 0
    assert capsys.readouterr().err == ""


def test_replay_video_reads_card_games_as_run_does_by_default_in_model_mode(capsys):
    """Model mode measures what the table does: the card games' pictures go through
    ``ducktable run``'s reader unless ``--reader replay`` asks for the card path."""
    assert cli.main(["replay-video", "--game", "bruce", "--mode", "model", "--games", "1", "--seed", "3",
                     "--max-frames", "6", "--json"]) == 0
    assert "read by run's reader" in capsys.readouterr().err
    assert cli.main(["replay-video", "--game", "bruce", "--mode", "model", "--games", "1", "--seed", "3",
                     "--max-frames", "6", "--json", "--reader", "replay"]) == 0
    assert "read by run's reader" not in capsys.readouterr().err

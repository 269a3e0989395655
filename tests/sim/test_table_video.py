"""Synthetic table videos of bot games replayed through tracker and inference.

The full 20-game figures come from ``ducktable replay-video``; these tests keep to a couple
of games so they stay fast.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from ducktable.device import cli
from ducktable.rules import make_game
from ducktable.rules.duck import DuckState
from ducktable.sim import table_video
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import duck_layout


def test_script_ends_with_the_true_final_table_and_covers_every_change():
    game = table_video.bot_game("duck", 3)
    state = make_game("duck").new_state(game.players)
    assert isinstance(state, DuckState)
    shots = table_video.duck_script(state, game.events, random.Random(3))
    assert state.is_over() and tuple(state.scores()) == game.scores
    assert shots[-1].event_index == len(game.events)
    for before, after in zip(shots, shots[1:], strict=False):
        changed = {name for (name, a), (_, b) in zip(before.zones, after.zones, strict=True) if a != b}
        assert changed <= after.covered, "a zone changed with no hand over it"


def test_the_round_end_hands_lie_shown_while_they_are_counted():
    """DUCK-B2, B3, E1, E2: the players sum every shown hand and tuck their highest cards
    before the hands are swept up; the script leaves them on the table that long."""
    game = table_video.bot_game("duck", 3)
    shots = table_video.script_for(game, 3, hold=5)
    assert table_video.REVEAL_HOLD >= 1.5 * table_video.FPS
    reveals = [k for k, e in enumerate(game.events) if e.type == "reveal"]
    assert reveals
    for k in reveals:
        hands = {f"seat{s}.reveal": tuple(h) for s, h in enumerate(game.events[k].data["hands"]) if h}
        frames = [i for i, shot in enumerate(shots) if shot.event_index == k + 1]
        shown = [i for i in frames if all(sorted(shots[i].contents()[z]) == sorted(h) for z, h in hands.items())
                 and not hands.keys() & shots[i].covered]
        swept = next(i for i in frames if set(hands) <= shots[i].covered and i > shown[0])
        assert len([i for i in shown if i < swept]) >= table_video.REVEAL_HOLD - 3  # stray hands aside


def test_a_video_cut_short_plays_on_until_the_next_event_begins():
    """An event counts from its hand's first frame, before the table shows its change: a cut
    there would count an event the camera was never shown. The video plays on through the
    change and the still table after it, and stops where the next event begins."""
    game = table_video.bot_game("duck", 3)
    shots = table_video.script_for(game, 3)
    begins = [i for i in range(1, len(shots)) if shots[i].event_index > shots[i - 1].event_index]
    cut = begins[3] + 1  # the fourth event's hand has just come in
    end = table_video.frames_shown(shots, cut)
    assert end == begins[4]
    assert shots[end - 1].event_index == shots[cut - 1].event_index
    assert shots[end - 1].contents() != shots[cut - 1].contents()  # its change is shown
    assert table_video.frames_shown(shots, begins[4]) == begins[4]  # a cut where one begins: no more
    assert table_video.frames_shown(shots, None) == table_video.frames_shown(shots, 10**6) == len(shots)


def test_DUCK_F1_oracle_replay_reproduces_events_and_scores_exactly():
    for seed in (1, 6):
        result = table_video.oracle_replay(seed, misread=0.02)
        assert result.wrong_applied == 0, result.first_problem
        assert result.exact_scores and result.seen_scores == result.true_scores
        assert result.camera_right + result.confirmed == result.true_events


def test_a_replay_the_rules_stop_keeps_what_it_counted(monkeypatch):
    """A true event refused (the game cannot go on) ends the replay with its figures, a wrong
    camera event included, instead of losing them with the game."""
    def refused(follower, truth, result, camera_on=True):
        result.wrong_applied += 1  # as a camera event the refusal traced back to would be
        raise RuntimeError("event #0: the true event was refused")

    monkeypatch.setattr(table_video, "_confirm", refused)
    result = table_video.oracle_replay(6, misread=0.02)  # a game where the person steps in
    assert result.wrong_applied == 1 and not result.exact_scores
    assert result.frames > 0 and result.camera_right > 0


@pytest.mark.parametrize("players, seed, misread", [
    (4, 8, 0.02),  # a set stacked on a pile still read as before the hand: wrong card on top
    (4, 73, 0.05),  # a play onto the card below the top taken for a take from that pile
    (4, 76, 0.05),  # three shown cards never agreed on, then read as a single-card play
    (3, 88, 0.05),  # a pending draw dropped when its evidence went, the table moved on
    (3, 18, 0.05),  # plays held until the pile was read after a person's entry: the camera fell
    (4, 53, 0.05),  # behind for good and caught up from stale table moments (draw, then a set)
])
def test_oracle_replays_that_once_applied_a_wrong_event_now_apply_none(players, seed, misread):
    """Games where an earlier version applied an event the true log does not contain: an
    unsure read must become an event waiting for a person, never a wrong one."""
    result = table_video.oracle_replay(seed, players=players, misread=misread)
    assert result.wrong_applied == 0, result.first_problem
    assert result.exact_scores


def test_rendered_frames_read_back_through_detector_and_zones(tmp_path):
    """A few seconds of a real rendered game: calibration from the pasted markers, then
    every zone read with no hand over it matches the script. The reads are kept, and a
    second replay uses them instead of rendering again."""
    result = table_video.camera_replay(2, max_frames=60, snapshots_dir=str(tmp_path))
    assert result.wrong_applied == 0, result.first_problem
    assert result.camera_right >= 3  # deal, first play and draw at least
    assert result.cells_read > 100 and result.cells_right / result.cells_read > 0.98
    (kept,) = tmp_path.iterdir()
    shown = table_video.frames_shown(table_video.script_for(table_video.bot_game("duck", 2, 3), 2), 60)
    assert 60 <= shown == len(table_video.read_snapshots(kept))
    again = table_video.camera_replay(2, max_frames=60, snapshots_dir=str(tmp_path))
    assert "render" not in again.seconds and again.cells_right == result.cells_right
    assert again.camera_right == result.camera_right


def test_renderer_homography_matches_the_markers_it_pastes():
    layout = duck_layout(3)
    renderer = table_video.TableRenderer("duck", layout, background_seed=4)
    cal = calibrate_from_markers(layout, renderer.empty_table())
    centre = np.array([[640.0, 360.0]])
    truth = table_video._map(renderer.homography, (640.0, 360.0))
    assert np.abs(cal.layout.to_frame(centre)[0] - truth).max() < 1.5


def test_cli_markers_calibrate_and_oracle_replay(tmp_path, capsys):
    sheet = tmp_path / "m.pdf"
    assert cli.main(["markers", "--out", str(sheet)]) == 0 and sheet.read_bytes().startswith(b"%PDF")
    assert cli.main(["markers", "--out", str(tmp_path / "m.txt")]) == 2
    import cv2

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table_video.TableRenderer("duck", duck_layout(3), 5).empty_table())
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(photo), "--table", "kitchen"]) == 0
    assert (tmp_path / "calibration" / "kitchen.json").exists()
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(tmp_path / "nope.png")]) == 2
    assert cli.main(["--data-dir", str(tmp_path), "calibrate", str(photo), "--corners", "1,2,3"]) == 2
    assert cli.main(["replay-video", "--games", "1", "--seed", "6", "--json"]) == 0
    out = capsys.readouterr()
    assert '"exact_scores": 1' in out.out and "cannot read the picture" in out.err


def test_a_table_taken_at_more_pixels_is_the_same_table_and_reads_the_same_at_the_readers_size():
    """``capture_size`` renders the same table and view at 1920 x 1080 (a camera mode with more
    pixels): calibrated from its 1280 x 720 reading view, the zones land where the 1280 x 720
    picture has them, and the cards come out half as large again in the full picture."""
    from ducktable.vision.detect import detect_cards
    from ducktable.vision.reader import reading_view

    layout = duck_layout(3)
    game = table_video.bot_game("duck", 1, 3)
    shot = table_video.script_for(game, 1)[600]
    small = table_video.TableRenderer("duck", layout, background_seed=1)
    large = table_video.TableRenderer("duck", layout, background_seed=1, capture_size=(1920, 1080))
    picture = large.frame(shot, 600)
    assert picture.shape == (1080, 1920, 3) and small.frame(shot, 600).shape == (720, 1280, 3)
    view, detail = reading_view(large.empty_table())
    assert detail is not None and view.shape == (720, 1280, 3)
    here = calibrate_from_markers(layout, view).layout
    there = calibrate_from_markers(layout, small.empty_table()).layout
    middle = [[layout.size[0] / 2, layout.size[1] / 2]]
    assert np.abs(here.to_frame(middle) - there.to_frame(middle)).max() < 1.5
    cards_small = sorted(float(np.linalg.norm(d.quad[1] - d.quad[0])) for d in detect_cards(small.frame(shot, 600)))
    cards_large = sorted(float(np.linalg.norm(d.quad[1] - d.quad[0])) for d in detect_cards(picture, max_side=1920))
    assert len(cards_small) == len(cards_large) > 0
    assert all(abs(b / a - 1.5) < 0.1 for a, b in zip(cards_small, cards_large, strict=True))

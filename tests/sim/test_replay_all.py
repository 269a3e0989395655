"""Every game kind's bot-game replay behind one call and one result format, and
the cheaper rendering of replay frames (same pixels as before, made once where they repeat).

The full figures come from ``ducktable replay-video`` and ``ducktable bench replay``; these
tests replay one oracle game per kind and a few dozen rendered frames."""

from __future__ import annotations

import numpy as np
import pytest
from ducktable.sim import board_pictures, game_replays, scene, table_video
from ducktable.vision import boards
from ducktable.vision.layout import duck_layout


@pytest.mark.parametrize("game", game_replays.GAMES)
def test_oracle_replay_of_every_game_reproduces_the_scores_and_accounts_for_every_event(game):
    """DUCK-F1 and its kin for every game: each true event reached the engine exactly once, by
    the camera, by a button press or by a person, and per-type counts add up to the totals."""
    run = game_replays.replay_game(game, 1, "oracle")
    assert run.wrong_applied == 0, run.first_problem
    assert run.exact
    assert run.camera_right + run.pressed + run.confirmed == run.true_events
    for outcome, total in (("camera", run.camera_right), ("pressed", run.pressed),
                           ("confirmed", run.confirmed), ("true", run.true_events)):
        assert sum(counts[outcome] for counts in run.by_type.values()) == total, outcome
    assert run.frames > 0 and 0.9 < run.cells_right / run.cells_read <= 1.0
    assert run.seconds["follow"] > 0


def test_summary_of_several_games_adds_their_figures():
    runs = [game_replays.replay_game("bruce", seed, "oracle") for seed in (2, 3)]
    summary = game_replays.summarise(runs, wall_s=1.0)
    assert summary["games"] == 2 and summary["exact_scores"] == sum(r.exact for r in runs)
    assert summary["true_events"] == sum(r.true_events for r in runs)
    assert summary["camera_could_apply"] == summary["true_events"] - summary["pressed"]
    assert summary["event_accuracy_camera_alone"] == round(
        sum(r.camera_right for r in runs) / summary["camera_could_apply"], 4)
    assert sum(c["true"] for c in summary["per_event"].values()) == summary["true_events"]
    assert summary["per_event"]["roll"]["pressed"] == summary["per_event"]["roll"]["true"]  # BRUCE: told by hand
    text = game_replays.format_summary(summary)
    assert "2/2 games" in text or f"{summary['exact_scores']}/2 games" in text
    assert "roll" in text and "all pressed" in text


def test_games_spread_over_processes_give_the_same_figures():
    alone = [r.line() for r in game_replays.run_games("sitting", "oracle", [4, 5])]
    spread = [r.line() for r in game_replays.run_games("sitting", "oracle", [4, 5], jobs=2)]
    for a, b in zip(alone, spread, strict=True):
        a.pop("seconds"), b.pop("seconds")
        assert a == b


def test_a_benchmark_run_seats_3_to_5_players_in_every_game_kind():
    """``--game all`` measures tables of 3-5: the card games go round 3, 4 and 5; Ducky Ducky's
    2-player seeds sit 3, Sitting Ducks' 6-player seeds sit 5, other seeds keep their count."""
    seeds = range(10, 22)
    for game in game_replays.GAMES:
        counts = [game_replays.varied_players(game, seed, k) for k, seed in enumerate(seeds)]
        assert set(counts) <= {3, 4, 5}, (game, counts)
    assert [game_replays.varied_players("duck", 0, k) for k in range(4)] == [3, 4, 5, 3]
    assert [game_replays.varied_players("ducky", s, 0) for s in (12, 13, 14)] == [3, 3, 4]
    assert [game_replays.varied_players("sitting", s, 0) for s in (10, 11, 12)] == [5, 5, 3]


@pytest.mark.parametrize("game, mode, players, hold, words", [
    ("duck", "oracle", 6, None, "3 to 5 players"),
    ("ducky", "oracle", 5, None, "2 to 4 players"),
    ("grey", "oracle", None, 2, "at least 3"),
    ("chess", "oracle", None, None, "choose one of"),
])
def test_replays_that_cannot_be_made_say_what_can(game, mode, players, hold, words):
    with pytest.raises(game_replays.ReplayUnavailable, match=words):
        game_replays.replay_game(game, 0, mode, players=players, hold=hold)


def test_a_longer_hold_only_adds_still_frames():
    """``hold`` changes how long the table stays still after each change, nothing else: the
    same events and scores, more frames."""
    short = game_replays.replay_game("duck", 2, "oracle", hold=4, misread=0.0)
    long = game_replays.replay_game("duck", 2, "oracle", hold=6, misread=0.0)
    assert short.true_events == long.true_events and short.exact and long.exact
    assert long.frames > short.frames


def test_a_video_cut_short_counts_the_camera_only_on_the_events_it_shows():
    run = game_replays.replay_game("sitting", 3, "truth", max_frames=50)
    assert 50 <= run.frames < 80 and run.cut  # on to where the next event begins
    assert 0 < run.events_shown < run.true_events
    assert run.camera_shown <= run.visible_shown
    assert run.wrong_applied == 0, run.first_problem
    assert run.cells_read > 100 and run.cells_right / run.cells_read > 0.98  # the line, read from pixels


def test_rendered_bruce_frames_read_back_through_detector_and_zones(tmp_path):
    """Calibration from the pasted markers, zones and true labels work for Bruce's layout:
    nearly every zone no hand covers reads as the script says (the detector's own accuracy
    is measured by ``ducktable bench vision``). The reads are kept, and the second replay
    follows the game from them without rendering a frame."""
    run = game_replays.replay_game("bruce", 4, "truth", max_frames=40, snapshots_dir=str(tmp_path))
    assert run.wrong_applied == 0, run.first_problem
    assert run.cells_read > 100 and run.cells_right / run.cells_read > 0.9
    assert {"detect", "render", "follow"} <= set(run.seconds)
    (kept,) = tmp_path.iterdir()
    assert kept.name.startswith("bruce-3p-seed4-") and len(kept.read_text().splitlines()) == run.frames >= 40
    again = game_replays.replay_game("bruce", 4, "truth", max_frames=40, snapshots_dir=str(tmp_path))
    assert "render" not in again.seconds and "cached_reads" in again.seconds
    assert (again.cells_right, again.camera_right, again.true_events) == (run.cells_right, run.camera_right,
                                                                          run.true_events)


def test_table_renderer_lays_cards_exactly_as_compose_scene_does():
    """The renderer keeps the table's cover and light between contents: the pixels must stay
    those of compose_scene with the same seeds."""
    renderer = table_video.TableRenderer("duck", duck_layout(3), background_seed=9)
    cards = [scene.Placement("duck/yellow-5", (400.0, 300.0), 3.0, 0.8),
             scene.Placement("duck/back", (800.0, 420.0), -2.0, 0.8)]
    mine = renderer.compose(cards, effects_seed=77)
    theirs = scene.compose_scene(9, cards, 77, tilt_deg=4.0)
    assert np.array_equal(mine.image, theirs.image)
    assert all(np.allclose(a, b.quad) for a, b in zip([c.quad for c in mine.cards], theirs.cards, strict=True))


def test_board_photograph_from_a_kept_view_is_the_same_photograph():
    rng = np.random.default_rng(3)
    content = board_pictures.LineContent.random(rng)
    plane = board_pictures.draw_line(content, boards.LineBoard(), rng)
    view = board_pictures.random_view(np.random.default_rng(4))
    fresh, fresh_mask = board_pictures.photograph(plane, view, np.random.default_rng(5), hands=[(400.0, 300.0)])
    kept = board_pictures.view_of(plane, view)
    before = kept.copy()
    again, again_mask = board_pictures.photograph(None, view, np.random.default_rng(5), hands=[(400.0, 300.0)],
                                                  seen=kept)
    assert np.array_equal(fresh, again) and np.array_equal(fresh_mask, again_mask)
    assert np.array_equal(kept, before)  # the kept view is not drawn on
    with pytest.raises(ValueError, match="plane"):
        board_pictures.photograph(None, view, np.random.default_rng(5))


def test_card_games_are_taken_at_the_pi_cameras_size_unless_asked_otherwise(tmp_path):
    """The Pi camera's main stream is 1920 x 1080 and `run` cuts the cards from it: rendered card
    games are taken so by default (the kept reads name the size), and at another size when asked."""
    game_replays.replay_game("grey", 2, "truth", max_frames=4, snapshots_dir=str(tmp_path / "default"))
    game_replays.replay_game("grey", 2, "truth", max_frames=4, snapshots_dir=str(tmp_path / "small"),
                             capture_size=(1280, 720))
    (default,) = (tmp_path / "default").iterdir()
    (small,) = (tmp_path / "small").iterdir()
    assert game_replays.CAMERA_SIZE == (1920, 1080)
    assert "-at1920x1080" in default.name and "-at1280x720" in small.name

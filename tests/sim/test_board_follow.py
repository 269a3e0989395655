"""The board games' follow loop (``sim/board_games.follow``) once the video is over."""

from __future__ import annotations

from ducktable.sim import board_games


def test_after_the_video_a_person_enters_the_rest_and_the_stopped_camera_adds_nothing():
    """With no frame at all, the camera's (empty) picture says nothing of the game: every
    event is the person's, none is inferred from the last picture, and the game ends right."""
    for game in ("sitting", "ducky"):
        truth = board_games.bot_game(game, 3)
        result = board_games.follow(truth, iter(()), seed=3)
        assert result.camera_right == 0 and result.wrong_applied == 0, (game, result.first_problem)
        assert result.confirmed == result.true_events and result.exact, (game, result.first_problem)

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


def _blind_frames(events: int, per_event: int):
    """A camera that shows nothing at all (no zone read) while the table plays one event every
    ``per_event`` frames: each frame with how many true events had happened by then."""
    from ducktable.rules.snapshot import TableSnapshot

    frame = 0
    for happened in range(1, events + 1):
        for _ in range(per_event):
            yield TableSnapshot(frame * 100, {}, frame), happened
            frame += 1



def test_a_person_enters_what_the_camera_never_shows_while_the_video_runs():
    """The camera lags the table with nothing pending: once an event happened ``lag_frames``
    frames ago, the person enters it then, not only after the video; every event so entered
    is the true one, and the game ends right."""
    for game in ("sitting", "ducky"):
        truth = board_games.bot_game(game, 5)
        n = len(truth.events)
        result = board_games.follow(truth, _blind_frames(n, 30), seed=5, lag_frames=20)
        assert result.wrong_applied == 0 and result.exact, (game, result.first_problem)
        assert result.camera_in_video + result.hand_in_video == n, (game, result)
        assert result.hand_in_video > 0
        if game == "ducky":  # (its inferrer reads nothing from empty zones)
            assert result.camera_right == 0


def test_a_person_enters_an_event_the_camera_does_not_show_lag_frames_after_it_happened():
    """Each event waits exactly ``lag_frames`` frames for the camera: with one event every 30
    frames and a lag of 90, the events of the video's last 90 frames are left for after it."""
    truth = board_games.bot_game("ducky", 5)
    n = len(truth.events)
    result = board_games.follow(truth, _blind_frames(n, 30), seed=5, lag_frames=90)
    assert result.hand_in_video == n - 3 and result.confirmed == n and result.exact, result.first_problem
    late = board_games.follow(truth, _blind_frames(n, 30), seed=5, lag_frames=30 * n + 1)
    assert late.hand_in_video == 0 and late.confirmed == n and late.exact, late.first_problem

"""Every game kind's synthetic bot-game replay behind one call, with one result format.

Why this module exists: each game has its own script and replay (:mod:`.table_video` for
DUCK, :mod:`.table_video_grey`, :mod:`.table_video_bruce`, :mod:`.boards` for Ducky Ducky and
Sitting Ducks), each counting a little differently. ``ducktable replay-video`` and
``ducktable bench replay`` need the same figures for all five: how many games ended with the
true scores, how many events the camera applied alone (per event type), how many a person
entered, how many were wrong, how well zones were read and what tracking cost. This module
picks the right replay for a game and mode, turns its result into :class:`GameReplay`, sums
many games (:func:`summarise`) and can spread games over processes (:func:`run_games`).

Modes: ``oracle`` reads each frame straight from the script (true labels with a share
``misread`` wrong); ``truth`` renders the frames and reads them with the real detector (card
games, Sitting Ducks' played pile) or board reader (Ducky Ducky's river, the Sitting Ducks
line), taking the true labels of the cards found; ``model`` reads the cards with the shipped
classifier. Ducky Ducky's piles and gifts are drawn and read (by the camera reader's card
zones) in ``model`` mode only; in ``truth`` mode they come from the script.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from ducktable.rules import make_game

GAMES = ("duck", "grey", "bruce", "ducky", "sitting")
CARD_GAMES = ("duck", "grey", "bruce")
CAMERA_SIZE = (1920, 1080)
"""The Pi camera's main stream (``device.camera.PiCameraSource``): the card games' pictures are
taken at this size unless asked otherwise, and read as ``ducktable run`` reads them (the table at
1280 x 720, each card cut from the full picture). Taken at 1280 x 720, a DUCK card is about
50 x 75 pixels and its yellow digits a few pixels high: the classifier then misnames about one
crop in ten on camera-like pictures, against one in forty at this size."""
MODES = ("oracle", "truth", "model")
READERS = ("replay", "run")
"""How rendered card-game pictures are read: by the card path directly, or by ``ducktable run``'s
reader (see :class:`~ducktable.sim.table_video.CameraFrames`)."""
OUTCOMES = ("true", "camera", "pressed", "confirmed", "wrong")
DEFAULT_HOLD = {"duck": 5, "grey": 5, "bruce": 5, "ducky": 6, "sitting": 8}
"""Frames the table stays still after each change in each game's script (at 15 frames/s)."""
MIN_HOLD = 3
"""The stability tracker settles a change on 3 agreeing frames (of a window of 5): a script
holding the table still for fewer would test a faster table than the tracker is meant for."""


class ReplayUnavailable(ValueError):
    """The asked game, mode or player count cannot be replayed; the message says what can."""


@dataclass
class GameReplay:
    """One replayed game against its truth, the same fields for every game kind."""

    game: str
    mode: str
    seed: int
    players: int
    true_events: int
    camera_right: int = 0  # applied by the camera alone, and right
    pressed: int = 0  # entered by button or phone, as the table convention says (no camera event)
    confirmed: int = 0  # the camera held it back or missed it: a person confirmed or entered it
    wrong_applied: int = 0  # the camera applied an event the true log does not have
    exact: bool = False  # final scores as in the truth and nothing wrong applied
    frames: int = 0
    cells_read: int = 0
    cells_right: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)
    first_problem: str = ""
    events_shown: int = -1  # true events the frames shown reach (less when cut by max_frames)
    pressed_shown: int = -1  # of those, pressed ones
    camera_in_video: int = 0  # camera_right when the frames ran out, before a person entered the rest
    hand_in_video: int = 0  # confirmed, likewise
    pending_episodes: int = 0  # times the camera held an event back for a person
    mended: int = 0  # wrong events mended later (by the camera itself or a person's one tap)

    def __post_init__(self) -> None:
        if self.events_shown < 0:
            self.events_shown = self.true_events
        if self.pressed_shown < 0:
            self.pressed_shown = self.pressed

    @property
    def visible_shown(self) -> int:
        """True events the camera could have applied in the frames shown: those the script had
        made by the last frame, or, where more reached the engine by then (events that follow
        from the rules alone, such as a forced draw), those."""
        shown = self.events_shown - self.pressed_shown
        return max(shown, self.camera_in_video + self.hand_in_video) if self.cut else shown

    @property
    def cut(self) -> bool:
        """Whether the video stopped before the game ended (``max_frames``)."""
        return self.events_shown < self.true_events

    @property
    def camera_shown(self) -> int:
        """Events the camera applied alone while the frames lasted (all of them for a whole
        game, where a person's late entries may let it apply a few more)."""
        return self.camera_in_video if self.cut else self.camera_right

    def line(self) -> dict[str, Any]:
        """The game's JSON line."""
        out = asdict(self)
        out["seconds"] = {k: round(v, 3) for k, v in self.seconds.items()}
        if not self.first_problem:
            del out["first_problem"]
        return out


def player_range(game: str) -> tuple[int, int]:
    g = make_game(game)
    return g.min_players, g.max_players


def check(game: str, mode: str, players: int | None) -> None:
    """Raise :class:`ReplayUnavailable` unless ``game`` can be replayed so."""
    if game not in GAMES:
        raise ReplayUnavailable(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    if mode not in MODES:
        raise ReplayUnavailable(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    low, high = player_range(game)
    if players is not None and not low <= players <= high:
        raise ReplayUnavailable(f"{game} is for {low} to {high} players, not {players}")


def check_reading(game: str, mode: str, *, clean_frames: bool = False, reader: str = "replay") -> None:
    """Raise :class:`ReplayUnavailable` unless ``game``'s pictures can be taken and read so."""
    if reader not in READERS:
        raise ReplayUnavailable(f"unknown reader {reader!r}; choose one of {', '.join(READERS)}")
    if reader == "run" and (mode != "model" or game in ("ducky", "sitting")):
        raise ReplayUnavailable("--reader run reads the card games' pictures (duck, grey, bruce) with the "
                                "classifier: use --mode model (the board games are read by run's board "
                                "and card-zone readers already)")
    if clean_frames and game in ("ducky", "sitting"):
        raise ReplayUnavailable("--clean-frames is for the card games: the board games' pictures are always "
                                "photographed (light, blur, noise, JPEG)")


def replay_game(game: str, seed: int, mode: str = "oracle", *, players: int | None = None,
                misread: float = 0.02, hold: int | None = None, max_frames: int | None = None,
                frames_dir: str | None = None, snapshots_dir: str | None = None,
                capture_size: tuple[int, int] | None = None, clean_frames: bool = False,
                reader: str = "replay") -> GameReplay:
    """One bot game of ``game`` replayed in ``mode`` (see the module docstring). ``players``
    None: 3 for the card games, chosen by the seed for the board games. ``hold`` None: the
    game's own (:data:`DEFAULT_HOLD`). ``misread`` applies in oracle mode and to the board
    games' card piles. ``frames_dir`` keeps the rendered frames as JPEGs; ``snapshots_dir``
    (DUCK only) keeps the camera's reads for the next run. ``capture_size`` (truth and model
    modes) takes the pictures at that size and reads them as ``ducktable run`` does: at the
    size the table is calibrated at (1280 x 720; Ducky Ducky's whole picture), the cards cut
    from the full picture. The card games' pictures go through a camera's capture (exposure,
    white balance, focus, noise, JPEG: :class:`~ducktable.vision.augment.CaptureLook`) unless
    ``clean_frames``; the board games' always do (their own ``photograph``). ``capture_size``
    None: the card games' pictures are taken at :data:`CAMERA_SIZE`, the board games' at the
    size their table is read at. ``reader`` "run":
    the card games' pictures are read by ``ducktable run``'s own reader (model mode)."""
    check(game, mode, players)
    held = DEFAULT_HOLD[game] if hold is None else hold
    if held < MIN_HOLD:
        raise ReplayUnavailable(f"--hold must be at least {MIN_HOLD} frames (the tracker needs "
                                f"{MIN_HOLD} agreeing frames to settle a change), not {held}")
    if snapshots_dir is not None and game in ("ducky", "sitting"):
        raise ReplayUnavailable("keeping the camera's reads (--snapshots) works for the card games (duck, grey, "
                                "bruce); the board games' reads are quick to take again")
    if frames_dir is not None and mode == "oracle":
        raise ReplayUnavailable("frames are written in truth and model modes: the oracle draws no pictures")
    if capture_size is not None and mode == "oracle":
        raise ReplayUnavailable("--capture works in truth and model modes: the oracle reads no pictures")
    check_reading(game, mode, clean_frames=clean_frames, reader=reader)
    if capture_size is None and mode != "oracle" and game in CARD_GAMES:
        capture_size = CAMERA_SIZE
    start = time.perf_counter()
    if game in ("ducky", "sitting"):
        result = _board_game(game, seed, mode, players, misread, hold, max_frames, capture_size, frames_dir)
    else:
        result = _card_game(game, seed, mode, 3 if players is None else players, misread, held,
                            max_frames, frames_dir, snapshots_dir, capture_size,
                            camera_like=not clean_frames, reader=reader)
    result.seconds["game"] = time.perf_counter() - start
    if max_frames is not None and mode != "oracle":
        result.events_shown, result.pressed_shown = _shown(game, seed, result.players, hold, max_frames)
    return result


def _shown(game: str, seed: int, players: int, hold: int | None, frames: int) -> tuple[int, int]:
    """How many true events (and of them, button presses) happen in the first ``frames`` frames
    of the game's script: what a video cut there can show."""
    import random

    if game in ("ducky", "sitting"):
        from ducktable.sim import board_games

        shots = board_games.script_for(board_games.bot_game(game, seed, players), seed, hold=hold)
        return shots[min(frames, len(shots)) - 1].event_index, 0
    held = DEFAULT_HOLD[game] if hold is None else hold
    if game == "duck":
        from ducktable.sim import table_video

        duck = table_video.bot_game("duck", seed, players)
        duck_shots = table_video.script_for(duck, seed, hold=held)
        return duck_shots[min(frames, len(duck_shots)) - 1].event_index, 0
    if game == "grey":
        from ducktable.sim import table_video_grey

        grey, happenings = table_video_grey.grey_bot_game(seed, players)
        script = table_video_grey.grey_script(grey, happenings, random.Random(seed), hold=held)
    else:
        from ducktable.sim import table_video_bruce

        bruce = table_video_bruce.bruce_bot_game(seed, players)
        script = table_video_bruce.bruce_script(bruce, random.Random(seed), hold=held)
    shown = script.shots[min(frames, len(script.shots)) - 1].event_index
    return shown, sum(p.index < shown for p in script.presses)


def _card_game(game: str, seed: int, mode: str, players: int, misread: float, hold: int,
               max_frames: int | None, frames_dir: str | None, snapshots_dir: str | None,
               capture_size: tuple[int, int] | None = None, *, camera_like: bool = True,
               reader: str = "replay") -> GameReplay:
    from ducktable.sim import table_video, table_video_bruce, table_video_grey

    labels = "model" if mode == "model" else "truth"
    if game == "duck":
        if mode == "oracle":
            duck = table_video.oracle_replay(seed, players=players, misread=misread, hold=hold)
        else:
            duck = table_video.camera_replay(seed, players=players, labels=labels, max_frames=max_frames,
                                             frames_dir=frames_dir, snapshots_dir=snapshots_dir, hold=hold,
                                             capture_size=capture_size, camera_like=camera_like, reader=reader)
        return _replay(game, mode, seed, players, duck, pressed=0, exact=duck.exact_scores, by_type=duck.by_type)
    module = table_video_grey if game == "grey" else table_video_bruce
    if mode == "oracle":
        script = module.oracle_replay(seed, players=players, misread=misread, hold=hold)
    else:
        script = module.camera_replay(seed, players=players, labels=labels, max_frames=max_frames,
                                      frames_dir=frames_dir, hold=hold, snapshots_dir=snapshots_dir,
                                      capture_size=capture_size, camera_like=camera_like, reader=reader)
    return _replay(game, mode, seed, players, script, pressed=script.pressed, exact=script.exact_scores,
                   by_type={k: t.to_json() for k, t in script.by_type.items()})


def _board_game(game: str, seed: int, mode: str, players: int | None, misread: float,
                hold: int | None, max_frames: int | None,
                capture_size: tuple[int, int] | None = None, frames_dir: str | None = None) -> GameReplay:
    from ducktable.sim import board_games

    if mode == "oracle":
        board = board_games.oracle_follow(game, seed, misread=misread, players=players, hold=hold)
    else:
        board = board_games.camera_follow(game, seed, misread=misread, players=players, hold=hold,
                                     max_frames=max_frames, piles=mode, capture_size=capture_size,
                                     frames_dir=frames_dir)
    n = players if players is not None else board_games.default_players(game, seed)
    return _replay(game, mode, seed, n, board, pressed=0, exact=board.exact, by_type=board.by_type)


def _replay(game: str, mode: str, seed: int, players: int, result: Any, *, pressed: int, exact: bool,
            by_type: dict[str, dict[str, int]]) -> GameReplay:
    """One game's figures from the result of any game's replay (they share these fields)."""
    return GameReplay(
        game, mode, seed, players, result.true_events, result.camera_right, pressed, result.confirmed,
        result.wrong_applied, exact, result.frames, result.cells_read, result.cells_right,
        dict(result.seconds), _outcomes(by_type), result.first_problem,
        camera_in_video=result.camera_in_video, hand_in_video=result.hand_in_video,
        pending_episodes=result.pending_episodes, mended=getattr(result, "mended", 0))


def _outcomes(by_type: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {kind: {name: int(counts.get(name, 0)) for name in OUTCOMES}
            for kind, counts in sorted(by_type.items())}


# ---- many games ---------------------------------------------------------------------------------

def _replay_kwargs(kwargs: dict[str, Any]) -> GameReplay:
    from ducktable.sim import table_video

    kwargs = dict(kwargs)
    table_video.PROGRESS_EVERY_S = kwargs.pop("progress_s", None)  # this process's games say how far they are
    return replay_game(**kwargs)


MEASURED_PLAYERS = (3, 4, 5)


def varied_players(game: str, seed: int, k: int) -> int:
    """Players of the ``k``-th game (seed ``seed``) of a benchmark run: within
    :data:`MEASURED_PLAYERS` and the game's own range."""
    low, high = player_range(game)
    counts = [n for n in MEASURED_PLAYERS if low <= n <= high]
    if game in CARD_GAMES:
        return counts[k % len(counts)]
    from ducktable.sim import board_games

    return min(max(board_games.default_players(game, seed), counts[0]), counts[-1])


def run_games(game: str, mode: str, seeds: Sequence[int], *, jobs: int = 1, vary_players: bool = False,
              **options: Any) -> Iterator[GameReplay]:
    """Replay one game per seed (in seed order), over ``jobs`` processes when above 1. A game
    that stops on an engine refusal is yielded with ``first_problem`` saying so.
    ``vary_players`` with no ``players``: every game has 3 to 5 players, the table sizes the
    benchmark is measured at. The card games go through 3, 4 and 5 game by game; the board games
    keep the seed's count (:func:`board_games.default_players`) held within 3-5."""
    check(game, mode, options.get("players"))
    calls = [{"game": game, "seed": seed, "mode": mode, **options} for seed in seeds]
    if vary_players and options.get("players") is None:
        for k, call in enumerate(calls):
            call["players"] = varied_players(game, int(call["seed"]), k)
    for k, call in enumerate(calls):  # frames are written for the first game only
        if k:
            call["frames_dir"] = None
    if jobs <= 1:
        for call in calls:
            yield _guarded(call)
        return
    # fresh processes, not forks: a fork of a process running OpenCV or onnxruntime threads
    # can hang on a lock one of those threads held
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn, initializer=_one_thread_each) as pool:
        yield from pool.map(_guarded, calls)


def _one_thread_each() -> None:
    """Processes share the cores: OpenCV's own threads in each would only fight over them."""
    import cv2

    cv2.setNumThreads(1)


def _guarded(call: dict[str, Any]) -> GameReplay:
    try:
        return _replay_kwargs(call)
    except RuntimeError as exc:  # a true event refused by the engine: the game stopped there
        players = call.get("players") or 0
        return GameReplay(call["game"], call["mode"], call["seed"], players, 0,
                          first_problem=f"stopped: {exc}")


def summarise(runs: Iterable[GameReplay], wall_s: float) -> dict[str, Any]:
    """The figures over many games (the same for every game kind)."""
    runs = list(runs)
    by_type: dict[str, dict[str, int]] = {}
    for run in runs:
        for kind, counts in run.by_type.items():
            total = by_type.setdefault(kind, dict.fromkeys(OUTCOMES, 0))
            for name, value in counts.items():
                total[name] += value
    games = len(runs)
    true_events = sum(r.true_events for r in runs)
    pressed = sum(r.pressed for r in runs)
    visible_shown = sum(r.visible_shown for r in runs)
    frames = sum(r.frames for r in runs)
    follow_s = sum(r.seconds.get("follow", 0.0) for r in runs)
    follow_ms = 1000 * follow_s / max(1, frames)
    game_s = [r.seconds.get("game", 0.0) for r in runs]
    return {
        "game": runs[0].game if runs else None,
        "mode": runs[0].mode if runs else None,
        "games": games,
        "players": [r.players for r in runs],
        "exact_scores": sum(r.exact for r in runs),
        "exact_rate": round(sum(r.exact for r in runs) / max(1, games), 4),
        "true_events": true_events,
        "camera_right": sum(r.camera_right for r in runs),
        "pressed": pressed,
        "events_in_frames_shown": sum(r.events_shown for r in runs),
        "camera_could_apply": visible_shown,
        "camera_right_in_frames_shown": sum(r.camera_shown for r in runs),
        "event_accuracy_camera_alone": round(sum(r.camera_shown for r in runs) / max(1, visible_shown), 4),
        "entered_by_hand": sum(r.confirmed for r in runs),
        "pending_episodes": sum(r.pending_episodes for r in runs),
        "wrong_applied": sum(r.wrong_applied for r in runs),
        "games_with_wrong_events": sum(r.wrong_applied > 0 for r in runs),
        "wrong_mended": sum(r.mended for r in runs),
        "zone_read_accuracy": round(sum(r.cells_right for r in runs) / max(1, sum(r.cells_read for r in runs)), 4),
        "frames": frames,
        "tracker_ms_per_frame": round(follow_ms, 3),
        "seconds_per_game": round(sum(game_s) / max(1, games), 2),
        "wall_s": round(wall_s, 1),
        "per_event": {
            kind: {**counts, "camera_rate": round(counts["camera"] / max(1, counts["true"] - counts["pressed"]), 4)}
            for kind, counts in sorted(by_type.items())
        },
        "problems": [f"seed {r.seed}: {r.first_problem}" for r in runs if r.first_problem][:5],
    }


def format_game(run: GameReplay) -> str:
    """One game's line for people."""
    visible = run.true_events - run.pressed
    text = (f"{run.game} game {run.seed} ({run.players}p, {run.mode}): "
            f"{'exact' if run.exact else 'DIFFERENT'} scores, {run.camera_right}/{visible} events by camera, "
            f"{run.pressed} pressed, {run.confirmed} entered by hand, {run.wrong_applied} wrong"
            f"{f' ({run.mended} mended)' if run.mended else ''}, "
            f"{run.seconds.get('game', 0.0):.1f} s")
    return text + (f" ({run.first_problem})" if run.first_problem else "")


def format_summary(summary: dict[str, Any]) -> str:
    """The summary for people: the headline figures, then one line per event type."""
    s = summary
    lines = [
        f"{s['game']} {s['mode']}: {s['exact_scores']}/{s['games']} games with the exact scores "
        f"({s['exact_rate']:.1%}), {s['wrong_applied']} wrong events applied "
        f"(in {s['games_with_wrong_events']} games; {s['wrong_mended']} of them mended later)",
        f"  events by camera alone {s['camera_right_in_frames_shown']}/{s['camera_could_apply']} "
        f"({s['event_accuracy_camera_alone']:.1%}), entered by hand {s['entered_by_hand']}, "
        f"pressed (buttons) {s['pressed']}; the camera held an event back {s['pending_episodes']} times",
        f"  zone reads right {s['zone_read_accuracy']:.2%}; tracker and inference "
        f"{s['tracker_ms_per_frame']:.2f} ms/frame over {s['frames']} frames; "
        f"{s['seconds_per_game']:.1f} s per game, wall {s['wall_s']:.1f} s",
    ]
    if s["events_in_frames_shown"] < s["true_events"]:
        lines.append(f"  videos cut short: {s['events_in_frames_shown']} of {s['true_events']} true events "
                     "happened in the frames shown (the camera's share counts those); a person "
                     "entered the rest, and the lines below count whole games")
    for kind, c in s["per_event"].items():
        if c["true"] == c["pressed"]:
            lines.append(f"  {kind:14s} {c['true']:5d} true, all pressed (buttons or phone)")
            continue
        lines.append(f"  {kind:14s} {c['true']:5d} true, camera {c['camera']:5d} ({c['camera_rate']:.1%} of "
                     f"{c['true'] - c['pressed']}), hand {c['confirmed']}, pressed {c['pressed']}, wrong {c['wrong']}")
    lines += [f"  problem: {p}" for p in s["problems"]]
    return "\n".join(lines)



def format_kinds(summaries: Sequence[dict[str, Any]]) -> str:
    """Per game kind, one line of totals (from :func:`summarise`): the share of the events the
    camera could see that it settled alone, wrong events (and how many were mended), events a
    person entered, and those left to buttons or the phone by the rules (a die roll, a Quack)."""
    header = (f"{'game':8s} {'games':>5s} {'players':>7s} {'camera settled':>20s} {'wrong':>5s} "
              f"{'mended':>6s} {'by hand':>7s} {'buttons':>7s}")
    lines = ["per game kind:", header]
    for s in summaries:
        counts = sorted(set(s.get("players", [])))
        players = "-".join(str(n) for n in (counts[0], counts[-1])) if len(counts) > 1 else (
            str(counts[0]) if counts else "?")
        settled = (f"{s['camera_right_in_frames_shown']}/{s['camera_could_apply']} "
                   f"{s['event_accuracy_camera_alone']:.1%}")
        lines.append(f"{s['game']:8s} {s['games']:5d} {players:>7s} {settled:>20s} {s['wrong_applied']:5d} "
                     f"{s['wrong_mended']:6d} {s['entered_by_hand']:7d} {s['pressed']:7d}")
    return "\n".join(lines)

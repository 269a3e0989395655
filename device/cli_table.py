"""Commands for reading the table: ``markers``, ``calibrate`` and ``replay-video``.

Why this module exists: a user prints the calibration markers, calibrates their table once
(the layout JSON is kept in the data folder, one file per table), and a developer measures
the whole camera path on synthetic bot games. Each command checks its input and says what to
fix instead of failing with a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from . import paths
from .cli import UserError

GAMES_WITH_LAYOUT = ("duck", "grey", "bruce", "ducky", "sitting")
"""Games whose table zones are laid out (vision.layout, table_video_grey, table_video_bruce,
boards): each can be calibrated."""
REPLAY_GAMES = GAMES_WITH_LAYOUT
PROGRESS_EVERY_S = 30.0
"""How often ``replay-video`` says how far a game's frames are (a model-mode game takes minutes)."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("markers", help="write the printable calibration marker sheet (PDF or PNG)")
    p.add_argument("--out", default="ducktable-markers.pdf",
                   help="file to write; .pdf or .png (default: ducktable-markers.pdf)")
    p.add_argument("--size-mm", type=float, default=50.0, help="printed marker side in mm (default 50)")
    p.set_defaults(func=cmd_markers)

    p = subparsers.add_parser("calibrate", help="find the table in a camera picture and save its layout")
    p.add_argument("image", help="a photo from the camera with the four markers at the table corners")
    p.add_argument("--game", default="duck", choices=GAMES_WITH_LAYOUT)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--table", default="default", help="name of this table's calibration (default: default)")
    p.add_argument("--empty-table", action="store_true",
                   help="the picture shows the empty table: keep it to judge hands and a moved camera against")
    p.add_argument("--corners", help="no markers: the table area's corners in the photo, clockwise "
                                     "from top left, as x1,y1,x2,y2,x3,y3,x4,y4")
    p.set_defaults(func=cmd_calibrate)

    p = subparsers.add_parser("replay-video",
                              help="play synthetic bot games through the camera path and compare with the truth")
    p.add_argument("--game", default="duck", choices=(*REPLAY_GAMES, "all"),
                   help="the game kind, or all: --games games of every kind, then one line of totals per "
                        "kind (3 to 5 players unless --players is given: the card games go through 3, 4 "
                        "and 5, the board games keep the seed's count held within 3-5; "
                        "--snapshots, --clean-frames and --reader run apply to the card games)")
    p.add_argument("--games", type=int, default=20, help="how many games (of each kind with --game all; default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game")
    p.add_argument("--players", type=int,
                   help="players per game (default: 3 for duck, grey and bruce; ducky and sitting "
                        "go through every count they allow, game by game)")
    p.add_argument("--mode", default="oracle", choices=("oracle", "truth", "model"),
                   help="oracle: snapshots straight from the script; truth: rendered frames read by "
                        "the detector (or the board reader) with the true labels of the cards found; "
                        "model: rendered frames and the shipped classifier for every card (Ducky Ducky's "
                        "piles and gifts are drawn beside its board in this mode only)")
    p.add_argument("--misread", type=float, default=0.02,
                   help="oracle mode (and the board games' card piles): chance that a read is wrong "
                        "in a frame (default 0.02)")
    p.add_argument("--hold", type=int,
                   help="frames the table stays still after each change (default: the game's own, "
                        "5 for the card games; at least 3, what the tracker needs to agree)")
    p.add_argument("--max-frames", type=int,
                   help="truth/model modes: cut each game after this many frames (it plays on until "
                        "the events they reach are shown whole, where the next event begins)")
    p.add_argument("--jobs", type=int, default=1, help="games replayed at once, one process each (default 1)")
    p.add_argument("--write-frames", metavar="DIR",
                   help="truth/model modes: also write the first game's frames as JPEGs here")
    p.add_argument("--snapshots", metavar="DIR",
                   help="card games, truth/model modes: keep each game's camera reads here and reuse them next "
                        "time (inference changes then replay in seconds); delete DIR after changing the "
                        "renderer, detector or cover watch")
    p.add_argument("--capture", metavar="WxH",
                   help="truth/model modes: take the pictures at this size (the same table, more pixels, e.g. "
                        "1920x1080 as the Pi camera's main stream) and read them as `ducktable run` does: at "
                        "1280x720 (Ducky Ducky: the whole picture), the cards cut from the full picture")
    p.add_argument("--clean-frames", action="store_true",
                   help="card games, truth/model modes: read the clean renders; by default every picture "
                        "goes through a camera's capture (exposure, white balance, focus, noise, JPEG 60-95)")
    p.add_argument("--reader", default=None, choices=("replay", "run"),
                   help="card games: read the pictures with `ducktable run`'s own reader, calibrated from "
                        "the empty table, as the table does (run: the default in model mode), or with the "
                        "card path directly (replay: the default, and the only choice, in truth mode)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on stderr while a game's frames are read")
    p.add_argument("--json", action="store_true", help="print one JSON line per game and a summary line")
    p.set_defaults(func=cmd_replay_video)


def cmd_markers(args: argparse.Namespace) -> int:
    from ducktable.vision.calibrate import CalibrationError, marker_sheet_pdf, marker_sheet_png

    out = Path(args.out)
    try:
        if out.suffix.lower() == ".pdf":
            data = marker_sheet_pdf(args.size_mm)
        elif out.suffix.lower() == ".png":
            import cv2

            ok, buf = cv2.imencode(".png", marker_sheet_png(args.size_mm))
            if not ok:
                raise UserError("could not encode the marker sheet as PNG")
            data = buf.tobytes()
        else:
            raise UserError(f"{out} must end in .pdf or .png")
        out.write_bytes(data)
    except CalibrationError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"wrote {out}: print it at 100% scale and lay markers 0-3 at the table area's corners, "
          "clockwise from top left")
    return 0


def calibration_file(data_dir: str | None, table: str) -> Path:
    if not table or any(c in table for c in "/\\") or table.startswith("."):
        raise UserError(f"table name {table!r} must be a plain name such as 'kitchen'")
    return paths.calibration_dir(data_dir) / f"{table}.json"


def table_layout(game: str, players: int) -> Any:
    """The zones of ``game``'s table for ``players``, as the camera reader uses them: the card
    games' seats and middle; Ducky Ducky's board (its default river) with each seat's piles and
    gifts beside it; the Sitting Ducks line with its played pile."""
    from ducktable.rules import make_game
    from ducktable.vision.table_views import game_layout

    g = make_game(game)
    if not g.min_players <= players <= g.max_players:
        raise UserError(f"{game} is for {g.min_players} to {g.max_players} players, not {players}")
    return game_layout(game, players, {})


def cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2
    from ducktable.vision.calibrate import CalibrationError, calibrate_from_corners, calibrate_from_markers
    from ducktable.vision.layout import LayoutError
    from ducktable.vision.reader import calibration_view

    picture = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if picture is None:
        raise UserError(f"cannot read the picture {args.image}; give a JPEG or PNG taken by the table camera")
    frame = calibration_view(picture, args.game)  # the size the camera reader works at
    scale = frame.shape[1] / picture.shape[1]
    try:
        layout = table_layout(args.game, args.players)
        if args.corners:
            try:
                values = [float(v) for v in args.corners.split(",")]
            except ValueError:
                raise UserError("--corners must be eight numbers: x1,y1,x2,y2,x3,y3,x4,y4") from None
            if len(values) != 8:
                raise UserError("--corners must be eight numbers: x1,y1,x2,y2,x3,y3,x4,y4")
            cal = calibrate_from_corners(layout, [[values[i] * scale, values[i + 1] * scale]
                                                  for i in range(0, 8, 2)])
        else:
            cal = calibrate_from_markers(layout, frame)
    except (CalibrationError, LayoutError) as exc:
        raise UserError(str(exc)) from None
    target = calibration_file(args.data_dir, args.table)
    cal.layout.save(target)
    how = (f"markers {list(cal.markers_used)}, mean error {cal.error_px:.2f} px" if cal.markers_used
           else "corners by hand")
    print(f"calibrated table {args.table!r} ({how}); saved {target}")
    if scale < 1:
        print(f"(the camera reader works on its pictures at {frame.shape[1]}x{frame.shape[0]}, as here; "
              f"cards are still cut from the full {picture.shape[1]}x{picture.shape[0]})")
    if args.empty_table:
        from ducktable.vision.reader import empty_table_path

        empty = empty_table_path(target)
        if not cv2.imwrite(str(empty), frame):
            raise UserError(f"could not write {empty}; check that the data folder is writable")
        print(f"kept the picture as the empty table ({empty}): hands and a moved camera are judged against it")
    return 0


def capture_size(text: str) -> tuple[int, int]:
    """``WxH`` (e.g. 1920x1080) as two whole numbers, or UserError."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--capture wants a size like 1920x1080, not {text!r}") from None
    if not (320 <= width <= 8000 and 180 <= height <= 8000):
        raise UserError(f"--capture {text}: give a camera picture size between 320x180 and 8000x8000")
    return width, height


def _reader(args: argparse.Namespace, kind: str) -> str:
    """The reader asked for, or by default ``ducktable run``'s for the card games in model mode."""
    from ducktable.sim import game_replays

    if args.reader is not None:
        return str(args.reader)
    return "run" if args.mode == "model" and kind in game_replays.CARD_GAMES else "replay"


def cmd_replay_video(args: argparse.Namespace) -> int:
    from ducktable.sim import game_replays

    if args.games < 1:
        raise UserError("--games must be at least 1")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    if not 0 <= args.misread <= 1:
        raise UserError("--misread is a chance, between 0 and 1")
    if args.max_frames is not None and args.max_frames < 1:
        raise UserError("--max-frames must be at least 1")
    if args.mode == "oracle" and (args.max_frames is not None or args.write_frames or args.snapshots
                                  or args.capture or args.clean_frames):
        raise UserError("--max-frames, --write-frames, --snapshots, --capture and --clean-frames need "
                        "--mode truth or model")
    capture = capture_size(args.capture) if args.capture else None
    kinds = game_replays.GAMES if args.game == "all" else (args.game,)
    card_games = game_replays.CARD_GAMES if args.game == "all" else kinds  # the options only the card games take
    try:
        for kind in kinds:
            game_replays.check(kind, args.mode, args.players)
            game_replays.check_reading(kind, args.mode, clean_frames=args.clean_frames and kind in card_games,
                                       reader=_reader(args, kind) if kind in card_games else "replay")
        if args.hold is not None and args.hold < game_replays.MIN_HOLD:
            raise game_replays.ReplayUnavailable(
                f"--hold must be at least {game_replays.MIN_HOLD} (the tracker settles a change on "
                f"{game_replays.MIN_HOLD} agreeing frames)")
    except game_replays.ReplayUnavailable as exc:
        raise UserError(str(exc)) from None
    if args.mode == "model":
        from ducktable.vision.classify import ModelError
        from ducktable.vision.frame_reader import model_classifier

        try:
            model_classifier(kinds[0])
        except ModelError as exc:
            raise UserError(f"the classifier cannot be loaded: {exc}") from None
    seeds = range(args.seed, args.seed + args.games)
    if args.mode != "oracle" and not args.quiet:
        pictures = ("clean renders" if args.clean_frames else "camera-like pictures") + (
            ", read by run's reader" if any(_reader(args, k) == "run" for k in card_games) else "")
        print(f"replaying {args.games} {args.game} game(s) in {args.mode} mode ({pictures}); a game takes "
              "minutes, progress on stderr", file=sys.stderr, flush=True)
    summaries = []
    for kind in kinds:
        start = time.perf_counter()
        runs = []
        cards = kind in card_games
        try:
            for run in game_replays.run_games(
                    kind, args.mode, seeds, jobs=args.jobs, vary_players=args.game == "all",
                    players=args.players, misread=args.misread, hold=args.hold, max_frames=args.max_frames,
                    frames_dir=args.write_frames, snapshots_dir=args.snapshots if cards else None,
                    capture_size=capture, clean_frames=args.clean_frames and cards,
                    reader=_reader(args, kind) if cards else "replay",
                    progress_s=None if args.quiet else PROGRESS_EVERY_S):
                runs.append(run)
                print(json.dumps(run.line()) if args.json else game_replays.format_game(run), flush=True)
        except game_replays.ReplayUnavailable as exc:
            raise UserError(str(exc)) from None
        summary = game_replays.summarise(runs, time.perf_counter() - start)
        summaries.append(summary)
        print(json.dumps(summary) if args.json else game_replays.format_summary(summary), flush=True)
    if len(kinds) > 1 and not args.json:
        print(game_replays.format_kinds(summaries))
    return 0

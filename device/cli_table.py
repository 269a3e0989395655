"""Commands for reading the table: ``markers``, ``calibrate`` and ``replay-video``.

Why this module exists: a user prints the calibration markers, calibrates their table once
(the layout JSON is kept in the data folder, one file per table), and a developer measures
the whole camera path on synthetic bot games. Each command checks its input and says what to
fix instead of failing with a traceback.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from . import paths
from .cli import UserError

GAMES_WITH_LAYOUT = ("duck",)


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
    p.add_argument("--corners", help="no markers: the table area's corners in the photo, clockwise "
                                     "from top left, as x1,y1,x2,y2,x3,y3,x4,y4")
    p.set_defaults(func=cmd_calibrate)

    p = subparsers.add_parser("replay-video",
                              help="play synthetic bot games through the camera path and compare with the truth")
    p.add_argument("--game", default="duck", choices=GAMES_WITH_LAYOUT)
    p.add_argument("--games", type=int, default=20, help="how many games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game")
    p.add_argument("--players", type=int, default=3, choices=(3, 4, 5))
    p.add_argument("--mode", default="oracle", choices=("oracle", "truth", "model"),
                   help="oracle: snapshots straight from the script; truth: rendered frames, detector, "
                        "true labels of found cards; model: rendered frames and the shipped classifier")
    p.add_argument("--misread", type=float, default=0.02,
                   help="oracle mode: chance that a card is misread in a frame (default 0.02)")
    p.add_argument("--write-frames", metavar="DIR", help="also write the first game's frames as JPEGs here")
    p.add_argument("--snapshots", metavar="DIR",
                   help="truth/model modes: keep each game's camera reads here and reuse them next time "
                        "(inference changes then replay in seconds); delete DIR after changing the "
                        "renderer, detector or cover watch")
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


def cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2
    from ducktable.vision.calibrate import CalibrationError, calibrate_from_corners, calibrate_from_markers
    from ducktable.vision.layout import LayoutError, duck_layout

    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise UserError(f"cannot read the picture {args.image}; give a JPEG or PNG taken by the table camera")
    try:
        layout = duck_layout(args.players)
        if args.corners:
            try:
                values = [float(v) for v in args.corners.split(",")]
            except ValueError:
                raise UserError("--corners must be eight numbers: x1,y1,x2,y2,x3,y3,x4,y4") from None
            if len(values) != 8:
                raise UserError("--corners must be eight numbers: x1,y1,x2,y2,x3,y3,x4,y4")
            cal = calibrate_from_corners(layout, [values[i:i + 2] for i in range(0, 8, 2)])
        else:
            cal = calibrate_from_markers(layout, frame)
    except (CalibrationError, LayoutError) as exc:
        raise UserError(str(exc)) from None
    target = calibration_file(args.data_dir, args.table)
    cal.layout.save(target)
    how = (f"markers {list(cal.markers_used)}, mean error {cal.error_px:.2f} px" if cal.markers_used
           else "corners by hand")
    print(f"calibrated table {args.table!r} ({how}); saved {target}")
    return 0


def cmd_replay_video(args: argparse.Namespace) -> int:
    from ducktable.vision import table_video

    if args.games < 1:
        raise UserError("--games must be at least 1")
    if args.mode == "model":
        from ducktable.vision.classify import ModelError

        try:
            table_video.model_classifier(args.game)
        except ModelError as exc:
            raise UserError(f"the classifier cannot be loaded: {exc}") from None
    totals = {"games": 0, "exact": 0, "true_events": 0, "camera_right": 0, "confirmed": 0,
              "accepted": 0, "pending_episodes": 0, "wrong_applied": 0, "frames": 0, "cells_read": 0,
              "cells_right": 0, "follow_s": 0.0}
    start = time.perf_counter()
    for k in range(args.games):
        seed = args.seed + k
        try:
            if args.mode == "oracle":
                result = table_video.oracle_replay(seed, players=args.players, misread=args.misread)
            else:
                result = table_video.camera_replay(
                    seed, players=args.players, labels="model" if args.mode == "model" else "truth",
                    frames_dir=args.write_frames if k == 0 else None, snapshots_dir=args.snapshots)
        except RuntimeError as exc:
            print(f"game {seed}: stopped: {exc}")
            totals["games"] += 1
            continue
        for key in ("true_events", "camera_right", "confirmed", "accepted", "pending_episodes",
                    "wrong_applied", "frames", "cells_read", "cells_right"):
            totals[key] += getattr(result, key)
        totals["games"] += 1
        totals["exact"] += result.exact_scores
        totals["follow_s"] += result.seconds.get("follow", 0.0)
        line = {"seed": seed, "exact": result.exact_scores, "events": result.true_events,
                "camera_right": result.camera_right, "confirmed": result.confirmed,
                "accepted": result.accepted, "pending_episodes": result.pending_episodes,
                "wrong_applied": result.wrong_applied, "frames": result.frames,
                "seconds": {k: round(v, 2) for k, v in result.seconds.items()}}
        if result.first_problem:
            line["problem"] = result.first_problem
        print(json.dumps(line) if args.json else
              f"game {seed}: {'exact' if result.exact_scores else 'DIFFERENT'} scores, "
              f"{result.camera_right}/{result.true_events} events by camera, {result.confirmed} entered "
              f"by hand, {result.wrong_applied} wrong" + (f" ({result.first_problem})" if result.first_problem else ""))
    g, n = totals["games"], max(1, totals["true_events"])
    follow_ms = 1000 * totals["follow_s"] / max(1, totals["frames"])
    summary = {
        "games": g, "exact_scores": totals["exact"], "exact_rate": round(totals["exact"] / g, 4),
        "event_accuracy_camera_alone": round(totals["camera_right"] / n, 4),
        "entered_by_hand": totals["confirmed"], "camera_guess_accepted": totals["accepted"],
        "pending_episodes": totals["pending_episodes"], "wrong_applied": totals["wrong_applied"],
        "zone_read_accuracy": round(totals["cells_right"] / max(1, totals["cells_read"]), 4),
        "tracker_and_inference_ms_per_frame": round(follow_ms, 3),
        "tracker_fps_one_core": round(1000 / follow_ms) if follow_ms else None,
        "wall_s": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary) if args.json else "summary: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    return 0

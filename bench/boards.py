"""How well the board readers read seeded board pictures, and how well whole bot games on the
boards are followed: ``ducktable bench boards``.

Why this module exists: the board readers have measured targets (:data:`BOARD_TARGET` of
cells read right, :data:`GAME_TARGETS` for followed games). This runs them on pictures from
:mod:`ducktable.sim.board_pictures` and games from :mod:`ducktable.sim.board_games` and
returns the figures and a report to print.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
from ducktable.rules.snapshot import ZoneRead
from ducktable.sim.board_games import GAMES, oracle_follow
from ducktable.sim.board_pictures import board_photo
from ducktable.vision.boards import Labels, LineBoard, LineReader, RiverBoard, RiverReader
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import LayoutError

# ---- measuring the readers -------------------------------------------------------------------------

@dataclass
class BoardTally:
    """Places read against the truth: all of them, the ones read right, and the ones a hand
    covered that were still read as something wrong (a covered place read as covered is fine)."""

    places: int = 0
    right: int = 0
    covered: int = 0
    covered_wrong: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.right / self.places if self.places else 1.0

    def add(self, zone: str, read: ZoneRead, truth: Labels, covered: bool, seed: int) -> None:
        if covered:
            self.covered += 1
            self.covered_wrong += not read.occluded and read.labels != truth
            return
        self.places += 1
        if not read.occluded and read.labels == truth:
            self.right += 1
        elif len(self.misses) < 40:
            self.misses.append(f"seed {seed} {zone}: read {'covered' if read.occluded else read.labels}, truth {truth}")


def run_board_bench(n_frames: int = 200, seed: int = 0, *, hands: float = 0.3,
                    out: TextIO | None = None) -> dict[str, Any]:
    """Render ``n_frames`` random boards (half river, half line), calibrate each from its markers,
    read it and compare with the truth. Prints and returns per-cell river accuracy, per-log
    accuracy, per-position line accuracy and milliseconds per read (target: 99.5%)."""
    river, logs, line = BoardTally(), BoardTally(), BoardTally()
    seconds = {"river": 0.0, "line": 0.0}
    failed_calibrations = 0
    for k in range(n_frames):
        frame_seed = seed * 1_000_003 + k
        kind = "river" if k % 2 == 0 else "line"
        count = 1 if np.random.default_rng(frame_seed).random() < hands else 0
        photo = board_photo(kind, frame_seed, hands=count)
        image, truth, covered = photo.image, photo.truth, photo.covered
        try:
            calibrated = calibrate_from_markers(photo.layout, image).layout
        except LayoutError:
            failed_calibrations += 1
            continue
        t0 = time.perf_counter()
        if kind == "river":
            reads = RiverReader(RiverBoard.of(), calibrated).read(image)
        else:
            reads = LineReader(LineBoard(), calibrated).read(image)
        seconds[kind] += time.perf_counter() - t0
        for zone, labels in truth.items():
            tally = (logs if zone.startswith("log.") else river) if kind == "river" else line
            tally.add(zone, reads[zone], labels, zone in covered, frame_seed)
    frames = {"river": (n_frames + 1) // 2, "line": n_frames // 2}
    result = {
        "frames": n_frames,
        "river_cells": river.places, "river_accuracy": river.accuracy,
        "log_places": logs.places, "log_accuracy": logs.accuracy,
        "line_positions": line.places, "line_accuracy": line.accuracy,
        "covered_read_wrong": river.covered_wrong + logs.covered_wrong + line.covered_wrong,
        "covered": river.covered + logs.covered + line.covered,
        "failed_calibrations": failed_calibrations,
        "river_ms": 1000 * seconds["river"] / max(1, frames["river"]),
        "line_ms": 1000 * seconds["line"] / max(1, frames["line"]),
        "misses": (river.misses + logs.misses + line.misses)[:20],
        "target": BOARD_TARGET,
    }
    print(format_board_bench(result), file=out or sys.stdout)
    return result


BOARD_TARGET = 0.995


def format_board_bench(result: Mapping[str, Any]) -> str:
    lines = [
        f"board reading over {result['frames']} synthetic frames (target {result['target']:.1%} per place):",
        f"  Ducky Ducky river cells   {result['river_accuracy']:.2%} of {result['river_cells']}",
        f"  Ducky Ducky logs (pawns)  {result['log_accuracy']:.2%} of {result['log_places']}",
        f"  Sitting Ducks positions   {result['line_accuracy']:.2%} of {result['line_positions']}",
        f"  places under a hand read as something wrong: {result['covered_read_wrong']} of {result['covered']}",
        f"  calibration failed on {result['failed_calibrations']} frames; "
        f"{result['river_ms']:.1f} ms per river read, {result['line_ms']:.1f} ms per line read",
    ]
    lines += [f"  miss: {m}" for m in result["misses"][:10]]
    return "\n".join(lines)


GAME_TARGETS = {"exact": 0.95, "wrong_events": 0}


def run_game_bench(n_games: int = 20, seed: int = 0, *, misread: float = 0.02,
                   games: Sequence[str] = GAMES, out: TextIO | None = None) -> dict[str, Any]:
    """Follow ``n_games`` bot games of each kind from oracle snapshots (true zone contents, with
    ``misread`` of the zone reads per frame wrong) and compare with the true logs. Prints and
    returns, per game, how many games ended with the exact true result, how many events the
    camera applied that the truth does not have (target: none), and how many it applied
    alone or a person had to enter."""
    result: dict[str, Any] = {"games": n_games, "misread": misread, "targets": GAME_TARGETS}
    for game in games:
        runs = [oracle_follow(game, s, misread=misread) for s in range(seed, seed + n_games)]
        result[game] = {
            "exact": sum(r.exact for r in runs),
            "wrong_events": sum(r.wrong_applied for r in runs),
            "true_events": sum(r.true_events for r in runs),
            "camera_events": sum(r.camera_right for r in runs),
            "entered_by_hand": sum(r.confirmed for r in runs),
            "problems": [f"{r.game} seed {r.seed}: {r.first_problem}" for r in runs if r.first_problem][:5],
        }
    print(format_game_bench(result), file=out or sys.stdout)
    return result


def format_game_bench(result: Mapping[str, Any]) -> str:
    lines = [f"bot games followed from oracle snapshots ({result['misread']:.0%} of zone reads wrong per frame):"]
    for game in GAMES:
        if game not in result:
            continue
        r = result[game]
        lines.append(
            f"  {game:8s} exact result {r['exact']}/{result['games']}, wrong events applied {r['wrong_events']}, "
            f"camera applied {r['camera_events']} of {r['true_events']} true events, "
            f"entered by hand {r['entered_by_hand']}")
        lines += [f"    {p}" for p in r["problems"]]
    return "\n".join(lines)

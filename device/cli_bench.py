"""``ducktable bench``: benchmarks that print figures (they assert nothing; tests do that).

Why this module exists: the speed and accuracy targets (docs/benchmarks.md) are measured, not unit-tested.
Each benchmark is one entry in ``BENCHMARKS`` - a name, a one-line help, a function adding its
options and a function running it - so a new benchmark joins by adding an entry; ``bench all``
runs every one with its defaults.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cli import UserError


@dataclass(frozen=True)
class Benchmark:
    name: str
    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    in_all: bool = True
    """Run by ``bench all`` (not a benchmark that needs the user's own photos)."""


# ---- vision --------------------------------------------------------------------------------------


def _vision_options(p: argparse.ArgumentParser) -> None:
    from ducktable.vision.locator import DETECTORS

    p.add_argument("--scenes", type=int, default=500,
                   help="synthetic 1280x720 tables with 4-20 cards to read (default 500)")
    p.add_argument("--empty", type=int, default=100,
                   help="empty tables with clutter and hands, for false cards (default 100)")
    p.add_argument("--speed-frames", type=int, default=30,
                   help="tables with 12 cards to time on one core (default 30)")
    p.add_argument("--capture-scenes", type=int, default=200,
                   help="tables taken at 1920x1080 (the Pi camera's main stream), searched at 1280x720 "
                        "with the cards cut from the full picture: labels only (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first scene (default 0)")
    p.add_argument("--no-memory", action="store_true",
                   help="skip measuring the peak memory of `ducktable identify`")
    p.add_argument("--model", help="a card classifier .onnx (default: the shipped one)")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes reading the accuracy scenes at once, one core each (default 1); "
                        "the speed and memory figures are always taken afterwards on one core")
    p.add_argument("--detector", choices=tuple(DETECTORS), default="network",
                   help="how cards are found: the card locator network with its outlines fitted "
                        "to edges (default), or the edge-map search alone")


def _run_vision(args: argparse.Namespace) -> int:
    from ducktable.bench import cards as bench
    from ducktable.vision.classify import CardClassifier, ModelError
    from ducktable.vision.locator import load_locator

    for name in ("scenes", "empty", "speed_frames", "capture_scenes"):
        if getattr(args, name) < 0:
            raise UserError(f"--{name.replace('_', '-')} must not be negative")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    if args.scenes == 0 and args.empty == 0 and args.speed_frames == 0 and args.capture_scenes == 0:
        raise UserError("nothing to measure: give --scenes, --empty, --speed-frames or --capture-scenes above 0")
    try:
        classifier = CardClassifier.load(args.model, threads=1)
        load_locator(args.detector)  # a damaged locator is told here, not in a worker
    except ModelError as exc:
        raise UserError(str(exc)) from None
    figures = bench.run(args.scenes, seed=args.seed, empty_frames=args.empty,
                        speed_frames=args.speed_frames, capture_scenes=args.capture_scenes,
                        classifier=classifier, jobs=args.jobs, model=args.model,
                        detector=args.detector, measure_memory=not args.no_memory,
                        progress=lambda line: print(f"... {line}", file=sys.stderr, flush=True))
    print(bench.report(figures))
    return 0


# ---- web live updates (bench/web.py) --------------------------------------------------------


def _web_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--phones", "--clients", type=int, default=200,
                   help="phones watching the match live (default 200)")
    p.add_argument("--entries", type=int, default=40,
                   help="events entered through the entry form meanwhile (default 40)")
    p.add_argument("--interval", type=float, default=0.25,
                   help="seconds between entries (default 0.25)")
    p.add_argument("--matches", type=int, default=0,
                   help="matches in the table's history beforehand (default 0)")
    p.add_argument("--events", type=int, default=0,
                   help="events in all those matches (default 0; e.g. --matches 1000 --events 500000)")
    p.add_argument("--idle", type=int, default=100,
                   help="idle or slow connections opened before a fresh phone tries (default 100)")
    p.add_argument("--threads", type=int, help="the server's worker threads (default: the server's own)")


def _run_web(args: argparse.Namespace) -> int:
    from ducktable.bench.web import run_web_bench

    if args.phones < 1 or args.entries < 1 or args.interval < 0:
        raise UserError("--phones and --entries must be at least 1, --interval not negative")
    if args.matches < 0 or args.events < 0 or args.idle < 0:
        raise UserError("--matches, --events and --idle must not be negative")
    if args.events and not args.matches:
        raise UserError("--events fills the history's matches: give --matches too")
    if args.threads is not None and not 1 <= args.threads <= 512:
        raise UserError("--threads must be 1 to 512")
    run_web_bench(phones=args.phones, entries=args.entries, interval=args.interval,
                  matches=args.matches, history_events=args.events, idle=args.idle,
                  threads=args.threads,
                  progress=lambda line: print(f"... {line}", file=sys.stderr, flush=True))
    return 0


# ---- board reading (vision/boards.py) ------------------------------------------------------------


def _boards_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--frames", type=int, default=200,
                   help="random board photos, half Ducky Ducky river, half Sitting Ducks line (default 200)")
    p.add_argument("--hands", type=float, default=0.3,
                   help="share of photos with a hand reaching over the board (default 0.3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the photos (default 0)")


def _run_boards(args: argparse.Namespace) -> int:
    from ducktable.bench import boards as board_bench

    if args.frames < 2:
        raise UserError("--frames must be at least 2 (one river, one line)")
    if not 0 <= args.hands <= 1:
        raise UserError("--hands is a share, between 0 and 1")
    board_bench.run_board_bench(args.frames, seed=args.seed, hands=args.hands)
    return 0


# ---- `ducktable run`'s table reader, edge-map search against card locator (bench/reader.py) ----


def _reader_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="the DUCK bot game to render (default 0)")
    p.add_argument("--players", type=int, default=3, choices=(3, 4, 5), help="seats (default 3)")
    p.add_argument("--first", type=int, default=0, help="first frame of the video to play (default 0)")
    p.add_argument("--frames", type=int, default=900,
                   help="frames to play, 0 for the whole game (default 900: a minute at 15 fps)")
    p.add_argument("--every-frame", action="store_true",
                   help="both readers read every frame, queued (default: each reads the newest "
                        "frame when it is free, as `ducktable run` does)")
    p.add_argument("--capture", default="1920x1080", metavar="WxH",
                   help="the pictures' size, read at 1280x720 (default 1920x1080: the Pi camera's main stream)")


def _run_reader(args: argparse.Namespace) -> int:
    from ducktable.bench import reader as bench
    from ducktable.vision.classify import ModelError

    from .cli_table import capture_size

    if args.first < 0 or args.frames < 0:
        raise UserError("--first and --frames must not be negative")
    try:
        figures = bench.run(seed=args.seed, players=args.players, first=args.first,
                            frames=args.frames or None, every_frame=args.every_frame,
                            capture=capture_size(args.capture),
                            progress=lambda line: print(f"... {line}", file=sys.stderr, flush=True))
    except ModelError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(f"{exc}; choose an earlier --first") from None
    print(bench.report(figures))
    return 0


# ---- whole games through the table-reading path (vision/game_replays.py) --------------------------


def _replay_options(p: argparse.ArgumentParser) -> None:
    from ducktable.sim.game_replays import GAMES

    p.add_argument("--game", action="append", choices=GAMES,
                   help="a game kind to replay (repeat for several; default: all five)")
    p.add_argument("--oracle-games", type=int, default=20,
                   help="bot games per kind read straight from the script, 2%% misread (default 20)")
    p.add_argument("--camera-games", type=int, default=1,
                   help="bot games per kind rendered and read by the camera path (default 1)")
    p.add_argument("--camera-frames", type=int, default=300,
                   help="frames of each camera game, 0 for whole games (default 300: a whole game is "
                        "600-5,000 frames, minutes each)")
    p.add_argument("--mode", default="truth", choices=("truth", "model"),
                   help="camera games' labels: the true ones of the cards found, or the shipped "
                        "classifier (card games; the board games use truth) (default truth)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="games replayed at once (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON summary line per game kind and mode")


def _run_replay(args: argparse.Namespace) -> int:
    import json
    import time

    from ducktable.sim import game_replays

    if args.oracle_games < 0 or args.camera_games < 0 or args.camera_frames < 0 or args.jobs < 1:
        raise UserError("--oracle-games, --camera-games and --camera-frames must not be negative, "
                        "--jobs at least 1")
    if args.oracle_games == 0 and args.camera_games == 0:
        raise UserError("nothing to replay: give --oracle-games or --camera-games above 0")
    for game in args.game or game_replays.GAMES:
        plan = [("oracle", args.oracle_games, None)]
        mode = "truth" if game in ("ducky", "sitting") else args.mode
        plan.append((mode, args.camera_games, args.camera_frames or None))
        for mode, count, max_frames in plan:
            if not count:
                continue
            start = time.perf_counter()
            seeds = range(args.seed, args.seed + count)
            runs = list(game_replays.run_games(game, mode, seeds, jobs=args.jobs, max_frames=max_frames))
            summary = game_replays.summarise(runs, time.perf_counter() - start)
            if max_frames:
                summary["frames_per_game_at_most"] = max_frames
            print(json.dumps(summary) if args.json else game_replays.format_summary(summary)
                  + (f"\n  (first {max_frames} frames of each game; the rest entered by hand)"
                     if max_frames else ""), flush=True)
    return 0


# ---- Grey Duck Quacks to enter (bench/quacks.py) -----------------------------------------------


def _quacks_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--matches", type=int, default=5, help="whole bot matches (default 5)")
    p.add_argument("--players", type=int, default=4, choices=(3, 4, 5), help="seats (default 4)")
    p.add_argument("--bot", default="greedy", choices=("greedy", "random"), help="bot kind")


def _run_quacks(args: argparse.Namespace) -> int:
    from ducktable.bench.quacks import count_match

    if args.matches < 1:
        raise UserError("--matches must be at least 1")
    runs = [count_match(seed, args.players, args.bot) for seed in range(args.matches)]
    for r in runs:
        print(f"seed {r.seed}: {r.events} events, {r.quacks} Quacks, {r.to_enter} to enter by hand")
    quacks = sum(r.quacks for r in runs) / len(runs)
    left = sum(r.to_enter for r in runs) / len(runs)
    print(f"per match ({args.players} players, {args.bot} bots): {quacks:.1f} Quacks entered before, "
          f"{left:.1f} now ({left / quacks:.1%}); the rest follow from who plays next")
    return 0


# ---- real photographs (bench/photos.py) -----------------------------------------------------


def _photos_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", help="photos of real cards, one sub-folder per label (DIR/<label>/*.jpg)")
    p.add_argument("--crops", action="store_true",
                   help="the photos are already cut to the card: name them without finding")
    p.add_argument("--unknown", action="store_true",
                   help="also leave half the labels out of each enrolment: their photos must not "
                        "be named")
    p.add_argument("--other", metavar="DIR",
                   help="photos of another printing or game (same layout of folders): enrol 2 "
                        "photos per label of FOLDER and count how many of these are named")
    p.add_argument("--other-crops", action="store_true", help="the --other photos are cut already")
    p.add_argument("--no-index", action="store_true",
                   help="name without the second look at the printed index (to compare)")
    p.add_argument("--rounds", type=int, default=5, help="enrolments drawn per k (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    p.add_argument("--speed", type=int, default=0, metavar="N",
                   help="also time naming on one core on N of the crops, shipped against as "
                        "first written (default 0: not timed)")


def _run_photos(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ducktable.bench import photos
    from ducktable.vision.card_index import IndexReader
    from ducktable.vision.classify import ModelError
    from ducktable.vision.features import CardFeatures

    folders = [Path(args.folder)] + ([Path(args.other)] if args.other else [])
    for folder in folders:
        if not folder.is_dir():
            raise UserError(f"{folder} is not a folder; give a folder with one sub-folder of "
                            "photos per card label")
    if args.rounds < 1:
        raise UserError("--rounds must be at least 1")
    if args.speed < 0:
        raise UserError("--speed must be 0 (not timed) or the number of crops to time")
    try:
        features = CardFeatures.load()
        index = None if args.no_index else IndexReader.load()
    except ModelError as exc:
        raise UserError(str(exc)) from None

    def say(line: str) -> None:
        print(f"... {line}", file=sys.stderr, flush=True)

    read, outcomes = photos.run(folders[0], features=features, crops=args.crops,
                                rounds=args.rounds, seed=args.seed, index=index, progress=say)
    if not read.files:
        raise UserError(f"no photos in {folders[0]}: put them in one sub-folder per label")
    if args.unknown:
        outcomes.append(photos.cross_validate(read, 2, rounds=args.rounds, seed=args.seed,
                                              unknown=True))
    print(photos.report(folders[0], read, outcomes))
    if args.speed:
        from ducktable.bench import photos_speed

        print(photos_speed.report(photos_speed.measure(
            features, photos.crops_of(folders[0], crops=args.crops, limit=args.speed))))
    if args.other:
        others = photos.read_folder(folders[1], features, crops=args.other_crops, index=index,
                                    progress=say, retakes=0)
        outcome = photos.another_printing(read, others, 2, rounds=args.rounds, seed=args.seed)
        wrong = outcome.strangers_named - outcome.strangers_as_themselves
        print(f"  photos of {folders[1]} after enrolling 2 photos per label of {folders[0]}: "
              f"{outcome.strangers} photos, rejected "
              f"{photos.percent(outcome.strangers - outcome.strangers_named, outcome.strangers)}"
              f" (target >= 99%); named as another card {wrong} "
              f"({photos.percent(wrong, outcome.strangers)}), as the same face of the other "
              f"printing {outcome.strangers_as_themselves}")
    return 0


# ---- a party across Pis (bench/party.py) ---------------------------------------------------------


def _party_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hands", type=int, default=12, help="hands in the party (default 12)")
    p.add_argument("--tables", type=int, default=2, help="bot tables of 4 (default 2)")
    p.add_argument("--no-outage", action="store_true", help="do not kill the broker halfway")


def _run_party(args: argparse.Namespace) -> int:
    from ducktable.bench.party import report, run_party_bench

    if args.hands < 2 or not 2 <= args.tables <= 10:
        raise UserError("--hands must be at least 2 and --tables 2 to 10")
    print(report(run_party_bench(args.hands, args.tables, outage=not args.no_outage)))
    return 0


# ---- layout enrolment (bench/layouts.py) ------------------------------------------------------


def _layouts_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seeds", type=int, default=3,
                   help="rendered DUCK decks laid out (3 layouts x 2 rounds each; default 3; "
                        "0 with --photos: the real photos only)")
    p.add_argument("--photos", metavar="DIR",
                   help="also grids composed from real photos cut to the card (DIR/<label>/*.jpg, "
                        "2 or more per label)")


def _run_layouts(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ducktable.bench import layouts
    from ducktable.vision.classify import ModelError

    if args.seeds < (0 if args.photos else 1):
        raise UserError("--seeds must be at least 1 (or 0 with --photos)")
    folder = Path(args.photos) if args.photos else None
    if folder is not None and not folder.is_dir():
        raise UserError(f"{folder} is not a folder; give one sub-folder of photos per label")
    try:
        print(layouts.run(args.seeds, folder,
                          lambda line: print(f"... {line}", file=sys.stderr, flush=True)))
    except ModelError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return 0


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("vision", "card detection and classification: accuracy, speed, memory",
              _vision_options, _run_vision),
    Benchmark("web", "game night: many phones live, pages, entries, idle connections, long history",
              _web_options, _run_web),
    Benchmark("boards", "Ducky Ducky river and Sitting Ducks line reading: accuracy per place, ms",
              _boards_options, _run_boards),
    Benchmark("replay", "bot games of every kind through tracker, inference and engine: exact games, "
                        "events by camera, wrong events", _replay_options, _run_replay),
    Benchmark("quacks", "Grey Duck: Quacks a phone must be told per match, before and after "
                        "inferring them", _quacks_options, _run_quacks),
    Benchmark("photos", "real photographs: enrol k photos per label (1, 2, 5), name the rest",
              _photos_options, _run_photos, in_all=False),
    Benchmark("party", "a party across Pis on loopback: result delivery, a broker outage",
              _party_options, _run_party),
    Benchmark("reader", "`ducktable run`'s reader, edge-map search and card locator paired: CPU ms per "
              "frame, fps, latency to the store, RSS", _reader_options, _run_reader),
    Benchmark("layouts", "layout enrolment: cards read at their grid place, ms per layout photo",
              _layouts_options, _run_layouts),
)


def register(subparsers: Any) -> None:
    bench = subparsers.add_parser("bench", help="run benchmarks that print figures")
    which = bench.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    for b in BENCHMARKS:
        p = which.add_parser(b.name, help=b.help)
        b.add_options(p)
        p.set_defaults(func=b.run)
    which.add_parser("all", help="every benchmark with its default options").set_defaults(
        func=_run_all)
    bench.set_defaults(func=lambda _args: _usage(bench))


def _run_all(args: argparse.Namespace) -> int:
    worst = 0
    for b in (b for b in BENCHMARKS if b.in_all):
        parser = argparse.ArgumentParser(prog=f"ducktable bench {b.name}")
        b.add_options(parser)
        options = parser.parse_args([])
        options.data_dir = getattr(args, "data_dir", None)
        print(f"== bench {b.name}", flush=True)
        worst = max(worst, b.run(options))
    return worst


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2

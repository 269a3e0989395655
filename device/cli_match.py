"""Match commands of the ``ducktable`` CLI: start, submit, check, show, undo, correct, export,
import, replay and simulate.

Why this module exists: everything the phone does with a match can also be done from a shell,
which is how disputes are settled by hand, logs are checked and bots are pitted against each
other. Events are read as JSON from an argument or from stdin (``-``); verdicts print as
``LEGAL: reason [RULE-IDS]`` or ``ILLEGAL: ...``. Exit status: 0 legal, 1 illegal, 2 a problem
the user must fix (printed as one line by :func:`ducktable.device.cli.main`).

Seats and event numbers count from 1, as on the phone's pages (seat 1 is the first player):
events typed for ``submit``, ``check`` and ``correct`` and what the commands print. The match log
keeps counting from 0 as documented (``export``, ``import`` and ``replay`` read and write it
unchanged, and so does ``--json`` output); the conversion happens here, at the command line.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from ducktable.rules import registry
from ducktable.rules.core import (
    BadEvent,
    Bot,
    Event,
    IllegalEvent,
    JSONTextError,
    RulesError,
    State,
    Verdict,
    read_json,
    replay,
    simulate,
)
from ducktable.web.words import seats_from_one

from . import paths
from .cli import UserError
from .store import MatchInfo, MatchStore, StoreError, parse_match_log

BOTS = ("random", "greedy")
T = TypeVar("T")


def register(subparsers: Any) -> None:
    """Add the match sub-commands to the ``ducktable`` parser."""
    p = subparsers.add_parser("start", help="start a match and print its id")
    p.add_argument("game", help=f"the game: one of {', '.join(registry.game_names())}")
    p.add_argument("players", nargs="+", help="player names in seat order (clockwise)")
    _option_arg(p)
    p.add_argument("--observer", action="store_true",
                   help="a real table watched by the camera/phone: hands stay hidden")
    p.add_argument("--name", default="", help="a name for the match, shown on the scoreboard")
    p.add_argument("--json", action="store_true", help="print the match as JSON")
    p.set_defaults(func=cmd_start)

    p = subparsers.add_parser("submit", help="check an event and record it if legal")
    p.add_argument("match", type=int, help="match id")
    p.add_argument("event", help='event JSON, e.g. \'{"type": "draw", "seat": 2, ...}\' (seats '
                   "count from 1), or - to read one or more events (one per line) from stdin")
    p.add_argument("--json", action="store_true", help="print verdicts as JSON")
    p.set_defaults(func=cmd_submit)

    p = subparsers.add_parser("check",
                              help="dispute check: is this event legal now? records nothing")
    p.add_argument("match", type=int, help="match id")
    p.add_argument("event", help="event JSON, or - to read events from stdin (checked in order)")
    p.add_argument("--json", action="store_true", help="print verdicts as JSON")
    p.set_defaults(func=cmd_check)

    p = subparsers.add_parser("show", help="show a match's table and scores (no id: list matches)")
    p.add_argument("match", type=int, nargs="?", help="match id; leave out to list every match")
    p.add_argument("--audit", action="store_true", help="also print every recorded change")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(func=cmd_show)

    p = subparsers.add_parser("undo", help="remove the last event of a match (recorded)")
    p.add_argument("match", type=int, help="match id")
    p.add_argument("--reason", default="", help="why, kept in the audit trail")
    p.set_defaults(func=cmd_undo)

    p = subparsers.add_parser("correct", help="replace event #INDEX if the whole log still replays")
    p.add_argument("match", type=int, help="match id")
    p.add_argument("index", type=int, help="number of the event to replace (1 is the first)")
    p.add_argument("event", help="the replacement event JSON, or - for stdin")
    p.add_argument("--reason", default="", help="why, kept in the audit trail")
    p.set_defaults(func=cmd_correct)

    p = subparsers.add_parser("export",
                              help="write a match log as JSONL (docs/match-log-format.md)")
    p.add_argument("match", type=int, help="match id")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p.add_argument("--public", action="store_true",
                   help="leave out hidden information (hands, draw pile)")
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser(
        "backup", help="copy the whole match database to FILE (safe while ducktable runs)")
    p.add_argument("file", help="the backup file to write (replaced if it exists)")
    p.set_defaults(func=cmd_backup)

    p = subparsers.add_parser(
        "restore", help="replace every match by those of a backup FILE (the old data is kept)")
    p.add_argument("file", help="a file made by `ducktable backup`")
    p.set_defaults(func=cmd_restore)

    p = subparsers.add_parser("import", help="store a match from an exported JSONL log")
    p.add_argument("file", help="the .jsonl file, or - for stdin")
    p.set_defaults(func=cmd_import)

    p = subparsers.add_parser("replay", help="replay a JSONL match log and print the final state")
    p.add_argument("file", help="the .jsonl file, or - for stdin")
    p.add_argument("--game", help="the game, for a file of bare events without a header line")
    p.add_argument("--players", nargs="+", help="player names, for a file without a header line")
    _option_arg(p)
    p.add_argument("--observer", action="store_true", default=None,
                   help="replay as an observer (hidden information unknown)")
    p.add_argument("--json", action="store_true", help="print the final state and scores as JSON")
    p.set_defaults(func=cmd_replay)

    p = subparsers.add_parser("simulate", help="play a whole match between bots, print the scores")
    p.add_argument("game", help=f"the game: one of {', '.join(registry.game_names())}")
    p.add_argument("--players", type=int, required=True, help="number of bots")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same match)")
    p.add_argument("--bot", choices=BOTS, default="random", help="which bot plays every seat")
    _option_arg(p)
    p.add_argument("--save", action="store_true", help="store the match for show/export")
    p.add_argument("--json", action="store_true", help="print the score table as JSON")
    p.set_defaults(func=cmd_simulate)


def _option_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--option", "-O", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option, e.g. duck_limit=9 (repeatable; VALUE is JSON or text)")


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def cmd_start(args: argparse.Namespace) -> int:
    names = [name.strip() for name in args.players]
    if not all(names):
        raise UserError("every seat needs a name; a blank one was given (check the quotes)")
    if len({name.casefold() for name in names}) != len(names):
        raise UserError("two seats have the same name; give every player a different name")
    for text in (*names, args.name or ""):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UserError(f"the name {text!r} is not UTF-8 text (typed in another encoding?); "
                            "type it again") from None
    args.players = names
    with _open_store(args) as store:
        info = _guard(lambda: store.create_match(
            args.game, args.players, parse_options(args.option),
            observer=args.observer, name=args.name,
        ))
    if args.json:
        _print_json(info.to_json())
    else:
        seats = ", ".join(f"{i}: {p}" for i, p in enumerate(info.players, 1))
        print(f"match {info.id} started: {info.game} with seats {seats}"
              + (" (observer)" if info.observer else ""))
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    events = read_events(args.event)
    with _open_store(args) as store:
        events = seats_to_log(events, _guard(lambda: store.state(args.match)))
        for event in events:
            verdict = _guard(partial(store.submit, args.match, event))
            _print_verdict(verdict, args.json)
            if not verdict.ok:
                return 1
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    events = read_events(args.event)
    with _open_store(args) as store:
        events = seats_to_log(events, _guard(lambda: store.state(args.match)))
        if len(events) == 1:
            verdicts = [_guard(lambda: store.check(args.match, events[0]))]
        else:
            state = _guard(lambda: store.state(args.match))  # a private copy: nothing is stored
            verdicts = []
            for event in events:
                verdicts.append(state.apply(event))
                if not verdicts[-1].ok:
                    break
    for verdict in verdicts:
        _print_verdict(verdict, args.json)
    return 0 if all(verdicts) else 1


def cmd_backup(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        written = _guard(lambda: store.backup(args.file))
    print(f"backup written to {written}; restore it with `ducktable restore {written}`")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        kept = _guard(lambda: store.restore(args.file))
        count = len(_guard(store.list_matches))
    print(f"restored {count} matches from {args.file}; the data it replaced is kept in {kept}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        if args.match is None:
            matches = _guard(store.list_matches)
            if args.json:
                _print_json([m.to_json() for m in matches])
            else:
                print(render_match_list(matches))
            return 0
        info = _guard(lambda: store.match(args.match))
        state = _guard(lambda: store.state(args.match))
        trail = _guard(lambda: store.audit(args.match)) if args.audit else None
    if args.json:
        out = {"match": info.to_json(), **state_json(state)}
        if trail is not None:
            out["audit"] = trail
        _print_json(out)
        return 0
    print(render_state(state, heading=_match_heading(info)))
    if trail is not None:
        print()
        print(render_audit(trail))
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        removed = _guard(lambda: store.undo(args.match, args.reason))
        count = _guard(lambda: store.match(args.match)).event_count
    if removed is None:
        print(f"match {args.match} has no events to undo")
    else:
        print(f"undone event #{count}: {removed.dumps()}")
    return 0


def cmd_correct(args: argparse.Namespace) -> int:
    events = read_events(args.event)
    if len(events) != 1:
        raise UserError(f"give exactly one replacement event, got {len(events)}")
    if args.index < 1:
        raise UserError(f"events count from 1 (1 is the first event), got {args.index}")
    with _open_store(args) as store:
        event = seats_to_log(events, _guard(lambda: store.state(args.match)))[0]
        verdict = _guard(lambda: store.correct(args.match, args.index - 1, event, args.reason))
    print(seats_from_one(counted_from_one(str(verdict))))
    return 0 if verdict.ok else 1


def cmd_export(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        text = _guard(lambda: store.export_jsonl(args.match, public=args.public))
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {target}: {exc.strerror or exc}") from None
    print(f"match {args.match}: {text.count(chr(10)) - 1} events written to {target}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    with _open_store(args) as store:
        info = _guard(lambda: store.import_jsonl(text))
    print(f"imported as match {info.id}: {info.game}, {info.event_count} events")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    log = _guard(lambda: parse_match_log(
        text,
        game=args.game,
        players=args.players,
        observer=args.observer,
    ))
    try:
        game = registry.make_game(log.game, {**log.options, **parse_options(args.option)})
        state = replay(game, log.players, log.events, observer=log.observer)
    except IllegalEvent as exc:
        line = log.lines[exc.index] if exc.index is not None else 0
        raise UserError(f"line {line}: event #{exc.index} is refused: {exc.verdict}") from None
    except RulesError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        _print_json({"game": log.game, "players": log.players, "options": game.options,
                     "observer": log.observer, "events": len(log.events), **state_json(state)})
    else:
        heading = f"{game.title or log.game}: {len(log.events)} events replayed"
        print(render_state(state, heading=heading))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    options = parse_options(args.option)
    try:
        game = registry.make_game(args.game, options)
        if not game.min_players <= args.players <= game.max_players:  # before naming any bot
            raise RulesError(
                f"{game.title or game.name} is for {game.min_players} to {game.max_players} "
                f"players, got {args.players}; give --players in that range"
            )
        players = [f"bot{i + 1}" for i in range(args.players)]
        state = game.new_state(players)
        bots = [make_bot(args.bot, state, seat, args.seed) for seat in range(len(players))]
        events: list[Event] = []
        rows: list[tuple[str, list[int]]] = []

        def watch(after: State, event: Event) -> None:
            events.append(event)
            if not rows or rows[-1][1] != after.scores():
                rows.append((f"event {len(events)} ({event.type})", after.scores()))

        simulate(state, bots, random.Random(args.seed), on_event=watch)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    table = round_table(state)
    kind = "round_points" if table else "running_scores"
    table = table or rows
    saved: MatchInfo | None = None
    if args.save:
        with _open_store(args) as store:
            saved = _guard(lambda: store.record_match(
                args.game, players, game.options, events,
                name=f"simulated: {args.bot} bots, seed {args.seed}", action="simulate",
            ))
    if args.json:
        _print_json({
            "game": args.game, "players": players, "options": game.options, "seed": args.seed,
            "bot": args.bot, "events": len(events),
            "table": {"kind": kind,
                      "rows": [{"label": label, "scores": scores} for label, scores in table]},
            "scores": state.scores(), "winners": state.winners(),
            "match": saved.id if saved else None,
        })
        return 0
    print(f"{game.title or args.game}, {len(players)} {args.bot} bots, seed {args.seed}: "
          f"{len(events)} events")
    print(_table(["", *players], [[label, *scores] for label, scores in table]
                 + [["final", *state.scores()]]))
    print("winner: " + ", ".join(players[s] for s in state.winners()))
    if saved is not None:
        print(f"saved as match {saved.id}")
    return 0


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["duck_limit=9", "starting_face_up=everyone"]`` -> ``{"duck_limit": 9, ...}``."""
    options: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise UserError(f"an option is written NAME=VALUE (e.g. duck_limit=9), got {item!r}")
        try:
            options[name] = read_json(raw)
        except JSONTextError:
            options[name] = raw
    return options


def read_stdin() -> str:
    """Standard input as text, or a :class:`UserError` when it is not UTF-8."""
    try:
        return sys.stdin.read()
    except UnicodeDecodeError:
        raise UserError("standard input is not UTF-8 text; save it as UTF-8 and pass it again "
                        "(or give the file's name instead of -)") from None


def read_text(source: str) -> str:
    """The text of a file, or of stdin for ``-``."""
    if source == "-":
        return read_stdin()
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{source} is not a UTF-8 text file; give a .jsonl match log") from None


def read_events(source: str) -> list[Event]:
    """Events from an argument or stdin (``-``): one JSON object, a JSON list, or JSONL."""
    text = read_stdin() if source == "-" else source
    if not text.strip():
        raise UserError('no event given; write it as JSON, e.g. \'{"type": "duck", "seat": 0}\'')
    chunks: list[Any]
    try:
        whole = read_json(text)
    except JSONTextError:  # JSONL, or one malformed event reported as it is
        chunks = [line for line in text.splitlines() if line.strip()]
        if len(chunks) == 1:
            chunks = [text]
    else:
        chunks = whole if isinstance(whole, list) else [whole]
        if not chunks:
            raise UserError("the list of events is empty; give at least one event")
    events = []
    for n, chunk in enumerate(chunks, 1):
        try:
            events.append(Event.from_json(chunk))
        except BadEvent as exc:
            where = f"event {n}: " if len(chunks) > 1 else ""
            raise UserError(f"{where}{exc}") from None
    return events


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def state_json(state: State) -> dict[str, Any]:
    """The final/current state as JSON: the public view plus scores and who moves next."""
    return {
        "over": state.is_over(),
        "to_move": state.to_move(),
        "next": state.describe_next(),
        "scores": state.scores(),
        "winners": state.winners(),
        "view": state.public_view(),
    }


def round_table(state: State) -> list[tuple[str, list[int]]]:
    """Per-round points when the engine's public view lists them (``round_points``)."""
    points = state.public_view().get("round_points")
    if not _is_matrix(points, state.num_players):
        return []
    return [(f"round {i + 1}", list(row)) for i, row in enumerate(points)]


_SHOWN_ELSEWHERE = {"game", "next", "to_move", "scores", "winners", "seats", "round_points"}


def render_state(state: State, heading: str = "") -> str:
    """A readable text table of the public view and the scores."""
    view = state.public_view()
    lines = [heading] if heading else []
    lines.append(f"next: {seats_from_one(state.describe_next())}")
    seats = view.get("seats")
    scores = state.scores()
    if isinstance(seats, list) and all(isinstance(s, dict) for s in seats):
        extra = [k for k in dict.fromkeys(k for s in seats for k in s)
                 if k not in ("seat", "name", "score")]
        rows = [[i + 1, state.players[i], scores[i], *(_cell(s.get(k)) for k in extra)]
                for i, s in enumerate(seats)]
        lines += ["", _table(["seat", "player", "score", *extra], rows)]
    else:
        lines += ["", _table(["seat", "player", "score"],
                             [[i + 1, p, scores[i]] for i, p in enumerate(state.players)])]
    rounds = round_table(state)
    if rounds:
        lines += ["", _table(["", *state.players], [[label, *row] for label, row in rounds])]
    details = []
    for key, value in view.items():
        if key in _SHOWN_ELSEWHERE:
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            columns = list(dict.fromkeys(k for v in value for k in v))
            details += ["", f"{key}:",
                        _table(columns, [[_cell(v.get(c)) for c in columns] for v in value])]
        else:
            details.append(f"{key}: {_cell(value)}")
    if details:
        lines += ["", *details]
    if state.is_over():
        lines += ["", "game over; winner: " + ", ".join(state.players[s] for s in state.winners())]
    return "\n".join(lines)


def render_match_list(matches: Sequence[MatchInfo]) -> str:
    if not matches:
        return "no matches yet; start one with `ducktable start GAME PLAYER PLAYER ...`"
    rows = [[m.id, m.game, m.name or "-", "(damaged: see `ducktable show ID`)" if m.damaged
             else ", ".join(m.players), m.event_count,
             "finished" if m.finished else "playing", m.created] for m in matches]
    return _table(["id", "game", "name", "players", "events", "status", "created"], rows)


def render_audit(trail: Sequence[dict[str, Any]]) -> str:
    rows = []
    for entry in trail:
        shown = entry["event"] if entry["event"] is not None else entry["previous"]
        rows.append([entry["seq"], entry["time"], entry["action"], _cell(entry["index"]),
                     json.dumps(shown, sort_keys=True) if shown is not None else "-",
                     entry["reason"] or "-"])
    return "audit:\n" + _table(["seq", "time", "action", "event#", "event", "reason"], rows)


def _match_heading(info: MatchInfo) -> str:
    name = f" \"{info.name}\"" if info.name else ""
    mode = "observer" if info.observer else "full information"
    status = "finished" if info.finished else "in progress"
    options = ", ".join(f"{k}={v}" for k, v in sorted(info.options.items())) or "none"
    return (f"match {info.id}{name}: {info.game}, {mode}, {info.event_count} events, {status}\n"
            f"options: {options}")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "/".join(_cell(v) for v in value.values()) or "-"
    if isinstance(value, list | tuple):
        return " ".join(_cell(v) for v in value) or "-"
    return str(value)


def _table(headers: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells if i < len(r)) for i in range(len(headers))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
                     for r in cells)


def _is_matrix(value: Any, width: int) -> bool:
    return isinstance(value, list) and all(
        isinstance(row, list) and len(row) == width and all(isinstance(x, int) for x in row)
        for row in value
    )


def _print_verdict(verdict: Verdict, as_json: bool) -> None:
    if as_json:
        _print_json(verdict.to_json())
    else:
        print(seats_from_one(verdict))


_EVENT_NUMBER = re.compile(r"\b(event #)(\d+)")


def counted_from_one(message: str) -> str:
    """The store numbers events as the log does, from 0; the command line counts from 1."""
    return _EVENT_NUMBER.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", message)


def seats_to_log(events: Sequence[Event], state: State) -> list[Event]:
    """Events typed at the command line name seats from 1, as the pages do; the log counts
    from 0. The event's seat and its seat fields (e.g. Bruce's ``opponent``) are converted;
    :class:`UserError` for a seat below 1."""
    out = []
    for event in events:
        spec = state.game.event_spec(event.type)
        seat_fields = {f.name for f in spec.fields if f.kind == "seat"} if spec else set()
        data = dict(event.data)
        for name in seat_fields & set(data):
            data[name] = _seat_from_one(data[name], f"'{name}' of the {event.type}")
        seat = None if event.seat is None else _seat_from_one(event.seat, f"the {event.type}'s seat")
        out.append(Event(event.type, seat, data, event.ts, event.source))
    return out


def _seat_from_one(value: Any, what: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise UserError(f"{what} is {value}, but seats count from 1 (1 is the first player)")
        return value - 1
    return value  # not a number: the rules say what is wrong with it


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True))


# --------------------------------------------------------------------------------------------
# Store access and bots
# --------------------------------------------------------------------------------------------


def _open_store(args: argparse.Namespace) -> MatchStore:
    path = paths.database_path(getattr(args, "data_dir", None))
    try:
        store = MatchStore(path)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if store.read_only:
        print(f"ducktable: warning: {store.read_only}", file=sys.stderr)
    return store


def _guard(call: Callable[[], T]) -> T:
    """Run a store call, turning its :class:`StoreError` into a one-line :class:`UserError`."""
    try:
        return call()
    except (StoreError, RulesError) as exc:
        raise UserError(str(exc)) from None


def make_bot(kind: str, state: State, seat: int, seed: int) -> Bot:
    """A seeded bot for ``seat``: the random bot, or the game's own greedy bot."""
    try:
        return registry.make_bot(state.game.name, kind, random.Random(f"{seed}/{seat}"))
    except RulesError as exc:
        raise UserError(str(exc)) from None

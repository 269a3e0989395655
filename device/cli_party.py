"""``ducktable party host|join|status``: a Grey Duck party with one Pi per table.

Why this module exists: a real party has a camera, so a Pi, at every table. The host Pi keeps
the party and runs the broker (``party host``); every table's Pi joins it (``party join``),
plays its hands in its own store and sends each result until the host has counted it. Both run
until Ctrl-C (or, with ``--until-over``, until the party is over). docs/party.md has the design.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from types import FrameType
from typing import Any

from ducktable.rules.grey import HANDS_DEFAULT, TERMS
from ducktable.rules.grey_party import Party, PartyError

from . import paths
from .cli import UserError
from .party_file import LIVE_NAME, PARTY_NAME, PartyFile, PartyFileError, live_state, new_party_id
from .party_link import DEFAULT_PORT, LinkError, parse_broker
from .store import MatchStore, StoreError


def register(sub: Any) -> None:
    party = sub.add_parser("party", help="a Grey Duck party over several tables, one Pi each")
    commands = party.add_subparsers(dest="party_command", metavar="ACTION", required=True)

    host = commands.add_parser("host", help="host the party: keep its standings, run the broker")
    host.add_argument("--players", nargs="+", help="start a new party with these players (6+)")
    host.add_argument("--hands", type=int, default=HANDS_DEFAULT,
                      help=f"hands in a new party (default {HANDS_DEFAULT})")
    host.add_argument("--table-sizes", type=int, nargs="+", help="e.g. 4 3 (default: even)")
    host.add_argument("--names", choices=sorted(TERMS), default="classic",
                      help="Captain/Duckling or the Minnesota names (GREY-V1)")
    host.add_argument("--new", action="store_true",
                      help="replace a party that is still under way by the new one")
    host.add_argument("--broker", help="use this broker (HOST:PORT) instead of starting mosquitto")
    host.add_argument("--broker-port", type=int, default=DEFAULT_PORT,
                      help=f"port of the mosquitto this host starts (default {DEFAULT_PORT})")
    host.add_argument("--no-mdns", action="store_true",
                      help="do not announce the host as ducktable.local on the LAN")
    _table_options(host, "also play this table on this Pi (1 is the first)")
    host.set_defaults(func=cmd_host)

    join = commands.add_parser("join", help="play one table of the party hosted on another Pi")
    join.add_argument("--table", type=int, required=True,
                      help="the table this Pi plays (1 is the first)")
    join.add_argument("--broker", help="the host's broker HOST:PORT (default: found by mDNS)")
    join.add_argument("--party", help="find only the host of this party id (two parties on one "
                      "network); `ducktable party status` on the host prints it")
    _table_options(join, None)
    join.set_defaults(func=cmd_join)

    status = commands.add_parser("status", help="print the party's standings and tables")
    status.add_argument("--json", action="store_true", help="print the party state as JSON")
    status.set_defaults(func=cmd_status)


def _table_options(parser: argparse.ArgumentParser, table_help: str | None) -> None:
    if table_help is not None:
        parser.add_argument("--table", type=int, help=table_help)
    parser.add_argument("--bots", type=float, metavar="SECONDS",
                        help="bots play this table's hands, one move every SECONDS (demo, tests)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bots' deals")
    parser.add_argument("--until-over", action="store_true",
                        help="stop once the party is over and this table's results are counted")


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="ducktable: %(message)s", stream=sys.stderr)
    logging.getLogger("zeroconf").setLevel(logging.WARNING)


def _new_party(args: argparse.Namespace, file: PartyFile) -> None:
    try:
        party = Party(args.players, hands=args.hands, names=args.names,
                      table_sizes=args.table_sizes)
    except PartyError as exc:
        raise UserError(f"the party cannot start: {exc}") from None
    with file.update() as held:
        old = held[0]
        if old is not None and not old.is_over() and not args.new:
            raise UserError(
                f"a party is under way in {file.path} (hand {old.round} of {old.hands}); leave "
                "--players out to carry on hosting it, or add --new to replace it")
        held[0], held[1] = party, new_party_id()
    print(f"ducktable: party {held[1]}: {len(party.tables())} tables, {party.hands} hands",
          flush=True)


def _table_number(value: int | None, what: str = "--table") -> int | None:
    if value is None:
        return None
    if value < 1:
        raise UserError(f"{what} counts from 1 (the first table), not {value}")
    return value - 1


def _settings(args: argparse.Namespace, role: str) -> dict[str, Any]:
    if args.broker:
        parse_broker(args.broker)  # a bad address is said now, before anything starts
    if args.bots is not None and not 0 <= args.bots <= 60:
        raise UserError("--bots is the seconds between two bot moves, 0 to 60")
    return {"role": role, "broker": args.broker or "",
            "broker_port": getattr(args, "broker_port", DEFAULT_PORT),
            "table": _table_number(args.table), "bots": args.bots, "seed": args.seed,
            "mdns": not getattr(args, "no_mdns", False), "party": getattr(args, "party", None)}


def _run(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from .party_service import PartyService

    data_dir = paths.data_dir(getattr(args, "data_dir", None))
    try:
        store = MatchStore(data_dir / paths.DATABASE_NAME)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    before = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    service = PartyService(data_dir, store, settings)
    try:
        service.run(stop, until_over=args.until_over)
    except (LinkError, PartyFileError) as exc:
        raise UserError(str(exc)) from None
    finally:
        store.close()
        for sig, old in before.items():
            signal.signal(sig, old)
    if args.until_over:
        _print_standings(live_state(data_dir))
    return 0


def cmd_host(args: argparse.Namespace) -> int:
    _logging()
    data_dir = paths.data_dir(getattr(args, "data_dir", None))
    file = PartyFile(data_dir / PARTY_NAME)
    if args.players:
        _new_party(args, file)
    settings = _settings(args, "host")
    if args.broker_port is not None and not 1 <= args.broker_port <= 65535:
        raise UserError(f"--broker-port is a port 1-65535, not {args.broker_port}")
    return _run(args, settings)


def cmd_join(args: argparse.Namespace) -> int:
    _logging()
    return _run(args, _settings(args, "join"))


def cmd_status(args: argparse.Namespace) -> int:
    data_dir = paths.data_dir(getattr(args, "data_dir", None))
    state = live_state(data_dir)
    if state is None or "party" not in state:
        try:
            loaded = PartyFile(data_dir / PARTY_NAME).load()
        except PartyFileError as exc:
            raise UserError(str(exc)) from None
        if loaded is None:
            raise UserError(f"there is no party in {data_dir} (neither {PARTY_NAME} nor "
                            f"{LIVE_NAME}); host one or join one first")
        from .party_link import party_state

        state = party_state(loaded[0], loaded[1], {}, {})
    if args.json:
        print(json.dumps(state, indent=1, sort_keys=True))
    else:
        _print_standings(state)
    return 0


def _print_standings(state: dict[str, Any] | None) -> None:
    if not state or "standings" not in state:
        return
    over = " (over)" if state.get("over") else ""
    print(f"party {state.get('party_id')}: hand {state.get('hand')} of {state.get('hands')}{over}")
    for row in state["standings"]:
        print(f"{row['rank']:>3}  {row['name']:<16} {row['total']:>4}")

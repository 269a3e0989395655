"""``ducktable run``, ``ducktable demo`` and ``ducktable qr``: the appliance's commands.

``run`` is what systemd starts on the Pi: camera, referee, store, scoreboard and cues in one
process. ``demo`` is the same process on a synthetic table where bots play (the README's
first command): open http://127.0.0.1:8000 to watch. ``qr`` prints the scoreboard's address
as a QR code in the terminal, for phones to scan.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import logging
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ducktable.rules.core import Event, RulesError, State, Verdict
from ducktable.rules.registry import game_class, game_names

from . import paths
from .cli import UserError
from .config import FILE_NAME, CameraConfig, Config, CueConfig, config_path, load_config
from .enrolment import LayoutEnrolment
from .store import MatchInfo, MatchStore, StoreError

log = logging.getLogger("ducktable")

DEMO_HOST = "127.0.0.1"
DEMO_PORT = 8000


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="run the table: camera, referee, scoreboard and cues")
    run.add_argument("--config", help="settings file (default: $DUCKTABLE_CONFIG, "
                     "/etc/ducktable/ducktable.toml, or ducktable.toml in the data folder)")
    run.add_argument("--host", help="address to serve on (default from the settings: 0.0.0.0)")
    run.add_argument("--port", type=_port, help="port to serve on (default 8000)")
    run.add_argument("--no-camera", action="store_true",
                     help="no camera: phones enter the events by hand")
    run.add_argument("--no-mdns", action="store_true",
                     help="do not announce the scoreboard as ducktable.local on the LAN")
    _data_dir_option(run)
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser(
        "demo", help="a synthetic table: bots play at a watchable pace; scoreboard on "
        f"http://{DEMO_HOST}:{DEMO_PORT}/"
    )
    demo.add_argument("--game", default="duck", help="game the bots play (default: duck)")
    demo.add_argument("--pace", type=_pace, default=1.0,
                      help="seconds between events (default 1.0)")
    demo.add_argument("--host", default=DEMO_HOST, help=f"address to serve on ({DEMO_HOST})")
    demo.add_argument("--port", type=_port, default=DEMO_PORT, help=f"port ({DEMO_PORT})")
    demo.add_argument("--players", type=int, help="number of bots (default 4, within the game's range)")
    demo.add_argument("--seed", type=int, help="random seed, for a repeatable demo")
    demo.add_argument("--matches", type=_match_count, default=0,
                      help="stop after this many matches (default 0: play on until stopped)")
    demo.add_argument("--no-browser-needed", action="store_true",
                      help="also print every event and the scores in this terminal")
    demo.add_argument("--config", help="settings file (only its [cues] and [table] are used)")
    demo.add_argument("--announce", action="store_true",
                      help="announce the scoreboard as ducktable.local by mDNS (on this machine "
                      "only while --host is 127.0.0.1)")
    _data_dir_option(demo, "(default: a temporary folder, removed at the end)")
    demo.set_defaults(func=cmd_demo)

    qr = sub.add_parser("qr", help="print the scoreboard's address as a QR code")
    qr.add_argument("--url", help="the address to encode (default: worked out from the settings)")
    qr.add_argument("--port", type=_port, help="the scoreboard's port (default 8000)")
    qr.add_argument("--config", help="settings file")
    qr.add_argument("--invert", action="store_true", help="for terminals with a light background")
    _data_dir_option(qr)
    qr.set_defaults(func=cmd_qr)


def _data_dir_option(parser: argparse.ArgumentParser, extra: str = "") -> None:
    # SUPPRESS keeps `ducktable --data-dir X run` working: the sub-command's default must not
    # overwrite the value given before the command name.
    parser.add_argument("--data-dir", default=argparse.SUPPRESS,
                        help=f"where matches and settings are kept {extra}".strip())


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number 1-65535, not {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number 1-65535, not {port}")
    return port


def _pace(text: str) -> float:
    try:
        pace = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the pace is seconds, e.g. 1.5, not {text!r}") from None
    if not 0 <= pace <= 60:
        raise argparse.ArgumentTypeError("the pace must be between 0 and 60 seconds")
    return pace


def _match_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of matches, e.g. 3, not {text!r}") from None
    if count < 0:
        raise argparse.ArgumentTypeError("the number of matches is 0 (play on) or more")
    return count


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="ducktable: %(message)s", stream=sys.stderr)
    logging.getLogger("uvicorn").setLevel(logging.WARNING)


# --------------------------------------------------------------------------------------------
# Building the parts
# --------------------------------------------------------------------------------------------


def build_cues(config: CueConfig, force_mock: bool = False) -> Any:
    """The cue player for the configured pins (None when disabled)."""
    if not config.enabled:
        return None
    from .cues import CueBoard, CueError, Cues, choose_pin_factory

    try:
        factory = choose_pin_factory("mock" if force_mock else config.pin_factory)
        board = CueBoard(
            config.seat_leds,
            config.status_led,
            config.buzzer,
            quack_buttons=config.quack_buttons,
            pin_factory=factory,
        )
    except CueError as exc:
        raise UserError(
            f"{exc}; fix the [cues] pins in the settings or set enabled = false"
        ) from None
    return Cues(board)


def load_reader(camera: CameraConfig, data_dir: Path) -> Any | None:
    """The frame -> events reader named in the settings, or None when it is not installed."""
    module_name, _, func_name = camera.reader.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name + ".").startswith(exc.name + "."):
            raise UserError(
                f"[camera] reader: there is no module {module_name!r}; check the setting (the "
                f"usual one is {CameraConfig.reader!r}), or set [camera] enabled = false"
            ) from None
        raise
    factory = getattr(module, func_name, None)
    if not callable(factory):
        raise UserError(f"[camera] reader: {module_name} has no {func_name}(); check the setting")
    try:
        inspect.signature(factory).bind(camera, data_dir)
    except (TypeError, ValueError) as exc:
        raise UserError(f"[camera] reader: {camera.reader} is not a reader maker ({exc}); "
                        f"check the setting (the usual one is {CameraConfig.reader!r})") from None
    return factory(camera, data_dir)


def camera_producer(camera: CameraConfig, data_dir: Path, status: Any = None) -> Any | None:
    """The camera loop for ``run``: frames from the configured source, read by the configured
    reader; its doubts and problems go to ``status`` (a runloop.CameraStatus) for the phones."""
    from .runloop import CameraProducer

    reader = load_reader(camera, data_dir)
    if reader is None:
        return None
    from .camera import open_source

    return CameraProducer(lambda: open_source(camera.source, **camera.options), reader, status)


def web_settings(config: Config, data_dir: Path) -> dict[str, Any]:
    return {
        "INSTANCE_PATH": str(data_dir),
        "TABLE_PIN": config.table.pin or None,
        "PIN_DIGITS": config.table.pin_digits,
        "UNLOCK_MAX_AGE_S": config.table.unlock_hours * 3600,
        "PIN_FILE": str(data_dir / "table-pin"),
        "SECRET_KEY_FILE": str(data_dir / "secret-key"),
        "PARTY_FILE": str(data_dir / "party.json"),
        "CONFIG_FILE": str(config.path or data_dir / FILE_NAME),
        "TABLE_NAME": config.table.name,
        "ENROLMENT": LayoutEnrolment(data_dir),
    }


def open_store(data_dir: Path) -> MatchStore:
    try:
        store = MatchStore(data_dir / paths.DATABASE_NAME)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if store.read_only:  # the scoreboard still shows every match; changes are refused
        print(f"ducktable: warning: {store.read_only}", file=sys.stderr)
    return store


def start_appliance(appliance: Any, banner: Callable[[], None], announce: bool = False,
                    host: str = "") -> int:
    """Run until stopped; with ``announce``, the scoreboard answers as ducktable.local (or
    ducktable-2.local, ...) meanwhile, and that is the address the pages and the banner give."""
    announcer = None
    if announce:
        from .runloop import lan_address
        from .table_mdns import announce as announce_table

        address = lan_address() if host in ("0.0.0.0", "::", "") else host
        announcer = announce_table(appliance.server.port, address)
        if announcer is not None:
            appliance.lan_url, appliance.url = appliance.url, announcer.url
            appliance.app.config.update(PUBLIC_URL=announcer.url, LAN_URL=appliance.lan_url)
    try:
        return int(appliance.run_until_signal(on_started=banner))
    except OSError as exc:
        raise UserError(str(exc)) from None
    finally:
        if announcer is not None:
            announcer.close()


def run_announces(host: str, no_mdns: bool, public_url: str) -> bool:
    """Whether ``run`` announces its scoreboard by mDNS: unless asked not to, or an address is
    set in the settings, or it serves this machine only (127.x: no phone could open it)."""
    return not no_mdns and not public_url and not host.startswith("127.")


def addresses(appliance: Any) -> str:
    """The scoreboard's address for the banner, with the IP one beside a ducktable.local."""
    lan = getattr(appliance, "lan_url", "")
    return f"{appliance.url}  (or {lan})" if lan and lan != appliance.url else str(appliance.url)


# --------------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from .runloop import Appliance

    _logging()
    data_dir = paths.data_dir(getattr(args, "data_dir", None))
    config = load_config(config_path(args.config, data_dir))
    host = args.host or config.server.host
    port = args.port or config.server.port
    from .runloop import CameraStatus

    producers = []
    camera_status: CameraStatus | None = None
    if config.camera.enabled and not args.no_camera:
        camera_status = CameraStatus()
        producer = camera_producer(config.camera, data_dir, camera_status)
        if producer is not None:
            producers.append(producer)
        else:
            camera_status = None
    from .party_service import PartyLinkProducer

    producers.append(PartyLinkProducer(data_dir, port))  # idle until a phone hosts or joins
    store = open_store(data_dir)
    try:
        appliance = Appliance(
            store, web_settings(config, data_dir), host=host, port=port,
            threads=config.server.threads, producers=producers,
            cues=build_cues(config.cues), public=config.server.public_url, camera=camera_status,
        )
    except OSError as exc:
        store.close()
        raise UserError(str(exc)) from None

    def banner() -> None:
        print(f"ducktable: scoreboard on {addresses(appliance)}  (table PIN {appliance.pin})",
              flush=True)

    return start_appliance(appliance, banner, host=host, announce=run_announces(
        host, args.no_mdns, config.server.public_url))


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import DemoTable, demo_players
    from .runloop import Appliance

    _logging()
    if args.game not in game_names():
        raise UserError(f"unknown game {args.game!r}; choose one of {', '.join(game_names())}")
    try:
        players = demo_players(args.game, args.players)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    given = getattr(args, "data_dir", None)
    temporary = None if given else tempfile.TemporaryDirectory(prefix="ducktable-demo-")
    data_dir = paths.data_dir(given if given else temporary.name)  # type: ignore[union-attr]
    config = load_config(args.config) if args.config else Config()
    on_event = print_event if args.no_browser_needed else None
    table = DemoTable(args.game, players=players, pace=args.pace, seed=args.seed,
                      matches=args.matches, on_event=on_event)
    store = open_store(data_dir)
    try:
        appliance = Appliance(
            store, web_settings(config, data_dir), host=args.host, port=args.port,
            producers=[table], cues=build_cues(config.cues, force_mock=args.config is None),
        )
    except OSError as exc:
        store.close()
        raise UserError(str(exc)) from None
    title = game_class(args.game).title or args.game

    def banner() -> None:
        print(
            f"ducktable demo: {len(players)} bots play {title}, one event every {args.pace:g} s\n"
            f"  scoreboard: {addresses(appliance)}   table PIN: {appliance.pin}   (Ctrl+C stops)",
            flush=True,
        )

    try:
        return start_appliance(appliance, banner, announce=args.announce, host=args.host)
    finally:
        if temporary is not None:
            temporary.cleanup()


def print_event(info: MatchInfo, state: State, event: Event, verdict: Verdict) -> None:
    """The terminal scoreboard of ``demo --no-browser-needed``: one line per event."""
    who = info.players[event.seat] if event.seat is not None else "table"
    shown = state.game.public_event(event)
    data = " ".join(f"{k}={_short(v)}" for k, v in shown.data.items())
    scores = "  ".join(f"{name} {score}" for name, score in zip(info.players, state.scores(),
                                                                  strict=False))
    line = f"#{len(state.history) - 1:<3} {who:>6} {event.type:<7} {data}"
    print(f"{line[:60]:<60} | {scores}", flush=True)
    if state.is_over():
        winners = ", ".join(info.players[w] for w in state.winners())
        print(f"match {info.id} over: {winners} won", flush=True)


def _short(value: Any) -> str:
    """``["a", None]`` -> ``a,-``; per-seat lists of lists -> ``a,b/c``."""
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return "/".join(_short(v) for v in value)
    if isinstance(value, list):
        return ",".join(_short(v) for v in value) if value else "[]"
    return "-" if value is None else str(value)


def cmd_qr(args: argparse.Namespace) -> int:
    import qrcode

    from .runloop import public_url

    data_dir = paths.data_dir(getattr(args, "data_dir", None))
    config = load_config(config_path(args.config, data_dir))
    url = args.url or public_url(
        config.server.host, args.port or config.server.port, config.server.public_url
    )
    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, tty=False, invert=args.invert)
    print(out.getvalue() + url)
    return 0

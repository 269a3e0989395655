"""Party standings for Grey Duck's multiple-tables variant (GREY-V2).

Six or more players spread over several tables; every table plays each hand as its own
one-hand Grey Duck match, then each table's Duckling moves on to the next table, and one party
scoreboard sums all tables. The party is a rules object (``rules/grey_party.py``: seating,
rotation, standings); this page keeps it as JSON in the data folder, shows the standings and
the current seating to everyone, and lets an unlocked phone start a party, start a table's
match, record a table's result (from its finished match, or typed as a finishing order),
and load or download the party file.

A party across Pis (one Pi per table, device/party_link.py): an unlocked phone asks this Pi to
host its party or to join another's as one table (``party-link.json``, followed by
``ducktable run``); the page then shows every table live, from the state the host publishes
(``party-live.json``), and who moves where next. Without a link nothing changes: the party is
this Pi's alone and needs no broker.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ducktable.device.party_file import (
    LIVE_NAME,
    PartyFile,
    PartyFileError,
    link_settings,
    live_state,
    new_party_id,
    parse_party,
    save_link_settings,
)
from ducktable.device.party_link import DEFAULT_PORT, LinkError, parse_broker, pending_moves
from ducktable.device.store import StoreError
from ducktable.rules.grey import HANDS_DEFAULT, TERMS, GreyDuckState
from ducktable.rules.grey_party import Party, PartyError, TableHand
from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from .auth import pin_required
from .db import get_store

bp = Blueprint("party", __name__)

MAX_PARTY_JSON = 256 * 1024


def party_path() -> Path:
    configured = current_app.config.get("PARTY_FILE")
    return Path(configured) if configured else Path(current_app.instance_path) / "party.json"


def party_file() -> PartyFile:
    return PartyFile(party_path())


def data_folder() -> Path:
    """Where this Pi's party files are kept: beside the party file (the data folder)."""
    return party_path().parent


def load_party() -> Party | None:
    loaded = party_file().load()
    return loaded[0] if loaded is not None else None


class _Refused(Exception):
    """A change that cannot be made; its message is shown and nothing is saved."""


def hands_played(standings: list[dict[str, Any]]) -> int:
    return max((len(row["hands"]) for row in standings), default=0)


MAX_MATCH_ID = 2**63 - 1
"""SQLite's largest row id."""


def match_number(text: str) -> int | None:
    """The match number a party file names, or None when it names none this store can hold
    (``isdigit`` also accepts digits such as "²" that ``int`` cannot read)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    number = int(text)
    return number if 0 < number <= MAX_MATCH_ID else None


def _link_view() -> dict[str, Any]:
    """What the page shows of a party across Pis: the link asked for, the latest state heard
    or published (live status per table, who moves where), and a problem starting it."""
    folder = data_folder()
    link = link_settings(folder)
    live = live_state(folder)  # also when `ducktable party host|join` runs the link
    remote = None
    if live is not None and live.get("role") == "join" and isinstance(live.get("party"), dict):
        try:
            remote = Party.from_json(live["party"])
        except PartyError:
            remote = None
    elif live is not None and live.get("role") == "host" and link is None:
        try:
            loaded = party_file().load()
        except PartyFileError:
            loaded = None
        if loaded is None or live.get("party_id") != loaded[1]:
            live = None  # published for an earlier party: nothing to show
    tables_live = {}
    if live is not None:
        for row in live.get("tables") or []:
            if isinstance(row, dict) and isinstance(row.get("live"), dict):
                tables_live[row.get("table")] = row["live"]
    sent = (live or {}).get("sent")
    live_sent = datetime.fromtimestamp(sent, UTC).isoformat() \
        if isinstance(sent, int | float) and 0 < sent < 2**40 else None
    return {"link": link, "live": live, "remote": remote, "tables_live": tables_live,
            "live_sent": live_sent,
            "link_problem": (live or {}).get("problem"), "default_port": DEFAULT_PORT}


def _shown(party: Party | None, view: dict[str, Any]) -> dict[str, Any]:
    """What the live part shows: the host's party on a joined Pi, else this Pi's own."""
    shown = view["remote"] if view["remote"] is not None else party
    standings = shown.standings() if shown is not None else []
    rounds = max((h["round"] for row in standings for h in row["hands"]), default=0)
    return {"party": shown, "standings": standings, "rounds": rounds,
            "moves": pending_moves(shown) if shown is not None else []}


def _page(party: Party | None, problem: str | None = None, status: int = 200) -> Any:
    view = _link_view()
    matches = {}
    if party is not None and view["remote"] is None:
        store = get_store()
        for table in party.tables():
            if table.match_id is not None:
                number = match_number(table.match_id)
                try:
                    matches[table.table] = None if number is None else store.match(number)
                except StoreError:
                    matches[table.table] = None
    return (
        render_template(
            "party.html",
            local_party=party,
            matches=matches,
            problem=problem,
            **_shown(party, view),
            terms=sorted(TERMS),
            hands_default=HANDS_DEFAULT,
            **view,
        ),
        status,
    )


def _current() -> tuple[Party | None, str | None]:
    try:
        return load_party(), None
    except PartyFileError as exc:
        return None, str(exc)


@bp.get("/party")
def standings() -> Any:
    party, problem = _current()
    return _page(party, problem)


@bp.get("/party/live")
def live_fragment() -> Any:
    """The live part of the page alone, which the page fetches again every few seconds."""
    party, _ = _current()
    view = _link_view()
    return render_template("_party_live.html", **_shown(party, view), **view)


@bp.get("/party.json")
def download() -> Response:
    party, problem = _current()
    if party is None:
        return Response(
            json.dumps({"error": problem or "there is no party yet"}),
            status=404,
            mimetype="application/json",
        )
    loaded = party_file().load()
    party_id = loaded[1] if loaded is not None else new_party_id()
    return Response(
        json.dumps({**party.to_json(), "id": party_id}, indent=1, sort_keys=True),
        mimetype="application/json",
        headers={"Content-Disposition": 'attachment; filename="party.json"'},
    )


def _refuse(message: str) -> Any:
    party, _ = _current()
    return _page(party, message, 400)


def _done(message: str) -> Any:
    flash(message, "ok")
    return redirect(url_for("party.standings"), code=303)


def _change(change: Callable[[list[Any]], str]) -> Any:
    """Change the saved party under its lock (another process, e.g. the party host, may be
    changing it too). ``change(held)`` edits ``held`` (``[party, id]``) and returns the message
    to show, or raises :class:`_Refused`; then nothing is saved."""
    try:
        with party_file().update() as held:
            message = change(held)
    except _Refused as exc:
        return _refuse(str(exc))
    except PartyFileError as exc:
        return _refuse(str(exc))
    except OSError as exc:
        return _refuse(f"The party could not be saved ({exc}); nothing changed.")
    return _done(message)


def _replace_with(party: Party, party_id: str | None, message: str) -> Any:
    def replace(held: list[Any]) -> str:
        held[0], held[1] = party, party_id or new_party_id()
        return message

    return _change(replace)


@bp.post("/party/new")
@pin_required
def new() -> Any:
    form = request.form
    names = [line.strip() for line in (form.get("players") or "").splitlines() if line.strip()]
    try:
        hands = int(form.get("hands") or HANDS_DEFAULT)
    except ValueError:
        return _refuse("The number of hands must be a whole number, e.g. 12.")
    sizes_text = (form.get("table_sizes") or "").replace(",", " ").split()
    try:
        sizes = [int(s) for s in sizes_text] or None
    except ValueError:
        return _refuse("Table sizes are numbers separated by spaces, e.g. 4 3.")
    try:
        party = Party(names, hands=hands, names=form.get("names") or "classic", table_sizes=sizes)
    except PartyError as exc:
        return _refuse(f"The party cannot start: {exc}.")
    return _replace_with(party, None, f"Party started: {len(party.tables())} tables, {hands} hands.")


def _party_table(held: list[Any], table: int) -> tuple[Party, TableHand]:
    """The held party and its table number ``table``; :class:`_Refused` says what is wrong."""
    party = held[0]
    if party is None:
        raise _Refused("Start a party first.")
    if not 0 <= table < len(party.tables()):
        raise _Refused(f"There is no table {table + 1}; tables are 1 to {len(party.tables())}.")
    return party, party.tables()[table]


@bp.post("/party/table/<int:table>/start")
@pin_required
def start_table(table: int) -> Any:
    def start(held: list[Any]) -> str:
        party, hand = _party_table(held, table)
        try:
            info = get_store().create_match(
                "grey", list(hand.players), hand.match_options(party.names), observer=True,
                name=f"party round {hand.round} table {table + 1}",
            )
        except StoreError as exc:
            raise _Refused(str(exc)) from None
        party.attach_match(table, str(info.id))
        return f"Table {table + 1} plays match {info.id}."

    return _change(start)


@bp.post("/party/table/<int:table>/record")
@pin_required
def record_table(table: int) -> Any:
    def record(held: list[Any]) -> str:
        party, hand = _party_table(held, table)
        order = [
            (request.form.get(f"place_{i}") or "").strip() for i in range(len(hand.players))
        ]
        try:
            if any(order):
                if hand.order is not None:
                    party.correct_hand(table, order)
                else:
                    party.record_hand(table, order)
            elif hand.match_id is not None:
                number = match_number(hand.match_id)
                if number is None:
                    raise _Refused(
                        f"Table {table + 1}'s match {hand.match_id!r:.40} is not a match of this "
                        "table (the party file names it); start the table's match again or type "
                        "the finishing order.")
                state = get_store().state(number)
                if not isinstance(state, GreyDuckState):
                    raise _Refused(f"Match {hand.match_id} is not a Grey Duck match.")
                party.record_state(table, state)
            else:
                raise _Refused("Give the finishing order (first out first) or start the match.")
        except PartyError as exc:
            raise _Refused(f"Table {table + 1}: {exc}.") from None
        except StoreError as exc:
            raise _Refused(str(exc)) from None
        return f"Table {table + 1}'s hand recorded."

    return _change(record)


@bp.post("/party/load")
@pin_required
def load() -> Any:
    upload = request.files.get("party_file")
    text = request.form.get("party_json") or ""
    if upload is not None and upload.filename:
        raw = upload.read(MAX_PARTY_JSON + 1)
        if len(raw) > MAX_PARTY_JSON:
            return _refuse("That party file is too large (at most 256 KiB).")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _refuse("The uploaded party file is not UTF-8 text (a .json file).")
    if not text.strip():
        return _refuse("Paste the party's JSON or choose a party file to load.")
    try:
        party, party_id = parse_party(text)
    except PartyError as exc:
        return _refuse(f"The party cannot be loaded: {exc}.")
    return _replace_with(party, party_id, "Party loaded.")


# -- a party across Pis ----------------------------------------------------------------------


def _broker_field() -> str:
    """The typed broker address ("" = automatic); :class:`_Refused` if it is not HOST:PORT."""
    text = (request.form.get("broker") or "").strip()
    if text:
        try:
            parse_broker(text)
        except LinkError as exc:
            raise _Refused(f"The broker address: {exc}.") from None
    return text


def _table_field(required: bool, count: int | None = None) -> int | None:
    text = (request.form.get("table") or "").strip()
    if not text:
        if required:
            raise _Refused("Say which table this Pi plays (1 is the first).")
        return None
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= (count or 99):
        raise _Refused(f"The table is a number from 1 to {count or 99}, not {text[:20]!r}.")
    return int(text) - 1


def _ask_link(settings: dict[str, Any] | None, message: str) -> Any:
    folder = data_folder()
    try:
        (folder / LIVE_NAME).unlink(missing_ok=True)  # what an earlier link heard is stale
        save_link_settings(folder, settings)
    except OSError as exc:
        return _refuse(f"The party link setting could not be saved ({exc}); nothing changed.")
    return _done(message)


@bp.post("/party/link/host")
@pin_required
def host_link() -> Any:
    try:
        party = load_party()
        if party is None:
            raise _Refused("Start a party first; then other tables' Pis can join it.")
        broker = _broker_field()
        table = _table_field(False, len(party.tables()))
    except (_Refused, PartyFileError) as exc:
        return _refuse(str(exc))
    settings = {"role": "host", "broker": broker, "broker_port": DEFAULT_PORT, "table": table,
                "bots": None, "seed": 0, "mdns": True}
    return _ask_link(settings, "This Pi hosts the party: the other tables' Pis can join it now.")


@bp.post("/party/link/join")
@pin_required
def join_link() -> Any:
    try:
        broker = _broker_field()
        table = _table_field(True)
    except _Refused as exc:
        return _refuse(str(exc))
    settings = {"role": "join", "broker": broker, "table": table, "bots": None, "seed": 0}
    where = broker or "the host found on this network"
    return _ask_link(settings, f"This Pi joins the party at {where} as table {(table or 0) + 1}.")


@bp.post("/party/link/stop")
@pin_required
def stop_link() -> Any:
    return _ask_link(None, "This Pi no longer hosts or joins a party over the network.")

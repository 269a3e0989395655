"""Party standings for Grey Duck's multiple-tables variant (GREY-V2).

Six or more players spread over several tables; every table plays each hand as its own
one-hand Grey Duck match, then each table's Duckling moves on to the next table, and one party
scoreboard sums all tables. The party is a rules object (``rules/grey_party.py``: seating,
rotation, standings); this page keeps it as JSON in the data folder, shows the standings and
the current seating to everyone, and lets an unlocked phone start a party, start a table's
match, record a table's result (from its finished match, or typed as a finishing order),
and load or download the party file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ducktable.device.store import StoreError
from ducktable.rules.core import JSONTextError, read_json
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


class PartyFileError(ValueError):
    """The saved party cannot be read or written; the message says what to do."""


def party_path() -> Path:
    configured = current_app.config.get("PARTY_FILE")
    return Path(configured) if configured else Path(current_app.instance_path) / "party.json"


def parse_party(text: str) -> Party:
    try:
        obj = read_json(text)
    except JSONTextError as exc:
        raise PartyError(f"the party file is not JSON ({exc})") from None
    return Party.from_json(obj)


def load_party() -> Party | None:
    path = party_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise PartyFileError(f"The party file {path} cannot be read ({exc}).") from None
    try:
        return parse_party(text)
    except PartyError as exc:
        raise PartyFileError(
            f"The saved party in {path} cannot be used: {exc}. Load a good party file below."
        ) from None


def save_party(party: Party) -> None:
    """Write the party atomically (a power cut leaves the old or the new file, never half)."""
    path = party_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".party-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(party.to_json(), handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def _page(party: Party | None, problem: str | None = None, status: int = 200) -> Any:
    standings = party.standings() if party is not None else []
    rounds = max((h["round"] for row in standings for h in row["hands"]), default=0)
    matches = {}
    if party is not None:
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
            party=party,
            standings=standings,
            rounds=rounds,
            matches=matches,
            problem=problem,
            terms=sorted(TERMS),
            hands_default=HANDS_DEFAULT,
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


@bp.get("/party.json")
def download() -> Response:
    party, problem = _current()
    if party is None:
        return Response(
            json.dumps({"error": problem or "there is no party yet"}),
            status=404,
            mimetype="application/json",
        )
    return Response(
        json.dumps(party.to_json(), indent=1, sort_keys=True),
        mimetype="application/json",
        headers={"Content-Disposition": 'attachment; filename="party.json"'},
    )


def _refuse(message: str) -> Any:
    party, _ = _current()
    return _page(party, message, 400)


def _saved(party: Party, message: str) -> Any:
    try:
        save_party(party)
    except OSError as exc:
        return _refuse(f"The party could not be saved ({exc}); nothing changed.")
    flash(message, "ok")
    return redirect(url_for("party.standings"), code=303)


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
    return _saved(party, f"Party started: {len(party.tables())} tables, {hands} hands.")


def _party_table(table: int) -> tuple[Party, TableHand] | str:
    """The current party and its table number ``table``, or what is wrong with asking for it."""
    party, problem = _current()
    if party is None:
        return problem or "Start a party first."
    if not 0 <= table < len(party.tables()):
        return f"There is no table {table + 1}; tables are 1 to {len(party.tables())}."
    return party, party.tables()[table]


@bp.post("/party/table/<int:table>/start")
@pin_required
def start_table(table: int) -> Any:
    found = _party_table(table)
    if isinstance(found, str):
        return _refuse(found)
    party, hand = found
    try:
        info = get_store().create_match(
            "grey", list(hand.players), hand.match_options(party.names), observer=True,
            name=f"party round {hand.round} table {table + 1}",
        )
    except StoreError as exc:
        return _refuse(str(exc))
    party.attach_match(table, str(info.id))
    return _saved(party, f"Table {table + 1} plays match {info.id}.")


@bp.post("/party/table/<int:table>/record")
@pin_required
def record_table(table: int) -> Any:
    found = _party_table(table)
    if isinstance(found, str):
        return _refuse(found)
    party, hand = found
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
                return _refuse(f"Table {table + 1}'s match {hand.match_id!r:.40} is not a match of "
                               "this table (the party file names it); start the table's match "
                               "again or type the finishing order.")
            state = get_store().state(number)
            if not isinstance(state, GreyDuckState):
                return _refuse(f"Match {hand.match_id} is not a Grey Duck match.")
            party.record_state(table, state)
        else:
            return _refuse("Give the finishing order (first out first) or start the match.")
    except PartyError as exc:
        return _refuse(f"Table {table + 1}: {exc}.")
    except StoreError as exc:
        return _refuse(str(exc))
    return _saved(party, f"Table {table + 1}'s hand recorded.")


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
        party = parse_party(text)
    except PartyError as exc:
        return _refuse(f"The party cannot be loaded: {exc}.")
    return _saved(party, "Party loaded.")

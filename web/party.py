"""Party standings for Grey Duck's multiple-tables variant (GREY-V2).

Six or more players spread over several tables; after each hand every table's Duckling
carries the results on, and one party scoreboard sums all tables. The party itself is a rules
object (``ducktable.rules.grey_party.Party``: ``from_json``, ``to_json``, ``standings``); this
page keeps it in a JSON file in the data folder, shows its standings to everyone and lets an
unlocked phone load or replace it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from .auth import pin_required

bp = Blueprint("party", __name__)

PARTY_MODULE = "ducktable.rules.grey_party"


class PartyLike(Protocol):
    """What the page needs from a party object."""

    def to_json(self) -> dict[str, Any]: ...

    def standings(self) -> Sequence[Any]: ...


class PartyError(ValueError):
    """A party file or upload that cannot be used; the message says what to fix."""


def party_class() -> Any | None:
    """The Party class (configurable for tests), or None when the variant is not installed."""
    configured = current_app.config.get("PARTY_CLASS")
    if configured is not None:
        return configured
    try:
        module = importlib.import_module(PARTY_MODULE)
    except ModuleNotFoundError:
        return None
    return getattr(module, "Party", None)


def party_path() -> Path:
    configured = current_app.config.get("PARTY_FILE")
    return Path(configured) if configured else Path(current_app.instance_path) / "party.json"


def parse_party(cls: Any, text: str) -> PartyLike:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PartyError(f"The party file is not JSON ({exc.msg} at character {exc.pos}).") from None
    try:
        return cls.from_json(obj)  # type: ignore[no-any-return]
    except (ValueError, TypeError, KeyError) as exc:
        raise PartyError(f"The party cannot be read: {exc}") from None
    except Exception as exc:  # the rules package's own errors (RulesError) carry the message
        if exc.__class__.__module__.startswith("ducktable.rules"):
            raise PartyError(f"The party cannot be read: {exc}") from None
        raise


def load_party(cls: Any) -> PartyLike | None:
    path = party_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise PartyError(f"The party file {path} cannot be read ({exc}).") from None
    return parse_party(cls, text)


def save_party(party: PartyLike) -> None:
    """Write the party atomically (a power cut leaves the old or the new file, never half)."""
    path = party_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".party-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(party.to_json(), handle, indent=1, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def standings_table(rows: Sequence[Any]) -> tuple[list[str], list[list[Any]]]:
    """Column titles and cells for any standings shape (dicts, dataclasses, tuples)."""
    plain: list[Any] = [
        dataclasses.asdict(r) if dataclasses.is_dataclass(r) and not isinstance(r, type) else r
        for r in rows
    ]
    if plain and all(isinstance(r, Mapping) for r in plain):
        columns: list[str] = []
        for r in plain:
            columns.extend(k for k in r if k not in columns)
        return columns, [[r.get(c) for c in columns] for r in plain]
    width = max((len(r) if isinstance(r, list | tuple) else 1 for r in plain), default=0)
    columns = [f"#{i + 1}" for i in range(width)]
    cells = [list(r) if isinstance(r, list | tuple) else [r] for r in plain]
    return columns, [c + [None] * (width - len(c)) for c in cells]


@bp.get("/party")
def standings() -> Any:
    cls = party_class()
    problem = None
    columns: list[str] = []
    cells: list[list[Any]] = []
    party = None
    if cls is not None:
        try:
            party = load_party(cls)
        except PartyError as exc:
            problem = str(exc)
        if party is not None:
            columns, cells = standings_table(list(party.standings()))
    return render_template(
        "party.html",
        installed=cls is not None,
        party=party,
        columns=columns,
        cells=cells,
        problem=problem,
    )


@bp.post("/party")
@pin_required
def load() -> Any:
    cls = party_class()
    if cls is None:
        flash("The multiple-tables variant is not installed in this ducktable.", "error")
        return redirect(url_for("party.standings"), code=303)
    upload = request.files.get("party_file")
    text = request.form.get("party_json") or ""
    if upload is not None and upload.filename:
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            return _refused("The uploaded party file is not UTF-8 text (a .json file).")
    if not text.strip():
        return _refused("Paste the party's JSON or choose a party file to load.")
    try:
        party = parse_party(cls, text)
        save_party(party)
    except PartyError as exc:
        return _refused(str(exc))
    except OSError as exc:
        return _refused(f"The party could not be saved ({exc}); nothing changed.")
    flash("Party loaded.", "ok")
    return redirect(url_for("party.standings"), code=303)


def _refused(message: str) -> Any:
    return (
        render_template(
            "party.html", installed=True, party=None, columns=[], cells=[], problem=message
        ),
        400,
    )

"""The files a Grey Duck party keeps in the data folder, shared by the phone pages and the link.

Why this module exists: the party page (web/party.py), ``ducktable party host`` and the link
thread inside ``ducktable run`` all change the same party, sometimes from different processes.
Every change goes through :meth:`PartyFile.update`, which holds an exclusive lock (``flock``)
while it reads, changes and atomically replaces the file, so no change overwrites another and a
power cut leaves the old file or the new one, never half of one.

Files (all JSON, in the data folder):

* ``party.json``: the party (``Party.to_json()``) plus ``"id"``, the party's own random id that
  keys every result sent over the network (docs/party.md).
* ``party-live.json``: the latest party state as the host publishes it (standings, tables,
  each table's live status, who moves where next); written by the link, shown by the phones.
* ``party-link.json``: what this Pi's link should do (host or join a party, which broker); the
  phone page writes it, ``ducktable run`` follows it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ducktable.rules.core import JSONTextError, read_json
from ducktable.rules.grey_party import Party, PartyError

PARTY_NAME = "party.json"
LIVE_NAME = "party-live.json"
LINK_NAME = "party-link.json"


class PartyFileError(ValueError):
    """The saved party cannot be read or written; the message says what to do."""


def new_party_id() -> str:
    return secrets.token_hex(6)


def parse_party(text: str) -> tuple[Party, str | None]:
    """The party in a party file's text, and its id (None for a file saved without one)."""
    try:
        obj = read_json(text)
    except JSONTextError as exc:
        raise PartyError(f"the party file is not JSON ({exc})") from None
    party = Party.from_json(obj)
    party_id = obj.get("id") if isinstance(obj, dict) else None
    if not (isinstance(party_id, str) and party_id.isascii() and party_id.isalnum()
            and 0 < len(party_id) <= 32):
        party_id = None
    return party, party_id


def write_json_atomic(path: Path, obj: Any, *, durable: bool = True) -> None:
    """Replace ``path`` by ``obj`` as JSON: written beside it, flushed to disk (unless not
    ``durable``: a copy kept for display), renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(obj, handle, indent=1, sort_keys=True)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json_file(path: Path) -> Any | None:
    """A small JSON file's content, or None when it is missing or unreadable (never raises)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


class PartyFile:
    """``party.json`` and its lock: load, save, and change under the lock."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the party's lock (other processes and threads wait)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def load(self) -> tuple[Party, str] | None:
        """The saved party and its id (one is given to a file that has none), or None."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise PartyFileError(f"The party file {self.path} cannot be read ({exc}).") from None
        try:
            party, party_id = parse_party(text)
        except PartyError as exc:
            raise PartyFileError(
                f"The saved party in {self.path} cannot be used: {exc}. "
                "Load a good party file or start a new party.") from None
        return party, party_id or new_party_id()

    def save(self, party: Party, party_id: str) -> None:
        write_json_atomic(self.path, {**party.to_json(), "id": party_id})

    @contextlib.contextmanager
    def update(self) -> Iterator[list[Any]]:
        """``with f.update() as held:`` ``held`` is ``[party, id]`` (``[None, None]`` when
        there is none); whatever ``held`` holds at the end is saved, under the lock throughout.
        An exception inside saves nothing."""
        with self.locked():
            loaded = self.load()
            held: list[Any] = list(loaded) if loaded is not None else [None, None]
            before = json.dumps(held[0].to_json()) if held[0] is not None else None
            yield held
            if held[0] is not None and (
                    loaded is None or json.dumps(held[0].to_json()) != before
                    or held[1] != loaded[1]):
                self.save(held[0], held[1] or new_party_id())


def link_settings(data_dir: Path) -> dict[str, Any] | None:
    """What the phone asked this Pi's party link to do (``party-link.json``), or None."""
    found = read_json_file(data_dir / LINK_NAME)
    return found if isinstance(found, dict) and found.get("role") in ("host", "join") else None


def save_link_settings(data_dir: Path, settings: dict[str, Any] | None) -> None:
    """Ask the link to host/join (``settings``) or to stop (None)."""
    path = data_dir / LINK_NAME
    if settings is None:
        path.unlink(missing_ok=True)
    else:
        write_json_atomic(path, settings)


def live_state(data_dir: Path) -> dict[str, Any] | None:
    """The latest party state this Pi heard or published (``party-live.json``), or None."""
    found = read_json_file(data_dir / LIVE_NAME)
    return found if isinstance(found, dict) else None

"""Where ducktable keeps the user's data: matches, camera calibration and enrolled decks.

Why this module exists: every command and the run loop must agree on one data folder. It is
chosen in this order: the ``--data-dir`` option, then ``$DUCKTABLE_DATA``, then
``~/.local/share/ducktable``. The folder (and each sub-folder asked for) is created on first
use, and a folder that cannot be created is reported as a :class:`DataDirError` saying what to
do, not as a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

from .cli import UserError

ENV_VAR = "DUCKTABLE_DATA"
DATABASE_NAME = "matches.sqlite3"
CALIBRATION_NAME = "calibration"
DECKS_NAME = "decks"


class DataDirError(UserError):
    """The data folder (or a folder inside it) cannot be created or is not a folder."""


def default_data_dir() -> Path:
    """``~/.local/share/ducktable``: the usual place for a Linux user's application data."""
    return Path.home() / ".local" / "share" / "ducktable"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``override`` (the ``--data-dir`` value) > ``$DUCKTABLE_DATA`` > default.

    Empty values count as not given. The folder is created if missing.
    """
    if override is not None and str(override) != "":
        chosen, why = Path(override), "--data-dir"
    elif os.environ.get(ENV_VAR):
        chosen, why = Path(os.environ[ENV_VAR]), f"${ENV_VAR}"
    else:
        chosen, why = default_data_dir(), "the default data folder"
    return _ensure_dir(chosen.expanduser(), why)


def database_path(override: str | os.PathLike[str] | None = None) -> Path:
    """The SQLite file holding every match (the folder is created; the file by the store)."""
    return data_dir(override) / DATABASE_NAME


def calibration_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The folder for camera calibration and table layout files (created if missing)."""
    return _ensure_dir(data_dir(override) / CALIBRATION_NAME, "the calibration folder")


def enrolled_decks_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The folder for decks the user enrolled from photos of their own cards (created)."""
    return _ensure_dir(data_dir(override) / DECKS_NAME, "the enrolled decks folder")


def _ensure_dir(path: Path, why: str) -> Path:
    if path.exists() and not path.is_dir():
        raise DataDirError(
            f"{path} ({why}) is a file, not a folder; move it away or choose another folder "
            f"with --data-dir or ${ENV_VAR}"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(
            f"cannot create {path} ({why}): {exc.strerror or exc}; choose a writable folder "
            f"with --data-dir or ${ENV_VAR}"
        ) from None
    return path

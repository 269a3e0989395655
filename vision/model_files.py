"""Model files shipped in ``models/``: refused with a clear message when missing or changed.

Every network (card classifier, card locator, card features) comes with a manifest whose
SHA-256 is checked before onnxruntime opens the file, so a swapped, truncated or edited model is
named with what to do, never run.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any


class ModelError(Exception):
    """Something is wrong with a model's files; the message says which and what to do."""


class ModelMissingError(ModelError, FileNotFoundError):
    """The model or its manifest is not where it should be."""


class ModelCorruptError(ModelError, ValueError):
    """The model or manifest cannot be read, or the model's SHA-256 does not match its manifest."""


def shipped(file_name: str) -> Path:
    """A model file shipped in ``ducktable.models`` (works from a checkout and from a wheel)."""
    return Path(str(resources.files("ducktable.models").joinpath(file_name)))


def manifest_path(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def training_command(model_path: Path) -> str | None:
    """The command that made an exported model, from its manifest (with the command of the
    model it started from, if it was fine-tuned): what a fine-tuned model's manifest records
    as ``init_command``."""
    training = json.loads(manifest_path(model_path).read_text(encoding="utf-8")).get("training", {})
    command = training.get("command")
    before = training.get("init_command")
    return f"{before}, then {command}" if before and command else command


def read_manifest(model_path: Path, what: str, hint: str, *keys: str) -> dict[str, Any]:
    """The manifest beside ``model_path``, holding at least ``sha256`` and ``keys``; a
    :class:`ModelError` naming ``what`` (e.g. "card features") and ``hint`` when it is missing or
    unreadable."""
    manifest = manifest_path(model_path)
    if not manifest.is_file():
        raise ModelMissingError(f"the {what} manifest {manifest} is missing; {hint}")
    try:
        info = json.loads(manifest.read_text(encoding="utf-8"))
        lacking = [key for key in ("sha256", *keys) if key not in info]
    except (OSError, ValueError, TypeError) as exc:
        raise ModelCorruptError(f"the {what} manifest {manifest} cannot be read ({exc!r}); "
                                f"{hint}") from None
    if lacking or not isinstance(info, dict):
        raise ModelCorruptError(f"the {what} manifest {manifest} cannot be read (no "
                                f"{', '.join(lacking) or 'object'}); {hint}")
    return info


def checked_session(path: Path, sha256: str, threads: int, what: str, hint: str) -> Any:
    """An onnxruntime session of the model at ``path`` once its SHA-256 is ``sha256``;
    otherwise a :class:`ModelError` naming ``what`` (e.g. "card classifier") and ``hint``."""
    import onnxruntime as ort

    if not path.is_file():
        raise ModelMissingError(f"the {what} model {path} is missing; {hint}")
    actual = file_sha256(path)
    if actual != sha256:
        raise ModelCorruptError(
            f"the {what} model {path} does not match its manifest (SHA-256 {actual[:12]}"
            f"… instead of {sha256[:12]}…): it was changed or damaged; {hint}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelCorruptError(f"onnxruntime cannot load {path} ({exc}); {hint}") from None

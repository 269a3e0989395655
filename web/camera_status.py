"""The run loop's camera status as the web pages read it: the camera's news, or None without one.

Why this module exists: the scoreboard, the camera's Confirm/Reject answers and manual entry
(which hides the camera's question when a person types its event) all read the same status,
``CAMERA`` in the app's configuration (device/runloop.py CameraStatus); here it is read once,
and a status that fails never takes a page down.
"""

from __future__ import annotations

from typing import Any

from flask import current_app


def camera_status() -> Any:
    return current_app.config.get("CAMERA")


def camera_snapshot() -> dict[str, Any] | None:
    """The camera's news (``version``, ``problem``, ``notice``), or None without a camera."""
    status = camera_status()
    if status is None:
        return None
    try:
        snap = status.snapshot()
    except Exception:  # a camera status that fails must never take the scoreboard down
        current_app.logger.exception("the camera status failed")
        return None
    return snap if isinstance(snap, dict) else None

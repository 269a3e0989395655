"""The newest picture of a live OpenCV camera, not the oldest one in its queue.

Why this module exists: a webcam's driver keeps a queue of a few pictures, and
``VideoCapture.read()`` hands out the oldest. A reader slower than the camera (a Pi reads a
table a few times a second; a webcam films 30 times) would then see the table as it was a
second or more ago, and a Grey Duck race would be cued late. So a thread takes every picture
off the queue as it arrives (``grab()``, which for most cameras does not decode it), and when
the reader asks, decodes the next one to arrive (``retrieve()``): at most one camera interval
old. ``CAP_PROP_BUFFERSIZE`` would be simpler, but most of OpenCV's backends ignore it.

Only the thread touches the capture: OpenCV's captures are not safe to use from two threads.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np


class CameraStopped(RuntimeError):
    """The camera stopped giving pictures (its ``grab()`` failed) or none came in time."""


class NewestFrame:
    """Keeps ``capture`` (an opened ``cv2.VideoCapture``) drained on a thread of its own.

    ``take()`` returns the first picture that arrives after it was called, decoded.
    ``stop()`` ends the thread; it does not release the capture.
    """

    def __init__(self, capture: Any, *, wait_s: float = 5.0) -> None:
        self._capture = capture
        self._wait_s = wait_s
        self._changed = threading.Condition()
        self._wanted = False
        self._picture: np.ndarray | None = None
        self._failure: str | None = None
        self._stopping = False
        self._thread = threading.Thread(target=self._drain, name="camera", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            with self._changed:
                if self._stopping:
                    return
            failure = self._grab_one()
            with self._changed:
                if failure is not None:
                    self._failure = failure
                    self._changed.notify_all()
                    return

    def _grab_one(self) -> str | None:
        """Take one picture off the queue, decoding it when a reader waits; the failure, if any."""
        try:
            if not self._capture.grab():
                return "no frame"
            with self._changed:
                wanted = self._wanted
            if not wanted:
                return None
            ok, image = self._capture.retrieve()
        except Exception as exc:  # noqa: BLE001 - any driver failure stops the camera
            return f"the camera failed: {exc}"
        if not ok or image is None:
            return "a frame could not be decoded"
        with self._changed:
            self._picture, self._wanted = image, False
            self._changed.notify_all()
        return None

    def take(self) -> np.ndarray:
        """The next picture to arrive.

        Raises :class:`CameraStopped` when the camera failed or gave nothing for ``wait_s``.
        """
        with self._changed:
            if self._failure is None:
                self._picture, self._wanted = None, True
                self._changed.wait_for(
                    lambda: self._picture is not None or self._failure is not None, self._wait_s)
            picture, self._picture, self._wanted = self._picture, None, False
            if picture is None:
                raise CameraStopped(self._failure or f"no frame for {self._wait_s:g} s")
            return picture

    def stop(self) -> bool:
        """End the thread (idempotent) and say whether it ended. A grab under way finishes
        first: a camera's within one frame, but a stalled stream's may never return, and then
        the capture must not be released under it (the thread, a daemon, is left behind)."""
        with self._changed:
            self._stopping = True
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=self._wait_s)
        return not self._thread.is_alive()

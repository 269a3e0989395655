"""The live scoreboard's messages: built once per change by one thread, however many phones watch.

Why this module exists: with a stream per phone that polled the store and rendered for itself,
200 phones meant 200 loops under the store's lock every half second. Here one hub thread per
app watches the matches that phones follow: after every change of the store (it is woken at
once) and every ``LIVE_WAIT_S`` (cues, the camera, other processes) it reads each watched
match's ``seq``, the cue board and the camera, and when any of them changed it builds the
match's message once and publishes it on the match's :class:`MatchFeed`. A phone's stream only
waits for the feed's next version and writes the same bytes: the threaded route in
web/scoreboard.py, or the asynchronous one in web/asgi.py that holds no thread at all.

The message's camera forms carry no CSRF token (it is per phone session); the page has its own
token in ``data-csrf`` and web/static/app.js puts it in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from ducktable.device.store import MatchStore, StoreError
from flask import Flask, g

from .camera_status import camera_snapshot

log = logging.getLogger(__name__)

_EXT = "ducktable.live_hub"

CSRF_PLACEHOLDER = ""
"""The token the camera forms of a live message carry (the phone's script fills in its own)."""


class MatchFeed:
    """The latest live message of one match, and a version that grows with each new one."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.version = 0
        self.message = b""
        self.missing = False
        """The match does not exist, or the store was closed: streams end."""
        self.watchers = 0
        self.state_key: Any = None
        self._cond = threading.Condition()

    def publish(self, message: bytes = b"", *, missing: bool = False) -> None:
        with self._cond:
            self.version += 1
            if message:
                self.message = message
            self.missing = self.missing or missing
            self._cond.notify_all()

    def wait(self, after_version: int, timeout: float) -> int:
        """Block until a version newer than ``after_version`` or ``timeout`` seconds; returns
        the version (the caller reads ``message`` and ``missing``)."""
        with self._cond:
            self._cond.wait_for(lambda: self.version != after_version, max(0.0, timeout))
            return self.version


class LiveHub:
    """The one thread that builds every watched match's live message (see the module doc)."""

    def __init__(self, app: Flask, store: MatchStore, build: Callable[[int, int | None, Any], bytes],
                 cues: Callable[[], Any]) -> None:
        """``build(match_id, newer, camera)`` makes a match's message and ``cues()`` reads the
        cue board; both run in an app and request context of the hub's thread."""
        self.app = app
        self.store = store
        self.build = build
        self.cues = cues
        self.stop: threading.Event = app.config["STOP_EVENT"]
        self.wait_s = float(app.config["LIVE_WAIT_S"])
        self._feeds: dict[int, MatchFeed] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._listeners: list[Callable[[MatchFeed], None]] = []

    # -- subscribers ---------------------------------------------------------------------------
    def subscribe(self, match_id: int) -> MatchFeed:
        """The feed of ``match_id``, watched until :meth:`unsubscribe`; its first message is
        built at once when it has none yet."""
        with self._lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = MatchFeed(match_id)
            feed.watchers += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="live-hub", daemon=True)
                self._thread.start()
        if not feed.message:
            self.store.wake_waiters()
        return feed

    def unsubscribe(self, feed: MatchFeed) -> None:
        with self._lock:
            feed.watchers -= 1
            if feed.watchers <= 0 and self._feeds.get(feed.match_id) is feed:
                del self._feeds[feed.match_id]

    def add_listener(self, listener: Callable[[MatchFeed], None]) -> None:
        """Call ``listener(feed)`` from the hub's thread after every publication (the
        asynchronous server wakes its streams with it)."""
        with self._lock:
            self._listeners.append(listener)

    def watched(self) -> int:
        """How many streams are open (all matches)."""
        with self._lock:
            return sum(f.watchers for f in self._feeds.values())

    # -- the hub's thread ----------------------------------------------------------------------
    def _run(self) -> None:
        generation = -1
        try:
            while not self.stop.is_set():
                with self._lock:
                    feeds = list(self._feeds.values())
                if feeds:
                    self._refresh(feeds)
                generation = self.store.wait_for_any_change(
                    generation if generation >= 0 else self.store.generation, self.wait_s)
        except StoreError:
            pass  # the store was closed: shutting down
        finally:
            with self._lock:
                feeds = list(self._feeds.values())
                self._thread = None
            for feed in feeds:
                self._publish(feed, missing=True)

    def _refresh(self, feeds: list[MatchFeed]) -> None:
        with self.app.test_request_context("/"):
            g._csrf_token = CSRF_PLACEHOLDER  # see the module doc: never a session's token
            cue = self.cues()
            camera = camera_snapshot()
            newest = self.store.newest_match()
            for feed in feeds:
                newer = newest.id if newest is not None and newest.id > feed.match_id else None
                try:
                    key = (self.store.seq(feed.match_id), cue, newer, camera and camera.get("version"))
                    if key == feed.state_key and feed.message:
                        continue
                    message = self.build(feed.match_id, newer, camera)
                except Exception as exc:  # this match's streams end; the other matches' go on
                    if not isinstance(exc, StoreError):
                        log.exception("the live board of match %s failed", feed.match_id)
                    self._publish(feed, missing=True)
                    continue
                feed.state_key = key
                self._publish(feed, message)

    def _publish(self, feed: MatchFeed, data: bytes = b"", *, missing: bool = False) -> None:
        feed.publish(data, missing=missing)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(feed)


def live_hub(app: Flask, build: Callable[[int, int | None, Any], bytes],
             cues: Callable[[], Any]) -> LiveHub:
    """The app's hub, made on first use (see :class:`LiveHub` for ``build`` and ``cues``)."""
    hub = app.extensions.get(_EXT)
    if hub is None:
        from .db import get_store

        with app.app_context():
            store = get_store()
        hub = app.extensions.setdefault(_EXT, LiveHub(app, store, build, cues))
    return hub

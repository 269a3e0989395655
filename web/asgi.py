"""The appliance's web server application: live streams on an event loop, pages on threads.

Why this module exists: a live scoreboard is a response that never ends, so a threaded server
gives every watching phone a thread for good; at a game café 48 phones took every thread and
pages, PIN entries and events waited in a queue. Here the ASGI server (uvicorn, in
device/runloop.py) runs this application: ``GET /match/N/live`` is answered on the event loop,
where an open stream is a few objects, and waits for the match's next message from the live
hub (web/live.py); everything else goes to the Flask application on a pool of worker threads
(a2wsgi). A request's body is read on the event loop, within ``BODY_TIMEOUT_S``, before it
takes a worker thread, so slow or idle connections hold no thread either.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from a2wsgi import WSGIMiddleware
from flask import Flask

from .db import MAX_MATCH_ID
from .headers import POLICY
from .live import MatchFeed
from .scoreboard import board_hub

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

LIVE_PATH = re.compile(r"/match/([0-9]{1,19})/live")

BODY_TIMEOUT_S = 10.0
"""How long a request's body may take to arrive (a phone sends a form in well under a second)."""

FIRST_MESSAGE_S = 10.0
"""How long a new stream waits for its match's first message before giving up (503)."""

STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class TableApp:
    """The ASGI application around the Flask app (see the module doc)."""

    def __init__(self, app: Flask, workers: int) -> None:
        self.flask = app
        self.pages = WSGIMiddleware(app, workers=workers)  # type: ignore[arg-type]
        self.hub = board_hub(app)
        self.stop = app.config["STOP_EVENT"]
        self.keepalive_s = float(app.config["LIVE_KEEPALIVE_S"])
        self.max_body = int(app.config.get("MAX_CONTENT_LENGTH") or 1 << 20)
        self.upload_limits: dict[str, int] = dict(app.config.get("UPLOAD_LIMITS") or {})
        """Larger bodies allowed under some paths (a photo upload); the view checks its own."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakers: dict[int, set[asyncio.Event]] = {}
        self.hub.add_listener(self._published)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self._loop = asyncio.get_running_loop()
        found = LIVE_PATH.fullmatch(scope["path"])
        live = found and scope["method"] == "GET" and int(found[1]) <= MAX_MATCH_ID
        if live and found:
            if await self._stream(int(found[1]), receive, send):
                return
            # no such match: the Flask app answers with its 404 page (the stream read the
            # request's empty body already)
            await self.pages(scope, _replaying(b"", receive), send)  # type: ignore[arg-type]
            return
        whole = await self._read_body(scope, receive, send)
        if whole is not None:
            await self.pages(scope, whole, send)  # type: ignore[arg-type]

    def close(self) -> None:
        """Wake every stream so that it sees the stop event and ends (from any thread)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake_all)

    # -- live streams ----------------------------------------------------------------------------
    def _published(self, feed: MatchFeed) -> None:
        """The hub's thread published a message: wake the match's streams on the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and feed.match_id in self._wakers:
            loop.call_soon_threadsafe(self._wake, feed.match_id)

    def _wake(self, match_id: int) -> None:
        for waker in self._wakers.get(match_id, ()):
            waker.set()

    def _wake_all(self) -> None:
        for wakers in self._wakers.values():
            for waker in wakers:
                waker.set()

    async def _stream(self, match_id: int, receive: Receive, send: Send) -> bool:
        """Serve one phone's live stream; False when the match does not exist (nothing sent)."""
        waker = asyncio.Event()
        self._wakers.setdefault(match_id, set()).add(waker)
        feed = self.hub.subscribe(match_id)
        gone = asyncio.Event()
        watcher = asyncio.create_task(_until_disconnect(receive, gone, waker))
        try:
            deadline = time.monotonic() + FIRST_MESSAGE_S
            while not (feed.message or feed.missing or gone.is_set() or self.stop.is_set()):
                if not await _wait(waker, deadline - time.monotonic()):
                    break
            if feed.missing:
                return False
            if not feed.message:
                await _plain(send, 503, "The scoreboard is starting or stopping; try again.")
                return True
            await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
            await send({"type": "http.response.body", "body": b"retry: 1000\n\n", "more_body": True})
            seen = 0
            last_write = time.monotonic()
            while not (gone.is_set() or self.stop.is_set() or feed.missing):
                waker.clear()
                if feed.version != seen:
                    seen = feed.version
                    await send({"type": "http.response.body", "body": feed.message, "more_body": True})
                    last_write = time.monotonic()
                    continue
                quiet = time.monotonic() - last_write
                if quiet >= self.keepalive_s:
                    await send({"type": "http.response.body", "body": b": keep-alive\n\n",
                                "more_body": True})
                    last_write = time.monotonic()
                    continue
                await _wait(waker, self.keepalive_s - quiet)
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            return True
        except OSError:
            return True  # the phone went away while a message was written
        finally:
            watcher.cancel()
            self._wakers[match_id].discard(waker)
            if not self._wakers[match_id]:
                del self._wakers[match_id]
            self.hub.unsubscribe(feed)

    # -- pages -----------------------------------------------------------------------------------
    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """``receive`` with the whole body already read (within ``BODY_TIMEOUT_S``), so a worker
        thread never waits for a slow client; None when the request was answered here."""
        chunks: list[bytes] = []
        size = 0
        more = True
        limit = max([self.max_body] + [most for prefix, most in self.upload_limits.items()
                                       if scope["path"].startswith(prefix)])
        try:
            async with asyncio.timeout(BODY_TIMEOUT_S):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        await _plain(send, 413, "The request is too large; send a smaller one.")
                        return None
                    chunks.append(chunk)
                    more = bool(message.get("more_body", False))
        except TimeoutError:
            await _plain(send, 408, "The request took too long to arrive; send it again.")
            return None
        return _replaying(b"".join(chunks), receive)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` whole first, then what ``receive`` gives (the end)."""
    delivered = False

    async def whole() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return whole


async def _wait(event: asyncio.Event, timeout: float) -> bool:
    """Wait for ``event`` at most ``timeout`` seconds; whether it was set."""
    if timeout <= 0:
        return event.is_set()
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return False
    return True


async def _until_disconnect(receive: Receive, gone: asyncio.Event, waker: asyncio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
            waker.set()
            return


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": (text + "\n").encode()})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return

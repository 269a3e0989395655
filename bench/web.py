"""Load check of the table's web server on a game night: many phones on one match's live board.

Why this module exists: a game café puts 200 phones on one table; every phone must see every
event within 250 ms (95th percentile), pages must keep loading (300 ms) and entries keep being
recorded while the streams are open, idle or slow connections must lock nobody out, and none
of it may grow with the table's history. This runs the real appliance (server, store, hub) in
a child process on a temporary database, optionally filled with a synthetic history (bulk
inserts of bot matches), and plays the phones from this process over loopback:

* ``phones`` live streams on the table's match (asyncio, one thread for all of them);
* a scorekeeper phone that unlocks with the PIN and enters ``entries`` bot events through the
  entry form, one every ``interval`` s: for every (phone, event) the time from sending the
  entry to the stream message carrying it;
* two browsing phones loading the scoreboard, entry, history and home pages meanwhile;
* then ``idle`` connections (half idle, half sending a header byte a second) and a fresh phone
  loading a page and entering an event, ten times.

It prints figures and asserts nothing (a benchmark, not a test). Only HTTP reaches the server,
so an older ducktable can be measured by the same code.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import multiprocessing
import random
import re
import sqlite3
import statistics
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ducktable.device.demo import demo_players, next_event
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event, EventSpec, RandomBot, State
from ducktable.rules.registry import make_game

PIN = "4821"
GIVE_UP_S = 15.0
"""A phone gives up on a page or an entry after this long (as the phones in the issue did)."""

TOKEN = re.compile(rb'name="csrf_token" value="([^"]+)"')


# ---- a synthetic history -----------------------------------------------------------------------


def build_history(path: Path, matches: int, events: int, seed: int = 1) -> tuple[int, int]:
    """Fill the database at ``path`` with ``matches`` finished-or-not bot matches holding about
    ``events`` events in all: a few real matches played by bots (recorded through the store,
    so their summaries are right), copied row for row with bulk inserts. Returns the counts."""
    if matches <= 0:
        return 0, 0
    per = max(1, events // matches)
    templates: list[int] = []
    with MatchStore(path) as store:
        lengths: list[tuple[int, int]] = []
        for game in ("grey", "bruce", "duck", "sitting", "ducky"):
            for k in range(2):
                played = _bot_match(game, seed + k)
                lengths.append((len(played[1]), len(templates)))
                info = store.record_match(game, played[0], {}, played[1][:per], name="history")
                templates.append(info.id)
        long_enough = [templates[i] for n, i in lengths if n >= per]
        chosen = long_enough or [templates[i] for _, i in sorted(lengths, reverse=True)[:2]]
    conn = sqlite3.connect(path)
    try:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(matches)") if row[1] != "id"]
        names = ", ".join(columns)
        conn.execute("BEGIN")
        for i in range(matches - len(templates)):
            source = chosen[i % len(chosen)]
            cur = conn.execute(f"INSERT INTO matches ({names}) SELECT {names} FROM matches WHERE id = ?",
                               (source,))
            conn.execute("INSERT INTO events (match_id, idx, body) SELECT ?, idx, body FROM events"
                         " WHERE match_id = ?", (cur.lastrowid, source))
        conn.execute("COMMIT")
        count = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()
    return int(count), int(total)


def _bot_match(game: str, seed: int) -> tuple[list[str], list[Event]]:
    players = demo_players(game)
    state = make_game(game, {}).new_state(players, observer=False)
    rng = random.Random(seed)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(players))]
    events: list[Event] = []
    while not state.is_over() and len(events) < 5000:
        event = next_event(state, bots, rng)
        if not state.apply(event).ok:
            break
        events.append(event)
    return players, events


# ---- the server, in its own process ----------------------------------------------------------


def _serve(db: str, data: str, threads: int | None, ready: Any, stop: Any) -> None:
    from ducktable.device.runloop import Appliance

    logging.basicConfig(level=logging.ERROR)
    store = MatchStore(db)
    extra = {} if threads is None else {"threads": threads}
    appliance = Appliance(store, {"INSTANCE_PATH": data, "TABLE_PIN": PIN, "SECRET_KEY": "bench" * 8},
                          host="127.0.0.1", port=0, **extra)
    appliance.start()
    ready.put(appliance.server.port)
    stop.wait()
    appliance.stop()


# ---- HTTP from the phones ----------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    body: bytes
    seconds: float
    location: str = ""


class Phone:
    """A phone that loads pages and posts forms (its own session cookie)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.token = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Reply:
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=GIVE_UP_S)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            cookie = response.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            found = TOKEN.search(data)
            if found:
                self.token = found.group(1).decode()
            return Reply(response.status, data, time.perf_counter() - started,
                         response.getheader("Location") or "")
        except OSError:
            return Reply(0, b"", time.perf_counter() - started)
        finally:
            conn.close()

    def unlock(self) -> bool:
        self.request("GET", "/unlock")
        return self.request("POST", "/unlock", {"pin": PIN, "csrf_token": self.token,
                                                "next": "/"}).status == 303

    def enter(self, match_id: int, fields: dict[str, str]) -> Reply:
        key = f"{random.getrandbits(128):032x}"
        return self.request("POST", f"/match/{match_id}/events",
                            {**fields, "csrf_token": self.token, "idempotency_key": key})


def form_fields(spec: EventSpec, event: Event) -> dict[str, str]:
    """The entry form's fields that describe ``event`` (as the phone's form names them)."""
    fields = {"_type": event.type}
    if event.seat is not None:
        fields["_seat"] = str(event.seat)
    for f in spec.fields:
        if f.name not in event.data:
            continue
        value = event.data[f.name]
        if f.kind == "any" and f.help.lower().startswith("per seat"):
            for i, v in enumerate(value):
                fields[f"{f.name}.{i}"] = " ".join(v) if isinstance(v, list) else (v or "")
        elif f.kind == "bool":
            fields[f.name] = "on" if value else ""
        elif f.kind == "cards":
            fields[f.name] = " ".join(value)
        elif f.kind in ("int", "str", "seat", "choice", "card"):
            fields[f.name] = str(value)
        else:
            fields[f.name] = json.dumps(value)
    return fields


@dataclass
class Streams:
    """The phones' live streams and the connections that only hold a socket, on one event
    loop in a thread of their own."""

    port: int
    path: str
    arrivals: list[dict[int, float]] = field(default_factory=list)
    errors: int = 0
    loop: asyncio.AbstractEventLoop | None = None
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self, phones: int) -> None:
        self.arrivals = [{} for _ in range(phones)]
        ready = threading.Event()

        def run() -> None:
            self.loop = asyncio.new_event_loop()
            for i in range(phones):
                self._tasks.append(self.loop.create_task(self._phone(i)))
            ready.set()
            self.loop.run_forever()
            self.loop.close()

        self._thread = threading.Thread(target=run, name="phones", daemon=True)
        self._thread.start()
        ready.wait()

    def connected(self) -> int:
        return sum(1 for a in self.arrivals if a)

    def hold(self, count: int) -> None:
        """Open ``count`` connections that never finish a request: half send nothing, half
        send a byte of their headers every second."""
        assert self.loop is not None
        for i in range(count):
            self.loop.call_soon_threadsafe(self._spawn, self._idle(trickle=i % 2 == 1))

    def stop(self) -> None:
        if self.loop is not None:
            asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(timeout=30)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)

    async def _close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, coroutine: Any) -> None:
        assert self.loop is not None
        self._tasks.append(self.loop.create_task(coroutine))

    async def _phone(self, i: int) -> None:
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 22)
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n"
                         .encode())
            status = await reader.readline()
            if b" 200 " not in status:
                self.errors += 1
                return
            arrivals = self.arrivals[i]
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    arrivals.setdefault(int(line[4:]), time.perf_counter())
        except (OSError, ValueError, asyncio.LimitOverrunError):
            self.errors += 1
        finally:
            if writer is not None:
                writer.close()

    async def _idle(self, trickle: bool) -> None:
        writer = None
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            if not trickle:
                await asyncio.sleep(3600)
            for byte in b"GET /history HTTP/1.1\r\nHost: table\r\nX-Slow: " + b"x" * 4000:
                writer.write(bytes([byte]))
                await asyncio.sleep(1.0)
        except OSError:
            return  # the server closed the slow connection: what the benchmark wants
        finally:
            if writer is not None:
                writer.close()


def _first_arrival(arrivals: dict[int, float], seq: int) -> float | None:
    times = [when for got, when in arrivals.items() if got >= seq]
    return min(times) if times else None


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _browse(port: int, match_id: int, stop: threading.Event, out: list[Reply]) -> None:
    phone = Phone(port)
    paths = [f"/match/{match_id}", f"/match/{match_id}/entry", "/history", "/"]
    i = 0
    while not stop.is_set():
        out.append(phone.request("GET", paths[i % len(paths)]))
        i += 1
        stop.wait(0.1)


# ---- the benchmark -----------------------------------------------------------------------------


def run_web_bench(
    phones: int = 200,
    entries: int = 40,
    interval: float = 0.25,
    matches: int = 0,
    history_events: int = 0,
    idle: int = 100,
    threads: int | None = None,
    seed: int = 1,
    progress: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """Measure the game night described in the module doc; prints and returns the figures."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="ducktable-bench-web-") as tmp:
        db = Path(tmp) / "matches.sqlite3"
        started = time.perf_counter()
        made = build_history(db, matches, history_events, seed)
        build_s = time.perf_counter() - started
        game = "duck"
        players = demo_players(game)
        with MatchStore(db) as store:
            table = store.create_match(game, players, observer=False, name="game night")
        progress(f"history: {made[0]} matches, {made[1]} events in {build_s:.1f} s")
        ready, stop = context.Queue(), context.Event()
        server = context.Process(target=_serve, args=(str(db), tmp, threads, ready, stop),
                                 daemon=True)
        server.start()
        try:
            port = int(ready.get(timeout=120))
            figures = _measure(port, table.id, game, players, phones, entries, interval, idle,
                               progress)
        finally:
            stop.set()
            server.join(timeout=30)
            if server.is_alive():
                server.kill()
    figures.update(history_matches=made[0], history_events=made[1], history_build_s=build_s)
    print(report(figures))
    return figures


def _measure(port: int, match_id: int, game: str, players: list[str], phones: int, entries: int,
             interval: float, idle: int, progress: Callable[[str], None]) -> dict[str, Any]:
    figures: dict[str, Any] = {"phones": phones, "entries_sent": entries, "interval": interval,
                               "idle": idle}
    fresh = Phone(port)
    figures["restart_history_ms"] = 1000 * fresh.request("GET", "/history").seconds
    figures["restart_home_ms"] = 1000 * fresh.request("GET", "/").seconds

    streams = Streams(port, f"/match/{match_id}/live")
    streams.start(phones)
    deadline = time.monotonic() + 30
    while streams.connected() < phones and time.monotonic() < deadline:
        time.sleep(0.1)
    figures["connected"] = streams.connected()
    progress(f"{figures['connected']} of {phones} phones connected")

    keeper = Phone(port)
    keeper.unlock()
    keeper.request("GET", f"/match/{match_id}/entry")
    state: State = make_game(game, {}).new_state(players, observer=False)
    rng = random.Random(7)
    bots = [RandomBot(random.Random(7 + i)) for i in range(len(players))]
    browsing_stop = threading.Event()
    pages: list[Reply] = []
    browsers = [threading.Thread(target=_browse, args=(port, match_id, browsing_stop, pages),
                                 daemon=True) for _ in range(2)]
    for b in browsers:
        b.start()
    sent: dict[int, float] = {}
    entry_times: list[float] = []
    refused = failed = 0
    for _ in range(entries):
        if state.is_over():
            break
        event = next_event(state, bots, rng)
        spec = state.game.event_spec(event.type)
        if spec is None or not spec.manual:
            continue
        started = time.perf_counter()
        reply = keeper.enter(match_id, form_fields(spec, event))
        if reply.status == 303:
            state.apply(event)
            sent[len(sent) + 1] = started
            entry_times.append(reply.seconds)
        elif reply.status == 0:
            failed += 1
            if failed >= 3 and not sent:
                break  # the server takes no entry at all: do not wait 15 s for each
        else:
            refused += 1
        time.sleep(interval)
    time.sleep(2.0)
    browsing_stop.set()
    for b in browsers:
        b.join(timeout=GIVE_UP_S + 1)

    latencies: list[float] = []
    missing = 0
    for arrivals in streams.arrivals:
        if not arrivals:
            continue
        for seq, started in sent.items():
            arrived = _first_arrival(arrivals, seq)
            if arrived is None:
                missing += 1
            else:
                latencies.append(arrived - started)
    view = json.loads(fresh.request("GET", f"/match/{match_id}/view.json").body or b"{}")
    recorded = view.get("match", {}).get("event_count", -1)
    figures.update(
        entries_ok=len(sent), entries_refused=refused, entries_failed=failed,
        entries_recorded=recorded,
        entry_p95_ms=1000 * _percentile(entry_times, 0.95),
        deliveries=len(latencies), missing=missing, stream_errors=streams.errors,
        delivery_p50_ms=1000 * statistics.median(latencies) if latencies else float("nan"),
        delivery_p95_ms=1000 * _percentile(latencies, 0.95),
        delivery_max_ms=1000 * max(latencies) if latencies else float("nan"),
        pages=len(pages), pages_failed=sum(1 for p in pages if not 200 <= p.status < 400),
        page_p95_ms=1000 * _percentile([p.seconds for p in pages], 0.95),
    )
    progress(f"events delivered: p95 {figures['delivery_p95_ms']:.0f} ms")

    streams.hold(idle)
    time.sleep(2.0)
    tries: list[float] = []
    done = fails = 0
    newcomer = Phone(port)
    unlocked = False
    for _ in range(10):
        page = newcomer.request("GET", f"/match/{match_id}")
        if page.status == 200 and not unlocked:
            unlocked = newcomer.unlock()
            newcomer.request("GET", f"/match/{match_id}/entry")
        entry = None
        if page.status == 200 and not state.is_over():
            event = next_event(state, bots, rng)
            spec = state.game.event_spec(event.type)
            if spec is not None and spec.manual:
                entry = newcomer.enter(match_id, form_fields(spec, event))
                if entry.status == 303:
                    state.apply(event)
        ok = page.status == 200 and (entry is None or entry.status == 303)
        tries.append(page.seconds + (entry.seconds if entry is not None else 0.0))
        done += ok
        fails = 0 if ok else fails + 1
        if fails >= 3:
            break
    figures.update(idle_tries=len(tries), idle_done=done,
                   idle_p95_ms=1000 * _percentile(tries, 0.95))
    streams.stop()
    return figures


def report(f: dict[str, Any]) -> str:
    history = (f"; history {f['history_matches']} matches, {f['history_events']:,} events "
               f"(built in {f['history_build_s']:.0f} s)" if f.get("history_matches") else "")
    lines = [
        f"web bench: {f['phones']} phones on one match, {f['entries_sent']} entries every "
        f"{f['interval']:g} s{history}",
        f"  after a restart: /history {f['restart_history_ms']:.0f} ms, / {f['restart_home_ms']:.0f} ms",
        f"  phones connected: {f['connected']} of {f['phones']} ({f['stream_errors']} stream errors)",
        f"  event delivery to every phone: p50 {f['delivery_p50_ms']:.0f} ms, p95 "
        f"{f['delivery_p95_ms']:.0f} ms, max {f['delivery_max_ms']:.0f} ms ({f['deliveries']} "
        f"deliveries, {f['missing']} missing)",
        f"  entries: {f['entries_ok']} answered, {f['entries_failed']} timed out, "
        f"{f['entries_refused']} refused; {f['entries_recorded']} recorded; entry p95 "
        f"{f['entry_p95_ms']:.0f} ms",
        f"  pages while the streams are open: p95 {f['page_p95_ms']:.0f} ms ({f['pages']} loads, "
        f"{f['pages_failed']} failed)",
        f"  with {f['idle']} idle/slow connections open: a fresh phone's page + entry p95 "
        f"{f['idle_p95_ms']:.0f} ms ({f['idle_done']} of {f['idle_tries']} done)",
    ]
    met = (f["connected"] == f["phones"] and f["missing"] == 0 and f["delivery_p95_ms"] <= 250
           and f["page_p95_ms"] <= 300 and f["pages_failed"] == 0 and f["idle_done"] == f["idle_tries"]
           and f["entries_recorded"] == f["entries_ok"])
    lines.append("  target (every phone every event p95 <= 250 ms, pages p95 <= 300 ms, nobody "
                 "locked out, every entry recorded once): " + ("met" if met else "NOT met"))
    return "\n".join(lines)


if __name__ == "__main__":
    run_web_bench(progress=print)

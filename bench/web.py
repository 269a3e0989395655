"""Load check of the live scoreboard: many phones on Server-Sent Events, how late events arrive.

Why this module exists: 30 phones watching one table must each see an event
within 1 s (95th percentile). This starts the real server (waitress, the real store on a
temporary database) on loopback, opens ``clients`` live streams, has bots submit ``events``
DUCK events, and measures for every (phone, event) the time from the start of ``submit`` to
the first message carrying that event's ``seq`` or a later one. It also reports the page
weight of the scoreboard mid-game (HTML + CSS + JS, uncompressed) and the average size of
one live message. It prints
figures; it asserts nothing (a benchmark, not a test).
"""

from __future__ import annotations

import http.client
import random
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ducktable.device.demo import demo_players, next_event
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.rules.core import RandomBot


@dataclass
class _Client:
    """One simulated phone: a live stream and when each ``seq`` arrived."""

    port: int
    path: str
    arrivals: list[tuple[int, float]] = field(default_factory=list)
    bytes_read: int = 0
    connected: threading.Event = field(default_factory=threading.Event)
    error: str = ""

    def run(self, stop: threading.Event) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", self.path, headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            while not stop.is_set():
                line = response.readline()
                if not line:
                    return
                self.bytes_read += len(line)
                if line.startswith(b"id: "):
                    self.arrivals.append((int(line[4:].strip()), time.perf_counter()))
                    self.connected.set()
        except OSError as exc:
            self.error = str(exc)
        finally:
            self.connected.set()
            conn.close()

    def first_arrival(self, seq: int) -> float | None:
        for got, when in self.arrivals:
            if got >= seq:
                return when
        return None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _get(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().read()
    finally:
        conn.close()


def run_web_bench(
    clients: int = 30,
    events: int = 60,
    interval: float = 0.25,
    game: str = "duck",
    seed: int = 1,
    threads: int | None = None,
) -> dict[str, Any]:
    """Measure live delivery to ``clients`` streams; prints and returns the figures."""
    with tempfile.TemporaryDirectory(prefix="ducktable-bench-") as tmp:
        store = MatchStore(Path(tmp) / "bench.sqlite3")
        info = store.create_match(game, demo_players(game), observer=False, name="bench")
        appliance = Appliance(
            store,
            {"INSTANCE_PATH": tmp, "TABLE_PIN": "0000", "SECRET_KEY": "bench" * 8},
            host="127.0.0.1",
            port=0,
            threads=threads or clients + 8,
        )
        appliance.start()
        port = appliance.server.port
        stop = threading.Event()
        phones = [_Client(port, f"/match/{info.id}/live") for _ in range(clients)]
        workers = [threading.Thread(target=p.run, args=(stop,), daemon=True) for p in phones]
        try:
            for worker in workers:
                worker.start()
            for phone in phones:
                phone.connected.wait(10)

            rng = random.Random(seed)
            bots = [RandomBot(random.Random(seed + i)) for i in range(len(info.players))]
            submitted: dict[int, float] = {}
            for _ in range(events):
                state = store.state(info.id)
                if state.is_over():
                    break
                event = next_event(state, bots, rng)
                started = time.perf_counter()
                verdict = store.submit(info.id, event)
                if verdict.ok:
                    submitted[store.seq(info.id)] = started
                time.sleep(interval)
            time.sleep(min(2.0, 4 * interval + 1.0))
            page = _get(port, f"/match/{info.id}")  # the board as it looks mid-game
            css = _get(port, "/static/style.css")
            js = _get(port, "/static/app.js")
        finally:
            stop.set()
            appliance.stop()
        for worker in workers:
            worker.join(timeout=5)

    latencies: list[float] = []
    missing = 0
    for phone in phones:
        for seq, started in submitted.items():
            arrived = phone.first_arrival(seq)
            if arrived is None:
                missing += 1
            else:
                latencies.append(arrived - started)
    messages = sum(len(p.arrivals) for p in phones) or 1
    figures = {
        "clients": clients,
        "events": len(submitted),
        "deliveries": len(latencies),
        "missing": missing,
        "errors": sum(1 for p in phones if p.error),
        "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p95_ms": 1000 * _percentile(latencies, 0.95) if latencies else float("nan"),
        "max_ms": 1000 * max(latencies) if latencies else float("nan"),
        "page_html_bytes": len(page),
        "page_css_bytes": len(css),
        "page_js_bytes": len(js),
        "page_total_bytes": len(page) + len(css) + len(js),
        "live_message_bytes": sum(p.bytes_read for p in phones) // messages,
    }
    print(
        f"web bench: {clients} live clients, {figures['events']} events every {interval:g} s\n"
        f"  delivery latency: p50 {figures['p50_ms']:.0f} ms, p95 {figures['p95_ms']:.0f} ms, "
        f"max {figures['max_ms']:.0f} ms ({figures['deliveries']} deliveries, "
        f"{missing} missing, {figures['errors']} client errors)\n"
        f"  page weight: {figures['page_total_bytes']} bytes (HTML {len(page)}, "
        f"CSS {len(css)}, JS {len(js)}); one live message ~{figures['live_message_bytes']} bytes"
    )
    print("  target: p95 under 1000 ms: " + ("met" if figures["p95_ms"] < 1000 else "NOT met"))
    return figures


if __name__ == "__main__":
    run_web_bench()

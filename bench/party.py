"""How fast a party across Pis moves its results, and what a broker outage costs.

Why this module exists: a table's result should reach the host's standings at once, and a
broker that stops mid-party should cost a pause, never a result. This runs the real pieces on
loopback: the host's own mosquitto (device/party_broker.py, restarted when it stops), the host
(device/party_link.py) and ``tables`` tables (device/party_table.py) whose bots play every
hand as fast as the store records it, each table with its own store and outbox, in one process.
Halfway through, the broker is killed (SIGKILL) and started again ``OUTAGE_S`` later. It
prints, from each result's finishing time (on the table) to its counting (on the host): the
median, 95th percentile and longest wait, those of the results finished while the broker was
away, the results counted and the duplicates ignored. It asserts nothing (a benchmark, not a test).
"""

from __future__ import annotations

import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from ducktable.device.party_broker import Broker
from ducktable.device.party_file import PartyFile
from ducktable.device.party_link import HandResult, PartyHost
from ducktable.device.party_table import PartyTable
from ducktable.device.store import MatchStore
from ducktable.rules.grey_party import Party

PLAYERS_PER_TABLE = 4
OUTAGE_S = 3.0
"""How long the broker stays away: longer than a bot hand, so results finish meanwhile."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_party_bench(hands: int = 12, tables: int = 2, outage: bool = True,
                    timeout_s: float = 300.0) -> dict[str, float]:
    """Play a party of ``hands`` hands at ``tables`` bot tables; returns the figures."""
    waits: list[float] = []
    outage_waits: list[float] = []
    duplicates = 0
    down: list[float] = []  # [killed at, back at]
    players = [f"p{n}" for n in range(tables * PLAYERS_PER_TABLE)]
    with tempfile.TemporaryDirectory(prefix="ducktable-bench-party-") as folder:
        root = Path(folder)
        broker = Broker(root / "broker", _free_port(), bind="127.0.0.1", restart=False)
        broker.start()
        address = ("127.0.0.1", broker.port)
        (root / "host").mkdir()
        PartyFile(root / "host" / "party.json").save(
            Party(players, hands=hands, table_sizes=[PLAYERS_PER_TABLE] * tables), "bench")

        def counted(result: HandResult, outcome: str) -> None:
            nonlocal duplicates
            if outcome == "duplicate":
                duplicates += 1
            elif outcome == "counted":
                wait = time.time() - result.finished
                waits.append(wait)
                if down and result.finished >= down[0] - 0.001 and (
                        len(down) == 1 or result.finished <= down[1]):
                    outage_waits.append(wait)

        host = PartyHost(root / "host", address, on_count=counted)
        host.start()
        stop = threading.Event()
        stores, players_threads = [], []
        for k in range(tables):
            (root / f"table{k}").mkdir()
            store = MatchStore(root / f"table{k}" / "matches.sqlite3")
            stores.append(store)
            table = PartyTable(store, root / f"table{k}", k, address, bots=0.0, seed=k)
            thread = threading.Thread(target=table.run, args=(stop,), daemon=True)
            thread.start()
            players_threads.append(thread)
        started = time.perf_counter()
        try:
            while len(waits) < hands * tables and time.perf_counter() - started < timeout_s:
                if outage and not down and len(waits) >= hands * tables // 2:
                    process = broker.process
                    assert process is not None
                    down.append(time.time())
                    process.kill()
                    process.wait()
                    time.sleep(OUTAGE_S)  # the tables play on meanwhile
                    broker.start()
                    down.append(time.time())
                time.sleep(0.01)
            elapsed = time.perf_counter() - started
        finally:
            stop.set()
            for thread in players_threads:
                thread.join(10)
            host.stop()
            broker.stop()
            for store in stores:
                store.close()
    ordered = sorted(waits)
    return {
        "hands": hands, "tables": tables, "results": len(waits), "expected": hands * tables,
        "seconds": elapsed, "duplicates": duplicates,
        "median_ms": 1000 * statistics.median(ordered) if ordered else float("nan"),
        "p95_ms": 1000 * ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan"),
        "max_ms": 1000 * ordered[-1] if ordered else float("nan"),
        "outage_s": (down[1] - down[0]) if len(down) == 2 else float("nan"),
        "outage_results": len(outage_waits),
        "outage_max_ms": 1000 * max(outage_waits) if outage_waits else float("nan"),
    }


def report(f: dict[str, float]) -> str:
    lines = [
        f"party: {f['hands']:.0f} hands at {f['tables']:.0f} bot tables of "
        f"{PLAYERS_PER_TABLE}, real mosquitto on loopback",
        f"results counted               {f['results']:.0f} of {f['expected']:.0f} "
        f"in {f['seconds']:.1f} s (duplicates ignored: {f['duplicates']:.0f})",
        f"finished -> counted, median   {f['median_ms']:.1f} ms",
        f"finished -> counted, p95      {f['p95_ms']:.1f} ms",
        f"finished -> counted, longest  {f['max_ms']:.1f} ms",
    ]
    if f["outage_s"] == f["outage_s"]:  # not NaN: the broker was killed
        lines += [
            f"broker killed, back after     {f['outage_s']:.2f} s",
            f"results finished meanwhile    {f['outage_results']:.0f}, "
            f"longest wait {f['outage_max_ms']:.0f} ms",
        ]
    return "\n".join(lines)

"""A party across Pis as it runs: a real mosquitto, the host and every table as their own
``ducktable`` process with their own data folder; bots play the hands (GREY-V2), 7 players at
a table of 4 and one of 3.

The fault test pulls the plug (SIGKILL) on a table in the middle of a hand, on the broker in the
middle of the party and on the host, starts each again, and checks that every table's every hand
reaches the standings exactly once and equals the match the table played.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from pathlib import Path

from ducktable.device.store import MatchStore

from .party_helpers import (
    PLAYERS,
    Ducktable,
    Mosquitto,
    assert_every_hand_counted_once,
    free_port,
    outbox_rows,
    saved_party,
    wait_for,
)

HANDS = 4


def match_in_play(folder: Path) -> int | None:
    """The id of the table's newest match while it is under way (a few events in), else None."""
    if not (folder / "matches.sqlite3").exists():
        return None
    store = MatchStore(folder / "matches.sqlite3")
    try:
        matches = store.list_matches()
    finally:
        store.close()
    newest = matches[0] if matches else None
    return newest.id if newest and not newest.finished and newest.event_count > 3 else None


def host(folder: Path, broker: Mosquitto, *extra: str) -> Ducktable:
    return Ducktable(folder, "party", "host", "--broker", broker.address, "--no-mdns",
                     "--until-over", *extra)


def table(folder: Path, number: int, broker: Mosquitto, pace: str = "0") -> Ducktable:
    return Ducktable(folder, "party", "join", "--table", str(number), "--broker", broker.address,
                     "--bots", pace, "--seed", str(number), "--until-over")


def test_a_table_the_broker_and_the_host_pulled_out_mid_party_lose_nothing(
        tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    host_dir, dirs = tmp_path / "host", [tmp_path / "table1", tmp_path / "table2"]
    the_host = host(host_dir, broker, "--players", *PLAYERS, "--hands", str(HANDS)).start()
    tables = [table(folder, n, broker, pace="0.01").start() for n, folder in enumerate(dirs, 1)]
    try:
        # A table loses power in the middle of a hand after the first ...
        playing = wait_for(lambda: (p := saved_party(host_dir)) is not None and p.round >= 2
                           and match_in_play(dirs[0]))
        assert playing, "table 1 never got into a hand after the first"
        tables[0].kill()
        tables[0] = table(dirs[0], 1, broker, pace="0.01").start()
        # ... then the broker stops mid-party while the tables play on, and comes back ...
        assert wait_for(lambda: (p := saved_party(host_dir)) is not None and p.round >= 3
                        and any(match_in_play(d) for d in dirs))
        broker.kill()
        assert wait_for(lambda: any(status == "queued" for d in dirs
                                    for _, status, _ in outbox_rows(d)), timeout_s=20), \
            "no table finished a hand while the broker was away"
        broker.start()
        # ... and the host loses power too; it comes back to the party it saved.
        assert wait_for(lambda: (p := saved_party(host_dir)) is not None and p.round >= 4)
        the_host.kill()
        the_host = host(host_dir, broker).start()
        assert the_host.wait() == 0, the_host.output()[-3000:]
        for process in tables:
            assert process.wait() == 0, process.output()[-3000:]
        party = assert_every_hand_counted_once(host_dir, dirs)
        assert [len(t.players) for t in party.tables()] == [4, 3]
        assert "lost the broker" in "".join(t.output() for t in tables)
        final = tables[1].output()  # a table prints the party's final standings at the end
        assert f"hand {HANDS} of {HANDS} (over)" in final
        assert f"  1  {party.standings()[0]['name']}" in final
        # The restarted table carried on with the match it was playing, not a new deal.
        with sqlite3.connect(dirs[0] / "party-outbox.sqlite3") as conn:
            assert playing in [m for (m,) in conn.execute("SELECT match_id FROM hands")]
    finally:
        for process in [the_host, *tables]:
            process.stop()
        broker.kill()


def test_party_host_runs_its_own_mosquitto_and_tables_find_it_by_mdns(tmp_path: Path) -> None:
    """No --broker anywhere: the host starts mosquitto on --broker-port and announces itself;
    the table browses for ``_ducktable._tcp`` (here over this machine's own interfaces) and
    takes the host of its party (``--party``: other tests may announce hosts meanwhile)."""
    port = str(free_port())
    the_host = Ducktable(tmp_path / "host", "party", "host", "--players", *PLAYERS[:6],
                         "--hands", "1", "--broker-port", port, "--table", "1", "--bots", "0",
                         "--until-over").start()
    assert wait_for(lambda: saved_party(tmp_path / "host") is not None)
    party_id = json.loads((tmp_path / "host" / "party.json").read_text())["id"]
    other = Ducktable(tmp_path / "table2", "party", "join", "--table", "2", "--bots", "0",
                      "--party", party_id, "--until-over").start()
    try:
        assert other.wait() == 0, other.output()[-3000:] + the_host.output()[-2000:]
        assert "found the host at" in other.output()
        assert the_host.wait() == 0, the_host.output()[-3000:]
        assert_every_hand_counted_once(tmp_path / "host", [tmp_path / "host", tmp_path / "table2"])
    finally:
        other.stop()
        the_host.stop()


def test_ducktable_run_joins_the_party_the_phone_asked_for(tmp_path: Path) -> None:
    """``ducktable run`` follows party-link.json (what the phone's Party page writes)."""
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    run_dir, port = tmp_path / "table1", free_port()
    run_dir.mkdir()
    (run_dir / "party-link.json").write_text(json.dumps(
        {"role": "join", "broker": broker.address, "table": 0, "bots": 0, "seed": 1}))
    the_host = host(tmp_path / "host", broker, "--players", *PLAYERS[:6], "--hands", "1").start()
    appliance = Ducktable(run_dir, "run", "--no-camera", "--host", "127.0.0.1", "--port",
                          str(port)).start()
    other = table(tmp_path / "table2", 2, broker).start()
    try:
        assert the_host.wait() == 0, the_host.output()[-3000:] + appliance.output()[-3000:]
        assert other.wait() == 0, other.output()[-3000:]
        assert_every_hand_counted_once(tmp_path / "host", [run_dir, tmp_path / "table2"])
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/party", timeout=10).read()
        assert b"This Pi plays table 1 of the party hosted at" in page
        assert b"the party is over" in page
    finally:
        for process in (other, appliance, the_host):
            process.stop()
        broker.kill()

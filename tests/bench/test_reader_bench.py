"""``ducktable bench reader`` on a short clip: every figure printed, and the card locator's reader
records the very events today's edge-map reader records, none of them wrong."""

from __future__ import annotations

import re

import pytest
from ducktable.bench.reader import first_clear_ms
from ducktable.device.cli import main
from ducktable.sim.table_video import bot_game, script_for


def _row(out: str, name: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith(name))
    return line[len(name):].split()


def test_the_bench_prints_its_figures_and_both_readers_record_the_same_events(
        capsys: pytest.CaptureFixture[str]) -> None:
    # seed 7: a game whose deal, first play and first draw the shipped classifier reads right
    assert main(["bench", "reader", "--seed", "7", "--frames", "80", "--every-frame"]) == 0
    out = capsys.readouterr().out
    assert "frames 0-79 of" in out and "load average" in out
    assert _row(out, "frames read") == ["80", "80"]
    for name in ("CPU ms per frame, median", "CPU ms per frame, p95", "sustained fps (1000 / mean ms)",
                 "first clear frame -> store, p50 ms", "first clear frame -> store, p95 ms"):
        assert all(float(v) > 0 for v in _row(out, name)), name
    old, new = (int(v) for v in _row(out, "events by the camera"))
    assert old == new >= 3  # the deal, the first play, the first draw
    assert _row(out, "wrong events") == ["0", "0"]
    assert "events the same (both readers): yes" in out
    ratio = re.search(r"new / old CPU per frame: median ([0-9.]+), mean ([0-9.]+)", out)
    assert ratio is not None and float(ratio[1]) > 0
    rss = re.search(r"peak RSS of the locator's reader alone: (\d+) MB", out)
    assert rss is not None and 50 < int(rss[1]) < 2000
    assert re.search(r"card locator path: \d+ of 80 frames still", out)


def test_an_event_is_timed_from_the_first_frame_that_shows_it_plainly() -> None:
    shots = script_for(bot_game("duck", 0, 3), 0)
    clear = first_clear_ms(shots, bot_game("duck", 0, 3).events)
    # the deal's cards lie plain at frame 8, the first play's cards laid out at 16 (before the
    # play itself is recorded by the script), the next event, a card taken from a pile, at 32
    assert (clear[0], clear[1], clear[2]) == (shots[8].ts, shots[16].ts, shots[32].ts)
    for k, ts in clear.items():
        frame = next(s for s in shots if s.ts == ts)
        assert frame.event_index <= k + 1


def test_a_clip_past_the_end_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "reader", "--first", "999999"]) == 2
    err = capsys.readouterr().err
    assert "nothing from frame 999999 on" in err and "Traceback" not in err

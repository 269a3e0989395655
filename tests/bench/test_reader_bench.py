"""``ducktable bench reader`` on a short clip: every figure printed, and the card locator's reader
records the very events today's edge-map reader records, none of them wrong."""

from __future__ import annotations

import re

import pytest
from ducktable.bench.reader import STAGES, EventStages, decidable_ms, first_clear_ms
from ducktable.device.cli import main
from ducktable.rules.snapshot import seat_zone
from ducktable.sim.table_video import bot_game, script_for


def _row(out: str, name: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith(name))
    return line[len(name):].split()


def test_the_bench_prints_its_figures_and_both_readers_record_the_same_events(
        capsys: pytest.CaptureFixture[str]) -> None:
    # seed 7: a game whose deal, first play and first draw the shipped classifier reads right
    assert main(["bench", "reader", "--seed", "7", "--frames", "80", "--every-frame"]) == 0
    out = capsys.readouterr().out
    assert "frames 0-79 of" in out and "(1920x1080 read at 1280x720" in out and "load average" in out
    assert _row(out, "frames read") == ["80", "80"]
    for name in ("CPU ms per frame, median", "CPU ms per frame, p95", "sustained fps (1000 / mean ms)",
                 "first clear frame -> store, p50 ms", "first clear frame -> store, p95 ms"):
        assert all(float(v) > 0 for v in _row(out, name)), name
    assert _row(out, "cards laid: first clear -> phones") == ["2", "2"]  # the deal and the play
    # the play's cards reach the phones as seen while they lie laid out, well before the store
    assert 0 < float(_row(out, "  p95 ms")[1]) < float(_row(out, "first clear frame -> store, p95 ms")[1]) - 500
    assert re.search(r"card locator: cards laid slowest to the phones: #\d+ (play|deal) \d+ ms", out)
    old, new = (int(v) for v in _row(out, "events by the camera"))
    assert old == new >= 3  # the deal, the first play, the first draw
    assert _row(out, "wrong events") == ["0", "0"]
    assert "events the same (both readers): yes" in out
    ratio = re.search(r"new / old CPU per frame: median ([0-9.]+), mean ([0-9.]+)", out)
    assert ratio is not None and float(ratio[1]) > 0
    rss = re.search(r"peak RSS of the locator's reader alone: (\d+) MB", out)
    assert rss is not None and 50 < int(rss[1]) < 2000
    assert re.search(r"card locator path: \d+ of 80 frames still", out)
    for name, _, _ in STAGES:  # where the latency went, p50 / p95 for each reader
        spread = re.fullmatch(r"\s*(-?\d+) / (-?\d+)\s+(-?\d+) / (-?\d+)", _row(out, f"  {name}") and
                              " ".join(_row(out, f"  {name}")))
        assert spread is not None, name
        assert all(0 <= int(v) < 60_000 for v in spread.groups()), name
    assert re.search(r"card locator: slowest events, ms after the first clear frame", out)


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


def test_a_capture_size_that_is_no_size_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "reader", "--capture", "1920x"]) == 2
    err = capsys.readouterr().err
    assert "--capture wants a size like 1920x1080" in err and "Traceback" not in err


def test_a_deal_after_a_reveal_is_timed_from_its_own_start_card_not_from_the_reveals_hands() -> None:
    game = bot_game("duck", 0, 3)
    shots = script_for(game, 0)
    clear = first_clear_ms(shots, game.events)
    second_deal = [k for k, e in enumerate(game.events) if e.type == "deal"][1]
    frame = next(s for s in shots if s.ts == clear[second_deal])
    assert frame.event_index == second_deal + 1  # the deal has happened by then
    dealer = next(s for s, card in enumerate(game.events[second_deal].data["face_up"]) if card)
    assert frame.contents()[seat_zone(dealer, "discard")] == (game.events[second_deal].data["face_up"][dealer],)
    assert not any(frame.contents()[seat_zone(s, "reveal")] for s in range(3))  # the hands are gone


def test_a_perfect_camera_decides_a_play_once_its_cards_reach_the_pile_and_a_take_at_once() -> None:
    game = bot_game("duck", 0, 3)
    shots = script_for(game, 0)
    clear, decidable = first_clear_ms(shots, game.events), decidable_ms(game, shots)
    left = set(clear) - set(decidable)  # what even that camera leaves to the person
    # only a deal whose start card was hidden by a passing hand until play went on
    assert all(game.events[k].type == "deal" for k in left), sorted(left)
    assert len(left) < len([e for e in game.events if e.type == "deal"]) / 4
    plays = [k for k in clear if game.events[k].type == "play"]
    takes = [k for k in clear if game.events[k].type == "draw"]
    assert len(plays) > 50 and len(takes) > 30
    for k in plays:  # laid out first: no play until the cards reach the pile
        assert decidable[k] > clear[k], k
        at = next(s for s in shots if s.ts == decidable[k])
        seat = game.events[k].seat
        assert at.event_index > k and at.contents()[seat_zone(seat, "discard")] != ()
        assert at.contents()[seat_zone(seat, "reveal")] == ()
    assert all(decidable[k] == clear[k] for k in takes)  # a pile's top taken is a draw at once


def test_the_stages_of_an_event_never_go_back_in_time_and_add_up_to_its_latency() -> None:
    # a deal's start card is read (0 ms) before the reads in a row make it decidable (467 ms)
    stages = EventStages.of(0, "deal", 1000, 1467, 1000, 1200, 1600, 1610)
    assert (stages.decidable, stages.first_read, stages.settled, stages.proposed, stages.stored) == (
        1467, 1467, 1467, 1600, 1610)
    total = sum(getattr(stages, end) - getattr(stages, start) for _, start, end in STAGES[:5])
    assert total == stages.stored - stages.clear

"""`ducktable bench web` end to end at a tiny size: it only counts here (phones, entries, the
history it built); its timings are the benchmark's business, not a test's."""

from __future__ import annotations

from pathlib import Path

from ducktable.bench.web import build_history, form_fields, run_web_bench
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.rules.registry import make_game


def test_a_tiny_game_night_counts_every_phone_entry_and_try(capsys) -> None:
    figures = run_web_bench(phones=3, entries=6, interval=0.0, matches=12, history_events=240,
                            idle=4)
    assert figures["connected"] == 3 and figures["stream_errors"] == 0
    assert figures["entries_ok"] == 6 and figures["entries_refused"] == 0
    assert figures["entries_recorded"] == 6 and figures["missing"] == 0
    assert figures["deliveries"] == 3 * 6
    assert figures["idle_done"] == figures["idle_tries"] == 10
    assert figures["history_matches"] == 12 and 0 < figures["history_events"] <= 240
    assert "phones connected: 3 of 3" in capsys.readouterr().out


def test_the_synthetic_history_replays_and_its_summaries_are_right(tmp_path: Path) -> None:
    count, events = build_history(tmp_path / "h.sqlite3", 30, 30 * 40)
    with MatchStore(tmp_path / "h.sqlite3") as store:
        matches = store.list_matches()
        assert len(matches) == count == 30 and sum(m.event_count for m in matches) == events
        for info in matches:
            state = store.state(info.id)  # replays: the copies are real logs
            assert info.scores == [int(s) for s in state.scores()]
            assert info.event_count == len(state.history)


def test_an_event_becomes_the_entry_forms_fields() -> None:
    state = make_game("duck", {}).new_state(["Ann", "Ben", "Cat"], observer=True)
    spec = state.game.event_spec("play")
    assert spec is not None
    fields = form_fields(spec, Event("play", 1, {"cards": ["blue-3", "blue-4"]}))
    assert fields == {"_type": "play", "_seat": "1", "cards": "blue-3 blue-4"}

"""``ducktable bench quacks``: a whole bot match's Quacks and those still to tap."""

from __future__ import annotations

from ducktable.bench.quacks import count_match
from ducktable.device import cli


def test_a_match_counts_its_quacks_and_those_left_to_tap() -> None:
    result = count_match(seed=0, players=3)
    assert result.events > result.quacks > result.to_enter > 0


def test_the_bench_prints_before_and_after(capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli.main(["bench", "quacks", "--matches", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "seed 0:" in out and "Quacks entered before" in out and "now (" in out

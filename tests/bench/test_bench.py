"""The vision bench read in several processes gives the figures one process gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from ducktable.bench import cards as bench
from ducktable.bench.cards import CAPTURE_SIZE, EMPTY_SEED_OFFSET, Tally, parallel_checks, pipeline_check
from ducktable.sim.scene import render_scene
from ducktable.vision.classify import CardClassifier
from ducktable.vision.locator import DETECTORS, load_locator
from ducktable.vision.pipeline import CardReader


@pytest.mark.parametrize("detector", DETECTORS)
def test_several_processes_read_the_scenes_as_one_does(monkeypatch: pytest.MonkeyPatch,
                                                       detector: str) -> None:
    monkeypatch.setattr(bench, "CHUNK_SCENES", 2)  # three scenes: two chunks, summed in order
    parts = [(range(5, 8), {}), (range(EMPTY_SEED_OFFSET, EMPTY_SEED_OFFSET + 1), {"empty": True}),
             (range(5, 6), {"as_run_reads": True, "size": CAPTURE_SIZE})]
    reader = CardReader(CardClassifier.load(threads=1), locator=load_locator(detector))
    alone = [pipeline_check(seeds, reader, **options) for seeds, options in parts]
    assert alone[0].cards > 10 and alone[0].labelled_right > 10
    assert parallel_checks(parts, jobs=2, detector=detector) == alone


def test_tallies_add_up() -> None:
    a = Tally(frames=1, cards=5, matched=4, detections=5, labelled=4, labelled_right=3,
              misses=[(1, "duck/red-1")])
    b = Tally(frames=2, cards=7, matched=7, detections=8, labelled=7, labelled_right=7,
              named_false=1, misses=[(2, "back")])
    total = a + b
    assert (total.frames, total.cards, total.matched, total.detections) == (3, 12, 11, 13)
    assert total.misses == [(1, "duck/red-1"), (2, "back")] and total.named_false == 1
    assert total.recall == 11 / 12


def test_speed_figures_come_with_the_machine_yardstick() -> None:
    """The detector's time is also given over a fixed piece of work timed on the same machine
    at the same time, and the report prints both."""
    reader = CardReader(CardClassifier.load(threads=1))
    figures = bench.timings(reader, [render_scene(3, n_cards=12).image])
    assert figures["yardstick_cpu_ms"] > 0
    ratio = figures["detect_cpu_ms_median"] / figures["yardstick_cpu_ms"]
    report = bench.report({"scenes": 0, "cards": 0, "empty_frames": 0, **figures})
    assert "machine yardstick" in report and f"{ratio:.2f} times" in report
    assert bench.timings(reader, []) == {}


def test_the_speed_report_names_the_processor(tmp_path: Path) -> None:
    """Speed figures compare only on one processor: the report says which, from cpuinfo's
    model name, a Raspberry Pi's board model, or what Python knows where there is neither."""
    x86 = tmp_path / "x86"
    x86.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu avx2\n\n"
                   "processor\t: 1\nmodel name\t: AMD EPYC 7B13\n")
    pi = tmp_path / "pi"
    pi.write_text("processor\t: 0\nBogoMIPS\t: 108.00\nCPU part\t: 0xd0b\n\n"
                  "Model\t\t: Raspberry Pi 5 Model B Rev 1.0\n")
    assert bench.processor_name(x86).startswith("AMD EPYC 7B13 (")
    assert bench.processor_name(pi).startswith("Raspberry Pi 5 Model B Rev 1.0 (")
    assert bench.processor_name(tmp_path / "none")  # no cpuinfo: still a name, never an error
    figures = {"scenes": 0, "cards": 0, "empty_frames": 0, "detect_ms_median": 80.0,
               "detect_ms_p95": 90.0, "read_ms_median": 86.0, "read_ms_p95": 95.0,
               "read_ms_per_card_median": 7.0, "read_ms_per_card_p95": 8.0,
               "processor": bench.processor_name(x86)}
    assert "processor            AMD EPYC 7B13 (" in bench.report(figures)

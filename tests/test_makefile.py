"""The Makefile's two commands: `make demo` installs only the runtime, `make test` the dev tools.

Why: the dev extra (pytest, mypy, playwright, onnx) is hundreds of MB that a demo never uses,
and a venv made by `make demo` must still get the dev extra when `make test` runs next.
Read with `make -n` (what would run), against a venv folder of the test's own.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def planned(target: str, venv: Path) -> str:
    done = subprocess.run(["make", "-n", target, f"VENV={venv}"], cwd=ROOT, check=True,
                          capture_output=True, text=True, timeout=60)
    return done.stdout


def test_demo_installs_the_runtime_only(tmp_path: Path) -> None:
    plan = planned("demo", tmp_path / ".venv")
    assert "-m venv" in plan  # it makes its own venv
    assert "pip install -q -e ." in plan
    assert "[dev]" not in plan
    assert "ducktable demo" in plan


def test_test_after_demo_still_installs_the_dev_extra(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    later = time.time() + 5  # newer than pyproject.toml: the demo's install is up to date
    (venv / ".runtime").touch()
    os.utime(venv / ".runtime", (later, later))
    assert "pip install" not in planned("demo", venv)
    plan = planned("test", venv)
    assert '-e ".[dev]"' in plan and "-m venv" not in plan
    assert "pytest" in plan


def test_the_default_run_leaves_the_full_sizes_to_make_test_slow(tmp_path: Path) -> None:
    """`make test` runs every check at its reduced size; `make test-slow` the full sizes."""
    assert "-m slow" in planned("test-slow", tmp_path / ".venv")
    listed = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest", "--collect-only", "-q",
         "tests/rules/test_bruce_bots.py"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    ids = listed.stdout
    assert "thousands_of_bot_games_score_from_nests_and_end_on_time[400]" in ids
    assert "[2000]" not in ids

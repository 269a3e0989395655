"""README's "Using it" examples run as written, in order, in a fresh data folder (they once
failed: a full-information deal was missing, and `replay` came before the `export` it reads)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def using_it_commands() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Using it", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith("ducktable ")]


def test_the_using_it_examples_work_as_written(tmp_path: Path) -> None:
    commands = using_it_commands()
    assert len(commands) >= 8
    env = {**os.environ, "DUCKTABLE_DATA": str(tmp_path / "data"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in commands:
        command, _, comment = line.partition("  #")
        done = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        claimed = re.search(r"(ILLEGAL) .*(\[[A-Z]+-[A-Z0-9]+\])", comment)
        if claimed:  # a dispute check the comment says is refused, citing a rule
            assert done.returncode == 1, (line, done.stderr)
            assert done.stdout.startswith("ILLEGAL") and claimed.group(2) in done.stdout, line
        else:
            assert done.returncode == 0, (line, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
    assert (tmp_path / "match.jsonl").stat().st_size > 0

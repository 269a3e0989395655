"""``ducktable rules`` and docs/rules.md stay in step with the engines' catalogues."""

from __future__ import annotations

import pathlib

from ducktable.device.cli import main
from ducktable.device.cli_rules import catalogue_markdown

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_rules_command_lists_duck_rules(capsys):
    assert main(["rules", "duck"]) == 0
    out = capsys.readouterr().out
    assert "DUCK-B2" in out and "lifebelt" in out


def test_unknown_game_is_a_clear_error(capsys):
    assert main(["rules", "uno"]) == 2
    assert "unknown game 'uno'" in capsys.readouterr().err


def test_docs_rules_md_is_up_to_date():
    expected = catalogue_markdown()
    actual = (ROOT / "docs" / "rules.md").read_text()
    assert actual == expected, "docs/rules.md is stale: run `ducktable rules --markdown > docs/rules.md`"


def test_output_to_a_reader_that_went_away_ends_quietly():
    """``ducktable ... | head -1`` with more than one line to print: the reader has gone when
    the rest is written (here it leaves before ducktable has started); no traceback."""
    import subprocess
    import sys

    command = f"{sys.executable} -m ducktable.device.cli rules duck | true"
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
    assert result.stderr == ""

"""The command line's global options (device/cli.py): given before or after the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ducktable.device import cli


def _start(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    assert cli.main(argv) == 0, capsys.readouterr().err
    return int(json.loads(capsys.readouterr().out)["id"])


@pytest.mark.parametrize("before", [True, False], ids=["before", "after"])
def test_data_dir_is_accepted_before_or_after_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        before: bool) -> None:
    monkeypatch.setenv("DUCKTABLE_DATA", str(tmp_path / "elsewhere"))
    data = str(tmp_path / "data")
    where = ["--data-dir", data]
    start = ["start", "duck", "Ann", "Ben", "Cat", "--json"]
    match = _start(where + start if before else start + where, capsys)
    show = ["show", str(match), "--json"]
    assert cli.main(where + show if before else show + where) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    assert shown["match"]["players"] == ["Ann", "Ben", "Cat"]
    assert not (tmp_path / "elsewhere").exists()  # the option won over the environment


def test_an_option_before_the_command_is_not_undone_by_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = cli.build_parser().parse_args(["--data-dir", str(tmp_path), "show", "1"])
    assert args.data_dir == str(tmp_path)
    args = cli.build_parser().parse_args(["show", "1", "--data-dir", str(tmp_path)])
    assert args.data_dir == str(tmp_path)
    args = cli.build_parser().parse_args(["bench", "replay", "--data-dir", str(tmp_path)])
    assert args.data_dir == str(tmp_path)

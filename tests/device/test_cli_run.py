"""The `run`, `demo` and `qr` commands' arguments and messages (device/cli_run.py)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from ducktable.device.cli import UserError, build_parser, main
from ducktable.device.cli_run import load_reader
from ducktable.device.config import CameraConfig


def test_qr_prints_a_terminal_qr_code_of_the_url(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    assert main(["--data-dir", str(tmp_path), "qr", "--url", "http://10.0.0.7:8000/"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("http://10.0.0.7:8000/")
    assert "█" in out and len(out.splitlines()) > 10


def test_data_dir_may_come_before_or_after_the_command() -> None:
    parser = build_parser()
    assert parser.parse_args(["--data-dir", "/a", "demo"]).data_dir == "/a"
    assert parser.parse_args(["demo", "--data-dir", "/b"]).data_dir == "/b"
    args = parser.parse_args(["demo"])
    assert args.game == "duck" and args.port == 8000 and args.host == "127.0.0.1"
    assert args.pace == 1.0 and args.no_browser_needed is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--game", "chess"], "unknown game 'chess'"),
        (["demo", "--players", "9"], "DUCK is for 3 to 5 players, not 9"),
    ],
)
def test_demo_mistakes_are_one_clear_line(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "70000", "http"])
def test_bad_ports_are_refused_by_the_parser(value: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--port", value])
    assert "a port is a number 1-65535" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "message"), [("-1", "is 0 (play on) or more"),
                                              ("two", "a number of matches, e.g. 3")])
def test_bad_match_counts_are_refused_by_the_parser(value: str, message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--matches", value])
    assert message in capsys.readouterr().err


def test_a_port_in_use_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["demo", "--port", str(port), "--data-dir", str(tmp_path)]) == 2
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_demo_prints_the_match_in_the_terminal(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """--no-browser-needed: every event and the scores, until the match is over."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["demo", "--pace", "0", "--matches", "1", "--seed", "2", "--port", str(port),
                 "--no-browser-needed", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "table PIN" in out and "deal" in out and "reveal" in out
    assert "match 1 over:" in out and "| Ada " in out


def test_run_builds_the_camera_reader_named_in_the_settings(tmp_path: Path) -> None:
    from ducktable.device.cli_run import camera_producer
    from ducktable.device.config import parse_config
    from ducktable.device.runloop import CameraStatus

    config = parse_config({"camera": {"table": "kitchen", "source": "synthetic", "drift_every": 10}})
    status = CameraStatus()
    producer = camera_producer(config.camera, tmp_path, status)
    assert producer is not None and producer.status is status
    assert producer.reader.layout_path == tmp_path / "calibration" / "kitchen.json"
    assert producer.reader.drift_every == 10


@pytest.mark.parametrize(("camera", "message"), [
    ({"table": "../etc"}, "[camera] table must be a plain name"),
    ({"table": ""}, "[camera] table must be a plain name"),
    ({"drift_every": 0}, "[camera] drift_every must be 1 to 100000"),
    ({"model": 5}, "[camera] model must be text in quotes"),
])
def test_bad_camera_settings_are_one_clear_line(camera: dict[str, object], message: str) -> None:
    from ducktable.device.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_config({"camera": camera})


@pytest.mark.parametrize(("reader", "message"), [
    ("ducktable.vision.raeder:make_table_reader", "there is no module 'ducktable.vision.raeder'"),
    ("os:getcwd", "os:getcwd is not a reader maker"),
    ("os:no_such_thing", "os has no no_such_thing()"),
])
def test_a_wrong_camera_reader_setting_is_one_clear_line(tmp_path: Path, reader: str,
                                                         message: str) -> None:
    with pytest.raises(UserError, match=message):
        load_reader(CameraConfig(reader=reader), tmp_path)


def test_ctrl_c_while_the_command_is_still_loading_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from ducktable.device import cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["demo"]) == 130
    assert capsys.readouterr().err == "ducktable: interrupted\n"

"""The systemd unit and install script in systemd/.

``systemd-analyze verify`` checks the unit where systemd is installed; everywhere (so this never
skips) a structural parse asserts the keys the appliance relies on: restart on failure, a state
directory for the database, a dedicated user, SIGTERM for a clean stop, and hardening.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from ducktable.device.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "ducktable.service"
INSTALL = ROOT / "systemd" / "install.sh"


class Unit(dict[str, dict[str, str]]):
    """A unit file's sections; repeated keys (systemd allows them) keep their last value and
    are all kept in ``repeated``."""

    repeated: dict[tuple[str, str], list[str]]


def parse_unit(text: str) -> Unit:
    unit = Unit()
    unit.repeated = {}
    section = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            assert section not in unit, f"line {number}: section [{section}] twice"
            unit[section] = {}
            continue
        assert section is not None, f"line {number}: a setting before any [section]"
        key, sep, value = line.partition("=")
        assert sep, f"line {number}: not a key=value line: {raw!r}"
        key, value = key.strip(), value.strip()
        unit[section][key] = value
        unit.repeated.setdefault((section, key), []).append(value)
    return unit


def test_unit_has_the_keys_the_appliance_needs() -> None:
    unit = parse_unit(UNIT.read_text())
    assert set(unit) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    assert service["Restart"] == "on-failure"
    assert service["StateDirectory"] == "ducktable"
    assert service["User"] == service["Group"] == "ducktable"
    assert service["KillSignal"] == "SIGTERM"
    environment = parse_unit(UNIT.read_text()).repeated[("Service", "Environment")]
    assert "DUCKTABLE_DATA=/var/lib/ducktable" in environment
    assert "/var/lib/ducktable" in service["ExecStart"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert unit["Unit"]["After"] == "network-online.target"


def test_unit_is_hardened() -> None:
    service = parse_unit(UNIT.read_text())["Service"]
    for key, value in {
        "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
        "PrivateTmp": "yes", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
        "ProtectControlGroups": "yes", "RestrictSUIDSGID": "yes", "LockPersonality": "yes",
        "CapabilityBoundingSet": "CAP_NET_BIND_SERVICE", "AmbientCapabilities": "CAP_NET_BIND_SERVICE",
    }.items():
        assert service[key] == value, key
    assert service["SystemCallFilter"] == "@system-service"


def test_exec_start_is_a_command_this_cli_understands() -> None:
    argv = shlex.split(parse_unit(UNIT.read_text())["Service"]["ExecStart"])
    assert argv[0] == "/opt/ducktable/.venv/bin/ducktable"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run" and args.data_dir == "/var/lib/ducktable"


def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    """Verified by systemd itself when present (the program path points at a stand-in)."""
    stand_in = tmp_path / "ducktable"
    stand_in.write_text("#!/bin/sh\nexit 0\n")
    stand_in.chmod(0o755)
    text = UNIT.read_text().replace("/opt/ducktable/.venv/bin/ducktable", str(stand_in))
    unit = tmp_path / "ducktable.service"
    unit.write_text(text)
    tool = shutil.which("systemd-analyze")
    if tool is None:  # no systemd here: the structural check must still pass
        parsed = parse_unit(text)
        assert Path(shlex.split(parsed["Service"]["ExecStart"])[0]).is_file()
        return
    result = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60, check=False)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "Unknown" not in report and "ignoring" not in report, report


def test_install_script_is_valid_bash_with_help_and_clear_refusals() -> None:
    assert subprocess.run(["bash", "-n", str(INSTALL)], check=False).returncode == 0
    usage = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True,
                           check=False)
    assert usage.returncode == 0 and "systemd service" in usage.stdout
    wrong = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True,
                           text=True, check=False)
    assert wrong.returncode == 2 and "unknown option --frobnicate" in wrong.stderr
    text = INSTALL.read_text()
    assert "useradd --system" in text and "--system-site-packages" in text
    assert "systemctl enable" in text

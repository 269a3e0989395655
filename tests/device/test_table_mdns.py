"""A table's scoreboard answers as ducktable.local (device/table_mdns.py), a second table as
ducktable-2.local; the pages and the banner give that address with the IP beside it; the demo
announces only when asked. Multicast works on this machine's loopback, so the real zeroconf
exchange is tested, as in the party tests."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from ducktable.device.cli_run import run_announces
from ducktable.device.table_mdns import ASK_MS, TableAnnouncer, host_names
from zeroconf import AddressResolverIPv4, Zeroconf

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = ["127.0.0.1"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def resolve(name: str) -> list[str]:
    """What a phone on this machine's loopback hears for ``name``."""
    asking = Zeroconf(interfaces=LOOPBACK)
    try:
        resolver = AddressResolverIPv4(name)
        return resolver.parsed_addresses() if resolver.request(asking, 3000) else []
    finally:
        asking.close()


def test_a_second_table_takes_the_next_name() -> None:
    first = TableAnnouncer(8001, ["127.0.0.2"], interfaces=LOOPBACK, ask_ms=ASK_MS)
    try:
        second = TableAnnouncer(8002, ["127.0.0.1"], interfaces=LOOPBACK, ask_ms=ASK_MS)
        try:
            names = host_names()
            assert names[0] == "ducktable.local." and names[1] == "ducktable-2.local."
            assert names.index(second.host) > names.index(first.host)  # the name is not shared
            assert resolve(first.host) == ["127.0.0.2"]
            assert resolve(second.host) == ["127.0.0.1"]
            assert second.url == f"http://{second.host.removesuffix('.')}:8002/"
        finally:
            second.close()
    finally:
        first.close()


def test_a_name_this_machine_already_answers_is_kept() -> None:
    """The party host on the same Pi answers ducktable.local with the same address: the table
    takes the same name, not ducktable-2."""
    first = TableAnnouncer(8003, ["127.0.0.3"], interfaces=LOOPBACK, ask_ms=ASK_MS)
    try:
        again = TableAnnouncer(8004, ["127.0.0.3"], interfaces=LOOPBACK, ask_ms=ASK_MS)
        try:
            assert again.host == first.host
        finally:
            again.close()
    finally:
        first.close()


@pytest.mark.parametrize(("host", "no_mdns", "public", "announced"), [
    ("0.0.0.0", False, "", True),
    ("192.168.1.20", False, "", True),
    ("0.0.0.0", True, "", False),
    ("0.0.0.0", False, "http://table.example/", False),
    ("127.0.0.1", False, "", False),
])
def test_run_announces_unless_told_not_to(host: str, no_mdns: bool, public: str,
                                          announced: bool) -> None:
    assert run_announces(host, no_mdns, public) is announced


def _demo(tmp_path: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ducktable.device.cli", "--data-dir", str(tmp_path), "demo",
         "--port", str(port), "--pace", "1", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _banner(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    return process.stdout.readline() + process.stdout.readline()


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_demo_announces_only_when_asked(tmp_path: Path) -> None:
    port = free_port()
    quiet = _demo(tmp_path / "quiet", port)
    try:
        banner = _banner(quiet)
        assert f"http://127.0.0.1:{port}/" in banner and ".local" not in banner
        join = urllib.request.urlopen(f"http://127.0.0.1:{port}/join", timeout=10).read().decode()
        assert ".local" not in join and "does not open" not in join
    finally:
        _stop(quiet)
    port = free_port()
    loud = _demo(tmp_path / "loud", port, "--announce")
    try:
        banner = _banner(loud)
        found = re.search(r"http://(ducktable(?:-\d+)?\.local):(\d+)/  \(or (\S+)\)", banner)
        assert found is not None, banner
        name, shown_port, fallback = found.groups()
        assert int(shown_port) == port and fallback == f"http://127.0.0.1:{port}/"
        assert resolve(f"{name}.") == ["127.0.0.1"]
        join = urllib.request.urlopen(f"http://127.0.0.1:{port}/join", timeout=10).read().decode()
        assert f'<a href="http://{name}:{port}/">' in join  # the QR code's address
        assert f"If that address does not open: <a href=\"{fallback}\">" in join
    finally:
        _stop(loud)


def test_the_address_leaves_out_the_webs_own_port() -> None:
    from ducktable.device.runloop import http_url, public_url

    assert http_url("ducktable.local", 80) == "http://ducktable.local/"
    assert http_url("ducktable.local", 8000) == "http://ducktable.local:8000/"
    assert http_url("fe80::1", 80) == "http://[fe80::1]/"
    assert public_url("192.168.1.20", 80) == "http://192.168.1.20/"

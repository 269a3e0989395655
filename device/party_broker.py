"""The host Pi's MQTT broker: Debian's Mosquitto, started and watched by ``party host``.

Why this module exists: the party needs a broker on the LAN, and the host Pi runs it. Debian's
own mosquitto service listens on localhost only (Mosquitto 2), so the host starts its own
mosquitto with a listener for the LAN and persistence in the data folder: queued results and
retained states outlive a broker restart. If mosquitto stops, it is started again.
"""

from __future__ import annotations

import ctypes
import logging
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from .party_link import LinkError

log = logging.getLogger("ducktable.party")

INSTALL_HINT = "sudo apt-get install mosquitto"
PR_SET_PDEATHSIG = 1


def mosquitto_path() -> str:
    """The mosquitto program (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise LinkError(f"hosting a party needs the Mosquitto broker: {INSTALL_HINT} "
                        "(or give --broker HOST:PORT of a broker that runs elsewhere)")
    return found


def write_config(folder: Path, port: int, bind: str = "0.0.0.0") -> Path:
    """A mosquitto.conf for the party: one listener, no passwords on the LAN, persistence."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mosquitto.conf"
    path.write_text(
        "# written by ducktable party host\n"
        f"listener {port} {bind}\n"
        "allow_anonymous true\n"
        "persistence true\n"
        f"persistence_location {folder}/\n"
        "autosave_interval 1\n"
        "max_queued_messages 10000\n"
        "log_dest stderr\n"
        "log_type error\n"
        "log_type warning\n", encoding="utf-8")
    return path


def _die_with_parent() -> None:
    """In the child: stop mosquitto when ducktable dies, so that no orphan keeps the port and
    stops the next ``party host`` from starting its own (Linux's PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: stopping it is left to stop()


def wait_for_port(host: str, port: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Broker:
    """A mosquitto child process on ``port``, started again whenever it stops (unless not
    ``restart``: a benchmark times an outage of its own length)."""

    def __init__(self, folder: Path, port: int, bind: str = "0.0.0.0",
                 restart: bool = True) -> None:
        self.program = mosquitto_path()
        self.config = write_config(folder, port, bind)
        self.port = port
        self.bind = bind
        self.process: subprocess.Popen[bytes] | None = None
        self.restart = restart
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def _spawn(self) -> None:
        self.process = subprocess.Popen([self.program, "-c", str(self.config)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        probe = "127.0.0.1" if self.bind in ("0.0.0.0", "") else self.bind
        if not wait_for_port(probe, self.port) or self.process.poll() is not None:
            error = b""
            if self.process.poll() is not None and self.process.stderr is not None:
                error = self.process.stderr.read()
            self.process.kill()
            lines = error.decode("utf-8", "replace").strip().splitlines()
            why = lines[-1] if lines else "no answer"
            raise LinkError(
                f"mosquitto could not listen on port {self.port} ({why}); is another broker on "
                "it? (Debian's own service: sudo systemctl disable --now mosquitto) or choose "
                "another --broker-port")

    def start(self) -> None:
        self._spawn()
        if self.restart and self._watcher is None:
            self._watcher = threading.Thread(target=self._watch, name="mosquitto", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.5):
            if self.process is not None and self.process.poll() is not None:
                log.warning("party: mosquitto stopped (status %s); starting it again",
                            self.process.returncode)
                try:
                    self._spawn()
                except LinkError as exc:
                    log.warning("party: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()

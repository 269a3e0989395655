"""`make demo` installs the runtime only (tests/test_makefile.py): the demo and the pages it
serves must then work without any dev tool. Run in a fresh interpreter where importing one of
the dev extra's packages fails, as it would in the demo's venv."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

DEV_TOOLS = ("pytest", "_pytest", "playwright", "axe_playwright_python", "onnx", "hypothesis",
             "mypy", "ruff", "xdist", "pytest_benchmark")

SCRIPT = """
import importlib.abc, sys
DEV = set(sys.argv[1].split(","))
class NoDevTools(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in DEV:
            raise ImportError(f"a dev tool was imported: {name}")
        return None
sys.meta_path.insert(0, NoDevTools())
from ducktable.device import cli
data, port = sys.argv[2], sys.argv[3]
assert cli.main(["demo", "--pace", "0", "--matches", "1", "--port", port, "--seed", "3",
                 "--data-dir", data]) == 0
from ducktable.device.store import MatchStore
from ducktable.web import create_app
store = MatchStore(data + "/matches.sqlite3")
app = create_app({"STORE": store, "TABLE_PIN": "4821", "INSTANCE_PATH": data,
                  "SECRET_KEY": "demo-" + "x" * 32})
client = app.test_client()
for url in ("/match/1", "/match/1/entry", "/match/1/dispute", "/setup", "/history", "/join"):
    answer = client.get(url)
    assert answer.status_code in (200, 303), (url, answer.status_code)
print("pages served")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_demo_and_its_pages_need_no_dev_tool(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(DEV_TOOLS), str(tmp_path), str(free_port())],
        capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pages served" in done.stdout
    assert "demo match 1" in done.stderr + done.stdout

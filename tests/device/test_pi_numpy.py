"""The Pi install's numpy: held at apt's version (systemd/pi_numpy.py, ``make pi``), which must
satisfy every runtime dependency's numpy requirement: Trixie's numpy 2.2 does, Bookworm's 1.24
cannot (OpenCV 5 needs numpy 2), so the install refuses Bookworm with one line instead of
shadowing apt's numpy and breaking picamera2's simplejpeg ("numpy.dtype size changed")."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "systemd" / "pi_numpy.py"
TRIXIE_NUMPY = "2.2.4"
"""Debian 13's python3-numpy (1:2.2.4+ds-1), which Raspberry Pi OS Trixie ships (assumed from
Debian's archive; check on the Pi with ``apt-cache policy python3-numpy``)."""
BOOKWORM_NUMPY = "1.24.2"
"""Debian 12's python3-numpy (1:1.24.2-1+deb12u1, as ``apt-cache policy`` shows here)."""


def pi_numpy():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("pi_numpy", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numpy_requirements() -> list[tuple[str, Requirement]]:
    """Each runtime dependency's own numpy requirement (as installed), and ducktable's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [("ducktable", Requirement(r)) for r in project["dependencies"]
             if Requirement(r).name == "numpy"]
    for line in project["dependencies"]:
        name = Requirement(line).name
        for raw in metadata.requires(name) or []:
            req = Requirement(raw)
            if req.name == "numpy" and (req.marker is None or req.marker.evaluate()):
                found.append((name, req))
    return found


def test_the_constraint_is_apts_numpy_and_bookworm_is_refused_in_one_line() -> None:
    script = pi_numpy()
    assert script.constraint(TRIXIE_NUMPY) == f"numpy=={TRIXIE_NUMPY}"
    with pytest.raises(ValueError, match="install Raspberry Pi OS Trixie"):
        script.constraint(BOOKWORM_NUMPY)


def test_trixies_numpy_satisfies_every_dependency_and_bookworms_does_not() -> None:
    requirements = numpy_requirements()
    names = {name for name, _ in requirements}
    assert {"ducktable", "opencv-python-headless", "onnxruntime"} <= names
    pinned = Version(pi_numpy().constraint(TRIXIE_NUMPY).split("==")[1])
    assert all(req.specifier.contains(pinned) for _, req in requirements), requirements
    refused = [name for name, req in requirements if not req.specifier.contains(BOOKWORM_NUMPY)]
    assert "opencv-python-headless" in refused


def test_numpy_not_from_apt_is_named(tmp_path: Path) -> None:
    fake = tmp_path / "numpy"
    fake.mkdir()
    (fake / "__init__.py").write_text('__version__ = "2.4.0"\n')
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path)}, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert "not from apt" in done.stderr and "--system-site-packages" in done.stderr
    assert "Traceback" not in done.stderr


def test_make_pi_uses_the_constraint_and_the_system_packages() -> None:
    target = re.search(r"^pi:\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert target is not None
    steps = target.group(1)
    assert "venv --system-site-packages" in steps
    assert "systemd/pi_numpy.py > $(VENV)/pi-constraints.txt" in steps
    assert "pip install -q -c $(VENV)/pi-constraints.txt" in steps
    readme = (ROOT / "README.md").read_text()
    assert "Trixie" in readme and "make pi" in readme


def test_the_service_install_holds_numpy_too_and_may_write_its_settings() -> None:
    install = (ROOT / "systemd" / "install.sh").read_text()
    assert 'pi_numpy.py" > "$PREFIX/pi-constraints.txt"' in install
    assert 'pip install --quiet -c "$PREFIX/pi-constraints.txt"' in install
    assert '-o "$SERVICE_USER" -g "$SERVICE_USER" "$CONFIG_DIR"' in install

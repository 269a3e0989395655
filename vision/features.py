"""Name real cards after a few photos: pretrained features, whitened by the enrolled deck.

The shipped classifier learnt our renders; a real printing looks different, and a deck we never
heard of has cards it cannot know. So an enrolled deck is named the way chesscog learns a new
chess set: by what a network trained on real photographs sees in the crop
(``models/card_features.onnx``, the first blocks of EfficientNet-Lite0 with its ImageNet
weights; :mod:`ducktable.training.features` says how it is made), compared with the crops of the
enrolment photos.

Plain nearest-neighbour search in that space confuses cards of one design that differ in a
few pips. What varies between two photos of *one* card (light, blur, a slightly other cut) is
what must not count, so the enrolled views' within-card scatter is whitened away
(:meth:`PhotoDeck.fit`, a linear discriminant fitted at enrolment time, in milliseconds, with
numpy): on real photographs of a 52-card deck, two photos per card, 98.3% -> 99.8% named right
(docs/benchmarks.md). A crop is named by its closest enrolled view when that view is close
enough and no other card is nearly as close; otherwise it is ``unknown``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN

FEATURES_FILE = "card_features.onnx"
PHOTO_DECK_FILE = "photo_deck.npz"
INPUT_SIZE = (96, 144)
"""Width and height a crop is fed at (portrait): 4 ms per crop on one core."""
GRID = (3, 2)
"""Rows and columns of regions the feature map is averaged into."""
WHITENING = 1e-3
"""Added to the within-card covariance before whitening (the embedding is unit length, so each
of its 672 numbers varies by about 1.5e-3): less makes two photos of one card the whole story,
more undoes the whitening. 1e-2 and 1e-4 both named fewer real photos right."""
MIN_RAW = 0.915
MIN_SIMILARITY = 0.0
MIN_GAP = 0.02
"""A crop is named only when its closest enrolled view is this similar before whitening
(``MIN_RAW``: a card of a printing not enrolled stays below it: 99.5% of them), this similar
after whitening, and the closest view of any other card is ``MIN_GAP`` less similar. Chosen on
the development photos (docs/benchmarks.md)."""
REBUILD_HINT = ("run `python -m ducktable.training.features` (the `train` extra) to rebuild it, "
                "or restore the file from the repository")


def default_model_path() -> Path:
    return Path(str(resources.files("ducktable.models").joinpath(FEATURES_FILE)))


def portrait(crop: np.ndarray) -> np.ndarray:
    """The crop stood upright: a card photographed or cut lying on its side is turned a
    quarter."""
    return np.ascontiguousarray(np.rot90(crop)) if crop.shape[1] > crop.shape[0] else crop


def balanced(crop: np.ndarray) -> np.ndarray:
    """The crop with the light's colour and level taken out (grey-world white balance, then
    the 1st-99th percentile stretched to 0-255): photos of one card under a warm lamp and in
    daylight should look alike to the network."""
    pixels = crop.astype(np.float32)
    means = pixels.reshape(-1, 3).mean(axis=0)
    pixels *= means.mean() / np.maximum(means, 1e-3)
    low, high = np.percentile(pixels, (1, 99))
    return np.clip((pixels - low) * (255.0 / max(float(high - low), 1.0)), 0, 255).astype(np.uint8)


class CardFeatures:
    """The features network: BGR crops in, unit-length 672-number embeddings out."""

    def __init__(self, session: object, dim: int = 672) -> None:
        self._session = session
        self.dim = dim

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, threads: int = 1) -> CardFeatures:
        from ducktable.vision.classify import ModelMissingError, checked_session, manifest_path

        path = Path(model_path) if model_path else default_model_path()
        manifest = manifest_path(path)
        if not manifest.is_file():
            raise ModelMissingError(f"the card features manifest {manifest} is missing; "
                                    f"{REBUILD_HINT}")
        sha = str(json.loads(manifest.read_text(encoding="utf-8")).get("sha256", ""))
        return cls(checked_session(path, sha, threads, "card features model", REBUILD_HINT))

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, self.dim), np.float32)
        batch = np.stack([
            balanced(cv2.resize(portrait(c), INPUT_SIZE, interpolation=cv2.INTER_AREA))
            .transpose(2, 0, 1).astype(np.float32) for c in crops])
        out = self._session.run(None, {"image": batch})[0]  # type: ignore[attr-defined]
        return np.asarray(out, np.float32)


@dataclass(frozen=True)
class Match:
    """What an enrolled deck makes of one crop. ``label`` is ``unknown`` when nothing is close
    enough or two cards are nearly as close; ``nearest`` is the closest card all the same."""

    label: str
    similarity: float
    gap: float
    nearest: str
    raw: float


@dataclass(frozen=True)
class PhotoDeck:
    """A deck's enrolled views in whitened feature space."""

    labels: np.ndarray
    vectors: np.ndarray
    projection: np.ndarray
    centre: np.ndarray
    raw: np.ndarray

    @classmethod
    def fit(cls, views: Mapping[str, np.ndarray]) -> PhotoDeck:
        """Whiten by the scatter of each card's views about their mean; ``views`` maps a label
        to the embeddings of its photos (each photo and the photo turned half way)."""
        labels = [label for label, rows in views.items() for _ in range(len(rows))]
        if not labels:
            raise ValueError("no enrolled views to fit")
        raw = np.vstack([np.asarray(rows, np.float32) for rows in views.values()])
        centred = np.vstack([np.asarray(rows, np.float32) - np.mean(rows, axis=0)
                             for rows in views.values()])
        scatter = centred.T @ centred / len(centred) + WHITENING * np.eye(raw.shape[1])
        values, vectors = np.linalg.eigh(scatter)
        projection = (vectors / np.sqrt(values)).astype(np.float32)
        centre = raw.mean(axis=0)
        return cls(np.array(labels), _unit((raw - centre) @ projection), projection, centre,
                   _unit(raw))

    def match(self, embeddings: np.ndarray, *, min_raw: float = MIN_RAW,
              min_similarity: float = MIN_SIMILARITY, min_gap: float = MIN_GAP) -> list[Match]:
        if not len(embeddings):
            return []
        crops = np.asarray(embeddings, np.float32)
        sims = _unit((crops - self.centre) @ self.projection) @ self.vectors.T
        raws = _unit(crops) @ self.raw.T
        names = np.unique(self.labels)
        columns = [self.labels == n for n in names]
        per_card = np.stack([sims[:, c].max(axis=1) for c in columns], axis=1)
        raw_card = np.stack([raws[:, c].max(axis=1) for c in columns], axis=1)
        found = []
        for row, raw_row in zip(per_card, raw_card, strict=True):
            ranks = np.argsort(-row)
            best = float(row[ranks[0]])
            gap = best - float(row[ranks[1]]) if len(ranks) > 1 else best
            raw = float(raw_row[ranks[0]])
            name = str(names[ranks[0]])
            named = raw >= min_raw and best >= min_similarity and gap >= min_gap
            found.append(Match(name if named else UNKNOWN, best, gap, name, raw))
        return found

    def save(self, path: Path) -> None:
        np.savez_compressed(path, labels=self.labels.astype(str), vectors=self.vectors,
                            projection=self.projection, centre=self.centre, raw=self.raw)

    @classmethod
    def read(cls, path: Path) -> PhotoDeck:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["labels"], data["vectors"], data["projection"], data["centre"],
                       data["raw"])


def enrolment_views(features: CardFeatures, crops_by_label: Mapping[str, Sequence[np.ndarray]]
                    ) -> dict[str, np.ndarray]:
    """Each photo's embedding and its half-turned twin's, per label: a card on the table lies
    either way up."""
    views = {}
    for label, crops in crops_by_label.items():
        both = [*crops, *(cv2.rotate(c, cv2.ROTATE_180) for c in crops)]
        views[label] = features.embed(both)
    return views


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)

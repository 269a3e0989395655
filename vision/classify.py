"""Card crops in, labels out: the shipped ONNX classifier plus any enrolled decks.

The model (``models/card_classifier.onnx``) maps a card crop to a unit-length *embedding* and to
cosine similarities with one learned prototype per known class. Its manifest (the JSON beside
it, also copied into the ONNX metadata) records the labels, the preprocessing, the rejection
thresholds and the file's SHA-256, which is checked before the session is created — a model file
that was swapped, truncated or edited is refused with a message saying how to rebuild it.

Enrolled decks (:mod:`ducktable.vision.enroll`) add prototypes, and for a game that has an
enrolled deck they replace the model's own classes of that game. A crop is compared with every
candidate; it is ``unknown`` when the ``unknown`` class (whose score includes decoy prototypes
of invented cards) is the closest or when no card clears its threshold, and otherwise the
closest card that clears its threshold — a wrong label is worse than none. Only onnxruntime
runs here, never torch, and the session is created once per :class:`CardClassifier`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from ducktable.rules.decks import BACK, UNKNOWN
from ducktable.vision.digits import DigitReader, settle_digit, yellow_digit
from ducktable.vision.model_files import (
    ModelCorruptError,
    ModelError,
    ModelMissingError,
    checked_session,
    file_sha256,
    manifest_path,
    shipped,
)

__all__ = ["CardClassifier", "Classification", "ModelCorruptError", "ModelError",
           "ModelMissingError", "PhotoDecks", "Prototypes", "checked_session", "file_sha256",
           "manifest_path"]

MODEL_FILE = "card_classifier.onnx"
PROTOTYPES_FILE = "prototypes.npz"
DECK_FILE = "deck.json"
REBUILD_HINT = "run `make model` to retrain it, or restore the file from the repository"
RECUT_VOTES = 2
RECUT_MARGIN = 0.04
"""A second look names a card when this many recuts clear its threshold by this margin and no
recut names another card. Measured with the shipped model on cards it could not name: bench
scenes 0-499, 38 of 70 named, all right; the 52-card deck it does not know (300 scenes), none
named (at a margin of 0 or one vote, 14 were, which takes its rejection under 95%)."""

CLEAR_MARGIN = 0.05
CLEAR_GAP = 0.10
"""A crop is named clearly as cut when its closest card clears that card's threshold by
:data:`CLEAR_MARGIN` and every other candidate by :data:`CLEAR_GAP`; only the other crops are
also looked at turned by 180 degrees. Chosen on the crops the detector cut from bench scenes
0-499 (6,053 cards): 97.7% are clear, and naming them as cut got 5,974 right and 20 wrong,
against 5,972 and 20 looking at every crop both ways (scenes 500-799: 97.6% clear, 3,554 right
and 7 wrong either way)."""


# ---- errors ----------------------------------------------------------------------------------
class PrototypeError(ModelError, ValueError):
    """Enrolled prototypes are unreadable or were made with another model (re-enrol)."""


# ---- data ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Classification:
    """What one crop shows.

    ``label`` is game-qualified (``duck/yellow-5``), ``back`` or ``unknown``. ``confidence`` is,
    for a card or back, its softmax probability among the candidate labels; for ``unknown``, one
    minus the best similarity to anything known. ``seconds`` is this crop's share of the batch.
    ``similarity``: the crop's cosine similarity to the label (to the closest card for
    ``unknown``); ``threshold``: what the label had to reach. ``recut``: for the answer of
    :meth:`CardClassifier.classify_recuts`, which recut gave it (-1: a crop's own answer).
    """

    label: str
    confidence: float
    embedding: np.ndarray = field(compare=False, repr=False)
    seconds: float = field(compare=False, default=0.0)
    similarity: float = field(compare=False, default=0.0)
    threshold: float = field(compare=False, default=0.0)
    recut: int = field(compare=False, default=-1)


class Session(Protocol):
    """The part of ``onnxruntime.InferenceSession`` we use (a fake one is injected in tests)."""

    def run(self, output_names: list[str] | None, input_feed: dict[str, np.ndarray]) -> list[Any]:
        ...


@dataclass(frozen=True)
class Manifest:
    """How to feed the model and read its answers (``card_classifier.json``)."""

    labels: tuple[str, ...]
    sha256: str
    input_name: str
    width: int
    height: int
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    outputs: tuple[str, str]
    scale: float
    class_threshold: float
    prototype_threshold: float
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str) -> Manifest:
        try:
            inp = data["input"]
            th = data["thresholds"]
            return cls(
                labels=tuple(data["labels"]), sha256=str(data["sha256"]),
                input_name=str(inp["name"]), width=int(inp["width"]), height=int(inp["height"]),
                mean=tuple(float(v) for v in inp["mean"]),  # type: ignore[arg-type]
                std=tuple(float(v) for v in inp["std"]),  # type: ignore[arg-type]
                outputs=(str(data["outputs"]["embedding"]), str(data["outputs"]["scores"])),
                scale=float(data["scale"]), class_threshold=float(th["class"]),
                prototype_threshold=float(th["prototype"]), raw=data,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelCorruptError(
                f"the model manifest {source} is incomplete ({exc!r} is missing or wrong); "
                f"{REBUILD_HINT}") from None


@dataclass(frozen=True)
class Prototypes:
    """Enrolled reference embeddings: one row per view of an enrolled photo, with its label."""

    labels: tuple[str, ...]
    vectors: np.ndarray  # (n, dim) float32, unit rows

    @classmethod
    def empty(cls, dim: int) -> Prototypes:
        return cls((), np.zeros((0, dim), np.float32))

    def __len__(self) -> int:
        return len(self.labels)

    def merged(self, other: Prototypes) -> Prototypes:
        return Prototypes(self.labels + other.labels, np.vstack([self.vectors, other.vectors]))


# ---- preprocessing (shared with training, so both see identical inputs) ----------------------
def preprocess(crops: Sequence[np.ndarray], width: int, height: int,
               mean: Sequence[float], std: Sequence[float]) -> np.ndarray:
    """BGR uint8 crops of any size -> float32 NCHW batch, resized and normalised.

    The 256 grey levels of each channel are normalised once, into a table every pixel is
    looked up in (the same float32 figures as normalising each pixel, in about half the
    time: every frame read normalises a dozen crops)."""
    if len(crops) == 0:
        return np.empty((0, 3, height, width), np.float32)
    resized = np.empty((len(crops), height, width, 3), np.uint8)
    for i, crop in enumerate(crops):
        img = _as_bgr(crop, i)
        shrink = img.shape[1] >= width and img.shape[0] >= height
        cv2.resize(img, (width, height), dst=resized[i],
                   interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    levels = np.arange(256, dtype=np.float32)[:, None] / 255.0
    table = ((levels - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)).astype(
        np.float32, copy=False)
    normalised = cv2.LUT(resized.reshape(-1, width, 3), table.reshape(256, 1, 3))
    return np.ascontiguousarray(normalised.reshape(-1, height, width, 3).transpose(0, 3, 1, 2))


def _as_bgr(crop: np.ndarray, index: int) -> np.ndarray:
    arr = np.asarray(crop)
    if arr.ndim == 2:
        arr = cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4) or arr.shape[0] < 4 or arr.shape[1] < 4:
        raise ValueError(f"crop {index} has shape {arr.shape}; expected an H x W x 3 BGR image")
    if arr.shape[2] == 4:
        arr = arr[..., :3]
    if arr.dtype != np.uint8:
        raise ValueError(f"crop {index} has dtype {arr.dtype}; expected uint8 pixels")
    return np.ascontiguousarray(arr)


# ---- the classifier --------------------------------------------------------------------------
def default_model_path() -> Path:
    return shipped(MODEL_FILE)


class CardClassifier:
    """Classifies card crops with one onnxruntime session, created once at load time."""

    def __init__(self, session: Session, manifest: Manifest,
                 prototypes: Prototypes | None = None,
                 photo_decks: PhotoDecks | None = None, digits: DigitReader | None = None) -> None:
        self.session = session
        self.manifest = manifest
        self.photo_decks = photo_decks
        self.digits = digits
        dim = int(manifest.raw.get("embedding_dim", 64))
        self.prototypes = prototypes if prototypes is not None else Prototypes.empty(dim)
        self._labels = np.array(manifest.labels)
        self._trained = {lab.split("/", 1)[0] for lab in manifest.labels if "/" in lab}
        # an enrolled deck replaces the model's own classes of that game: the user's printing
        # is what the camera will see, and the built-in drawings would only compete with it
        enrolled = {lab.split("/", 1)[0] for lab in self.prototypes.labels if "/" in lab}
        self._enrolled_games = enrolled
        self._not_replaced = np.array(
            [lab.split("/", 1)[0] not in enrolled for lab in manifest.labels], bool)
        self._enrolled = _ViewGroups(self.prototypes.labels)

    # construction
    @classmethod
    def load(cls, model_path: str | Path | None = None, *, session: Session | None = None,
             prototypes_dir: str | Path | None = None, threads: int = 1,
             digits: bool | None = None) -> CardClassifier:
        """The shipped (or given) model, checked against its manifest, plus enrolled decks.

        ``session`` replaces onnxruntime (tests); the manifest is still read and the labels
        used. ``prototypes_dir`` holds one folder per enrolled deck. ``threads`` sets
        onnxruntime's intra-op threads (1 keeps a Raspberry Pi responsive). ``digits`` opens
        the shipped DUCK digit reader (:mod:`~ducktable.vision.digits`); None: unless
        ``session`` is a stand-in.
        """
        path = Path(model_path) if model_path is not None else default_model_path()
        manifest = read_manifest(path)
        if digits is None:
            digits = session is None
        if session is None:
            session = _open_session(path, manifest, threads)
        prototypes = photo_decks = None
        if prototypes_dir is not None:
            prototypes = load_prototypes(Path(prototypes_dir), manifest)
            photo_decks = PhotoDecks.load(Path(prototypes_dir), threads=threads)
        reader = DigitReader.load(threads=threads) if digits else None
        return cls(session, manifest, prototypes, photo_decks, reader)

    def with_prototypes(self, prototypes: Prototypes) -> CardClassifier:
        """The same session with other enrolled prototypes (no second session is created)."""
        return CardClassifier(self.session, self.manifest, prototypes, self.photo_decks, self.digits)

    def settle_digits(self, crops: Sequence[np.ndarray], found: Sequence[Classification]
                      ) -> list[Classification]:
        """``found`` (one answer per crop) with each DUCK yellow number card's name checked by
        the digit reader (:func:`~ducktable.vision.digits.settle_digit`). Left alone without the reader
        or when an enrolled DUCK deck names the cards (the reader knows only our drawing)."""
        asked = [i for i, r in enumerate(found) if yellow_digit(r.label) is not None]
        if self.digits is None or not asked or "duck" in self._enrolled_games:
            return list(found)
        out = list(found)
        for i, reading in zip(asked, self.digits.read([crops[i] for i in asked]), strict=True):
            label, confidence = settle_digit(found[i].label, found[i].confidence, reading)
            if (label, confidence) != (found[i].label, found[i].confidence):
                out[i] = replace(found[i], label=label, confidence=confidence)
        return out

    # inference
    def embed(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Embeddings (n, dim) and class similarities (n, classes) for ``crops``.

        Each crop is also looked at turned by 180° (a card reads the same either way up) and
        the two views are averaged, so an enrolled prototype made from them does not depend on
        which end of the photo was the top. (:meth:`classify` turns only the crops it cannot
        name clearly as cut.)
        """
        n = len(crops)
        if n == 0:
            dim = self.prototypes.vectors.shape[1]
            return np.zeros((0, dim), np.float32), np.zeros((0, len(self._labels)), np.float32)
        m = self.manifest
        batch = preprocess(crops, m.width, m.height, m.mean, m.std)
        emb, scores = self._look(np.concatenate([batch, batch[:, :, ::-1, ::-1]]))
        return _unit(emb[:n] + emb[n:]), (scores[:n] + scores[n:]) / 2

    def classify(self, crops: Sequence[np.ndarray], *,
                 games: Collection[str] | None = None) -> list[Classification]:
        """Label every crop; ``games`` (e.g. ``{"duck"}``) limits the candidates to those decks
        (``back`` and ``unknown`` always stay possible).

        A crop not named clearly as cut (see :data:`CLEAR_MARGIN`) is also looked at turned
        by 180 degrees, the two views averaged as :meth:`embed` does: nearly every crop costs
        one run of the model in place of two."""
        start = time.perf_counter()
        n = len(crops)
        if n == 0:
            return []
        m = self.manifest
        batch = preprocess(crops, m.width, m.height, m.mean, m.std)
        emb, scores = self._look(batch)
        unit = _unit(emb)
        labels, sims, thresholds = self._candidates(unit, scores, games)
        unclear = np.flatnonzero(~_named_clearly(sims, thresholds, labels == UNKNOWN))
        if len(unclear):
            turned_emb, turned_scores = self._look(
                np.ascontiguousarray(batch[unclear][:, :, ::-1, ::-1]))
            emb[unclear] += turned_emb
            unit = _unit(emb)
            scores[unclear] = (scores[unclear] + turned_scores) / 2
            labels, sims, thresholds = self._candidates(unit, scores, games)
        is_unknown = labels == UNKNOWN
        seconds = (time.perf_counter() - start) / n
        out = []
        for i in range(n):
            row = sims[i]
            accepted = (row >= thresholds) & ~is_unknown
            if not accepted.any() or is_unknown[int(np.argmax(row))]:
                top = float(row[~is_unknown].max()) if (~is_unknown).any() else 0.0
                out.append(Classification(UNKNOWN, float(np.clip(1 - top, 0, 1)), unit[i],
                                          seconds, top))
                continue
            best = int(np.argmax(np.where(accepted, row, -np.inf)))
            logits = m.scale * (row - row.max())
            probs = np.exp(logits) / np.exp(logits).sum()
            out.append(Classification(str(labels[best]), float(probs[best]), unit[i], seconds,
                                      float(row[best]), float(thresholds[best])))
        if self.photo_decks is not None:
            out = self.photo_decks.rename(crops, out, games, self._trained)
        return out

    def classify_recuts(self, recuts: Sequence[np.ndarray], *,
                        games: Collection[str] | None = None) -> Classification | None:
        """A second look at one card that could not be named, from crops cut along moved
        outlines (:meth:`ducktable.vision.detect.Detection.recuts`): the card is named when at
        least :data:`RECUT_VOTES` cuts name it clearly (:data:`RECUT_MARGIN` above its
        threshold) and no cut names another card; otherwise None (still unknown)."""
        named = [(i, r) for i, r in enumerate(self.classify(recuts, games=games))
                 if r.label != UNKNOWN]
        if not named or len({r.label for _, r in named}) > 1:
            return None
        clear = [(i, r) for i, r in named if r.similarity >= r.threshold + RECUT_MARGIN]
        if len(clear) < RECUT_VOTES:
            return None
        index, best = max(clear, key=lambda item: item[1].similarity)
        return replace(best, confidence=min(r.confidence for _, r in clear), recut=index)

    # helpers
    def _look(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The model's embeddings (not yet unit length) and class similarities for ``batch``."""
        m = self.manifest
        emb, scores = self.session.run(list(m.outputs), {m.input_name: batch})
        return np.asarray(emb, np.float32), np.asarray(scores, np.float32)

    def _candidates(self, emb: np.ndarray, scores: np.ndarray, games: Collection[str] | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidate labels, each crop's similarity to them, and each one's threshold.

        The model's classes come first (minus those of enrolled games), then one candidate per
        enrolled label, scored by its nearest enrolled view (:class:`_ViewGroups`).
        """
        m = self.manifest
        keep = self._allowed(self._labels, games) & self._not_replaced
        labels = list(self._labels[keep])
        sims = [scores[:, keep]]
        thresholds = [np.full(int(keep.sum()), m.class_threshold, np.float32)]
        if len(self.prototypes):
            names = self._enrolled.names
            pok = self._allowed(names, games)
            if pok.any():
                sims.append(self._enrolled.scores(emb @ self.prototypes.vectors.T)[:, pok])
                labels += list(names[pok])
                thresholds.append(np.full(int(pok.sum()), m.prototype_threshold, np.float32))
        return np.array(labels), np.hstack(sims), np.concatenate(thresholds)

    @staticmethod
    def _allowed(labels: np.ndarray, games: Collection[str] | None) -> np.ndarray:
        if games is None:
            return np.ones(len(labels), bool)
        wanted = set(games)
        return np.array([lab in (BACK, UNKNOWN) or lab.split("/", 1)[0] in wanted
                         for lab in labels], bool)


class _ViewGroups:
    """Scores a crop against each enrolled label by that label's nearest stored view.

    The nearest view, not the mean of a label's best few: with two photos per card (48 views)
    it named the alternate editions right 98.39% of the time against 97.83% for the best
    sixteenth of the views (4 seeds of the enrolment check; the unknown deck was still refused
    98.1-100%).
    """

    def __init__(self, labels: Sequence[str]) -> None:
        names, inverse = np.unique(np.array(labels, dtype=str), return_inverse=True)
        self.names = names
        self.order = np.argsort(inverse, kind="stable")  # views grouped by label, in name order
        counts = np.bincount(inverse, minlength=len(names))
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)

    def scores(self, sims: np.ndarray) -> np.ndarray:
        """(n, views) similarities -> (n, labels) scores."""
        if not len(self.names):
            return np.zeros((len(sims), 0), np.float32)
        return np.maximum.reduceat(sims[:, self.order], self.starts, axis=1).astype(np.float32)


# ---- naming arithmetic -----------------------------------------------------------------------
def _unit(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (a zero row stays zero)."""
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def _named_clearly(sims: np.ndarray, thresholds: np.ndarray, is_unknown: np.ndarray
                   ) -> np.ndarray:
    """Per row of ``sims`` (crops x candidates): does its closest card clear that card's
    threshold by :data:`CLEAR_MARGIN` and every other candidate, ``unknown`` included, by
    :data:`CLEAR_GAP`?"""
    rows = np.arange(len(sims))
    cards = np.where(is_unknown, -np.inf, sims)
    best = cards.argmax(axis=1)
    top = cards[rows, best]
    others = sims.copy()
    others[rows, best] = -np.inf
    return (top >= thresholds[best] + CLEAR_MARGIN) & (top >= others.max(axis=1) + CLEAR_GAP)


# ---- files -----------------------------------------------------------------------------------
def read_manifest(model_path: Path) -> Manifest:
    path = manifest_path(model_path)
    if not path.is_file():
        raise ModelMissingError(f"the model manifest {path} is missing; {REBUILD_HINT}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelCorruptError(f"the model manifest {path} cannot be read ({exc}); "
                                f"{REBUILD_HINT}") from None
    if not isinstance(data, dict):
        raise ModelCorruptError(f"the model manifest {path} is not a JSON object; {REBUILD_HINT}")
    return Manifest.from_json(data, str(path))


def _open_session(path: Path, manifest: Manifest, threads: int) -> Session:
    session = checked_session(path, manifest.sha256, threads, "card classifier", REBUILD_HINT)
    meta = session.get_modelmeta().custom_metadata_map
    if "labels" in meta and json.loads(meta["labels"]) != list(manifest.labels):
        raise ModelCorruptError(f"the labels inside {path} differ from its manifest; "
                                f"{REBUILD_HINT}")
    return session


class PhotoDecks:
    """Decks enrolled from real photos, named with the features network
    (:mod:`ducktable.vision.features`): for such a deck its answer is the one that counts."""

    def __init__(self, features: Any, decks: dict[str, Any], index: Any = None) -> None:
        self.features = features
        self.decks = decks
        self.index = index
        """The printed-index reader, loaded where some deck was enrolled with its indices."""

    @classmethod
    def load(cls, prototypes_dir: Path, *, threads: int = 1) -> PhotoDecks | None:
        """The photo decks under ``prototypes_dir``, or None where there are none."""
        from ducktable.vision.card_index import IndexReader
        from ducktable.vision.features import PHOTO_DECK_FILE, CardFeatures, PhotoDeck

        if not prototypes_dir.is_dir():
            return None
        decks = {}
        for deck_dir in sorted(p for p in prototypes_dir.iterdir() if p.is_dir()):
            path = deck_dir / PHOTO_DECK_FILE
            if not path.is_file():
                continue
            try:
                decks[deck_dir.name] = PhotoDeck.read(path)
            except (OSError, ValueError, KeyError) as exc:
                raise PrototypeError(f"the enrolled deck in {deck_dir} cannot be read ({exc}); "
                                     f"enrol it again or delete that folder") from None
        if not decks:
            return None
        indexed = any(deck.index is not None for deck in decks.values())
        return cls(CardFeatures.load(threads=threads), decks,
                   IndexReader.load(threads=threads) if indexed else None)

    def rename(self, crops: Sequence[np.ndarray], found: list[Classification],
               games: Collection[str] | None, trained: Collection[str]) -> list[Classification]:
        """``found`` with the photo decks' answers.

        For a deck of a game in ``trained`` the card model learnt that game's cards and keeps
        the first word: the photo deck names only the crops it left ``unknown`` (rendered DUCK
        cards through the capture model, 2 photos per card: 99.3% right and none wrong with the
        card model, 56% and 5% wrong with the photo deck alone). For any other deck the photo
        deck's answer counts (real photographs of a deck the card model never saw: 99.2-99.35%
        right, docs/benchmarks.md); a crop it is unsure of keeps the card model's name from the
        enrolled prototypes only where the photo deck's closest card is the same one."""
        decks = {d: deck for d, deck in self.decks.items() if games is None or d in games}
        if not decks:
            return found
        from ducktable.vision.card_index import CropReads
        from ducktable.vision.features import ink_layouts

        embeddings = self.features.embed(crops)
        # only decks enrolled with ink layouts take a second look at near-ties
        layouts = ink_layouts(crops) if any(deck.layouts is not None for deck in decks.values()) else None
        reads = CropReads(self.index, crops) if self.index is not None else None
        matches = {d: deck.match(embeddings, layouts=layouts,
                                 read_index=reads.of(deck.index.box) if reads and deck.index else None)
                   for d, deck in decks.items()}
        out = []
        for i, before in enumerate(found):
            said = before.label.split("/", 1)[0]
            if said in decks and said in trained:
                out.append(before)
                continue
            named = [(m.raw, d, m) for d, ms in matches.items() if (m := ms[i]).label != UNKNOWN]
            nearest = {f"{d}/{ms[i].nearest}" for d, ms in matches.items()}
            if named:
                _, deck, match = max(named, key=lambda item: item[0])
                out.append(replace(before, label=f"{deck}/{match.label}",
                                   confidence=float(np.clip(match.similarity, 0, 1)),
                                   similarity=match.similarity, threshold=match.raw))
            elif said in decks and before.label not in nearest:
                out.append(replace(before, label=UNKNOWN, confidence=1.0))
            else:
                out.append(before)
        return out


def load_prototypes(prototypes_dir: Path, manifest: Manifest) -> Prototypes:
    """Every enrolled deck under ``prototypes_dir`` (one folder each); none is fine."""
    dim = int(manifest.raw.get("embedding_dim", 64))
    total = Prototypes.empty(dim)
    if not prototypes_dir.is_dir():
        return total
    for deck_dir in sorted(p for p in prototypes_dir.iterdir() if p.is_dir()):
        total = total.merged(read_deck_prototypes(deck_dir, manifest))
    return total


def read_deck_prototypes(deck_dir: Path, manifest: Manifest) -> Prototypes:
    info_path, data_path = deck_dir / DECK_FILE, deck_dir / PROTOTYPES_FILE
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
        with np.load(data_path, allow_pickle=False) as data:
            vectors = np.asarray(data["vectors"], np.float32)
            labels = tuple(str(v) for v in data["labels"])
    except (OSError, ValueError, KeyError) as exc:
        raise PrototypeError(f"the enrolled deck in {deck_dir} cannot be read ({exc}); "
                             f"enrol it again or delete that folder") from None
    if info.get("model_sha256") != manifest.sha256:
        raise PrototypeError(
            f"the enrolled deck in {deck_dir} was made with another card model; enrol it again "
            f"(`ducktable enroll`) or delete that folder")
    dim = int(manifest.raw.get("embedding_dim", 64))
    if vectors.ndim != 2 or vectors.shape[1] != dim or len(labels) != len(vectors):
        raise PrototypeError(f"the enrolled deck in {deck_dir} has malformed prototypes; "
                             f"enrol it again or delete that folder")
    return Prototypes(labels, vectors)


def write_deck_prototypes(deck_dir: Path, prototypes: Prototypes, info: dict[str, Any]) -> None:
    """Store one deck's prototypes (written to temporary names first, then renamed)."""
    deck_dir.mkdir(parents=True, exist_ok=True)
    tmp_data = deck_dir / (PROTOTYPES_FILE + ".tmp.npz")
    tmp_info = deck_dir / (DECK_FILE + ".tmp")
    np.savez(tmp_data, vectors=prototypes.vectors.astype(np.float32),
             labels=np.array(prototypes.labels, dtype=str))
    tmp_info.write_text(json.dumps(info, indent=2, sort_keys=True), encoding="utf-8")
    tmp_data.replace(deck_dir / PROTOTYPES_FILE)
    tmp_info.replace(deck_dir / DECK_FILE)

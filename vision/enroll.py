"""Teach the classifier a real deck from a few photos: per-card prototypes in a data folder.

A printed deck never looks exactly like our renders, and a user may own a deck we never heard
of. Enrolment photographs each card (lying free on any surface, at any angle), finds the card
with the detector, refuses it when a hand or the picture's edge hides part of it (a finger over
a pip, stored, makes one card's prototype another's), and embeds the upright crop with the shipped model together with
re-photographed copies of it (:data:`VIEWS_PER_PHOTO` views in all; crop residue, 180° turn,
fingers, lost detail, light, blur, noise — what :mod:`ducktable.vision.augment` does in
training). Every view
is stored: two photos then cover many of the conditions a crop at the table will meet, which
one averaged prototype per photo did not (alternate edition, two photos per card, same model:
93% -> 96% of crops right). :class:`~ducktable.vision.classify.CardClassifier` scores a crop
against a card by its nearest stored view, with a rejection threshold.

Two ways in, one way out:

* :func:`enroll_folder` — a folder with one sub-folder per label (``yellow-5/IMG_01.jpg``). For
  one of our games the sub-folder names must be that deck's labels; any other deck name makes a
  custom deck whose labels are the sub-folder names. Bad photos are reported by file name.
* :func:`guided_enrolment` — a loop over camera frames that prompts "show yellow-5" and keeps the
  steady, sharp shots; pure (frames in, crops out), so ``device/`` can wire any camera to it.

Both end in :func:`enroll_crops`, which writes ``<prototypes_dir>/<deck>/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules import decks
from ducktable.rules.decks import BACK, UNKNOWN
from ducktable.vision import augment, printing
from ducktable.vision.card_index import IndexReader, Read, enrolment_reads
from ducktable.vision.classify import CardClassifier, Prototypes, write_deck_prototypes
from ducktable.vision.features import (
    PHOTO_DECK_FILE,
    CardFeatures,
    PhotoDeck,
    enrolment_layouts,
    enrolment_retakes,
    enrolment_views,
)
from ducktable.vision.photo_finder import FoundCard, find_photo_cards

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
MIN_SHARPNESS = 3.0
"""Sharpness (see :func:`sharpness`) below which a photo counts as blurred: cards in focus
measure 5.6-9.7, the same photos blurred by a Gaussian of sigma 2 or more 1.6-2.5."""

CROP_SIZE = (100, 150)
VIEWS_PER_PHOTO = 24
"""Embeddings stored per photo: the crop itself and this many minus one re-photographed views."""

CardFinder = Callable[[np.ndarray], Sequence[np.ndarray | FoundCard]]
"""Finds cards in a photo: returns one upright BGR crop per card found, or the card found with
how much of it is hidden (:class:`~ducktable.vision.photo_finder.FoundCard`)."""

MAX_HIDDEN_TO_ENROL = 0.02
"""Largest share of a card's face that may be hidden (by a hand or the picture's edge) in a
photo that is enrolled: a finger over a pip, stored, turns one card's prototype into another's."""


class EnrolmentError(ValueError):
    """Enrolment cannot go ahead at all (no folder, wrong labels, nothing usable)."""


@dataclass(frozen=True)
class PhotoProblem:
    """One photo that was not used, and why (the message names the file)."""

    path: Path
    message: str


@dataclass(frozen=True)
class EnrolmentReport:
    """What was stored. ``not_enrolled``: cards of a known game that got no photos — once a
    game is enrolled the classifier reads that game only through its enrolled cards."""

    deck: str
    deck_dir: Path | None
    """Where the deck was stored; None when the photos were only checked."""
    photos_per_label: dict[str, int]
    problems: list[PhotoProblem] = field(default_factory=list)
    not_enrolled: list[str] = field(default_factory=list)
    retake: list[str] = field(default_factory=list)
    """What :func:`check_views` says of the enrolled photos: one line per card to photograph
    again (empty when every photo names its card from the others)."""

    @property
    def labels(self) -> list[str]:
        return sorted(self.photos_per_label)


# ---- finding the card in a photo -------------------------------------------------------------
def detector_finder() -> CardFinder:
    """The project's card detector (``ducktable.vision.detect``), as a :data:`CardFinder`."""
    from ducktable.vision import detect

    def find(image: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(d.crop) for d in detect.detect_cards(image)]

    return find


def sharpness(crop: np.ndarray) -> float:
    """Focus measure that does not depend on how much is printed on the card: how much fine
    detail a slight further blur (sigma 1) takes away, as the variance of the Laplacian of the
    100 x 150 grey crop over that of the crop blurred (a focused photo loses much, a blurred one
    little). A 3-pixel band round the crop is left out: it holds the detector's outline and
    the table beyond, which once outweighed the card itself (a plain card read as sharp as its
    crop's edge). A crop with no detail at all measures 0."""
    grey = cv2.cvtColor(cv2.resize(crop, CROP_SIZE, interpolation=cv2.INTER_AREA),
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    band = 3
    detail = cv2.Laplacian(grey, cv2.CV_32F)[band:-band, band:-band].var()
    left = cv2.Laplacian(cv2.GaussianBlur(grey, (0, 0), 1.0), cv2.CV_32F)[band:-band, band:-band].var()
    return float(detail / left) if left > 1e-3 else 0.0


def found_card(found: np.ndarray | FoundCard) -> tuple[np.ndarray, float]:
    """The crop of what a :data:`CardFinder` found, and the share of the card that is hidden
    (0 where the finder says nothing of it)."""
    if isinstance(found, FoundCard):
        return found.crop, found.hidden.total
    return found, 0.0


def enrollable(hidden: float) -> bool:
    """Whether a card of which ``hidden`` (a share of its face) is hidden may be enrolled."""
    return hidden <= MAX_HIDDEN_TO_ENROL


def usable_crop(image: np.ndarray, find: CardFinder, name: str,
                min_sharpness: float = MIN_SHARPNESS) -> tuple[np.ndarray | None, str]:
    """The one sharp, whole card in ``image``, or ``None`` and a message naming ``name``."""
    found = find(image)
    if not found:
        return None, (f"{name}: no card found — put one card on a plain surface so that it "
                      f"fills about half of the picture")
    if len(found) > 1:
        return None, f"{name}: {len(found)} cards found — photograph one card at a time"
    crop, hidden = found_card(found[0])
    if not enrollable(hidden):
        return None, hidden_message(name, found[0])
    sharp = sharpness(crop)
    if sharp < min_sharpness:
        return None, (f"{name}: the card is too blurred (sharpness {sharp:.1f}, needs "
                      f"{min_sharpness:.1f}) — hold the camera still and let it focus")
    return crop, ""


def hidden_message(name: str, found: np.ndarray | FoundCard) -> str:
    """Why a card partly hidden is not enrolled, and what to do."""
    if isinstance(found, FoundCard) and found.hidden.cut > found.hidden.over:
        return (f"{name}: the picture's edge cuts off part of the card (about "
                f"{found.hidden.total:.0%} of it) — photograph the whole card, lying free")
    return (f"{name}: a hand covers part of the card (about {found_card(found)[1]:.0%} of it) "
            f"— photograph it lying free")


# ---- prototypes ------------------------------------------------------------------------------
def photo_views(crop: np.ndarray, rng: np.random.Generator, views: int = VIEWS_PER_PHOTO
                ) -> list[np.ndarray]:
    """``crop`` and ``views - 1`` copies of it as the camera might cut and light it another time
    (the training augmentation applied to the photo)."""
    size = (crop.shape[1], crop.shape[0])
    return [crop, *(augment.augment_card(crop, rng, size=size) for _ in range(max(0, views - 1)))]


def photo_prototypes(classifier: CardClassifier,
                     crops_by_label: Mapping[str, Sequence[np.ndarray]],
                     rng: np.random.Generator, views: int = VIEWS_PER_PHOTO
                     ) -> dict[str, list[np.ndarray]]:
    """Per (qualified) label, one array of unit embeddings per photo: the views of that photo
    (kept apart so that the leave-one-out check can leave one photo out)."""
    return {label: [classifier.embed(photo_views(crop, rng, views))[0].astype(np.float32)
                    for crop in crops]
            for label, crops in sorted(crops_by_label.items())}


def joined_prototypes(per_photo: Mapping[str, Sequence[np.ndarray]], dim: int) -> Prototypes:
    """The views of every photo of :func:`photo_prototypes` as one set of prototypes."""
    labels = [label for label, photos in per_photo.items() for rows in photos for _ in rows]
    vectors = [rows for photos in per_photo.values() for rows in photos]
    return Prototypes(tuple(labels), np.vstack(vectors) if vectors else np.zeros((0, dim),
                                                                                  np.float32))


def deck_prototypes(classifier: CardClassifier,
                    crops_by_label: Mapping[str, Sequence[np.ndarray]],
                    rng: np.random.Generator, views: int = VIEWS_PER_PHOTO) -> Prototypes:
    """One unit embedding per view of every photo, labelled with its (qualified) label."""
    return joined_prototypes(photo_prototypes(classifier, crops_by_label, rng, views),
                             classifier.prototypes.vectors.shape[1])


def trained_games(classifier: CardClassifier) -> set[str]:
    """The games whose cards the card model learnt (the table names them with it first)."""
    return {label.split("/", 1)[0] for label in classifier.manifest.labels if "/" in label}


def model_check(classifier: CardClassifier, deck: str,
                crops_by_label: Mapping[str, Sequence[np.ndarray]],
                per_photo: Mapping[str, Sequence[np.ndarray]]) -> dict[tuple[str, int], str]:
    """What the card model, given the enrolled prototypes of every other photo, names each
    photo of a game it learnt: ``(label, photo index) -> label`` (``unknown`` where it cannot
    say). The table asks it first for such a game; only what it leaves unknown goes to the
    photo deck."""
    said = {}
    for label, crops in crops_by_label.items():
        for i, crop in enumerate(crops):
            others = {lab: [rows for j, rows in enumerate(photos)
                            if not (lab == qualified_label(deck, label) and j == i)]
                      for lab, photos in per_photo.items()}
            prototypes = joined_prototypes(others, classifier.prototypes.vectors.shape[1])
            result = classifier.with_prototypes(prototypes).classify([crop], games={deck})[0]
            said[(label, i)] = (result.label.split("/", 1)[1] if result.label.startswith(f"{deck}/")
                                else UNKNOWN if result.label == UNKNOWN else result.label)
    return said


def qualified_label(deck: str, label: str) -> str:
    return BACK if label == BACK else f"{deck}/{label}"


def enroll_crops(crops_by_label: Mapping[str, Sequence[np.ndarray]], prototypes_dir: str | Path,
                 deck: str, classifier: CardClassifier, *, seed: int = 0,
                 extra_info: Mapping[str, Any] | None = None,
                 views: Mapping[str, np.ndarray] | None = None,
                 prototypes: Prototypes | None = None,
                 reads: Mapping[str, Sequence[Sequence[Read]]] | None = None,
                 retakes: Mapping[str, np.ndarray] | None = None) -> Path:
    """Embed every crop and store the deck's prototypes (``prototypes`` where the caller has
    them already), its photo deck (:class:`~ducktable.vision.features.PhotoDeck`, from
    ``views``, index ``reads`` and ``retakes`` where the caller has them already; the retakes
    are ``seed``-ed re-photographed copies of the crops:
    :func:`~ducktable.vision.features.enrolment_retakes`)
    and the crops themselves as PNG files in ``crops/``, so the user can see what was taken
    for each card; returns the deck folder."""
    if prototypes is None:
        qualified = {qualified_label(deck, label): crops for label, crops in crops_by_label.items()}
        prototypes = deck_prototypes(classifier, qualified, np.random.default_rng(seed))
    if not len(prototypes):
        raise EnrolmentError(f"nothing to enrol for deck {deck!r}: no usable card photos")
    info = {
        "deck": deck,
        "labels": sorted(set(prototypes.labels)),
        "photos": {qualified_label(deck, k): len(v) for k, v in crops_by_label.items()},
        "model_sha256": classifier.manifest.sha256,
        "views_per_photo": VIEWS_PER_PHOTO,
        **dict(extra_info or {}),
    }
    deck_dir = Path(prototypes_dir) / deck
    write_deck_prototypes(deck_dir, prototypes, info)
    usable = {label: crops for label, crops in crops_by_label.items() if crops}
    if views is None or retakes is None:
        features = CardFeatures.load()
        views = enrolment_views(features, usable) if views is None else views
        retakes = enrolment_retakes(features, usable, seed) if retakes is None else retakes
    if reads is None:
        reads = enrolment_reads(IndexReader.load(), usable)
    PhotoDeck.fit(views, enrolment_layouts(usable), reads, retakes).save(deck_dir / PHOTO_DECK_FILE)
    shown = deck_dir / "crops"
    shown.mkdir(exist_ok=True)
    for old in shown.glob("*.png"):
        old.unlink()
    for label, crops in usable.items():
        for n, crop in enumerate(crops, 1):
            cv2.imwrite(str(shown / f"{label}-{n}.png"), crop)
    return deck_dir


def check_views(views: Mapping[str, np.ndarray],
                first: Mapping[tuple[str, int], str] | None = None,
                reads: Mapping[str, Sequence[Sequence[Read]]] | None = None,
                retakes: Mapping[str, np.ndarray] | None = None) -> list[str]:
    """Which cards to photograph again: each photo is named from the others (leave one out);
    a card with one usable photo cannot be checked and is named too. ``views`` maps a label
    to the features of its photos followed by those of the same photos turned half way
    (:func:`~ducktable.vision.features.enrolment_views`), ``reads`` to their index reads in
    the same order (:func:`~ducktable.vision.card_index.enrolment_reads`; the photo deck then
    takes the printed index's second look, as at the table). ``first`` holds what the card
    model named each ``(label, photo index)`` (:func:`model_check`); the photo deck names only
    the photos it left ``unknown``, as at the table. ``retakes`` are the views' re-photographed
    copies (:func:`~ducktable.vision.features.enrolment_retakes`): each deck left one photo out
    learns from the others' copies, as the deck enrolled does from all of them."""
    lines = []
    for label, rows in sorted(views.items()):
        photos = len(rows) // 2
        if photos < 2:
            lines.append(f"{label}: only one usable photo - add another so it can be checked")
            continue
        for i in range(photos):
            match = (first or {}).get((label, i), UNKNOWN)
            if match == UNKNOWN:
                match = _named_from_the_others(views, reads, retakes, label, i)
            if match != label:
                said = "not recognised" if match == UNKNOWN else f"taken for {match}"
                lines.append(f"{label}: photo {i + 1} is {said} from the other photos - "
                             f"photograph {label} again (plain light, whole card in view)")
    return lines


def _named_from_the_others(views: Mapping[str, np.ndarray],
                           reads: Mapping[str, Sequence[Sequence[Read]]] | None,
                           retakes: Mapping[str, np.ndarray] | None,
                           label: str, i: int) -> str:
    """What a photo deck of every other photo names ``label``'s photo ``i``."""
    rows = views[label]
    photos = len(rows) // 2
    keep = [j for j in range(len(rows)) if j not in (i, i + photos)]
    kept = {other: r for other, r in views.items() if other != label}
    kept[label] = rows[keep]
    kept_reads = None
    if reads is not None:
        kept_reads = {other: r for other, r in reads.items() if other != label}
        kept_reads[label] = [reads[label][j] for j in keep]
    kept_retakes = None
    if retakes is not None:
        kept_retakes = {other: r for other, r in retakes.items() if other != label}
        kept_retakes[label] = np.asarray(retakes[label])[keep]
    deck = PhotoDeck.fit(kept, index_reads=kept_reads, retakes=kept_retakes)
    index = deck.index
    if reads is None or index is None:
        return deck.match(rows[i:i + 1])[0].label
    own = [reads[label][i][index.box], reads[label][i + photos][index.box]]
    return deck.match(rows[i:i + 1], read_index=lambda _: own)[0].label


# ---- from a folder of photos -----------------------------------------------------------------
def check_deck_name(deck: str) -> str:
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", deck):
        raise EnrolmentError(f"deck name {deck!r} is not usable: use 1-40 lower-case letters, "
                             f"digits, '-' or '_'")
    return deck


def enroll_folder(photos_dir: str | Path, prototypes_dir: str | Path | None, *,
                  deck: str | None = None, classifier: CardClassifier | None = None,
                  find: CardFinder | None = None, min_sharpness: float = MIN_SHARPNESS,
                  seed: int = 0) -> EnrolmentReport:
    """Enrol the deck photographed in ``photos_dir`` (one sub-folder per label).

    ``deck`` defaults to the folder's name. Photos that cannot be used are listed in the
    report's ``problems``; the cards with a usable photo are stored and the others listed in
    ``not_enrolled``, so one bad photo does not hold up the rest of the deck. Each photo is also
    named from the others and the cards to photograph again are in ``retake``. With
    ``prototypes_dir`` None nothing is stored: the photos are only checked.
    """
    root = Path(photos_dir)
    deck, crops, problems = _photographed(root, deck, find or find_photo_cards, min_sharpness)
    return enroll_photos(deck, crops, problems, prototypes_dir, classifier=classifier, seed=seed,
                         source=str(root))


def enroll_photos(deck: str, crops: Mapping[str, Sequence[np.ndarray]],
                  problems: Sequence[PhotoProblem], prototypes_dir: str | Path | None, *,
                  classifier: CardClassifier | None = None, seed: int = 0, source: str = ""
                  ) -> EnrolmentReport:
    """Store (unless ``prototypes_dir`` is None) and check the cards cut from the photos, per
    label: what :func:`enroll_folder` and layout enrolment
    (:func:`ducktable.vision.layout_reading.enroll_layouts`) both end in."""
    usable = {label: list(got) for label, got in crops.items() if len(got)}
    if not usable:
        details = "; ".join(p.message for p in problems) or "the folders are empty"
        raise EnrolmentError(f"no usable photo in {source or deck}: {details}")
    features = CardFeatures.load()
    views = enrolment_views(features, usable)
    reads = enrolment_reads(IndexReader.load(), usable)
    retakes = enrolment_retakes(features, usable, seed)
    first = None
    prototypes = None
    if prototypes_dir is not None or deck in printing.GAMES:
        classifier = classifier or CardClassifier.load()
        per_photo = photo_prototypes(
            classifier, {qualified_label(deck, k): v for k, v in usable.items()},
            np.random.default_rng(seed))
        prototypes = joined_prototypes(per_photo, classifier.prototypes.vectors.shape[1])
        if deck in trained_games(classifier):
            first = model_check(classifier, deck, usable, per_photo)
    deck_dir = None
    if prototypes_dir is not None:
        deck_dir = enroll_crops(usable, prototypes_dir, deck, classifier or CardClassifier.load(),
                                seed=seed, extra_info={"source": source}, views=views,
                                prototypes=prototypes, reads=reads, retakes=retakes)
    known = (printing.card_labels(deck) if deck in printing.DRAWABLE_DECKS
             else list(decks.deck(deck).labels) if deck in decks.DECKS else [])
    return EnrolmentReport(deck, deck_dir, {k: len(v) for k, v in usable.items()}, list(problems),
                           [label for label in (known or list(crops)) if label not in usable],
                           check_views(views, first, reads, retakes))


def _photographed(root: Path, deck: str | None, find: CardFinder, min_sharpness: float
                  ) -> tuple[str, dict[str, list[np.ndarray]], list[PhotoProblem]]:
    """The deck's name and the one sharp card cut from each photo, per label, with the photos
    that could not be used and why."""
    if not root.is_dir():
        raise EnrolmentError(f"{root} is not a folder; give a folder with one sub-folder of "
                             f"photos per card label")
    deck = check_deck_name(deck if deck is not None else root.name.lower())
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise EnrolmentError(f"{root} has no sub-folders; put each card's photos in a folder "
                             f"named after its label (e.g. {root / 'yellow-5'})")
    _check_labels(deck, [p.name for p in folders])
    crops: dict[str, list[np.ndarray]] = {}
    problems: list[PhotoProblem] = []
    for folder in folders:
        crops[folder.name] = []
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        for path in files:
            name = str(path)
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                problems.append(PhotoProblem(path, f"{name}: not a photo (expected one of "
                                                   f"{', '.join(IMAGE_SUFFIXES)}), skipped"))
                continue
            image = cv2.imread(name, cv2.IMREAD_COLOR)
            if image is None:
                problems.append(PhotoProblem(path, f"{name}: cannot be read as an image"))
                continue
            crop, message = usable_crop(image, find, name, min_sharpness)
            if crop is None:
                problems.append(PhotoProblem(path, message))
            else:
                crops[folder.name].append(crop)
    return deck, crops, problems


def _check_labels(deck: str, names: list[str]) -> None:
    bad = [n for n in names if not re.fullmatch(r"[a-z0-9][a-z0-9_+-]{0,39}", n) or n == UNKNOWN]
    if bad:
        raise EnrolmentError(f"sub-folder names {bad} are not usable labels: use lower-case "
                             f"letters, digits, '-', '+' or '_' (and not 'unknown')")
    if deck in decks.DECKS:
        known = set(decks.deck(deck).labels) | {BACK}
        wrong = [n for n in names if n not in known]
        if wrong:
            raise EnrolmentError(
                f"{wrong} are not cards of {decks.deck(deck).title}; its labels are e.g. "
                f"{', '.join(list(decks.deck(deck).labels)[:4])} (or enrol under another deck "
                f"name to make a custom deck)")


# ---- guided enrolment from a camera ----------------------------------------------------------
def guided_enrolment(frames: Iterable[np.ndarray], labels: Sequence[str],
                     prompt: Callable[[str], None], find: CardFinder, *, shots: int = 2,
                     steady_frames: int = 3, gap_frames: int = 5,
                     min_sharpness: float = MIN_SHARPNESS) -> dict[str, list[np.ndarray]]:
    """Ask for each label in turn ("show yellow-5") and keep ``shots`` crops of it.

    A shot is taken when exactly one sharp card has been seen in ``steady_frames`` frames in a
    row; between two shots ``gap_frames`` frames pass so they differ. Between two labels the
    card must leave the view ("take yellow-5 away"), so it is not taken for the next label. ``prompt`` receives every
    instruction (and what went wrong) as one line. If the frames run out first, an
    :class:`EnrolmentError` names the labels still missing.
    """
    stream = iter(frames)
    taken: dict[str, list[np.ndarray]] = {label: [] for label in labels}
    for n, label in enumerate(labels):
        if n:  # the previous card must leave the view before the next is accepted
            prompt(f"take {labels[n - 1]} away")
            while True:
                frame = _next_frame(stream, labels, taken, shots)
                if usable_crop(frame, find, "camera", min_sharpness)[0] is None:
                    break
        prompt(f"show {label}")
        steady = 0
        wait = 0
        last_problem = ""
        while len(taken[label]) < shots:
            frame = _next_frame(stream, labels, taken, shots)
            if wait > 0:
                wait -= 1
                continue
            crop, problem = usable_crop(frame, find, "camera", min_sharpness)
            if crop is None:
                steady = 0
                short = problem.split(" — ")[0].removeprefix("camera: ")
                if short != last_problem:
                    prompt(f"{short}: show only {label}")
                    last_problem = short
                continue
            steady += 1
            if steady >= steady_frames:
                taken[label].append(crop)
                prompt(f"got {label} ({len(taken[label])}/{shots})")
                steady, wait, last_problem = 0, gap_frames, ""
    prompt("all cards enrolled")
    return taken


def _next_frame(stream: Iterator[np.ndarray], labels: Sequence[str],
                taken: Mapping[str, list[np.ndarray]], shots: int) -> np.ndarray:
    frame = next(stream, None)
    if frame is None:
        missing = [lab for lab in labels if len(taken[lab]) < shots]
        raise EnrolmentError(f"the camera stopped before every card was shown; still "
                             f"missing: {', '.join(missing)}")
    return frame

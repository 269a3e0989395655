"""Commands for the card camera: ``identify`` a photo and ``enroll`` a deck of your own.

Why this module exists: a user checks what the camera sees in one picture, and teaches the
classifier their own printing of a deck, either from a folder of labelled photos or by showing
the cards to the camera one by one. Each command checks its input first and reports a problem
as one line saying what to fix, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from . import paths
from .cli import UserError


def register(subparsers: Any) -> None:
    from ducktable.vision.locator import DETECTORS

    p = subparsers.add_parser("identify", help="find and name the cards in one photo")
    p.add_argument("image", help="a photo (JPEG, PNG, ...) of cards on a table")
    p.add_argument("--out", help="where to write the annotated copy "
                                 "(default: IMAGE's name with -identified, next to it)")
    p.add_argument("--game", action="append", dest="games", metavar="GAME",
                   help="only consider this game's cards (repeat for several)")
    p.add_argument("--model", help="a card classifier .onnx (default: the shipped one)")
    p.add_argument("--no-enrolled", action="store_true",
                   help="ignore the decks enrolled in the data folder")
    p.add_argument("--detector", choices=tuple(DETECTORS), default="network",
                   help="how cards are found: the card locator network, its outlines fitted to "
                        "edges (default; made for tables seen from above; where it finds "
                        "nothing, the edge-map search reads the photo again), or the edge-map "
                        "search alone (slower; any card size, e.g. a close-up)")
    p.set_defaults(func=cmd_identify)

    p = subparsers.add_parser(
        "enroll", help="teach the classifier your own deck from photos or the camera")
    p.add_argument("photos", nargs="?",
                   help="a folder with one sub-folder of photos per card label "
                        "(e.g. mydeck/yellow-5/1.jpg); leave out with --camera")
    p.add_argument("--deck", help="deck name: one of the games (duck, grey, ...) to use your "
                                  "printing of it, or a new name for a custom deck "
                                  "(default: the photo folder's name)")
    p.add_argument("--camera", metavar="SOURCE",
                   help="show the cards to this camera one by one instead "
                        "('picamera', a camera index, a URL, a video or a folder)")
    p.add_argument("--labels", help="camera mode: comma-separated labels to show, in order "
                                    "(default: every card of --deck)")
    p.add_argument("--shots", type=int, default=2, help="camera mode: photos kept per card")
    p.add_argument("--model", help="a card classifier .onnx (default: the shipped one)")
    p.add_argument("--check", action="store_true",
                   help="only check the photos: name each from the others and say which cards "
                        "to photograph again; nothing is stored")
    p.set_defaults(func=cmd_enroll)

    p = subparsers.add_parser(
        "layout-sheet", help="write where to lay each card of a game for layout enrolment")
    p.add_argument("game", help="the game whose deck to lay out (duck, bruce, grey, ...)")
    p.add_argument("out", help="file to write: .pdf (every layout and round, one page each) or "
                               ".png (one file per page, OUT-L<layout>R<round>.png)")
    _grid_options(p)
    p.set_defaults(func=cmd_layout_sheet)

    p = subparsers.add_parser(
        "enroll-layout", help="enrol a game's deck from photos of its cards laid in grids")
    p.add_argument("game", help="the game whose deck was laid out (duck, bruce, grey, ...)")
    p.add_argument("photos", nargs="+", metavar="LAYOUT:ROUND=PHOTO",
                   help="one photo per layout and round, e.g. 1:1=a.jpg 1:2=b.jpg 2:1=c.jpg")
    _grid_options(p)
    p.add_argument("--model", help="a card classifier .onnx (default: the shipped one)")
    p.add_argument("--check", action="store_true",
                   help="only read and check the photos; nothing is stored")
    p.add_argument("--annotated", metavar="FOLDER",
                   help="write each photo with its cards outlined and named into FOLDER")
    p.set_defaults(func=cmd_enroll_layout)


def _grid_options(p: Any) -> None:
    p.add_argument("--rows", type=int, default=3, help="rows of the grid (default 3)")
    p.add_argument("--cols", type=int, default=5, help="columns of the grid (default 5)")


# ---- identify ---------------------------------------------------------------------------------


def cmd_identify(args: argparse.Namespace) -> int:
    from ducktable.vision.pipeline import CardReader

    image_path = Path(args.image)
    image = read_image(image_path)
    prototypes = None if args.no_enrolled else paths.enrolled_decks_dir(args.data_dir)
    classifier = load_classifier(args.model, prototypes)
    reader = CardReader(classifier, games=args.games, locator=load_locator(args.detector))
    reading = reader.read(image)
    if args.detector == "network" and not reading.cards + reading.unknown:
        # The locator knows tables seen from above; a close-up of a card is not one.
        reading = CardReader(classifier, games=args.games).read(image)
        print("the card locator found nothing; read again with the edge-map search")
    out = Path(args.out) if args.out else image_path.with_name(
        f"{image_path.stem}-identified{image_path.suffix or '.png'}")
    write_image(out, annotate(image, reading))
    for card in sorted(reading.cards + reading.unknown, key=lambda c: c.centre[::-1]):
        x, y = card.centre
        print(f"{card.label:<30} {card.confidence:5.2f}   at ({x:5.0f}, {y:5.0f})")
    print(f"{len(reading.cards)} card(s) named, {len(reading.unknown)} not recognised, in "
          f"{reading.total_ms:.0f} ms (detect {reading.detect_ms:.0f}, "
          f"classify {reading.classify_ms:.0f}); annotated copy: {out}")
    return 0


def read_image(path: Path) -> np.ndarray:
    """The photo at ``path``, or a :class:`UserError` saying why it cannot be used."""
    if not path.exists():
        raise UserError(f"no such image: {path}")
    if not path.is_file():
        raise UserError(f"{path} is not a file; give a photo such as table.jpg")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"cannot read {path} as an image: it is corrupt or not a picture "
                        "(use JPEG or PNG)")
    return image


def write_image(path: Path, image: np.ndarray) -> None:
    try:
        ok = cv2.imwrite(str(path), image)
    except cv2.error:
        ok = False
    if not ok:
        raise UserError(f"cannot write the annotated image to {path}: check the folder exists, "
                        "is writable and the name ends in .jpg or .png (or pass --out)")


def load_classifier(model: str | None, prototypes_dir: Path | None) -> Any:
    from ducktable.vision.classify import CardClassifier, ModelError

    try:
        return CardClassifier.load(model, prototypes_dir=prototypes_dir)
    except ModelError as exc:
        raise UserError(str(exc)) from None


def load_locator(detector: str) -> Any:
    """The shipped card locator for "network", none for "edges"."""
    from ducktable.vision.classify import ModelError
    from ducktable.vision.locator import load_locator as load

    try:
        return load(detector)
    except ModelError as exc:
        raise UserError(str(exc)) from None


def annotate(image: np.ndarray, reading: Any) -> np.ndarray:
    """A copy of ``image`` with each card outlined and labelled (unknown ones in red)."""
    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 1000)
    for card, colour in [(c, (60, 200, 60)) for c in reading.cards] + [
            (c, (40, 40, 230)) for c in reading.unknown]:
        quad = np.round(card.quad).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, max(1, round(2 * scale)), cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in quad[0]), max(2, round(4 * scale)), colour, -1)
        text = f"{card.label} {card.confidence:.2f}"
        x, y = (int(v) for v in card.quad.min(axis=0))
        origin = (x, max(12, y - 4))
        cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0),
                    max(2, round(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, colour,
                    max(1, round(scale)), cv2.LINE_AA)
    return out


# ---- enroll -----------------------------------------------------------------------------------


def cmd_enroll(args: argparse.Namespace) -> int:
    if args.camera and args.photos:
        raise UserError("give either a photo folder or --camera, not both")
    if not args.camera and not args.photos:
        raise UserError("give a folder of labelled photos, or --camera SOURCE with --deck")
    if args.shots < 1:
        raise UserError("--shots must be at least 1")
    if args.camera:
        return _enroll_from_camera(args)
    return _enroll_from_folder(args)


def _enroll_from_folder(args: argparse.Namespace) -> int:
    from ducktable.vision.enroll import EnrolmentError, enroll_folder

    folder = Path(args.photos)
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder; give a folder with one sub-folder of "
                        "photos per card label")
    target = None if args.check else paths.enrolled_decks_dir(args.data_dir)
    classifier = None if args.check else load_classifier(args.model, None)
    try:
        report = enroll_folder(folder, target, deck=args.deck, classifier=classifier)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    for problem in report.problems:
        print(f"skipped {problem.message}")
    counts = ", ".join(f"{label} x{n}" for label, n in sorted(report.photos_per_label.items()))
    if report.deck_dir is None:
        print(f"checked deck {report.deck!r} ({len(report.labels)} cards: {counts}); "
              "nothing was stored")
    else:
        print(f"enrolled deck {report.deck!r} ({len(report.labels)} cards: {counts}) "
              f"into {report.deck_dir}; the card cut from each photo is in "
              f"{report.deck_dir / 'crops'}")
    if report.not_enrolled:
        print(f"note: no usable photo of {', '.join(report.not_enrolled)}; those cards will not "
              "be recognised in your printing until you enrol them too")
    for line in report.retake:
        print(f"retake {line}")
    if not report.retake:
        print("check: every photo was named right from the others")
    return 0


def _enroll_from_camera(args: argparse.Namespace) -> int:
    from ducktable.rules import decks
    from ducktable.vision.enroll import (
        EnrolmentError,
        check_deck_name,
        detector_finder,
        enroll_crops,
        guided_enrolment,
    )

    from .camera import CameraError, open_source

    if not args.deck:
        raise UserError("--camera needs --deck: the game (duck, grey, ...) or a custom deck name")
    try:
        deck = check_deck_name(args.deck)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    if args.labels:
        labels = [label.strip() for label in args.labels.split(",") if label.strip()]
    elif deck in decks.DECKS:
        from ducktable.vision.printing import card_labels

        labels = card_labels(deck) if deck != "standard52" else list(decks.deck(deck).labels)
    else:
        raise UserError(f"{deck!r} is a custom deck: list its cards with --labels a,b,c")
    if not labels:
        raise UserError("--labels is empty: list the cards to show, separated by commas")
    target = paths.enrolled_decks_dir(args.data_dir)
    classifier = load_classifier(args.model, None)
    try:
        with open_source(args.camera) as source:
            crops = guided_enrolment(_images(source), labels, _say, detector_finder(),
                                     shots=args.shots)
        deck_dir = enroll_crops(crops, target, deck, classifier,
                                extra_info={"source": f"camera {args.camera}"})
    except CameraError as exc:
        raise UserError(str(exc)) from None
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    print(f"enrolled deck {deck!r} ({len(labels)} cards, {args.shots} shot(s) each) "
          f"into {deck_dir}")
    return 0


# ---- layout enrolment ---------------------------------------------------------------------------


def cmd_layout_sheet(args: argparse.Namespace) -> int:
    from ducktable.vision.layout_plan import (
        LayoutPlanError,
        pages_pdf,
        plan_layouts,
        sheet_page,
    )

    out = Path(args.out)
    try:
        plan = plan_layouts(args.game, args.rows, args.cols)
    except LayoutPlanError as exc:
        raise UserError(str(exc)) from None
    pages = {(layout.number, round_): sheet_page(layout, round_)
             for layout in plan for round_ in (1, 2)}
    try:
        if out.suffix.lower() == ".pdf":
            out.write_bytes(pages_pdf(list(pages.values())))
            written = [out]
        elif out.suffix.lower() == ".png":
            written = [out.with_name(f"{out.stem}-L{n}R{r}.png") for n, r in pages]
            for path, page in zip(written, pages.values(), strict=True):
                write_image(path, page)
        else:
            raise UserError(f"{out} must end in .pdf or .png")
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    for layout in plan:
        print(f"layout {layout.number}: {', '.join(layout.cards)}")
    print(f"wrote {', '.join(map(str, written))}: {len(plan)} layout(s) of {args.rows} x "
          f"{args.cols}, each laid twice (round 2: each row's cards in the reverse order); "
          "photograph each with `ducktable enroll-layout`")
    return 0


def cmd_enroll_layout(args: argparse.Namespace) -> int:
    from ducktable.vision import layout_reading
    from ducktable.vision.enroll import EnrolmentError
    from ducktable.vision.layout_plan import LayoutPlanError, check_round, plan_layouts

    try:
        plan = plan_layouts(args.game, args.rows, args.cols)
        wanted = [_layout_photo(item, len(plan)) for item in args.photos]
        for _, round_, _ in wanted:
            check_round(round_)
    except LayoutPlanError as exc:
        raise UserError(str(exc)) from None
    images = [(number, round_, path, read_image(path)) for number, round_, path in wanted]
    search = layout_reading.detector_search()
    readings = []
    for number, round_, path, image in images:
        reading = layout_reading.read_layout(image, plan[number - 1], round_, search=search)
        readings.append(reading)
        print(f"layout {number} round {round_} ({path}): {reading.named} of "
              f"{len(plan[number - 1].cards)} cards read in {reading.ms:.0f} ms")
        if args.annotated:
            folder = Path(args.annotated)
            folder.mkdir(parents=True, exist_ok=True)
            write_image(folder / f"layout{number}-round{round_}.jpg",
                        layout_reading.annotate(image, reading))
    target = None if args.check else paths.enrolled_decks_dir(args.data_dir)
    classifier = None if args.check else load_classifier(args.model, None)
    try:
        report = layout_reading.enroll_layouts(readings, target, classifier=classifier)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    for problem in report.problems:
        print(f"lay again: {problem.message}")
    if report.deck_dir is None:
        print(f"checked {len(report.labels)} cards of {report.deck!r}; nothing was stored")
    else:
        print(f"enrolled {len(report.labels)} cards of {report.deck!r} into {report.deck_dir}")
    if report.not_enrolled:
        print(f"not photographed yet: {', '.join(report.not_enrolled)}")
    for line in report.retake:
        print(f"retake {line}")
    if not report.retake:
        print("check: every photo was named right from the others")
    return 0


def _layout_photo(item: str, layouts: int) -> tuple[int, int, Path]:
    """``LAYOUT:ROUND=PHOTO`` (or ``LAYOUT=PHOTO``, round 1) as numbers and a path."""
    where, sep, photo = item.partition("=")
    number, _, round_ = where.partition(":")
    if not sep or not photo or not number.isdigit() or (round_ and not round_.isdigit()):
        raise UserError(f"{item!r}: give each photo as LAYOUT:ROUND=PHOTO, e.g. 1:1=layout1.jpg")
    if not 1 <= int(number) <= layouts:
        raise UserError(f"{item!r}: layout {number} does not exist; this plan has layouts 1 to "
                        f"{layouts}")
    return int(number), int(round_ or 1), Path(photo)


def _images(source: Any) -> Iterator[np.ndarray]:
    while (frame := source.read()) is not None:
        yield frame.image
    if getattr(source, "last_error", None):
        raise UserError(source.last_error)


def _say(line: str) -> None:
    print(line, flush=True)

"""The card detector: corner quads and upright crops on any table, any rotation, cards touching.

One file for the one detector, though its code is split over vision/detect*.py: each test names
the table picture and the step of the search it guards, and they share the scenes and helpers.

The last test is CI's reduced detection check: 30 seeded synthetic scenes (the benchmark's
set, ``ducktable bench vision``, uses 500); a detector change that loses cards fails it.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
import pytest
from ducktable.bench.cards import detection_check, match
from ducktable.sim.render import render_back, render_card
from ducktable.sim.scene import Placement, card_quad, compose_scene, render_scene
from ducktable.vision import detect, detect_candidates, detect_checks, detect_choose, detect_edges, detect_shapes
from ducktable.vision.detect import CROP_SIZE, Detection, crop_card, detect_cards, quad_iou
from ducktable.vision.reader import reading_view

DETECTOR_MODULES = (detect, detect_shapes, detect_edges, detect_checks, detect_candidates, detect_choose)


def patch_detector(monkeypatch: pytest.MonkeyPatch, name: str, value: object) -> None:
    """Replace ``name`` in every detector module that uses it (the detector is split over several
    modules, each importing what it calls)."""
    modules = [m for m in DETECTOR_MODULES if hasattr(m, name)]
    assert modules, f"no detector module has {name}"
    for module in modules:
        monkeypatch.setattr(module, name, value)


def plain_table(colour: tuple[int, int, int], size: tuple[int, int] = (640, 480)) -> np.ndarray:
    rng = np.random.default_rng(0)
    table = np.empty((size[1], size[0], 3), np.float32)
    table[:] = colour
    table += rng.normal(0, 3, table.shape)
    return np.clip(table, 0, 255).astype(np.uint8)


def lay_card(table: np.ndarray, face: np.ndarray, quad: np.ndarray) -> np.ndarray:
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    homography = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (table.shape[1], table.shape[0])
    warped = cv2.warpPerspective(face, homography, size)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), homography, size)
    out = table.copy()
    out[mask > 127] = warped[mask > 127]
    return out


def rotated_quad(centre: tuple[float, float], width: float, angle: float) -> np.ndarray:
    return card_quad(Placement("duck/yellow-1", centre, angle, width / 40.0), (640, 480))


def best_match(detections: list[Detection], quad: np.ndarray) -> float:
    return max((quad_iou(d.quad, quad) for d in detections), default=0.0)


@pytest.mark.parametrize("background", [(40, 60, 35), (200, 205, 210), (120, 170, 205)],
                         ids=["dark-felt", "light-cloth", "light-wood"])
@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 161.0])
def test_one_card_on_light_and_dark_tables_at_any_angle(background: tuple[int, int, int],
                                                        angle: float) -> None:
    quad = rotated_quad((320, 240), 120, angle)
    image = lay_card(plain_table(background), render_card("duck", "red-4"), quad)
    found = detect_cards(image)
    assert len(found) == 1
    card = found[0]
    assert quad_iou(card.quad, quad) > 0.93
    assert card.crop.shape == (CROP_SIZE[1], CROP_SIZE[0], 3)
    assert 0.5 <= card.score <= 1.0 and card.area == pytest.approx(120 * 180, rel=0.08)


def test_quad_is_portrait_and_crop_shows_the_card_upright() -> None:
    face = render_card("grey", "grey-3")
    quad = rotated_quad((320, 240), 110, 90.0)  # lying on its side
    card = detect_cards(lay_card(plain_table((50, 50, 50)), face, quad))[0]
    q = card.quad
    assert np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[3] - q[0])  # TL->TR is short
    expected = cv2.resize(face, CROP_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    crop = card.crop.astype(np.float32)
    # Upright means the card's own orientation or turned 180 degrees (cards look alike so).
    error = min(np.abs(crop - expected).mean(), np.abs(crop[::-1, ::-1] - expected).mean())
    assert error < 20


def test_touching_cards_are_found_separately() -> None:
    placements = [Placement("sitting/duck-blue", (500, 360), 12.0, 1.3),
                  Placement("sitting/water", (500, 360), 12.0, 1.3)]
    width = 1.3 * 80  # side by side, edge to edge
    angle = np.radians(12.0)
    placements[1] = Placement("sitting/water", (500 + width * np.cos(angle),
                                                 360 + width * np.sin(angle)), 12.0, 1.3)
    scene = compose_scene(5, placements, 1)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert missed == [] and len(found) == 2


@pytest.mark.parametrize("angle", [0.0, 23.0])
def test_the_smallest_cards_of_the_benchmark_are_found(angle: float) -> None:
    """46 px across (the smallest a random scene draws at 1280 x 720): candidates this
    small must survive the size checks made before snapping."""
    quad = card_quad(Placement("duck/yellow-1", (640, 360), angle, 46 / 80), (1280, 720))
    image = lay_card(plain_table((60, 80, 100), (1280, 720)), render_card("duck", "blue-3"), quad)
    found = detect_cards(image)
    assert len(found) == 1 and quad_iou(found[0].quad, quad) > 0.85


def test_a_phone_photo_of_one_large_card() -> None:
    quad = np.array([[700, 350], [1500, 420], [1420, 1600], [560, 1500]], np.float32)  # some perspective
    image = lay_card(plain_table((90, 110, 130), (2000, 1800)), render_card("bruce", "teal-3"),
                     quad)
    found = detect_cards(image)
    assert len(found) == 1 and quad_iou(found[0].quad, quad) > 0.93


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_empty_tables_give_no_cards(seed: int) -> None:
    assert detect_cards(render_scene(seed, empty=True).image) == []


@pytest.mark.parametrize("seed", [1000010, 1000012, 1000060])
def test_sticky_notes_and_checked_cloth_are_no_cards(seed: int) -> None:
    """Benchmark empty tables where a coloured note or a cell of a checked cloth once passed
    for a card: neither has a card's light, neutral margin all round."""
    assert detect_cards(render_scene(seed, empty=True).image) == []


@pytest.mark.parametrize(("seed", "index"), [(88, 7), (118, 0), (140, 0), (43, 1), (11, 3), (30, 2),
                                           (30, 6)])
def test_a_card_whose_outline_runs_into_other_edges_is_found(seed: int, index: int) -> None:
    """Benchmark scenes where a card's outline joins a neighbour's edges or its own printing,
    so no contour outlines it alone: it is completed from a corner of the larger contour.
    Scene 11: the corner is where its outline meets a neighbour's, one arm running along the
    neighbour, so the card lies across that arm. Scene 30: the cards beside it look 17%
    longer (a tilted camera), so its far sides are found on edges near that size."""
    scene = render_scene(seed)
    _, missed = match(scene.cards, [d.quad for d in detect_cards(scene.image)])
    assert index not in missed


@pytest.mark.parametrize(("seed", "index"), [(6, 11), (82, 6), (197, 3), (197, 12),
                                           (266, 10), (124, 7), (154, 4)])
def test_cards_cut_short_at_a_line_across_their_face_are_extended_to_their_whole_length(
        seed: int, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scenes where a card was found only down to a straight line right across its
    face (the wave band of DUCK and Sitting Ducks cards, a printed frame): its sides run on past
    it, so it is extended to the next edge that makes it about as large as the cards beside
    it. Without that step (the identity below) each of these is missed."""

    scene = render_scene(seed)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) > 0.8
    patch_detector(monkeypatch, "_whole", lambda cards, *args: cards)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) < 0.7


def test_four_touching_cards_two_by_two_are_split_into_four(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scene 124: four cards lie two by two, touching, and their joint outline is
    card-shaped; both middle lines run right across it, so it is cut into four."""

    scene = render_scene(124)
    block = (3, 4, 10, 14)
    assert min(best_match(detect_cards(scene.image), scene.cards[i].quad) for i in block) > 0.8
    splits = detect_candidates._splits
    patch_detector(monkeypatch, "_splits", lambda *args: [w for w in splits(*args) if len(w) != 4])
    patch_detector(monkeypatch, "LARGEST_SHARE", math.inf)  # nor dropped for its size
    patch_detector(monkeypatch, "_halves", lambda *args: [])  # nor halved
    whole_block = [d for d in detect_cards(scene.image)
                   if all(quad_iou(d.quad, scene.cards[i].quad) > 0.15 for i in block)]
    assert len(whole_block) == 1  # without the cut: one "card" over all four


def test_an_outline_round_a_group_of_cards_gives_way_to_the_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scene 282: four cards lie in a loose square, touching; their joint outline is
    card-shaped and well edged, but four times the size of the other cards on the table. It is
    dropped, and three of the four are then completed from its corners."""

    scene = render_scene(282)
    found = [best_match(detect_cards(scene.image), scene.cards[i].quad) > 0.7 for i in (6, 7, 9)]
    patch_detector(monkeypatch, "LARGEST_SHARE", math.inf)
    before = [best_match(detect_cards(scene.image), scene.cards[i].quad) > 0.7 for i in (6, 7, 9)]
    assert found == [True, True, True] and before == [False, False, False]


@pytest.mark.parametrize(("seed", "label"), [(171, "bruce/bruce"), (132, "bruce/purple-4"),
                                           (147, "sitting/duck-green")])
def test_a_card_with_a_printed_frame_is_found_by_its_outline(seed: int, label: str) -> None:
    """Benchmark scenes where only the frame printed on a card was found: its thin margin,
    blurred into a dark cloth, reads 15% darker than the panel inside, and the panel grows
    to the outline only when a margin that dark still counts as paper."""
    scene = render_scene(seed)
    truth = [c.quad for c in scene.cards if c.label == label]
    assert len(truth) == 1
    assert best_match(detect_cards(scene.image), truth[0]) > 0.85


def test_a_loose_outline_pieced_from_a_checked_cloth_hides_no_cards() -> None:
    """Benchmark scene 391: the lines of a gingham cloth joined into one poorly edged "card" as
    large as most of the frame. It neither explains away the cards inside it (as if they
    were printing on its face) nor wins over them: nine cards were missed."""
    scene = render_scene(391)
    matched, missed = match(scene.cards, [d.quad for d in detect_cards(scene.image)])
    assert len(scene.cards) == 19 and missed == []


@pytest.mark.parametrize(("seed", "index"), [(401, 9), (464, 16), (428, 4)])
def test_a_card_cut_so_short_that_it_looks_square_is_extended_too(
        seed: int, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scenes where the part of a DUCK card above its wave band is about as wide as
    it is long, so it failed as a card before it could be extended: such square candidates
    are kept aside and become cards only once extended."""
    scene = render_scene(seed)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) > 0.8
    patch_detector(monkeypatch, "_squat", lambda *args: False)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) < 0.7


@pytest.mark.parametrize("seed", [342, 425, 307])
def test_two_touching_cards_taken_for_one_are_halved(seed: int) -> None:
    """Benchmark scenes where two cards lie side by side, touching, their meeting line too
    faint to cut along: the "card" is twice the size of those beside it, and its halves are
    cards of their size with a light margin all round."""
    scene = render_scene(seed)
    matched, missed = match(scene.cards, [d.quad for d in detect_cards(scene.image)])
    assert missed == [] and len(matched) == len(scene.cards)


def test_a_card_larger_than_its_neighbours_is_not_halved() -> None:
    """Benchmark scene 130: a card back nearer the camera than the three cards beside it
    looks 1.6 times their size; its halves would be card-sized, but the cut side of each lies
    on the back's pattern, not on paper, so it stays whole."""
    scene = render_scene(130)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert missed == [] and len(found) == len(scene.cards) == 4


@pytest.mark.parametrize(("seed", "label"), [(185, "ducky/card-yellow-blue"),
                                           (363, "ducky/card-green-blue")])
def test_a_corner_with_one_whole_side_and_a_short_arm_is_completed(seed: int, label: str) -> None:
    """Benchmark scenes where the only right-angled corner left of a card's outline has one
    arm as long as a card's side and the other cut short where the outline ran into the cloth's
    pattern: it is completed all the same (held to a stricter edge and paper check)."""
    scene = render_scene(seed)
    truth = [c.quad for c in scene.cards if c.label == label]
    found = detect_cards(scene.image)
    assert len(truth) == 3 and min(best_match(found, quad) for quad in truth) > 0.8


def test_cards_on_a_cloth_lighter_than_their_paper_are_found_by_their_outline() -> None:
    """Benchmark scene 145: Sitting Ducks action cards (a frame printed near the edge) on a
    white dotted cloth, lighter than the cards' cream paper: the outline gets lighter going
    out, and four of the 13 were found only by their printed frame. Three of those four are
    found whole now (the fourth's outline is lost among the dots)."""
    scene = render_scene(145)
    found = detect_cards(scene.image)
    actions = [c.quad for c in scene.cards if c.label.startswith("sitting/action")]
    assert len(actions) == 13
    assert sum(best_match(found, quad) >= 0.7 for quad in actions) == 12  # 9 before


def test_a_card_is_not_grown_across_its_neighbours_paper() -> None:
    """Benchmark scene 283: beyond a Ducky Ducky card's outline lie two other cards, as light
    as its face, so the outline search took them for a white cloth and grew the card over
    them (support 0.7). A card on a white cloth has a clean outline: a growth across a
    lighter outside must be well edged."""
    scene = render_scene(283)
    matched, missed = match(scene.cards, [d.quad for d in detect_cards(scene.image)])
    assert missed == [] and len(matched) == len(scene.cards)


def test_a_card_as_large_as_its_neighbours_is_not_extended(monkeypatch: pytest.MonkeyPatch) -> None:
    """Touching cards in a row also have sides that run on past a corner; a card about the
    size of the cards beside it is whole, so nothing is tried on it."""

    asked = []
    cut_short = detect_choose._cut_short
    patch_detector(monkeypatch, "_cut_short", lambda quad, grads: asked.append(quad) or cut_short(quad, grads))
    scene = render_scene(213)  # touching rows of Ducky Ducky cards, all found whole
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert missed == [] and len(matched) == len(found) == len(scene.cards)
    assert len(asked) < len(found) // 3


def test_cards_on_a_light_cloth_whose_dots_touch_every_outline_are_completed_from_corners() -> None:
    """The DUCK replays' table 9: white cards on a cream cloth, its dark dots touching every
    card's outline, so no card is outlined on its own and no card gives the size to complete
    the others' corners by: corners whose arms have a card's proportions are completed to
    them (one card of six was found before)."""
    from ducktable.sim.table_video import TableRenderer, bot_game, script_for
    from ducktable.vision.layout import duck_layout

    shot = script_for(bot_game("duck", 9, 3), 9)[400]
    renderer = TableRenderer("duck", duck_layout(3), background_seed=9)
    found = detect_cards(renderer.frame(shot, 400))
    truth = renderer.card_quads(shot)
    assert len(truth) == 6
    assert min(best_match(found, quad) for quad in truth) > 0.8


def test_a_card_whose_outline_dots_broke_in_three_is_completed_from_the_cards_beside_it() -> None:
    """Grey Duck's replay table 9 at 1920 x 1080, frame 552: a flock of three yellow 3s on the
    sunlit part of a cream cloth. Dots touch the first card's outline in three places, so its
    outline is three pieces, none a quadrilateral, and no card is outlined on its own. The other
    two are completed from corners whose arms have a card's proportions; the first card's best
    corner (top left, rounded) has one arm cut short by a dot and the other nearly whole. With
    the two found, a second round completes it at their size (before: the flock was read as two
    cards, and the replay applied a wrong play)."""
    from ducktable.sim.table_video import TableRenderer
    from ducktable.sim.table_video_grey import grey_bot_game, grey_layout, grey_script

    game, happenings = grey_bot_game(9, 3)
    shot = grey_script(game, happenings, random.Random(9)).shots[552]
    renderer = TableRenderer("grey", grey_layout(3), background_seed=9, capture_size=(1920, 1080))
    picture = renderer.frame(shot, 552)
    view, detail = reading_view(picture)
    found = detect_cards(view, detail=detail)
    to_view = view.shape[1] / picture.shape[1]
    truth = [quad * to_view for quad in renderer.card_quads(shot)]
    flock = sorted((quad for quad in truth if 800 < quad[:, 0].mean() < 1000
                    and 500 < quad[:, 1].mean() < 580), key=lambda quad: quad[:, 0].mean())
    assert len(flock) == 3
    assert best_match(found, flock[0]) > 0.8  # the card whose outline the dots broke
    assert all(best_match(found, quad) > 0.5 for quad in flock[1:])
    assert sum(800 < d.quad[:, 0].mean() < 1000 and 500 < d.quad[:, 1].mean() < 580
               for d in found) == 3


def test_a_rounded_corner_cut_off_by_the_polygon_is_made_whole_again() -> None:
    """A card's corner traced with a short chamfer between its two sides is one corner where
    the sides meet; a short edge between sides at a slant stays."""
    chamfered = np.array([[0, 3], [3, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    assert np.allclose(detect_choose._without_chamfers(chamfered),
                       [[0, 0], [60, 0], [60, 90], [0, 90]], atol=1e-4)
    slanted = np.array([[0, 0], [40, 0], [45, 5], [80, 30], [0, 60]], np.float32)
    assert np.array_equal(detect_choose._without_chamfers(slanted), slanted)


@pytest.mark.parametrize("seed", [56, 104])
def test_patches_far_smaller_than_the_cards_beside_them_are_no_cards(seed: int) -> None:
    """Benchmark scenes where bits of clutter or pattern passed every check beside cards of
    five times their size; cards on one table look about the same size, so they are dropped."""
    scene = render_scene(seed)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert len(matched) == len(found) and missed == []


def test_a_coloured_note_with_writing_is_not_a_card() -> None:
    """Card-shaped and printed on, but coloured to its edge: a card has a paper margin."""
    note = np.full((300, 200, 3), (60, 215, 245), np.uint8)
    cv2.putText(note, "call Bo", (20, 160), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (40, 40, 40), 4)
    image = lay_card(plain_table((60, 80, 100)), note, rotated_quad((320, 240), 120, 15.0))
    assert detect_cards(image) == []


def test_grey_and_bgra_frames_are_accepted() -> None:
    quad = rotated_quad((320, 240), 120, 20.0)
    image = lay_card(plain_table((40, 40, 40)), render_card("duck", "towel"), quad)
    assert len(detect_cards(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))) == 1
    assert len(detect_cards(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA))) == 1


def test_wrong_input_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="8-bit"):
        detect_cards(np.zeros((10, 10, 3), np.float32))


def test_crop_card_maps_the_quad_corners_to_the_crop_corners() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    image[10:40, 20:40] = 255
    crop = crop_card(image, np.array([[20, 10], [40, 10], [40, 40], [20, 40]], np.float32), (20, 30))
    assert crop.shape == (30, 20, 3) and crop[2:-2, 2:-2].min() == 255


def test_fast_median_gives_numpy_median_exactly() -> None:
    """The detector's sort-based median must not move any decision: same values as numpy's,
    odd and even counts, along either axis."""
    from ducktable.vision.detect_shapes import _median

    rng = np.random.default_rng(3)
    for rows, cols in ((7, 10), (8, 11), (1, 5), (30, 2)):
        values = (rng.integers(-300, 300, (rows, cols)) * 0.37).astype(np.float32)
        for axis in (0, 1):
            fast = _median(values, axis)
            assert fast.dtype == np.float32
            np.testing.assert_array_equal(fast, np.median(values, axis=axis))


def test_reduced_detection_check_on_30_seeded_scenes() -> None:
    """CI's guard (the target on 500 scenes: recall and precision >= 99.5%)."""
    tally = detection_check(range(30))
    assert tally.cards > 250
    assert tally.recall >= RECALL_FLOOR, tally.misses
    assert tally.precision >= PRECISION_FLOOR


# Floors for the 30-scene CI check: set just under what the detector measures today, so a
# regression fails CI. They are below the 99.5% target (see the benchmark).
RECALL_FLOOR = 0.99  # measured 0.997 (382 of 383 cards)
PRECISION_FLOOR = 0.99  # measured 1.000 (0 false of 382 detections)


# ---- the pipeline: detector + any classifier -------------------------------------------------


class _ByBrightness:
    def classify(self, crops: list[np.ndarray]) -> list[object]:
        from types import SimpleNamespace

        return [SimpleNamespace(label="duck/towel" if c.mean() > 150 else "unknown",
                                confidence=0.8) for c in crops]


def test_reader_names_cards_and_keeps_unknown_ones_apart() -> None:
    from ducktable.vision.pipeline import CardReader

    light = lay_card(plain_table((40, 40, 40)), render_card("duck", "towel"),
                     rotated_quad((200, 240), 110, 10.0))
    both = lay_card(light, render_back("duck"), rotated_quad((460, 240), 110, -20.0))
    reading = CardReader(_ByBrightness()).read(both)
    assert [c.label for c in reading.cards] == ["duck/towel"]
    assert [c.label for c in reading.unknown] == ["unknown"]
    assert reading.cards[0].centre[0] < 300 < reading.unknown[0].centre[0]
    assert reading.detect_ms > 0 and reading.total_ms >= reading.detect_ms


def test_reader_refuses_a_classifier_that_skips_crops() -> None:
    from ducktable.vision.pipeline import CardReader

    class Forgetful:
        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return []

    image = lay_card(plain_table((40, 40, 40)), render_card("grey", "yellow-2"),
                     rotated_quad((320, 240), 110, 0.0))
    with pytest.raises(ValueError, match="answered 0 times for 1 crops"):
        CardReader(Forgetful()).read(image)


def test_a_checked_cloth_offers_hundreds_of_corners_but_only_the_best_shaped_are_tried(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Bruce replay table 12 (a gingham cloth): every cell corner is a corner of some larger
    contour, and completing each to a card took most of 0.3-0.6 s a frame. Only
    ``MAX_CORNER_TRIES`` are tried at the guessed size and ``MAX_FAR_SIDE_TRIES`` with their far
    sides found on edges (up to three guesses each), those whose arms best match a card's sides
    first, and the cards found are the same as when every corner is tried."""
    import random

    from ducktable.sim.table_video import TableRenderer
    from ducktable.sim.table_video_bruce import bruce_bot_game, bruce_layout, bruce_script

    script = bruce_script(bruce_bot_game(12, 3), random.Random(12))
    renderer = TableRenderer("bruce", bruce_layout(3), background_seed=12)
    frame = renderer.frame(script.shots[600], 600)
    tries = []
    snap = detect_edges._snap

    def counted(quad: np.ndarray, grads: object, reach_frac: float = 0.05) -> object:
        tries.append(reach_frac == detect_choose.CORNER_REACH)
        return snap(quad, grads, reach_frac)

    patch_detector(monkeypatch, "_snap", counted)
    bounded = detect_cards(frame)
    least, most = detect_choose.MAX_CORNER_TRIES, detect_choose.MAX_CORNER_TRIES + 3 * detect_choose.MAX_FAR_SIDE_TRIES
    assert least <= sum(tries) <= most
    tries.clear()
    patch_detector(monkeypatch, "MAX_CORNER_TRIES", 10_000)
    patch_detector(monkeypatch, "MAX_FAR_SIDE_TRIES", 10_000)
    unbounded = detect_cards(frame)
    assert sum(tries) > 2 * most
    truth = renderer.card_quads(script.shots[600])
    assert [best_match(bounded, q) > 0.8 for q in truth] == [best_match(unbounded, q) > 0.8 for q in truth]
    assert sum(best_match(bounded, q) > 0.8 for q in truth) == len(truth) - 1  # one lies under a hand


def test_contour_boxes_are_measured_as_opencv_measures_them_and_bound_their_hulls() -> None:
    from ducktable.vision.detect_candidates import _contour_bounds

    edges = cv2.Canny(render_scene(7).image, 20, 50)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    assert len(contours) > 100
    expected = np.array([cv2.boundingRect(c)[2:] for c in contours])
    boxes, hull_bounds = _contour_bounds(contours)
    assert (boxes == expected).all()
    # The bound on a hull's area never falls below it (contours it rules out could not be
    # cards), and is far tighter than the box for a diagonal line.
    hulls = np.array([cv2.contourArea(cv2.convexHull(c)) for c in contours])
    assert (hull_bounds >= hulls).all()
    line = np.array([[[x, x]] for x in range(200)] + [[[x, x + 2]] for x in range(199, -1, -1)],
                    np.int32)  # a diagonal line, 2 px thick
    box_area = np.prod(_contour_bounds([line])[0][0])
    assert _contour_bounds([line])[1][0] < 0.05 * box_area
    square = np.array([[[10, 10]], [[60, 10]], [[60, 40]], [[10, 40]]], np.int32)
    assert _contour_bounds([square])[1][0] == cv2.contourArea(square) == 1500


def test_cards_are_cut_from_a_detail_picture_of_the_same_view() -> None:
    """The table reader searches a 1280 x 720 view of a larger camera picture: the quads stay
    in the view's pixels, the crops come from the full picture (more pixels per index)."""
    full = render_scene(3, size=(1920, 1080)).image
    view = cv2.resize(full, (1280, 720), interpolation=cv2.INTER_AREA)
    plain = detect_cards(view)
    cut = detect_cards(view, detail=full)
    assert len(plain) == len(cut) > 3
    for p, c in zip(plain, cut, strict=True):
        assert np.array_equal(p.quad, c.quad)
        assert np.array_equal(c.crop, crop_card(full, c.quad * 1.5))
        assert not np.array_equal(c.crop, p.crop)
    with pytest.raises(ValueError, match="same view"):
        detect_cards(view, detail=full[:, :1500])


# ---- the second look -------------------------------------------------------------------------
def test_moved_sides_move_one_side_in_or_out_by_a_share_of_the_card() -> None:
    from ducktable.vision.detect import RECUT_MOVES, moved_sides

    quad = np.array([[10, 20], [110, 20], [110, 170], [10, 170]], np.float32)  # 100 x 150
    outlines = moved_sides(quad)
    assert len(outlines) == len(RECUT_MOVES)
    top_out = outlines[RECUT_MOVES.index((0, 0.08))]  # the top moved out by 8% of 150
    assert np.allclose(top_out, [[10, 8], [110, 8], [110, 170], [10, 170]])
    right_in = outlines[RECUT_MOVES.index((1, -0.16))]  # the right side in by 16% of 100
    assert np.allclose(right_in, [[10, 20], [94, 20], [94, 170], [10, 170]])
    bottom_far = outlines[RECUT_MOVES.index((2, 0.33))]  # a card cut a third short
    assert np.allclose(bottom_far, [[10, 20], [110, 20], [110, 219.5], [10, 219.5]])


def test_recuts_come_from_the_picture_the_crop_came_from() -> None:
    from ducktable.vision.detect import RECUT_MOVES

    table = lay_card(plain_table((40, 40, 40)), render_card("duck", "towel"),
                     rotated_quad((320, 240), 110, 15.0))
    detail = cv2.resize(table, (1280, 960), interpolation=cv2.INTER_LINEAR)
    [found] = detect_cards(table, detail=detail)
    assert found.picture is detail and np.allclose(found.picture_quad, found.quad * 2)
    recuts = found.recuts()
    assert len(recuts) == len(RECUT_MOVES)
    assert all(r.shape == (*CROP_SIZE[::-1], 3) for r in recuts)
    # a side moved out takes in some of the dark cloth; moved in, only card
    outward = [r.mean() for r, (_, shift) in zip(recuts, RECUT_MOVES, strict=True) if shift > 0]
    inward = [r.mean() for r, (_, shift) in zip(recuts, RECUT_MOVES, strict=True) if shift < 0]
    assert max(outward) < found.crop.mean() - 5 < min(inward)
    bare = Detection(quad=found.quad, crop=found.crop, score=1.0, area=found.area)
    assert bare.recuts() == []


def test_laid_at_corners_lays_a_card_of_the_size_at_each_corner_either_way_round() -> None:
    from ducktable.vision.detect import SIZE_SCALES, laid_at_corners, sides_of

    # a card 60 x 90 whose outline took in 40 px of the card below it
    outline = np.array([[10, 20], [70, 20], [70, 150], [10, 150]], np.float32)
    laid = laid_at_corners(outline, (60, 90))
    assert len(laid) == 4 * len(SIZE_SCALES) * 2
    card = np.array([[10, 20], [70, 20], [70, 110], [10, 110]], np.float32)
    assert max(quad_iou(q, card) for q in laid) > 0.999
    assert {tuple(np.round(sides_of(q), 3)) for q in laid} == {
        (round(60 * s, 3), round(90 * s, 3)) for s in SIZE_SCALES}
    for q in laid:  # each keeps one corner of the outline and is portrait
        assert min(float(np.abs(a - b).max()) for a in q for b in outline) < 1e-4
        assert np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[3] - q[0])


def test_a_card_laid_at_a_size_is_cut_from_the_picture_and_placed_in_the_frame() -> None:
    from ducktable.vision.detect import SIZE_SCALES

    table = lay_card(plain_table((40, 40, 40)), render_card("duck", "towel"),
                     rotated_quad((320, 240), 110, 15.0))
    detail = cv2.resize(table, (1280, 960), interpolation=cv2.INTER_LINEAR)
    [found] = detect_cards(table, detail=detail)
    laid = found.laid_at_size((200.0, 300.0))  # picture pixels: 100 x 150 in the frame
    assert len(laid) == 8 * len(SIZE_SCALES)
    for d in laid:
        assert d.picture is detail and np.allclose(d.picture_quad, d.quad * 2, atol=1e-3)
        assert np.array_equal(d.crop, crop_card(detail, d.picture_quad))
        assert d.area == pytest.approx(cv2.contourArea(d.quad), rel=1e-4)
    assert max(quad_iou(d.quad, found.quad) for d in laid) > 0.85
    bare = Detection(quad=found.quad, crop=found.crop, score=1.0, area=found.area)
    assert bare.laid_at_size((200.0, 300.0)) == []


def test_a_card_no_side_move_names_is_named_at_its_neighbours_size() -> None:
    """Bench scene 45: the outline of a Grey Duck grey 2 took in part of the card beside it
    (IoU 0.73 with the card); no side move names it, the card cut at its neighbours' size
    at one of the outline's corners does, and that outline (IoU 0.90) replaces the detection's."""
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.pipeline import name_detections

    scene = render_scene(45)
    found = detect_cards(scene.image)
    truth = next(c for c in scene.cards if c.label == "grey/grey-2")
    [index] = [i for i, d in enumerate(found) if 0.6 < quad_iou(d.quad, truth.quad) < 0.8]
    classifier = CardClassifier.load()
    before = found[index]
    assert classifier.classify([before.crop])[0].label == "unknown"
    assert classifier.classify_recuts(before.recuts()) is None
    detections = list(found)
    results = name_detections(detections, classifier)
    assert results[index].label == "grey/grey-2"
    assert detections[index] is not before
    assert quad_iou(detections[index].quad, truth.quad) > 0.85  # was 0.73
    others = [i for i in range(len(found)) if i != index]
    assert all(detections[i] is found[i] for i in others)


def _on_black(quad: list[list[float]]) -> Detection:
    """A detection with outline ``quad`` in a black 600 x 400 picture."""
    q = np.array(quad, np.float32)
    picture = np.zeros((400, 600, 3), np.uint8)
    return Detection(quad=q, crop=crop_card(picture, q), score=1.0,
                     area=float(cv2.contourArea(q)), picture=picture, picture_quad=q)


def test_a_look_at_size_that_finds_a_named_card_again_names_nothing() -> None:
    """A sliver of a card already named, laid at its neighbour's size, is that card: no
    second card is named there; the same sliver away from it is named."""
    from types import SimpleNamespace

    from ducktable.vision.detect import laid_at_corners
    from ducktable.vision.pipeline import name_detections

    class Sure:
        """Names the first crop; every first look at a recut names nothing, every second
        names the card after the first outline laid (recut 0)."""

        def __init__(self) -> None:
            self.looks = 0

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [SimpleNamespace(label="duck/towel" if i == 0 else "unknown",
                                    confidence=0.9, similarity=0.5) for i in range(len(crops))]

        def classify_recuts(self, recuts: list[np.ndarray], games: object = None) -> object:
            self.looks += 1
            if self.looks % 2:
                return None
            return SimpleNamespace(label="duck/blue-3", confidence=0.8, recut=0)

    card = _on_black([[10, 20], [70, 20], [70, 110], [10, 110]])  # 60 x 90
    sliver = _on_black([[10, 20], [70, 20], [70, 70], [10, 70]])  # on the card
    assert quad_iou(laid_at_corners(sliver.quad, (60, 90))[0], card.quad) >= 0.5
    detections = [card, sliver]
    assert [r.label for r in name_detections(detections, Sure())] == ["duck/towel", "unknown"]
    assert detections[1] is sliver
    apart = _on_black([[310, 20], [370, 20], [370, 70], [310, 70]])
    detections = [card, apart]
    assert [r.label for r in name_detections(detections, Sure())] == [
        "duck/towel", "duck/blue-3"]
    assert np.allclose(detections[1].quad, laid_at_corners(apart.quad, (60, 90))[0])
    point = np.full((4, 2), 5, np.float32)  # a named "card" of no size gives no size to cut at
    dot = Detection(quad=point, crop=card.crop, score=1.0, area=0.0, picture=card.picture,
                    picture_quad=point)
    assert [r.label for r in name_detections([dot, apart], Sure())] == ["duck/towel", "unknown"]


def test_a_card_asked_about_alone_is_named_at_the_size_of_a_card_named_before() -> None:
    """``ducktable run``'s reader asks only about the cards whose place changed: a card asked
    about alone takes the size of the cards its memory saw named in earlier frames, but not of
    one named at its own place (that may be this very card)."""
    from types import SimpleNamespace

    from ducktable.vision.detect import laid_at_corners
    from ducktable.vision.pipeline import LookMemory, name_detections

    class Named:
        """Names the crops of ``self.named`` first looks; a recut names nothing, a look at a
        size names a blue 3 with the first outline laid."""

        def __init__(self, named: int) -> None:
            self.named = named

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [SimpleNamespace(label="duck/towel" if i < self.named else "unknown",
                                    confidence=0.9, similarity=0.5) for i in range(len(crops))]

        def classify_recuts(self, recuts: list[np.ndarray], games: object = None) -> object:
            if len(recuts) == len(laid_at_corners(apart.quad, (60, 90))):
                return SimpleNamespace(label="duck/blue-3", confidence=0.8, recut=0)
            return None

    card = _on_black([[10, 20], [70, 20], [70, 110], [10, 110]])  # 60 x 90
    apart = _on_black([[310, 20], [380, 20], [380, 110], [310, 110]])  # 70 x 90: too wide
    memory = LookMemory()
    assert [r.label for r in name_detections([card], Named(1), memory=memory)] == ["duck/towel"]
    assert [r.label for r in name_detections([apart], Named(0))] == ["unknown"]  # no memory
    detections = [apart]
    assert [r.label for r in name_detections(detections, Named(0), memory=memory)] == ["duck/blue-3"]
    assert np.allclose(detections[0].quad, laid_at_corners(apart.quad, (60, 90))[0])
    own = LookMemory()  # a card named at this card's own place gives no size
    name_detections([_on_black([[312, 20], [380, 20], [380, 110], [312, 110]])], Named(1), memory=own)
    assert [r.label for r in name_detections([apart], Named(0), memory=own)] == ["unknown"]


def test_a_card_named_unsurely_is_named_again_only_by_a_surer_second_look() -> None:
    """A card named below ``UNSURE`` with an outline wider than its neighbour's (a yellow 5 cut
    with the edge of the card beside it, read as a yellow 3 at 0.54-0.79) is cut again at its
    neighbour's size; a surer answer there replaces the first, a less sure one does not, and a
    card named surely, or cut at its neighbour's size already, is not looked at."""
    from types import SimpleNamespace

    from ducktable.vision.detect import laid_at_corners
    from ducktable.vision.pipeline import UNSURE, name_detections

    class Unsure:
        def __init__(self, first: float, second: float) -> None:
            self.first, self.second, self.looks = first, second, 0

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [SimpleNamespace(label="duck/red-5", confidence=0.99, similarity=0.9), *(
                SimpleNamespace(label="duck/yellow-3", confidence=self.first, similarity=0.7)
                for _ in crops[1:])]

        def classify_recuts(self, recuts: list[np.ndarray], games: object = None) -> object:
            self.looks += 1
            if len(recuts) != len(laid_at_corners(wide.quad, (60, 90))):
                return None  # the moved sides name nothing
            return SimpleNamespace(label="duck/yellow-5", confidence=self.second, recut=0)

    card = _on_black([[10, 20], [70, 20], [70, 110], [10, 110]])  # 60 x 90
    wide = _on_black([[90, 20], [165, 20], [165, 110], [90, 110]])  # 75 x 90
    detections = [card, wide]
    assert [r.label for r in name_detections(detections, Unsure(0.7, 0.95))] == ["duck/red-5", "duck/yellow-5"]
    assert np.allclose(detections[1].quad, laid_at_corners(wide.quad, (60, 90))[0])
    detections = [card, wide]
    assert [r.label for r in name_detections(detections, Unsure(0.7, 0.65))] == ["duck/red-5", "duck/yellow-3"]
    assert detections[1] is wide
    sure = Unsure(UNSURE, 0.95)
    assert [r.label for r in name_detections([card, wide], sure)] == ["duck/red-5", "duck/yellow-3"]
    assert sure.looks == 0
    fitting = _on_black([[90, 20], [150, 20], [150, 110], [90, 110]])  # 60 x 90, as its neighbour
    unsure = Unsure(0.7, 0.95)
    assert [r.label for r in name_detections([card, fitting], unsure)] == ["duck/red-5", "duck/yellow-3"]
    assert unsure.looks == 0


def test_a_card_the_classifier_cannot_name_is_named_on_a_second_look() -> None:
    """Bench scene 314: the shipped model cannot name a Bruce orange 1 cut along the outline
    the detector found (IoU 0.83 with the card); cut again with one side moved, it can."""
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.pipeline import name_detections

    scene = render_scene(314)
    found = detect_cards(scene.image)
    classifier = CardClassifier.load()
    first = [r.label for r in classifier.classify([d.crop for d in found])]
    second = [r.label for r in name_detections(found, classifier)]
    matched, _ = match(scene.cards, [d.quad for d in found])
    truth = {i: scene.cards[t].label for i, t in matched.items()}
    changed = [i for i in range(len(found)) if first[i] != second[i]]
    assert changed, "no card was looked at again"
    assert all(first[i] == "unknown" and second[i] == truth[i] for i in changed)
    assert "bruce/orange-1" in [second[i] for i in changed]


def test_second_looks_go_to_the_unknown_cards_closest_to_a_known_one() -> None:
    from types import SimpleNamespace

    from ducktable.vision.pipeline import name_detections

    class Doubtful:
        def __init__(self) -> None:
            self.looked_at: list[float] = []

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [SimpleNamespace(label="unknown", confidence=0.5, similarity=c[0, 0, 0] / 255)
                    for c in crops]

        def classify_recuts(self, recuts: list[np.ndarray], games: object = None) -> object:
            self.looked_at.append(round(recuts[0][0, 0, 0] / 255, 1))
            return SimpleNamespace(label="duck/towel", confidence=0.9)

    def detection(grey: int) -> Detection:
        crop = np.full((*CROP_SIZE[::-1], 3), grey, np.uint8)
        return Detection(quad=np.zeros((4, 2), np.float32), crop=crop, score=1.0, area=1.0,
                         picture=crop, picture_quad=np.array([[0, 0], [100, 0], [100, 150],
                                                               [0, 150]], np.float32))

    doubtful = Doubtful()
    greys = [51, 204, 102, 153]  # similarities 0.2, 0.8, 0.4, 0.6
    results = name_detections([detection(g) for g in greys], doubtful, second_looks=2)
    assert doubtful.looked_at == [0.8, 0.6]
    assert [r.label for r in results] == ["unknown", "duck/towel", "unknown", "duck/towel"]


def test_a_card_no_second_look_could_name_is_looked_at_again_only_now_and_then() -> None:
    from types import SimpleNamespace

    from ducktable.vision.pipeline import LOOK_EVERY, MISSES_TO_REST, LookMemory, name_detections

    class Stumped:
        def __init__(self) -> None:
            self.looks = 0

        def classify(self, crops: list[np.ndarray]) -> list[object]:
            return [SimpleNamespace(label="unknown", confidence=0.5) for _ in crops]

        def classify_recuts(self, recuts: list[np.ndarray], games: object = None) -> None:
            self.looks += 1

    def detection(x: float) -> Detection:
        quad = rotated_quad((x, 200), 80, 0.0).astype(np.float32)
        crop = np.zeros((*CROP_SIZE[::-1], 3), np.uint8)
        return Detection(quad=quad, crop=crop, score=1.0, area=float(cv2.contourArea(quad)),
                         picture=crop, picture_quad=quad)

    stumped, memory = Stumped(), LookMemory()
    for _ in range(MISSES_TO_REST):
        name_detections([detection(100), detection(300)], stumped, memory=memory)
    assert stumped.looks == 2 * MISSES_TO_REST
    for _ in range(LOOK_EVERY - 1):  # both still there: not looked at again for a while
        name_detections([detection(101), detection(300)], stumped, memory=memory)
    assert stumped.looks == 2 * MISSES_TO_REST
    name_detections([detection(101), detection(320)], stumped, memory=memory)
    assert stumped.looks == 2 * MISSES_TO_REST + 2  # the still one's turn, and the moved one
    name_detections([detection(101), detection(320)], stumped, memory=memory)
    assert stumped.looks == 2 * MISSES_TO_REST + 3  # the moved one has missed once only
    name_detections([detection(101), detection(320)], stumped)  # no memory: every frame anew
    assert stumped.looks == 2 * MISSES_TO_REST + 5


def test_paper_just_inside_a_corner_tells_a_card_from_a_coloured_patch() -> None:
    """A card's corner has its light, neutral margin just inside, along both arms; a coloured
    patch's corner (a note, a tinted cloth) does not, by more than ``CORNER_GATE_SLACK``."""
    table = plain_table((40, 90, 40))
    card = np.array([[100, 100], [220, 100], [220, 280], [100, 280]], np.float32)
    image = lay_card(table, render_card("duck", "red-3"), card)
    image[100:280, 350:470] = (0, 140, 255)  # an orange note the size of a card
    grads = detect_edges._Gradients(image)
    right, down = np.array([1, 0], np.float32), np.array([0, 1], np.float32)
    corners = [detect_choose._Corner(np.array(at, np.float32), right, down, 120.0, 180.0)
               for at in ((100, 100), (350, 100))]
    on_card, on_note = detect_choose._corner_paperness(corners, grads).tolist()
    assert on_card >= 0.8
    assert on_note <= 0.5
    assert on_card - on_note > detect_choose.CORNER_GATE_SLACK


@pytest.mark.parametrize("seed", [525, 530])
def test_a_corner_with_no_paper_inside_is_not_completed_to_a_card(seed: int) -> None:
    """Benchmark scenes under tinted light where patches of table were completed from corners
    to cards (4 and 2 of them): the paper inside those corners measured 0.29-0.42 less than
    the cards' margins (of 642 real cards completed from corners in 1,300 bench frames, 2
    measured more than 0.28 less)."""
    scene = render_scene(seed)
    found = detect_cards(scene.image)
    matched, _ = match(scene.cards, [d.quad for d in found])
    assert len(found) >= 5 and len(matched) == len(found)


def test_thousands_of_corners_are_measured_at_once() -> None:
    """A checked cloth offers thousands of corners a frame (OpenCV's remap takes at most
    32,767 rows of sample points): each is measured as it is alone."""
    image = plain_table((40, 90, 40))
    image[100:280, 100:220] = 250
    grads = detect_edges._Gradients(image)
    right, down = np.array([1, 0], np.float32), np.array([0, 1], np.float32)
    corners = [detect_choose._Corner(np.array((100 + i % 7, 100 + i % 5), np.float32), right, down,
                              120.0, 180.0) for i in range(3000)]
    many = detect_choose._corner_paperness(corners, grads)
    assert many.shape == (3000,)
    assert np.array_equal(many[:35], detect_choose._corner_paperness(corners[:35], grads))
    assert many.min() >= 0.8


@pytest.mark.parametrize(("seed", "index"), [(621, 2), (621, 5)])
def test_a_card_kept_cut_short_gives_way_to_its_whole_outline(
        seed: int, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scene 621: two DUCK cards were kept cut short at their wave band, and came again
    as a squat candidate whose extension is the whole card: the extension covers the kept
    piece, so it was refused as covering another card. A smaller piece of itself no longer
    counts as another card (without that, the identity below, each of these is missed)."""
    scene = render_scene(seed)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) > 0.8
    patch_detector(monkeypatch, "_cut_piece", lambda *args: False)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) < 0.7


def test_an_extension_never_replaces_a_larger_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scene 793: two squat pieces of a Sitting Ducks card, extended one after the
    other, would each have replaced the card found before as its "piece", the whole card
    giving way to a smaller extension: a piece must be smaller than what replaces it."""
    scene = render_scene(793)
    assert best_match(detect_cards(scene.image), scene.cards[12].quad) > 0.8

    def piece_of_any_size(card: detect_shapes._Found, whole: detect_shapes._Found, usual: float) -> bool:
        return bool(card.area < detect_choose.WHOLE_SHARE * usual
                    and detect_shapes._intersection(whole.quad, card.quad) >= 0.75 * card.area)

    patch_detector(monkeypatch, "_cut_piece", piece_of_any_size)
    assert best_match(detect_cards(scene.image), scene.cards[12].quad) < 0.7


@pytest.mark.parametrize(("seed", "index"), [(516, 8), (608, 17)])
def test_a_whole_card_seen_squat_is_kept(seed: int, index: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Held-out benchmark scenes 516 and 608: a card seen through a steeply tilted camera (a red
    lifebelt 8, a grey 7) looks squarer (long over short side 1.03 and 1.10) than a card may be,
    so it was only tried as a card cut short, and no extension of it was one. About as large as
    its neighbours and edged all round, it is kept as it is (without that, the refusal below, it
    is missed)."""
    scene = render_scene(seed)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) > 0.9
    patch_detector(monkeypatch, "_whole_but_squat", lambda *args: False)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) < 0.7


@pytest.mark.parametrize(("seed", "index", "false_without"), [(563, 2, 3), (769, 14, 1), (15, 9, 0)])
def test_the_panels_of_one_card_are_not_touching_cards(
        seed: int, index: int, false_without: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scenes 563, 769 and 15: the panels printed on a Sitting Ducks water card and on
    a Bruce card tile its face as touching cards tile their outline, so the card was taken for
    a group and its panels kept as cards (or dropped as too small). Panels under 0.6 of the size
    of the cards beside them, inside an outline of about their size, give the card back
    (without that, the identity below, the card is missed and its panels may count as cards)."""
    scene = render_scene(seed)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert index not in missed and len(found) == len(matched)
    patch_detector(monkeypatch, "_panelled", lambda grouped, cards: cards)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert index in missed and len(found) - len(matched) == false_without


def test_touching_cards_smaller_than_their_neighbours_stay_two() -> None:
    """Benchmark scene 511 (a steep camera: cards 8,300 to 17,300 pixels): two touching far
    cards, a grey 8 and a yellow 3, make an outline about the size of the near cards beside it.
    Their parts are 0.72 of those cards' size, no panels: all 12 cards stay found (had the
    outline nearer its neighbours' size than its parts won, 4 were lost here)."""
    scene = render_scene(511)
    found = detect_cards(scene.image)
    matched, missed = match(scene.cards, [d.quad for d in found])
    assert not missed and len(found) == len(scene.cards) == 12


@pytest.mark.parametrize(("seed", "index"), [(553, 3), (781, 17)])
def test_an_outline_inside_a_loose_one_that_lost_gets_its_chance(
        seed: int, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scenes 553 and 781: a loose outline around a Sitting Ducks card, taking in part
    of a neighbour, was kept over the card's own outline inside it, then lost to the better-edged
    neighbour: the card was gone with it. The card's outline now comes back (without that, the
    identity below, the card is missed)."""
    scene = render_scene(seed)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) > 0.9
    patch_detector(monkeypatch, "_inner_outlines_back", lambda chosen, held: chosen)
    assert best_match(detect_cards(scene.image), scene.cards[index].quad) < 0.7


def test_an_outline_of_two_cards_does_not_come_back() -> None:
    """Benchmark scene 382 at 1920 x 1080, searched at 1280 x 720: an outline around two touching
    Sitting Ducks cards lost to a neighbour, and held inside it a second outline of the same two.
    Brought back, it hid both cards from the later steps that find them; outlines larger than
    the cards beside them stay out, and all 14 cards are found."""
    scene = render_scene(382, size=(1920, 1080))
    view, detail = reading_view(scene.image)
    scale = scene.image.shape[1] / view.shape[1]
    found = detect_cards(view, detail=detail)
    matched, missed = match(scene.cards, [d.quad * scale for d in found])
    assert not missed and len(found) == len(matched) == 14


def test_two_touching_cards_are_parted_though_a_shadow_darkens_one_side(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark scene 781: a pink duck and a sky 6 of Sitting Ducks lie side by side, outlined
    as one. Halved, each half is a card, but a shadow darkens both along their outer top side
    (margin 163-171 against 217-222): halves had to be light on every side, and both cards were
    missed. Only the side along the cut must be (a cut through one card's face runs through its
    print); with the old all-round check below, both are missed again."""
    scene = render_scene(781)
    found = detect_cards(scene.image)
    assert min(best_match(found, scene.cards[i].quad) for i in (14, 18)) > 0.85

    def light_all_round(quad: np.ndarray, other: np.ndarray, grads: detect_edges._Gradients) -> bool:
        sides = np.median(detect_edges._margin_levels(quad, grads)[0], axis=1)
        return bool(sides.min() >= 0.85 * np.median(sides))

    patch_detector(monkeypatch, "_light_along_cut", light_all_round)
    found = detect_cards(scene.image)
    assert max(best_match(found, scene.cards[i].quad) for i in (14, 18)) < 0.7

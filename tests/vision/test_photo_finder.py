"""The one card in an enrolment photo: large, held, fingers over an edge; and what is not a card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from ducktable.sim import render
from ducktable.vision import printing
from ducktable.vision.detect import crop_card
from ducktable.vision.detect_shapes import _order_portrait
from ducktable.vision.enroll import MAX_HIDDEN_TO_ENROL, enrollable, hidden_message
from ducktable.vision.photo_finder import (
    MAX_HIDDEN_TO_NAME,
    FoundCard,
    crop_in_picture,
    find_photo_cards,
    hidden_share,
    nameable,
    photo_crops,
    silhouette_card,
)

CARD = render.render_card("duck", "yellow-7", width=200, height=300)


def photo_with_card(centre: tuple[float, float], height: float, angle: float,
                    size: tuple[int, int] = (640, 480), cloth: tuple[int, int, int] = (40, 80, 30),
                    vignette: bool = True, card: np.ndarray = CARD) -> tuple[np.ndarray, np.ndarray]:
    """A dim photo of ``card`` (200 x 300) on a cloth, and the card's true corners."""
    w, h = size
    rng = np.random.default_rng(7)
    photo = np.full((h, w, 3), cloth, np.float32) + rng.normal(0, 6, (h, w, 3))
    if vignette:  # a lamp's bright patch on the cloth, as webcam photos have
        yy, xx = np.mgrid[0:h, 0:w]
        photo += 60 * np.exp(-(((xx - 0.15 * w) / (0.25 * w)) ** 2 + ((yy - 0.3 * h) / (0.4 * h)) ** 2))[..., None]
    card_h, card_w = height, height * 2 / 3
    corners = cv2.boxPoints((centre, (card_w, card_h), angle)).astype(np.float32)
    src = np.array([[0, 0], [199, 0], [199, 299], [0, 299]], np.float32)
    ordered = cv2.boxPoints(((0, 0), (card_w, card_h), angle)).astype(np.float32) + np.float32(centre)
    warp = cv2.getPerspectiveTransform(src, _clockwise_from_top_left(ordered))
    face = cv2.warpPerspective(card, warp, (w, h)).astype(np.float32)
    inside = cv2.warpPerspective(np.ones((300, 200), np.float32), warp, (w, h))[..., None]
    photo = photo * (1 - inside) + 0.8 * face * inside
    return np.clip(photo, 0, 255).astype(np.uint8), corners


def _clockwise_from_top_left(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    order = np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))
    quad = quad[order]
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def add_finger(photo: np.ndarray, tip: tuple[int, int], towards: tuple[int, int]) -> None:
    """A skin-coloured finger from outside the picture to ``tip``, over the card's edge."""
    cv2.line(photo, towards, tip, (120, 150, 205), 34)
    cv2.circle(photo, tip, 17, (120, 150, 205), -1)


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance from a true corner to the nearest found corner."""
    return max(float(np.min(np.linalg.norm(found - t, axis=1))) for t in truth)


@pytest.mark.parametrize(("height", "angle"), [(420, 8), (300, 33), (160, -20)])
def test_a_card_from_small_to_filling_the_picture_is_found_by_its_silhouette(
        height: float, angle: float) -> None:
    photo, truth = photo_with_card((330, 240), height, angle)
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.04 * height


def test_fingers_over_an_edge_stay_outside_the_card() -> None:
    photo, truth = photo_with_card((300, 240), 300, 15)
    add_finger(photo, (400, 250), (640, 330))
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.05 * 300
    cards = find_photo_cards(photo)
    assert len(cards) == 1 and cards[0].crop.shape[:2] == (150, 100)


def test_a_card_cut_by_the_pictures_edge_is_not_taken_for_a_whole_card() -> None:
    photo, _ = photo_with_card((600, 240), 300, 0)
    assert silhouette_card(photo) is None


def test_a_door_a_screen_and_a_keyboard_are_not_cards() -> None:
    wall = np.full((480, 640, 3), (215, 220, 225), np.uint8)
    door = wall.copy()
    cv2.rectangle(door, (230, 20), (410, 470), (30, 30, 150), -1)  # 2.5 : 1, cut by nothing
    screen = wall.copy()
    cv2.rectangle(screen, (80, 120), (560, 390), (20, 20, 20), -1)  # 16 : 9
    keyboard = np.full((480, 640, 3), (60, 60, 60), np.uint8)
    for row in range(5):
        for col in range(14):
            x, y = 20 + col * 43, 130 + row * 45
            cv2.rectangle(keyboard, (x, y), (x + 36, y + 38), (200, 200, 200), -1)
    for picture in (door, screen, keyboard):
        assert photo_crops(picture) == []


def test_a_blank_or_tiny_picture_has_no_card() -> None:
    assert photo_crops(np.zeros((480, 640, 3), np.uint8)) == []
    assert silhouette_card(np.full((3, 2, 3), 255, np.uint8)) is None


def add_hand(photo: np.ndarray, corner: np.ndarray, towards: tuple[int, int]) -> None:
    """A skin-coloured hand from outside the picture whose palm and three fingers cover one
    of the card's corners and run off over two of its sides, joining card and hand into one
    light region."""
    skin = (120, 150, 205)
    x, y = (int(v) for v in corner)
    cv2.line(photo, towards, (x, y), skin, 70)
    for dx, dy in ((-40, -25), (-10, -45), (25, -40)):
        cv2.line(photo, (x, y), (x + dx, y + dy), skin, 22)
        cv2.circle(photo, (x + dx, y + dy), 11, skin, -1)


def test_a_card_held_by_a_hand_over_a_corner_is_found_whole() -> None:
    photo, truth = photo_with_card((280, 230), 300, 30)
    corner = truth[np.argmax(truth[:, 0] + truth[:, 1])]  # the lower right corner
    add_hand(photo, corner, (640, 470))
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.05 * 300


def test_a_corner_cut_by_the_pictures_edge_still_gives_the_card() -> None:
    photo, truth = photo_with_card((320, 170), 320, 20)
    assert truth[:, 1].min() < 0  # a corner is outside the picture
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.05 * 320


def test_a_card_with_a_corner_off_the_picture_is_rebuilt_from_its_four_sides() -> None:
    """The hull's side along the picture's edge is the edge's: the card's own four sides,
    crossed beyond the picture, give its whole outline, and the share cut off is told."""
    photo, truth = photo_with_card((560, 300), 300, -30)
    assert 0.8 < _share_in_picture(truth, photo) < 0.92  # a corner well off the picture
    (found,) = find_photo_cards(photo)
    assert corner_error(found.quad, truth) < 0.03 * 300
    assert found.quad[:, 0].max() > photo.shape[1] + 20  # the corner is placed off the picture
    true_cut = hidden_share(photo, _order_portrait(truth)).cut
    assert abs(found.hidden.cut - true_cut) < 0.02 and found.hidden.over <= MAX_HIDDEN_TO_ENROL
    assert not enrollable(found.hidden.total) and nameable(found.hidden.total)


def test_a_cut_cards_print_running_to_the_pictures_edge_is_not_taken_for_a_hand() -> None:
    """A court card's picture fills most of its face: cut by the picture's edge, it touches
    the part off the picture, which is no hand reaching over the card."""
    court = np.full((300, 200, 3), 235, np.uint8)
    cv2.rectangle(court, (22, 30), (178, 270), (40, 60, 150), -1)
    photo, truth = photo_with_card((560, 300), 300, -30, card=court)
    (found,) = find_photo_cards(photo)
    assert corner_error(found.quad, truth) < 0.03 * 300
    assert found.hidden.over <= MAX_HIDDEN_TO_ENROL and 0.05 < found.hidden.cut < 0.15
    held = photo.copy()  # a hand coming in from off the picture over the card is one still
    cv2.line(held, (639, 200), (470, 330), (120, 150, 205), 60)
    assert hidden_share(held, found.quad).over > MAX_HIDDEN_TO_ENROL


def test_the_part_of_a_card_off_the_picture_is_blank_in_its_crop_not_smeared_ink() -> None:
    """The crop paints what the picture does not show in the card's paper colour: smearing the
    picture's last column over it would draw the pips that column crosses as stripes."""
    photo, truth = photo_with_card((560, 300), 300, -30, card=white_playing_card())
    quad = _order_portrait(truth)
    crop = crop_in_picture(photo, quad)
    smeared = crop_card(photo, quad)
    off = _off_picture(photo, quad, crop.shape[:2])
    assert 0.05 < off.mean() < 0.2
    paper = np.median(crop[~off], axis=0)
    assert np.abs(crop[off].astype(int) - paper).max() <= 2
    assert np.abs(crop[~off].astype(int) - smeared[~off]).max() == 0  # the seen part is as cut
    inside = quad - np.float32((240, 60))  # the same card, whole in the picture
    assert np.array_equal(crop_in_picture(photo, inside), crop_card(photo, inside))


def _off_picture(photo: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    h, w = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    homography = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    seen = cv2.warpPerspective(np.full(photo.shape[:2], 255, np.uint8), homography, (w, h),
                               flags=cv2.INTER_NEAREST, borderValue=0)
    return cv2.dilate(255 - seen, np.ones((3, 3), np.uint8)) > 0


def _share_in_picture(quad: np.ndarray, photo: np.ndarray) -> float:
    h, w = photo.shape[:2]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    common, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return float(common) / cv2.contourArea(quad.astype(np.float32))


def test_a_door_or_a_screen_cut_by_the_frame_is_not_rebuilt_into_a_card() -> None:
    """What the frame cuts is rebuilt only from four sides seen in the picture, into a card's
    shape, with at most a quarter of it outside, and what the edge cuts aslant is not taken for
    a card with the edge for a side: a door's long slab, a slanted screen running off a side,
    a card-shaped window mostly off the picture are refused."""
    wall = np.full((480, 640, 3), (215, 220, 225), np.uint8)
    door = wall.copy()  # 2.5 : 1, slanted, its top corner off the picture
    cv2.fillConvexPoly(door, cv2.boxPoints(((330, 250), (190, 475), 12)).astype(np.int32),
                       (30, 30, 150))
    screen = wall.copy()  # 16 : 9, slanted, its right side and a corner off the picture
    cv2.fillConvexPoly(screen, cv2.boxPoints(((560, 300), (400, 225), -20)).astype(np.int32),
                       (20, 20, 20))
    window = wall.copy()  # a card's shape, 40% of it off the top
    cv2.fillConvexPoly(window, cv2.boxPoints(((320, 60), (220, 308), 15)).astype(np.int32),
                       (140, 110, 60))
    for picture in (door, screen, window):
        assert photo_crops(picture) == []


# ---- how much of a found card is hidden -----------------------------------------------------
@pytest.mark.parametrize("game", printing.GAMES)
def test_a_card_lying_free_has_nothing_hidden_whatever_it_prints_at_its_edges(game: str) -> None:
    """Waves and frame lines printed to a card's edge, and a card's index, are not a hand."""
    card = render.render_card(game, printing.card_labels(game)[1], width=200, height=300)
    photo, truth = photo_with_card((330, 240), 300, 25, card=card)
    (found,) = find_photo_cards(photo)
    assert found.hidden.total <= MAX_HIDDEN_TO_ENROL
    assert hidden_share(photo, _order_portrait(truth)).total <= MAX_HIDDEN_TO_ENROL


def test_a_finger_or_a_hand_over_the_card_is_measured_and_grows_with_the_hand() -> None:
    photo, truth = photo_with_card((300, 240), 300, 15)
    quad = _order_portrait(truth)
    add_finger(photo, (350, 250), (640, 330))
    finger = hidden_share(photo, quad)
    assert MAX_HIDDEN_TO_ENROL < finger.over < MAX_HIDDEN_TO_NAME and finger.cut == 0
    (found,) = find_photo_cards(photo)
    assert not enrollable(found.hidden.total) and nameable(found.hidden.total)
    held = photo.copy()
    add_hand(held, truth[np.argmax(truth[:, 0] + truth[:, 1])], (640, 470))
    cv2.line(held, (640, 200), (300, 240), (120, 150, 205), 90)  # and a palm over the middle
    assert hidden_share(held, quad).over > MAX_HIDDEN_TO_NAME
    assert not nameable(hidden_share(held, quad).total)


def test_a_card_cut_by_the_pictures_edge_counts_as_cut_not_as_a_hand() -> None:
    photo, truth = photo_with_card((320, 120), 320, 20)
    hidden = hidden_share(photo, _order_portrait(truth))
    assert hidden.cut > MAX_HIDDEN_TO_ENROL and hidden.over <= MAX_HIDDEN_TO_ENROL
    # the edge-map search takes the picture's edge for the card's: the card is cut all the same
    for found in find_photo_cards(photo):
        assert not enrollable(found.hidden.total)
    assert "the picture's edge cuts off part of the card" in hidden_message(
        "IMG_1.jpg", FoundCard(truth, np.zeros((150, 100, 3), np.uint8), hidden))


def white_playing_card() -> np.ndarray:
    """A plain white card (200 x 300) with red pips and a red index, as playing cards print."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for x, y in [(60, 70), (140, 70), (100, 150), (60, 230), (140, 230)]:
        cv2.circle(card, (x, y), 18, (40, 40, 200), -1)
    cv2.putText(card, "7", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (40, 40, 200), 3)
    return card


@pytest.mark.parametrize("spot", [140, 170])
def test_a_card_between_a_lamps_bright_spot_and_a_hand_is_cut_free_by_its_paper_colour(
        spot: int) -> None:
    photo, truth = photo_with_card((380, 260), 280, 35, vignette=False, card=white_playing_card())
    h, w = photo.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    glow = spot * np.exp(-(((xx - 0.35 * w) / (0.2 * w)) ** 2 + ((yy - 0.6 * h) / (0.35 * h)) ** 2))
    cloth = np.abs(photo.astype(np.int32) - np.array([40, 80, 30])).sum(axis=-1) <= 60
    photo = np.clip(photo + (glow * cloth)[..., None], 0, 255).astype(np.uint8)
    skin = (120, 140, 175)  # a hand in dim light, as light as the card
    cv2.ellipse(photo, (620, 200), (90, 160), 0, 0, 360, skin, -1)
    for y in (150, 230):
        cv2.line(photo, (620, y), (480, y + 20), skin, 30)
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.04 * 280


# ---- a card a hand covers in part -----------------------------------------------------------
SHADED_SKIN = (80, 100, 135)
"""A hand in the shade of the lamp: darker than the card, lighter than the cloth, so that
neither the card's lightness nor its paper colour takes it in with the card."""


def add_shaded_hand(photo: np.ndarray, tip: tuple[int, int], palm: tuple[int, int],
                    colour: tuple[int, int, int] = SHADED_SKIN) -> None:
    """A hand 100 px wide from ``palm`` (off the picture) to ``tip`` (over the card)."""
    cv2.line(photo, palm, tip, colour, 100)
    cv2.circle(photo, tip, 50, colour, -1)


def test_a_card_a_shaded_hand_covers_a_fifth_of_is_found_whole() -> None:
    """The card's paper is the card less the hand: too little of its outline for a whole or a
    held card, but every side is seen along a part, and what is left out is the hand, not the
    cloth."""
    photo, truth = photo_with_card((300, 240), 300, 20, vignette=False, card=white_playing_card())
    add_shaded_hand(photo, (330, 260), (700, 300))
    quad = silhouette_card(photo)
    assert quad is not None
    assert corner_error(quad, truth) < 0.03 * 300
    hidden = hidden_share(photo, quad)
    assert not enrollable(hidden.total) and nameable(hidden.total)


def test_a_card_cut_by_the_pictures_edge_with_a_hand_over_another_side_is_found_whole() -> None:
    photo, truth = photo_with_card((320, 140), 300, -20, vignette=False, card=white_playing_card())
    assert 0.95 < _share_in_picture(truth, photo) < 0.99  # a corner off the top of the picture
    add_shaded_hand(photo, (390, 160), (700, 200))
    (found,) = find_photo_cards(photo)
    assert corner_error(found.quad, truth) < 0.03 * 300
    assert not enrollable(found.hidden.total) and nameable(found.hidden.total)


def test_a_card_with_a_bite_of_the_tables_colour_out_of_it_is_not_taken_for_a_covered_card() -> None:
    """What a card's region leaves out of its rectangle must be something over the card; the
    table showing through is a torn card, or a light thing of another shape."""
    photo, _ = photo_with_card((300, 240), 300, 20, vignette=False, card=white_playing_card())
    add_shaded_hand(photo, (330, 260), (700, 300), colour=(40, 80, 30))
    assert silhouette_card(photo) is None

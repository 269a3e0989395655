"""Table layouts: zones, reading order, files and covered zones."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from ducktable.vision.layout import CoverWatch, LayoutError, SeenCard, TableLayout, duck_layout, zone_reads


@pytest.mark.parametrize("players", [3, 4, 5])
def test_duck_layout_has_the_zones_the_inference_reads_and_they_do_not_overlap(players):
    layout = duck_layout(players)
    names = {z.name for z in layout.zones}
    for seat in range(players):
        assert {f"seat{seat}.discard", f"seat{seat}.reveal"} <= names
    assert {"middle.draw", "middle.lifebelt"} <= names
    for a in layout.zones:
        for b in layout.zones:
            if a is not b:
                assert (a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y), (a, b)
        assert a.x >= 0 and a.x + a.w <= layout.size[0] and a.y >= 0 and a.y + a.h <= layout.size[1]


def identity_layout() -> TableLayout:
    return duck_layout(3).with_homography(np.eye(3))


def card_at(layout, zone_name, slot, label, conf=0.9):
    zone = layout.zone(zone_name)
    x, y = zone.slot_centres()[slot] if zone.kind == "spread" else zone.centre
    quad = np.array([[x - 30, y - 45], [x + 30, y - 45], [x + 30, y + 45], [x - 30, y + 45]], np.float32)
    return SeenCard(quad, label, conf)


def test_cards_go_to_their_zones_in_reading_order_without_game_prefix():
    layout = identity_layout()
    cards = [card_at(layout, "seat0.reveal", 5, "duck/red-2"), card_at(layout, "seat0.reveal", 0, "duck/blue-1"),
             card_at(layout, "seat0.reveal", 1, "duck/yellow-4"), card_at(layout, "seat1.discard", 0, "duck/red-7")]
    reads = zone_reads(layout, cards, occluded={"seat2.reveal"})
    assert reads["seat0.reveal"].labels == ("blue-1", "yellow-4", "red-2")  # row 1, then row 2
    assert reads["seat1.discard"].labels == ("red-7",)
    assert reads["seat2.reveal"].occluded and reads["seat2.discard"].labels == ()


def test_a_spread_with_room_for_a_card_between_two_cards_found_is_read_as_covered():
    """The middle card of three laid edge to edge is the one a detector misses; a play read
    without it would be a wrong event, so the spread is read as covered until it is found."""
    layout = identity_layout()
    ends = [card_at(layout, "seat0.reveal", 0, "duck/blue-6"), card_at(layout, "seat0.reveal", 2, "duck/blue-6")]
    assert zone_reads(layout, ends)["seat0.reveal"].occluded
    three = [*ends, card_at(layout, "seat0.reveal", 1, "duck/red-6")]
    assert zone_reads(layout, three)["seat0.reveal"].labels == ("blue-6", "red-6", "blue-6")
    rows = [card_at(layout, "seat0.reveal", 0, "duck/blue-6"), card_at(layout, "seat0.reveal", 6, "duck/red-6")]
    assert zone_reads(layout, rows)["seat0.reveal"].labels == ("blue-6", "red-6")  # one in each row


def test_a_pile_keeps_only_its_most_confident_card():
    layout = identity_layout()
    reads = zone_reads(layout, [card_at(layout, "seat1.discard", 0, "duck/red-7", 0.5),
                                card_at(layout, "seat1.discard", 0, "duck/red-1", 0.9)])
    assert reads["seat1.discard"].labels == ("red-1",)


def test_two_touching_cards_found_as_one_are_read_as_unknown():
    """The detector may take two identical cards laid edge to edge for one card twice as
    wide; that read must not name one card (Grey Duck: a pair of sevens is not a single seven)."""
    layout = identity_layout()
    one = card_at(layout, "seat0.reveal", 0, "duck/red-7")
    x0, y0 = one.quad[0]
    pair = np.array([[x0, y0], [x0 + 2 * 68 + 4, y0], [x0 + 2 * 68 + 4, y0 + 102], [x0, y0 + 102]], np.float32)
    reads = zone_reads(layout, [SeenCard(pair, "duck/red-7", 0.97), card_at(layout, "seat1.reveal", 0, "duck/red-7")])
    assert reads["seat0.reveal"].labels == ("unknown",) and reads["seat0.reveal"].confidence == 0.0
    assert reads["seat1.reveal"].labels == ("red-7",)  # a card of the usual size is read as it is


def test_layout_file_errors_are_explained(tmp_path):
    with pytest.raises(LayoutError, match="ducktable calibrate"):
        TableLayout.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"v": 1, "name": "x"}))
    with pytest.raises(LayoutError, match="not a valid table layout"):
        TableLayout.load(tmp_path / "bad.json")
    with pytest.raises(LayoutError, match="not calibrated"):
        duck_layout(3).to_frame(np.zeros((1, 2)))
    with pytest.raises(LayoutError, match="no zone"):
        duck_layout(3).zone("seat9.reveal")


def test_cover_watch_flags_a_hand_but_not_cards_it_was_told_about():
    layout = identity_layout()
    rng = np.random.default_rng(0)
    empty = np.clip(rng.normal(120, 4, (720, 1280, 3)), 0, 255).astype(np.uint8)
    watch = CoverWatch(layout, empty)
    frame = empty.copy()
    card = card_at(layout, "seat0.discard", 0, "x")
    frame[int(card.quad[0, 1]):int(card.quad[2, 1]), int(card.quad[0, 0]):int(card.quad[1, 0])] = 250
    assert watch.covered(frame, [card.quad]) == set()
    x, y = layout.zone("seat1.reveal").centre
    frame[int(y) - 60:int(y) + 60, int(x) - 60:int(x) + 60] = (80, 120, 190)  # a hand
    assert watch.covered(frame, [card.quad]) == {"seat1.reveal"}


def table_of(colour, seed=1):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(colour, 3, (720, 1280, 3)), 0, 255).astype(np.uint8)


def test_cover_watch_skips_a_spread_where_one_slot_holds_a_card_the_detector_missed():
    """Two cards side by side in Grey Duck's ten-slot trick spread, one of them not found: the
    zone is skipped for this frame, not read as holding one card (rendered Grey Duck seed 0: a
    pair of sevens read as a single seven). What shows of one card is too little of the whole
    zone to tell."""
    from ducktable.sim.table_video_grey import grey_layout
    from ducktable.vision.layout import CARD_H, CARD_W

    layout = grey_layout(3).with_homography(np.eye(3))
    empty = table_of((150, 110, 200))  # pink cloth
    watch = CoverWatch(layout, empty)
    frame = empty.copy()
    quads = []
    for x, y in layout.zone("seat0.trick").slot_centres()[:2]:
        # white card; its lower part in the table's own colour (lying on a stripe of it, say)
        frame[int(y - CARD_H / 2):int(y + 0.1 * CARD_H), int(x - CARD_W / 2):int(x + CARD_W / 2)] = (235, 235, 235)
        quads.append(np.array([[x - CARD_W / 2, y - CARD_H / 2], [x + CARD_W / 2, y - CARD_H / 2],
                               [x + CARD_W / 2, y + CARD_H / 2], [x - CARD_W / 2, y + CARD_H / 2]], np.float32))
    assert watch.covered(frame, quads) == set()
    assert watch.covered(frame, quads[:1]) == {"seat0.trick"}


def test_cover_watch_flags_every_zone_a_drawn_hand_touches_and_no_far_zone():
    from ducktable.sim.table_video import draw_hand

    layout = identity_layout()
    empty = table_of((70, 120, 60))  # green felt
    watch = CoverWatch(layout, empty)
    assert watch.covered(empty.copy(), []) == set()
    frame = empty.copy()
    hands = draw_hand(frame, layout.zone("seat0.discard").centre, np.random.default_rng(3))
    found = watch.covered(frame, [])
    touched = {z.name for z in layout.zones
               if hands[int(z.y):int(z.y + z.h), int(z.x):int(z.x + z.w)].mean() > 0.02 * 255}
    assert "seat0.discard" in found and touched <= found
    assert not {"seat2.discard", "seat2.reveal", "middle.lifebelt"} & found  # the far side


def test_cover_watch_sees_a_hand_the_colour_of_the_table_by_its_sharp_outline():
    """Skin on a skin-coloured cloth differs only in lightness; glare does too, but is soft."""
    layout = identity_layout()
    skin = (110, 145, 200)
    empty = table_of(skin)
    watch = CoverWatch(layout, empty)
    x, y = layout.zone("seat1.reveal").centre
    frame = empty.copy()
    cv2.line(frame, (int(x), 719), (int(x), int(y)), tuple(int(c * 0.7) for c in skin), 60)  # arm
    cv2.circle(frame, (int(x), int(y)), 50, tuple(int(c * 0.7) for c in skin), -1)  # palm
    assert "seat1.reveal" in watch.covered(frame, [])
    spot = np.zeros((720, 1280), np.float32)
    spot[700, 100] = 1.0
    glare = cv2.GaussianBlur(spot, (0, 0), 60)
    shone = np.clip(empty + (70 / glare.max()) * glare[..., None], 0, 255).astype(np.uint8)
    watch.covered(shone, [])  # appearing at once, it may pass for a hand for one frame
    assert watch.covered(shone, []) == set()



def test_cover_watch_sees_a_hand_the_colour_and_lightness_of_the_table():
    """A rendered hand whose skin matches the cloth in colour and lightness differs only by
    a slight tint and its shaded outline (on rendered games, such hands left a tenth of the
    scripted covers unseen); a soft, still tint of the same strength (warm light) is no hand."""
    from ducktable.sim.table_video import draw_hand

    layout = identity_layout()
    skin = (110, 145, 200)
    empty = table_of(skin)
    for zone in ("seat1.reveal", "seat0.discard", "middle.draw"):
        frame = empty.copy()
        draw_hand(frame, layout.zone(zone).centre, np.random.default_rng(11))
        assert zone in CoverWatch(layout, empty).covered(frame, [])
    lab = cv2.cvtColor(np.array([[skin]], np.uint8), cv2.COLOR_BGR2LAB).astype(np.int32)
    lab[0, 0, 1:] += (6, -6)
    warm_colour = cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)[0, 0].astype(np.float32)
    spot = np.zeros((720, 1280), np.float32)
    spot[700, 640] = 1.0
    light = cv2.GaussianBlur(spot, (0, 0), 80)
    warm = (light / light.max())[..., None]
    shone = np.clip(empty * (1 - warm) + warm_colour * warm, 0, 255).astype(np.uint8)
    watch = CoverWatch(layout, empty)
    watch.covered(shone, [])
    assert watch.covered(shone, []) == set()

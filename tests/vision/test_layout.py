"""Table layouts: zones, reading order, files and covered zones (issue 5.1)."""

from __future__ import annotations

import json

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
             card_at(layout, "seat0.reveal", 3, "duck/yellow-4"), card_at(layout, "seat1.discard", 0, "duck/red-7")]
    reads = zone_reads(layout, cards, occluded={"seat2.reveal"})
    assert reads["seat0.reveal"].labels == ("blue-1", "yellow-4", "red-2")  # row 1, then row 2
    assert reads["seat1.discard"].labels == ("red-7",)
    assert reads["seat2.reveal"].occluded and reads["seat2.discard"].labels == ()


def test_a_pile_keeps_only_its_most_confident_card():
    layout = identity_layout()
    reads = zone_reads(layout, [card_at(layout, "seat1.discard", 0, "duck/red-7", 0.5),
                                card_at(layout, "seat1.discard", 0, "duck/red-1", 0.9)])
    assert reads["seat1.discard"].labels == ("red-1",)


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

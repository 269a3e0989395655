"""The Ducky Ducky river and Sitting Ducks line: rendering, reading, and bot games followed.
The full figures come from ``run_board_bench`` and ``run_game_bench``; these tests keep
to a few frames and games so they stay fast."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from ducktable.bench import boards as board_bench
from ducktable.rules import make_game
from ducktable.rules.ducky import DuckyState
from ducktable.rules.ducky_board import layout_from_json
from ducktable.rules.infer_ducky import expected_zones as ducky_zones
from ducktable.rules.infer_sitting import PLAYED_ZONE
from ducktable.rules.infer_sitting import expected_zones as sitting_zones
from ducktable.rules.sitting import SittingDucksState
from ducktable.sim import board_games, board_pictures
from ducktable.vision import boards
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.layout import LayoutError


def read(photo: board_pictures.BoardPhoto, kind: str) -> dict:
    calibrated = calibrate_from_markers(photo.layout, photo.image).layout
    if kind == "river":
        return boards.RiverReader(boards.RiverBoard.of(), calibrated).read(photo.image)
    return boards.LineReader(boards.LineBoard(), calibrated).read(photo.image)


def test_board_photos_are_drawn_the_same_from_the_same_seed():
    a, b = board_pictures.board_photo("river", 5), board_pictures.board_photo("river", 5)
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert not np.array_equal(a.image, board_pictures.board_photo("river", 6).image)


def test_reduced_board_bench_reads_cells_logs_and_positions_right():
    result = board_bench.run_board_bench(16, seed=3, out=io.StringIO())
    assert result["failed_calibrations"] == 0
    assert result["river_cells"] >= 7 * 21 and result["line_positions"] >= 7 * 6  # some lie under a hand
    assert result["river_accuracy"] >= 0.99 and result["log_accuracy"] >= 0.99
    assert result["line_accuracy"] >= 0.99


def test_river_reader_reads_pads_ducks_and_pawns_of_a_known_board():
    content = board_pictures.RiverContent.random(np.random.default_rng(11))
    geometry = boards.RiverBoard.of()
    rng = np.random.default_rng(12)
    plane = board_pictures.draw_river(content, geometry, rng)
    image, _ = board_pictures.photograph(plane, board_pictures.random_view(rng), rng)
    calibrated = calibrate_from_markers(geometry.layout(), image).layout
    reads = boards.RiverReader(geometry, calibrated).read(image)
    assert {zone: r.labels for zone, r in reads.items()} == content.zones()


def test_line_reader_reads_cards_targets_bottoms_up_and_hidden_ducks():
    content = board_pictures.LineContent(("water", "duck-pink", "duck-orange", "duck-purple", None, "duck-yellow"),
                                 targets=frozenset({1, 3, 5}), bottoms_up=frozenset({2}),
                                 covered=frozenset({3, 6}))
    rng = np.random.default_rng(4)
    plane = board_pictures.draw_line(content, boards.LineBoard(), rng)
    image, _ = board_pictures.photograph(plane, board_pictures.random_view(rng), rng)
    calibrated = calibrate_from_markers(boards.LineBoard().layout(), image).layout
    reads = boards.LineReader(boards.LineBoard(), calibrated).read(image)
    assert {zone: r.labels for zone, r in reads.items()} == content.zones()
    assert content.zones()["line.3"] == ("duck-orange", "covered", "target")


def test_a_hand_over_a_place_is_reported_as_covered_not_misread():
    photo = board_pictures.board_photo("line", 21, hands=1)
    reads = read(photo, "line")
    assert photo.covered
    for zone in photo.covered:
        assert reads[zone].occluded or reads[zone].labels == photo.truth[zone]
    for zone, truth in photo.truth.items():
        if zone not in photo.covered:
            assert reads[zone].labels == truth


def test_reading_an_uncalibrated_board_says_to_calibrate():
    photo = board_pictures.board_photo("river", 1)
    with pytest.raises(LayoutError, match="calibrate"):
        boards.RiverReader(boards.RiverBoard.of(), photo.layout).read(photo.image)


def test_DUCKY_C1_a_custom_board_layout_gets_its_own_geometry_and_zones():
    custom = layout_from_json({"cells": 10, "pads_per_colour": 2, "logs": [
        {"faces": 1, "blue_star": True}, {"faces": 4, "white_star": True}, {"faces": 6, "blue_star": True},
        {"faces": 6, "white_star": True}]})
    geometry = boards.RiverBoard.of(custom)
    assert len(geometry.cells) == 10 and len(geometry.logs) == 4
    assert geometry.logs[2] != geometry.logs[3]  # two logs face cell 6: side by side
    names = {z.name for z in geometry.layout().zones}
    assert {"river.0", "river.9", "river.spare", "log.3"} <= names
    content = board_pictures.RiverContent(("yellow",) * 10, (True,) * 10, "white", False, (0, None, 1, None))
    assert board_pictures.RiverContent.from_zones(content.zones(), custom) == content


def test_river_and_line_contents_round_trip_through_zone_labels():
    rng = np.random.default_rng(2)
    for _ in range(5):
        river = board_pictures.RiverContent.random(rng)
        assert board_pictures.RiverContent.from_zones(river.zones(), boards.DEFAULT_LAYOUT) == river
        line = board_pictures.LineContent.random(rng)
        assert board_pictures.LineContent.from_zones(line.zones()) == line


@pytest.mark.parametrize("game", ["ducky", "sitting"])
def test_scripts_end_with_the_true_final_table_and_change_only_under_a_hand(game):
    true = board_games.bot_game(game, 3)
    state = make_game(game).new_state(true.players)
    if isinstance(state, DuckyState):
        shots = board_games.ducky_script(state, true.events, random.Random(3))
        final = ducky_zones(state)
    else:
        assert isinstance(state, SittingDucksState)
        shots = board_games.sitting_script(state, true.events, random.Random(3))
        final = sitting_zones(state)
    assert state.is_over() and tuple(state.scores()) == true.scores
    assert shots[-1].contents() == final and shots[-1].event_index == len(true.events)
    for before, after in zip(shots, shots[1:], strict=False):
        changed = {name for (name, a), (_, b) in zip(before.zones, after.zones, strict=True) if a != b}
        assert changed <= after.covered, "a zone changed with no hand over it"


@pytest.mark.parametrize("game", ["ducky", "sitting"])
def test_DUCKY_SIT_oracle_games_reproduce_the_result_and_apply_nothing_false(game):
    result = board_games.oracle_follow(game, 1, misread=0.02)
    assert result.wrong_applied == 0, result.first_problem
    assert result.exact
    assert result.camera_right + result.confirmed == result.true_events
    assert result.camera_right > result.true_events * 0.8  # the camera did most of it


def test_board_zones_of_a_game_are_read_from_rendered_frames():
    true = board_games.bot_game("sitting", 4)
    shots = board_games.script_for(true, 4)[:40]
    checked = 0
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, 4, misread=0.0), shots, strict=True):
        for zone, labels in shot.zones:
            if zone.startswith("line.") and zone not in shot.covered:
                read = snapshot.zone(zone)
                # a zone an arm crosses on its way to another may read unsure, never confidently wrong
                assert read is not None, zone
                assert read.occluded or read.labels == labels or read.has_unknown, (shot.ts, zone, read)
                checked += 1
    assert checked > 150


@pytest.mark.parametrize("piles", ["truth", "model"])
def test_SIT_the_played_pile_is_read_from_rendered_frames_as_the_camera_reader_reads_it(piles):
    """With every script read made wrong (misread 1.0), only a pile read from the pixels can
    be right: the action card on top, read by detector and classifier (or its true label)."""
    true = board_games.bot_game("sitting", 3)
    played = PLAYED_ZONE
    shots = [s for s in board_games.script_for(true, 3) if s.contents()[played]][:36]
    right = covered = 0
    snapshots = board_games.camera_snapshots(true, shots, 3, misread=1.0, piles=piles)
    for snapshot, shot in zip(snapshots, shots, strict=True):
        read = snapshot.zone(played)
        if played in shot.covered or read.occluded:
            covered += played in shot.covered
            continue
        assert read.labels == shot.contents()[played] or read.has_unknown, (shot.ts, read)
        right += read.labels == shot.contents()[played]
    assert right >= 20 and covered >= 2


@pytest.mark.parametrize("card", ["action-aim", "action-fire"])
def test_SIT_A1_A2_a_crosshair_printed_on_the_pile_card_is_no_hand(card):
    """Aim and Fire cards carry a red crosshair that a camera's blur turns into a warm blob the
    skin test takes for a hand: a blob wholly inside a card's outline is the card's print (a
    hand over a card always crosses its edge), so with no hand near, the pile reads its card."""
    true = board_games.bot_game("sitting", 10)
    shots = [s for s in board_games.script_for(true, 10)
             if s.contents()[PLAYED_ZONE] == (card,) and not s.covered][:10]
    assert len(shots) == 10
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, 10, piles="truth"), shots, strict=True):
        read = snapshot.zone(PLAYED_ZONE)
        assert not read.occluded and read.labels == (card,), (shot.ts, read)


@pytest.mark.parametrize("seed", [11, 12])
def test_SIT_a_table_the_skin_test_takes_for_skin_hides_no_pile(seed):
    """Seeds 11 and 12 lie on tan cloths that pass the skin test under some exposures: the whole
    table around the pile is one skin-coloured blob, far larger than a hand. A card found whole
    there is read; the pile read covered with no hand near (a card laid, as far as the follower
    could tell, and the turn asked as if two cards had been laid)."""
    true = board_games.bot_game("sitting", seed)
    shots = [s for s in board_games.script_for(true, seed) if s.contents()[PLAYED_ZONE] and not s.covered][:16]
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, seed, piles="truth"), shots, strict=True):
        read = snapshot.zone(PLAYED_ZONE)
        assert not read.occluded and read.labels == shot.contents()[PLAYED_ZONE], (shot.ts, read)


def test_DUCKY_model_mode_draws_the_seats_piles_and_reads_them_as_the_camera_reader_does():
    """In model mode the seats' piles and gifts lie beyond the board's long edges and are read
    by the card reader (detector, classifier, duck tokens from the slots' colours); with every
    script read made wrong (misread 1.0) only reads from the pixels can be right."""
    true = board_games.bot_game("ducky", 1)
    shots = board_games.script_for(true, 1)[:45]
    piles = {z for z in board_games.pixel_zones("ducky", "model", len(true.players)) if z.startswith("seat")}
    assert len(piles) == 3 * len(true.players)  # two piles and the gifts per seat
    right = unsure = 0
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, 1, misread=1.0, piles="model"), shots,
                              strict=True):
        for zone in piles - shot.covered:
            read, truth = snapshot.zone(zone), shot.contents()[zone]
            if read.occluded or min((c.confidence for c in read.cards), default=1.0) < 0.5:
                unsure += 1
                continue
            assert read.labels == truth, (shot.ts, zone, read, truth)
            right += bool(truth)
    assert right >= 150 and unsure < right / 3  # unsure: mostly a token on a slot of its own colour


def test_game_bench_reports_results_per_game():
    out = io.StringIO()
    result = board_bench.run_game_bench(1, seed=5, out=out)
    assert set(result) >= {"ducky", "sitting"} and result["ducky"]["exact"] == 1
    assert "wrong events applied 0" in out.getvalue()


@pytest.mark.parametrize("seed", [900, 903])
def test_river_cells_under_many_hands_are_read_as_covered_not_as_content(seed):
    """Hands over most of the board must not pass for the mat's light: what they cover reads
    covered (or right), what they leave bare still reads right."""
    photo = board_pictures.board_photo("river", seed, hands=30)
    reads = read(photo, "river")
    assert len(photo.covered) > 15
    for zone, truth in photo.truth.items():
        if zone in photo.covered:
            assert reads[zone].occluded or reads[zone].labels == truth, (zone, reads[zone])
        else:
            assert reads[zone].labels == truth, (zone, reads[zone])


def test_DUCKY_T1_a_flowing_river_is_slid_by_one_or_two_hands_pad_by_pad():
    """A pawn's move makes the river flow: the script shows one or two hands sliding along it
    over several frames, each across at most two pads, never a hand on every pad at once."""
    true = board_games.bot_game("ducky", 1)
    shots = board_games.script_for(true, 1)
    river = [s for s in shots if s.hands is not None]
    moves = sum(e.type == "move" for e in true.events)
    assert len(river) >= 3 * moves
    for shot in river:
        assert 1 <= len(shot.hands) <= 2 and all(len(zones) <= 2 for zones in shot.hands)
    for shot in shots:
        pads = [z for zones in shot.hand_zones() for z in zones if z.startswith("river.")]
        assert len(pads) <= 2 * board_games.SWEEP_FROM


def test_pads_under_a_sliding_hand_are_read_as_covered():
    true = board_games.bot_game("ducky", 1)
    shots = [s for s in board_games.script_for(true, 1) if s.hands is not None][:24]
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, 1, misread=0.0), shots, strict=True):
        for zones in shot.hand_zones():
            for zone in zones:
                assert snapshot.zone(zone).occluded, (shot.ts, zone, snapshot.zone(zone))


def _spy_on_frames(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[tuple[tuple[int, ...], ...]]:
    """The shapes of the pictures ``cls.read`` is given (the frame, and the detail picture if any)."""
    seen: list[tuple[tuple[int, ...], ...]] = []
    original = cls.read

    def read(self, frame, *more):
        seen.append((frame.shape[:2], *(m.shape[:2] for m in more if m is not None)))
        return original(self, frame, *more)

    monkeypatch.setattr(cls, "read", read)
    return seen


def test_SIT_pictures_taken_at_1920x1080_are_read_as_the_camera_reader_reads_them(monkeypatch):
    """``capture_size``: the line is read at 1280 x 720, the size the table is calibrated at,
    and the played pile's cards are cut from the whole picture; both still read right."""
    from ducktable.vision.pile_reading import CardZones

    board_frames = _spy_on_frames(monkeypatch, boards.LineReader)
    pile_frames = _spy_on_frames(monkeypatch, CardZones)
    true = board_games.bot_game("sitting", 3)
    shots = [s for s in board_games.script_for(true, 3) if s.contents()[PLAYED_ZONE]][:24]
    right = 0
    snapshots = board_games.camera_snapshots(true, shots, 3, misread=1.0, piles="truth", capture_size=(1920, 1080))
    for snapshot, shot in zip(snapshots, shots, strict=True):
        read = snapshot.zone(PLAYED_ZONE)
        if PLAYED_ZONE not in shot.covered and not read.occluded:
            assert read.labels == shot.contents()[PLAYED_ZONE] or read.has_unknown, (shot.ts, read)
            right += read.labels == shot.contents()[PLAYED_ZONE]
        for zone, labels in shot.zones:
            if zone.startswith("line.") and zone not in shot.covered:
                line = snapshot.zone(zone)
                assert line.occluded or line.labels == labels or line.has_unknown, (shot.ts, zone, line)
    assert right >= 12
    assert set(board_frames) == {((720, 1280),)} and len(board_frames) == 24
    assert set(pile_frames) == {((720, 1280), (1080, 1920))} and len(pile_frames) == 24


def test_DUCKY_pictures_taken_at_another_size_are_read_whole(monkeypatch):
    """Ducky Ducky's table is calibrated on the camera's whole picture (its seats' piles need
    every pixel), so ``capture_size`` pictures are read at their own size."""
    frames = _spy_on_frames(monkeypatch, boards.RiverReader)
    true = board_games.bot_game("ducky", 1)
    shots = board_games.script_for(true, 1)[:20]
    read_right = 0
    for snapshot, shot in zip(board_games.camera_snapshots(true, shots, 1, misread=1.0, capture_size=(1600, 900)),
                              shots, strict=True):
        for zone, labels in shot.zones:
            if zone.startswith("river.") and zone not in shot.covered:
                read = snapshot.zone(zone)
                assert read.occluded or read.labels == labels or read.has_unknown, (shot.ts, zone, read)
                read_right += read.labels == labels
    assert read_right >= 100
    assert set(frames) == {((900, 1600),)} and len(frames) == 20

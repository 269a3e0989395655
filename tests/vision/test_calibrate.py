"""Calibration from ArUco markers and by hand, the printable sheet, and a moved camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from ducktable.sim.table_video import paste_markers
from ducktable.vision.calibrate import (
    CalibrationError,
    DriftWatch,
    calibrate_from_corners,
    calibrate_from_markers,
    find_markers,
    marker_sheet_pdf,
    marker_sheet_png,
)
from ducktable.vision.layout import duck_layout

TRUE_H = np.array([[0.82, 0.06, 110.0], [-0.03, 0.74, 70.0], [0.00002, 0.00012, 1.0]])


def table_photo(homography=TRUE_H, seed=0, hide=()):
    """A wooden-looking table seen through ``homography``, markers laid at the layout's corners."""
    rng = np.random.default_rng(seed)
    image = np.zeros((720, 1280, 3), np.uint8)
    image[:] = (70, 110, 150)
    layout = duck_layout(3)
    paste_markers(image, layout, homography)
    for marker_id in hide:  # a hand or card over a marker
        centre = cv2.perspectiveTransform(np.array([[layout.markers[marker_id]]], np.float64), homography)[0, 0]
        cv2.circle(image, (int(centre[0]), int(centre[1])), 45, (90, 130, 180), -1)
    noisy = image.astype(np.float32) + rng.normal(0, 3, image.shape)
    return layout, np.clip(noisy, 0, 255).astype(np.uint8)


def test_markers_found_and_homography_recovered_within_a_pixel():
    layout, photo = table_photo()
    found = find_markers(photo)
    assert sorted(found) == [0, 1, 2, 3]
    cal = calibrate_from_markers(layout, photo)
    assert cal.markers_used == (0, 1, 2, 3) and cal.error_px < 1.0
    for zone in layout.zones:  # every zone lands where the true camera puts it
        truth = cv2.perspectiveTransform(zone.corners().reshape(-1, 1, 2), TRUE_H).reshape(-1, 2)
        assert np.abs(cal.layout.to_frame(zone.corners()) - truth).max() < 1.5


def test_three_markers_are_enough_and_two_are_refused_with_advice():
    layout, photo = table_photo(hide=(2,))
    assert calibrate_from_markers(layout, photo).markers_used == (0, 1, 3)
    layout, photo = table_photo(hide=(1, 2))
    with pytest.raises(CalibrationError, match=r"missing ids \[1, 2\].*--corners"):
        calibrate_from_markers(layout, photo)


def test_manual_corners_give_the_same_homography():
    layout = duck_layout(3)
    w, h = layout.size
    corners = cv2.perspectiveTransform(np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float64),
                                       TRUE_H).reshape(4, 2)
    cal = calibrate_from_corners(layout, corners.tolist())
    assert np.abs(cal.layout.to_frame(np.array([[640.0, 360.0]])) -
                  cv2.perspectiveTransform(np.array([[[640.0, 360.0]]]), TRUE_H)[0]).max() < 1e-3


@pytest.mark.parametrize("corners", [[[0, 0], [1, 1]], [[0, 0], [100, 0], [0, 100], [100, 100]],
                                     [[0, 0], [1, 0], [2, 0], [3, 0]]])
def test_bad_manual_corners_are_explained(corners):
    with pytest.raises(CalibrationError, match="corners"):
        calibrate_from_corners(duck_layout(3), corners)


def test_layout_with_calibration_survives_a_file_round_trip(tmp_path):
    layout, photo = table_photo()
    cal = calibrate_from_markers(layout, photo)
    cal.layout.save(tmp_path / "table.json")
    back = type(cal.layout).load(tmp_path / "table.json")
    assert back.zones == cal.layout.zones and np.allclose(back.homography, cal.layout.homography)


def test_drift_watch_notices_a_moved_camera_by_its_markers():
    layout, photo = table_photo()
    cal = calibrate_from_markers(layout, photo)
    watch = DriftWatch(cal.layout, photo)
    assert not watch.check(table_photo(seed=1)[1]).moved
    moved = np.array([[1, 0, 25.0], [0, 1, -10.0], [0, 0, 1]]) @ TRUE_H
    drift = watch.check(table_photo(moved, seed=2)[1])
    assert drift.moved and drift.how == "markers" and "calibrate" in drift.message
    assert 20 < drift.shift_px < 35


def test_drift_watch_falls_back_to_the_whole_picture_when_markers_are_covered():
    layout, photo = table_photo()
    cal = calibrate_from_markers(layout, photo)
    rng = np.random.default_rng(5)
    texture = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3)).astype(np.uint8), (0, 0), 6)
    reference = cv2.addWeighted(photo, 0.5, texture, 0.5, 0)
    watch = DriftWatch(cal.layout, reference)
    covered = reference.copy()
    covered[:170] = covered[470:] = 128  # both marker rows hidden
    assert not watch.check(covered).moved
    shifted = np.roll(covered, 30, axis=1)
    drift = watch.check(shifted)
    assert drift.moved and drift.how == "picture"


def test_printable_sheet_holds_readable_markers_and_a_valid_pdf():
    sheet = marker_sheet_png(50.0)
    assert sheet.shape == (round(297 / 25.4 * 200), round(210 / 25.4 * 200))
    assert sorted(find_markers(sheet)) == [0, 1, 2, 3]
    pdf = marker_sheet_pdf(50.0)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.28 841.89]" in pdf
    with pytest.raises(CalibrationError, match="20 to 90 mm"):
        marker_sheet_png(5.0)


@pytest.mark.parametrize("gap", [0, 1, 2])
def test_markers_at_the_very_edge_of_the_picture_are_found(gap):
    """A wide table fills the view and its corner markers touch the picture's edge (``gap``
    pixels from it): they are still found, with their corners where they lie."""
    image = np.full((720, 1280, 3), (70, 110, 150), np.uint8)
    side = 90
    spots = {1: (gap, 300), 2: (1280 - side - gap, gap), 3: (600, 720 - side - gap)}
    for marker_id, (x, y) in spots.items():
        image[max(0, y - 15):y + side + 15, max(0, x - 15):x + side + 15] = 255  # the paper
        marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                               marker_id, side)
        image[y:y + side, x:x + side] = marker[..., None]
    noisy = np.clip(image + np.random.default_rng(gap).normal(0, 3, image.shape), 0, 255).astype(np.uint8)
    found = find_markers(noisy)
    assert sorted(found) == [1, 2, 3]
    for marker_id, (x, y) in spots.items():
        truth = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float64)
        assert np.abs(found[marker_id] - truth).max() < 1.5

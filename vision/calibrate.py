"""Camera calibration: printable ArUco markers, the table homography, and a moved camera noticed.

Why this module exists: cards are assigned to zones on the flat table plane, so the camera's
view of that plane (a homography) must be known. The user prints a sheet of four ArUco markers
(:func:`marker_sheet_png`, :func:`marker_sheet_pdf`), cuts them out and lays them at the table
area's corners; :func:`calibrate_from_markers` finds them and fits the homography. Without a
printer, :func:`calibrate_from_corners` takes the table area's four corners clicked or typed by
hand. :class:`DriftWatch` notices a camera that was knocked or moved after calibration (the
markers no longer where they were, or the whole picture shifted) so the user is told to
recalibrate instead of getting wrong zones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from . import pdf_pages
from .layout import MARKER_IDS, LayoutError, TableLayout

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
"""Small 4x4-bit markers: robust at low resolution, 50 ids (we use 0..3)."""

A4_MM = (210.0, 297.0)
SHEET_DPI = 200


class CalibrationError(LayoutError):
    """Calibration could not be done; the message says what the user should change."""


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """One marker, black on white, with a white quiet zone of one cell around it."""
    inner = cv2.aruco.generateImageMarker(_dictionary(), marker_id, pixels)
    cell = max(1, pixels // 6)
    return cv2.copyMakeBorder(inner, cell, cell, cell, cell, cv2.BORDER_CONSTANT, value=255)


# ---- the printable sheet --------------------------------------------------------------------

def marker_sheet_png(marker_mm: float = 50.0, ids: Sequence[int] = MARKER_IDS,
                     dpi: int = SHEET_DPI) -> np.ndarray:
    """An A4 page (grey image at ``dpi``) with the markers, their ids and where each goes."""
    if not 20.0 <= marker_mm <= 90.0:
        raise CalibrationError(f"markers of {marker_mm:g} mm will not work well; choose 20 to 90 mm")
    px_per_mm = dpi / 25.4
    page_w, page_h = (round(v * px_per_mm) for v in A4_MM)
    page = np.full((page_h, page_w), 255, np.uint8)
    side = round(marker_mm * px_per_mm)
    where = {0: "top left", 1: "top right", 2: "bottom right", 3: "bottom left"}
    for k, marker_id in enumerate(ids):
        col, row = k % 2, k // 2
        cx = round(page_w * (0.27 + 0.46 * col))
        cy = round(page_h * (0.22 + 0.42 * row))
        x0, y0 = cx - side // 2, cy - side // 2
        page[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side)
        cut = round(6 * px_per_mm)
        cv2.rectangle(page, (x0 - cut, y0 - cut), (x0 + side + cut, y0 + side + cut), 160, 1)
        text = f"marker {marker_id}: {where.get(marker_id, '')} corner of the table area"
        cv2.putText(page, text, (x0 - cut, y0 + side + cut + round(8 * px_per_mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5 * dpi / 100, 0, max(1, dpi // 100), cv2.LINE_AA)
    title = f"ducktable calibration markers - print at 100% ({marker_mm:g} mm squares), cut along the grey lines"
    cv2.putText(page, title, (round(12 * px_per_mm), round(14 * px_per_mm)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.4 * dpi / 100, 0, max(1, dpi // 100), cv2.LINE_AA)
    return page


def marker_sheet_pdf(marker_mm: float = 50.0, ids: Sequence[int] = MARKER_IDS) -> bytes:
    """The same sheet as a one-page A4 PDF (a lossless grey image), printable at true size."""
    return pdf_pages.pages_pdf([marker_sheet_png(marker_mm, ids)], A4_MM)


# ---- finding markers and fitting the homography -----------------------------------------------

EDGE_PAD = 8
"""White pixels added around the frame before looking for markers: a marker at the very edge
of the picture (a wide table filling the view) then still has the quiet zone the detector needs."""


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Every marker in view: id -> its four corners in frame pixels (TL, TR, BR, BL), also
    markers touching the picture's edge (OpenCV skips those within 3 px of it by default)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    grey = cv2.copyMakeBorder(grey, EDGE_PAD, EDGE_PAD, EDGE_PAD, EDGE_PAD, cv2.BORDER_CONSTANT, value=255)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.minDistanceToBorder = 0
    detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) - EDGE_PAD
            for i, c in zip(ids.ravel(), corners, strict=True)}


@dataclass(frozen=True)
class Calibration:
    """A fitted layout and how well it fits (mean corner error in frame pixels)."""

    layout: TableLayout
    error_px: float
    markers_used: tuple[int, ...]


def calibrate_from_markers(layout: TableLayout, frame: np.ndarray, *, min_markers: int = 3) -> Calibration:
    """Fit the table->frame homography from the layout's markers found in ``frame``."""
    found = find_markers(frame)
    usable = sorted(i for i in found if i in layout.markers)
    if len(usable) < min_markers:
        missing = sorted(set(layout.markers) - set(usable))
        raise CalibrationError(
            f"found {len(usable)} of the {len(layout.markers)} table markers (missing ids "
            f"{missing}); make sure all four lie flat in view, unobstructed and well lit, or give "
            "the table corners by hand with `ducktable calibrate --corners`"
        )
    table_pts = np.vstack([layout.marker_corners(i) for i in usable])
    frame_pts = np.vstack([found[i] for i in usable])
    homography, _ = cv2.findHomography(table_pts, frame_pts, 0)
    if homography is None:
        raise CalibrationError("the markers' positions do not fit a flat table; lay them flat and try again")
    fitted = layout.with_homography(homography)
    error = float(np.linalg.norm(fitted.to_frame(table_pts) - frame_pts, axis=1).mean())
    return Calibration(fitted, error, tuple(usable))


def calibrate_from_corners(layout: TableLayout, corners: Sequence[Sequence[float]]) -> Calibration:
    """Manual fallback: the table area's corners in the frame, clockwise from top left."""
    pts = np.asarray(corners, np.float64)
    if pts.shape != (4, 2) or not np.isfinite(pts).all():
        raise CalibrationError("give exactly four corners as x,y pairs: top left, top right, "
                               "bottom right, bottom left of the table area")
    w, h = layout.size
    table_pts = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    area = cv2.contourArea(pts.astype(np.float32))
    if abs(area) < 1000 or not cv2.isContourConvex(pts.astype(np.float32)):
        raise CalibrationError("the four corners must outline the table area (a convex shape, "
                               "listed clockwise from the top left), not a line or a crossed shape")
    homography = cv2.getPerspectiveTransform(table_pts.astype(np.float32), pts.astype(np.float32))
    return Calibration(layout.with_homography(homography), 0.0, ())


# ---- noticing a moved camera --------------------------------------------------------------------

@dataclass(frozen=True)
class Drift:
    """Whether the camera still sees the table as calibrated, by how much it moved, and why."""

    moved: bool
    shift_px: float
    how: str  # "markers", "picture" or "unknown"
    message: str


class DriftWatch:
    """Compares new frames with the calibration: marker corners first, else the whole picture.

    Markers can be covered by cards or hands, so when fewer than two are visible the frame's
    overall shift against the calibration picture (phase correlation of blurred grey images,
    which cards coming and going barely move) decides instead.
    """

    def __init__(self, layout: TableLayout, reference: np.ndarray, *, tolerance_px: float = 6.0) -> None:
        self.layout = layout
        self.tolerance_px = tolerance_px
        self._ref = self._grey(reference)

    @staticmethod
    def _grey(frame: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        small = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small.astype(np.float32), (0, 0), 2.0)

    def check(self, frame: np.ndarray) -> Drift:
        found = find_markers(frame)
        usable = [i for i in found if i in self.layout.markers]
        if len(usable) >= 2:
            errors = [np.linalg.norm(self.layout.to_frame(self.layout.marker_corners(i)) - found[i], axis=1).mean()
                      for i in usable]
            shift = float(np.median(errors))
            how = "markers"
        else:
            cur = self._grey(frame)
            window = cv2.createHanningWindow(cur.shape[::-1], cv2.CV_32F)
            (dx, dy), response = cv2.phaseCorrelate(self._ref, cur, window)
            if response < 0.05:
                return Drift(True, float("nan"), "unknown",
                             "the camera no longer sees the calibrated table; run `ducktable calibrate` again")
            shift = float(np.hypot(dx, dy) * 2)
            how = "picture"
        if shift > self.tolerance_px:
            return Drift(True, shift, how,
                         f"the camera seems to have moved by about {shift:.0f} pixels since calibration; "
                         "put the markers back in view and run `ducktable calibrate` again")
        return Drift(False, shift, how, "the camera is where it was calibrated")

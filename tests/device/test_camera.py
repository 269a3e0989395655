"""Frame sources: one interface over the Pi camera, OpenCV captures, folders and the synthetic
table; lost cameras are retried with bounded backoff, unreadable files are skipped by name."""

from __future__ import annotations

import logging
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from ducktable.device.camera import (
    CameraError,
    FolderSource,
    Frame,
    FrameSource,
    PiCameraSource,
    RetryPolicy,
    SyntheticSource,
    VideoCaptureSource,
    open_source,
)
from ducktable.device.newest_frame import CameraStopped, NewestFrame

# ---- a stand-in for picamera2, with its API -----------------------------------------------------


class FakePicamera2:
    """Records calls like picamera2.Picamera2 would receive them; can be told to fail."""

    instances: list[FakePicamera2] = []
    fail_captures = 0  # how many capture_array calls raise, across instances
    fail_opens = 0  # how many constructions after the first raise

    def __init__(self, camera_num: int = 0) -> None:
        if FakePicamera2.instances and FakePicamera2.fail_opens > 0:
            FakePicamera2.fail_opens -= 1
            raise RuntimeError("Camera __init__ sequence did not complete")
        self.camera_num = camera_num
        self.calls: list[str] = []
        self.config: dict[str, Any] = {}
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any] | None = None,
                                   lores: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls.append("create_video_configuration")
        return {"main": dict(main or {}), "lores": dict(lores or {})}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append("configure")
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, name: str = "main") -> np.ndarray:
        self.calls.append(f"capture_array:{name}")
        if FakePicamera2.fail_captures > 0:
            FakePicamera2.fail_captures -= 1
            raise RuntimeError("Device timeout detected")
        w, h = self.config[name]["size"]
        if name == "lores":  # YUV420: luma then two quarter-size chroma planes
            yuv = np.full((h * 3 // 2, w), 128, np.uint8)
            yuv[:h] = 200
            return yuv
        return np.full((h, w, 3), (10, 20, 30), np.uint8)  # "RGB888" is BGR in memory

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.instances = []
    FakePicamera2.fail_captures = 0
    FakePicamera2.fail_opens = 0
    return FakePicamera2


def no_sleep(log: list[float]) -> Any:
    return log.append


def test_picamera_main_stream_gives_the_reader_more_pixels_than_it_searches(fake_picamera2: Any) -> None:
    """1920 x 1080 by default: the table reader searches a 1280 x 720 view of it and cuts the
    cards from the full picture (vision/reader.py's reading_view)."""
    with PiCameraSource() as cam:
        frame = cam.read()
    assert fake_picamera2.instances[0].config["main"] == {"size": (1920, 1080), "format": "RGB888"}
    assert frame is not None and frame.image.shape == (1080, 1920, 3)


def test_picamera_sizes_from_a_settings_file_are_lists_and_bad_ones_say_what_to_give(
        fake_picamera2: Any) -> None:
    with PiCameraSource(size=[64, 48], lores_size=[32, 24]) as cam:  # type: ignore[arg-type]
        cam.read()
    assert fake_picamera2.instances[0].config["main"]["size"] == (64, 48)
    with pytest.raises(CameraError, match="two whole numbers"):
        PiCameraSource(size="big")  # type: ignore[arg-type]
    with pytest.raises(CameraError, match="positive"):
        PiCameraSource(size=(0, 48))


def test_picamera_configures_main_and_lores_and_returns_bgr(fake_picamera2: Any) -> None:
    with PiCameraSource(size=(64, 48), lores_size=(32, 24)) as cam:
        frame = cam.read()
    assert isinstance(frame, Frame) and frame.index == 0
    assert frame.image.shape == (48, 64, 3) and frame.image.dtype == np.uint8
    assert tuple(frame.image[0, 0]) == (10, 20, 30)
    camera = fake_picamera2.instances[0]
    assert camera.config["main"] == {"size": (64, 48), "format": "RGB888"}
    assert camera.config["lores"] == {"size": (32, 24), "format": "YUV420"}
    assert camera.calls[:3] == ["create_video_configuration", "configure", "start"]
    assert camera.calls[-2:] == ["stop", "close"]  # released by the context manager


def test_picamera_lores_stream_is_converted_from_yuv420(fake_picamera2: Any) -> None:
    with PiCameraSource(size=(64, 48), lores_size=(32, 24), stream="lores") as cam:
        frame = cam.read()
    assert frame is not None and frame.image.shape == (24, 32, 3)
    b, g, r = (int(v) for v in frame.image[5, 5])
    assert max(b, g, r) - min(b, g, r) <= 2  # neutral chroma gives grey
    assert abs(g - 214) <= 3  # Y=200 in video range is 1.164 * (200 - 16)
    assert "capture_array:lores" in fake_picamera2.instances[0].calls


def test_picamera_lost_camera_is_reopened_after_a_pause(fake_picamera2: Any,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    pauses: list[float] = []
    cam = PiCameraSource(size=(16, 16), lores_size=(8, 8), sleep=pauses.append,
                         retry=RetryPolicy(attempts=4, first_delay_s=0.5, factor=2.0))
    fake_picamera2.fail_captures = 2  # the capture fails, then the first reopened one too
    with caplog.at_level(logging.WARNING):
        frame = cam.read()
    assert frame is not None and frame.index == 0
    assert pauses == [0.5, 1.0]  # backoff grows
    assert len(fake_picamera2.instances) == 3  # opened, and reopened twice
    assert fake_picamera2.instances[0].calls[-2:] == ["stop", "close"]
    assert "stopped delivering frames" in caplog.text
    cam.close()


def test_a_lost_camera_says_so_while_it_is_reopened_and_when_it_is_back(fake_picamera2: Any
                                                                        ) -> None:
    told: list[str | None] = []
    cam = PiCameraSource(size=(16, 16), sleep=lambda s: None)
    cam.on_trouble = told.append  # the run loop points this at the scoreboard
    fake_picamera2.fail_captures = 2
    assert cam.read() is not None
    assert len(told) == 2 and told[1] is None
    assert told[0] is not None and "stopped delivering frames" in told[0] \
        and "trying to reopen it" in told[0]
    cam.close()


def test_picamera_gives_up_after_bounded_tries_without_raising(fake_picamera2: Any) -> None:
    pauses: list[float] = []
    cam = PiCameraSource(size=(16, 16), sleep=pauses.append,
                         retry=RetryPolicy(attempts=3, first_delay_s=1.0, factor=3.0,
                                           max_delay_s=5.0))
    fake_picamera2.fail_captures = 100
    assert cam.read() is None
    assert pauses == [1.0, 3.0, 5.0]  # bounded number of tries and bounded pause
    assert cam.last_error is not None and "gave up after 3 tries" in cam.last_error
    assert cam.closed and cam.read() is None


def test_picamera_missing_module_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCameraSource()


def test_picamera_that_cannot_start_is_a_camera_error(fake_picamera2: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_start(self: FakePicamera2) -> None:
        raise RuntimeError("Failed to start camera")

    monkeypatch.setattr(FakePicamera2, "start", broken_start)
    with pytest.raises(CameraError, match="cannot open the Pi camera 0"):
        PiCameraSource()
    assert fake_picamera2.instances[0].calls[-1] == "close"  # not left claimed


# ---- OpenCV VideoCapture ----------------------------------------------------------------------


class FakeCapture:
    """cv2.VideoCapture's small API as a camera: a picture every ``interval_s``, numbered in its
    pixels, until ``fail_after`` pictures (``None``: never fails)."""

    opened: list[FakeCapture] = []

    def __init__(self, target: int | str, fail_after: int | None = None, *,
                 is_open: bool = True, interval_s: float = 0.002) -> None:
        self.target, self.fail_after, self.is_open = target, fail_after, is_open
        self.interval_s = interval_s
        self.grabbed = self.retrieved = 0
        self.released = False
        self.props: dict[int, float] = {}
        FakeCapture.opened.append(self)

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.is_open

    def grab(self) -> bool:
        time.sleep(self.interval_s)
        if self.fail_after is not None and self.grabbed >= self.fail_after:
            return False
        self.grabbed += 1
        return True

    def retrieve(self) -> tuple[bool, np.ndarray | None]:
        self.retrieved += 1
        return True, np.full((4, 6, 3), self.grabbed % 256, np.uint8)

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        return 40.0 * (len(FakeCapture.opened))

    def release(self) -> None:
        self.released = True


def test_webcam_dropout_is_retried_on_a_fresh_capture() -> None:
    FakeCapture.opened = []
    fail_after = [3, None]  # the first device dies after three pictures; the reopened one works
    pauses: list[float] = []
    cam = VideoCaptureSource(0, sleep=pauses.append, size=(640, 480),
                             capture_factory=lambda t: FakeCapture(t, fail_after.pop(0)))
    time.sleep(0.05)  # the first device has died by now
    first, second = cam.read(), cam.read()
    assert first is not None and second is not None and second.index == 1
    assert pauses == [0.5] and FakeCapture.opened[0].released
    assert FakeCapture.opened[0].props[cv2.CAP_PROP_FRAME_WIDTH] == 640
    cam.close()
    assert FakeCapture.opened[1].released


def test_a_slow_reader_gets_the_newest_webcam_picture_not_the_oldest_queued() -> None:
    """A camera filming far faster than the table is read: every read is of a picture taken
    after the read began, none is given twice, and only the pictures given are decoded."""
    FakeCapture.opened = []
    cam = VideoCaptureSource(0, capture_factory=lambda t: FakeCapture(t))
    numbers = []
    for _ in range(4):
        frame = cam.read()
        assert frame is not None
        numbers.append(int(frame.image[0, 0, 0]))
        time.sleep(0.1)  # reading the table: about 50 pictures go by
    device = FakeCapture.opened[0]
    cam.close()
    assert all(b - a >= 5 for a, b in zip(numbers, numbers[1:], strict=False)), numbers
    assert device.retrieved == 4 and device.grabbed >= 40
    assert device.released


def test_a_webcam_that_goes_silent_is_reported_not_waited_on_for_ever() -> None:
    stuck = threading.Event()

    class SilentCapture(FakeCapture):
        def grab(self) -> bool:
            stuck.wait()
            return False

    newest = NewestFrame(SilentCapture(0), wait_s=0.05)
    with pytest.raises(CameraStopped, match="no frame for 0.05 s"):
        newest.take()
    assert newest.stop() is False  # its grab has not returned
    stuck.set()
    assert newest.stop() is True
    with pytest.raises(CameraStopped, match="no frame"):
        newest.take()  # the thread has ended: told at once

    stuck.clear()
    FakeCapture.opened = []
    cam = VideoCaptureSource("rtsp://table.local/stream", frame_timeout_s=0.05,
                             retry=RetryPolicy(attempts=1), sleep=lambda s: None,
                             capture_factory=SilentCapture)
    assert cam.read() is None and cam.last_error is not None
    assert "no frame for 0.05 s" in cam.last_error
    assert not any(device.released for device in FakeCapture.opened)  # not under a grab
    stuck.set()


def test_unopenable_camera_index_is_a_clear_error() -> None:
    with pytest.raises(CameraError, match="cannot open camera 3"):
        VideoCaptureSource(3, capture_factory=lambda t: FakeCapture(t, is_open=False))


def test_video_file_ends_instead_of_retrying(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (32, 24))
    for value in (0, 80, 160):
        writer.write(np.full((24, 32, 3), value, np.uint8))
    writer.release()
    pauses: list[float] = []
    with open_source(str(path), sleep=pauses.append) as source:
        frames = list(source)
    assert len(frames) == 3 and [f.index for f in frames] == [0, 1, 2]
    assert frames[2].image.mean() > frames[0].image.mean()
    assert pauses == []


# ---- folders of images --------------------------------------------------------------------------


def test_folder_skips_a_jpeg_cut_short_that_opencv_would_fill_with_grey(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    ok, whole = cv2.imencode(".jpg", np.random.default_rng(0).integers(0, 255, (64, 64, 3),
                                                                       np.uint8))
    assert ok
    (tmp_path / "a.jpg").write_bytes(whole.tobytes())
    (tmp_path / "b.jpg").write_bytes(whole.tobytes()[: len(whole) // 2])  # a copy cut short
    assert cv2.imread(str(tmp_path / "b.jpg")) is not None  # OpenCV alone reads it, grey-filled
    with caplog.at_level(logging.WARNING), open_source(str(tmp_path)) as source:
        frames = list(source)
    assert len(frames) == 1 and source.skipped == [tmp_path / "b.jpg"]  # type: ignore[attr-defined]
    assert "b.jpg" in caplog.text


def test_folder_skips_a_corrupt_image_and_names_it(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "b.jpg").write_bytes(b"\xff\xd8 this is not a JPEG")
    cv2.imwrite(str(tmp_path / "c.png"), np.full((8, 8, 3), 255, np.uint8))
    (tmp_path / "notes.txt").write_text("ignored")
    with caplog.at_level(logging.WARNING), FolderSource(tmp_path, interval_ms=50) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 1]
    assert [f.timestamp_ms for f in frames] == [0.0, 50.0]
    assert frames[1].image.mean() == 255
    assert source.skipped == [tmp_path / "b.jpg"]
    assert "b.jpg" in caplog.text


def test_empty_or_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no images in folder"):
        FolderSource(tmp_path)
    with pytest.raises(CameraError, match="no such folder or file"):
        FolderSource(tmp_path / "missing")


# ---- the synthetic table and choosing a source ---------------------------------------------------


def test_synthetic_source_renders_seeded_scenes_with_truth() -> None:
    with open_source("synthetic:7", frames=2, size=(320, 180)) as source:
        assert isinstance(source, SyntheticSource)
        first = source.read()
        truth = source.last_scene
        second = source.read()
        assert source.read() is None
    assert first is not None and second is not None
    assert first.image.shape == (180, 320, 3) and second.timestamp_ms == 100.0
    assert truth is not None and truth.seed == 7
    assert not np.array_equal(first.image, second.image)


def test_synthetic_source_can_show_frames_drawn_elsewhere() -> None:
    source = SyntheticSource(render=lambda i: np.full((2, 2, 3), i, np.uint8), frames=3)
    assert [int(f.image[0, 0, 0]) for f in source] == [0, 1, 2]


def test_every_source_fits_the_frame_source_protocol(tmp_path: Path, fake_picamera2: Any) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((8, 8, 3), np.uint8))
    sources = [open_source("picamera"), open_source("synthetic"), open_source(str(tmp_path)),
               open_source(str(tmp_path / "a.png"))]
    for source in sources:
        assert isinstance(source, FrameSource)
        source.close()
        source.close()  # closing twice is fine
        assert source.read() is None


@pytest.mark.parametrize("spec, message", [
    ("", "no camera given"),
    ("synthetic:abc", "bad synthetic seed"),
    ("/no/such/thing", "no camera, file or folder"),
])
def test_bad_source_specs_explain_what_to_give(spec: str, message: str) -> None:
    with pytest.raises(CameraError, match=message):
        open_source(spec)


def test_camera_options_a_source_does_not_take_or_of_the_wrong_kind_say_which_it_takes(
        tmp_path: Path, fake_picamera2: Any) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(CameraError, match=r"option 'width' does not apply .*its options: "
                                          r"interval_ms, loop"):
        open_source(str(tmp_path), width=1280)
    with pytest.raises(CameraError, match="option 'interval_ms' does not apply .* size"):
        open_source("picamera", interval_ms=66)  # a folder's option, given to the Pi camera
    with pytest.raises(CameraError, match="interval_ms must be a number of milliseconds"):
        open_source(str(tmp_path), interval_ms="fast")
    with pytest.raises(CameraError, match="size must be two whole numbers"):
        open_source("picamera", size=[1280])

    class StrictCapture(FakeCapture):
        def set(self, prop: int, value: float) -> bool:
            if not isinstance(value, int | float):  # as cv2.VideoCapture.set
                raise TypeError("Argument 'value' can not be treated as a double")
            return super().set(prop, value)

    with pytest.raises(CameraError, match=r"do not suit '0' .*its options: size, "
                                          r"frame_timeout_s; fix the settings"):
        open_source("0", size="1280x720", capture_factory=StrictCapture)
    assert open_source(str(tmp_path), interval_ms=66, loop=True).interval_ms == 66.0


def test_index_and_url_specs_go_to_opencv(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int | str] = []

    def factory(target: int | str) -> FakeCapture:
        seen.append(target)
        return FakeCapture(target)

    monkeypatch.setattr("ducktable.device.camera.cv2.VideoCapture", factory)
    for spec in ("2", "rtsp://camera.local/stream"):
        source = open_source(spec, capture_factory=factory)
        assert isinstance(source, VideoCaptureSource)
        source.close()
    assert seen == [2, "rtsp://camera.local/stream"]

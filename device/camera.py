"""Where frames come from: one small ``FrameSource`` interface and the sources behind it.

Why this module exists: the run loop, ``identify`` and the benchmarks want frames and nothing
else, whether they come from the Pi camera, a USB webcam or stream, a video file, a folder of
photos or the synthetic table. Every source returns :class:`Frame` objects from ``read()``
(``None`` when there are no more), closes idempotently and works as a context manager.

A live camera that stops answering is reported (logged, and to ``on_trouble``, which the run
loop points at the scoreboard) and reopened with a bounded, growing pause between tries; only
when every try has failed does ``read()`` give up and return ``None``, with the reason kept in
``last_error`` (the run loop then opens the camera again, later). A folder's unreadable image
(or a JPEG cut short) is skipped with a warning naming the file. picamera2 is imported only
when a Pi camera is opened (on Raspberry Pi OS it comes from apt, not from pip).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np
from ducktable.device.newest_frame import NewestFrame

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
SPEC_HELP = (
    "give 'picamera', 'synthetic' or 'synthetic:SEED', a camera index such as 0, "
    "a stream URL, a video file or a folder of images"
)


class CameraError(OSError):
    """A frame source cannot be opened or has failed for good; the message says what to do."""


@dataclass(frozen=True)
class Frame:
    """One picture: BGR uint8 pixels, when it was taken (ms) and its number in the stream."""

    image: np.ndarray
    timestamp_ms: float
    index: int


@runtime_checkable
class FrameSource(Protocol):
    """What the run loop needs from any camera: the next frame, or ``None`` at the end."""

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """How a lost live camera is retried: ``attempts`` reopenings, pauses growing ``factor``-fold."""

    attempts: int = 5
    first_delay_s: float = 0.5
    factor: float = 2.0
    max_delay_s: float = 8.0

    def delays(self) -> Iterator[float]:
        delay = self.first_delay_s
        for _ in range(self.attempts):
            yield min(delay, self.max_delay_s)
            delay *= self.factor


class BaseSource:
    """Shared plumbing: frame numbering, idempotent close, context manager, iteration."""

    def __init__(self) -> None:
        self._next_index = 0
        self._closed = False
        self.last_error: str | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> Frame | None:
        if self._closed:
            return None
        grabbed = self._grab()
        if grabbed is None:
            return None
        image, timestamp_ms = grabbed
        frame = Frame(image=image, timestamp_ms=timestamp_ms, index=self._next_index)
        self._next_index += 1
        return frame

    def _grab(self) -> tuple[np.ndarray, float] | None:
        """The next picture and its timestamp, or ``None`` at the end. Subclasses implement."""
        raise NotImplementedError

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Free the device or file handle (called once)."""

    def __enter__(self) -> BaseSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame


class LiveSource(BaseSource):
    """A camera that can drop out: grabs go through :meth:`_grab_with_retry`."""

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._t0 = clock()
        self.on_trouble: Callable[[str | None], None] = lambda problem: None
        """Told what is wrong while the camera is being reopened, and None once it is back."""

    def _now_ms(self) -> float:
        return (self._clock() - self._t0) * 1000.0

    def _grab(self) -> tuple[np.ndarray, float] | None:
        return self._grab_with_retry()

    def _grab_with_retry(self) -> tuple[np.ndarray, float] | None:
        try:
            return self._capture(), self._now_ms()
        except Exception as exc:  # noqa: BLE001 - any driver failure means "camera lost"
            problem = f"{self.describe()} stopped delivering frames ({exc})"
        log.warning("%s; trying to reopen it", problem)
        self.on_trouble(f"{problem}; trying to reopen it")
        for attempt, delay in enumerate(self.retry.delays(), start=1):
            self._sleep(delay)
            try:
                self._reopen()
                image = self._capture()
            except Exception as exc:  # noqa: BLE001
                log.warning(
                    "%s: reopening failed (try %d of %d): %s",
                    self.describe(), attempt, self.retry.attempts, exc,
                )
                continue
            log.warning("%s is back after %d tr%s", self.describe(), attempt,
                        "y" if attempt == 1 else "ies")
            self.on_trouble(None)
            return image, self._now_ms()
        self.last_error = (
            f"{problem}; gave up after {self.retry.attempts} tries to reopen it - "
            "check the cable or connection and restart"
        )
        log.error("%s", self.last_error)
        self.close()
        return None

    def describe(self) -> str:
        raise NotImplementedError

    def _capture(self) -> np.ndarray:
        """One BGR frame from the device; raises when the device fails."""
        raise NotImplementedError

    def _reopen(self) -> None:
        """Release and open the device again; raises when it cannot."""
        raise NotImplementedError


# ---- Raspberry Pi camera (picamera2) -------------------------------------------------------


def _import_picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        raise CameraError(
            "picamera2 is not installed: on Raspberry Pi OS run 'sudo apt install "
            "python3-picamera2' and make the virtual environment with --system-site-packages"
        ) from None


def _to_bgr(array: np.ndarray) -> np.ndarray:
    """picamera2 arrays as OpenCV wants them: YUV420 planes, XBGR or BGR in, BGR out."""
    if array.ndim == 2:  # YUV420 (I420): height * 3 / 2 rows of luma then chroma
        return cv2.cvtColor(array, cv2.COLOR_YUV2BGR_I420)
    if array.shape[2] == 4:  # XBGR8888 / XRGB8888: drop the padding byte
        return np.ascontiguousarray(array[:, :, :3])
    return np.ascontiguousarray(array)


def _pair(value: Any, name: str) -> tuple[int, int]:
    """A width x height setting as a tuple of two positive whole numbers, or CameraError."""
    try:
        width, height = (int(v) for v in value)
    except (TypeError, ValueError):
        raise CameraError(f"camera {name} must be two whole numbers (width, height), not {value!r}") from None
    if width <= 0 or height <= 0:
        raise CameraError(f"camera {name} must be positive, not {value!r}")
    return width, height


class PiCameraSource(LiveSource):
    """The Pi camera through picamera2: a full-size ``main`` stream and a small ``lores`` one.

    ``stream`` picks which one ``read()`` returns ("main" for recognition, "lores" for cheap
    motion checks). picamera2's "RGB888" format is BGR in memory, as OpenCV expects. The main
    stream is 1920 x 1080 by default: the table reader works at 1280 x 720 and cuts the cards
    from the full picture, where small indices read better (see
    ``ducktable.vision.reader.reading_view``).
    """

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1920, 1080),
        lores_size: tuple[int, int] = (320, 180),
        stream: str = "main",
        camera_num: int = 0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if stream not in ("main", "lores"):
            raise CameraError(f"unknown picamera2 stream {stream!r}: use 'main' or 'lores'")
        super().__init__(retry=retry, sleep=sleep, clock=clock)
        self._module = _import_picamera2()
        # (a settings file gives lists: picamera2 wants tuples)
        self.size, self.lores_size = _pair(size, "size"), _pair(lores_size, "lores_size")
        self.stream = stream
        self.camera_num = camera_num
        self._camera: Any = None
        try:
            self._open()
        except Exception as exc:  # noqa: BLE001 - libcamera reports many kinds of failure
            raise CameraError(
                f"cannot open the Pi camera {camera_num}: {exc} - is it connected and enabled, "
                "and not in use by another program?"
            ) from None

    def describe(self) -> str:
        return f"the Pi camera {self.camera_num}"

    def _open(self) -> None:
        camera = self._module.Picamera2(self.camera_num)
        try:
            config = camera.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": self.lores_size, "format": "YUV420"},
            )
            camera.configure(config)
            camera.start()
        except BaseException:
            camera.close()  # do not leave the camera claimed by a half-opened session
            raise
        self._camera = camera

    def _capture(self) -> np.ndarray:
        if self._camera is None:
            raise CameraError("camera is not open")
        return _to_bgr(self._camera.capture_array(self.stream))

    def _reopen(self) -> None:
        self._shutdown()
        self._open()

    def _shutdown(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        for step in (camera.stop, camera.close):
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - a dead camera may fail to stop; go on
                log.debug("ignoring %s while releasing the Pi camera: %s", step.__name__, exc)

    def _release(self) -> None:
        self._shutdown()


# ---- OpenCV VideoCapture: webcams, streams, video files -------------------------------------


class VideoCaptureSource(LiveSource):
    """A webcam by index, a network stream by URL, or a video file, through cv2.VideoCapture.

    A file simply ends; a webcam or stream that fails, or gives no picture for
    ``frame_timeout_s``, is retried like any live camera. A
    webcam or stream is drained on a thread of its own, so ``read()`` gives the picture that
    arrives next, not the oldest in the driver's queue (see :mod:`ducktable.device.newest_frame`);
    a file gives every picture in order.
    """

    def __init__(
        self,
        target: int | str,
        *,
        size: tuple[int, int] | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        capture_factory: Callable[[int | str], Any] | None = None,
        frame_timeout_s: float = 5.0,
    ) -> None:
        super().__init__(retry=retry, sleep=sleep, clock=clock)
        self.target = target
        self.frame_timeout_s = frame_timeout_s
        self.size = size
        self.is_file = isinstance(target, str) and "://" not in target
        self._factory = capture_factory or cv2.VideoCapture
        self._capture_device: Any = None
        self._newest: NewestFrame | None = None
        self._open()

    def describe(self) -> str:
        if isinstance(self.target, int):
            return f"camera {self.target}"
        return f"video file {self.target}" if self.is_file else f"stream {self.target}"

    def _open(self) -> None:
        device = self._factory(self.target)
        if not device.isOpened():
            device.release()
            hint = (
                "is it a video OpenCV can decode?" if self.is_file
                else "is it connected, and not in use by another program?"
            )
            raise CameraError(f"cannot open {self.describe()}: {hint}")
        if self.size is not None:
            device.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            device.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture_device = device
        if not self.is_file:
            self._newest = NewestFrame(device, wait_s=self.frame_timeout_s)

    def _grab(self) -> tuple[np.ndarray, float] | None:
        if not self.is_file:
            return self._grab_with_retry()
        ok, image = self._capture_device.read()
        if not ok or image is None:
            return None  # end of the video
        return _to_bgr(image), float(self._capture_device.get(cv2.CAP_PROP_POS_MSEC))

    def _capture(self) -> np.ndarray:
        if self._newest is None:
            raise CameraError("camera is not open")
        return _to_bgr(self._newest.take())

    def _reopen(self) -> None:
        self._release()
        self._open()

    def _release(self) -> None:
        newest, self._newest = self._newest, None
        device, self._capture_device = self._capture_device, None
        if newest is not None and not newest.stop():  # only its thread may touch the device
            log.warning("%s: a grab never returned; leaving its capture open", self.describe())
            return
        if device is not None:
            device.release()


# ---- A folder of images ---------------------------------------------------------------------


class FolderSource(BaseSource):
    """Every image in a folder (or one image file), in name order, ``interval_ms`` apart.

    Files OpenCV cannot decode are skipped with a warning naming them; ``skipped`` lists them.
    """

    def __init__(self, path: str | os.PathLike[str], *, interval_ms: float = 100.0,
                 loop: bool = False) -> None:
        super().__init__()
        root = Path(path)
        if root.is_dir():
            files = sorted(p for p in root.iterdir()
                           if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
            if not files:
                raise CameraError(
                    f"no images in folder {root} (looked for {', '.join(IMAGE_SUFFIXES)})"
                )
        elif root.is_file():
            files = [root]
        else:
            raise CameraError(f"no such folder or file: {root}")
        if isinstance(interval_ms, bool) or not isinstance(interval_ms, int | float) \
                or not interval_ms > 0:
            raise CameraError(f"interval_ms must be a number of milliseconds above 0, "
                              f"got {interval_ms!r}")
        if not isinstance(loop, bool):
            raise CameraError(f"loop must be true or false, got {loop!r}")
        self.files: list[Path] = files
        self.interval_ms = float(interval_ms)
        self.loop = loop
        self.skipped: list[Path] = []
        self._position = 0

    def _grab(self) -> tuple[np.ndarray, float] | None:
        while True:
            if self._position >= len(self.files):
                if not self.loop or len(self.skipped) >= len(self.files):
                    return None
                self._position = 0
            path = self.files[self._position]
            self._position += 1
            image = _read_image(path)
            if image is not None:
                return image, self._next_index * self.interval_ms
            if path not in self.skipped:
                self.skipped.append(path)
                log.warning("skipping %s: not an image OpenCV can read (corrupt or truncated?)",
                            path)


def _read_image(path: Path) -> np.ndarray | None:
    """The picture in ``path``, or None when OpenCV cannot read it or it is a JPEG cut short
    (libjpeg then fills the missing part with grey and only prints a warning)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(2)
            handle.seek(max(0, path.stat().st_size - 64))
            tail = handle.read()
    except OSError:
        return None
    if head == b"\xff\xd8" and not tail.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
        return None  # no end-of-image marker: the file was cut short
    return cv2.imread(str(path), cv2.IMREAD_COLOR)


# ---- The synthetic table ----------------------------------------------------------------------


class SyntheticSource(BaseSource):
    """Rendered table scenes (sim.scene), for demos and tests without a camera.

    By default frame *i* is ``render_scene(seed + i)``; pass ``render`` (index -> BGR image) to
    show something else, e.g. a simulated game drawn with ``compose_table``. ``frames`` limits
    the length (``None``: endless). ``last_scene`` keeps the ground truth of the default scenes.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        frames: int | None = None,
        interval_ms: float = 100.0,
        game: str | None = None,
        size: tuple[int, int] = (1280, 720),
        render: Callable[[int], np.ndarray] | None = None,
    ) -> None:
        super().__init__()
        self.seed, self.frames, self.interval_ms = seed, frames, interval_ms
        self.game, self.size = game, size
        self._render = render
        self.last_scene: Any = None

    def _grab(self) -> tuple[np.ndarray, float] | None:
        index = self._next_index
        if self.frames is not None and index >= self.frames:
            return None
        if self._render is not None:
            image = self._render(index)
        else:
            from ducktable.sim.scene import render_scene

            self.last_scene = render_scene(self.seed + index, game=self.game, size=self.size)
            image = self.last_scene.image
        return image, index * self.interval_ms


# ---- Choosing a source from a string ----------------------------------------------------------


_NOT_OPTIONS = frozenset({"retry", "sleep", "clock", "capture_factory", "render"})
"""Constructor arguments for tests and code, not for a settings file's ``[camera] options``."""


def source_options(kind: type[BaseSource]) -> list[str]:
    """The ``[camera] options`` a kind of source takes."""
    parameters = inspect.signature(kind.__init__).parameters.values()
    return [p.name for p in parameters
            if p.kind is p.KEYWORD_ONLY and p.name not in _NOT_OPTIONS]


def open_source(spec: str, **options: Any) -> BaseSource:
    """Open the source a user named: "picamera", "synthetic[:SEED]", 0, a URL, a video or folder.

    ``options`` go to the chosen source's constructor (e.g. ``size=(1280, 720)``); one it does
    not take, or of the wrong kind, is a :class:`CameraError` naming the options it takes.
    """
    kind, args = _chosen(spec)
    allowed = source_options(kind)
    unknown = sorted(set(options) - set(allowed) - _NOT_OPTIONS)
    takes = ", ".join(allowed) or "none"
    if unknown:
        raise CameraError(f"the [camera] option {unknown[0]!r} does not apply to {spec!r} "
                          f"(its options: {takes}); fix the settings")
    try:
        return kind(*args, **options)
    except (TypeError, ValueError) as exc:
        raise CameraError(f"the [camera] options {options} do not suit {spec!r} ({exc}); "
                          f"its options: {takes}; fix the settings") from None


def _chosen(spec: str) -> tuple[type[BaseSource], tuple[Any, ...]]:
    """The kind of source ``spec`` names and the arguments that say which one."""
    text = spec.strip()
    if not text:
        raise CameraError(f"no camera given: {SPEC_HELP}")
    lowered = text.lower()
    if lowered in ("picamera", "picamera2", "pi"):
        return PiCameraSource, ()
    if lowered == "synthetic" or lowered.startswith("synthetic:"):
        _, _, seed_text = text.partition(":")
        try:
            seed = int(seed_text) if seed_text else 0
        except ValueError:
            raise CameraError(
                f"bad synthetic seed {seed_text!r}: write synthetic:SEED with a whole number"
            ) from None
        return SyntheticSource, (seed,)
    if text.isascii() and text.isdigit():
        return VideoCaptureSource, (int(text),)
    if "://" in text:
        return VideoCaptureSource, (text,)
    path = Path(text).expanduser()
    if path.is_dir():
        return FolderSource, (path,)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return FolderSource, (path,)
        return VideoCaptureSource, (str(path),)
    raise CameraError(f"no camera, file or folder called {text!r}: {SPEC_HELP}")

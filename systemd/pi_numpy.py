"""Pin the Pi's numpy to the one apt installed, so pip never installs another over it.

Why this file exists: on Raspberry Pi OS, picamera2's JPEG helper (simplejpeg) comes from apt,
compiled against apt's numpy. The virtual environment sees apt's packages
(``--system-site-packages``); if pip installed a different numpy into it, that numpy would
shadow apt's and simplejpeg would fail on import ("numpy.dtype size changed"). OpenCV 5's
wheels need numpy 2 or newer, so only a system whose apt numpy is 2.x can run both:
Raspberry Pi OS Trixie (Debian 13, numpy 2.2), not Bookworm (Debian 12, numpy 1.24).

Run with the venv's Python before ``pip install`` (``make pi`` does): it prints a pip
constraints line ``numpy==<apt's version>``, or exits 1 with one line saying what to do.
Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import sys

OPENCV_NUMPY_MAJOR = 2
"""OpenCV 5's wheels require numpy>=2 (their metadata: ``numpy>=2; python_version >= "3.9"``)."""


def constraint(version: str) -> str:
    """The constraints line for the apt numpy ``version``, or ValueError saying what to do."""
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) < OPENCV_NUMPY_MAJOR:
        raise ValueError(
            f"apt's numpy is {version}, but OpenCV 5 needs numpy 2 or newer and picamera2 needs "
            "apt's own numpy: install Raspberry Pi OS Trixie (Debian 13, numpy 2.2), not Bookworm")
    return f"numpy=={version}"


def main() -> int:
    try:
        import numpy
    except ImportError:
        print("numpy is not installed from apt: sudo apt install python3-numpy python3-picamera2",
              file=sys.stderr)
        return 1
    if not numpy.__file__.startswith("/usr/"):
        print(f"numpy comes from {numpy.__file__}, not from apt: make the venv afresh with "
              "python3 -m venv --system-site-packages", file=sys.stderr)
        return 1
    try:
        print(constraint(numpy.__version__))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Joining from a phone: the scoreboard's address as a QR code (SVG, drawn locally).

The address is ``PUBLIC_URL`` when the appliance knows its network address (``ducktable.local``
when it is announced by mDNS, with ``LAN_URL``, the IP address, as a second line for phones
that cannot resolve such names), else the one this page was opened with. ``qr_svg`` is
shared with the terminal print of ``ducktable qr``.
"""

from __future__ import annotations

import re
from typing import Any

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app, render_template, request
from markupsafe import Markup

bp = Blueprint("join", __name__)

_SIZE = re.compile(r'\s(width|height)="[^"]*"')


def scoreboard_url() -> str:
    return str(current_app.config.get("PUBLIC_URL") or request.host_url)


def qr_svg(text: str) -> str:
    """An SVG QR code of ``text`` that scales to its container (no fixed millimetre size)."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    svg = image.to_string(encoding="unicode")
    svg = _SIZE.sub("", svg, count=2)
    return svg.replace("<svg ", '<svg role="img" aria-label="QR code of the scoreboard" ', 1)


@bp.get("/join")
def page() -> Any:
    url = scoreboard_url()
    fallback = current_app.config.get("LAN_URL")
    return render_template("join.html", url=url, svg=Markup(qr_svg(url)),
                           fallback=fallback if fallback and fallback != url else None)


@bp.get("/join.svg")
def image() -> Response:
    return Response(qr_svg(scoreboard_url()), mimetype="image/svg+xml")

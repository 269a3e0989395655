"""The enrolment page: teach the table a deck from a few photos of its cards laid in grids.

Why this module exists: enrolling a deck card by card is a chore; laid out in grids
(``ducktable layout-sheet``), a whole deck takes a few photos. On the phone a user picks the
game, sees where each card of layout k goes, takes or uploads the photo, sees every card
outlined with its name and the places to lay again, and stores the deck when the layouts are
in. The work (reading photos, storing the deck) is done by the appliance's ``ENROLMENT``
object (device/enrolment.py: the web pages never load the camera side); without one the page
says how to get it.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import RequestEntityTooLarge

from .auth import pin_required

bp = Blueprint("enrol", __name__, url_prefix="/enrol")

MAX_PHOTO_BYTES = 16 * 1024 * 1024
"""A phone photo is 2-6 MB; the rest of the app takes at most 512 KiB per request."""


@bp.record_once
def _allow_photos(state: Any) -> None:
    """Let the photo upload be larger than the app's limit. This must run before the CSRF
    check, which reads the form (and so the upload), hence first among the app's hooks."""
    app: Flask = state.app
    app.before_request_funcs.setdefault(None, []).insert(0, _photo_limit)
    app.config.setdefault("UPLOAD_LIMITS", {})["/enrol"] = MAX_PHOTO_BYTES  # for web/asgi.py


def _photo_limit() -> None:
    if request.endpoint == "enrol.layout" and request.method == "POST":
        request.max_content_length = MAX_PHOTO_BYTES


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(exc: RequestEntityTooLarge) -> Any:
    message = (f"That photo is larger than {MAX_PHOTO_BYTES // 2**20} MB: send a smaller one "
               "(a phone photo is 2-6 MB).")
    return render_template("error.html", code=413, title="Photo too large", message=message), 413


def _service() -> Any:
    return current_app.config.get("ENROLMENT")


def _problem(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else "that cannot be done"


@bp.get("/")
def index() -> Any:
    service = _service()
    games = service.games() if service is not None else []
    return render_template("enrol.html", available=service is not None, games=games)


@bp.get("/<game>")
def game_page(game: str) -> Any:
    service = _service()
    if service is None:
        return redirect(url_for("enrol.index"))
    try:
        layouts = service.layouts(game)
        done = {(layout["number"], r): service.reading(game, layout["number"], r)
                for layout in layouts for r in layout["grids"]}
    except ValueError as exc:
        flash(_problem(exc), "error")
        return redirect(url_for("enrol.index"))
    return render_template("enrol_game.html", game=game, title=dict(service.games())[game],
                           layouts=layouts, done=done)


@bp.route("/<game>/<int:number>/<int:round_>", methods=["GET", "POST"])
def layout(game: str, number: int, round_: int) -> Any:
    if request.method == "POST":
        return _upload(game, number, round_)
    service = _service()
    if service is None:
        return redirect(url_for("enrol.index"))
    try:
        layouts = service.layouts(game)
        reading = service.reading(game, number, round_)
    except ValueError as exc:
        flash(_problem(exc), "error")
        return redirect(url_for("enrol.index"))
    this = layouts[number - 1]
    return render_template("enrol_layout.html", game=game, title=dict(service.games())[game],
                           layout=this, round_=round_, grid=this["grids"][round_],
                           reading=reading, count=len(layouts))


@pin_required
def _upload(game: str, number: int, round_: int) -> Any:
    service = _service()
    if service is None:
        return redirect(url_for("enrol.index"))
    back = url_for("enrol.layout", game=game, number=number, round_=round_)
    photo = request.files.get("photo")
    if photo is None or not photo.filename:
        flash("No photo was sent: take or choose a photo of the layout first.", "error")
        return redirect(back)
    try:
        result = service.read(game, number, round_, photo.read(MAX_PHOTO_BYTES + 1))
    except ValueError as exc:
        flash(_problem(exc), "error")
        return redirect(back)
    if result["retake"]:
        flash(f"{result['named']} of {result['cards']} cards read; "
              f"{len(result['retake'])} place(s) to lay again (listed below).", "error")
    else:
        flash(f"All {result['cards']} cards read.", "ok")
    return redirect(back)


@bp.get("/<game>/<int:number>/<int:round_>/photo.jpg")
def photo(game: str, number: int, round_: int) -> Response:
    service = _service()
    if service is None:
        abort(404)
    try:
        data = service.annotated(game, number, round_)
    except ValueError:
        abort(404)
    if data is None:
        abort(404)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/<game>/store")
@pin_required
def store(game: str) -> Any:
    service = _service()
    if service is None:
        return redirect(url_for("enrol.index"))
    try:
        result = service.store(game)
    except ValueError as exc:
        flash(_problem(exc), "error")
        return redirect(url_for("enrol.game_page", game=game))
    return render_template("enrol_stored.html", game=game, title=dict(service.games())[game],
                           result=result)

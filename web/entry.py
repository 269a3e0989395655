"""Manual entry and correction: every event the camera could report, entered by tapping.

A submitted form becomes an :class:`Event` (web/forms.py) and goes to the store, which checks
it against the rules: a legal event is recorded, an illegal one is shown with its reason and
rule texts and changes nothing. Any recorded event can be corrected ("that was a blue 5, not
a blue 3") when the whole log still replays, and the last event can be undone; the store
records both in the match's audit trail.

An event typed here that is the very event the camera is asking about (the "camera unsure"
question on the scoreboard: same match, same place in the log, same event) is recorded with the
camera's time, when the cards first showed, as a Confirm would; the phone's clock is later,
and Grey Duck's out-of-turn races (GREY-G1) are judged on these times. The question is then
settled.

In Grey Duck a play entered for someone whose turn it is not yet is recorded after the Quacks
the rules say came first (rules/grey_quacks.py), so Quacks are told only where nothing follows
from who plays next; a big Quack button serves the player to move otherwise.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from ducktable.device.store import MatchInfo, StoreError
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.core import BadEvent, Event, EventSpec, RulesError, State, Verdict
from ducktable.rules.decks import DECKS
from ducktable.rules.grey_quacks import quacks_before, recorded_with_last
from ducktable.rules.registry import game_class
from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from . import forms
from .auth import pin_required
from .camera_status import camera_snapshot, camera_status
from .db import get_store, match_or_404
from .present import cell, humanise
from .words import choice_words, event_words, seats_from_one

bp = Blueprint("entry", __name__)

MAX_REASON = 200


def now_ms() -> int:
    """The phone-entry timestamp (Grey Duck races compare these)."""
    return int(time.time() * 1000)


def same_event(a: Event, b: Event) -> bool:
    """Whether two reports say the same thing, whenever and by whomever they were made (as the
    camera status compares its questions)."""
    return a.content_key() == b.content_key()


class CameraQuestion(NamedTuple):
    """The camera's open question, as the scoreboard shows it: its id and the event it saw."""

    id: int
    event: Event


def camera_question(match_id: int, position: int, event: Event) -> CameraQuestion | None:
    """The camera's open question when it asks about exactly ``event`` as event #``position``
    of match ``match_id``; else None."""
    notice = (camera_snapshot() or {}).get("notice")
    if not isinstance(notice, dict) or (notice.get("match_id"), notice.get("position")) != (match_id, position):
        return None
    try:
        asked = Event.from_json(notice.get("event"))
    except BadEvent:
        return None
    return CameraQuestion(notice["id"], asked) if same_event(asked, event) else None


def settle_question(notice_id: int) -> None:
    """The camera's question was answered by typing its event: hide it."""
    try:
        camera_status().answered(notice_id)
    except Exception:  # the event is recorded; a failing camera status must not turn that into a 500
        current_app.logger.exception("the camera status failed")


def cited(verdict: Verdict, game: str) -> list[tuple[str, str]]:
    """The verdict's rule IDs with the project's own summary of each."""
    texts = rule_texts(game)
    return [(rule, texts.get(rule, "(no summary in the catalogue)")) for rule in verdict.rules]


def picker(info: MatchInfo, state: State) -> list[str]:
    deck = DECKS.get(info.game)
    return forms.picker_cards(state.game, state, deck.labels if deck else ())


def with_cards(form: forms.EventForm, state: State) -> forms.EventForm:
    """``form`` with its own card picker: only the cards its fields could still name."""
    deck = DECKS.get(state.game.name)
    if form.uses_cards:
        form.cards = forms.form_cards(form, state, deck.labels if deck else ())
    return form


def due_events(state: State) -> list[Event]:
    """What the match waits for, as far as the engine can say: the chance event due (a deal,
    a draw: with the seat it is for), else the legal events of the seat to move. Empty when
    the engine cannot say (an observer's Grey Duck lead: the hand is unknown)."""
    try:
        if state.needs_chance():
            return [state.chance_event(random.Random(0))]
        return list(state.legal_events())
    except Exception:  # noqa: BLE001 - an engine that cannot say: the page's order stands
        return []


def ordered_specs(state: State, specs: list[EventSpec], due: list[Event]) -> list[EventSpec]:
    """The ``due`` events' forms first (the first one opens: the engine's own ``due_types``
    when it has them), then chance events when one is due or the seat's own moves otherwise,
    each in the game's order."""
    due_types = list(dict.fromkeys([*state.due_types(), *(e.type for e in due)]))
    rank = {etype: i for i, etype in enumerate(due_types)}
    due_chance = state.needs_chance()
    return sorted(specs, key=lambda s: (rank.get(s.type, len(rank)),
                                        0 if s.chance == due_chance else 1))


def due_forms(state: State, specs: list[EventSpec]) -> list[forms.EventForm]:
    """A form per spec, the due events' first, each prefilled as far as the match says which:
    the seat a chance event is for (Sitting Ducks' draws), the choice it takes (which pile is
    shuffled), an example in each JSON box."""
    due = due_events(state)
    samples = {e.type: e for e in reversed(due)}  # the first of each type
    out = []
    for spec in ordered_specs(state, specs, due):
        sample = samples.get(spec.type)
        form = forms.build_form(spec, state, sample=sample, due=due)
        if sample is not None and sample.seat is not None and not form.seat_value:
            form.seat_value = str(sample.seat)
        with_cards(form, state)
        out.append(form)
    return out


ONE_TAP = {"grey": ("quack",), "bruce": ("continue", "stop")}
"""Moves without details that come often enough to get a big button of their own."""


def one_tap_events(state: State) -> list[Event]:
    """The big buttons for the player to move: each move of :data:`ONE_TAP` the rules allow
    now (checked, so they work without knowing the hands)."""
    mover = state.to_move()
    if mover is None or state.needs_chance():
        return []
    events = [Event(etype, mover) for etype in ONE_TAP.get(state.game.name, ())]
    return [e for e in events if state.check(e).ok]


@bp.app_template_global()
def event_facts(game: str, event: Event, players: list[str]) -> list[tuple[str, Markup]]:
    """An event's details as a person reads them: choices in words (``Ben's pile (left of
    Ann)``), seats as names, one value per seat with its player's name, cards as chips."""
    spec = make_game_spec(game, event.type)
    kinds = {f.name: f for f in spec.fields} if spec is not None else {}
    out = []
    for key, value in event.data.items():
        f = kinds.get(key)
        if f is not None and f.kind == "choice" and value is not None:
            shown = Markup(escape(choice_words(game, key, str(value), players, event.seat)))
        elif f is not None and f.kind == "seat" and isinstance(value, int) and 0 <= value < len(players):
            shown = Markup(escape(players[value]))
        elif (f is not None and f.help.lower().startswith("per seat") and isinstance(value, list)
              and len(value) == len(players)):
            shown = Markup("; ").join(Markup("{}: {}").format(players[i], cell(v, game))
                                      for i, v in enumerate(value))
        else:
            shown = cell(value, game)
        out.append((humanise(key), shown))
    return out


def make_game_spec(game: str, etype: str) -> EventSpec | None:
    try:
        return game_class(game).event_spec(etype)
    except RulesError:  # an engine no longer installed: its events are shown as they are
        return None


def spec_or_400(state: State, etype: str) -> EventSpec:
    spec = state.game.event_spec(etype)
    if spec is None:
        known = ", ".join(s.type for s in state.game.event_specs)
        abort(400, description=f"'{etype}' is not an event of {state.game.title}; known: {known}.")
    return spec


def entry_page(
    info: MatchInfo,
    *,
    problem: str | None = None,
    verdict: Verdict | None = None,
    values: Mapping[str, str] | None = None,
    status: int = 200,
) -> Any:
    store = get_store()
    state = store.state(info.id)
    events = store.events(info.id)
    event_forms = due_forms(state, forms.manual_specs(state.game))
    failed_type = (values or {}).get(forms.TYPE_FIELD)
    for i, form in enumerate(event_forms):
        if values is not None and form.spec.type == failed_type:
            event_forms[i] = refill(form, values)
    recent = list(enumerate(events))[-12:][::-1]
    return (
        render_template(
            "entry.html",
            info=info,
            state=state,
            event_forms=event_forms,
            picker=picker(info, state),
            one_tap=one_tap_events(state),
            recent=recent,
            public=state.game.public_event,
            problem=problem,
            verdict=verdict,
            cited=cited(verdict, info.game) if verdict is not None else [],
            failed_type=failed_type,
        ),
        status,
    )


@bp.get("/match/<int:match_id>/entry")
def page(match_id: int) -> Any:
    return entry_page(match_or_404(match_id))


@bp.post("/match/<int:match_id>/events")
@pin_required
def submit(match_id: int) -> Any:
    info = match_or_404(match_id)
    store = get_store()
    state = store.state(match_id)
    spec = spec_or_400(state, request.form.get(forms.TYPE_FIELD, ""))
    try:
        event = forms.parse_event(spec, state, request.form, ts=now_ms())
    except forms.FormError as exc:
        return entry_page(info, problem=str(exc), values=request.form, status=400)
    quacks = quacks_before(state, event)
    asked = None if quacks else camera_question(match_id, len(store.events(match_id)), event)
    if asked is not None and asked.event.ts is not None:
        event = replace(event, ts=asked.event.ts)  # when the cards first showed, not when typed
    for quack in quacks:
        if not store.submit(match_id, quack).ok:
            break  # the play's own verdict below says what is wrong
    verdict = store.submit(match_id, event)
    if not verdict.ok:
        return entry_page(info, verdict=verdict, values=request.form, status=422)
    if asked is not None:
        settle_question(asked.id)
    said = ""
    if quacks:
        names = ", ".join(info.players[q.seat] for q in quacks if q.seat is not None)
        said = f" (first {names} quacked, as the turn order says)"
    flash(f"Recorded #{len(store.events(match_id))} {event_words(info.game, event.type)}: "
          f"{seats_from_one(verdict.reason)}{said}", "ok")
    return redirect(url_for("entry.page", match_id=match_id), code=303)


@bp.post("/match/<int:match_id>/undo")
@pin_required
def undo(match_id: int) -> Any:
    info = match_or_404(match_id)
    reason = (request.form.get(forms.REASON_FIELD) or "undone on the phone")[:MAX_REASON]
    store = get_store()
    seq = store.seq(match_id)
    try:  # the whole last entry: a play with the Quacks it implied goes in one undo
        count = recorded_with_last(store.events(match_id),
                                   lambda index: store.state_before(match_id, index))
    except StoreError:
        count = 1  # a log that no longer replays: its last event alone
    removed = store.undo_last(match_id, max(count, 1), reason, seq=seq)
    if not removed:
        flash("There is nothing to undo: the match has no events yet.", "error")
        return redirect(url_for("entry.page", match_id=match_id), code=303)
    last = removed[-1]
    what = event_words(info.game, last.type) if last is not None else "a damaged event"
    if len(removed) > 1:
        quacks = len(removed) - 1
        flash(f"Undone: the last entry ({what}, with the {quacks} Quack{'s' if quacks > 1 else ''}"
              " the turn order implied before it) was removed.", "ok")
    else:
        flash(f"Undone: the last event ({what}) was removed.", "ok")
    return redirect(url_for("entry.page", match_id=match_id), code=303)


@bp.route("/match/<int:match_id>/events/<int:index>/correct", methods=["GET", "POST"])
@pin_required
def correct(match_id: int, index: int) -> Any:
    info = match_or_404(match_id)
    store = get_store()
    rows = store.log_rows(match_id)
    if not 0 <= index < len(rows):
        abort(404, description=f"Match {match_id} has no event #{index + 1}; it has {len(rows)}.")
    original, damaged = rows[index]
    state = store.state_before(match_id, index)  # corrected where it stands: pickers offer what was open then
    default_type = original.type if original is not None else state.game.event_specs[0].type
    etype = request.values.get(forms.TYPE_FIELD, default_type)
    spec = spec_or_400(state, etype)
    problem: str | None = None
    verdict: Verdict | None = None
    status = 200
    if request.method == "POST":
        try:
            event = forms.parse_event(spec, state, request.form,
                                      ts=original.ts if original is not None else None)
        except forms.FormError as exc:
            problem, status = str(exc), 400
        else:
            reason = (request.form.get(forms.REASON_FIELD) or "corrected on the phone")
            try:
                verdict = store.correct(match_id, index, event, reason[:MAX_REASON])
            except StoreError as exc:
                problem, status = counted_from_one(str(exc)), 400
            else:
                if verdict.ok:
                    flash(seats_from_one(counted_from_one(verdict.reason)), "ok")
                    return redirect(url_for("entry.page", match_id=match_id), code=303)
                verdict = replace(verdict, reason=counted_from_one(verdict.reason))
                status = 422
    prefill = original if original is not None and etype == original.type else None
    form = with_cards(forms.build_form(spec, state, prefill, due=due_events(state)), state)
    if request.method == "POST":
        form = refill(form, request.form)
    return (
        render_template(
            "correct.html",
            info=info,
            index=index,
            original=original,
            damaged=damaged,
            form=form,
            specs=state.game.event_specs,
            picker=picker(info, state),
            problem=problem,
            verdict=verdict,
            cited=cited(verdict, info.game) if verdict is not None else [],
        ),
        status,
    )


def refill(form: forms.EventForm, values: Mapping[str, str]) -> forms.EventForm:
    """Show what the user typed again after a refusal, so nothing has to be re-entered."""
    for w in form.widgets:
        if w.kind == "items":
            for item in w.items:
                item.value = values.get(item.name, "")
        elif w.kind in ("seat_card", "seat_cards"):
            w.seat_values = [values.get(f"{w.name}.{i}", "") for i in range(len(w.seat_values))]
        else:
            w.value = values.get(w.name, "")
    form.seat_value = values.get(forms.SEAT_FIELD, form.seat_value)
    return form


_EVENT_NUMBER = re.compile(r"\b(event #)(\d+)")


def counted_from_one(message: str) -> str:
    """The store's messages number events as the log does, from 0; the pages count from 1."""
    return _EVENT_NUMBER.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", message)

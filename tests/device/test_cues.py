"""Cue patterns on gpiozero's MockFactory: the pin states each pattern goes through, and when.

MockPin records every change with the seconds since the previous one, so each pattern's
shape (exact states) and rhythm (durations, within scheduling slack) is asserted on the pins.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from ducktable.device import cues as cues_module
from ducktable.device.cues import (
    TIMING,
    CueBoard,
    CueError,
    Cues,
    Signal,
    TableSignals,
    choose_pin_factory,
    signals_between,
)
from ducktable.rules import make_game
from ducktable.rules.core import Event
from gpiozero.pins.mock import MockFactory

SEATS = (5, 6, 13, 19)
STATUS, BUZZER = 20, 21
SLACK_S = 0.4  # a loaded CI machine may wake late; never early


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def cues(factory: MockFactory) -> Iterator[Cues]:
    board = CueBoard(SEATS, STATUS, BUZZER, quack_buttons=(17, 27), pin_factory=factory)
    player = Cues(board)
    yield player
    player.close()


def pin(factory: MockFactory, number: int):
    return factory.pin(number)


def settle(cues: Cues, factory: MockFactory) -> None:
    """Wait for queued patterns, then start every pin's record afresh."""
    assert cues.wait_idle(10)
    for number in (*SEATS, STATUS, BUZZER):
        pin(factory, number).clear_states()


def assert_rhythm(factory: MockFactory, number: int, states: list[bool], period: float) -> None:
    """The pin went through exactly ``states``, each change ``period`` after the previous."""
    record = pin(factory, number).states
    assert [s.state for s in record] == states
    for change in record[2:]:  # [0] is the start of the record, [1] the pattern's first change
        assert period * 0.8 <= change.timestamp <= period + SLACK_S, (number, change)


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_board_is_composed_like_gpiozero_boards(cues: Cues) -> None:
    board = cues.board
    assert board.seat_count == 4 and len(board.quack) == 2
    assert board.value.status == 0 and board.value.buzzer == 0
    assert board.quack[0].is_pressed is False


def test_whose_turn_lights_only_that_seat(cues: Cues, factory: MockFactory) -> None:
    cues.whose_turn(2)
    assert cues.wait_idle(5)
    assert [pin(factory, n).state for n in SEATS] == [False, False, True, False]
    cues.whose_turn(0)
    assert cues.wait_idle(5)
    assert [pin(factory, n).state for n in SEATS] == [True, False, False, False]
    assert cues.snapshot()["seats"] == ["on", "off", "off", "off"]
    assert cues.snapshot()["pattern"] == "whose-turn"


def test_illegal_move_flashes_status_fast_and_beeps_twice(cues: Cues,
                                                          factory: MockFactory) -> None:
    cues.whose_turn(1)
    settle(cues, factory)
    cues.illegal()
    assert cues.wait_idle(10)
    flashes = [False] + [True, False] * TIMING.illegal_flashes
    assert_rhythm(factory, STATUS, flashes, TIMING.illegal_blink)
    assert_rhythm(factory, BUZZER, [False] + [True, False] * TIMING.illegal_beeps,
                  TIMING.illegal_beep)
    assert [s.state for s in pin(factory, SEATS[1]).states] == [True]  # the turn LED stays on
    assert cues.snapshot()["pattern"] == "whose-turn"


def test_round_scored_flashes_every_seat_twice_and_beeps(cues: Cues,
                                                         factory: MockFactory) -> None:
    cues.whose_turn(3)
    settle(cues, factory)
    cues.round_scored()
    assert cues.wait_idle(10)
    twice = [True, False] * TIMING.round_flashes
    for number in SEATS[:3]:
        assert_rhythm(factory, number, [False, *twice], TIMING.round_blink)
    # the seat to move was already lit: its first flash shows as staying on, then back to turn
    assert_rhythm(factory, SEATS[3], [True, False, True, False, True], TIMING.round_blink)
    assert_rhythm(factory, BUZZER, [False, True, False], TIMING.round_beep)


def test_race_open_blinks_status_until_it_closes(cues: Cues, factory: MockFactory) -> None:
    """GREY-G1: while a grey card may still join the last play, the status LED blinks."""
    settle(cues, factory)
    cues.race_open(True)
    status = pin(factory, STATUS)
    assert wait_for(lambda: len(status.states) >= 5)
    assert cues.snapshot()["status"] == "blink"
    cues.race_open(False)
    assert cues.wait_idle(5)
    assert status.state is False and cues.snapshot()["status"] == "off"
    blinking = status.states[:5]
    assert [s.state for s in blinking] == [False, True, False, True, False]
    for change in blinking[2:]:
        assert TIMING.race_blink * 0.8 <= change.timestamp <= TIMING.race_blink + SLACK_S


def test_race_won_beeps_and_flashes_the_winner(cues: Cues, factory: MockFactory) -> None:
    """GREY-G1: the first grey wins the race: a long beep and the winner's LED flashes."""
    cues.whose_turn(0)
    cues.race_open(True)
    settle(cues, factory)
    cues.race_won(2)
    assert cues.wait_idle(10)
    assert_rhythm(factory, SEATS[2], [False] + [True, False] * TIMING.won_flashes,
                  TIMING.won_blink)
    assert_rhythm(factory, BUZZER, [False, True, False], TIMING.won_beep)
    assert pin(factory, STATUS).state is False  # the race is over
    assert [s.state for s in pin(factory, SEATS[0]).states] == [True, False, True]


def test_snapshot_describes_a_pattern_while_it_plays(cues: Cues) -> None:
    cues.whose_turn(1)
    cues.round_scored()
    assert wait_for(lambda: cues.snapshot()["pattern"] == "round-scored")
    snap = cues.snapshot()
    assert snap["seats"] == ["blink"] * 4 and snap["buzzer"] is True
    assert cues.wait_idle(10)
    assert cues.snapshot()["seats"] == ["off", "on", "off", "off"]


def test_close_is_idempotent_and_releases_the_pins(factory: MockFactory) -> None:
    board = CueBoard(SEATS, STATUS, BUZZER, pin_factory=factory)
    player = Cues(board)
    player.round_scored()
    player.close()
    player.close()
    assert board.closed
    again = CueBoard(SEATS, STATUS, BUZZER, pin_factory=factory)  # the pins are free again
    again.close()


def test_bad_pins_are_reported_clearly(factory: MockFactory) -> None:
    with pytest.raises(CueError, match="cannot set up the cue board's pins"):
        CueBoard((5, 6), 5, 21, pin_factory=factory)  # pin 5 used twice
    with pytest.raises(CueError, match="at least one seat LED"):
        CueBoard((), 20, 21, pin_factory=factory)
    board = CueBoard((5, 6), 20, 21, pin_factory=factory)  # nothing was left reserved
    board.close()


def test_a_missing_pin_library_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a Pi, gpiozero loads the library GPIOZERO_PIN_FACTORY names (lgpio by default); a
    venv made without --system-site-packages does not see apt's copy."""
    from gpiozero import Device

    def missing(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(lambda: missing("lgpio")))
    with pytest.raises(CueError, match="No module named 'lgpio' .*GPIOZERO_PIN_FACTORY is lgpio"
                                       ".*install that library"):
        CueBoard((5, 6), 20, 21, pin_factory=None)


def test_mock_pins_are_chosen_automatically_off_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(cues_module, "is_raspberry_pi", lambda: False)
    assert isinstance(choose_pin_factory("auto"), MockFactory)
    monkeypatch.setattr(cues_module, "is_raspberry_pi", lambda: True)
    assert choose_pin_factory("auto") is None  # gpiozero's own default (lgpio) on a Pi
    assert isinstance(choose_pin_factory("mock"), MockFactory)
    with pytest.raises(CueError, match="must be 'auto', 'mock' or 'pi'"):
        choose_pin_factory("arduino")


# -- from game changes to cues -------------------------------------------------------------


def signals(before: TableSignals | None, after: TableSignals,
            events: tuple[Event, ...] = ()) -> list[Signal]:
    return signals_between(before, after, events)


def test_a_new_turn_only_moves_the_turn_light() -> None:
    before = TableSignals(0, (0, 0, 0), False, 3)
    after = TableSignals(1, (0, 0, 0), False, 4)
    assert signals(before, after, (Event("draw", 0),)) == [Signal("turn", 1)]


def test_changed_scores_mean_a_round_was_scored() -> None:
    before = TableSignals(None, (0, 0, 0), False, 9)
    after = TableSignals(None, (6, 3, 1), False, 10)
    assert signals(before, after) == [Signal("round_scored"), Signal("turn", None)]


def test_an_undo_that_lowers_scores_is_not_a_new_round() -> None:
    before = TableSignals(None, (6, 3, 1), False, 10)
    after = TableSignals(None, (0, 0, 0), False, 9)
    assert Signal("round_scored") not in signals(before, after)


def test_grey_race_opens_and_is_won_out_of_turn() -> None:
    """GREY-G1: a grey laid out of turn by seat 3 while seat 1 was to move wins the race."""
    quiet = TableSignals(1, (0, 0, 0, 0), False, 5)
    racing = TableSignals(1, (0, 0, 0, 0), True, 6)
    assert signals(quiet, racing) == [Signal("race", True), Signal("turn", 1)]
    won = TableSignals(0, (0, 0, 0, 0), False, 7)
    assert signals(racing, won, (Event("grey", 3, {"card": "grey-4"}),)) == [
        Signal("race_won", 3), Signal("race", False), Signal("turn", 0)]
    in_turn = TableSignals(2, (0, 0, 0, 0), False, 7)
    assert Signal("race_won", 1) not in signals(racing, in_turn, (Event("quack", 1),))


def test_signals_are_read_from_real_engines() -> None:
    duck = make_game("duck").new_state(["A", "B", "C"], observer=True)
    assert TableSignals.of(duck) == TableSignals(None, (0, 0, 0), False, 0)
    assert signals(None, TableSignals.of(duck)) == [Signal("race", False), Signal("turn", None)]

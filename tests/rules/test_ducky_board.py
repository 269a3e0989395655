"""Ducky Ducky board layouts as data: the defaults (DUCKY-C1, DUCKY-C2) and their JSON form."""

from __future__ import annotations

import json

import pytest
from ducktable.rules import RulesError, make_game
from ducktable.rules.ducky_board import (
    DEFAULT_LAYOUT,
    BoardLayout,
    LayoutError,
    Log,
    dumps_layout,
    layout_from_json,
    layout_to_json,
    resolve_layout,
)


def small_layout(**changes: object) -> dict:
    """A legal 10-cell board: 2 white-star cells + 2 pads x 4 colours, 4 logs."""
    layout = {
        "name": "small",
        "cells": 10,
        "pads_per_colour": 2,
        "logs": [
            {"faces": 1, "blue_star": True},
            {"faces": 3, "white_star": True},
            {"faces": 5, "blue_star": True},
            {"faces": 8, "white_star": True},
        ],
    }
    layout.update(changes)
    return layout


def test_DUCKY_C1_default_board_has_20_cells_10_logs_4_white_and_4_blue_stars():
    layout = DEFAULT_LAYOUT
    assert layout.cells == 20 and len(layout.logs) == 10
    assert len([log for log in layout.logs if log.white_star]) == 4
    assert len(layout.start_logs) == 4
    assert len(layout.white_cells) == 4
    assert len({log.faces for log in layout.logs}) == 10  # every log faces its own cell
    assert layout.max_players() == 4


def test_DUCKY_C2_default_pads_5_white_and_16_coloured_fill_the_river_plus_a_spare():
    layout = DEFAULT_LAYOUT
    coloured = layout.pads_per_colour * 4
    assert layout.white_pads == 5 and coloured == 16
    assert layout.white_pads + coloured == 21 == layout.cells + 1


def test_DUCKY_C1_layout_json_round_trips_as_dict_and_text():
    text = dumps_layout(DEFAULT_LAYOUT)
    assert layout_from_json(text) == DEFAULT_LAYOUT
    assert layout_from_json(json.loads(text)) == DEFAULT_LAYOUT
    assert layout_to_json(layout_from_json(small_layout())) == {
        **small_layout(),
        "logs": [
            {"faces": 1, "white_star": False, "blue_star": True},
            {"faces": 3, "white_star": True, "blue_star": False},
            {"faces": 5, "white_star": False, "blue_star": True},
            {"faces": 8, "white_star": True, "blue_star": False},
        ],
    }
    assert resolve_layout("default") is DEFAULT_LAYOUT and resolve_layout(None) is DEFAULT_LAYOUT


@pytest.mark.parametrize("given, message", [
    ("{cells: 20", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    (small_layout(river=3), "unknown layout key"),
    (small_layout(cells="ten"), "'cells' must be a whole number"),
    (small_layout(logs=[]), "non-empty list"),
    (small_layout(logs=[{"faces": 1, "colour": "red"}]), "unknown key"),
    (small_layout(logs=[{"faces": 1, "blue_star": "yes"}]), "true or false"),
    (small_layout(logs=[5]), "must be an object"),
    (small_layout(name=7), "'name' must be text"),
    (small_layout(cells=11), "must equal the 11 river cells"),
    (small_layout(pads_per_colour=1, cells=6), "at least 2 pads"),
    (small_layout(logs=[{"faces": 12, "blue_star": True}]), "faces cell 12"),
    (small_layout(logs=[{"faces": 1, "white_star": True}, {"faces": 8, "white_star": True},
                        {"faces": 5, "blue_star": True}]), "blue star"),
])
def test_DUCKY_C1_bad_layouts_are_refused_with_a_clear_message(given, message):
    with pytest.raises(LayoutError, match=message):
        layout_from_json(given if isinstance(given, str) else json.dumps(given))


def test_DUCKY_C1_layout_option_takes_a_dict_or_json_text_and_limits_players():
    game = make_game("ducky", {"layout": small_layout()})
    assert game.layout.cells == 10 and game.layout.name == "small"
    assert isinstance(game.options["layout"], str)  # kept as canonical JSON in the match
    again = make_game("ducky", {"layout": game.options["layout"]})
    assert again.layout == game.layout
    assert len(game.new_state(["A", "B"]).pad_colour) == 10
    with pytest.raises(RulesError, match="seats at most 2 players"):
        game.new_state(["A", "B", "C"])
    with pytest.raises(LayoutError, match="not valid JSON"):
        make_game("ducky", {"layout": "{oops"})


def test_DUCKY_C1_layout_objects_validate_themselves():
    with pytest.raises(LayoutError, match="at least 3 logs"):
        BoardLayout(9, (Log(0, True, True), Log(1, True, True)), 2, "tiny")

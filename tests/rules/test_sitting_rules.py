"""Sitting Ducks engine: one or more tests per SIT-* rule ID, the decided ambiguous points, and
bad input refused with a clear verdict and no change.

Most set-ups are reached through real events (a pond and action deck shuffled into a chosen
order). A few positions that would take dozens of turns to reach (an empty pond, a duck already
under cover, players down to their last duck) are set directly on the state; those tests say so.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from ducktable.rules import Event, RulesError, make_game, replay
from ducktable.rules.catalogue import explain, rule_texts
from ducktable.rules.decks import SIT_COLOURS
from ducktable.rules.sitting import (
    RULE_TEXTS,
    Gallery,
    SittingDucksGame,
    SittingDucksState,
    Spot,
)

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
B, G, OR = "duck-blue", "duck-green", "duck-orange"  # seats 0, 1, 2 by default
W = "water"
COLOURS3 = ("blue", "green", "orange")
POSITIONS_ALL = [1, 2, 3, 4, 5, 6]

SIT_IDS = (
    ["SIT-C1", "SIT-S1", "SIT-S2", "SIT-T1", "SIT-T2", "SIT-T3", "SIT-W1"]
    + [f"SIT-A{i}" for i in range(1, 16)]
)


def card(name: str) -> str:
    return name if name.startswith("action-") else f"action-{name}"


def table(
    line: Sequence[str],
    hands: Sequence[Sequence[str]],
    *,
    pond: Sequence[str] = (),
    deck: Sequence[str] = (),
    players: int = 3,
    **options: Any,
) -> SittingDucksState:
    """A full-information match set up by real chance events: the pond is shuffled so that
    ``line`` comes out first, then ``pond`` (top first), then the rest; the action deck so that
    the seats are dealt ``hands`` (one card at a time from seat 0), then ``deck`` comes next."""
    state = make_game("sitting", options).new_state(NAMES[:players])
    assert isinstance(state, SittingDucksState)
    rest = state.pond_counts - Counter(line) - Counter(pond)
    assert sum(rest.values()) == state.pond_size - len(line) - len(pond), "cards not in pond"
    order = [*line, *pond, *sorted(rest.elements())]
    state.apply_or_raise(Event("shuffle", None, {"pile": "pond", "order": order}))
    state.apply_or_raise(Event("reveal", None, {"cards": list(line)}))
    dealt = [card(hands[s][k]) for k in range(3) for s in range(players)]
    wanted = [*dealt, *(card(c) for c in deck)]
    others = Counter(state.discard) - Counter(wanted)
    assert sum(others.values()) == len(state.discard) - len(wanted), "cards not in the deck"
    state.apply_or_raise(Event("shuffle", None,
                               {"pile": "actions", "order": [*wanted, *sorted(others.elements())]}))
    rng = random.Random(0)
    while state.needs_chance():
        state.apply_or_raise(state.chance_event(rng))
    return state


def put(state: SittingDucksState, spots: Sequence[str | Spot], targets: Sequence[int] = ()) -> None:
    """Set the line and targets directly (for positions that take many turns to reach)."""
    line = [s if isinstance(s, Spot) else Spot(s) for s in spots]
    state.gallery = Gallery(line, targets, state.colours)


def gallery(spots: Sequence[str | Spot], targets: Sequence[int] = ()) -> Gallery:
    return Gallery([s if isinstance(s, Spot) else Spot(s) for s in spots], targets, COLOURS3)


def cards(g: Gallery) -> list[str]:
    return [s.card for s in g.spots]


def after(g: Gallery, action: str, seat: int, data: dict[str, Any]) -> Gallery:
    verdict = g.check(action, seat, data)
    assert verdict.ok, verdict
    out = g.play(action, seat, data)
    return Gallery(out.spots, out.targets, g.colours)


def refused(g: Gallery, action: str, seat: int, data: dict[str, Any], words: str,
            rule: str | None = None) -> None:
    verdict = g.check(action, seat, data)
    assert not verdict.ok, (action, data)
    assert words in verdict.reason, verdict.reason
    assert (rule or verdict.rules[0]) in verdict.rules


def play(state: SittingDucksState, etype: str, **data: Any) -> None:
    """The mover plays ``etype``; the chance events it causes follow from the known orders."""
    seat = state.to_move()
    assert seat is not None, state.describe_next()
    state.apply_or_raise(Event(etype, seat, data))
    rng = random.Random(1)
    while state.needs_chance():
        state.apply_or_raise(state.chance_event(rng))


BASIC_LINE = [B, G, OR, W, B, G]
FILLER = ["aim", "aim", "aim"]


def basic(hands: Sequence[Sequence[str]] = (FILLER, FILLER, FILLER), **kw: Any) -> SittingDucksState:
    return table(kw.pop("line", BASIC_LINE), hands, **kw)


def snapshot(state: SittingDucksState) -> tuple[Any, ...]:
    return (
        state.public_view(),
        [state.player_view(s) for s in range(state.num_players)],
        list(state.pond_order or []),
        list(state.deck_order or []),
        list(state.discard),
        len(state.history),
    )


# ---- the catalogue ------------------------------------------------------------------------


def test_rule_texts_cover_every_SIT_rule_in_our_own_words():
    assert sorted(RULE_TEXTS) == sorted(SIT_IDS)
    assert all(len(text) > 30 for text in RULE_TEXTS.values())
    assert rule_texts("sitting") == RULE_TEXTS
    assert "Bottoms Up" in explain("SIT-A15")


def test_every_SIT_rule_has_a_named_test():
    names: list[str] = []
    for path in Path(__file__).parent.glob("test_sitting*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names += [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                  and n.name.startswith("test_")]
    for rule in SIT_IDS:
        tag = "_" + rule.replace("-", "_") + "_"
        assert any(tag in n + "_" for n in names), f"no test named after {rule}"


# ---- components and set-up -------------------------------------------------------------------


def test_SIT_C1_default_deck_holds_36_ducks_5_water_6_sky_6_targets_52_actions():
    game = make_game("sitting")
    assert isinstance(game, SittingDucksGame)
    kinds: Counter[str] = Counter()
    for c in game.deck.cards:
        kinds[c.attrs["kind"]] += c.count
    assert kinds == {"duck": 36, "water": 5, "sky": 6, "target": 6, "action": 52}
    assert sum(game.action_cards.values()) == 52
    assert game.action_cards["action-move-left"] and game.action_cards["action-move-right"]


def test_SIT_C1_action_mix_is_an_option():
    state = make_game("sitting", {"action_mix": {"billy-the-duck": 20, "fire": 5}}).new_state(
        NAMES[:3])
    assert Counter(state.discard) == {"action-billy-the-duck": 20, "action-fire": 5}
    game = make_game("sitting", {"action_mix": {"fire": 30}})
    state = table(BASIC_LINE, [["fire"] * 3] * 3, action_mix={"fire": 30})
    assert state.deck_size == 21
    verdict = state.check(Event("aim", state.to_move(), {"position": 1}))
    assert not verdict.ok and "no action-aim cards" in verdict.reason and "SIT-C1" in verdict.rules
    assert game.options["action_mix"]["aim"] == 0


@pytest.mark.parametrize("mix, players, message", [
    ({"laser": 3}, 3, "'laser' is not an action card"),
    ({"fire": -1}, 3, "whole number from 0 to 100"),
    ({"fire": "many"}, 3, "whole number from 0 to 100"),
    ({"fire": 99_999_999}, 3, "whole number from 0 to 100"),  # would take gigabytes
    ({"fire": 10}, 4, "need at least 12"),
    ({"fire": 8, "bottoms-up": 2}, 3, "need at least 11"),
])
def test_SIT_C1_a_bad_action_mix_is_refused_clearly(mix, players, message):
    with pytest.raises(RulesError, match=message):
        make_game("sitting", {"action_mix": mix}).new_state(NAMES[:players])


def test_SIT_S1_colours_are_an_option_and_checked():
    state = make_game("sitting", {"colours": "pink, Blue,green"}).new_state(NAMES[:3])
    assert state.colours == ("pink", "blue", "green")
    assert state.pond_counts["duck-pink"] == 5 and state.pond_counts["duck-orange"] == 0
    for text, message in [("pink,red,blue", "'red' is not"), ("pink,pink,blue", "different"),
                          ("pink,blue", "names 2 colours for 3")]:
        with pytest.raises(RulesError, match=message):
            make_game("sitting", {"colours": text}).new_state(NAMES[:3])
    with pytest.raises(RulesError, match="3 to 6 players"):
        make_game("sitting").new_state(NAMES[:2])


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_SIT_S1_set_up_fills_the_line_from_the_pond_and_deals_three_cards(players):
    state = make_game("sitting").new_state(NAMES[:players])
    rng = random.Random(players)
    assert state.pond_size == 5 * players + 5
    assert state.to_move() is None and "shuffle" in state.describe_next()
    while state.needs_chance():
        state.apply_or_raise(state.chance_event(rng))
    assert len(state.gallery.spots) == 6 and not state.gallery.targets
    assert state.pond_size == 5 * players + 5 - 6
    assert state.hand_sizes == [3] * players and state.hands is not None
    assert state.deck_size == 52 - 3 * players and state.discard == []
    playing = {f"duck-{c}" for c in SIT_COLOURS[:players]} | {W}
    seen = set(state.pond_counts) | {s.card for s in state.gallery.spots}
    assert seen <= playing  # ducks of unpicked colours left the game
    first = state.history[1]
    assert first.type == "reveal" and first.data["cards"] == [s.card for s in state.gallery.spots]


def test_SIT_S1_set_up_events_come_in_order_and_are_checked():
    state = make_game("sitting").new_state(NAMES[:3])
    verdict = state.check(Event("reveal", None, {"cards": [W] * 6}))
    assert not verdict.ok and "pond must be shuffled" in verdict.reason
    bad = state.check(Event("shuffle", None, {"pile": "pond", "order": [W] * 20}))
    assert not bad.ok and "exactly the 20 cards of the pond" in bad.reason
    missing = state.check(Event("shuffle", None, {"pile": "pond"}))
    assert not missing.ok and "needs the field 'order'" in missing.reason
    order = [B, G, OR, W, W, B] + sorted((state.pond_counts - Counter([B, G, OR, W, W, B])).elements())
    assert state.apply_or_raise(Event("shuffle", None, {"pile": "pond", "order": order})).rules \
        == ("SIT-S1",)
    assert state.check(Event("reveal", None, {"cards": [B, G, OR, W, W, B]})).rules == ("SIT-S1",)
    wrong_top = state.check(Event("reveal", None, {"cards": [G, B, OR, W, W, B]}))
    assert not wrong_top.ok and "top card(s) are" in wrong_top.reason
    short = state.check(Event("reveal", None, {"cards": [B, G]}))
    assert not short.ok and "exactly 6" in short.reason


def test_SIT_S1_observer_set_up_checks_cards_against_the_pond():
    state = make_game("sitting").new_state(NAMES[:3], observer=True)
    assert state.apply(Event("shuffle", None, {"pile": "pond"})).ok
    pink = state.check(Event("reveal", None, {"cards": [B, G, OR, W, W, "duck-pink"]}))
    assert not pink.ok and "duck-pink cannot come from the pond" in pink.reason
    six_water = state.check(Event("reveal", None, {"cards": [W] * 6}))
    assert not six_water.ok and "holds 5" in six_water.reason
    assert state.apply(Event("reveal", None, {"cards": [W, OR, B, W, G, W]})).ok
    assert state.apply(Event("shuffle", None, {"pile": "actions"})).ok
    for seat in [0, 1, 2] * 3:
        assert state.apply(Event("draw", seat)).ok
    assert state.to_move() == 2  # SIT-S2: orange is the frontmost duck


def test_SIT_S2_owner_of_the_frontmost_duck_starts_then_clockwise():
    state = table([W, W, OR, B, G, W], [FILLER] * 3)
    assert state.to_move() == 2
    play(state, "aim", position=1)
    assert state.to_move() == 0
    play(state, "aim", position=2)
    assert state.to_move() == 1
    verdict = state.check(Event("aim", 2, {"position": 3}))
    assert not verdict.ok and "Ben's turn" in verdict.reason and "SIT-S2" in verdict.rules


# ---- turn ----------------------------------------------------------------------------------


def test_SIT_T1_play_one_card_then_draw_back_to_three():
    state = basic([["aim", "fire", "cover"], FILLER, FILLER], deck=["duck-dance"])
    assert state.to_move() == 0
    state.apply_or_raise(Event("aim", 0, {"position": 4}))
    assert state.hand_sizes[0] == 2 and state.to_move() is None
    assert "Ann (seat 0) must 'draw'" in state.describe_next()
    assert not state.check(Event("draw", 1, {"card": "action-duck-dance"})).ok
    assert not state.check(Event("draw", 0, {"card": "action-aim"})).ok  # not the top card
    state.apply_or_raise(Event("draw", 0, {"card": "action-duck-dance"}))
    assert sorted(state.hands[0]) == ["action-cover", "action-duck-dance", "action-fire"]
    assert state.to_move() == 1 and state.discard == ["action-aim"]


def test_SIT_T1_a_card_not_held_is_refused():
    state = basic()
    verdict = state.check(Event("fire", 0, {"position": 1}))
    assert not verdict.ok and "Ann does not hold action-fire" in verdict.reason
    assert "SIT-T1" in verdict.rules


def test_SIT_T1_discard_only_when_nothing_can_be_played():
    stuck = ["fire", "two-at-one-blow", "move-left"]  # all need targets; there are none
    state = basic([stuck, ["aim", "fire", "fire"], FILLER])
    verdict = state.check(Event("discard", 0, {"action": "aim"}))
    assert not verdict.ok and "does not hold" in verdict.reason
    events = state.legal_events(0)
    assert {e.type for e in events} == {"discard"} and len(events) == 3
    before = state.history[:]
    play(state, "discard", action="fire")
    assert state.history[len(before)].type == "discard" and state.hand_sizes[0] == 3
    assert state.discard == ["action-fire"]
    # Ben holds a playable Aim, so he may not discard either of his Fires.
    verdict = state.check(Event("discard", 1, {"action": "fire"}))
    assert not verdict.ok and "SIT-T1" in verdict.rules
    assert "Aim can be played" in verdict.reason and "'aim'" in verdict.reason


def test_SIT_T1_discard_shown_hand_must_be_the_rest_of_the_hand():
    state = basic([["fire", "fire", "move-left"], FILLER, FILLER])
    wrong = state.check(Event("discard", 0, {"action": "fire",
                                             "shown": ["fire", "aim"]}))
    assert not wrong.ok and "not the rest of the hand" in wrong.reason
    right = state.check(Event("discard", 0, {"action": "fire",
                                             "shown": ["move_left", "fire"]}))
    assert right.ok


def test_SIT_T1_observer_checks_a_discard_only_when_the_hand_is_shown():
    full = basic([["fire", "fire", "move-left"], FILLER, FILLER])
    game = full.game
    obs = replay(game, full.players, [game.public_event(e) for e in full.history], observer=True)
    unchecked = obs.check(Event("discard", 0, {"action": "aim"}))
    assert unchecked.ok and "unchecked" in unchecked.reason
    shown_playable = obs.check(Event("discard", 0, {"action": "fire",
                                                    "shown": ["aim", "fire"]}))
    assert not shown_playable.ok and "Aim can be played" in shown_playable.reason
    too_few = obs.check(Event("discard", 0, {"action": "fire", "shown": ["fire"]}))
    assert not too_few.ok and "show all 2" in too_few.reason
    honest = obs.check(Event("discard", 0, {"action": "fire",
                                            "shown": ["move_left", "fire"]}))
    assert honest.ok and "no card can be played" in honest.reason


def test_SIT_T1_played_cards_are_reshuffled_when_the_deck_runs_out():
    mix = {"aim": 8, "move-right": 4}  # 12 cards: 9 dealt, 3 in the deck
    state = table(BASIC_LINE, [["aim", "aim", "move-right"]] * 3, action_mix=mix,
                  deck=["aim", "aim", "move-right"])
    for p in (1, 2, 3):
        play(state, "aim", position=p)
    assert state.deck_size == 0 and len(state.discard) == 3
    state.apply_or_raise(Event("aim", 0, {"position": 4}))
    assert "action cards must be shuffled" in state.describe_next()
    wrong = ["action-aim"] * 3 + ["action-move-right"]
    bad = state.check(Event("shuffle", None, {"pile": "actions", "order": wrong}))
    assert not bad.ok and "played action cards" in bad.reason
    order = ["action-aim"] * 4
    state.apply_or_raise(Event("shuffle", None, {"pile": "actions", "order": order}))
    assert state.deck_size == 4 and state.discard == []
    state.apply_or_raise(Event("draw", 0, {"card": "action-aim"}))
    assert state.to_move() == 1 and state.hand_sizes == [3, 3, 3]


def test_SIT_T2_a_shot_duck_goes_to_its_owner_and_the_pond_refills_the_line():
    state = basic([["aim", "fire", "aim"], ["fire", "aim", "aim"], FILLER], pond=[OR, W])
    play(state, "aim", position=2)  # Ann aims at Ben's green duck
    play(state, "fire", position=2)  # Ben shoots his own duck
    assert state.shot == [0, 1, 0]
    assert cards(state.gallery) == [B, OR, W, B, G, OR]  # moved up; the pond's top came last
    assert state.gallery.targets == frozenset()
    view = state.public_view()
    assert view["seats"][1]["ducks_shot"] == 1 and view["seats"][1]["in_front"] == 2
    assert view["seats"][1]["ducks_left"] == 4
    reveal = state.history[-2]
    assert reveal.type == "reveal" and reveal.data == {"cards": [OR]}
    before = replay(state.game, state.players, state.history[:-2])
    assert before.check(reveal).rules == ("SIT-T2",)


def test_SIT_T2_the_last_place_stays_empty_once_the_pond_is_empty():
    state = basic([["billy-the-duck", "aim", "aim"], FILLER, FILLER])
    state.pond_counts.clear()  # set directly: the pond has run dry
    state.pond_order, state.pond_size = [], 0
    play(state, "billy_the_duck", position=1)
    assert cards(state.gallery) == [G, OR, W, B, G] and state.to_move() == 1
    assert state.public_view()["line"][5] == {"position": 6, "card": None, "owner": None,
                                              "target": False, "bottoms_up": None,
                                              "covered": None}
    assert state.gallery.check("aim", 1, {"position": 6}).ok  # positions stay aimable
    assert Gallery(state.gallery.spots, {6}, state.colours).check("fire", 1, {"position": 6}).ok


def billy_game() -> SittingDucksState:
    """Blue ducks first, then green: every turn Billy the Duck shoots the front target colour."""
    mix = {"billy-the-duck": 30}
    line = [B, B, B, B, B, W]
    state = table(line, [["billy-the-duck"] * 3] * 3, pond=[G, G, G, G, G], action_mix=mix)
    return state


def shoot_front(state: SittingDucksState, colour: str) -> None:
    position = next(p for p, s in enumerate(state.gallery.spots, 1) if s.card == colour)
    play(state, "billy_the_duck", position=position)


def test_SIT_T3_a_player_without_ducks_keeps_playing_but_cannot_win():
    state = billy_game()
    assert state.to_move() == 0
    for _ in range(5):
        shoot_front(state, B)
    assert state.shot == [5, 0, 0] and not state.is_over()
    view = state.public_view()["seats"][0]
    assert view["eliminated"] and view["ducks_left"] == 0 and view["in_front"] == 6
    assert state.to_move() == 2
    shoot_front(state, G)
    assert state.to_move() == 0 and state.legal_events(0)  # Ann still takes her turn
    shoot_front(state, G)
    assert state.shot == [5, 2, 0]


def test_SIT_W1_the_last_player_with_ducks_wins():
    state = billy_game()
    for _ in range(5):
        shoot_front(state, B)
    for _ in range(5):
        assert not state.is_over()
        shoot_front(state, G)
    assert state.is_over() and state.winners() == [2] and state.scores() == [0, 0, 5]
    assert state.public_view()["winners"] == [2] and state.to_move() is None
    late = state.check(Event("billy_the_duck", 1, {"position": 1}))
    assert not late.ok and "game is over" in late.reason and "SIT-W1" in late.rules


def test_SIT_W1_two_last_ducks_falling_to_one_blow_share_the_win():
    state = basic([["two-at-one-blow", "aim", "aim"], FILLER, FILLER])
    state.shot = [4, 4, 5]  # set directly: Ann and Ben have one duck each left
    put(state, [B, G, W, W, W, W], targets=[1, 2])
    play(state, "two_at_one_blow", position=[1, 2])
    assert state.is_over() and state.winners() == [0, 1] and state.scores() == [0, 0, 0]


# ---- actions (pure line rules, then a few through the whole state) ---------------------------


def test_SIT_A1_aim_at_any_untargeted_position_even_water():
    g = gallery([B, W, G, OR, W, B], targets=[3])
    assert after(g, "aim", 0, {"position": 2}).targets == {2, 3}
    refused(g, "aim", 0, {"position": 3}, "already has a target")
    assert gallery([B] * 6, POSITIONS_ALL).playable("aim", 0) is None


def test_SIT_A2_fire_needs_a_target_and_shoots_only_a_duck():
    g = gallery([B, W, G, OR, W, B], targets=[2, 3])
    refused(g, "fire", 0, {"position": 1}, "has no target; Fire needs a targeted position")
    water = after(g, "fire", 0, {"position": 2})
    assert cards(water) == cards(g) and water.targets == {3}
    out = g.play("fire", 0, {"position": 3})
    assert out.shot == (G,) and [s.card for s in out.spots] == [B, W, OR, W, B]
    assert out.targets == {2}


def test_SIT_A3_double_barrel_needs_two_free_neighbours_else_one_target():
    g = gallery([B, W, G, OR, W, B], targets=[3])
    assert after(g, "double-barrel", 0, {"position": [5, 4]}).targets == {3, 4, 5}
    refused(g, "double-barrel", 0, {"position": [2, 3]}, "position 3 already has a target")
    refused(g, "double-barrel", 0, {"position": [1, 3]}, "not neighbours")
    refused(g, "double-barrel", 0, {"position": [1]}, "must lay two targets")
    refused(g, "double-barrel", 0, {"position": "4"}, "'position' must list 1 or 2")
    gaps = gallery([B, W, G, OR, W, B], targets=[2, 4, 6])
    assert gaps.free_pairs() == []
    assert after(gaps, "double-barrel", 0, {"position": [5]}).targets == {2, 4, 5, 6}
    assert gallery([B] * 6, POSITIONS_ALL).playable("double-barrel", 0) is None


def test_SIT_A4_billy_the_duck_shoots_any_duck_and_clears_its_target():
    g = gallery([B, W, G, OR, W, B], targets=[3])
    out = g.play("billy-the-duck", 1, {"position": 3})
    assert out.shot == (G,) and out.targets == frozenset()
    assert g.play("billy-the-duck", 1, {"position": 4}).targets == {3}
    refused(g, "billy-the-duck", 1, {"position": 2}, "Billy the Duck shoots a duck")


def test_SIT_A5_ricochet_shoots_beside_a_target_and_uses_that_target():
    g = gallery([B, W, G, OR, W, B], targets=[2, 4])
    refused(g, "ricochet", 0, {"position": 6}, "neither neighbour of position 6")
    refused(g, "ricochet", 0, {"position": 3}, "say which target is used with 'via'")
    out = g.play("ricochet", 0, {"position": 3, "via": 4})
    assert out.shot == (G,) and out.targets == {2}
    refused(g, "ricochet", 0, {"position": 1, "via": 3}, "must be a neighbour")
    refused(g, "ricochet", 0, {"position": 5, "via": 4}, "Ricochet shoots a duck")
    # A target on the shot duck's own place stays.
    h = gallery([B, W, G, OR, W, B], targets=[3, 4])
    out = h.play("ricochet", 0, {"position": 3})
    assert out.shot == (G,) and out.targets == {3}


def test_SIT_A6_two_at_one_blow_needs_two_neighbouring_targets():
    g = gallery([B, W, G, OR, W, B], targets=[3, 4, 6])
    refused(g, "two-at-one-blow", 0, {"position": [4, 5]}, "position 5 has no target")
    refused(g, "two-at-one-blow", 0, {"position": [4, 6]}, "not neighbours")
    refused(g, "two-at-one-blow", 0, {"position": [4]}, "must list 2 positions")
    out = g.play("two-at-one-blow", 0, {"position": [4, 3]})
    assert out.shot == (G, OR) and [s.card for s in out.spots] == [B, W, W, B]
    assert out.targets == {6}
    water = gallery([B, W, G, OR, W, B], targets=[1, 2]).play("two-at-one-blow", 0,
                                                             {"position": [1, 2]})
    assert water.shot == (B,) and [s.card for s in water.spots] == [W, G, OR, W, B]
    assert gallery([B] * 6, [1, 3, 5]).playable("two-at-one-blow", 0) is None


def test_SIT_A6_two_at_one_blow_through_the_state_refills_two_places():
    state = basic([["two-at-one-blow", "aim", "aim"], FILLER, FILLER], pond=[W, OR])
    put(state, BASIC_LINE, targets=[2, 3])  # set directly: two neighbouring targets
    play(state, "two_at_one_blow", position=[2, 3])
    assert cards(state.gallery) == [B, W, B, G, W, OR] and state.shot == [0, 1, 1]


def test_SIT_A7_move_left_and_right_stay_on_the_line_and_off_other_targets():
    g = gallery([B, W, G, OR, W, B], targets=[1, 3, 6])
    refused(g, "move-left", 0, {"position": 1}, "off the line")
    refused(g, "move-right", 0, {"position": 6}, "off the line")
    refused(g, "move-left", 0, {"position": 2}, "no target to move")
    assert after(g, "move-left", 0, {"position": 3}).targets == {1, 2, 6}
    assert after(g, "move-right", 0, {"position": 3}).targets == {1, 4, 6}
    blocked = gallery([B, W, G, OR, W, B], targets=[2, 3])
    refused(blocked, "move-left", 0, {"position": 3}, "position 2 already has a target")
    assert [d["position"] for d in blocked.options("move-right", 0)] == [3]


def test_SIT_A8_duck_march_sends_the_front_card_under_the_pond():
    state = basic([["duck-march", "aim", "aim"], FILLER, FILLER], pond=[OR, W])
    put(state, BASIC_LINE, targets=[1])
    last = state.pond_order[-1]
    play(state, "duck_march")
    assert cards(state.gallery) == [G, OR, W, B, G, OR]
    assert state.gallery.targets == {1}  # targets stay on their positions
    assert state.pond_order[-2:] == [last, B] and state.pond_counts[B] == 4


def test_SIT_A8_duck_march_with_an_empty_pond_brings_the_front_card_to_the_back():
    state = basic([["duck-march", "aim", "aim"], FILLER, FILLER])
    state.pond_counts.clear()  # set directly: the pond has run dry, the line is short
    state.pond_order, state.pond_size = [], 0
    put(state, [B, G, OR, W, B], targets=[5])
    play(state, "duck_march")
    assert cards(state.gallery) == [G, OR, W, B, B] and state.pond_size == 0
    assert state.history[-2] == Event("reveal", None, {"cards": [B]}, source="bot")


def test_SIT_A8_duck_march_takes_a_cover_and_its_hidden_duck_together():
    g = gallery([Spot(B, covered=G), Spot(OR, bottoms_up=1), W])
    out = g.play("duck-march", 0, {})
    assert out.under_pond == (B, G) and out.freed_bottoms_up == 0
    out2 = Gallery(out.spots, (), COLOURS3).play("duck-march", 0, {})
    assert out2.under_pond == (OR,) and out2.freed_bottoms_up == 1


def test_SIT_A9_slow_down_swaps_your_duck_with_the_card_behind():
    g = gallery([B, W, G, OR, W, B], targets=[2])
    assert cards(after(g, "slow-down", 0, {"position": 1})) == [W, B, G, OR, W, B]
    assert after(g, "slow-down", 0, {"position": 1}).targets == {2}
    refused(g, "slow-down", 0, {"position": 6}, "no card behind position 6")
    refused(g, "slow-down", 0, {"position": 3}, "only your own blue ducks")
    refused(g, "slow-down", 0, {"position": 2}, "not a duck")
    short = gallery([B, W, G, OR, B])
    refused(short, "slow-down", 0, {"position": 5}, "no card behind")


def test_SIT_A10_no_time_swaps_your_duck_with_the_card_in_front():
    g = gallery([B, W, G, OR, W, B])
    assert cards(after(g, "no-time", 2, {"position": 4})) == [B, W, OR, G, W, B]
    refused(g, "no-time", 0, {"position": 1}, "no card in front")
    refused(g, "no-time", 1, {"position": 4}, "only your own green ducks")


def test_SIT_A11_turbo_duck_moves_your_duck_to_the_front():
    g = gallery([B, W, G, OR, W, B], targets=[1, 4])
    moved = after(g, "turbo-duck", 2, {"position": 4})
    assert cards(moved) == [OR, B, W, G, W, B] and moved.targets == {1, 4}
    refused(g, "turbo-duck", 0, {"position": 1}, "already at the front")
    refused(g, "turbo-duck", 0, {"position": 3}, "own blue ducks")


def test_SIT_A12_duck_shuffle_rearranges_the_line_freely():
    g = gallery([B, Spot(W), Spot(G, covered=OR), Spot(OR, bottoms_up=0), W, B], targets=[1, 6])
    new = after(g, "duck-shuffle", 1, {"arrangement": [4, 3, 1, 2, 6, 5]})
    assert new.spots[0] == Spot(OR, bottoms_up=0) and new.spots[1] == Spot(G, covered=OR)
    assert new.targets == {1, 6}
    refused(g, "duck-shuffle", 1, {"arrangement": [1, 2, 3]}, "each occupied position")
    refused(g, "duck-shuffle", 1, {"arrangement": [1, 1, 2, 3, 4, 5]}, "each occupied position")
    # One option per distinct resulting line: B,W,G~,OR^,W,B has 6!/(2!2!) = 180 orders.
    assert len(g.options("duck-shuffle", 0)) == 180


def test_SIT_A13_duck_dance_shuffles_the_line_into_the_pond_and_deals_a_new_one():
    state = basic([["duck-dance", "aim", "aim"], FILLER, FILLER])
    put(state, [Spot(B, bottoms_up=1), Spot(G, covered=OR), W, OR, W, B], targets=[2, 5])
    pond_before = state.pond_size
    state.apply_or_raise(Event("duck_dance", 0))
    assert state.gallery.spots == () and state.pond_size == pond_before + 7
    assert "pond must be shuffled" in state.describe_next()
    assert state.discard == ["action-bottoms-up", "action-duck-dance"]
    bad = state.check(Event("shuffle", None, {"pile": "pond", "order": [W] * 21}))
    assert not bad.ok and "exactly the 21 cards" in bad.reason
    rng = random.Random(5)
    cited = []
    while state.needs_chance():
        cited.append(state.apply_or_raise(state.chance_event(rng)).rules)
    assert cited[:2] == [("SIT-A13",), ("SIT-A13",)]  # the pond shuffled, the new line laid
    assert len(state.gallery.spots) == 6 and state.gallery.targets == {2, 5}
    assert all(s.covered is None and s.bottoms_up is None for s in state.gallery.spots)


def test_SIT_A14_cover_hides_a_duck_under_a_neighbouring_duck_never_water():
    g = gallery([B, W, G, OR, W, B], targets=[2])
    refused(g, "cover", 0, {"position": 1, "behind": 2}, "position 2 is water")
    refused(g, "cover", 0, {"position": 1, "behind": 3}, "not neighbours")
    refused(g, "cover", 0, {"position": 2, "behind": 3}, "only a duck can take cover")
    hidden = after(g, "cover", 1, {"position": 3, "behind": 4})
    assert hidden.spots[2] == Spot(OR, covered=G)
    assert cards(hidden) == [B, W, OR, W, B] and hidden.targets == {2}
    refused(gallery([Spot(OR, covered=G), B]), "cover", 0, {"position": 1, "behind": 2},
            "cannot go under cover")
    refused(gallery([B, Spot(OR, covered=G)]), "cover", 0, {"position": 1, "behind": 2},
            "already hides a duck")
    refused(gallery([Spot(B, bottoms_up=2), G]), "cover", 0, {"position": 1, "behind": 2},
            "wears Bottoms Up", "SIT-A15")
    refused(gallery([W, B]), "cover", 0, {"position": 2, "behind": 3}, "position 3 is empty")


def test_SIT_A14_a_hidden_duck_moves_with_its_cover_and_takes_its_place_when_shot():
    g = gallery([B, Spot(OR, covered=G), W, B], targets=[2])
    moved = after(g, "turbo-duck", 2, {"position": 2})
    assert moved.spots[0] == Spot(OR, covered=G)
    out = g.play("fire", 0, {"position": 2})
    assert out.shot == (OR,) and [s.card for s in out.spots] == [B, G, W, B]  # nothing moves up
    assert out.spots[1] == Spot(G)


def test_SIT_A14_cover_through_the_state_closes_the_line_and_refills():
    state = basic([["cover", "aim", "aim"], FILLER, FILLER], pond=[W])
    play(state, "cover", position=1, behind=2)
    assert state.gallery.spots[0] == Spot(G, covered=B)
    assert cards(state.gallery) == [G, OR, W, B, G, W]
    view = state.public_view()
    assert view["line"][0]["covered"] == B and view["seats"][0]["ducks_in_line"] == 2


def test_SIT_A15_bottoms_up_protects_a_duck_from_shots_but_not_aim():
    g = gallery([Spot(B, bottoms_up=1), G, W], targets=[1, 2])
    assert g.check("aim", 0, {"position": 3}).ok
    refused(g, "billy-the-duck", 0, {"position": 1}, "under Bottoms Up", "SIT-A15")
    refused(g, "ricochet", 0, {"position": 1, "via": 2}, "under Bottoms Up", "SIT-A15")
    fire = g.play("fire", 0, {"position": 1})
    assert fire.shot == () and fire.spots == g.spots and fire.targets == {2}
    blow = g.play("two-at-one-blow", 0, {"position": [1, 2]})
    assert blow.shot == (G,) and [s.card for s in blow.spots] == [B, W]
    refused(g, "bottoms-up", 0, {"position": 1}, "already wears Bottoms Up")
    refused(g, "bottoms-up", 0, {"position": 3}, "Bottoms Up goes on a duck")


def test_SIT_A15_bottoms_up_lasts_until_its_players_next_turn():
    state = basic([["bottoms-up", "aim", "aim"], ["aim", "aim", "aim"], FILLER])
    play(state, "bottoms_up", position=2)  # Ann protects Ben's duck
    assert state.gallery.spots[1] == Spot(G, bottoms_up=0)
    assert "action-bottoms-up" not in state.discard  # the card lies on the duck
    assert state.public_view()["line"][1]["bottoms_up"] == 0
    play(state, "aim", position=2)  # Ben
    assert state.gallery.spots[1].bottoms_up == 0
    play(state, "aim", position=3)  # Cat; then Ann's turn begins and her card is discarded
    assert state.to_move() == 0 and state.gallery.spots[1] == Spot(G)
    assert state.discard[-1] == "action-bottoms-up"


# ---- bad input: clear verdicts, nothing changed -----------------------------------------------


def bad_input_state() -> SittingDucksState:
    hands = [["fire", "move-left", "cover"], ["two-at-one-blow", "aim", "aim"], FILLER]
    state = basic(hands, line=[B, W, G, OR, W, B])
    put(state, [B, W, G, OR, W, B], targets=[1, 3])
    return state


@pytest.mark.parametrize("event, words, rule", [
    (Event("fire", 0, {"position": 2}), "position 2 has no target", "SIT-A2"),
    (Event("move_left", 0, {"position": 1}), "off the line", "SIT-A7"),
    (Event("cover", 0, {"position": 1, "behind": 2}), "position 2 is water", "SIT-A14"),
    (Event("discard", 0, {"action": "cover"}), "Fire can be played", "SIT-T1"),
    (Event("two_at_one_blow", 0, {"position": [1, 2]}), "does not hold", "SIT-T1"),
    (Event("aim", 0, {"position": 2}), "Ann does not hold action-aim", "SIT-T1"),
    (Event("aim", 1, {"position": 2}), "Ann's turn", "SIT-S2"),
    (Event("reveal", None, {"cards": [W]}), "'reveal' is not expected now", None),
    (Event("draw", 0, {"card": "action-aim"}), "is not expected now", None),
    (Event("fire", 0, {"position": 7}), "must be one of [1, 2, 3, 4, 5, 6]", None),
    (Event("fire", 0, {"position": "1"}), "must be one of", None),
    (Event("fire", 0, {"position": True}), "must be one of [1, 2, 3, 4, 5, 6], got True", None),
    (Event("fire", 0, {"position": 1, "colour": "red"}), "has no field(s) ['colour']", None),
    (Event("fire", 0, {}), "needs the field 'position'", None),
    (Event("fire", None, {"position": 1}), "needs the seat", None),
    (Event("shoot", 0, {"position": 1}), "not an event of Sitting Ducks", None),
    (Event("discard", 0, {"action": "duck-blue"}), "field 'action' must be one of", None),
    (Event("discard", 0, {"action": "fire", "shown": ["laser"]}), "'shown' must list actions",
     "SIT-T1"),
])
def test_bad_input_is_refused_clearly_and_changes_nothing(event, words, rule):
    state = bad_input_state()
    before = snapshot(state)
    verdict = state.apply(event)
    assert not verdict.ok and words in verdict.reason, verdict
    if rule is not None:
        assert rule in verdict.rules, verdict
    assert snapshot(state) == before


def test_bad_input_two_at_one_blow_without_two_neighbouring_targets():
    state = bad_input_state()
    play(state, "fire", position=1)  # Ann shoots her own duck; targets left: 3
    before = snapshot(state)
    verdict = state.apply(Event("two_at_one_blow", 1, {"position": [2, 3]}))
    assert not verdict.ok and "position 2 has no target" in verdict.reason
    assert "SIT-A6" in verdict.rules and snapshot(state) == before


def test_bad_chance_events_are_refused_and_change_nothing():
    state = basic([["fire", "aim", "aim"], FILLER, FILLER])
    put(state, BASIC_LINE, targets=[1])
    state.apply_or_raise(Event("fire", 0, {"position": 1}))
    before = snapshot(state)
    for event, words in [
        (Event("draw", 0, {"card": "action-aim"}), "nobody draws now"),
        (Event("shuffle", None, {"pile": "actions", "order": []}), "not shuffled now"),
        (Event("reveal", None, {"cards": [B, B]}), "exactly 1 card"),
        (Event("aim", 1, {"position": 2}), "nobody may 'aim' now; the line must be filled"),
    ]:
        verdict = state.apply(event)
        assert not verdict.ok and words in verdict.reason, verdict
        assert snapshot(state) == before


def test_views_show_the_scoreboard_and_hide_hands():
    state = basic([["bottoms-up", "aim", "aim"], FILLER, FILLER])
    view = state.public_view()
    assert [p["position"] for p in view["line"]] == [1, 2, 3, 4, 5, 6]
    assert view["line"][0] == {"position": 1, "card": B, "owner": 0, "target": False,
                               "bottoms_up": None, "covered": None}
    assert view["seats"][2] == {
        "seat": 2, "name": "Cat", "colour": "orange", "ducks_in_line": 1, "ducks_in_pond": 4,
        "ducks_left": 5, "ducks_shot": 0, "in_front": 1, "eliminated": False, "hand_size": 3,
    }
    assert view["pond_size"] == 14 and view["targets_left"] == 6 and view["turn"] == 0
    assert "hand" not in view and "action-aim" not in str(view)
    assert state.player_view(0)["hand"] == ["action-aim", "action-aim", "action-bottoms-up"]
    assert all("order" not in e.get("data", {}) for e in view["last_events"])
    obs = replay(state.game, state.players,
                 [state.game.public_event(e) for e in state.history], observer=True)
    assert obs.player_view(0)["hand"] is None


def test_SIT_C1_observer_refuses_an_action_card_whose_every_copy_is_played():
    """Hands are unknown to a camera, but played cards lie face up: a second Turbo Duck (the
    default deck has one) cannot come from a hand before the played cards are reshuffled."""
    full = basic([["turbo-duck", "aim", "aim"], FILLER, FILLER])
    game = full.game
    assert game.action_cards["action-turbo-duck"] == 1
    obs = replay(game, full.players, [game.public_event(e) for e in full.history], observer=True)
    position = next(i + 1 for i, s in enumerate(obs.gallery.spots)
                    if obs.gallery.owner(s.card) == 0 and i > 0)
    obs.apply_or_raise(Event("turbo_duck", 0, {"position": position}))
    while obs.needs_chance():
        obs.apply_or_raise(Event("draw", obs.draw_queue[0], {}))
    again = obs.check(Event("turbo_duck", 1, {"position": 2}))
    assert not again.ok and "every action-turbo-duck card of this deck (1) is already played" \
        in again.reason and again.rules == ("SIT-C1", "SIT-T1")
    assert obs.check(Event("aim", 1, {"position": 2})).ok  # other cards still may be held

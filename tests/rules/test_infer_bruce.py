"""Duck Duck Bruce events inferred from table snapshots.

Hand-made frames lay cards as players would by the convention in ``rules/infer_bruce.py`` (draw
pile, row, discard pile and steal area in the middle, a nest per seat); every frame is 66 ms.
The last test replays whole bot games from oracle snapshots of their synthetic video
(``vision/table_video_bruce.py``).
"""

from __future__ import annotations

import random
from dataclasses import replace

from ducktable.rules import Event, make_game
from ducktable.rules.bruce import DECK_COUNTS, BruceState
from ducktable.rules.decks import BACK, UNKNOWN
from ducktable.rules.infer_base import TableFollower
from ducktable.rules.infer_bruce import DISCARD, DRAW, ROW, STEAL, BruceInferrer, nest_zone
from ducktable.rules.snapshot import snapshot_of
from ducktable.rules.stability import StabilityTracker
from ducktable.sim import table_video_bruce
from ducktable.sim.table_script import TableScript, replay_script
from ducktable.sim.table_video import FRAME_MS as VIDEO_FRAME_MS
from ducktable.sim.table_video import oracle_snapshots

from tests.sizes import reduced_or_full

FRAME_MS = 66
NAMES = {"draw": DRAW, "row": ROW, "discard": DISCARD, "steal": STEAL, "n0": nest_zone(0),
         "n1": nest_zone(1), "n2": nest_zone(2)}


class Table:
    """A 3-player Duck Duck Bruce table seen from above, and a follower watching it."""

    def __init__(self) -> None:
        state = make_game("bruce").new_state(["Ann", "Ben", "Cat"], observer=True)
        self.follower = TableFollower(state, BruceInferrer(), StabilityTracker(window=5, needed=3))
        self.zones: dict[str, list[str]] = {name: [] for name in NAMES.values()}
        self.ts = 0

    @property
    def state(self) -> BruceState:
        assert isinstance(self.follower.state, BruceState)
        return self.follower.state

    def lay(self, frames: int = 4, hidden: tuple[str, ...] = (), **zones: list[str]) -> list[Event]:
        """Change some zones (``row=[...]``, ``n0=[...]``) and show the table for ``frames``
        frames, with a hand over the zones in ``hidden``; return the events applied."""
        for key, labels in zones.items():
            self.zones[NAMES[key]] = labels
        applied = []
        for _ in range(frames):
            self.ts += FRAME_MS
            view = {name: None if name in hidden else labels for name, labels in self.zones.items()}
            applied += [i.event for i in self.follower.feed(snapshot_of(self.ts, view)).applied]
        return applied

    def tell(self, etype: str, seat: int, **data: object) -> bool:
        """A person enters an event the camera cannot see (a declaration, a die roll)."""
        return self.follower.manual(Event(etype, seat, data, self.ts, "button")).ok

    def pending_why(self) -> str:
        return self.follower.pending.why if self.follower.pending is not None else ""


def brief(events: list[Event]) -> list[tuple[str, int | None, dict]]:
    return [(e.type, e.seat, dict(e.data)) for e in events]


def shuffled() -> Table:
    table = Table()
    assert brief(table.lay(draw=[BACK])) == [("shuffle", None, {})]
    return table


def test_BRUCE_R2_shuffle_is_a_draw_pile_laid_on_a_clear_table():
    table = Table()
    assert table.lay() == []  # an empty table: nothing yet
    applied = table.lay(draw=[BACK])
    assert brief(applied) == [("shuffle", None, {})]
    assert applied[0].source == "camera" and table.state.phase == "reveal"


def test_BRUCE_T1_T2_row_growth_is_a_reveal_then_continue_and_reveal():
    table = shuffled()
    assert brief(table.lay(row=["red-1"])) == [("reveal", 0, {"card": "red-1"})]
    assert table.state.phase == "choose"
    applied = table.lay(row=["red-1", "blue-2"])
    assert brief(applied) == [("continue", 0, {}), ("reveal", 0, {"card": "blue-2"})]
    assert applied[1].ts == applied[0].ts  # both from the frame where the card first showed


def test_BRUCE_T2_row_going_to_the_nest_is_a_stop():
    table = shuffled()
    table.lay(row=["red-1"])
    table.lay(row=["red-1", "blue-2"])
    assert brief(table.lay(row=[], n0=[BACK])) == [("stop", 0, {})]
    assert table.state.nests[0] == ["red-1", "blue-2"] and table.state.current == 1
    assert brief(table.lay(row=["green-3"])) == [("reveal", 1, {"card": "green-3"})]


def test_BRUCE_T3_double_duck_A_B_C_D_with_D_matching_B_keeps_A_only():
    table = shuffled()
    for row in (["red-1"], ["red-1", "blue-2"], ["red-1", "blue-2", "green-3"]):
        table.lay(row=row)
    applied = table.lay(row=["red-1", "blue-2", "green-3", "blue-4"])
    assert brief(applied) == [("continue", 0, {}), ("reveal", 0, {"card": "blue-4"})]
    assert table.state.nests[0] == ["red-1"]
    assert table.state.discard == ["blue-2", "green-3", "blue-4"] and table.state.current == 1
    assert table.lay(row=[], discard=["blue-4"], n0=[BACK]) == []  # clearing it is no stop
    assert brief(table.lay(row=["pink-2"])) == [("reveal", 1, {"card": "pink-2"})]


def test_BRUCE_T4_bruce_then_declaration_and_roll_by_hand_then_the_steal_shown():
    table = shuffled()
    table.lay(row=["red-1"])
    table.lay(row=["red-1", "blue-2"])
    table.lay(row=[], n0=[BACK])  # Ann keeps two ducks
    assert brief(table.lay(row=["bruce"])) == [("reveal", 1, {"card": "bruce"})]
    assert table.lay(row=[], discard=["bruce"]) == []  # Bruce takes the row away
    assert table.state.phase == "declare"
    assert table.tell("declare", 1, opponent=0, n=2) and table.tell("roll", 1, face=3)
    applied = table.lay(steal=["blue-2", "red-1"], n0=[])  # Ben shows the two cards won
    assert brief(applied) == [("steal", 1, {"cards": ["blue-2", "red-1"]})]
    assert table.state.nests == [[], ["blue-2", "red-1"], []]
    assert table.lay(steal=[], n1=[BACK]) == []


def test_BRUCE_T2_row_gone_after_a_hand_over_the_draw_pile_is_held():
    """A card flipped and swept away too fast to read would look like a stop."""
    table = shuffled()
    table.lay(row=["red-1"])
    table.lay(2, hidden=(DRAW, ROW))
    assert table.lay(row=[]) == []
    assert "reached over the draw pile" in table.pending_why()


def test_BRUCE_T1_each_card_turned_over_by_a_hand_over_the_draw_pile_is_applied():
    """Laying the draw pile and turning each card over are reaches over it, one per new card."""
    table = Table()
    table.lay(2, hidden=(DRAW,))
    assert brief(table.lay(draw=[BACK])) == [("shuffle", None, {})]
    for row in (["red-1"], ["red-1", "blue-2"]):
        table.lay(2, hidden=(DRAW, ROW))
        assert table.lay(row=row)
    table.lay(2, hidden=(ROW, NAMES["n0"]))
    assert brief(table.lay(row=[], n0=[BACK])) == [("stop", 0, {})]
    table.lay(2, hidden=(DRAW, ROW))
    assert brief(table.lay(row=["green-3"])) == [("reveal", 1, {"card": "green-3"})]


def test_BRUCE_T1_T5_a_turn_the_camera_never_saw_is_held():
    """Ben turns a card over that the camera does not make out (the row still reads empty) and
    keeps it; Cat's first card then must not be taken for Ben's: the hand reached over the draw
    pile twice for one new card."""
    table = shuffled()
    table.lay(2, hidden=(DRAW, ROW))
    table.lay(row=["red-1"])
    table.lay(2, hidden=(ROW, NAMES["n0"]))
    assert brief(table.lay(row=[], n0=[BACK])) == [("stop", 0, {})]
    table.lay(2, hidden=(DRAW, ROW))  # Ben's blue 2, read as nothing
    table.lay(row=[])
    table.lay(2, hidden=(ROW, NAMES["n1"]))
    table.lay(row=[], n1=[BACK])
    table.lay(2, hidden=(DRAW, ROW))
    assert table.lay(row=["green-3"]) == []
    assert "reached over the draw pile 2 times" in table.pending_why()
    assert table.state.current == 1 and table.state.row == []


def test_BRUCE_T3_row_gone_with_a_new_discard_top_is_held():
    table = shuffled()
    table.lay(row=["red-1"])
    assert table.lay(row=[], discard=["red-3"]) == []
    assert "discard pile changed" in table.pending_why()


def test_unrecognised_flip_is_held_not_applied():
    table = shuffled()
    assert table.lay(row=[UNKNOWN]) == []
    assert "could not be recognised" in table.pending_why()


def test_BRUCE_T1_T2_a_flip_made_out_only_after_the_next_one_is_caught_up_flip_by_flip():
    """Blue 2 is not made out until green 3 is turned over after it (model-mode game, bruce
    seed 12): the row then shows two new cards, flipped in that order with the turn going on."""
    table = shuffled()
    table.lay(row=["red-1"])
    assert table.lay(row=["red-1", UNKNOWN]) == []
    applied = table.lay(row=["red-1", "blue-2", "green-3"])
    assert brief(applied) == [("continue", 0, {}), ("reveal", 0, {"card": "blue-2"}),
                              ("continue", 0, {}), ("reveal", 0, {"card": "green-3"})]
    assert table.follower.pending is None and table.state.row == ["red-1", "blue-2", "green-3"]


def test_BRUCE_T3_T4_a_row_grown_past_a_double_duck_or_a_bruce_is_not_caught_up():
    """A card of a colour already in the row, or a Bruce, ends the turn (BRUCE-T3, T4): a row
    showing more cards after it is a misread, so nothing is applied."""
    for middle in ("red-2", "bruce"):
        table = shuffled()
        table.lay(row=["red-1"])
        assert table.lay(row=["red-1", middle, "green-3"]) == []
        assert table.state.row == ["red-1"]


def test_flip_entered_by_hand_is_not_read_again_from_the_table():
    table = shuffled()
    assert table.follower.manual(Event("reveal", 0, {"card": "red-1"}, table.ts)).ok
    assert table.lay(row=["red-1"]) == []  # the table now agrees with the scoreboard
    applied = table.lay(row=["red-1", "blue-2"])
    assert brief(applied) == [("continue", 0, {}), ("reveal", 0, {"card": "blue-2"})]


def test_bruce_script_changes_the_table_only_under_a_hand_and_ends_with_the_game():
    game = table_video_bruce.bruce_bot_game(3, options={"end": "rounds:1"})
    script = table_video_bruce.bruce_script(game, random.Random(3))
    assert script.shots[-1].event_index == len(game.events)
    assert {p.event.type for p in script.presses} == {"declare", "roll"}
    for before, after in zip(script.shots, script.shots[1:], strict=False):
        changed = {name for (name, a), (_, b) in zip(before.zones, after.zones, strict=True) if a != b}
        assert changed <= after.covered, "a zone changed with no hand over it"


@reduced_or_full(5, 20)
def test_BRUCE_oracle_replay_of_bot_games_reproduces_scores_with_no_wrong_event(size):
    """End to end (oracle snapshots, 2% misread cards): >= 95% of whole games end with
    the true scores and no camera event is ever applied that the true log does not contain."""
    results = [table_video_bruce.oracle_replay(seed) for seed in range(size)]
    assert all(r.wrong_applied == 0 for r in results), [r.first_problem for r in results if r.first_problem]
    assert sum(r.exact_scores for r in results) >= size - size // 20
    for kind in ("reveal", "stop", "steal", "shuffle"):
        tally = [r.by_type[kind] for r in results if kind in r.by_type]
        assert sum(t.camera for t in tally) >= 0.95 * sum(t.true for t in tally), kind


def test_a_video_cut_short_counts_the_last_event_the_camera_applied():
    """When the frames run out, the event the camera applied last is counted with the camera's
    (it stays open only to a later grey's withdrawal, GREY-G1): a video cut well after a flip
    settled counts every flip made so far, the last one too."""
    game = table_video_bruce.bruce_bot_game(3)
    script = table_video_bruce.bruce_script(game, random.Random(3))
    pressed_at = {p.index for p in script.presses}
    made, cut = next((shot.event_index, k + 12) for k, shot in enumerate(script.shots)
                     if shot.event_index > 5 and shot.event_index - 1 not in pressed_at
                     and all(s.event_index == shot.event_index for s in script.shots[k:k + 12]))
    shots = script.shots[:cut]
    snaps = oracle_snapshots(shots, sorted(DECK_COUNTS), misread=0.0, seed=3)
    result = replay_script(TableScript(script.game, shots, script.presses), snaps, BruceInferrer(),
                           StabilityTracker(window=5, needed=3), seed=3)
    pressed = sum(index < made for index in pressed_at)
    assert result.camera_in_video + result.hand_in_video == made - pressed
    assert result.wrong_applied == 0


def test_the_person_waits_while_a_hand_is_still_over_the_table():
    """A move made under a hand held there for two seconds, longer than the person's patience,
    is not entered by the person while the hand hides it: once the hand leaves, the camera
    records it."""
    game = table_video_bruce.bruce_bot_game(3)
    script = table_video_bruce.bruce_script(game, random.Random(3))
    pressed_at = {p.index for p in script.presses}
    k = next(i for i in range(1, len(script.shots)) if script.shots[i].event_index > 5
             and script.shots[i].event_index != script.shots[i - 1].event_index
             and script.shots[i].covered and script.shots[i].event_index - 1 not in pressed_at)
    slow = 30  # frames the hand stays
    shots = [replace(shot, ts=round(n * VIDEO_FRAME_MS)) for n, shot in
             enumerate(script.shots[:k] + [script.shots[k]] * slow + script.shots[k + 1:k + 40])]
    presses = [replace(p, frame=p.frame + slow - 1 if p.frame > k else p.frame) for p in script.presses]
    snaps = oracle_snapshots(shots, sorted(DECK_COUNTS), misread=0.0, seed=3)
    result = replay_script(TableScript(script.game, shots, presses), snaps, BruceInferrer(),
                           StabilityTracker(window=5, needed=3), seed=3)
    made = script.shots[k].event_index
    assert result.hand_in_video == 0
    assert result.camera_in_video >= made - sum(index < made for index in pressed_at)

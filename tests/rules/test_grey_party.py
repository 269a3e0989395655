"""Grey Duck party over several tables (GREY-V2): seating, the Ducklings' rotation, standings,
JSON persistence, bad reports."""

from __future__ import annotations

import json
import random

import pytest
from ducktable.rules.grey import GreyDuckGame, simulate_grey
from ducktable.rules.grey_party import Party, PartyError, even_table_sizes

PLAYERS = [f"P{i:02d}" for i in range(9)]  # tables of 5 and 4


@pytest.mark.parametrize("players, sizes", [
    (6, [3, 3]), (7, [4, 3]), (8, [4, 4]), (9, [5, 4]), (10, [5, 5]), (11, [4, 4, 3]),
    (12, [4, 4, 4]), (13, [5, 4, 4]), (16, [4, 4, 4, 4]),
])
def test_grey_V2_tables_as_even_as_possible(players, sizes):
    assert even_table_sizes(players) == sizes


def test_grey_V2_first_round_seats_players_in_order_without_a_swap():
    party = Party(PLAYERS)
    first, second = party.tables()
    assert first.players == tuple(PLAYERS[:5]) and second.players == tuple(PLAYERS[5:])
    assert first.match_options() == {"hands": 1, "names": "classic", "first_dealer": 0,
                                     "swap_captain": -1, "swap_duckling": -1}


def test_grey_V2_ducklings_move_to_the_next_table_and_deal():
    party = Party(PLAYERS)
    party.record_hand(0, ["P01", "P00", "P02", "P04", "P03"])  # P03 is table 0's Duckling
    assert party.round == 1  # waits for table 1
    party.record_hand(1, ["P08", "P05", "P06", "P07"])  # P07 is table 1's Duckling
    assert party.round == 2
    t0, t1 = party.tables()
    assert t0.players == ("P00", "P01", "P02", "P07", "P04")  # P07 takes P03's seat
    assert t1.players == ("P05", "P06", "P03", "P08")  # P03 takes P07's seat
    assert (t0.captain, t0.duckling, t0.dealer) == (1, 3, 3)  # P01 stays Captain
    assert (t1.captain, t1.duckling, t1.dealer) == (3, 2, 2)
    options = t1.match_options("minnesota")
    assert (options["swap_captain"], options["swap_duckling"], options["names"]) == (3, 2, "minnesota")
    state = GreyDuckGame(options).new_state(t1.players)
    assert state.dealer == 2 and state.swap is None
    state.apply_or_raise(state.chance_event(random.Random(1)))
    assert state.phase == "swap" and state.to_move() == 2


def test_grey_V2_standings_sum_every_table_and_ties_share_a_rank():
    party = Party([f"Q{i}" for i in range(7)])  # a table of 4 and a table of 3
    party.record_hand(0, ["Q0", "Q1", "Q2", "Q3"])
    party.record_hand(1, ["Q4", "Q5", "Q6"])
    rows = {r["name"]: r for r in party.standings()}
    assert [rows[n]["total"] for n in ("Q0", "Q1", "Q2", "Q3")] == [4, 3, 2, 1]
    assert [rows[n]["total"] for n in ("Q4", "Q5", "Q6")] == [4, 3, 1]  # 3 players: 4, 3, 1
    assert rows["Q0"]["rank"] == rows["Q4"]["rank"] == 1 and rows["Q1"]["rank"] == 3
    assert rows["Q6"]["hands"] == [{"round": 1, "table": 1, "place": 3, "points": 1}]


def test_grey_V2_a_whole_party_played_by_bots():
    party = Party(PLAYERS, hands=12)
    seed = 0
    while not party.is_over():
        for table in party.tables():
            run = simulate_grey(seed, table.players, options=table.match_options())
            seed += 1
            party.attach_match(table.table, f"m{seed}")
            party.record_state(table.table, run.state)
    rows = party.standings()
    assert sum(r["total"] for r in rows) == 12 * (sum((4, 3, 2, 2, 1)) + sum((4, 3, 2, 1)))
    assert all(len(r["hands"]) == 12 for r in rows)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    again = Party.from_json(json.loads(json.dumps(party.to_json())))
    assert again.to_json() == party.to_json() and again.standings() == rows
    assert again.rounds[5][1].match_id == party.rounds[5][1].match_id
    with pytest.raises(PartyError, match="party is over"):
        party.record_hand(0, list(party.tables()[0].players))


def test_grey_V2_bad_reports_are_clear_errors_and_change_nothing():
    party = Party(PLAYERS)
    saved = party.to_json()
    with pytest.raises(PartyError, match="each of them once"):
        party.record_hand(0, ["P00", "P00", "P01", "P02", "P03"])
    with pytest.raises(PartyError, match="table 5 does not exist"):
        party.record_hand(5, PLAYERS[:5])
    party.record_hand(0, PLAYERS[:5])
    with pytest.raises(PartyError, match="correct_hand"):
        party.record_hand(0, list(reversed(PLAYERS[:5])))
    with pytest.raises(PartyError, match="each of them once"):
        party.correct_hand(0, PLAYERS[5:])
    assert party.tables()[0].order == tuple(PLAYERS[:5])
    party.correct_hand(0, list(reversed(PLAYERS[:5])))
    assert party.tables()[0].order == tuple(reversed(PLAYERS[:5]))
    assert saved["rounds"][0][0]["order"] is None


@pytest.mark.parametrize("players, sizes, words", [
    (PLAYERS[:5], None, "at least 6"),
    (PLAYERS, [6, 3], "3 to 5"),
    (PLAYERS, [4, 4], "seat 8"),
    (PLAYERS[:8] + ["P00"], None, "different"),
])
def test_grey_V2_bad_set_ups_are_clear_errors(players, sizes, words):
    with pytest.raises(PartyError, match=words):
        Party(players, table_sizes=sizes)


def test_grey_V2_saved_party_that_does_not_follow_the_rotation_is_refused():
    party = Party(PLAYERS)
    party.record_hand(0, PLAYERS[:5])
    party.record_hand(1, PLAYERS[5:])
    saved = party.to_json()
    saved["rounds"][1][0]["players"][0] = "P08"
    with pytest.raises(PartyError, match="does not match the rotation"):
        Party.from_json(saved)
    with pytest.raises(PartyError, match="version"):
        Party.from_json({**party.to_json(), "v": 7})
    with pytest.raises(PartyError, match="'rounds'"):
        Party.from_json({k: v for k, v in party.to_json().items() if k != "rounds"})

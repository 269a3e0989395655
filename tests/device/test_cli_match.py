"""Tests of the match commands (device/cli_match.py) and of the data folder (device/paths.py).

Commands run in-process through ``ducktable.device.cli.main`` with a temporary data folder.
Exit status: 0 legal, 1 illegal, 2 a user error printed as one line (never a traceback).
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from ducktable.device import cli, paths
from ducktable.device.cli_match import seats_to_log
from ducktable.device.store import MatchStore
from ducktable.rules import registry
from ducktable.rules.core import Event

from tests.device.test_store import add, deal, fingerprint, register_tally


class Shell:
    """Runs ``ducktable`` commands against one data folder and keeps what they printed."""

    def __init__(self, data: Path, capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> None:
        self.data = data
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.out = ""
        self.err = ""

    def __call__(self, *argv: str, stdin: str | None = None) -> int:
        if stdin is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = cli.main(["--data-dir", str(self.data), *argv])
        self.out, self.err = self.capsys.readouterr()
        return code

    def json(self, *argv: str) -> Any:
        assert self(*argv, "--json") == 0, self.err
        return json.loads(self.out)

    def store(self) -> MatchStore:
        return MatchStore(paths.database_path(self.data))


@pytest.fixture
def sh(tmp_path: Path, capsys: pytest.CaptureFixture[str],
       monkeypatch: pytest.MonkeyPatch) -> Shell:
    register_tally(monkeypatch)
    return Shell(tmp_path / "data", capsys, monkeypatch)


def started(sh: Shell, *extra: str) -> int:
    info = sh.json("start", "tally", "Ann", "Bob", *extra)
    return int(info["id"])


DEAL = json.dumps(deal(9).to_json())


def log_json(event: Any) -> str:
    """An event as the match log writes it (seats from 0)."""
    return json.dumps(event.to_json())


def event_json(event: Any) -> str:
    """An event as a person types it for submit, check and correct: seats from 1."""
    typed = event.to_json()
    if typed.get("seat") is not None:
        typed["seat"] += 1
    return json.dumps(typed)


# --------------------------------------------------------------------------------------------
# Data folder
# --------------------------------------------------------------------------------------------


def test_data_dir_option_beats_environment_beats_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv(paths.ENV_VAR, raising=False)
    assert paths.data_dir() == tmp_path / "home" / ".local" / "share" / "ducktable"
    monkeypatch.setenv(paths.ENV_VAR, str(tmp_path / "env"))
    assert paths.data_dir() == tmp_path / "env"
    assert paths.data_dir("") == tmp_path / "env"  # an empty option counts as not given
    assert paths.data_dir(tmp_path / "opt") == tmp_path / "opt"
    assert all(p.is_dir() for p in (tmp_path / "home/.local/share/ducktable", tmp_path / "env",
                                    tmp_path / "opt"))


def test_one_function_per_place_inside_the_data_dir(tmp_path: Path) -> None:
    assert paths.database_path(tmp_path) == tmp_path / "matches.sqlite3"
    assert paths.calibration_dir(tmp_path) == tmp_path / "calibration"
    assert paths.enrolled_decks_dir(tmp_path) == tmp_path / "decks"
    assert (tmp_path / "calibration").is_dir() and (tmp_path / "decks").is_dir()


def test_a_file_where_the_data_dir_should_be_is_a_clear_error(
    tmp_path: Path, sh: Shell
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    with pytest.raises(paths.DataDirError, match="is a file, not a folder"):
        paths.data_dir(blocker)
    assert sh("show") == 2
    assert sh.err.startswith("ducktable: error: ") and "--data-dir" in sh.err
    assert blocker.read_text() == "not a folder"


# --------------------------------------------------------------------------------------------
# start, submit, check
# --------------------------------------------------------------------------------------------


def test_start_prints_the_match_id_and_seats(sh: Shell) -> None:
    assert sh("start", "tally", "Ann", "Bob", "Cy", "--option", "target=15", "--name", "fri") == 0
    assert sh.out.strip() == "match 1 started: tally with seats 1: Ann, 2: Bob, 3: Cy"
    with sh.store() as s:
        info = s.match(1)
    assert (info.players, info.options, info.name) == (["Ann", "Bob", "Cy"], {"target": 15}, "fri")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["start", "chess", "a", "b"], "unknown game 'chess'"),
        (["start", "tally", "a"], "2 to 4 players"),
        (["start", "tally", "a", "b", "--option", "target"], "NAME=VALUE"),
        (["start", "tally", "a", "b", "--option", "target=high"], "must be int"),
        (["show", "7"], "there is no match 7"),
        (["submit", "7", DEAL], "there is no match 7"),
        (["undo", "7"], "there is no match 7"),
        (["export", "7"], "there is no match 7"),
        (["start", "tally", "Ann", " "], "every seat needs a name"),
        (["start", "tally", "Ann", "ann"], "two seats have the same name"),
        (["start", "tally", "Ann", "B\udcfeb"], "not UTF-8"),  # argv of another encoding
        (["start", "tally", "Ann", "Bob", "--name", "\udcff"], "not UTF-8"),
    ],
)
def test_user_errors_exit_2_with_one_clear_line(sh: Shell, argv: list[str], message: str) -> None:
    assert sh(*argv) == 2
    assert sh.err.count("\n") == 1 and sh.err.startswith("ducktable: error: ")
    assert message in sh.err
    assert "Traceback" not in sh.err


def test_submit_prints_the_verdict_and_records_the_event_TALLY_2(sh: Shell) -> None:
    mid = started(sh)
    assert sh("submit", str(mid), DEAL) == 0
    assert sh.out == "LEGAL: dealt [TALLY-1]\n"
    assert sh("submit", str(mid), event_json(add(0, "tally-3"))) == 0
    assert sh.out == "LEGAL: adds tally-3 [TALLY-2]\n"
    with sh.store() as s:
        assert s.events(mid) == [deal(9), add(0, "tally-3")]


def test_out_of_turn_submit_exits_1_and_records_nothing_TALLY_1(sh: Shell) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    assert sh("submit", str(mid), event_json(add(1))) == 1
    assert sh.out == "ILLEGAL: it is Ann's turn (seat 1), not Bob's (seat 2) [TALLY-1]\n"
    with sh.store() as s:
        assert s.events(mid) == [deal(9)]


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (event_json(add(0, "tally-7")), "ILLEGAL: 'add' field 'card': 'tally-7' is not a card"),
        (event_json(add(5)), "ILLEGAL: seat 6 does not exist; seats are 1..2"),
        ('{"type": "fold", "seat": 1}', "ILLEGAL: 'fold' is not an event of Tally"),
    ],
)
def test_bad_events_get_an_illegal_verdict_exit_1(sh: Shell, event: str, expected: str) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    for command in ("check", "submit"):
        assert sh(command, str(mid), event) == 1
        assert sh.out.startswith(expected)
    with sh.store() as s:
        assert len(s.events(mid)) == 1


@pytest.mark.parametrize("text", ['{"type": "add", "seat": 0, "data": {', "", '{"seat": 0}',
                                  "[]", '{"type": "add", "seat": 0, "data": {"n": ' + "9" * 5000
                                  + "}}", "[" * 50_000])
def test_unreadable_event_is_a_user_error_and_records_nothing(sh: Shell, text: str) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    for command in ("submit", "check"):
        assert sh(command, str(mid), text) == 2
        assert sh.err.startswith("ducktable: error: ") and sh.err.count("\n") == 1
    with sh.store() as s:
        assert len(s.events(mid)) == 1


def test_stdin_that_is_not_utf8_is_a_user_error(sh: Shell, tmp_path: Path) -> None:
    mid = started(sh)
    for argv in (["submit", str(mid), "-"], ["replay", "-"]):
        stdin = io.TextIOWrapper(io.BytesIO(b'{"type": "deal\xff"}'), encoding="utf-8")
        sh.monkeypatch.setattr("sys.stdin", stdin)
        assert sh(*argv) == 2
        assert "standard input is not UTF-8 text" in sh.err and "Traceback" not in sh.err


def test_a_log_file_with_a_number_too_long_is_a_user_error(sh: Shell, tmp_path: Path) -> None:
    log = tmp_path / "huge.jsonl"
    log.write_text('{"format": ' + "9" * 5000 + "}\n")
    for command in ("replay", "import"):
        assert sh(command, str(log)) == 2
        assert "a number too long to read" in sh.err and "Traceback" not in sh.err


def test_submit_reads_jsonl_from_stdin_and_stops_at_the_first_illegal_event(sh: Shell) -> None:
    mid = started(sh)
    lines = [DEAL, event_json(add(0)), event_json(add(0)), event_json(add(1))]
    assert sh("submit", str(mid), "-", stdin="\n".join(lines) + "\n") == 1
    assert sh.out.splitlines() == [
        "LEGAL: dealt [TALLY-1]",
        "LEGAL: adds tally-1 [TALLY-2]",
        "ILLEGAL: it is Bob's turn (seat 2), not Ann's (seat 1) [TALLY-1]",
    ]
    with sh.store() as s:
        assert s.events(mid) == [deal(9), add(0)]


def test_check_is_the_dispute_check_and_changes_nothing(sh: Shell) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    with sh.store() as s:
        before = (s.events(mid), s.seq(mid), s.audit(mid))
    assert sh("check", str(mid), event_json(add(0, "tally-2"))) == 0
    assert sh.out == "LEGAL: adds tally-2 [TALLY-2]\n"
    assert sh("check", str(mid), event_json(add(1)), "--json") == 1
    assert json.loads(sh.out) == {
        "ok": False, "reason": "it is Ann's turn (seat 0), not Bob's (seat 1)",
        "rules": ["TALLY-1"],
    }
    # several events from stdin are checked in order against a private copy
    assert sh("check", str(mid), "-", stdin=f"[{event_json(add(0))}, {event_json(add(1))}]") == 0
    assert sh.out.count("LEGAL") == 2
    with sh.store() as s:
        assert (s.events(mid), s.seq(mid), s.audit(mid)) == before


# --------------------------------------------------------------------------------------------
# show, undo, correct
# --------------------------------------------------------------------------------------------


def test_show_lists_matches_and_prints_a_table_with_scores(sh: Shell) -> None:
    assert sh("show") == 0 and "no matches yet" in sh.out
    mid = started(sh, "--name", "club")
    sh("submit", str(mid), DEAL)
    sh("submit", str(mid), event_json(add(0, "tally-3")))
    assert sh("show") == 0
    assert "club" in sh.out and "Ann, Bob" in sh.out and "playing" in sh.out
    assert sh("show", str(mid)) == 0
    table = sh.out.splitlines()
    assert table[0] == f'match {mid} "club": tally, full information, 2 events, in progress'
    assert "next: it is Bob's turn (seat 2)" in table  # seats count from 1, as on the pages
    seat_rows = [line.split() for line in table if line.startswith(("1 ", "2 "))]
    assert seat_rows == [["1", "Ann", "3"], ["2", "Bob", "0"]]
    assert "total: 3" in table


def test_show_lists_a_damaged_match_and_names_the_damage(sh: Shell) -> None:
    damaged, healthy = started(sh), started(sh)
    with sqlite3.connect(paths.database_path(sh.data)) as raw:
        raw.execute("UPDATE matches SET options = '{x' WHERE id = ?", (damaged,))
    assert sh("show") == 0
    assert "(damaged: see `ducktable show ID`)" in sh.out and "Ann, Bob" in sh.out
    assert sh("show", str(damaged)) == 2
    assert f"match {damaged} is damaged in the database: its options cannot be read" in sh.err
    assert "Traceback" not in sh.err
    assert sh("show", str(healthy)) == 0


def test_show_json_has_the_match_view_and_scores(sh: Shell) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    sh("submit", str(mid), event_json(add(0, "tally-2")))
    shown = sh.json("show", str(mid))
    assert shown["match"]["players"] == ["Ann", "Bob"]
    assert shown["scores"] == [2, 0]
    assert shown["to_move"] == 1 and shown["over"] is False
    assert shown["view"]["total"] == 2


def test_undo_and_correct_show_up_in_the_audit(sh: Shell) -> None:
    mid = started(sh)
    for event in (DEAL, event_json(add(0)), event_json(add(1))):
        sh("submit", str(mid), event)
    assert sh("undo", str(mid), "--reason", "wrong card") == 0
    assert sh.out.startswith("undone event #2: ")
    assert sh("correct", str(mid), "2", event_json(add(0, "tally-3")), "--reason", "misread") == 0
    assert sh.out == "LEGAL: event #2 corrected: adds tally-3 [TALLY-2]\n"  # counted from 1
    assert sh("correct", str(mid), "2", event_json(add(1))) == 1
    assert sh.out.startswith("ILLEGAL: event #2 cannot be replaced")
    assert sh("correct", str(mid), "0", event_json(add(0))) == 2
    assert "events count from 1" in sh.err
    assert sh("show", str(mid), "--audit") == 0
    audit = sh.out.split("audit:\n", 1)[1]
    assert "undo" in audit and "wrong card" in audit and "correct" in audit
    assert "misread" in audit
    trail = sh.json("show", str(mid), "--audit")["audit"]
    assert [e["action"] for e in trail] == ["create", "submit", "submit", "submit", "undo",
                                           "correct"]
    with sh.store() as s:
        assert s.state(mid).scores() == [3, 0]


def test_undo_with_nothing_to_undo(sh: Shell) -> None:
    mid = started(sh)
    assert sh("undo", str(mid)) == 0
    assert "no events to undo" in sh.out


# --------------------------------------------------------------------------------------------
# export, import, replay
# --------------------------------------------------------------------------------------------


def test_export_import_round_trip_gives_the_identical_state(sh: Shell, tmp_path: Path) -> None:
    mid = started(sh)
    for event in (DEAL, event_json(add(0, "tally-2")), event_json(add(1, "tally-3"))):
        sh("submit", str(mid), event)
    target = tmp_path / "match.jsonl"
    assert sh("export", str(mid), "-o", str(target)) == 0
    assert f"3 events written to {target}" in sh.out
    assert sh("import", str(target)) == 0
    assert sh.out.startswith("imported as match 2: tally, 3 events")
    with sh.store() as s:
        assert fingerprint(s.state(2)) == fingerprint(s.state(mid))
    assert sh("export", str(mid)) == 0
    assert sh.out == target.read_text()


def test_export_public_leaves_hidden_fields_out(sh: Shell) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    assert sh("export", str(mid), "--public") == 0
    header, event = sh.out.splitlines()
    assert json.loads(header)["public"] is True
    assert json.loads(event) == {"v": 2, "type": "deal"}


def test_replay_prints_the_final_state_and_scores_as_json(sh: Shell, tmp_path: Path) -> None:
    mid = started(sh, "--option", "target=4")
    for event in (DEAL, event_json(add(0, "tally-3")), event_json(add(1, "tally-2"))):
        sh("submit", str(mid), event)
    log = tmp_path / "m.jsonl"
    sh("export", str(mid), "-o", str(log))
    result = sh.json("replay", str(log))
    assert result["scores"] == [3, 2]
    assert result["over"] is True and result["winners"] == [0]
    assert result["events"] == 3 and result["players"] == ["Ann", "Bob"]
    assert result["view"]["target"] == 4
    assert sh("replay", str(log)) == 0
    assert "game over; winner: Ann" in sh.out


def test_replay_a_file_of_bare_events_with_game_and_players(sh: Shell, tmp_path: Path) -> None:
    log = tmp_path / "bare.jsonl"
    log.write_text(f"{DEAL}\n{log_json(add(0, 'tally-3'))}\n")
    result = sh.json("replay", str(log), "--game", "tally", "--players", "x", "y")
    assert result["scores"] == [3, 0]
    assert sh("replay", str(log)) == 2
    assert "must start with a header line" in sh.err


def test_replay_names_the_line_of_a_refused_event(sh: Shell, tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(f"{DEAL}\n\n{log_json(add(1))}\n")
    assert sh("replay", str(log), "--game", "tally", "--players", "x", "y") == 2
    assert "line 3: event #1 is refused: ILLEGAL: it is x's turn" in sh.err
    assert sh("replay", str(tmp_path / "missing.jsonl")) == 2
    assert "cannot read" in sh.err
    assert sh("import", str(log)) == 2
    with sh.store() as s:
        assert s.list_matches() == []


def test_damaged_database_is_a_clear_user_error(sh: Shell) -> None:
    sh.data.mkdir(parents=True)
    paths.database_path(sh.data).write_bytes(b"\x00garbage" * 1000)
    assert sh("show") == 2
    assert "cannot be read" in sh.err and "move it aside" in sh.err


# --------------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------------


def test_simulate_prints_a_score_table_reproducibly(sh: Shell) -> None:
    assert sh("simulate", "tally", "--players", "3", "--seed", "5") == 0
    first = sh.out
    lines = first.splitlines()
    assert lines[0].startswith("Tally, 3 random bots, seed 5: ")
    assert lines[1].split() == ["bot1", "bot2", "bot3"]
    final = next(line for line in lines if line.startswith("final")).split()[1:]
    assert sum(int(x) for x in final) >= 10  # TALLY-3: it ends at the target total
    assert sh("simulate", "tally", "--players", "3", "--seed", "5") == 0
    assert sh.out == first
    with sh.store() as s:
        assert s.list_matches() == []  # not saved without --save


def test_simulate_save_stores_the_whole_match(sh: Shell) -> None:
    result = sh.json("simulate", "tally", "--players", "2", "--seed", "1", "--save")
    with sh.store() as s:
        info = s.match(result["match"])
        assert info.finished and info.event_count == result["events"]
        assert s.state(info.id).scores() == result["scores"]
        assert s.audit(info.id)[0]["action"] == "simulate"


def test_simulate_without_a_greedy_bot_is_a_user_error(sh: Shell) -> None:
    assert sh("simulate", "tally", "--players", "2", "--bot", "greedy") == 2
    assert "no greedy bot" in sh.err
    assert sh("simulate", "tally", "--players", "9") == 2
    assert "2 to 4 players" in sh.err


def test_duck_F1_simulate_greedy_prints_five_rounds_and_saves(sh: Shell) -> None:
    assert sh("simulate", "duck", "--players", "4", "--seed", "2", "--bot", "greedy",
              "--save") == 0
    lines = sh.out.splitlines()
    assert [line.split()[:2] for line in lines[2:7]] == [["round", str(r)] for r in range(1, 6)]
    final = [int(x) for x in lines[7].split()[1:]]
    assert lines[7].startswith("final") and len(final) == 4
    rounds = [[int(x) for x in line.split()[2:]] for line in lines[2:7]]
    assert [sum(col) for col in zip(*rounds, strict=True)] == final
    with sh.store() as s:
        (info,) = s.list_matches()
        assert info.game == "duck" and info.finished
        assert s.state(info.id).scores() == final


def test_duck_S2_cli_check_cites_rule_ids(sh: Shell) -> None:
    assert sh("start", "duck", "Ann", "Bob", "Cy", "--observer") == 0
    deal_event = '{"type": "deal", "data": {"face_up": ["red-3", null, null]}, "source": "camera"}'
    assert sh("submit", "1", deal_event) == 0
    assert sh.out == "LEGAL: round 1 dealt [DUCK-S1]\n"
    assert sh("check", "1", '{"type": "duck", "seat": 1}') == 1
    assert sh.out == "ILLEGAL: it is Bob's turn (seat 2), not Ann's (seat 1) [DUCK-S2]\n"
    pair = '{"type": "play", "seat": 2, "data": {"cards": ["red-2", "red-3"]}}'
    assert sh("check", "1", pair) == 1
    assert "[DUCK-A1, DUCK-A2]" in sh.out


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("game", registry.game_names())
def test_simulate_plays_every_installed_game_to_the_end(sh: Shell, game: str, bot: str) -> None:
    players = registry.game_class(game).min_players + 1
    result = sh.json("simulate", game, "--players", str(players), "--seed", "3", "--bot", bot,
                     "--save")
    assert len(result["scores"]) == players and result["winners"]
    rows = [row["scores"] for row in result["table"]["rows"]]
    if result["table"]["kind"] == "round_points":  # points won in each round add up
        assert [sum(col) for col in zip(*rows, strict=True)] == result["scores"]
    else:  # running scores, one row each time they changed
        assert result["table"]["kind"] == "running_scores" and rows[-1] == result["scores"]
    with sh.store() as s:
        info = s.match(result["match"])
        assert info.finished and info.event_count == result["events"]
        assert s.state(info.id).scores() == result["scores"]


@pytest.mark.parametrize("text", ['{"type":"\\ud800","seat":0}',
                                  '{"type":"add","seat":0,"data":{"card":"\\uDC00x"}}'])
def test_a_lone_surrogate_in_event_json_is_a_clear_error(sh: Shell, text: str) -> None:
    mid = started(sh)
    assert sh("check", str(mid), text) == 2
    assert "lone surrogate" in sh.err and "Traceback" not in sh.err
    (sh.out + sh.err).encode("utf-8")
    assert sh("submit", str(mid), text) == 2
    assert "lone surrogate" in sh.err


@pytest.mark.parametrize("count", ["99999999", "0", "-3", "2"])
def test_simulate_checks_the_player_count_before_naming_bots(
        sh: Shell, count: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    real_range = range

    def counting_range(*args: int) -> range:
        made.append(max(args[:2]) if args else 0)
        return real_range(*args)

    monkeypatch.setattr("ducktable.device.cli_match.range", counting_range, raising=False)
    assert sh("simulate", "grey", "--players", count) == 2
    assert "Grey Duck is for 3 to 5 players" in sh.err
    assert all(n <= 5 for n in made)


def test_backup_and_restore_commands(sh: Shell, tmp_path: Path) -> None:
    mid = started(sh)
    sh("submit", str(mid), DEAL)
    copy = tmp_path / "saved.sqlite3"
    assert sh("backup", str(copy)) == 0, sh.err
    assert str(copy) in sh.out
    sh("submit", str(mid), event_json(add(0)))
    assert sh("restore", str(copy)) == 0, sh.err
    assert "before-restore" in sh.out
    with sh.store() as s:
        assert len(s.events(mid)) == 1
    assert sh("restore", str(tmp_path / "nothing.sqlite3")) == 2
    assert "does not exist" in sh.err


def test_seats_typed_at_the_command_line_count_from_1_and_the_log_from_0(sh: Shell) -> None:
    """Bruce's declare names its opponent as a seat too: both convert at the command line."""
    assert sh("start", "bruce", "Ann", "Bob", "Cy") == 0
    assert sh.out.startswith("match 1 started: bruce with seats 1: Ann, 2: Bob, 3: Cy")
    assert sh("submit", "1", '{"type": "duck", "seat": 0}') == 2
    assert "seats count from 1 (1 is the first player)" in sh.err and "Traceback" not in sh.err
    with sh.store() as s:
        state = s.state(1)
    (logged,) = seats_to_log([Event("declare", 2, {"opponent": 3, "n": 2})], state)
    assert logged.seat == 1 and logged.data == {"opponent": 2, "n": 2}

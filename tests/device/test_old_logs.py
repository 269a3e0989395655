"""Match logs written in event format version 1 (before DUCK's draw field became ``pile`` and
Sitting Ducks got one spelling) still import and replay to the same state."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from ducktable.device.store import LOG_FORMAT_VERSION, MatchStore, dump_match_log
from ducktable.rules import Event, make_game
from ducktable.rules.core import EVENT_FORMAT_VERSION, RandomBot, simulate


def _as_version_1(event: Event) -> str:
    """The event as ducktable wrote it before version 2."""
    obj = event.to_json()
    obj["v"] = 1
    data = obj.get("data", {})
    if event.type == "draw" and "pile" in data:
        data["source"] = data.pop("pile")
    if event.type in ("double_barrel", "two_at_one_blow"):
        data["positions"] = data.pop("position")
    if event.type == "discard":
        data["card"] = "action-" + data.pop("action").replace("_", "-")
        if "shown" in data:
            data["shown"] = ["action-" + a.replace("_", "-") for a in data["shown"]]
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(("game", "players"), [("duck", 3), ("sitting", 4)])
def test_a_version_1_log_imports_and_replays(tmp_path: Path, game: str, players: int) -> None:
    assert EVENT_FORMAT_VERSION == 2 and LOG_FORMAT_VERSION == 2
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    state = make_game(game).new_state(names)
    simulate(state, [RandomBot(random.Random(i)) for i in range(players)], random.Random(5))
    old_lines = [_as_version_1(e) for e in state.history]
    assert any('"source":"deck"' in line or '"positions"' in line or '"card":"action-' in line
               for line in old_lines)
    text = dump_match_log(game=game, players=names, options=state.game.options,
                          events=state.history)
    header = json.loads(text.splitlines()[0])
    header["version"] = 1
    old = "\n".join([json.dumps(header), *old_lines]) + "\n"
    with MatchStore(tmp_path / "m.sqlite3") as store:
        info = store.import_jsonl(old)
        again = store.state(info.id)
        assert again.scores() == state.scores() and again.is_over()
        exported = store.export_jsonl(info.id)
    assert json.loads(exported.splitlines()[0])["version"] == 2
    assert '"source":"deck"' not in exported and '"positions"' not in exported


def test_forgetting_data_gets_a_message_that_says_so() -> None:
    from ducktable.rules.core import BadEvent

    with pytest.raises(BadEvent, match='go inside "data"'):
        Event.from_json('{"type": "draw", "seat": 1, "source": "deck"}')
    with pytest.raises(BadEvent, match='go inside "data"'):
        Event.from_json('{"type": "draw", "seat": 1, "pile": "deck"}')

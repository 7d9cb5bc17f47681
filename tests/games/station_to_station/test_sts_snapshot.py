"""A save's [state] leaves out the map: the header's components carry it once.

Saves written before carried the whole view, map included; they still verify, and a
snapshot edited by hand is refused in either form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.errors import IntegrityError
from pbem.protocol import engine, savefile
from pbem.protocol.canonical import canonical
from pbem.protocol.table import Report

SAVES = Path(__file__).resolve().parents[3] / "saves" / "station-to-station"


def _mid_game() -> savefile.Save:
    return savefile.read(sorted(SAVES.glob("*.toml"))[2])


def _verify(save: savefile.Save) -> Report:
    return engine.replay(savefile.parse(savefile.dumps(save)), audit_secrets=False)


def test_the_snapshot_leaves_out_the_map_the_header_carries() -> None:
    save = _mid_game()
    assert "data" not in save.state["view"]
    assert save.header["components"]["cities"]  # the map is still in the save, once
    table = _verify(save).table
    assert "data" in table.gstate and "data" in table.game.view(table.gstate, None)
    assert canonical(engine.public_state(table)) == canonical(save.state)


def test_a_save_written_with_the_whole_view_still_verifies() -> None:
    save = _mid_game()
    table = engine.replay(save, audit_secrets=False).table
    old = savefile.Save(save.header, save.entries, engine.public_state(table, whole_view=True))
    assert set(old.state["view"]["data"]["cities"]) == set(save.header["components"]["cities"])
    _verify(old)


@pytest.mark.parametrize("whole_view", [False, True], ids=["now", "whole-view"])
def test_a_snapshot_edited_by_hand_is_refused_in_either_form(whole_view: bool) -> None:
    save = _mid_game()
    table = engine.replay(save, audit_secrets=False).table
    state = json.loads(json.dumps(engine.public_state(table, whole_view=whole_view)))
    state["view"]["players"][0]["coal"] += 1
    if whole_view:  # or the map in the old form's copy of it
        edited = json.loads(json.dumps(state))
        edited["view"]["players"][0]["coal"] -= 1
        edited["view"]["data"]["cities"].popitem()
        with pytest.raises(IntegrityError) as info:
            _verify(savefile.Save(save.header, save.entries, edited))
        assert info.value.code == "snapshot"
    with pytest.raises(IntegrityError) as info:
        _verify(savefile.Save(save.header, save.entries, state))
    assert info.value.code == "snapshot"

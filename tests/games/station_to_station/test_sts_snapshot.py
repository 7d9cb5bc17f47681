"""A save's [state] leaves out the map: the header's components carry it once.

Saves of format pbem/1 carried the whole view, map included; format pbem/2 reads only
the snapshot, and a snapshot edited by hand is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import IntegrityError
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.state.table import Report, Table

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


def _whole_view(table: Table) -> dict[str, Any]:
    """The [state] as saves of format pbem/1 carried it: the view with nothing left out."""
    return {**engine.public_state(table), "view": table.game.view(table.gstate, None)}


def test_the_whole_view_of_format_pbem_1_is_no_longer_a_snapshot() -> None:
    save = _mid_game()
    table = engine.replay(save, audit_secrets=False).table
    old = savefile.Save(save.header, save.entries, _whole_view(table))
    assert set(old.state["view"]["data"]["cities"]) == set(save.header["components"]["cities"])
    with pytest.raises(IntegrityError) as info:
        _verify(old)
    assert info.value.code == "snapshot"


def test_a_snapshot_edited_by_hand_is_refused() -> None:
    save = _mid_game()
    table = engine.replay(save, audit_secrets=False).table
    state = json.loads(json.dumps(engine.public_state(table)))
    state["view"]["players"][0]["coal"] += 1
    with pytest.raises(IntegrityError) as info:
        _verify(savefile.Save(save.header, save.entries, state))
    assert info.value.code == "snapshot"

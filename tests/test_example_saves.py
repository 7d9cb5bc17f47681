"""The example games in saves/ (golden playthroughs): each still verifies, from scratch,
to the same final scores and a clean audit. Regenerate with `make saves`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem import session
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.state.table import Table

SAVES = Path(__file__).resolve().parent.parent / "saves"
GAMES = sorted(p for p in SAVES.iterdir() if p.is_dir()) if SAVES.is_dir() else []


@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_example_game_replays_to_recorded_result(folder: Path, tmp_path: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text())
    verified = session.verify(savefile.read(folder / expected["final"]), Home(tmp_path / "h"),
                              full=True)
    table = verified.table
    outcome = verified.report.outcome
    assert outcome is not None
    assert verified.report.audit == expected["audit"] == "clean"
    assert len(table.signers) == expected["entries"]
    assert {table.seats[s].handle: v for s, v in outcome.scores.items()} == expected["scores"]
    assert [[table.seats[s].handle for s in g] for g in outcome.ranking] == expected["ranking"]


@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_every_example_save_verifies(folder: Path, tmp_path: Path) -> None:
    for path in sorted(folder.glob("*.toml")):
        session.verify(savefile.read(path), Home(tmp_path / path.stem))


@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_replay_in_place_matches_replay_with_copies(folder: Path) -> None:
    """With no hook, replay applies each entry to one table in place (nothing copied per entry); with a
    hook it keeps a table per entry. Both end in the same table, and neither changes the
    save it reads; the tables a hook was given stay as they were at their entry."""
    expected = json.loads((folder / "expected.json").read_text())
    save = savefile.read(folder / expected["final"])
    read = canonical([save.header, save.entries, save.state])
    fast = engine.replay(save)
    told: list[tuple[Table, bytes]] = []
    slow = engine.replay(save, on_entry=lambda before, after, entry: told.append(
        (after, canonical(after.to_json()))))
    assert canonical(fast.table.to_json()) == canonical(slow.table.to_json())
    assert fast.audit == slow.audit == "clean"
    assert canonical([save.header, save.entries, save.state]) == read
    assert [len(after.signers) for after, _ in told] == list(range(1, len(save.entries) + 1))
    assert all(canonical(after.to_json()) == then for after, then in told)

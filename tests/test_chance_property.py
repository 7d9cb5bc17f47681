"""Nothing the resolver chooses moves chance (PROTOCOL.md section 5, format pbem/2), one
property per kind of chance: dice, deck draws, bag draws, market refills, set-up and the
chance of bot turns.

For every position of whole games (fixed identities, fixed bot seeds) where chance waits
for the seat to act, that seat's preview of the outcome (what ``show`` computes with its
next link) is taken; then every entry a seat may sign out of the order of play is signed
in turn on top (an away note by the resolver and by another seat, a proposal that the
resolver is absent, a refusing vote) and the preview is taken again after each: it never
changes. The resolver's turn then gets exactly that outcome, and so does the turn signed
again with other moves in its place (``undo`` and replay: the same link).
"""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import PbemError
from pbem.game import copy_state
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.state.table import Table
from pbem.session import absentees
from tests.enginekit import play_game, tick

HANDLES = ("ann", "bob", "cy")


def homes_in(root: Path, handles: tuple[str, ...] = HANDLES) -> dict[str, Home]:
    out = {}
    for handle in handles:
        out[handle] = Home(root / "homes" / handle)
        out[handle].keygen(handle)
    return out


def soon() -> str:
    """An hour from this process's clock, which does not move."""
    return str(timing.stamp(timing.now() + datetime.timedelta(hours=1)))


def outcome(table: Table, home: Home) -> bytes:
    """The state the seat to act sees with its own next link (what ``show`` previews)."""
    return canonical(signing.preview(table, home.load()).gstate)


def arrived(table: Table, seat: int, link: str) -> bytes:
    """The state an entry by ``seat`` with beacon ``link`` meets, before its own moves."""
    view = Table(**{**vars(table), "gstate": copy_state(table.gstate),
                    "seats": [s.copy() for s in table.seats], "bots": list(table.bots),
                    "proposal": {}})
    engine.arrive(view, seat, bytes.fromhex(link), len(table.signers))
    return canonical(view.gstate)


def out_of_turn(homes: dict[str, Home], path: Path, resolver: str) -> list[Path]:
    """Every kind of entry seats may sign while ``resolver`` is to act, one on another."""
    others = [h for h in homes if h != resolver]
    paths = [absentees.sign_absence(homes[resolver], path, "away",
                                    {"away_until": soon()}, None).path]
    paths.append(absentees.sign_absence(homes[others[0]], paths[-1], "away",
                                        {"away_until": soon()}, None).path)
    tick(days=30)  # past the resolver's patience and away note
    paths.append(absentees.sign_absence(homes[others[0]], paths[-1], "absent",
                                        {"player": resolver, "remedy": "end"}, None).path)
    if len(others) > 1:
        paths.append(absentees.sign_absence(homes[others[1]], paths[-1], "vote",
                                            {"vote": "refuse"}, None).path)
    return paths


def check_unsteered(homes: dict[str, Home], path: Path) -> None:
    """The property at the save ``path`` (the seat to act resolves pending chance)."""
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None
    resolver = table.seats[duty.seat].handle
    seen = outcome(table, homes[resolver])
    for later in out_of_turn(homes, path, resolver):
        assert outcome(session.load(later, None).table, homes[resolver]) == seen, later
        path = later
    before = session.load(path, None).table
    first = session.sign_next(homes[resolver], path, None, [], "random:1", None, dry_run=True)
    second = session.sign_next(homes[resolver], path, None, [], "random:2", None, dry_run=True)
    for played in (first, second):
        assert arrived(before, duty.seat, played.entry["beacon"]) == seen


def kinds_waiting(table: Table) -> set[str]:
    return {str(r.get("kind")) for r in table.gstate.get("pending", [])}


def positions(root: Path, game: str, options: list[str], wanted: set[str],
              stop_after: int) -> list[tuple[dict[str, Home], Path]]:
    """A game played by random bots (fixed seeds) in homes under ``root``; at the first
    position where a turn is due and chance of each kind in ``wanted`` waits for it, a
    copy of every home and save (so the property is checked without forking the game)."""
    homes = homes_in(root / "game")
    (root / "game" / "saves").mkdir()
    written = session.new_game(homes["ann"], game, list(homes), options, None,
                               folder=root / "game" / "saves")
    found: list[tuple[dict[str, Home], Path]] = []
    covered: set[str] = set()
    for step in range(stop_after):
        table = written.table
        duty = table.duty()
        if duty is None:
            break
        kinds = kinds_waiting(table) & wanted
        if duty.kind == "turn" and kinds - covered:
            covered |= kinds
            copy = root / f"at{step}"
            shutil.copytree(root / "game", copy)
            found.append(({h: Home(copy / "homes" / h) for h in homes},
                          copy / written.path.relative_to(root / "game")))
        handle = table.seats[duty.seat].handle
        written = session.sign_next(homes[handle], written.path,
                                    "join" if duty.kind == "join" else None, [],
                                    "random:7" if duty.kind in ("turn", "reveal") else None,
                                    None)
    return found


# game, options, the kinds of chance it queues (by the request's "kind") and what they are
GAMES: list[tuple[str, list[str], dict[str, str]]] = [
    ("dice-race", ["target=1000"], {"roll": "dice"}),
    ("road-master", [], {"refill": "market refills", "blind": "deck draws (blind)"}),
    ("red-dog-junction", [], {"refill": "deck draws"}),
    ("station-to-station", [], {"token": "bag draws", "crew": "bag draws",
                                "route-display": "deck draws"}),
]


@pytest.mark.parametrize(("game", "options", "kinds"), GAMES, ids=[g[0] for g in GAMES])
def test_no_entry_out_of_turn_moves_chance(tmp_path: Path, game: str, options: list[str],
                                           kinds: dict[str, str]) -> None:
    found = positions(tmp_path, game, options, set(kinds), stop_after=200)
    covered = set().union(*(kinds_waiting(session.load(p, None).table) for _, p in found))
    assert set(kinds) <= covered, f"{game}: no position with chance of {set(kinds) - covered}"
    for homes, path in found:
        check_unsteered(homes, path)


def test_the_set_up_is_the_start_link_and_nothing_comes_before_it(tmp_path: Path) -> None:
    """Set-up chance is resolved by ``start`` with the host's first link: previewed by the
    host, it is what start gets; nobody can sign an away note (or anything else out of
    turn) before the game is under way, so nothing re-rolls it."""
    homes = homes_in(tmp_path)
    paths = play_game(homes, tmp_path / "saves", "road-master", [], stop_after=3)
    table = session.load(paths[-1], None).table
    assert table.duty() is not None and table.duty().kind == "start"  # type: ignore[union-attr]
    seen = outcome(table, homes["ann"])
    for handle in HANDLES:
        with pytest.raises(PbemError):
            absentees.sign_absence(homes[handle], paths[-1], "away",
                                   {"away_until": soon()}, None)
    started = session.sign_next(homes["ann"], paths[-1], None, [], None, None, dry_run=True)
    assert started.entry["kind"] == "start"
    assert arrived(table, 0, started.entry["beacon"]) == seen


def test_the_chance_of_a_bot_turn_is_not_moved_either(tmp_path: Path) -> None:
    """cy is played by the bot; ann's entry plays cy's turn, whose chance comes from the
    newest link before it and ann's own link. Away notes and a proposal before it, by
    anyone, leave what ann previews, and then plays, unchanged."""
    homes = homes_in(tmp_path, ("ann", "bob", "cy", "dee"))
    paths = play_game(homes, tmp_path / "saves", "dice-race", ["target=1000"], stop_after=8)
    path = paths[-1]
    while session.load(path, None).table.duty().seat != 2:  # type: ignore[union-attr]
        path = session.sign_next(homes[_to_act(path)], path, None, [], "random:3", None).path
    tick(days=8)
    path = absentees.sign_absence(homes["ann"], path, "absent",
                                  {"player": "cy", "remedy": "bot"}, None).path
    path = absentees.sign_absence(homes["bob"], path, "vote", {"vote": "accept"}, None).path
    path = absentees.sign_absence(homes["dee"], path, "vote", {"vote": "accept"}, None).path
    table = session.load(path, None).table
    assert table.bots == [2] and _to_act(path) == "dee"  # dee signs cy's turns next
    seen = outcome(table, homes["dee"])
    path = absentees.sign_absence(homes["dee"], path, "away",
                                  {"away_until": soon()}, None).path
    path = absentees.sign_absence(homes["bob"], path, "away",
                                  {"away_until": soon()}, None).path
    table = session.load(path, None).table
    assert outcome(table, homes["dee"]) == seen
    played = session.sign_next(homes["dee"], path, None, [], "random:4", None, dry_run=True)
    assert played.entry.get("bot") and arrived(table, 3, played.entry["beacon"]) == seen


def _to_act(path: Path) -> str:
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None
    return table.seats[duty.seat].handle

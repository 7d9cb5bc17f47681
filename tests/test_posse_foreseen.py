"""Chance queued in a round of choices (docs/protocol-rounds.md, "What the resolver may
know before its last choice"): the attack on Red Dog Junction's Posse rules version 5,
pinned for games begun under it, and refused from version 6.

Three players. The last pick round queues the rest of set-up's chance (first player,
dice, starting gold, the display's seed) in the entry of its last seat in seat order, cy.
The picks of a round are signed in parallel: cy's may reach ann before she keeps her last
card. In version 5 the first seat of the opens round, ann, draws it from cy's pick and
her own next link, so ann's home, from that save and her own seed, works out the whole
rest of set-up before her last choice. Version 6 draws it from cy's and ann's links in
their entries of the opens round, both published after every pick: what ann could work
out is not what is drawn, and cy's link that draws it is in no save before the opens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem import session
from pbem.game import copy_state
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem.protocol.state.table import Table
from pbem_games.red_dog_junction import posse
from pbem_games.red_dog_junction.constants import POSSE_HAND
from tests.enginekit import play_game, seed_of

HANDLES = ("ann", "bob", "cy")


def table(path: Path) -> Table:
    return session.load(path, None).table


def before_the_last_picks(homes: dict[str, Home], folder: Path, rules: int | None) -> Path:
    """The save on which the last pick round of the draft begins (``rules``: an older
    version)."""
    path = play_game(homes, folder, "red-dog-junction", ["variant=posse"], bot="greedy",
                     stop_after=8, rules=rules)[-1]
    last_round = (POSSE_HAND - 2) * len(HANDLES)  # choices made before it
    for _ in range(200):
        now = table(path)
        draft = now.gstate["draft"]
        if (now.round_first < 0 and now.round_seats() and not now.deck_duty()
                and sum(draft["choices"]) == last_round):
            return path
        duty = now.duty()
        assert duty is not None
        path = session.sign_next(homes[now.seats[duty.seat].handle], path, None, [],
                                 "greedy", None).path
    raise AssertionError("the draft did not reach its last pick round")


def foresight(tmp_path: Path, rules: int | None) -> tuple[dict[str, Any], dict[str, Any],
                                                         Path, Path]:
    """cy and bob keep their last cards first; ann's home then works out the rest of set-up
    as version 5 draws it, from cy's pick and her own next link, before she chooses; the
    draft is then signed to the end of the opens. (What ann foresaw, what was drawn, the
    save ann held when she chose, the save after the opens.)"""
    homes = {h: Home(tmp_path / "homes" / h) for h in HANDLES}
    for handle, home in homes.items():
        home.keygen(handle)
    start = before_the_last_picks(homes, tmp_path / "saves", rules)
    path = session.sign_next(homes["cy"], start, None, [], "greedy", None).path
    path = session.sign_next(homes["bob"], path, None, [], "greedy", None).path
    held = path
    save = savefile.read(path)
    queuer = save.entries[-1]
    assert (queuer["seat"], queuer["round"]) == ("cy", len(savefile.read(start).entries))
    seen = table(path)
    place = seen.seats[0].tip().next_place()
    seed = seed_of(homes["ann"], save)
    assert seed is not None
    her_open = beacon.published(seed, place.depth + 1, place.chain)
    foreseen = copy_state(seen.gstate)
    posse.resolve(foreseen, beacon.sampler(seen.game_id, queuer["seq"],
                                           bytes.fromhex(queuer["beacon"]), her_open))
    # She chooses; the opens round is signed.
    path = session.sign_next(homes["ann"], path, None, [], "greedy", None).path
    for _ in range(len(HANDLES)):
        now = table(path)
        if now.gstate["draft"]["seed"]:
            break
        duty = now.duty()
        assert duty is not None
        path = session.sign_next(homes[now.seats[duty.seat].handle], path, None, [],
                                 "greedy", None).path
    return foreseen, table(path).gstate, held, path


@pytest.mark.heavy
def test_RDJ_posse_v5_the_first_opener_can_foresee_the_rest_of_set_up_before_its_last_pick(
        tmp_path: Path) -> None:
    """A game begun under version 5 plays on under it: the bound stays, pinned."""
    foreseen, drawn, _, _ = foresight(tmp_path, 5)
    assert drawn["draft"]["seed"] == foreseen["draft"]["seed"]
    for key in ("first", "current"):
        assert drawn[key] == foreseen[key]
    assert [p["storage"] for p in drawn["players"]] == [p["storage"] for p in foreseen["players"]]


@pytest.mark.heavy
def test_RDJ_posse_v6_the_first_opener_cannot_foresee_the_rest_of_set_up(tmp_path: Path) -> None:
    foreseen, drawn, held, after = foresight(tmp_path, None)
    assert drawn["draft"]["seed"] != foreseen["draft"]["seed"]
    # What draws it: cy's link in its entry of the opens round, in no save before them.
    save = savefile.read(after)
    opens = [e for e in save.entries if e.get("round") == save.entries[-1].get("round")]
    cy_open = next(e for e in opens if e["seat"] == "cy")
    assert cy_open["beacon"] not in Path(held).read_text()
    ann_open = next(e for e in opens if e["seat"] == "ann")
    queued = next(e for e in reversed(savefile.read(held).entries) if e["seat"] == "cy")
    before = table(held)
    expected = copy_state(before.gstate)
    expected["pending"] = []
    posse.resolve(expected, beacon.sampler(before.game_id, queued["seq"],
                                           bytes.fromhex(cy_open["beacon"]),
                                           bytes.fromhex(ann_open["beacon"])))
    assert drawn["draft"]["seed"] == expected["draft"]["seed"]
    assert (drawn["first"], drawn["dice"]) == (expected["first"], expected["dice"])

"""The bound on chance queued in a round of choices (docs/protocol-rounds.md, "What the
resolver may know before its last choice"), pinned.

Red Dog Junction's Posse, three players. The last pick round queues the rest of set-up's
chance (first player, dice, starting gold, the display's seed) in the entry of its last
seat in seat order, cy; the first seat of the opens round, ann, resolves it with her next
link. The picks of a round are signed in parallel: cy's may reach ann before she keeps
her last card. Then ann's home, from that save and her own seed, works out the whole
rest of set-up before her last choice; nothing in format pbem/2 stops it.
"""

from __future__ import annotations

from pathlib import Path

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


def before_the_last_picks(homes: dict[str, Home], folder: Path) -> Path:
    """The save on which the last pick round of the draft begins."""
    path = play_game(homes, folder, "red-dog-junction", ["variant=posse"], bot="greedy",
                     stop_after=8)[-1]
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


@pytest.mark.heavy
def test_RDJ_posse_the_first_opener_can_foresee_the_rest_of_set_up_before_its_last_pick(
        tmp_path: Path) -> None:
    homes = {h: Home(tmp_path / "homes" / h) for h in HANDLES}
    for handle, home in homes.items():
        home.keygen(handle)
    start = before_the_last_picks(homes, tmp_path / "saves")
    # cy and bob keep their last cards first; ann has not chosen yet.
    path = session.sign_next(homes["cy"], start, None, [], "greedy", None).path
    path = session.sign_next(homes["bob"], path, None, [], "greedy", None).path
    save = savefile.read(path)
    queuer = save.entries[-1]
    assert (queuer["seat"], queuer["round"]) == ("cy", len(savefile.read(start).entries))
    # What ann's home computes now: cy's link, and her own link after her pick.
    seen = table(path)
    place = seen.seats[0].tip().next_place()
    seed = seed_of(homes["ann"], save)
    assert seed is not None
    her_open = beacon.published(seed, place.depth + 1, place.chain)
    foreseen = copy_state(seen.gstate)
    posse.resolve(foreseen, beacon.sampler(seen.game_id, queuer["seq"],
                                           bytes.fromhex(queuer["beacon"]), her_open))
    # She chooses; the opens round is signed; the rest of set-up is what she foresaw.
    path = session.sign_next(homes["ann"], path, None, [], "greedy", None).path
    for _ in range(len(HANDLES)):
        now = table(path)
        if now.gstate["draft"]["seed"]:
            break
        duty = now.duty()
        assert duty is not None
        path = session.sign_next(homes[now.seats[duty.seat].handle], path, None, [],
                                 "greedy", None).path
    drawn = table(path).gstate
    assert drawn["draft"]["seed"] == foreseen["draft"]["seed"]
    for key in ("first", "current"):
        assert drawn[key] == foreseen[key]
    assert [p["storage"] for p in drawn["players"]] == [p["storage"] for p in foreseen["players"]]

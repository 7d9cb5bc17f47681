"""A round's entries choose nothing of the chance the entry after the round resolves
(PROTOCOL.md section 5): its time, its note and whether it is signed again with others
change the round's digest (the next entry's ``prev``), never a beacon link or a seq,
which are all the chance is drawn from. The test game is Sealed Bids with open bids
whose prizes left are shuffled again each time a step settles: the entry completing the
round queues that chance, the next entry in the order of play resolves it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem import registry, session
from pbem.game import State, queue_chance
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import play_game, relinked, sign_as
from tests.support.sealed_bids import SealedBids


class Reshuffled(SealedBids):
    """Sealed Bids whose prizes still to come are shuffled again after every step."""

    info = SealedBids.info._replace(id="sealed-bids-reshuffled",
                                    title="Sealed Bids, reshuffled")

    def _settle(self, state: State) -> None:
        super()._settle(state)
        if state["round"] < state["rounds"]:
            queue_chance(state, {"kind": "prizes"})

    def resolve(self, state: State, request: dict[str, Any], rng: Any) -> None:
        rest = state["prizes"][state["round"]:]
        rng.shuffle(rest)
        state["prizes"][state["round"]:] = rest


registry.register("sealed-bids-reshuffled", Reshuffled())


def test_S5_a_round_entry_signed_again_with_another_time_and_note_draws_the_same_chance(
        homes: dict[str, Home], tmp_path: Path) -> None:
    start = play_game(homes, tmp_path / "s", game="sealed-bids-reshuffled",
                      options=["open=true", "rounds=6"], stop_after=4)[-1]
    path = sign_as(homes["ann"], start, None).path
    path = sign_as(homes["bob"], path, None).path
    done = sign_as(homes["cy"], path, None)  # completes the step: the chance is queued
    assert done.table.gstate["pending"]
    after = sign_as(homes["ann"], done.path, None)  # the next entry resolves it
    assert not after.table.gstate["pending"]
    save = after.save
    last = len(save.entries) - 2  # cy's entry, the round's last slot
    assert save.entries[last]["round"] < save.entries[last]["seq"]
    when = timing.parse_stamp(save.entries[last]["time"])
    assert when is not None
    other = {**save.entries[last], "time": timing.stamp(when.replace(second=7)),
             "note": "signed again"}
    bodies = [*save.entries[:last], other, save.entries[-1]]
    again = Save(save.header, relinked(save.header, bodies, homes), {})
    assert again.entries[-1]["prev"] != save.entries[-1]["prev"]  # another round digest
    table = engine.replay(again, check_snapshot=False).table
    assert table.gstate["prizes"] == after.table.gstate["prizes"]
    session.verify(Save(again.header, again.entries, engine.public_state(table)),
                   Home(tmp_path / "stranger"))

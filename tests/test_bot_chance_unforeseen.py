"""A bot turn's chance is drawn from a link of another seat than its signer (PROTOCOL.md
section 5, "bot-rand").

Found by attack: in a sealed step, the seat that signs for the bot opens its own sealed
moves last in seat order and then plays the bot's turn in its next entry. The bot's
chance was drawn from the newest link before that entry, its own opening's, and its own
next link: both known to it when it committed its sealed moves, so it knew, before it
committed, how the chance the bot's turn leads to would come out (here: the order of the
prizes still to be auctioned). Now the bot's chance draws from the newest link before the
entry published by another seat: ann's opening, unknown to cy when it committed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tests.test_round_chance  # noqa: F401  (registers sealed-bids-reshuffled)
from pbem import session
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import play_game, sign_as

HANDLES = ("ann", "bob", "cy")


def test_the_bots_signer_cannot_foresee_its_chance_from_its_own_opening(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    homes = {h: Home(tmp_path / "homes" / h) for h in HANDLES}
    for handle, home in homes.items():
        home.keygen(handle)
    path = play_game(homes, tmp_path / "saves", "sealed-bids-reshuffled", ["rounds=4"],
                     stop_after=4)[-1]  # started: the first sealed step's round is next
    # ann and cy commit; bob does not, and is played by the bot from then on (cy signs
    # its turns: the next seat after bob played by a person).
    for handle in ("ann", "cy"):
        path = session.sign_next(homes[handle], path, None, [], "greedy", None).path
    path = sign_as(homes["cy"], path, "absent", player="bob", remedy="bot").path
    path = sign_as(homes["ann"], path, "vote", vote="accept").path
    for handle in ("ann", "cy"):  # the openings, cy's last in seat order
        path = session.sign_next(homes[handle], path, None, [], "greedy", None).path
    drawn: list[tuple[int, bytes]] = []
    real = beacon.bot_sampler

    def recording(game_id: str, seq: int, turn: int, before: bytes, link: bytes) -> Any:
        drawn.append((seq, before))
        return real(game_id, seq, turn, before, link)

    monkeypatch.setattr(beacon, "bot_sampler", recording)
    written = session.sign_next(homes["cy"], path, None, [], "greedy", None)
    entries = written.save.entries
    assert entries[-1]["seat"] == "cy" and entries[-1]["bot"] == [
        {"seat": "bob", "moves": entries[-1]["bot"][0]["moves"]}]
    assert entries[-2]["seat"] == "cy" and "salt" in entries[-2]  # cy's opening, just before
    assert drawn, "the bot's turn settles the step and queues the reshuffle"
    for seq, before in drawn:
        assert entries[seq]["seat"] == "ann"  # ann's opening: not a link cy knew
        assert before == bytes.fromhex(entries[seq]["beacon"])
    monkeypatch.undo()
    assert session.load(written.path, None).table.gstate["prizes"]  # and it verifies
    assert savefile.read(written.path).entries[-1] == entries[-1]

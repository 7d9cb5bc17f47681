"""What a remedy does to chance (docs/protocol-beacon.md, "What is left"): the bound, pinned.

ann rolls; bob's next entry was to resolve the roll, but bob is silent past his patience.
cy proposes bob absent and ann accepts. The remedy hands ann's roll to a link of cy's:
the bot's signer's next entry (remedy ``bot``, which also draws the bot's first turn from
ann's link and cy's), or the first reveal after the stop (remedy ``end``). cy's home can
work both out from the save before the proposal, so cy may choose between them and
waiting for bob. Nothing in format pbem/2 takes that away (in a game of three every seat
left took part in the decision); these tests hold the docs to what the code does.
"""

from __future__ import annotations

import json
from pathlib import Path

from pbem.protocol.crypto import beacon
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import savefile
from tests.enginekit import table_after
from tests.test_beacon_once import Players


def foreseen(game: Players, handle: str, path: Path) -> tuple[int, int]:
    """The die the roll pending on ``path`` gets from ``handle``'s next link, and the die
    a bot turn played first in that entry rolls: what ``handle``'s home can compute
    before signing anything (its own link, and the links the save holds)."""
    table = table_after(savefile.read(path))
    seat = table.seat_of(handle)
    assert seat is not None
    link = signing.next_link(table, seat, game.home(handle).load())
    (request,) = table.gstate["pending"]
    k = request["seq"]
    queued = bytes.fromhex(table.beacons[k])
    roll = beacon.sampler(table.game_id, k, queued, link).randint(1, 6)
    bot = beacon.bot_sampler(table.game_id, k, 0, queued, link).randint(1, 6)
    return roll, bot


def rolled_and_stalled(game: Players) -> Path:
    """ann has rolled; the game waits for bob, whose entry was to resolve it."""
    path = game.wrote("ann", "play", str(game.until(game.start(), "ann")), "roll")
    assert game.to_act(path) == "bob"
    return path


def scores(game: Players, path: Path) -> list[int]:
    result = game.run(None, "show", str(path), "--json")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.output)["state"]["score"])


def test_a_bot_remedy_draws_from_a_link_its_signer_knew_when_it_proposed(
        tmp_path: Path) -> None:
    game = Players(tmp_path)
    stalled = rolled_and_stalled(game)
    before = scores(game, stalled)
    roll, bot_roll = foreseen(game, "cy", stalled)  # before cy signs anything
    proposal = game.wrote("cy", "absent", str(stalled), "bob", "--remedy", "bot")
    accepted = game.wrote("ann", "vote", str(proposal), "accept")
    played = game.wrote("cy", "play", str(accepted), "pass")  # bob's bot turn, then cy's
    assert savefile.read(played).entries[-1]["bot"] == [{"seat": "bob", "moves": ["roll"]}]
    after = scores(game, played)
    assert after[0] - before[0] == roll  # ann's roll, by cy's link
    assert after[1] - before[1] == bot_roll  # bob's bot's roll, by ann's link and cy's
    assert game.run(None, "verify", str(played)).exit_code == 0


def test_an_end_remedy_leaves_the_roll_to_the_first_reveal_by_a_seat_that_took_part(
        tmp_path: Path) -> None:
    game = Players(tmp_path)
    stalled = rolled_and_stalled(game)
    before = scores(game, stalled)
    roll, _ = foreseen(game, "cy", stalled)
    proposal = game.wrote("cy", "absent", str(stalled), "bob", "--remedy", "end")
    stopped = game.wrote("ann", "vote", str(proposal), "accept")
    assert scores(game, stopped)[0] == before[0]  # the roll still pending at the stop
    revealed = game.wrote("cy", "play", str(stopped))  # cy reveals first, resolving it
    assert savefile.read(revealed).entries[-1]["kind"] == "reveal"
    assert scores(game, revealed)[0] - before[0] == roll

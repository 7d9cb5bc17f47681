"""Nothing the resolver chooses moves chance (PROTOCOL.md section 5, format pbem/2).

The review's attack, through the command line: ann's roll is resolved by bob's next
entry; bob, to act, runs ``pbem show`` (which previews the outcome with his next link),
dislikes it and signs an away note, hoping the note's link gives him another outcome.
Since pbem/2 only entries in the order of play carry links, so no away note, proposal,
vote or confirm, by him or anyone, changes what ``show`` previews, and his turn gets
exactly that.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from tests.test_beacon_once import Players, entry


def previewed(game: Players, handle: str, path: Path) -> Any:
    """What ``show --json`` run by ``handle`` shows of the game's state (less the line on
    an open absence vote, which says who votes, not what chance gave)."""
    result = game.run(handle, "show", str(path), "--json")
    assert result.exit_code == 0, result.output
    state = json.loads(result.output)["state"]
    state.pop("vote", None)
    return state


def test_out_of_turn_entries_never_re_roll_the_chance_they_wait_for(tmp_path: Path) -> None:
    game = Players(tmp_path)
    rolled = game.wrote("ann", "play", str(game.until(game.start(), "ann")), "roll")
    assert game.to_act(rolled) == "bob"
    seen = previewed(game, "bob", rolled)
    assert seen["score"][0] > 0  # bob sees ann's roll resolved with his own next link
    path = rolled
    # Eight away notes by bob (the review's attack), one by cy, a proposal that bob is
    # absent and ann's refusal: not one of them changes what bob sees.
    for hour in range(1, 9):
        path = game.wrote("bob", "away", str(path), "--until", f"2025-06-02T1{hour}:00:00Z")
        assert previewed(game, "bob", path) == seen
        assert "beacon" not in entry(path)
    path = game.wrote("cy", "away", str(path), "--until", "2025-06-02T19:00:00Z")
    assert previewed(game, "bob", path) == seen
    path = game.wrote("cy", "absent", str(path), "bob", "--remedy", "end")
    assert previewed(game, "bob", path) == seen
    path = game.wrote("ann", "vote", str(path), "refuse")
    assert all("beacon" not in e for e in [entry(path, i) for i in range(-11, 0)])
    assert previewed(game, "bob", path) == seen
    # His turn gets exactly what show previewed.
    played = game.wrote("bob", "play", str(path), "pass")
    after = previewed(game, "ann", played)
    assert after["score"][0] == seen["score"][0]
    assert game.run(None, "verify", str(played)).exit_code == 0


def test_a_proposal_and_its_confirm_do_not_re_roll_either(tmp_path: Path) -> None:
    """Two players: ann rolls and proposes bob absent while his entry is to resolve it,
    then confirms. Neither entry carries a link, bob's preview stays the same, and his
    answer on top of the proposal gets exactly that outcome."""
    game = Players(tmp_path, ("ann", "bob"))
    rolled = game.wrote("ann", "play", str(game.until(game.start(), "ann")), "roll")
    seen = previewed(game, "bob", rolled)
    proposal = game.wrote("ann", "absent", str(rolled), "bob", "--remedy", "end")
    assert previewed(game, "bob", proposal)["score"] == seen["score"]
    game.clock += datetime.timedelta(days=8)
    confirmed = game.wrote("ann", "confirm", str(proposal))
    assert "beacon" not in entry(proposal) and "beacon" not in entry(confirmed)
    assert game.run(None, "verify", str(confirmed)).exit_code == 0
    answered = game.wrote("bob", "play", str(proposal), "pass")
    assert previewed(game, "ann", answered)["score"] == seen["score"]

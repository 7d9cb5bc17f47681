"""`show` of a stale save, in the home of the seat that has signed past it: the chance
that seat's next entry resolved there is shown pending, as the save holds it, never
resolved by a link no entry carries (a preview is for a save one can sign on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_absent_cli import Table3


class _Homes(Table3):
    """ann, bob and cy, each with a home; `run` and `wrote` take a handle first."""

    def joined(self, game: str, handles: list[str], *options: str) -> str:
        """The save after every join: the start is ann's to sign."""
        seats = [arg for h in handles for arg in ("--seat", h)]
        opts = [arg for o in options for arg in ("--option", o)]
        path = self.wrote(handles[0], "new", game, *seats, *opts, "-o",
                          str(self.saves / "new.toml"))
        for handle in handles[1:]:
            path = self.wrote(handle, "join", path)
        return path


@pytest.mark.parametrize("variant", ["standard", "trail-boss"])
def test_RDJ_S6_RDJ_V1_a_stale_save_shows_the_set_up_pending_not_an_invented_one(
        tmp_path: Path, variant: str) -> None:
    """RDJ-S6/RDJ-V1: once ann has signed the start, the save before it shows, in her
    home, the set-up as pending: no first player, dice, display or commanders that the
    start did not deal (it showed another set-up, as past events)."""
    t = _Homes(tmp_path)
    joined = t.joined("red-dog-junction", ["ann", "bob", "cy"], f"variant={variant}")
    started = t.wrote("ann", "play", joined)
    text = t.run("ann", "show", joined).output
    assert "This save is stale" in text
    assert "Since your last look" not in text and "First player" not in text
    assert "Pending chance: set-up" in text
    shown = json.loads(t.run("ann", "show", joined, "--json").output)
    assert shown["state"]["phase"] == "setup" and shown["state"]["display"] == []
    assert all(not p.get("commanders") for p in shown["state"]["players"])
    # The newest save still shows what the start dealt.
    assert "First player" in t.run("ann", "show", started).output


def test_RM_A5_a_stale_save_shows_the_market_refill_pending(tmp_path: Path) -> None:
    """RM-A5 (the gap is filled by the next player's beacon): once bob has signed after
    ann's turn, ann's save shows, in bob's home, the gap still waiting for that refill,
    not filled by a link bob never published there."""
    t = _Homes(tmp_path)
    path = t.joined("road-master", ["ann", "bob"], "first=ann")
    path = t.wrote("ann", "play", path)
    after_ann = t.wrote("ann", "play", path, "place A", "contracts m1")
    newer = t.wrote("bob", "play", after_ann, "place B")
    stale = json.loads(t.run("bob", "show", after_ann, "--json").output)["state"]
    assert not stale["market"][0] and "refill" in stale["pending"]
    fresh = json.loads(t.run("bob", "show", newer, "--json").output)["state"]
    assert fresh["market"][0] and "refill" not in fresh["pending"]


def test_STS_S4_a_stale_save_shows_the_set_up_pending(tmp_path: Path) -> None:
    """STS-S4 (the crew market comes from the start beacon): the save before the start,
    in the starter's home once the start is signed, shows no crew market dealt."""
    t = _Homes(tmp_path)
    joined = t.joined("station-to-station", ["ann", "bob"])
    t.wrote("ann", "play", joined)
    stale = json.loads(t.run("ann", "show", joined, "--json").output)["state"]
    assert all(not crew for stock in stale["crews"].values() for crew in stock["market"].values())


def test_show_of_an_old_save_never_says_it_cannot_sign(tmp_path: Path) -> None:
    """`show` signs nothing: on a save whose next links bob has published since (which
    `play` refuses), bob's show gives the position, not that he cannot sign on it."""
    from tests.test_beacon_once import Players

    game = Players(tmp_path, ("ann", "bob"))
    base = game.until(game.start(), "bob")
    path = base
    for _ in range(8):
        path = game.play(path, "pass")
    for args in (("show", str(base)), ("show", str(base), "--json")):
        result = game.run("bob", *args)
        assert result.exit_code == 0, result.output
        assert "sign" not in result.output.replace("signed", "")

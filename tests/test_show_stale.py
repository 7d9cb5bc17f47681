"""`show` of a stale save, in the home of the seat that has signed past it: the chance
that seat's next entry resolved there is shown pending, as the save holds it, never
resolved by a link no entry carries (a preview is for a save one can sign on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli import main


def _run(root: Path, handle: str, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--home", str(root / handle), *args])
    assert "Traceback" not in result.output
    return result


def _wrote(root: Path, handle: str, *args: str) -> str:
    result = _run(root, handle, *args)
    assert result.exit_code == 0, result.output
    return result.output.split("Wrote ", 1)[1].split("\n", 1)[0]


def _joined(root: Path, game: str, handles: list[str], *options: str) -> str:
    """The save after every join: the start is ann's to sign."""
    for handle in handles:
        assert _run(root, handle, "keygen", "--name", handle).exit_code == 0
    seats = [arg for h in handles for arg in ("--seat", h)]
    opts = [arg for o in options for arg in ("--option", o)]
    path = _wrote(root, handles[0], "new", game, *seats, *opts, "-o", str(root / "new.toml"))
    for handle in handles[1:]:
        path = _wrote(root, handle, "join", path)
    return path


@pytest.mark.parametrize("variant", ["standard", "trail-boss"])
def test_RDJ_S6_RDJ_V1_a_stale_save_shows_the_set_up_pending_not_an_invented_one(
        tmp_path: Path, variant: str) -> None:
    """RDJ-S6/RDJ-V1: once ann has signed the start, the save before it shows, in her
    home, the set-up as pending: no first player, dice, display or commanders that the
    start did not deal (it showed another set-up, as past events)."""
    joined = _joined(tmp_path, "red-dog-junction", ["ann", "bob", "cy"], f"variant={variant}")
    started = _wrote(tmp_path, "ann", "play", joined)
    text = _run(tmp_path, "ann", "show", joined).output
    assert "This save is stale" in text
    assert "Since your last look" not in text and "First player" not in text
    assert "Pending chance: set-up" in text
    shown = json.loads(_run(tmp_path, "ann", "show", joined, "--json").output)
    assert shown["state"]["phase"] == "setup" and shown["state"]["display"] == []
    assert all(not p.get("commanders") for p in shown["state"]["players"])
    # The newest save still shows what the start dealt.
    assert "First player" in _run(tmp_path, "ann", "show", started).output


def test_RM_A5_a_stale_save_shows_the_market_refill_pending(tmp_path: Path) -> None:
    """RM-A5 (the gap is filled by the next player's beacon): once bob has signed after
    ann's turn, ann's save shows, in bob's home, the gap still waiting for that refill,
    not filled by a link bob never published there."""
    path = _joined(tmp_path, "road-master", ["ann", "bob"], "first=ann")
    path = _wrote(tmp_path, "ann", "play", path)
    after_ann = _wrote(tmp_path, "ann", "play", path, "place A", "contracts m1")
    newer = _wrote(tmp_path, "bob", "play", after_ann, "place B")
    stale = json.loads(_run(tmp_path, "bob", "show", after_ann, "--json").output)["state"]
    assert not stale["market"][0] and "refill" in stale["pending"]
    fresh = json.loads(_run(tmp_path, "bob", "show", newer, "--json").output)["state"]
    assert fresh["market"][0] and "refill" not in fresh["pending"]


def test_STS_S4_a_stale_save_shows_the_set_up_pending(tmp_path: Path) -> None:
    """STS-S4 (the crew market comes from the start beacon): the save before the start,
    in the starter's home once the start is signed, shows no crew market dealt."""
    joined = _joined(tmp_path, "station-to-station", ["ann", "bob"])
    _wrote(tmp_path, "ann", "play", joined)
    stale = json.loads(_run(tmp_path, "ann", "show", joined, "--json").output)["state"]
    assert all(not crew for stock in stale["crews"].values() for crew in stock["market"].values())


def test_show_of_an_old_save_never_says_it_cannot_sign(tmp_path: Path) -> None:
    """`show` signs nothing: on a save more than 64 of bob's links behind (which `play`
    refuses), bob's show gives the position, not "too far behind ... to sign on it"."""
    from pbem.protocol import beacon
    from tests.test_beacon_once import Players

    game = Players(tmp_path, ("ann", "bob"))
    base = game.until(game.start(), "bob")
    path = base
    for _ in range(2 * beacon.MAX_SKIP + 2):
        path = game.play(path, "pass")
    for args in (("show", str(base)), ("show", str(base), "--json")):
        result = game.run("bob", *args)
        assert result.exit_code == 0, result.output
        assert "sign" not in result.output.replace("signed", "")

"""No secret appears in any save before the final reveal (PROTOCOL.md section 3).

Whole games are played; every save written is searched for every seat's private key,
game seed, beacon base and every beacon link not yet published when it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.protocol import beacon, savefile
from pbem.protocol.derive import BEACON, derive
from pbem.protocol.identity import Home
from tests.enginekit import play_game, seed_of


def secrets_of(home: Home, save: savefile.Save, published: int) -> dict[str, str]:
    identity = home.load()
    raw = identity._private.private_bytes_raw()
    found = {"private key": raw.hex()}
    seed = seed_of(home, save)
    if seed is None:  # not joined yet in this save: it has no seed there
        return found
    found.update({"seed": seed.hex(), "beacon base": derive(seed, BEACON).hex()})
    # Every link below the ones published so far is still secret.
    for count in range(published + 1, published + 4):
        found[f"link {count}"] = beacon.published(seed, count).hex()
    return found


def check_game(paths: list[Path], homes: dict[str, Home]) -> int:
    checked = 0
    for path in paths:
        save = savefile.read(path)
        text = path.read_text("utf-8").lower()
        revealed = {e["seat"] for e in save.entries if e["kind"] == "reveal"}
        for handle, home in homes.items():
            published = sum(1 for e in save.entries if e["seat"] == handle) - 1
            for label, value in secrets_of(home, save, max(published, 0)).items():
                if handle in revealed and label in ("seed", "beacon base") or \
                        handle in revealed and label.startswith("link"):
                    continue  # opened by the reveal, as designed
                assert value not in text, f"{handle}'s {label} leaked into {path.name}"
                checked += 1
    return checked


@pytest.mark.parametrize("game", ["dice-race", "secret-draw", "secret-draft"])
def test_no_secret_in_any_save_of_a_whole_game(game: str, homes: dict[str, Home],
                                               tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "saves", game=game)
    assert savefile.read(paths[-1]).entries[-1]["kind"] == "reveal"
    assert check_game(paths, homes) > 100


def test_the_search_would_find_a_leak(homes: dict[str, Home], tmp_path: Path) -> None:
    """The checker itself can fail: plant a seed in a save and it is found."""
    paths = play_game(homes, tmp_path / "saves", stop_after=5)
    save = savefile.read(paths[-1])
    bob_seed = seed_of(homes["bob"], save)
    assert bob_seed is not None
    seed = bob_seed.hex()
    paths[-1].write_text(paths[-1].read_text() + f"\n# {seed}\n")
    with pytest.raises(AssertionError, match="bob's seed leaked"):
        check_game(paths[-1:], homes)

"""No secret appears in any save before the final reveal (PROTOCOL.md section 3).

Whole games are played; every save written is searched for every seat's private key,
game seed, beacon base and every beacon link not yet published when it was written."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

import pytest

from pbem import session
from pbem.protocol.crypto import beacon, mental
from pbem.protocol.crypto.derive import BEACON, derive
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from tests.enginekit import play_game, seed_of
from tests.support import scale

_PARSED: dict[bytes, savefile.Save] = {}  # by the sha256 of the file's bytes


def read_save(path: Path) -> tuple[savefile.Save, str]:
    """The save at ``path`` and its text. The checks below read every save of a game, and
    check_game and check_posse_hands read the same ones: each content is parsed once (by
    its bytes, so a save changed on disk is parsed again). Callers only read the Save."""
    raw = path.read_bytes()
    key = hashlib.sha256(raw).digest()
    if key not in _PARSED:
        _keep_within_bound()
        _PARSED[key] = savefile.parse_bytes(raw, path.name)
    return _PARSED[key], raw.decode("utf-8")


def know_written(saves: dict[Path, savefile.Save]) -> None:
    """Let read_save use the saves play_game wrote (``saves=``), so a whole game is not
    parsed a second time: each but the last, which the next hop read back from its file and
    verified (the same entries, and a [state] equal to the one replayed). The last is read
    from its file. The searches for secrets always read the files' text."""
    for path, save in list(saves.items())[:-1]:
        _keep_within_bound()
        _PARSED[hashlib.sha256(path.read_bytes()).digest()] = save


def _keep_within_bound() -> None:
    if len(_PARSED) >= 400:  # more than any one game's saves: start again
        _PARSED.clear()


@functools.cache
def published_link(seed: bytes, count: int) -> str:
    """beacon.published (a walk down the hash chain), worked out once per seed and count."""
    return beacon.published(seed, count).hex()


def secrets_of(home: Home, save: savefile.Save, published: int) -> dict[str, str]:
    identity = home.load()
    raw = identity._private.private_bytes_raw()
    found = {"private key": raw.hex()}
    seed = seed_of(home, save)
    if seed is None:  # not joined yet in this save: it has no seed there
        return found
    nonce = next(e["nonce"] for e in save.entries
                 if e["kind"] in ("create", "join") and e["seat"] == identity.handle)
    found.update({"seed": seed.hex(), "beacon base": derive(seed, BEACON).hex(),
                  # never published, not even by the reveal (PROTOCOL.md section 3)
                  "deck seed": identity.deck_seed(save.game_id, bytes.fromhex(nonce)).hex()})
    # Every link below the ones published so far is still secret.
    for count in range(published + 1, published + 4):
        found[f"link {count}"] = published_link(seed, count)
    return found


def check_game(paths: list[Path], homes: dict[str, Home]) -> int:
    checked = 0
    for path in paths:
        save, text = read_save(path)
        text = text.lower()
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
    bob = homes["bob"].load()
    bob_seed = seed_of(homes["bob"], save)
    assert bob_seed is not None
    seed = bob_seed.hex()
    paths[-1].write_text(paths[-1].read_text() + f"\n# {seed}\n")
    with pytest.raises(AssertionError, match="bob's seed leaked"):
        check_game(paths[-1:], homes)
    deck_seed = bob.deck_seed(save.game_id, bytes.fromhex(next(
        e["nonce"] for e in save.entries if e["kind"] in ("create", "join") and e["seat"] == "bob")))
    paths[-1].write_text(paths[-1].read_text().replace(seed, deck_seed.hex()))
    with pytest.raises(AssertionError, match="bob's deck seed leaked"):
        check_game(paths[-1:], homes)


# ---- Red Dog Junction's Posse draft: hands through the mental deck --------------------------
def _named(text: str, uids: set[str]) -> set[str]:
    # (`u in text` first: the same answer, without a regex search for most cards.)
    return {u for u in uids
            if u in text and re.search(rf"(?<![\w-]){re.escape(u)}(?![\w-])", text)}


def check_posse_hands(paths: list[Path], homes: dict[str, Home]) -> int:
    """No card of a Posse hand in any save before everyone may see it: until the last pick
    is shown, a save names no card of the draft deck but those shown (entries and [state]:
    moves name slots, chores carry ciphertexts and proofs); a card's point in the clear and
    the seats' deck and slot keys never appear."""
    save, _ = read_save(paths[-1])
    game_id = save.game_id
    table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
    deck_state = table.gstate["secret"]["posse"]
    uids = set(deck_state["cards"])
    points = {mental.to_text(mental.card_point(game_id, "posse", u)) for u in uids}
    keys = []
    for home in homes.values():
        seed = seed_of(home, save)
        assert seed is not None  # every seat joined the finished game
        keys.append(mental.deck_key(seed, "posse"))
        keys += [mental.slot_key(seed, "posse", n) for n in range(deck_state["serial"])]
    key_texts = [t for k in keys for t in (mental.scalar_bytes(k).hex(), format(k, "x"))]

    def clean_of_points_and_keys(text: str, where: str) -> None:
        assert not any(p in text for p in points), f"a card point in the clear in {where}"
        assert not any(k in text for k in key_texts), f"a deck or slot key in {where}"

    # Entries are append-only: every save's entries are entries of the last save, at their
    # seq (asserted below), so each entry is searched once, and each save's [state] on its own.
    # The first shuffle pass names every card of the deck (public, as the rules build it):
    # left out, as the state's list of every card is below.
    entry_texts = [json.dumps({**e, "chores": [{k: v for k, v in c.items() if k != "cards"}
                                               for c in e["chores"]]}) for e in save.entries]
    for entry, text in zip(save.entries, entry_texts, strict=True):
        clean_of_points_and_keys(text, f"entry {entry['seq']}")
    drafting = 0
    named_so_far: set[str] = set()  # draft cards named in the entries searched so far
    searched = 0
    for path in paths:
        current, _ = read_save(path)
        count = len(current.entries)
        # (a save inside a round holds the round's entries it has, each at its seq)
        assert all(save.entries[e["seq"]] == e for e in current.entries), \
            f"{path.name} holds an entry the last save does not"
        state_text = json.dumps(current.state)
        clean_of_points_and_keys(state_text, f"{path.name}'s [state]")
        phase = current.state["view"].get("phase")
        if phase not in ("setup", "draft"):
            continue
        drafting += 1
        for text in entry_texts[searched:count]:
            named_so_far |= _named(text, uids)
        searched = max(searched, count)
        shown = {i["card"] for e in current.entries for c in e["chores"]
                 for i in c.get("items", []) if i["op"] == "open"}
        leaked = (named_so_far | _named(state_text, uids)) - shown
        assert not leaked, f"{sorted(leaked)} named in {path.name} before they were shown"
    return drafting


@pytest.mark.heavy
@pytest.mark.parametrize("players", scale.cases([2, 3, 4, 5], quick=[2, 5]))
def test_no_posse_hand_card_in_any_save_before_it_is_shown(players: int, tmp_path: Path) -> None:
    """Whole Posse games, each audited clean at the end: the fewest and the most players
    on every run, every count under PBEM_TEST_LONG=1 (each game is a couple of hundred
    hops, every one a verify and a signature)."""
    homes = {}
    for handle in ("ann", "bob", "cy", "dee", "eve")[:players]:
        homes[handle] = Home(tmp_path / "homes" / handle)
        homes[handle].keygen(handle)
    written: dict[Path, savefile.Save] = {}
    paths = play_game(homes, tmp_path / "saves", game="red-dog-junction",
                      options=["variant=posse"], bot="greedy", saves=written)
    know_written(written)
    final = savefile.read(paths[-1])
    assert final.entries[-1]["kind"] == "reveal"
    report = session.verify(final, Home(tmp_path / "auditor")).report
    assert report.audit == "clean" and report.outcome is not None
    assert check_game(paths, homes) > 100
    assert check_posse_hands(paths, homes) >= 8 * players + 2  # the picks, at least


def test_the_posse_search_would_find_a_hand_card(homes: dict[str, Home], tmp_path: Path) -> None:
    """The checker itself can fail: a card of a hand written into a save is found."""
    paths = play_game(homes, tmp_path / "saves", game="red-dog-junction",
                      options=["variant=posse"], bot="greedy", stop_after=8)
    assert check_posse_hands(paths, homes) >= 4
    table = engine.replay(savefile.read(paths[-1]), check_snapshot=False).table
    seat = table.seat_of("ann")
    secrets = signing.secrets_for(table, seat or 0, homes["ann"].load())
    hidden = sorted(secrets["posse"].values())[0]  # a card of ann's own hand
    save = savefile.read(paths[-1])
    save.state["view"]["last"].append(f"ann holds {hidden}")
    paths[-1].write_text(savefile.dumps(save), "utf-8")
    with pytest.raises(AssertionError, match=f"{hidden}.* named in .* before they were shown"):
        check_posse_hands(paths, homes)

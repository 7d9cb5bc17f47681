"""RDJ-V2, the Posse draft from rules version 7 (posse.UNLINKED_RULES): each pick names its
slot at its step, so the card that slot shows at the end would tell which card was picked
at which step, and a table shows only the final hands. After its last pick each seat
re-locks its picks in a secret order (secretdeck.reshuffle: a re-key, then a batch
shuffle with its proof), in the round that shows them. Version 6 is pinned beside it:
there every picked slot showed the card picked at its step."""

from __future__ import annotations

import copy
import hashlib
from functools import cache
from typing import Any

import pytest

from pbem.errors import IntegrityError
from pbem.protocol.replay import engine
from pbem.protocol.saveformat.savefile import Save
from pbem_games.red_dog_junction import posse
from tests.enginekit import forge, with_entries
from tests.support.duty import bot_game, fixed_identities

PLAYERS = 3
DRAFT_ENTRIES = 60  # the draft at three players and a few turns of play after it


@cache
def drafted(rules: int | None = None) -> Save:
    save = bot_game("red-dog-junction", PLAYERS, ["variant=posse"],
                    hashlib.sha256(b"posse-unlinked/3").digest(),
                    max_entries=DRAFT_ENTRIES, rules=rules)
    assert engine.replay(save).table.gstate["phase"] == "play"  # the draft is over
    return save


def items(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for chore in entry["chores"] for item in chore.get("items", [])]


def relocked_before_shown(save: Save) -> list[bool]:
    """For each pick, whether its picker re-locked the slot it named in a secret order
    (a batch shuffle of its own) after the pick and before the slot's open."""
    out = []
    for at, entry in enumerate(save.entries):
        for move in entry["moves"]:
            if not move.startswith("pick "):
                continue
            slot = move.split()[1]
            later = save.entries[at + 1:]
            shown = next(i for i, e in enumerate(later)
                         if any(it["op"] == "open" and it["slot"] == slot for it in items(e)))
            out.append(any(
                e["seat"] == entry["seat"] and any(
                    it["op"] == "shuffle" and slot in it["slots"] for it in items(e))
                for e in later[:shown + 1]))
    return out


@pytest.mark.heavy
def test_RDJ_V2_version_7_every_pick_is_relocked_by_its_picker_before_it_is_shown() -> None:
    save = drafted()
    assert save.header["rules_version"] == posse.UNLINKED_RULES
    relocked = relocked_before_shown(save)
    assert len(relocked) == (posse.POSSE_HAND - 1) * PLAYERS and all(relocked)


@pytest.mark.heavy
def test_RDJ_V2_version_7_shows_the_picks_in_one_round_as_version_6_did() -> None:
    """The re-key, the re-lock and the opens of each seat are one entry of the opens
    round: no hop is added (docs/protocol-rounds.md, "Rounds of secret-deck work")."""
    def opens_round(save: Save) -> list[dict[str, Any]]:
        first = next(e for e in save.entries
                     if any(it["op"] == "open" for it in items(e)))
        return [e for e in save.entries if e.get("round") == first.get("round")]

    now, before = opens_round(drafted()), opens_round(drafted(posse.PAIR_RULES))
    assert len(now) == len(before) == PLAYERS
    for entry in now:
        ops = [it["op"] for it in items(entry)]
        assert ops.count("rekey") == ops.count("shuffle") == 1
        assert ops.count("open") == posse.POSSE_HAND
    assert now[0]["seq"] == before[0]["seq"]  # the draft's length is the rules'; no hop more


@pytest.mark.heavy
def test_RDJ_V2_version_6_still_shows_each_picked_slot_as_it_was_picked() -> None:
    save = drafted(posse.PAIR_RULES)
    assert save.header["rules_version"] == posse.PAIR_RULES
    assert not any(relocked_before_shown(save))


@pytest.mark.heavy
def test_RDJ_V2_version_7_an_opens_entry_without_its_relock_is_refused() -> None:
    """A changed client that shows its picks without first re-locking them (so each card
    stays tied to its step) is refused: the re-key and the re-lock are its seat's work in
    the opens round, fixed when the round began."""
    save = drafted()
    at = next(i for i, e in enumerate(save.entries)
              if any(it["op"] == "open" for it in items(e)))
    entry = copy.deepcopy(save.entries[at])
    for chore in entry["chores"]:
        chore["items"] = [it for it in chore["items"] if it["op"] not in ("rekey", "shuffle")]
    signer = next(i for i in fixed_identities(PLAYERS) if i.handle == entry["seat"])
    forged = with_entries(save, [*save.entries[:at], forge(entry, signer)])
    with pytest.raises(IntegrityError, match="omits the re-lock to one key") as refused:
        engine.replay(forged, check_snapshot=False)
    assert refused.value.code == "chore"

"""pbem.protocol.crypto.deck_rounds: which owed secret-deck work forms a round (no two
seats' items on one slot; no seat's work going on past its items), and how a round
entry's published work is compared with what its seat owed (docs/protocol-rounds.md,
"Rounds of secret-deck work"). Bookkeeping only: the proofs are mental_deck's."""

from __future__ import annotations

from typing import Any

from pbem.protocol.crypto import deck_rounds


def deck(owed: list[dict[str, Any]], seats: int = 3, passes: int = 3) -> dict[str, Any]:
    slots = {f"s{i}": {"status": "drawn", "owner": 0, "ct": "", "layers": {}, "keys": {}}
             for i in range(6)}
    return {"mode": "mental", "cards": [], "order": [], "slots": slots, "next": 6,
            "seats": seats, "passes": list(range(passes)), "keys": {}, "serial": 9,
            "owed": owed}


def peel(seat: int, slot: str, stage: int) -> dict[str, Any]:
    return {"seat": seat, "op": "peel", "slot": slot, "stage": stage}


def relock(seat: int, slots: list[str], serial: int, stage: int) -> dict[str, Any]:
    return {"seat": seat, "op": "shuffle", "slots": slots, "serial": serial, "stage": stage}


def test_each_seats_work_on_its_own_slots_is_a_round() -> None:
    """A round of re-locks: each receiver its own batch, the givers' peels at the next
    stage (not owed now, so in no one's work)."""
    owed = [relock(1, ["s0", "s1"], 3, 0), peel(0, "s0", 1), peel(0, "s1", 1),
            relock(2, ["s2", "s3"], 4, 0), peel(1, "s2", 1), peel(1, "s3", 1)]
    work = deck_rounds.plan({"d": deck(owed)})
    assert work == {1: {"d": [relock(1, ["s0", "s1"], 3, 0)]},
                    2: {"d": [relock(2, ["s2", "s3"], 4, 0)]}}


def test_two_seats_on_one_slot_are_no_round() -> None:
    """A deal's peels: every other seat peels the same slot, in any order."""
    assert deck_rounds.plan({"d": deck([peel(1, "s0", 0), peel(2, "s0", 0)])}) == {}


def test_a_seat_whose_work_goes_on_past_its_items_is_no_round() -> None:
    """Seat 1's re-lock, then its own peel of the same slots at the next stage: in one
    entry outside a round, but a round fixes only the work owed when it begins."""
    owed = [relock(1, ["s0", "s1"], 3, 0), peel(1, "s0", 1), peel(2, "s4", 0)]
    assert deck_rounds.plan({"d": deck(owed)}) == {}


def test_a_shuffle_pass_still_owed_is_no_round() -> None:
    assert deck_rounds.plan({"d": deck([peel(1, "s0", 0), peel(2, "s1", 0)], passes=2)}) == {}


def test_the_published_work_is_compared_item_by_item() -> None:
    expected = [relock(1, ["s0", "s1"], 3, 0)]
    done = [{"op": "shuffle", "slots": ["s0", "s1"], "serial": 3, "key": "k", "cts": [],
             "proof": [""]}]
    assert deck_rounds.mismatch(done, expected) == ""
    assert deck_rounds.mismatch([], expected) == \
        "it omits the shuffled re-lock of the batch s0 s1"
    assert deck_rounds.mismatch(done + [{"op": "peel", "slot": "s0"}], expected) == \
        "it does a peel of slot s0 it did not owe then"
    assert deck_rounds.mismatch(done + done, expected) == \
        "it does a shuffled re-lock of the batch s0 s1 it did not owe then"
    reordered = [dict(done[0], slots=["s1", "s0"])]  # the batch's slots in another order
    assert deck_rounds.mismatch(reordered, expected).startswith("it does a shuffled re-lock")
    assert deck_rounds.mismatch("items", expected) == "its items are not a list of work"

"""The one-step pass of a mental deck (docs/protocol-deck.md, "The one-step pass"): the
giver's handoff and the receiver's adopt, their reads, the audit, and a tamper test for
every check of either item."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.errors import IllegalMoveError, IntegrityError
from pbem.protocol.crypto import mental, mental_deck, mental_open, secretdeck
from tests.test_mental_deck import DECK, GAME_ID, Table

HAND = 4


def _dealt(seats: int = 3) -> tuple[Table, dict[int, list[str]]]:
    """A table whose deck passes in one step, a hand of HAND dealt to each seat and peeled."""
    table = Table(seats)
    secretdeck.pass_in_one_step(table.state, DECK)
    hands = secretdeck.deal(table.state, DECK, {s: HAND for s in range(seats)})
    for _ in range(2):
        for seat in range(seats):
            table.entry(seat)
    assert mental_deck.owing(table.d) == []
    return table, hands


def _handed(seats: int = 3) -> tuple[Table, dict[int, list[str]], list[str], dict[str, str]]:
    """Seat 0 keeps the first card of its hand and passes the rest to seat 1: owed, a
    handoff by seat 0 then an adopt by seat 1. Last, what seat 0 read before its pass."""
    table, hands = _dealt(seats)
    saw = table.read(0)
    secretdeck.keep(table.state, DECK, 0, [hands[0][0]])
    rest = secretdeck.pass_slots(table.state, DECK, 0, 1, hands[0][1:])
    return table, hands, rest, saw


def test_a_pass_keeps_its_ids_and_owes_a_handoff_then_an_adopt() -> None:
    table, hands, rest, _ = _handed()
    assert rest == hands[0][1:]  # one-step passes keep the slot ids
    assert [(o["seat"], o["op"], o["stage"]) for o in table.d["owed"]] == [
        (0, "handoff", 0), (1, "adopt", 1)]
    assert all(table.d["slots"][s]["owner"] == 1 for s in rest)


def test_the_receiver_reads_the_hand_as_its_adoption_leaves_it_and_the_audit_is_clean() -> None:
    table, hands, rest, giver_saw = _handed()
    chore = table.entry(0)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["handoff"]
    assert table.read(0) == {hands[0][0]: giver_saw[hands[0][0]]}  # the rest is gone
    assert secretdeck.own_work_only(table.state, DECK, 1, rest)
    assert not secretdeck.settled(table.state, DECK, rest)
    before = table.read(1)  # before its adoption: as the adoption will leave it
    assert sorted(before[s] for s in rest) == sorted(giver_saw[s] for s in rest)
    chore = table.entry(1)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["adopt"]
    assert table.read(1) == before
    assert all(list(table.d["slots"][s]["layers"]) == ["1"] for s in rest)
    assert all("pair" not in table.d["slots"][s] for s in rest)
    assert table.audit() == []
    opened, problems = table.open_held()
    assert problems == []
    assert {s: opened[s] for s in rest} == {s: before[s] for s in rest}


def test_the_adopt_orders_the_cards_by_the_receivers_own_permutation() -> None:
    """Over several hands, the adopted order is not the handed-off one every time: the
    receiver's re-lock permutes (a giver could otherwise tell which card was picked)."""
    moved = 0
    for seats in (2, 3, 4):
        table, hands, rest, giver_saw = _handed(seats)
        table.entry(0)
        table.entry(1)
        after = table.read(1)
        moved += sum(after[s] != giver_saw[s] for s in rest)
    assert moved > 0


def test_the_slot_a_receiver_picks_keeps_the_card_it_read() -> None:
    table, hands, rest, _ = _handed()
    table.entry(0)
    read = table.read(1)
    pick = rest[-1]
    secretdeck.keep(table.state, DECK, 1, [pick])
    again = secretdeck.pass_slots(table.state, DECK, 1, 2, [s for s in rest if s != pick])
    table.entry(1)  # its adopt, then its own handoff of the rest to seat 2
    assert table.read(1)[pick] == read[pick]
    table.entry(2)
    assert sorted(table.read(2)[s] for s in again) == sorted(read[s] for s in again)
    assert table.audit() == []
    assert table.open_held()[1] == []


def test_a_pair_left_unadopted_opens_at_the_audit_with_the_receivers_deck_key() -> None:
    table, hands, rest, giver_saw = _handed()
    table.entry(0)
    opened, problems = table.open_held()
    assert problems == []
    assert {s: opened[s] for s in rest} == {s: giver_saw[s] for s in rest}


def test_a_pass_is_refused_while_another_seat_still_works_on_the_cards() -> None:
    table, hands, rest, _ = _handed()
    with pytest.raises(IllegalMoveError):  # seat 1 cannot pass on what seat 0 has not handed off
        secretdeck.pass_slots(table.state, DECK, 1, 2, rest[:1])
    assert not secretdeck.own_work_only(table.state, DECK, 1, rest)


def test_handoff_scalars_differ_per_slot_and_serial() -> None:
    seed = b"\x01" * 32
    values = {mental.handoff_scalar(seed, DECK, serial, index)
              for serial in range(3) for index in range(4)}
    assert len(values) == 12


# ---- tampering with a handoff ------------------------------------------------------------------
def _handoff_item(chore: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in chore["items"] if i["op"] == "handoff")


def _other_point(text: str) -> str:
    return mental.to_text(mental.add(mental.point_bytes(text), mental.BASE))


def _tamper_handoff(change: Any) -> Any:
    def tamper(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        change(_handoff_item(chore))
        return chore
    return tamper


HANDOFF_TAMPERS = {
    "a pair's point changed": lambda i: i["cs"].__setitem__(0, _other_point(i["cs"][0])),
    "a random point changed": lambda i: i["rs"].__setitem__(0, _other_point(i["rs"][0])),
    "two proofs swapped": lambda i: i.__setitem__("proofs", i["proofs"][::-1]),
    "two pairs swapped": lambda i: (i.__setitem__("cs", i["cs"][::-1]),
                                    i.__setitem__("rs", i["rs"][::-1])),
    "one random point for two pairs": lambda i: i["rs"].__setitem__(1, i["rs"][0]),
    "another receiver named": lambda i: i.__setitem__("to", 2),
    "the receiver named as a boolean": lambda i: i.__setitem__("to", True),  # True == 1
    "the receiver named as text": lambda i: i.__setitem__("to", "1"),
    "a pair missing": lambda i: i["cs"].pop(),
    "not a point": lambda i: i["cs"].__setitem__(0, "A" * 43),
    "another serial": lambda i: i.__setitem__("serial", i["serial"] + 1),
}


@pytest.mark.parametrize("name", sorted(HANDOFF_TAMPERS))
def test_a_tampered_handoff_is_refused_in_its_own_entry(name: str) -> None:
    table, _, _, _ = _handed()
    before = copy.deepcopy(table.d)
    with pytest.raises(IntegrityError):
        table.entry(0, _tamper_handoff(HANDOFF_TAMPERS[name]))
    assert table.d == before  # all or nothing


def test_a_handoff_proof_made_for_another_entry_is_refused() -> None:
    table, _, _, _ = _handed()
    chore = mental_deck.perform(table.d, DECK, 0, table.seeds[0], GAME_ID, table.seq + 5)
    assert chore is not None
    table.seq += 1
    with pytest.raises(IntegrityError, match="fails its proof"):
        mental_deck.apply_chore(table.d, 0, chore, GAME_ID, table.seq)


# ---- tampering with an adopt --------------------------------------------------------------------
def _adopt_item(chore: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in chore["items"] if i["op"] == "adopt")


def _tamper_adopt(change: Any) -> Any:
    def tamper(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        change(_adopt_item(chore), d)
        return chore
    return tamper


ADOPT_TAMPERS = {
    "an adopted card changed": lambda i, d: i["mids"].__setitem__(0, _other_point(i["mids"][0])),
    "two adopted cards swapped": lambda i, d: i.__setitem__("mids", i["mids"][::-1]),
    "a re-locked card changed": lambda i, d: i["cts"].__setitem__(0, _other_point(i["cts"][0])),
    "the re-locked cards reordered": lambda i, d: i.__setitem__("cts", i["cts"][::-1]),
    "the shared point changed": lambda i, d: i.__setitem__("shared", _other_point(i["shared"])),
    "the second key the first": lambda i, d: i.__setitem__("relock", i["key"]),
    "the deck key as its key": lambda i, d: i.__setitem__("key", d["keys"]["1"]),
    "the base point as its key": lambda i, d: i.__setitem__("key", mental.to_text(mental.BASE)),
    "two proofs swapped": lambda i, d: i.__setitem__("proofs", i["proofs"][::-1]),
    "the shuffle proof cut": lambda i, d: i.__setitem__("proof", [i["proof"][0][:-43]]),
    "a card missing": lambda i, d: i["cts"].pop(),
}


@pytest.mark.parametrize("name", sorted(ADOPT_TAMPERS))
def test_a_tampered_adopt_is_refused_in_its_own_entry(name: str) -> None:
    table, _, _, _ = _handed()
    table.entry(0)
    before = copy.deepcopy(table.d)
    with pytest.raises(IntegrityError):
        table.entry(1, _tamper_adopt(ADOPT_TAMPERS[name]))
    assert table.d == before


def test_an_adopt_before_the_handoff_or_by_the_giver_is_refused() -> None:
    table, _, rest, _ = _handed()
    table.entry(0)
    chore = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, table.seq + 1)
    assert chore is not None
    with pytest.raises(IntegrityError, match="does not owe"):  # seat 2 does seat 1's work
        mental_deck.apply_chore(copy.deepcopy(table.d), 2, chore, GAME_ID, table.seq + 1)


def test_the_audit_names_an_adopt_whose_keys_the_seed_does_not_give() -> None:
    table, _, _, _ = _handed()
    table.entry(0)
    table.entry(1)
    seat, before, chore = table.log[-1]
    assert mental_open.audit_chore(before, DECK, seat, chore, table.seeds[seat]) == []
    found = mental_open.audit_chore(before, DECK, seat, chore, table.seeds[2])
    assert len(found) == 2 and all("seat 1" in f and "adoption" in f for f in found)

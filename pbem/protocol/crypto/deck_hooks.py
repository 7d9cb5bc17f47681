"""The bookkeeping of a mental deck's moves (pbem.protocol.crypto.secretdeck calls these):
what a draw, a return, a pass or an open makes owed, and by whom, in which stage.

No proof is made or checked here: the owed items are what pbem.protocol.crypto.mental_deck
then asks of each seat's next entries (docs/protocol-deck.md, "Owed work" and "Batches").
A deck dealt at its last shuffle pass ("A deal at the last pass") is dealt here as that
pass lands: ``perform`` and ``apply_chore`` (what signing and the engine call) wrap
mental_deck's, which make and check every proof, so that pass's chore carries its peels.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pbem.errors import IllegalMoveError, IntegrityError
from pbem.protocol.crypto import mental_deck
from pbem.protocol.crypto.mental_deck import Deck


def _require_shuffled(d: Deck) -> None:
    if len(d["passes"]) < d["seats"]:
        raise IllegalMoveError("no card can be drawn before every seat has shuffled the deck.")


def on_reserve(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots reserved for ``seat``: every other seat with a layer on them owes a peel."""
    _require_shuffled(d)
    for slot_id in slot_ids:
        pending = mental_deck.pending_on(d, slot_id)
        # Layers the slot will carry once its pending re-locks are done.
        layered = {int(s) for s in d["slots"][slot_id]["layers"]} | {
            item["seat"] for item in pending if item["op"] in mental_deck.BATCH_OPS
        }
        if seat not in layered:
            # Every pass and every return puts each seat's layer on; never happens.
            raise IntegrityError(f"slot {slot_id} lacks the layer of seat {seat}, who drew it.")
        stage = mental_deck.top_stage(d, [slot_id]) + 1
        for other in sorted(layered - {seat}):
            d["owed"].append({"seat": other, "op": "peel", "slot": slot_id, "stage": stage})


def _record(slot: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(slot["layers"].items())), tuple(sorted(slot["keys"].items()))


def _readable_by(d: Deck, slot_ids: list[str], seat: int, what: str) -> None:
    """Refuse unless only ``seat``'s layer is on these slots and nothing is pending on
    them: a batch moves on only once its last reader could read it."""
    for slot_id in slot_ids:
        if not mental_deck.own_only(d, slot_id, seat):
            raise IllegalMoveError(f"slot {slot_id} cannot be {what} yet: its deck work is "
                                   "not done.")


def _move_batch(d: Deck, old_ids: list[str], new_ids: list[str], status: str,
                owner: int) -> None:
    """The old slots' ciphertexts and layers under their fresh ids (the old ids go)."""
    for old_id, new_id in zip(old_ids, new_ids, strict=True):
        old = d["slots"].pop(old_id)
        # ``was``: the id the first chore on it names (kept if moved again before then).
        d["slots"][new_id] = {"status": status, "owner": owner, "ct": old["ct"],
                              "layers": dict(old["layers"]), "keys": dict(old["keys"]),
                              "was": old.get("was", old_id)}


def _owe_batch(d: Deck, new_ids: list[str], reader: int, shufflers: list[int]) -> int:
    """Owe the re-lock of a batch: ``reader`` (the last to read it, whose layer is on it)
    first re-keys it to one fresh key if its layers differ, then each of ``shufflers`` in
    turn re-locks it with one fresh key and a secret permutation. Returns the next free
    stage."""
    stage = 0
    if len({_record(d["slots"][sid]) for sid in new_ids}) > 1:
        d["owed"].append({"seat": reader, "op": "rekey", "slots": list(new_ids),
                          "serial": mental_deck.next_serial(d), "stage": stage})
        stage += 1
    for who in shufflers:
        d["owed"].append({"seat": who, "op": "shuffle", "slots": list(new_ids),
                          "serial": mental_deck.next_serial(d), "stage": stage})
        stage += 1
    return stage


def on_return(d: Deck, old_ids: list[str], new_ids: list[str], seat: int) -> None:
    """Drawn cards of ``seat`` put back in the pile under fresh ids (secretdeck has put
    ``new_ids`` under the pile): every other seat re-locks the batch in turn, with a
    fresh key and a secret permutation, each with a shuffle proof.

    What could link a returned slot to the drawn one, and what is done about each:

    * Its id: fresh, made by the move. The first re-lock names the old ids (``from``), as
      the move did, before anyone permutes the batch: after that nothing links them.
    * Its ciphertext: every other seat multiplies the whole batch by a fresh key of its
      own and permutes it, so no ciphertext equals one seen before, and nobody but the
      shuffler knows where each card went; after every other seat has shuffled, nobody
      (the returner included) knows which returned card is in which new slot.
    * Its layer record: every slot of the batch carries the same one (the returner first
      re-keys its own layers to one fresh key where they differ), so it says nothing.
    * The proofs: zero-knowledge; a shuffle proof shows a permutation without naming it.
    """
    _readable_by(d, old_ids, seat, "returned")
    _move_batch(d, old_ids, new_ids, "deck", -1)
    seats = d["seats"]
    _owe_batch(d, new_ids, seat, [(seat + i) % seats for i in range(1, seats)])


def on_pass(d: Deck, old_ids: list[str], new_ids: list[str], holder: int, to: int,
            status: str) -> None:
    """Slots ``holder`` holds go to ``to`` under fresh ids: ``to`` re-locks the batch with
    a fresh key and a secret permutation (a shuffle proof), then ``holder`` peels its own
    layer from each (layers commute), so only ``to`` can read them, the card is never
    without a layer only its holder can remove, and ``holder`` cannot tell which card is
    in which new slot."""
    _require_shuffled(d)
    _readable_by(d, old_ids, holder, "passed")
    _move_batch(d, old_ids, new_ids, status, to)
    stage = _owe_batch(d, new_ids, holder, [to])
    for slot_id in new_ids:
        d["owed"].append({"seat": holder, "op": "peel", "slot": slot_id, "stage": stage})


def on_open(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots ``seat`` holds are shown to everyone: once the other layers are off, ``seat``
    peels its own and names the card, with a proof anyone checks at once."""
    _require_shuffled(d)
    for slot_id in slot_ids:
        stage = mental_deck.top_stage(d, [slot_id]) + 1
        d["owed"].append({"seat": seat, "op": "open", "slot": slot_id, "stage": stage})


def on_reshuffle(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots ``seat`` holds are re-locked by ``seat`` itself, after the work pending on
    them: a re-key to one fresh key, then a fresh key and a secret permutation with a
    shuffle proof. The ids stay, but which card is in which of them is then ``seat``'s to
    know alone: a move that named one of them earlier (a pick, at its step of a draft)
    says nothing of the card that slot shows later."""
    _require_shuffled(d)
    stage = mental_deck.top_stage(d, slot_ids) + 1
    d["owed"].append({"seat": seat, "op": "rekey", "slots": list(slot_ids),
                      "serial": mental_deck.next_serial(d), "stage": stage})
    d["owed"].append({"seat": seat, "op": "shuffle", "slots": list(slot_ids),
                      "serial": mental_deck.next_serial(d), "stage": stage + 1})


def on_pass_one_step(d: Deck, slot_ids: list[str], holder: int, to: int) -> None:
    """Slots ``holder`` holds go to ``to`` in one step (a deck marked ``"pass": "one-step"``;
    docs/protocol-deck.md, "The one-step pass"), keeping their ids (secretdeck makes them
    ``to``'s): ``holder`` hands them off (its layer off, each card encrypted to ``to``),
    then ``to`` adopts them under a fresh key of its own and re-locks them in a secret
    order. The slots may still wait for ``holder``'s own adoption of them (a hand it picks
    from and passes in one entry)."""
    _require_shuffled(d)
    if not own_work_only(d, holder, slot_ids):
        raise IllegalMoveError(f"the slots {' '.join(slot_ids)} cannot be passed yet: their "
                               "deck work is not done.")
    stage = mental_deck.top_stage(d, slot_ids) + 1
    d["owed"].append({"seat": holder, "op": "handoff", "slots": list(slot_ids),
                      "serial": mental_deck.next_serial(d), "to": to, "stage": stage})
    adopt = mental_deck.next_serial(d)
    mental_deck.next_serial(d)  # the adopt's second key, serial adopt + 1
    d["owed"].append({"seat": to, "op": "adopt", "slots": list(slot_ids), "serial": adopt,
                      "stage": stage + 1})


def own_work_only(d: Deck, seat: int, slot_ids: Iterable[str]) -> bool:
    """True when every pending item on these slots is an adoption ``seat`` owes now (or
    none is pending): the slots are ``seat``'s to read once its own next entry is done.
    (Asked for every seat's hand whenever a draft asks who picks: the pending items are
    found first, and what is owed now worked out only when they are all its adoptions.)"""
    wanted = list(slot_ids)
    named = set(wanted)
    pending = [item for item in d["owed"] if named & set(mental_deck.item_slots(item))]
    if any(item["seat"] != seat or item["op"] != "adopt" for item in pending):
        return False
    covered = {sid for item in pending for sid in mental_deck.item_slots(item)}
    if not all(mental_deck.own_only(d, sid, seat) for sid in wanted if sid not in covered):
        return False
    now = mental_deck.owed_now(d) if pending else []
    return all(item in now for item in pending)


def mark_deal(d: Deck, hands: Any) -> None:
    """Mark a deck to be dealt when its last shuffle pass lands (``deal_at_last_pass``):
    ``hands`` is how many slots each seat gets, in seat order (secretdeck.deal_when_shuffled
    records it at set-up, before the deck exists)."""
    if (not isinstance(hands, list) or len(hands) != d["seats"]
            or any(type(n) is not int or n < 0 for n in hands) or sum(hands) > len(d["order"])):
        raise IntegrityError(f"the deal asked of the deck ({hands!r}) does not fit its "
                             f"{d['seats']} seats and {len(d['order'])} cards.")
    d["deal"] = list(hands)


def _peelers(passes: list[int], seat: int) -> list[int]:
    """Who peels a slot dealt to ``seat``, stage by stage: the last seat to shuffle, the
    first, then the others in the order they shuffled, turned by ``seat``'s place in that
    order (so each round of these peels has every one of the others at work)."""
    last, first, middle = passes[-1], passes[0], passes[1:-1]
    turn = passes.index(seat) % max(len(middle), 1)
    order = [last, first, *middle[turn:], *middle[:turn]]
    return [s for s in dict.fromkeys(order) if s != seat]


def deal_at_last_pass(d: Deck) -> None:
    """A deck marked ``deal`` (``mark_deal``) once every seat has shuffled it: each seat takes
    its count of slots from the top, in seat order, and every other seat owes a peel of
    each, one stage per peel: first the last seat to shuffle (its join entry, right after
    its pass), then the first (the host: the start entry), then the others in the order
    they shuffled. Each slot has one peel per stage and no seat peels a slot twice, so the
    peels owed now on different slots never name a common slot and a seat's work never
    goes on past its items: they form rounds (deck_rounds.plan). Called after each pass
    (there is one last pass); nothing happens to a deck not marked or not yet shuffled by
    every seat."""
    hands = d.get("deal")
    if hands is None or len(d["passes"]) < d["seats"]:
        return
    for seat, count in enumerate(hands):
        taken, d["order"] = d["order"][:count], d["order"][count:]
        peelers = _peelers(d["passes"], seat)
        for slot_id in taken:
            d["slots"][slot_id].update(status="drawn", owner=seat)
            d["owed"] += [{"seat": who, "op": "peel", "slot": slot_id, "stage": stage}
                          for stage, who in enumerate(peelers)]


def perform(d: Deck, deck: str, seat: int, seed: bytes, game_id: str, seq: int,
            only: list[dict[str, Any]] | None = None) -> mental_deck.Chore | None:
    """mental_deck.perform, but the last pass of a deck dealt then (``deal_at_last_pass``)
    also carries the seat's peels of the others' slots (``items``), owed as it lands."""
    if seat in d["passes"] or "deal" not in d:
        return mental_deck.perform(d, deck, seat, seed, game_id, seq, only)
    chore = mental_deck.shuffle_pass(d, deck, seat, seed, game_id, seq)
    after = mental_deck.copy_deck(d)
    mental_deck.apply_chore(after, seat, chore, game_id, seq, check=False)
    deal_at_last_pass(after)
    peels = mental_deck.perform(after, deck, seat, seed, game_id, seq)
    return chore if peels is None else {**chore, "items": peels["items"]}


def apply_chore(d: Deck, seat: int, chore: mental_deck.Chore, game_id: str, seq: int,
                check: bool = True, complete: bool = True) -> None:
    """mental_deck.apply_chore, and after a pass: a deck dealt at its last pass is dealt,
    and that pass's chore must carry exactly its seat's peels then owed (``items``, each
    checked as any peel); any other pass carries no ``items``. All or nothing."""
    if not isinstance(chore, dict) or chore.get("op") != "shuffle" or (
            "deal" not in d and "items" not in chore):
        mental_deck.apply_chore(d, seat, chore, game_id, seq, check, complete)
        return
    deck = chore.get("deck", "?")
    work = mental_deck.copy_deck(d)
    the_pass = {key: value for key, value in chore.items() if key != "items"}
    mental_deck.apply_chore(work, seat, the_pass, game_id, seq, check, complete)
    deal_at_last_pass(work)
    items = chore.get("items")
    if items is None:
        mental_deck.require_done(work, deck, seat)
    elif not mental_deck.owed(work, seat):
        raise IntegrityError(f"deck {deck!r}: seat {seat}'s shuffle pass carries other work, "
                             "but only the last pass of a deck dealt then owes any.")
    elif not isinstance(items, list):
        raise IntegrityError(f"deck {deck!r}: seat {seat}'s shuffle pass carries work that "
                             "is not a list of items.")
    else:  # its peels, checked as a chore of work (complete: nothing left owed)
        work_chore = {"deck": deck, "op": "work", "items": items}
        mental_deck.apply_chore(work, seat, work_chore, game_id, seq, check)
    d.clear()
    d.update(work)

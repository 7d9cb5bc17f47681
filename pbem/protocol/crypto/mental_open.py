"""What the seeds open in a mental deck (pbem.protocol.crypto.mental_deck): a seat reads its own
cards with its seed; once every seed is public, the audit checks each key point a seat
published against its seed and opens every slot.

Every shuffle, peel, re-lock and open was proved in the entry that made it, so what is
left here is what no proof covers: that a seat's layers can be opened at the end (its key
points are the ones its seed gives), and that the slots open to the deck's cards, each
once, as the holders claimed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from pbem.errors import IntegrityError
from pbem.protocol.crypto import deck_handoff, mental

# The deck's layout helpers: this module reads the same state mental_deck keeps.
from pbem.protocol.crypto.mental_deck import (
    BATCH_OPS,
    Chore,
    Deck,
    Item,
    describe_item,
    layer_key,
    layer_point,
    owed,
    own_only,
    pending_on,
    sorted_slots,
)


# ---- reading one's own cards ------------------------------------------------------------
def read(
    d: Deck,
    game_id: str,
    deck: str,
    seat: int,
    seed: bytes,
    uids: list[str],
    elsewhere: Iterable[str] = (),
) -> dict[str, str]:
    """Slot -> uid for the seat's drawn and held slots that carry only its layer.

    ``uids`` are every card of the deck; ``elsewhere`` the cards the seat knows are not
    in it (opened face up, say). Every shuffle, peel and re-lock was proved, so a slot
    that opens to no possible card, or to one shown elsewhere, means the save was altered
    (or another seat published a key point and keeps to it; the audit names it)."""
    points = mental.card_points(game_id, deck, uids)
    gone = set(elsewhere) | {s["card"] for s in d["slots"].values() if "card" in s}
    out: dict[str, str] = {}
    adopting = _adopting(d, deck, seat, seed)
    for sid, slot in sorted_slots(d):
        if slot["owner"] != seat or slot["status"] not in ("drawn", "held"):
            continue
        if "card" in slot:  # a held card its seat's reveal opened: public now
            out[sid] = str(slot["card"])
            continue
        if sid in adopting:
            point = adopting[sid]
        elif own_only(d, sid, seat) or _opening_own(d, sid, seat):
            key = layer_key(seed, deck, slot["layers"][str(seat)])
            point = mental.decrypt(key, mental.point_bytes(slot["ct"]))
        else:
            continue
        uid = points.get(point)
        if uid is None or uid in gone or uid in out.values():
            raise IntegrityError(
                f"CHEATING OR CORRUPTION: slot {sid} of deck {deck!r} does not decrypt to a "
                "card that can still be in the deck, though every step on it was proved. "
                "Keep this save."
            )
        out[sid] = uid
    return out


# What a holder may owe on a slot it still reads as it stands (``_opening_own``).
OWN_OPS = ("open", "rekey", "shuffle")


def _opening_own(d: Deck, slot_id: str, seat: int) -> bool:
    """Whether the slot carries only ``seat``'s layer and what is owed on it is only
    ``seat``'s own work on it: its open (a Posse pick shown after the draft), after its
    re-lock of its picks in a secret order from rules version 7 (secretdeck.reshuffle).
    Its holder reads it with its own key as it stands, and nobody else can yet."""
    slot = d["slots"][slot_id]
    pending = pending_on(d, slot_id)
    return (list(slot["layers"]) == [str(seat)] and bool(pending)
            and all(item.get("op") in OWN_OPS and item.get("seat") == seat for item in pending))


def _adopting(d: Deck, deck: str, seat: int, seed: bytes) -> dict[str, bytes]:
    """Slot -> card point for the slots of every adoption ``seat`` owes now: where its
    next entry's adoption puts each card (its own permutation), so the seat reads, and
    picks from, its hand as that entry leaves it."""
    key = mental.deck_key(seed, deck)
    out: dict[str, bytes] = {}
    for item in owed(d, seat):
        if item.get("op") != "adopt":
            continue
        slots = [d["slots"][sid] for sid in item["slots"]]
        points = [deck_handoff.open_pair(key, mental.point_bytes(s["pair"]),
                                         mental.point_bytes(s["ct"])) for s in slots]
        out.update(zip(item["slots"], deck_handoff.adopted_order(seed, deck, item["serial"],
                                                                 points), strict=True))
    return out


# ---- the audit, once every seed is public ---------------------------------------------------
def _explain_key(d_before: Deck, deck: str, seat: int, seed: bytes, item: Item) -> str:
    """Why a batch re-lock's key point is not the one the seed gives for its serial, as a
    sentence."""
    name = f"seat {seat}'s {describe_item(item)} of deck {deck!r}"
    published = item.get("key")
    if published == mental.to_text(mental.public_point(mental.deck_key(seed, deck))):
        return f"{name} uses its deck key instead of a fresh key: the slots can be linked."
    for serial in range(d_before["serial"]):
        if serial != item.get("serial") and published == mental.to_text(
            mental.public_point(mental.slot_key(seed, deck, serial))
        ):
            return f"{name} re-uses its slot key of serial {serial}: the slots can be linked."
    return f"{name} uses a key its seed does not give for serial {item.get('serial')}."


def audit_chore(d_before: Deck, deck: str, seat: int, chore: Chore, seed: bytes) -> list[str]:
    """Check a chore against the seat's revealed seed; the violations as sentences naming
    the seat (the engine adds the entry). Every shuffle, peel, re-lock and open was proved
    at replay, so what is left is what no proof covers: that every key point the seat
    published is the one its seed gives (so its layers can be opened at the end)."""
    if not isinstance(chore, dict):
        return [f"seat {seat}'s chore for deck {deck!r} is malformed."]
    if chore.get("op") == "shuffle":
        if chore.get("key") != mental.to_text(mental.public_point(mental.deck_key(seed, deck))):
            return [f"seat {seat}'s shuffle pass of deck {deck!r} publishes a deck key point "
                    "its seed does not give."]
        return []
    out: list[str] = []
    for item in chore.get("items", []):
        if not isinstance(item, dict) or item.get("op") not in BATCH_OPS or item["op"] == "handoff":
            continue  # a handoff publishes no key (its pairs open with the receiver's deck key)
        serial = item.get("serial")
        if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
            out.append(f"seat {seat}'s chore for deck {deck!r} has a malformed item.")
            continue
        # An adopt's second key, the one its slots keep, is that of the next serial.
        keys = [("key", serial)] + ([("relock", serial + 1)] if item["op"] == "adopt" else [])
        for field, number in keys:
            honest = mental.to_text(mental.public_point(mental.slot_key(seed, deck, number)))
            if item.get(field) != honest:
                out.append(_explain_key(d_before, deck, seat, seed,
                                        {**item, "key": item.get(field), "serial": number}))
    return out


def open_held(
    d: Deck, game_id: str, deck: str, seeds: dict[int, bytes], uids: list[str],
    unaudited: Collection[int] = (),
) -> tuple[dict[str, str], list[str]]:
    """Peel every layer of every slot with its owner's key.

    Returns the uid of each drawn, held or open slot, and violations: a slot that opens to
    no card of the deck, two slots (pile included) that open to the same card, a slot whose
    layer belongs to a seat that never revealed its seed. A slot carrying a layer of a seat
    in ``unaudited`` (declared absent, PROTOCOL.md section 11) is left closed: ``closed``
    lists those a seat drew or holds, and every result names each (pbem.protocol.replay.audit)."""
    points = mental.card_points(game_id, deck, uids)
    layer_keys: dict[tuple[str, str], int] = {}
    wrong: dict[tuple[str, str], bool] = {}  # (seat, layer) -> its point is not its seed's
    opened: dict[str, str] = {}
    seen: dict[str, str] = {}
    violations: list[str] = []
    for sid, slot in sorted_slots(d):
        holder = f"{slot['status']} by seat {slot['owner']}" if slot["owner"] >= 0 else "in the pile"
        missing = sorted(int(s) for s in slot["layers"] if int(s) not in seeds)
        if any(s in unaudited for s in missing):
            continue
        if missing:
            who = ", ".join(f"seat {s}" for s in missing)
            violations.append(f"slot {sid} ({holder}) cannot be opened: {who} never revealed.")
            continue
        key = 1
        for s, layer in slot["layers"].items():
            if (s, layer) not in layer_keys:  # a seat's deck key is on most slots
                layer_keys[(s, layer)] = layer_key(seeds[int(s)], deck, layer)
                point = layer_point(d, slot, int(s))
                wrong[(s, layer)] = mental.public_point(layer_keys[(s, layer)]) != point
            key = key * layer_keys[(s, layer)] % mental.L
        liars = sorted({int(s) for s, layer in slot["layers"].items() if wrong[(s, layer)]})
        if liars:
            # Every step was proved against the published key points: a slot can fail to
            # open only under a layer whose point its seat's seed does not give.
            who = ", ".join(f"seat {s}" for s in liars)
            violations.append(f"slot {sid} of deck {deck!r} cannot be opened: {who} published "
                              "a key point its revealed seed does not give.")
            continue
        point = mental.point_bytes(slot["ct"])
        if "pair" in slot:  # handed off, not yet adopted: the receiver's deck key opens it
            point = deck_handoff.open_pair(key, mental.point_bytes(slot["pair"]), point)
        elif key != 1:
            point = mental.decrypt(key, point)
        uid = points.get(point)
        if uid is None:  # never: every step on the slot was proved
            violations.append(f"slot {sid} of deck {deck!r} opens to no card of it, though "
                              "every step on it was proved: the save is corrupt.")
            continue
        if uid in seen:
            violations.append(
                f"slots {seen[uid]} and {sid} of deck {deck!r} open to the same card, though "
                "every step on them was proved: the save is corrupt."
            )
        seen[uid] = sid
        if slot["status"] in ("drawn", "held", "open"):
            opened[sid] = uid
    return opened, violations


def shown(d: Deck) -> dict[str, str]:
    """Slot -> uid of every slot opened with a proof (an ``open`` item, face up in play or
    a held card at its seat's reveal): where the rules open each seat's cards at its
    reveal, all the audit opens (PROTOCOL.md section 7)."""
    return {sid: str(slot["card"]) for sid, slot in sorted_slots(d) if "card" in slot}


def closed(d: Deck, unaudited: Collection[int]) -> list[tuple[str, str, int, list[int]]]:
    """The drawn or held slots that stay closed because a seat in ``unaudited`` (declared
    absent, never revealed) still has a layer on them: (slot, status, holder, those
    seats), in slot order. The pile is left out: no seat holds it, and every pile slot
    carries every seat's layer."""
    out = []
    for sid, slot in sorted_slots(d):
        under = sorted(int(s) for s in slot["layers"] if int(s) in unaudited)
        if under and slot["status"] in ("drawn", "held"):
            out.append((sid, str(slot["status"]), int(slot["owner"]), under))
    return out


def left_closed(d: Deck, unaudited: Collection[int]) -> list[tuple[str, int, list[int]]]:
    """Where each reveal opens its seat's held cards (Game.opens_at_reveal), the held
    slots of seats that revealed which no open showed: another seat's layer, or work, was
    still on them when their holder revealed, so nobody can open them now. (slot, holder,
    the other seats whose layers are left), in slot order; a slot :func:`closed` lists (a
    seat in ``unaudited`` has a layer on it, or holds it) is left out."""
    out = []
    for sid, slot in sorted_slots(d):
        layers = [int(s) for s in slot["layers"]]
        if (slot["status"] == "held" and "card" not in slot and slot["owner"] not in unaudited
                and not any(s in unaudited for s in layers)):
            out.append((sid, int(slot["owner"]), sorted(s for s in layers if s != slot["owner"])))
    return out


def check_claims(d: Deck, opened: dict[str, str], claims: dict[int, list[str]]) -> list[str]:
    """Each seat's claimed held cards (played or scored from the hand) against what its
    held slots opened to; a claim no held slot backs is a violation."""
    out: list[str] = []
    for seat in sorted(claims):
        have = [
            opened[sid]
            for sid, slot in sorted_slots(d)
            # held only: a card shown face up before (an open slot) is no longer in the
            # hand; a held card its seat's reveal opened stays held
            if slot["owner"] == seat and slot["status"] == "held" and sid in opened
        ]
        for uid in claims[seat]:
            if uid in have:
                have.remove(uid)
            else:
                out.append(f"seat {seat} claimed to hold card {uid!r}, but no slot it holds opens to it.")
    return out

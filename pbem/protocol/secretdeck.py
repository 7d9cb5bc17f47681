"""Secret decks as games see them: reserve, keep, return, count.

A secret deck lives in ``state["secret"][deck]``, managed here and in pbem.protocol.mental_deck; games
touch it only through the functions below. Two modes share one layout:

* ``plain``: slots hold card uids in the clear. Used by pbem.local (rules tests, bots,
  benches), where nobody needs protecting.
* ``mental``: slots hold P-256 ciphertexts with layers (PROTOCOL.md section 6); chores
  (peels, re-locks) are done by the engine, and the audit opens every slot at the end.

Layout::

    {"mode": "plain"|"mental",
     "order": ["s3", "s0", ...],          # the draw pile, top first (slot ids)
     "slots": {"s0": {"status": "deck"|"drawn"|"held",
                      "owner": -1 | seat,
                      "card": uid,             # plain mode only
                      ...crypto fields...}},  # mental mode only
     "next": 18}                          # next fresh slot number

Slot ids are public and say nothing about the card. A seat's drawn slots become readable
to it once every other layer has been peeled; ``readable`` says whether that is so.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import IllegalMoveError

State = dict[str, Any]


def plain_deck(uids: list[str]) -> dict[str, Any]:
    """A plain-mode deck in the given order (top first); the engine shuffles it."""
    slots = {f"s{i}": {"status": "deck", "owner": -1, "card": uid} for i, uid in enumerate(uids)}
    return {"mode": "plain", "order": list(slots), "slots": slots, "next": len(uids)}


def _deck(state: State, deck: str) -> dict[str, Any]:
    return state["secret"][deck]


def remaining(state: State, deck: str) -> int:
    """Cards left in the draw pile."""
    return len(_deck(state, deck)["order"])


def reserve_top(state: State, deck: str, seat: int, count: int) -> list[str]:
    """Draw up to ``count`` slots from the top for ``seat``, privately. Returns the ids."""
    d = _deck(state, deck)
    taken = d["order"][:count]
    d["order"] = d["order"][count:]
    for slot_id in taken:
        d["slots"][slot_id]["status"] = "drawn"
        d["slots"][slot_id]["owner"] = seat
    if d["mode"] == "mental":
        from pbem.protocol import mental_deck

        mental_deck.on_reserve(d, taken, seat)
    return taken


def drawn(state: State, deck: str, seat: int) -> list[str]:
    """Slots drawn by ``seat`` and not yet kept or returned, in draw order."""
    d = _deck(state, deck)
    return [s for s, v in _sorted_slots(d) if v["status"] == "drawn" and v["owner"] == seat]


def held(state: State, deck: str, seat: int) -> list[str]:
    """Slots ``seat`` keeps (its commitments to cards only it has seen)."""
    d = _deck(state, deck)
    return [s for s, v in _sorted_slots(d) if v["status"] == "held" and v["owner"] == seat]


def readable(state: State, deck: str, seat: int) -> bool:
    """True once every drawn slot of ``seat`` carries only its own layer (or plain)."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return True
    from pbem.protocol import mental_deck

    return mental_deck.readable(d, seat)


def keep(state: State, deck: str, seat: int, slot_ids: list[str]) -> None:
    """Move drawn slots to the seat's hand."""
    d = _deck(state, deck)
    for slot_id in slot_ids:
        slot = d["slots"].get(slot_id)
        if slot is None or slot["status"] != "drawn" or slot["owner"] != seat:
            raise IllegalMoveError(f"slot {slot_id} is not one of your drawn cards")
        slot["status"] = "held"


def return_bottom(state: State, deck: str, seat: int, slot_ids: list[str]) -> None:
    """Put drawn slots under the pile in this order (first named goes in first).

    Each returned card gets a fresh slot id; in mental mode the engine re-locks it
    with fresh keys (chores), so nobody can link the new slot to the old one."""
    d = _deck(state, deck)
    for slot_id in slot_ids:
        slot = d["slots"].get(slot_id)
        if slot is None or slot["status"] != "drawn" or slot["owner"] != seat:
            raise IllegalMoveError(f"slot {slot_id} is not one of your drawn cards")
    for slot_id in slot_ids:
        old = d["slots"].pop(slot_id)
        new_id = f"s{d['next']}"
        d["next"] += 1
        if d["mode"] == "plain":
            d["slots"][new_id] = {"status": "deck", "owner": -1, "card": old["card"]}
        else:
            from pbem.protocol import mental_deck

            d["slots"][new_id] = mental_deck.on_return(d, slot_id, old, new_id, seat)
        d["order"].append(new_id)


def counts(state: State, deck: str) -> dict[int, int]:
    """How many cards each seat holds (public)."""
    d = _deck(state, deck)
    out: dict[int, int] = {}
    for _, v in _sorted_slots(d):
        if v["status"] == "held":
            out[v["owner"]] = out.get(v["owner"], 0) + 1
    return out


def _sorted_slots(d: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return sorted(d["slots"].items(), key=lambda kv: int(kv[0][1:]))


# ---- plain-mode helpers for pbem.local -------------------------------------------------
def readable_plain(d: dict[str, Any], seat: int) -> dict[str, str]:
    """Slot -> card for the slots ``seat`` drew or holds (plain mode)."""
    return {
        s: v["card"]
        for s, v in _sorted_slots(d)
        if v["owner"] == seat and v["status"] in ("drawn", "held")
    }


def open_all_plain(d: dict[str, Any]) -> dict[str, str]:
    """Slot -> card for every held slot (what the audit opens at the end)."""
    return {s: v["card"] for s, v in _sorted_slots(d) if v["status"] == "held"}

"""Secret decks in mental mode: the public deck state, chores, reads and the audit.

PROTOCOL.md section 6 on top of the primitives of pbem.mental. Games never call this
module; pbem.protocol.secretdeck calls the bookkeeping hooks and the engine calls the rest.

Deck state (the secretdeck layout plus crypto fields; TOML-friendly, no secret in it)::

    {"mode": "mental",
     "order": ["s7", "s2", ...],            # draw pile, top first
     "slots": {"s2": {"status": "deck"|"drawn"|"held", "owner": -1 | seat,
                      "ct": "64 hex digits",           # the ciphertext x
                      "layers": {"0": "deck", "2": "slot:5"},  # seat -> key kind
                      "from": "s3"}},                  # returned slots only: old id
     "next": 18,                             # next fresh slot number
     "seats": 3,                             # seats 0 .. seats-1 each add a layer
     "passes": [0, 1],                       # seats whose shuffle pass is done
     "serial": 6,                            # next slot-key serial
     "owed": [{"seat": 1, "op": "peel", "slot": "s2", "stage": 0},
              {"seat": 2, "op": "lock", "slot": "s20", "serial": 5, "stage": 1}]}

A layer is the seat's deck key (``"deck"``) or its slot key of a serial (``"slot:N"``).
Owed items of one slot run in stages: only the items of the lowest pending stage of a
slot are owed now (the returner re-locks before the others lock; peels wait for locks).

Chores (what an entry publishes, one per deck; ``apply_chore`` replays it)::

    {"deck": "bonus", "op": "shuffle", "cts": ["hex", ...]}   # one per slot of "order"
    {"deck": "bonus", "op": "work", "items": [
        {"op": "peel", "slot": "s2", "ct": "hex"},
        {"op": "lock", "slot": "s20", "serial": 5, "ct": "hex"}]}

A lock replaces the seat's layer on the slot (if any) with its fresh slot key of that
serial; a peel removes the seat's layer.

The engine's calls:

* create entry: ``create(game_id, deck, uids, seat, seed, seats)`` -> (state, chore);
  replay: ``d = blank(game_id, deck, uids, seats); apply_chore(d, seat, chore)``.
* join entry: ``perform(d, deck, seat, seed)`` (a shuffle pass), then ``apply_chore``.
* turn entry, after the moves: for each deck with ``owed(d, seat)``, ``perform`` then
  ``apply_chore``; on replay ``apply_chore`` for each chore, then ``require_done``
  (an entry that omits a deck's chore is rejected).
* ``readable``/``read`` give a seat its own cards; ``audit_chore``, ``open_held`` and
  ``check_claims`` run once every seed is public.

Keys depend only on the seat's per-game seed and the deck name (the seed already binds
the game), so the functions that only use keys take no game id; card points do.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from pbem.errors import IllegalMoveError, IntegrityError
from pbem.protocol import mental

Deck = dict[str, Any]
Chore = dict[str, Any]
Item = dict[str, Any]

DECK_LAYER = "deck"


# ---- small helpers -------------------------------------------------------------------
def _slot_layer(serial: int) -> str:
    return f"slot:{serial}"


def _layer_key(seed: bytes, deck: str, layer: str) -> int:
    """The scalar of a layer as recorded in a slot's ``layers``."""
    if layer == DECK_LAYER:
        return mental.deck_key(seed, deck)
    return mental.slot_key(seed, deck, int(layer.removeprefix("slot:")))


def _slot_number(slot_id: str) -> int:
    return int(slot_id[1:])


def _sorted_slots(d: Deck) -> list[tuple[str, dict[str, Any]]]:
    return sorted(d["slots"].items(), key=lambda kv: _slot_number(kv[0]))


def _describe(item: Item) -> str:
    return f"{'re-lock' if item['op'] == 'lock' else 'peel'} of slot {item['slot']}"


def _owed_now(d: Deck) -> list[Item]:
    """Owed items whose stage is the lowest still pending on their slot."""
    low: dict[str, int] = {}
    for item in d["owed"]:
        low[item["slot"]] = min(low.get(item["slot"], item["stage"]), item["stage"])
    return [item for item in d["owed"] if item["stage"] == low[item["slot"]]]


# ---- creating and shuffling ----------------------------------------------------------
def blank(game_id: str, deck: str, uids: list[str], seats: int) -> Deck:
    """The deck before any pass: card points in the clear, in the public uid order.

    Nobody stores this state (the create entry's chore replaces every value at once);
    it exists so the host's pass is a shuffle pass like every other one."""
    if len(set(uids)) != len(uids):
        raise ValueError(f"deck {deck!r} has two cards with the same uid")
    slots = {
        f"s{i}": {
            "status": "deck",
            "owner": -1,
            "ct": mental.to_hex(mental.card_point(game_id, deck, uid)),
            "layers": {},
        }
        for i, uid in enumerate(uids)
    }
    return {
        "mode": "mental",
        "order": list(slots),
        "slots": slots,
        "next": len(uids),
        "seats": seats,
        "passes": [],
        "serial": 0,
        "owed": [],
    }


def shuffle_pass(d: Deck, deck: str, seat: int, seed: bytes) -> Chore:
    """The seat's pass: its deck-key layer on every slot, then its secret permutation."""
    key = mental.deck_key(seed, deck)
    perm = mental.permutation(seed, deck, len(d["passes"]), len(d["order"]))
    before = [mental.from_hex(d["slots"][sid]["ct"]) for sid in d["order"]]
    cts = [mental.to_hex(mental.encrypt(key, before[j])) for j in perm]
    return {"deck": deck, "op": "shuffle", "cts": cts}


def create(
    game_id: str, deck: str, uids: list[str], seat: int, seed: bytes, seats: int
) -> tuple[Deck, Chore]:
    """The host's create: every card point under its deck key, permuted."""
    d = blank(game_id, deck, uids, seats)
    chore = shuffle_pass(d, deck, seat, seed)
    apply_chore(d, seat, chore)
    return d, chore


# ---- what is owed, and doing it ----------------------------------------------------------
def owed(d: Deck, seat: int) -> list[Item]:
    """Work ``seat`` owes now: ``[{"op": "shuffle"}]`` before its pass, else the peels
    and locks at the head of their slots' stages."""
    if seat not in d["passes"]:
        return [{"op": "shuffle"}]
    return [copy.deepcopy(item) for item in _owed_now(d) if item["seat"] == seat]


def _do_item(d: Deck, deck: str, seat: int, seed: bytes, item: Item) -> Item:
    """The published form of one owed item, computed with the seat's keys."""
    slot = d["slots"][item["slot"]]
    x = mental.from_hex(slot["ct"])
    layer = slot["layers"].get(str(seat))
    if item["op"] == "peel":
        value = mental.decrypt(_layer_key(seed, deck, layer), x)
        return {"op": "peel", "slot": item["slot"], "ct": mental.to_hex(value)}
    fresh = mental.slot_key(seed, deck, item["serial"])
    if layer is None:
        value = mental.encrypt(fresh, x)
    else:
        value = mental.rekey(_layer_key(seed, deck, layer), fresh, x)
    return {"op": "lock", "slot": item["slot"], "serial": item["serial"], "ct": mental.to_hex(value)}


def perform(d: Deck, deck: str, seat: int, seed: bytes) -> Chore | None:
    """Everything ``seat`` owes on this deck now, done with its keys; None if nothing.

    Does not change ``d``: the engine applies the chore with ``apply_chore``. Items that
    become owed by the same seat once its own earlier items are done (a lock, then a
    peel of the same slot) are included, so the seat owes nothing afterwards."""
    if seat not in d["passes"]:
        return shuffle_pass(d, deck, seat, seed)
    work = copy.deepcopy(d)
    items: list[Item] = []
    while True:
        now = owed(work, seat)
        if not now:
            break
        for item in now:
            done = _do_item(work, deck, seat, seed, item)
            _apply_item(work, deck, seat, done)
            items.append(done)
    if not items:
        return None
    return {"deck": deck, "op": "work", "items": items}


# ---- replaying a chore (no secrets needed) ------------------------------------------------
def _point(value: Any, where: str) -> int:
    try:
        return mental.from_hex(value)
    except ValueError as exc:
        raise IntegrityError(f"{where}: {exc}.") from None


def _apply_shuffle(d: Deck, deck: str, seat: int, chore: Chore) -> None:
    where = f"deck {deck!r}: seat {seat}'s shuffle pass"
    if seat in d["passes"]:
        raise IntegrityError(f"{where} is one too many: it has shuffled this deck already.")
    cts = chore.get("cts")
    if not isinstance(cts, list) or len(cts) != len(d["order"]):
        raise IntegrityError(f"{where} must list {len(d['order'])} ciphertexts, one per slot.")
    values = [_point(ct, f"{where}, position {i + 1}") for i, ct in enumerate(cts)]
    if len(set(values)) != len(values):
        raise IntegrityError(f"{where} lists the same ciphertext twice: a card was duplicated.")
    # Ciphertexts are canonical hex (from_hex checked them), so text compares as values.
    old = {d["slots"][sid]["ct"] for sid in d["order"]}
    if old & set(cts):
        raise IntegrityError(f"{where} leaves a ciphertext unchanged: it did not add its layer.")
    for sid, ct in zip(d["order"], cts, strict=True):
        d["slots"][sid]["ct"] = ct
        d["slots"][sid]["layers"][str(seat)] = DECK_LAYER
    d["passes"].append(seat)


def _apply_item(d: Deck, deck: str, seat: int, item: Any) -> None:
    where = f"deck {deck!r}: seat {seat}'s chore"
    if not isinstance(item, dict) or item.get("op") not in ("peel", "lock"):
        raise IntegrityError(f"{where} has an item that is not a peel or a re-lock.")
    slot_id = item.get("slot")
    wanted: dict[str, Any] = {"seat": seat, "op": item["op"], "slot": slot_id}
    if item["op"] == "lock":
        wanted["serial"] = item.get("serial")
    match = next(
        (owed_item for owed_item in _owed_now(d) if all(owed_item.get(k) == v for k, v in wanted.items())),
        None,
    )
    if match is None:
        raise IntegrityError(f"{where} has a {_describe(wanted)} that it does not owe now.")
    slot = d["slots"][slot_id]
    _point(item.get("ct"), f"{where}, {_describe(wanted)}")
    # Canonical hex on both sides (from_hex checked it), so text compares as values.
    if item["ct"] == slot["ct"]:
        raise IntegrityError(
            f"{where} leaves slot {slot_id} unchanged in its {_describe(wanted)}: "
            "it removed or added no layer (a re-used key?)."
        )
    for other_id, other in d["slots"].items():
        if other_id != slot_id and other["ct"] == item["ct"]:
            raise IntegrityError(
                f"{where} makes slot {slot_id} equal to slot {other_id}: a card was duplicated."
            )
    slot["ct"] = item["ct"]
    if item["op"] == "peel":
        slot["layers"].pop(str(seat), None)
    else:
        slot["layers"][str(seat)] = _slot_layer(match["serial"])
    d["owed"].remove(match)


def apply_chore(d: Deck, seat: int, chore: Chore) -> None:
    """Update the public state from a chore, or raise IntegrityError saying what is wrong
    or missing. All or nothing: ``d`` is unchanged when it raises."""
    deck = chore.get("deck", "?") if isinstance(chore, dict) else "?"
    if not isinstance(chore, dict) or chore.get("op") not in ("shuffle", "work"):
        raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore is neither a shuffle nor work.")
    work = copy.deepcopy(d)
    if seat not in work["passes"] and chore["op"] != "shuffle":
        raise IntegrityError(f"deck {deck!r}: seat {seat} owes its shuffle pass first.")
    if chore["op"] == "shuffle":
        _apply_shuffle(work, deck, seat, chore)
    else:
        items = chore.get("items")
        if not isinstance(items, list) or not items:
            raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore lists no work.")
        for item in items:
            _apply_item(work, deck, seat, item)
        require_done(work, deck, seat)
    d.clear()
    d.update(work)


def require_done(d: Deck, deck: str, seat: int) -> None:
    """Raise IntegrityError naming the work ``seat`` still owes on this deck, if any."""
    missing = owed(d, seat)
    if not missing:
        return
    if missing[0]["op"] == "shuffle":
        raise IntegrityError(f"deck {deck!r}: seat {seat} has not done its shuffle pass.")
    listed = ", ".join(_describe(item) for item in missing)
    raise IntegrityError(f"deck {deck!r}: seat {seat}'s entry omits owed work: {listed}.")


# ---- bookkeeping hooks called by pbem.protocol.secretdeck ----------------------------------------
def on_reserve(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots reserved for ``seat``: every other seat with a layer on them owes a peel."""
    if len(d["passes"]) < d["seats"]:
        raise IllegalMoveError("no card can be drawn before every seat has shuffled the deck.")
    for slot_id in slot_ids:
        pending = [item for item in d["owed"] if item["slot"] == slot_id]
        # Layers the slot will carry once its pending locks are done.
        layered = {int(s) for s in d["slots"][slot_id]["layers"]} | {
            item["seat"] for item in pending if item["op"] == "lock"
        }
        if seat not in layered:
            # Every pass and every return puts each seat's layer on; never happens.
            raise IntegrityError(f"slot {slot_id} lacks the layer of seat {seat}, who drew it.")
        stage = max((item["stage"] for item in pending), default=-1) + 1
        for other in sorted(layered - {seat}):
            d["owed"].append({"seat": other, "op": "peel", "slot": slot_id, "stage": stage})


def on_return(d: Deck, old_id: str, old: dict[str, Any], new_id: str, seat: int) -> dict[str, Any]:
    """A drawn card put back in the pile as ``new_id``: the returner re-locks it with a
    fresh slot key first, then every other seat replaces its layer (or adds one) with a
    fresh slot key, so no ciphertext of the new slot can ever be matched to an old one.
    Pending peels of the old slot are dropped: the locks supersede them."""
    d["owed"] = [item for item in d["owed"] if item["slot"] != old_id]
    for stage, who in enumerate([seat] + [s for s in range(d["seats"]) if s != seat]):
        d["owed"].append(
            {"seat": who, "op": "lock", "slot": new_id, "serial": d["serial"], "stage": min(stage, 1)}
        )
        d["serial"] += 1
    # The pile order already shows which drawn slot went where; "from" only names it.
    return {
        "status": "deck",
        "owner": -1,
        "ct": old["ct"],
        "layers": dict(old["layers"]),
        "from": old_id,
    }


# ---- reading one's own cards ------------------------------------------------------------
def _own_only(d: Deck, slot_id: str, seat: int) -> bool:
    slot = d["slots"][slot_id]
    return list(slot["layers"]) == [str(seat)] and not any(item["slot"] == slot_id for item in d["owed"])


def readable(d: Deck, seat: int) -> bool:
    """True once every drawn slot of ``seat`` carries only its own layer."""
    return all(
        _own_only(d, sid, seat)
        for sid, slot in d["slots"].items()
        if slot["status"] == "drawn" and slot["owner"] == seat
    )


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
    in it (opened face up, say). A slot that peels to no possible card, or to a card
    another of the seat's slots already shows, means someone peeled wrongly: raise."""
    points = mental.card_points(game_id, deck, uids)
    gone = set(elsewhere)
    out: dict[str, str] = {}
    for sid, slot in _sorted_slots(d):
        if slot["owner"] != seat or slot["status"] not in ("drawn", "held"):
            continue
        if not _own_only(d, sid, seat):
            continue
        key = _layer_key(seed, deck, slot["layers"][str(seat)])
        uid = points.get(mental.decrypt(key, mental.from_hex(slot["ct"])))
        if uid is None or uid in gone or uid in out.values():
            raise IntegrityError(
                f"CHEATING OR CORRUPTION: slot {sid} of deck {deck!r} does not decrypt to a "
                "card that can still be in the deck, so someone peeled it wrongly. Keep this "
                "save: the audit at the end of the game names who."
            )
        out[sid] = uid
    return out


# ---- the audit, once every seed is public ---------------------------------------------------
def _audit_shuffle(d_before: Deck, deck: str, seat: int, chore: Chore, seed: bytes) -> list[str]:
    expected = shuffle_pass(d_before, deck, seat, seed)["cts"]
    published = chore.get("cts")
    if published == expected:
        return []
    where = f"seat {seat}'s shuffle pass of deck {deck!r}"
    if not isinstance(published, list):
        return [f"{where} is malformed."]
    if sorted(published) == sorted(expected):
        return [f"{where} does not use the permutation its seed gives."]
    wrong = len(set(published) - set(expected))
    return [
        f"{where} does not follow from its seed: {wrong} of its ciphertexts are not a card "
        "of the deck under its deck key (cards substituted or a wrong key)."
    ]


def _explain_lock(work: Deck, deck: str, seat: int, seed: bytes, item: Item) -> str:
    """Why a published re-lock differs from the honest one, as a sentence."""
    returner = any(
        o["seat"] == seat and o["op"] == "lock" and o["slot"] == item["slot"] and o["stage"] == 0
        for o in work["owed"]
    )
    slot = work["slots"][item["slot"]]
    x = mental.from_hex(slot["ct"])
    layer = slot["layers"].get(str(seat))
    published = item.get("ct")

    def locked(key: int) -> str:
        if layer is None:
            return mental.to_hex(mental.encrypt(key, x))
        old = _layer_key(seed, deck, layer)
        return mental.to_hex(x if key == old else mental.rekey(old, key, x))

    name = f"seat {seat} re-locked slot {item['slot']}"
    if published == locked(mental.deck_key(seed, deck)):
        return f"{name} with its deck key instead of a fresh key: the slot can be linked."
    for serial in range(work["serial"]):
        if serial != item.get("serial") and published == locked(mental.slot_key(seed, deck, serial)):
            return f"{name} re-using its slot key of serial {serial}: the slot can be linked."
    if returner:
        return (
            f"{name} (returned from {slot['from']}) to a value its keys do not give: "
            "it swapped the returned card for another or used a wrong key."
        )
    return f"{name} to a value its keys do not give (a wrong key or a substituted card)."


def audit_chore(d_before: Deck, deck: str, seat: int, chore: Chore, seed: bytes) -> list[str]:
    """Re-compute a chore exactly from the seat's seed; the violations as sentences naming
    the seat (the engine adds the entry). ``d_before`` is the replayed public state just
    before the chore, so a cheat is charged to its author, not to the seats after."""
    if not isinstance(chore, dict):
        return [f"seat {seat}'s chore for deck {deck!r} is malformed."]
    if chore.get("op") == "shuffle":
        return _audit_shuffle(d_before, deck, seat, chore, seed)
    out: list[str] = []
    work = copy.deepcopy(d_before)
    for item in chore.get("items", []):
        try:
            honest = _do_item(work, deck, seat, seed, item)
        except (KeyError, TypeError, ValueError, AttributeError):
            return out + [f"seat {seat}'s chore for deck {deck!r} has a malformed item."]
        if item.get("ct") != honest["ct"]:
            if item.get("op") == "peel":
                out.append(
                    f"seat {seat} peeled slot {item['slot']} of deck {deck!r} wrongly: the "
                    "value it published is not the slot with its layer removed."
                )
            else:
                out.append(_explain_lock(work, deck, seat, seed, item) + f" (deck {deck!r})")
        try:
            _apply_item(work, deck, seat, item)  # follow the chore as the replay did
        except IntegrityError as exc:
            return out + [exc.message]
    if owed(work, seat):
        out.append(f"seat {seat}'s chore for deck {deck!r} omits work it owed.")
    return out


def open_held(
    d: Deck, game_id: str, deck: str, seeds: dict[int, bytes], uids: list[str]
) -> tuple[dict[str, str], list[str]]:
    """Peel every layer of every slot with its owner's key.

    Returns the uid of each drawn or held slot, and violations: a slot that opens to no
    card of the deck, two slots (pile included) that open to the same card, a slot whose
    layer belongs to a seat that never revealed its seed."""
    points = mental.card_points(game_id, deck, uids)
    opened: dict[str, str] = {}
    seen: dict[str, str] = {}
    violations: list[str] = []
    for sid, slot in _sorted_slots(d):
        holder = f"{slot['status']} by seat {slot['owner']}" if slot["owner"] >= 0 else "in the pile"
        missing = sorted(int(s) for s in slot["layers"] if int(s) not in seeds)
        if missing:
            who = ", ".join(f"seat {s}" for s in missing)
            violations.append(f"slot {sid} ({holder}) cannot be opened: {who} never revealed.")
            continue
        key = 1
        for s, layer in slot["layers"].items():
            key = key * _layer_key(seeds[int(s)], deck, layer) % mental.N
        uid = points.get(mental.decrypt(key, mental.from_hex(slot["ct"])))
        if uid is None:
            violations.append(f"slot {sid} ({holder}) of deck {deck!r} opens to no card of it.")
            continue
        if uid in seen:
            violations.append(
                f"slots {seen[uid]} and {sid} ({holder}) of deck {deck!r} open to the same card."
            )
        seen[uid] = sid
        if slot["status"] in ("drawn", "held"):
            opened[sid] = uid
    return opened, violations


def check_claims(d: Deck, opened: dict[str, str], claims: dict[int, list[str]]) -> list[str]:
    """Each seat's claimed held cards (played or scored from the hand) against what its
    held slots opened to; a claim no held slot backs is a violation."""
    out: list[str] = []
    for seat in sorted(claims):
        have = [
            opened[sid]
            for sid, slot in _sorted_slots(d)
            if slot["owner"] == seat and slot["status"] == "held" and sid in opened
        ]
        for uid in claims[seat]:
            if uid in have:
                have.remove(uid)
            else:
                out.append(f"seat {seat} claimed to hold card {uid!r}, but no slot it holds opens to it.")
    return out

"""Secret decks in mental mode: the public deck state, chores with proofs, reads, the audit.

PROTOCOL.md section 6 on top of pbem.protocol.mental (the group) and pbem.protocol.dleq
(the proofs). Games never call this module; pbem.protocol.secretdeck calls the bookkeeping
hooks (``on_reserve``, ``on_return``, ``on_pass``, ``on_open``) and the engine the rest.

Deck state (the secretdeck layout plus crypto fields; TOML-friendly, no secret in it)::

    {"mode": "mental",
     "cards": ["uid", ...],                  # every card of the deck (public component data)
     "order": ["s7", "s2", ...],            # draw pile, top first
     "slots": {"s2": {"status": "deck"|"drawn"|"held"|"open", "owner": -1 | seat,
                      "ct": "64 hex digits",               # the ciphertext, a point
                      "layers": {"0": "deck", "2": "slot:5"},  # seat -> key kind
                      "keys": {"2": "hex"},                # slot-key layers: their point S
                      "card": "uid"}},                     # open slots only
     "next": 18,                             # next fresh slot number
     "seats": 3,                             # seats 0 .. seats-1 each add a layer
     "passes": [0, 1],                       # seats whose shuffle pass is done
     "keys": {"0": "hex", "1": "hex"},       # each seat's deck key point K = g * B
     "serial": 6,                            # next slot-key serial
     "owed": [{"seat": 1, "op": "peel", "slot": "s2", "stage": 0},
              {"seat": 2, "op": "lock", "slot": "s20", "serial": 5, "stage": 1},
              {"seat": 0, "op": "open", "slot": "s4", "stage": 0}]}

A layer is the seat's deck key (``"deck"``, point in ``keys``) or its slot key of a serial
(``"slot:N"``, point in the slot's ``keys``). Owed items of one slot run in stages: only
the items of the lowest pending stage of a slot are owed now (a returner re-locks before
the others lock; a receiver locks before the giver peels; peels wait for locks).

Chores (what an entry publishes, one per deck; ``apply_chore`` replays and checks it)::

    {"deck": "bonus", "op": "shuffle", "key": "K hex", "cts": ["hex", ...]}
    {"deck": "bonus", "op": "work", "items": [
        {"op": "peel", "slot": "s2", "ct": "hex", "proof": "128 hex"},
        {"op": "lock", "slot": "s20", "serial": 5, "key": "S hex", "ct": "hex",
         "proof": "128 hex"},
        {"op": "open", "slot": "s4", "card": "uid", "proof": "128 hex"}]}

Proofs (pbem.protocol.dleq, bound to game, deck, entry seq, seat, op and slot), with X the
slot's ciphertext before the item and Y after it:

* peel of layer key k (point K): ``Y = k^-1 X``, proved as ``log_B(K) = log_Y(X)`` (the same
  relation as ``log_K(B) = log_X(Y)``, with witness k, so one multiplication of the four
  is by the base point and cheap);
* open: a peel of the holder's last layer whose Y is the point of the card it names;
* re-lock of layer k (point K) to fresh s (point S): ``log_K(S) = log_X(Y)`` (witness s/k);
  a first lock (no layer of the seat on the slot): ``log_B(S) = log_X(Y)``.

So every peel, lock and open is checked in the entry that makes it, with no secret.
Shuffle passes carry no proof (a verifiable shuffle is out of scope): the audit re-does
them from the revealed seeds, and checks every published key point against the seed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from pbem.errors import IllegalMoveError, IntegrityError
from pbem.protocol import dleq, mental
from pbem.terminal import shown

Deck = dict[str, Any]
Chore = dict[str, Any]
Item = dict[str, Any]

DECK_LAYER = "deck"
OPS = ("peel", "lock", "open")


# ---- small helpers -------------------------------------------------------------------
def _slot_layer(serial: int) -> str:
    return f"slot:{serial}"


def _layer_key(seed: bytes, deck: str, layer: str) -> int:
    """The scalar of a layer as recorded in a slot's ``layers``."""
    if layer == DECK_LAYER:
        return mental.deck_key(seed, deck)
    return mental.slot_key(seed, deck, int(layer.removeprefix("slot:")))


def _layer_point(d: Deck, slot: dict[str, Any], seat: int) -> bytes:
    """The public point of ``seat``'s layer on ``slot`` (checked when it was published)."""
    if slot["layers"][str(seat)] == DECK_LAYER:
        return bytes.fromhex(d["keys"][str(seat)])
    return bytes.fromhex(slot["keys"][str(seat)])


def _slot_number(slot_id: str) -> int:
    return int(slot_id[1:])


def _sorted_slots(d: Deck) -> list[tuple[str, dict[str, Any]]]:
    return sorted(d["slots"].items(), key=lambda kv: _slot_number(kv[0]))


def _describe(item: Item) -> str:
    name = {"lock": "re-lock", "peel": "peel", "open": "public open"}.get(item.get("op", ""), "item")
    slot = item.get("slot")
    plain = isinstance(slot, str) and len(slot) <= 8 and slot[:1] == "s" and slot[1:].isdigit()
    return f"{name} of slot {slot if plain else shown(slot, 12)}"


def _owed_now(d: Deck) -> list[Item]:
    """Owed items whose stage is the lowest still pending on their slot."""
    low: dict[str, int] = {}
    for item in d["owed"]:
        low[item["slot"]] = min(low.get(item["slot"], item["stage"]), item["stage"])
    return [item for item in d["owed"] if item["stage"] == low[item["slot"]]]


def _top_stage(d: Deck, slot_id: str) -> int:
    """The highest stage still pending on a slot (-1 when nothing is)."""
    return max((item["stage"] for item in d["owed"] if item["slot"] == slot_id), default=-1)


def copy_deck(d: Deck) -> Deck:
    """A copy of the deck state that shares nothing mutable (``cards`` is never changed):
    several times faster than ``copy.deepcopy`` on this known shape."""
    out = dict(d)
    out["order"] = list(d["order"])
    out["slots"] = {sid: {**slot, "layers": dict(slot["layers"]), "keys": dict(slot["keys"])}
                    for sid, slot in d["slots"].items()}
    out["passes"] = list(d["passes"])
    out["keys"] = dict(d["keys"])
    out["owed"] = [dict(item) for item in d["owed"]]
    return out


def _next_serial(d: Deck) -> int:
    serial: int = d["serial"]
    d["serial"] += 1
    return serial


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
            "keys": {},
        }
        for i, uid in enumerate(uids)
    }
    return {
        "mode": "mental",
        "cards": list(uids),
        "order": list(slots),
        "slots": slots,
        "next": len(uids),
        "seats": seats,
        "passes": [],
        "keys": {},
        "serial": 0,
        "owed": [],
    }


def shuffle_pass(d: Deck, deck: str, seat: int, seed: bytes) -> Chore:
    """The seat's pass: its deck key point, its layer on every slot, then its permutation."""
    key = mental.deck_key(seed, deck)
    perm = mental.permutation(seed, deck, len(d["passes"]), len(d["order"]))
    before = [bytes.fromhex(d["slots"][sid]["ct"]) for sid in d["order"]]
    cts = [mental.to_hex(mental.encrypt(key, before[j])) for j in perm]
    return {"deck": deck, "op": "shuffle", "key": mental.to_hex(mental.public_point(key)), "cts": cts}


def create(
    game_id: str, deck: str, uids: list[str], seat: int, seed: bytes, seats: int
) -> tuple[Deck, Chore]:
    """The host's create: every card point under its deck key, permuted."""
    d = blank(game_id, deck, uids, seats)
    chore = shuffle_pass(d, deck, seat, seed)
    apply_chore(d, seat, chore, game_id, 0)
    return d, chore


# ---- what is owed, and doing it ----------------------------------------------------------
def owed(d: Deck, seat: int) -> list[Item]:
    """Work ``seat`` owes now: ``[{"op": "shuffle"}]`` before its pass, else the peels,
    locks and opens at the head of their slots' stages."""
    if seat not in d["passes"]:
        return [{"op": "shuffle"}]
    return [dict(item) for item in _owed_now(d) if item["seat"] == seat]


def owing(d: Deck) -> list[int]:
    """Seats that owe work on this deck now (their next entry must do it)."""
    seats = {s for s in range(d["seats"]) if s not in d["passes"]}
    seats |= {item["seat"] for item in _owed_now(d)}
    return sorted(seats)


def settled(d: Deck, slot_ids: Iterable[str]) -> bool:
    """True when no work is pending on any of these slots."""
    wanted = set(slot_ids)
    return not any(item["slot"] in wanted for item in d["owed"])


def _do_item(d: Deck, game_id: str, deck: str, seq: int, seat: int, seed: bytes, item: Item) -> Item:
    """The published form of one owed item, computed with the seat's keys, with its proof."""
    slot_id = item["slot"]
    slot = d["slots"][slot_id]
    x = bytes.fromhex(slot["ct"])
    layer = slot["layers"].get(str(seat))
    ctx = dleq.context(game_id, deck, seq, seat, item["op"], slot_id)
    if item["op"] in ("peel", "open"):
        assert layer is not None
        k = _layer_key(seed, deck, layer)
        y = mental.decrypt(k, x)
        proof = dleq.prove(k, mental.BASE, _layer_point(d, slot, seat), y, x, ctx)
        if item["op"] == "open":
            card = mental.card_points(game_id, deck, d["cards"]).get(y)
            if card is None:
                raise IntegrityError(
                    f"CHEATING OR CORRUPTION: slot {slot_id} of deck {deck!r} does not open to a "
                    "card of the deck: a shuffle pass substituted a card. Keep this save: the "
                    "audit at the end of the game names who."
                )
            return {"op": "open", "slot": slot_id, "card": card, "proof": proof}
        return {"op": "peel", "slot": slot_id, "ct": mental.to_hex(y), "proof": proof}
    fresh = mental.slot_key(seed, deck, item["serial"])
    point = mental.public_point(fresh)
    if layer is None:
        y = mental.encrypt(fresh, x)
        proof = dleq.prove(fresh, mental.BASE, point, x, y, ctx)
    else:
        old = _layer_key(seed, deck, layer)
        y = mental.rekey(old, fresh, x)
        proof = dleq.prove(fresh * pow(old, -1, mental.L) % mental.L,
                           _layer_point(d, slot, seat), point, x, y, ctx)
    return {"op": "lock", "slot": slot_id, "serial": item["serial"], "key": mental.to_hex(point),
            "ct": mental.to_hex(y), "proof": proof}


def perform(d: Deck, deck: str, seat: int, seed: bytes, game_id: str, seq: int) -> Chore | None:
    """Everything ``seat`` owes on this deck now, done with its keys; None if nothing.

    ``seq`` is the entry the chore goes in (its proofs are bound to it). Does not change
    ``d``: the engine applies the chore with ``apply_chore``. Items that become owed by
    the same seat once its own earlier items are done (a lock, then a peel of the same
    slot) are included, so the seat owes nothing afterwards."""
    if seat not in d["passes"]:
        return shuffle_pass(d, deck, seat, seed)
    work = copy_deck(d)
    items: list[Item] = []
    while True:
        now = owed(work, seat)
        if not now:
            break
        for item in now:
            done = _do_item(work, game_id, deck, seq, seat, seed, item)
            _apply_item(work, game_id, deck, seq, seat, done, check=False)
            items.append(done)
    if not items:
        return None
    return {"deck": deck, "op": "work", "items": items}


# ---- replaying a chore (no secrets needed) ------------------------------------------------
def _point(value: Any, where: str) -> bytes:
    try:
        return mental.from_hex(value)
    except ValueError as exc:
        raise IntegrityError(f"{where}: {exc}.") from None


def _point_text(value: Any, where: str) -> bytes:
    """A point's bytes from its text, its form checked (64 lower-case hex digits) but not
    yet that it is a point of the group: only for a point a libsodium multiplication
    takes before it is trusted (see mental.mul)."""
    try:
        return mental.point_bytes(value)
    except ValueError as exc:
        raise IntegrityError(f"{where}: {exc}.") from None


def _new_key_point(d: Deck, seat: int, value: Any, where: str, *, proved: bool = False) -> bytes:
    """A key point a seat publishes: valid, not the base point (a key of 1 adds no layer),
    and not a point it published before that is still in use (a re-used key links slots).

    ``proved``: the point is checked to be valid elsewhere: by the proof check that
    follows (it multiplies the point; see _point_text), which must then call ``_point`` on
    a failure before anything else (an invalid point is neither the base point nor one in
    use, so the refusals come in the same order as if it were checked here); or before,
    for an entry this home verified (apply_chore without ``check``)."""
    point = (_point_text if proved else _point)(value, f"{where}, its key point")
    if point == mental.BASE:
        raise IntegrityError(f"{where} publishes the base point as its key: a key of 1 hides nothing.")
    mine = str(seat)
    used = {d["keys"].get(mine)} | {slot["keys"].get(mine) for slot in d["slots"].values()}
    if value in used:
        raise IntegrityError(f"{where} re-uses a key it used before: the slots could be linked.")
    return point


def _apply_shuffle(d: Deck, deck: str, seat: int, chore: Chore, check: bool = True) -> None:
    """Replay a shuffle pass; without ``check`` (see apply_chore) its points were checked
    to be points of the group before, so only their form is checked again."""
    where = f"deck {deck!r}: seat {seat}'s shuffle pass"
    if seat in d["passes"]:
        raise IntegrityError(f"{where} is one too many: it has shuffled this deck already.")
    _new_key_point(d, seat, chore.get("key"), where, proved=not check)
    if chore["key"] in d["keys"].values():
        raise IntegrityError(f"{where} publishes another seat's deck key point as its own.")
    cts = chore.get("cts")
    if not isinstance(cts, list) or len(cts) != len(d["order"]):
        raise IntegrityError(f"{where} must list {len(d['order'])} ciphertexts, one per slot.")
    point = _point if check else _point_text
    for i, ct in enumerate(cts):
        point(ct, f"{where}, position {i + 1}")
    if len(set(cts)) != len(cts):
        raise IntegrityError(f"{where} lists the same ciphertext twice: a card was duplicated.")
    # Points are canonical hex (from_hex checked them, here or before), so text compares
    # as values.
    old = {d["slots"][sid]["ct"] for sid in d["order"]}
    if old & set(cts):
        raise IntegrityError(f"{where} leaves a ciphertext unchanged: it did not add its layer.")
    for sid, ct in zip(d["order"], cts, strict=True):
        d["slots"][sid]["ct"] = ct
        d["slots"][sid]["layers"][str(seat)] = DECK_LAYER
    d["keys"][str(seat)] = chore["key"]
    d["passes"].append(seat)


def _match(d: Deck, seat: int, item: Any, where: str) -> Item:
    """The owed item this published item does, or IntegrityError."""
    if not isinstance(item, dict) or item.get("op") not in OPS:
        raise IntegrityError(f"{where} has an item that is not a peel, a re-lock or an open.")
    wanted: dict[str, Any] = {"seat": seat, "op": item["op"], "slot": item.get("slot")}
    if item["op"] == "lock":
        if type(item.get("serial")) is not int:
            raise IntegrityError(f"{where} has a re-lock whose serial is not a whole number.")
        wanted["serial"] = item["serial"]
    # The first owed item that matches and is at the lowest stage pending on its slot
    # (_owed_now's test, made on the slot's items only: a chore has many items).
    on_slot = [o for o in d["owed"] if o.get("slot") == wanted["slot"]]
    low = min((o["stage"] for o in on_slot), default=None)
    match = next(
        (o for o in on_slot
         if o["stage"] == low and all(o.get(k) == v for k, v in wanted.items())),
        None,
    )
    if match is None:
        raise IntegrityError(f"{where} has a {_describe(wanted)} that it does not owe now.")
    return match


def _apply_item(d: Deck, game_id: str, deck: str, seq: int, seat: int, item: Any,
                check: bool = True) -> None:
    """Replay one item; with ``check`` (always, except on the signer's own fresh work and
    on an entry this home verified before) its proof is verified, so a wrong peel, lock or
    open is refused here and now."""
    where = f"deck {deck!r}: seat {seat}'s chore"
    match = _match(d, seat, item, where)
    op, slot_id = item["op"], item["slot"]
    what = f"{where}, {_describe(item)}"
    slot = d["slots"][slot_id]
    x = bytes.fromhex(slot["ct"])
    ctx = dleq.context(game_id, deck, seq, seat, op, slot_id)
    proof = item.get("proof")
    if op != "lock" and str(seat) not in slot["layers"]:  # owed items never ask this
        raise IntegrityError(f"{what} removes a layer the seat does not have on the slot.")
    if op == "open":
        card = item.get("card")
        if not isinstance(card, str) or card not in d["cards"]:
            raise IntegrityError(f"{what} names {shown(card)}, which is not a card of the deck.")
        if list(slot["layers"]) != [str(seat)]:
            raise IntegrityError(f"{what} comes while other layers are still on the slot.")
        taken = next((sid for sid, s in d["slots"].items() if s.get("card") == card), None)
        if taken is not None:
            raise IntegrityError(f"{what} names {card}, which slot {taken} already showed: a "
                                 "card was duplicated (a shuffle pass substituted it).")
        y = mental.card_point(game_id, deck, card)
    elif op == "peel" or not check:
        # Checked as a point of the group by the proof's check, which multiplies it (the
        # multiplication refuses exactly the points from_hex refuses); if the check fails,
        # an invalid point is still refused as one, first, as below. Without ``check``,
        # checked before (an entry this home verified) or made here (the signer's work).
        y = _point_text(item.get("ct"), what)
    else:
        y = _point(item.get("ct"), what)
    if op in ("peel", "open"):
        if check and not dleq.verify(proof, mental.BASE, _layer_point(d, slot, seat), y, x, ctx):
            if op == "peel":
                _point(item.get("ct"), what)
            claim = f"does not show {card}" if op == "open" else "is not the slot with its layer removed"
            raise IntegrityError(
                f"{what} fails its proof: the published value {claim}. A wrong or forged "
                "peel is refused."
            )
    else:
        serial = match["serial"]
        new_key = _new_key_point(d, seat, item.get("key"), what, proved=True)
        old = slot["layers"].get(str(seat))
        base = mental.BASE if old is None else _layer_point(d, slot, seat)
        if check and not dleq.verify(proof, base, new_key, x, y, ctx):
            _point(item.get("key"), f"{what}, its key point")  # an invalid one, refused as such
            raise IntegrityError(
                f"{what} fails its proof: the published value is not the slot with the "
                f"seat's layer replaced by the key it published for serial {serial}."
            )
    if y.hex() == slot["ct"]:  # never with a valid proof; kept as a plain guard
        raise IntegrityError(f"{what} leaves slot {slot_id} unchanged.")
    text = y.hex()
    for other_id, other in d["slots"].items():
        if other_id != slot_id and other["ct"] == text:
            raise IntegrityError(
                f"{what} makes slot {slot_id} equal to slot {other_id}: a card was duplicated."
            )
    slot["ct"] = text
    if op == "lock":
        slot["layers"][str(seat)] = _slot_layer(match["serial"])
        slot["keys"][str(seat)] = item["key"]
    else:
        slot["layers"].pop(str(seat), None)
        slot["keys"].pop(str(seat), None)
    if op == "open":
        slot["status"] = "open"
        slot["card"] = item["card"]
    d["owed"].remove(match)


def apply_chore(d: Deck, seat: int, chore: Chore, game_id: str, seq: int,
                check: bool = True) -> None:
    """Update the public state from a chore of entry ``seq``, or raise IntegrityError saying
    what is wrong or missing. All or nothing: ``d`` is unchanged when it raises. Without
    ``check`` (an entry this home verified before) its proofs are not verified again, nor
    its points checked to be points of the group (only their form); every other check
    still runs."""
    deck = chore.get("deck", "?") if isinstance(chore, dict) else "?"
    if not isinstance(chore, dict) or chore.get("op") not in ("shuffle", "work"):
        raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore is neither a shuffle nor work.")
    work = copy_deck(d)
    if seat not in work["passes"] and chore["op"] != "shuffle":
        raise IntegrityError(f"deck {deck!r}: seat {seat} owes its shuffle pass first.")
    if chore["op"] == "shuffle":
        _apply_shuffle(work, deck, seat, chore, check)
    else:
        items = chore.get("items")
        if not isinstance(items, list) or not items:
            raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore lists no work.")
        for item in items:
            _apply_item(work, game_id, deck, seq, seat, item, check)
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
def _require_shuffled(d: Deck) -> None:
    if len(d["passes"]) < d["seats"]:
        raise IllegalMoveError("no card can be drawn before every seat has shuffled the deck.")


def on_reserve(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots reserved for ``seat``: every other seat with a layer on them owes a peel."""
    _require_shuffled(d)
    for slot_id in slot_ids:
        pending = [item for item in d["owed"] if item["slot"] == slot_id]
        # Layers the slot will carry once its pending locks are done.
        layered = {int(s) for s in d["slots"][slot_id]["layers"]} | {
            item["seat"] for item in pending if item["op"] == "lock"
        }
        if seat not in layered:
            # Every pass and every return puts each seat's layer on; never happens.
            raise IntegrityError(f"slot {slot_id} lacks the layer of seat {seat}, who drew it.")
        stage = _top_stage(d, slot_id) + 1
        for other in sorted(layered - {seat}):
            d["owed"].append({"seat": other, "op": "peel", "slot": slot_id, "stage": stage})


def on_return(d: Deck, old_id: str, old: dict[str, Any], new_id: str, seat: int) -> dict[str, Any]:
    """A drawn card put back in the pile as ``new_id``; the new slot, with its chores owed.

    What could link the returned slot to the drawn one, and what is done about each:

    * A field naming the old slot: there is none (the new slot has no ``from``).
    * Its id: a fresh number from the deck's counter, which says only how many slots
      were made before it (the move that returns the card says as much).
    * Its ciphertext and keys: the returner re-locks it first with a fresh slot key,
      then every other seat replaces its layer (or adds one) with a fresh slot key, so no
      ciphertext the slot will ever show equals one seen before. Key re-use would link
      it (the same card under the same keys gives the same ciphertext), so replay refuses
      a key point a seat has in use already, and the audit checks every key point
      against the seat's seed (each serial gives its own key).
    * Its position: the game puts it under the pile in the order the returning move
      gives. Where a game's notation names the returned slots in order (Road Master's
      ``bottom``), that order is public by the rules, as is the link it makes; the deck
      adds nothing to it.
    * The proofs: the returner's re-lock proof relates the old ciphertext to the new one,
      the same link the public move already states. Hiding which returned card went where
      (a secret order) would need a proof that the returned set was re-locked as a
      whole in a hidden permutation (a verifiable shuffle), which is out of scope.

    Pending peels of the old slot are dropped: the locks supersede them."""
    d["owed"] = [item for item in d["owed"] if item["slot"] != old_id]
    for stage, who in enumerate([seat] + [s for s in range(d["seats"]) if s != seat]):
        d["owed"].append(
            {"seat": who, "op": "lock", "slot": new_id, "serial": _next_serial(d), "stage": min(stage, 1)}
        )
    return {
        "status": "deck",
        "owner": -1,
        "ct": old["ct"],
        "layers": dict(old["layers"]),
        "keys": dict(old["keys"]),
    }


def on_pass(d: Deck, slot_ids: list[str], holder: int, to: int) -> None:
    """Slots ``holder`` holds go to ``to``: ``to`` locks each with a fresh slot key first,
    then ``holder`` peels its own layer (layers commute), so only ``to`` can read them and
    the card is never without a layer only its holder can remove. A pending peel by ``to``
    on the slot is dropped: its lock replaces that layer instead."""
    _require_shuffled(d)
    for slot_id in slot_ids:
        d["owed"] = [item for item in d["owed"] if not (item["slot"] == slot_id and item["seat"] == to)]
        stage = _top_stage(d, slot_id) + 1
        d["owed"].append({"seat": to, "op": "lock", "slot": slot_id, "serial": _next_serial(d),
                          "stage": stage})
        d["owed"].append({"seat": holder, "op": "peel", "slot": slot_id, "stage": stage + 1})


def on_open(d: Deck, slot_ids: list[str], seat: int) -> None:
    """Slots ``seat`` holds are shown to everyone: once the other layers are off, ``seat``
    peels its own and names the card, with a proof anyone checks at once."""
    _require_shuffled(d)
    for slot_id in slot_ids:
        stage = _top_stage(d, slot_id) + 1
        d["owed"].append({"seat": seat, "op": "open", "slot": slot_id, "stage": stage})


# ---- reading one's own cards ------------------------------------------------------------
def _own_only(d: Deck, slot_id: str, seat: int) -> bool:
    slot = d["slots"][slot_id]
    return list(slot["layers"]) == [str(seat)] and not any(item["slot"] == slot_id for item in d["owed"])


def readable(d: Deck, seat: int) -> bool:
    """True once every drawn or held slot of ``seat`` carries only its own layer."""
    return all(
        _own_only(d, sid, seat)
        for sid, slot in d["slots"].items()
        if slot["status"] in ("drawn", "held") and slot["owner"] == seat
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
    in it (opened face up, say). Every peel was proved, so a slot that opens to no
    possible card, or to one shown elsewhere, means a shuffle pass substituted a card."""
    points = mental.card_points(game_id, deck, uids)
    gone = set(elsewhere) | {s["card"] for s in d["slots"].values() if s["status"] == "open"}
    out: dict[str, str] = {}
    for sid, slot in _sorted_slots(d):
        if slot["owner"] != seat or slot["status"] not in ("drawn", "held"):
            continue
        if not _own_only(d, sid, seat):
            continue
        key = _layer_key(seed, deck, slot["layers"][str(seat)])
        uid = points.get(mental.decrypt(key, bytes.fromhex(slot["ct"])))
        if uid is None or uid in gone or uid in out.values():
            raise IntegrityError(
                f"CHEATING OR CORRUPTION: slot {sid} of deck {deck!r} does not decrypt to a "
                "card that can still be in the deck: a shuffle pass substituted a card. Keep "
                "this save: the audit at the end of the game names who."
            )
        out[sid] = uid
    return out


# ---- the audit, once every seed is public ---------------------------------------------------
def _audit_shuffle(d_before: Deck, deck: str, seat: int, chore: Chore, seed: bytes) -> list[str]:
    honest = shuffle_pass(d_before, deck, seat, seed)
    where = f"seat {seat}'s shuffle pass of deck {deck!r}"
    out = []
    if chore.get("key") != honest["key"]:
        out.append(f"{where} publishes a deck key point its seed does not give.")
    expected, published = honest["cts"], chore.get("cts")
    if published == expected:
        return out
    if not isinstance(published, list):
        return out + [f"{where} is malformed."]
    if sorted(published) == sorted(expected):
        return out + [f"{where} does not use the permutation its seed gives."]
    wrong = len(set(published) - set(expected))
    return out + [
        f"{where} does not follow from its seed: {wrong} of its ciphertexts are not a card "
        "of the deck under its deck key (cards substituted or a wrong key)."
    ]


def _explain_key(d_before: Deck, deck: str, seat: int, seed: bytes, item: Item) -> str:
    """Why a lock's key point is not the one the seed gives for its serial, as a sentence."""
    name = f"seat {seat} re-locked slot {item['slot']} of deck {deck!r}"
    published = item.get("key")
    if published == mental.to_hex(mental.public_point(mental.deck_key(seed, deck))):
        return f"{name} with its deck key instead of a fresh key: the slot can be linked."
    for serial in range(d_before["serial"]):
        if serial != item.get("serial") and published == mental.to_hex(
            mental.public_point(mental.slot_key(seed, deck, serial))
        ):
            return f"{name} re-using its slot key of serial {serial}: the slot can be linked."
    return f"{name} with a key its seed does not give for serial {item.get('serial')}."


def audit_chore(d_before: Deck, deck: str, seat: int, chore: Chore, seed: bytes) -> list[str]:
    """Check a chore against the seat's revealed seed; the violations as sentences naming
    the seat (the engine adds the entry). Peels, locks and opens were proved at replay, so
    what is left is what no proof covers: the shuffle pass, and that every key point the
    seat published is the one its seed gives (so its slots can be opened at the end)."""
    if not isinstance(chore, dict):
        return [f"seat {seat}'s chore for deck {deck!r} is malformed."]
    if chore.get("op") == "shuffle":
        return _audit_shuffle(d_before, deck, seat, chore, seed)
    out: list[str] = []
    for item in chore.get("items", []):
        if not isinstance(item, dict) or item.get("op") != "lock":
            continue
        serial = item.get("serial")
        if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
            out.append(f"seat {seat}'s chore for deck {deck!r} has a malformed item.")
            continue
        honest = mental.to_hex(mental.public_point(mental.slot_key(seed, deck, serial)))
        if item.get("key") != honest:
            out.append(_explain_key(d_before, deck, seat, seed, item))
    return out


def open_held(
    d: Deck, game_id: str, deck: str, seeds: dict[int, bytes], uids: list[str],
    unaudited: Collection[int] = (),
) -> tuple[dict[str, str], list[str]]:
    """Peel every layer of every slot with its owner's key.

    Returns the uid of each drawn, held or open slot, and violations: a slot that opens to
    no card of the deck, two slots (pile included) that open to the same card, a slot whose
    layer belongs to a seat that never revealed its seed. A slot carrying a layer of a seat
    in ``unaudited`` (declared absent, PROTOCOL.md section 11) is left closed, silently:
    the engine lists that seat's secrets as unaudited."""
    points = mental.card_points(game_id, deck, uids)
    layer_keys: dict[tuple[str, str], int] = {}
    opened: dict[str, str] = {}
    seen: dict[str, str] = {}
    violations: list[str] = []
    for sid, slot in _sorted_slots(d):
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
                layer_keys[(s, layer)] = _layer_key(seeds[int(s)], deck, layer)
            key = key * layer_keys[(s, layer)] % mental.L
        point = bytes.fromhex(slot["ct"])
        uid = points.get(point if key == 1 else mental.decrypt(key, point))
        if uid is None:
            violations.append(f"slot {sid} ({holder}) of deck {deck!r} opens to no card of it.")
            continue
        if uid in seen:
            violations.append(
                f"slots {seen[uid]} and {sid} ({holder}) of deck {deck!r} open to the same card."
            )
        seen[uid] = sid
        if slot["status"] in ("drawn", "held", "open"):
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

"""Secret decks in mental mode: the public deck state, chores with proofs, reads, the audit.

PROTOCOL.md section 6 on top of pbem.protocol.crypto.mental (the group) and pbem.protocol.crypto.dleq
(the proofs). Games never call this module; pbem.protocol.crypto.secretdeck calls the bookkeeping
hooks (``on_*``) and the engine the rest; mental_open reads what a seed opens.

Deck state (the secretdeck layout plus crypto fields; TOML-friendly, no secret in it)::

    {"mode": "mental",
     "cards": ["uid", ...],                  # every card of the deck (public component data)
     "order": ["s7", "s2", ...],            # draw pile, top first
     "slots": {"s2": {"status": "deck"|"drawn"|"held"|"open", "owner": -1 | seat,
                      "ct": "43 base64url characters",    # the ciphertext, a point
                      "layers": {"0": "deck", "2": "slot:5"},  # seat -> key kind
                      "keys": {"2": "point"},              # slot-key layers: their point S
                      "card": "uid",                       # open slots only
                      "was": "s3"}},                       # fresh, no chore named it yet
     "next": 18,                             # next fresh slot number
     "seats": 3,                             # seats 0 .. seats-1 each add a layer
     "passes": [0, 1],                       # seats whose shuffle pass is done
     "keys": {"0": "point", "1": "point"},   # each seat's deck key point K = g * B
     "serial": 6,                            # next slot-key serial
     "owed": [{"seat": 1, "op": "peel", "slot": "s2", "stage": 0},
              {"seat": 2, "op": "shuffle", "slots": ["s20", "s21"], "serial": 5,
               "stage": 1},
              {"seat": 0, "op": "open", "slot": "s4", "stage": 0}]}

A layer is the seat's deck key (``"deck"``, point in ``keys``) or its slot key of a serial
(``"slot:N"``, point in the slot's ``keys``). Owed items of one slot run in stages: only
the items of the lowest pending stage of a slot are owed now (a returner re-keys before
the others re-lock; a receiver re-locks before the giver peels).

Chores (what an entry publishes, one per deck; ``apply_chore`` replays and checks them):
a shuffle pass ``{"deck", "op": "shuffle", "key", "cts", "proof"}`` (the first pass also
``cards``, the deck's starting cards in slot order) or ``{"deck", "op": "work", "items"}``,
each item a ``peel``, ``open``, ``rekey`` or batch ``shuffle``; the first item on slots a
move gave fresh ids names the ids they replace (``from``). Shapes in
docs/protocol-deck.md; with ``cards`` and ``from`` a verifier follows a deck with no game
rule. Points and proofs are unpadded base64url (pbem.protocol.crypto.b64); a shuffle proof in pieces
of at most 16000 characters (a save's strings are bounded). An owed batch item is owed now
when its stage is the lowest pending on every slot it names.

Proofs, with X the slot's ciphertext before the item and Y after it:

* peel of layer key k (point K): ``Y = k^-1 X``, proved as ``log_B(K) = log_Y(X)`` (the same
  relation as ``log_K(B) = log_X(Y)``, with witness k, so one multiplication of the four
  is by the base point and cheap);
* open: a peel of the holder's last layer whose Y is the point of the card it names;
* ``rekey`` of a batch, one proof per slot: the re-lock of layer k (point K) to one fresh
  s (point S) for the whole batch, ``log_K(S) = log_X(Y)`` (witness s/k);
* shuffle pass (create, join): pbem.protocol.crypto.shuffle_proof with ``g = B``, ``h = K`` (the
  seat's deck key point), inputs the pile before the pass, outputs the published cts;
* batch ``shuffle`` (the re-lock of a returned or passed batch): the same proof with
  ``g = K_old`` (the seat's layer on every slot of the batch, uniform by construction) or
  ``g = B`` (no layer of the seat on the batch), ``h = S``, so ``x = s/k_old`` or ``s``:
  one common exponent for the batch, and a secret permutation.

All bound to game, deck, entry seq and seat (dleq.context, shuffle_proof.context), so
every step is checked in the entry that makes it, with no secret. The audit then checks
only what no proof covers: that every key point a seat published is the one its revealed
seed gives (else its layers could not be opened), and opens every slot.

No trail (docs/protocol-deck.md, "Batches"): a returned or passed batch gets fresh slot
ids, then is re-locked in a secret order by every seat but its last reader, each with a
shuffle proof, and every slot of a batch carries one layer record.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from pbem.errors import IntegrityError
from pbem.protocol.crypto import deck_handoff, dleq, mental, shuffle_proof
from pbem.protocol.crypto.derive import SHUFFLE_PROOF, derive
from pbem.terminal import shown

Deck = dict[str, Any]
Chore = dict[str, Any]
Item = dict[str, Any]

DECK_LAYER = "deck"
OPS = ("peel", "open", "rekey", "shuffle", "handoff", "adopt")
# Items on a batch of slots (``slots``, ``serial``); the last two make a one-step pass
# (pbem.protocol.crypto.deck_handoff).
BATCH_OPS = ("rekey", "shuffle", "handoff", "adopt")
ONE_STEP_OPS = ("handoff", "adopt")


# ---- small helpers -------------------------------------------------------------------
def slot_layer(serial: int) -> str:
    return f"slot:{serial}"


def layer_key(seed: bytes, deck: str, layer: str) -> int:
    """The scalar of a layer as recorded in a slot's ``layers``."""
    if layer in (DECK_LAYER, deck_handoff.PAIR_LAYER):  # a pair opens with the deck key
        return mental.deck_key(seed, deck)
    return mental.slot_key(seed, deck, int(layer.removeprefix("slot:")))


def layer_point(d: Deck, slot: dict[str, Any], seat: int) -> bytes:
    """The public point of ``seat``'s layer on ``slot`` (checked when it was published)."""
    if slot["layers"][str(seat)] in (DECK_LAYER, deck_handoff.PAIR_LAYER):
        return mental.point_bytes(d["keys"][str(seat)])
    return mental.point_bytes(slot["keys"][str(seat)])


def _slot_number(slot_id: str) -> int:
    return int(slot_id[1:])


def sorted_slots(d: Deck) -> list[tuple[str, dict[str, Any]]]:
    return sorted(d["slots"].items(), key=lambda kv: _slot_number(kv[0]))


def item_slots(item: Item) -> list[str]:
    """The slots an owed or published item works on (a batch item names several)."""
    slots = item.get("slots") if item.get("op") in BATCH_OPS else [item.get("slot")]
    return list(slots) if isinstance(slots, list) else []


def _plain_id(slot: object) -> bool:
    return isinstance(slot, str) and len(slot) <= 8 and slot[:1] == "s" and slot[1:].isdigit()


def describe_item(item: Item) -> str:
    op = item.get("op", "")
    if not isinstance(op, str):  # a signed item of the wrong shape, told in words
        op = ""
    if op in BATCH_OPS:
        slots = item_slots(item)
        names = " ".join(s if _plain_id(s) else shown(s, 12) for s in slots[:12])
        more = f" and {len(slots) - 12} more" if len(slots) > 12 else ""
        what = {"shuffle": "shuffled re-lock", "rekey": "re-lock to one key",
                "handoff": "handoff", "adopt": "adoption"}[op]
        return f"{what} of the batch {names}{more}"
    name = {"peel": "peel", "open": "public open"}.get(op, "item")
    slot = item.get("slot")
    return f"{name} of slot {slot if _plain_id(slot) else shown(slot, 12)}"


def with_article(words: str) -> str:
    """``words`` after "a" or "an" ("an adoption of the batch ...")."""
    return ("an " if words[:1] in ("a", "e", "i", "o", "u") else "a ") + words


def owed_now(d: Deck) -> list[Item]:
    """Owed items whose stage is the lowest still pending on every slot they name."""
    named = [(item, item_slots(item)) for item in d["owed"]]  # each item's slots read once
    low: dict[str, int] = {}
    for item, slots in named:
        for sid in slots:
            low[sid] = min(low.get(sid, item["stage"]), item["stage"])
    return [item for item, slots in named if all(item["stage"] == low[sid] for sid in slots)]


def pending_on(d: Deck, slot_id: str) -> list[Item]:
    return [item for item in d["owed"] if slot_id in item_slots(item)]


def top_stage(d: Deck, slot_ids: Iterable[str]) -> int:
    """The highest stage still pending on any of these slots (-1 when nothing is)."""
    wanted = set(slot_ids)
    return max((item["stage"] for item in d["owed"] if wanted & set(item_slots(item))),
               default=-1)


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


def next_serial(d: Deck) -> int:
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
            "ct": mental.to_text(mental.card_point(game_id, deck, uid)),
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


# A save's strings are bounded (canonical.MAX_STRING): a shuffle proof (4/3 (128 n + 160)
# characters for n cards) travels as a list of pieces of at most this many characters.
PROOF_PIECE = 16_000


def pack_proof(proof: str) -> list[str]:
    """A shuffle proof as the list of pieces a chore carries (``[""]`` for no cards)."""
    return [proof[i:i + PROOF_PIECE] for i in range(0, len(proof), PROOF_PIECE)] or [""]


def unpack_proof(value: object) -> object:
    """The proof text of a chore's pieces, or the value itself if it is not a list of
    strings (shuffle_proof.verify then refuses it)."""
    if isinstance(value, list) and value and all(isinstance(p, str) for p in value):
        return "".join(value)
    return value


def _proof_secret(seed: bytes, ctx: bytes) -> bytes:
    """The secret a shuffle proof draws its randomness from: derived, so signing the same
    entry twice gives the same bytes."""
    return derive(seed, SHUFFLE_PROOF + ctx)


def batch_context(game_id: str, deck: str, seq: int, seat: int, serial: int,
                  slot_ids: list[str]) -> bytes:
    """A batch shuffle's proof context: its op names the serial and the slots, in order."""
    return shuffle_proof.context(game_id, deck, seq, seat,
                                 f"relock:{serial}:{','.join(slot_ids)}")


def shuffle_pass(d: Deck, deck: str, seat: int, seed: bytes, game_id: str, seq: int) -> Chore:
    """The seat's pass: its deck key point, its layer on every slot, then its permutation,
    with a shuffle proof bound to entry ``seq``."""
    key = mental.deck_key(seed, deck)
    point = mental.public_point(key)
    perm = mental.permutation(seed, deck, len(d["passes"]), len(d["order"]))
    before = [mental.point_bytes(d["slots"][sid]["ct"]) for sid in d["order"]]
    ctx = shuffle_proof.context(game_id, deck, seq, seat, "shuffle")
    outputs, proof = shuffle_proof.prove(mental.BASE, point, key, before, perm, ctx,
                                         _proof_secret(seed, ctx))
    chore: Chore = {"deck": deck, "op": "shuffle", "key": mental.to_text(point),
                    "cts": [mental.to_text(p) for p in outputs], "proof": pack_proof(proof)}
    if not d["passes"]:  # the first pass names the cards the deck starts with, in order
        chore["cards"] = list(d["cards"])
    return chore


def create(
    game_id: str, deck: str, uids: list[str], seat: int, seed: bytes, seats: int
) -> tuple[Deck, Chore]:
    """The host's create: every card point under its deck key, permuted."""
    d = blank(game_id, deck, uids, seats)
    chore = shuffle_pass(d, deck, seat, seed, game_id, 0)
    apply_chore(d, seat, chore, game_id, 0)
    return d, chore


# ---- what is owed, and doing it ----------------------------------------------------------
def owed(d: Deck, seat: int) -> list[Item]:
    """Work ``seat`` owes now: ``[{"op": "shuffle"}]`` before its pass, else the peels,
    batch re-locks and opens at the head of their slots' stages."""
    if seat not in d["passes"]:
        return [{"op": "shuffle"}]
    return [dict(item) for item in owed_now(d) if item["seat"] == seat]


def owing(d: Deck) -> list[int]:
    """Seats that owe work on this deck now (their next entry must do it)."""
    seats = {s for s in range(d["seats"]) if s not in d["passes"]}
    seats |= {item["seat"] for item in owed_now(d)}
    return sorted(seats)


def settled(d: Deck, slot_ids: Iterable[str]) -> bool:
    """True when no work is pending on any of these slots."""
    wanted = set(slot_ids)
    return not any(wanted & set(item_slots(item)) for item in d["owed"])


def _do_batch(d: Deck, game_id: str, deck: str, seq: int, seat: int, seed: bytes,
              item: Item) -> Item:
    """A batch re-lock (``rekey`` or ``shuffle``) done with the seat's keys."""
    if item["op"] in ONE_STEP_OPS:
        return _do_one_step(d, game_id, deck, seq, seat, seed, item)
    slot_ids = list(item["slots"])
    serial = item["serial"]
    fresh = mental.slot_key(seed, deck, serial)
    point = mental.public_point(fresh)
    xs = [mental.point_bytes(d["slots"][sid]["ct"]) for sid in slot_ids]
    if item["op"] == "rekey":
        cts, proofs = [], []
        for sid, x in zip(slot_ids, xs, strict=True):
            slot = d["slots"][sid]
            old = layer_key(seed, deck, slot["layers"][str(seat)])
            y = mental.rekey(old, fresh, x)
            ctx = dleq.context(game_id, deck, seq, seat, "rekey", sid)
            proofs.append(dleq.prove(fresh * pow(old, -1, mental.L) % mental.L,
                                     layer_point(d, slot, seat), point, x, y, ctx))
            cts.append(mental.to_text(y))
        return _with_from(d, {"op": "rekey", "slots": slot_ids, "serial": serial,
                              "key": mental.to_text(point), "cts": cts, "proofs": proofs})
    first = d["slots"][slot_ids[0]]
    layer = first["layers"].get(str(seat))
    if layer is None:
        g, x_key = mental.BASE, fresh
    else:
        old = layer_key(seed, deck, layer)
        g, x_key = layer_point(d, first, seat), fresh * pow(old, -1, mental.L) % mental.L
    perm = mental.batch_permutation(seed, deck, serial, len(slot_ids))
    ctx = batch_context(game_id, deck, seq, seat, serial, slot_ids)
    outputs, proof = shuffle_proof.prove(g, point, x_key, xs, perm, ctx, _proof_secret(seed, ctx))
    return _with_from(d, {"op": "shuffle", "slots": slot_ids, "serial": serial,
                          "key": mental.to_text(point), "cts": [mental.to_text(y) for y in outputs],
                          "proof": pack_proof(proof)})


def _do_item(d: Deck, game_id: str, deck: str, seq: int, seat: int, seed: bytes, item: Item) -> Item:
    """The published form of one owed item, computed with the seat's keys, with its proof."""
    if item["op"] in BATCH_OPS:
        return _do_batch(d, game_id, deck, seq, seat, seed, item)
    slot_id = item["slot"]
    slot = d["slots"][slot_id]
    x = mental.point_bytes(slot["ct"])
    layer = slot["layers"].get(str(seat))
    ctx = dleq.context(game_id, deck, seq, seat, item["op"], slot_id)
    assert item["op"] in ("peel", "open") and layer is not None  # owed: nothing else
    k = layer_key(seed, deck, layer)
    y = mental.decrypt(k, x)
    proof = dleq.prove(k, mental.BASE, layer_point(d, slot, seat), y, x, ctx)
    if item["op"] == "open":
        card = mental.card_points(game_id, deck, d["cards"]).get(y)
        if card is None:
            raise IntegrityError(
                f"CORRUPTION: slot {slot_id} of deck {deck!r} does not open to a card of "
                "the deck, though every step on it was proved: the save was altered."
            )
        return _with_from(d, {"op": "open", "slot": slot_id, "card": card, "proof": proof})
    return _with_from(d, {"op": "peel", "slot": slot_id, "ct": mental.to_text(y), "proof": proof})


def perform(d: Deck, deck: str, seat: int, seed: bytes, game_id: str, seq: int,
            only: list[Item] | None = None) -> Chore | None:
    """Everything ``seat`` owes on this deck now, done with its keys; None if nothing.

    ``seq`` is the entry the chore goes in (its proofs are bound to it). Does not change
    ``d``: the engine applies the chore with ``apply_chore``. Items that become owed by
    the same seat once its own earlier items are done (a batch re-lock, then a peel
    of one of its slots) are included, so the seat owes nothing afterwards. ``only``: in
    a round, exactly these items (pbem.protocol.crypto.deck_rounds), owed when it began."""
    if seat not in d["passes"]:
        return shuffle_pass(d, deck, seat, seed, game_id, seq)
    work = copy_deck(d)
    items: list[Item] = []
    # What is owed now, then what that makes owed, until nothing is; in a round, its items.
    batches = iter(lambda: owed(work, seat), []) if only is None else iter([only])
    for now in batches:
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
        return mental.from_text(value)
    except ValueError as exc:
        raise IntegrityError(f"{where}: {exc}.") from None


def _point_text(value: Any, where: str) -> bytes:
    """A point's bytes from its text, its form checked (43 characters of base64url) but not
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


def _apply_shuffle(d: Deck, deck: str, seat: int, chore: Chore, game_id: str, seq: int,
                   check: bool = True) -> None:
    """Replay a shuffle pass and check its proof; without ``check`` (see apply_chore) its
    points and proof were checked before, so only their form is checked again."""
    where = f"deck {deck!r}: seat {seat}'s shuffle pass"
    if seat in d["passes"]:
        raise IntegrityError(f"{where} is one too many: it has shuffled this deck already.")
    _check_start(d, chore, where)
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
    # Points are canonical text (from_text checked them, here or before), so text compares
    # as values.
    old = {d["slots"][sid]["ct"] for sid in d["order"]}
    if old & set(cts):
        raise IntegrityError(f"{where} leaves a ciphertext unchanged: it did not add its layer.")
    if check:
        inputs = [mental.point_bytes(d["slots"][sid]["ct"]) for sid in d["order"]]
        ctx = shuffle_proof.context(game_id, deck, seq, seat, "shuffle")
        if not shuffle_proof.verify(mental.BASE, mental.point_bytes(chore["key"]), inputs,
                                    [mental.point_bytes(ct) for ct in cts],
                                    unpack_proof(chore.get("proof")), ctx):
            raise IntegrityError(
                f"{where} fails its shuffle proof: its ciphertexts are not the deck's slots "
                "under the deck key it published, in some order (a card substituted or "
                "duplicated, another key, or a proof made for another entry, seat or game). "
                "A wrong shuffle is refused.")
    for sid, ct in zip(d["order"], cts, strict=True):
        d["slots"][sid]["ct"] = ct
        d["slots"][sid]["layers"][str(seat)] = DECK_LAYER
    d["keys"][str(seat)] = chore["key"]
    d["passes"].append(seat)


def _check_start(d: Deck, chore: Chore, where: str) -> None:
    """The first pass names the deck's starting cards (slots s0, s1, ... in that order),
    so a verifier needs no game rule to know them; a later pass names none."""
    if not d["passes"]:
        if chore.get("cards") != d["cards"]:
            raise IntegrityError(f"{where} must name the {len(d['cards'])} cards the deck "
                                 "starts with, in the order the rules give.")
    elif "cards" in chore:
        raise IntegrityError(f"{where} names the deck's cards; only the first pass does.")


def _check_from(slots: list[dict[str, Any]], item: Item, what: str) -> None:
    """The first item on slots a move gave fresh ids names the ids they replace
    (``from``: a list for a batch item, one id for a peel or open); any other names none."""
    olds = [slot.get("was") for slot in slots]
    wanted: Any = (olds if item["op"] in BATCH_OPS else olds[0]) if any(olds) else None
    if item.get("from") != wanted:
        raise IntegrityError(f"{what} must name the slot ids its fresh slots replace "
                             f"({shown(wanted)}), no others.")
    for slot in slots:
        slot.pop("was", None)


def _with_from(d: Deck, item: Item) -> Item:
    """``item`` with the ``from`` its slots call for (see _check_from)."""
    if any(olds := [d["slots"][sid].get("was") for sid in item_slots(item)]):
        item["from"] = olds if item["op"] in BATCH_OPS else olds[0]
    return item


def _match(d: Deck, seat: int, item: Any, where: str) -> Item:
    """The owed item this published item does, or IntegrityError."""
    if not isinstance(item, dict) or item.get("op") not in OPS:
        raise IntegrityError(f"{where} has an item that is not a peel, a re-lock or an open.")
    if item["op"] in BATCH_OPS:
        return _match_batch(d, seat, item, where)
    wanted: dict[str, Any] = {"seat": seat, "op": item["op"], "slot": item.get("slot")}
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
        raise IntegrityError(f"{where} has {with_article(describe_item(wanted))} that it does "
                             "not owe now.")
    return match


def _match_batch(d: Deck, seat: int, item: Item, where: str) -> Item:
    """The owed batch item this published one does (same seat, op, serial and slots, in
    order, owed now), or IntegrityError."""
    slots = item.get("slots")
    if (not isinstance(slots, list) or not slots or len(slots) > len(d["slots"])
            or type(item.get("serial")) is not int):
        raise IntegrityError(f"{where} has a batch re-lock without its slots or serial.")
    for o in owed_now(d):
        if (o["seat"] == seat and o["op"] == item["op"] and o["serial"] == item["serial"]
                and o["slots"] == slots):
            return o
    raise IntegrityError(f"{where} has {with_article(describe_item(item))} that it does not owe now.")


def _apply_batch(d: Deck, game_id: str, deck: str, seq: int, seat: int, item: Item,
                 match: Item, check: bool) -> None:
    """Replay a batch re-lock: one fresh key on every slot of the batch, either slot by slot
    (``rekey``, a proof each) or with a secret permutation (``shuffle``, one proof)."""
    where = f"deck {deck!r}: seat {seat}'s chore"
    what = f"{where}, {describe_item(item)}"
    slot_ids: list[str] = match["slots"]
    slots = [d["slots"][sid] for sid in slot_ids]
    _check_from(slots, item, what)
    if item["op"] in ONE_STEP_OPS:
        _apply_one_step(d, game_id, deck, seq, seat, item, match, what, check)
        return
    cts = item.get("cts")
    if not isinstance(cts, list) or len(cts) != len(slot_ids):
        raise IntegrityError(f"{what} must list {len(slot_ids)} ciphertexts, one per slot.")
    new_key = _new_key_point(d, seat, item.get("key"), what, proved=not check)
    point = _point if check else _point_text
    ys = [point(ct, f"{what}, position {i + 1}") for i, ct in enumerate(cts)]
    xs = [mental.point_bytes(slot["ct"]) for slot in slots]
    if item["op"] == "rekey":
        proofs = item.get("proofs")
        if not isinstance(proofs, list) or len(proofs) != len(slot_ids):
            raise IntegrityError(f"{what} must carry {len(slot_ids)} proofs, one per slot.")
        for i, (sid, slot) in enumerate(zip(slot_ids, slots, strict=True)):
            if str(seat) not in slot["layers"]:  # owed rekeys never ask this
                raise IntegrityError(f"{what} re-keys slot {sid}, which has no layer of the seat.")
            ctx = dleq.context(game_id, deck, seq, seat, "rekey", sid)
            if check and not dleq.verify(proofs[i], layer_point(d, slot, seat), new_key,
                                         xs[i], ys[i], ctx):
                raise IntegrityError(
                    f"{what} fails its proof at slot {sid}: the published value is not the "
                    "slot with the seat's layer replaced by the key it published.")
    else:
        records = {(tuple(sorted(s["layers"].items())), tuple(sorted(s["keys"].items())))
                   for s in slots}
        if len(records) != 1:  # never: every batch is made uniform before it is shuffled
            raise IntegrityError(f"{what} comes on slots whose layers differ.")
        g = (layer_point(d, slots[0], seat) if str(seat) in slots[0]["layers"]
             else mental.BASE)
        ctx = batch_context(game_id, deck, seq, seat, match["serial"], slot_ids)
        if check and not shuffle_proof.verify(g, new_key, xs, ys, unpack_proof(item.get("proof")),
                                                    ctx):
            raise IntegrityError(
                f"{what} fails its shuffle proof: its ciphertexts are not the batch with the "
                "seat's layer replaced by the key it published, in some order (a card "
                "substituted or duplicated, another key, or a proof made for another entry, "
                "seat or game). A wrong shuffle is refused.")
    texts = [mental.to_text(y) for y in ys]
    _refuse_repeats(d, texts, what)
    layer = slot_layer(match["serial"])
    for slot, text in zip(slots, texts, strict=True):
        slot["ct"] = text
        slot["layers"][str(seat)] = layer
        slot["keys"][str(seat)] = item["key"]
    d["owed"].remove(match)


def _do_one_step(d: Deck, game_id: str, deck: str, seq: int, seat: int, seed: bytes,
                 item: Item) -> Item:
    """A handoff or an adopt (pbem.protocol.crypto.deck_handoff) done with the seat's keys."""
    slot_ids, serial = list(item["slots"]), item["serial"]
    slots = [d["slots"][sid] for sid in slot_ids]
    out: Item = {"op": item["op"], "slots": slot_ids, "serial": serial}
    context = partial(dleq.context, game_id, deck, seq, seat, item["op"])  # slot -> context
    if item["op"] == "handoff":
        out["to"] = item["to"]
        layer = layer_key(seed, deck, slots[0]["layers"][str(seat)])
        out.update(deck_handoff.make_handoff(
            seed, deck, serial, layer, [mental.point_bytes(s["ct"]) for s in slots],
            mental.point_bytes(d["keys"][str(item["to"])]), context, slot_ids))
        return _with_from(d, out)
    ctx = batch_context(game_id, deck, seq, seat, serial + 1, slot_ids)
    made = deck_handoff.make_adopt(seed, deck, serial, mental.deck_key(seed, deck), _pairs(slots),
                                   context, slot_ids, ctx, _proof_secret(seed, ctx))
    made["proof"] = pack_proof(made["proof"])
    out.update(made)
    return _with_from(d, out)


def _apply_one_step(d: Deck, game_id: str, deck: str, seq: int, seat: int, item: Item,
                    match: Item, what: str, check: bool) -> None:
    """Replay a handoff (the giver's only layer off, the cards encrypted to the receiver)
    or an adopt (the pairs under a fresh layer of the receiver, then re-locked to a second
    fresh key in a secret order)."""
    slot_ids: list[str] = match["slots"]
    slots = [d["slots"][sid] for sid in slot_ids]
    mine = str(seat)
    context = partial(dleq.context, game_id, deck, seq, seat, item["op"])  # slot -> context
    if item["op"] == "handoff":
        to = match["to"]
        if type(item.get("to")) is not int or item["to"] != to:  # (true == 1 in Python)
            raise IntegrityError(f"{what} must name seat {to}, the receiver, as 'to'.")
        if any(list(s["layers"]) != [mine] or "pair" in s for s in slots):
            raise IntegrityError(f"{what} comes on slots that carry other layers than the seat's.")
        rs, cs = deck_handoff.check_handoff(
            item, [layer_point(d, s, seat) for s in slots],
            [mental.point_bytes(s["ct"]) for s in slots],
            mental.point_bytes(d["keys"][str(to)]), context, slot_ids, what, check)
        texts = [mental.to_text(c) for c in cs]
        _refuse_repeats(d, texts, what)
        used = {s["pair"] for s in d["slots"].values() if "pair" in s}
        if used & {mental.to_text(r) for r in rs}:
            raise IntegrityError(f"{what} re-uses the random point of a pair the deck holds.")
        for slot, text, r in zip(slots, texts, rs, strict=True):
            slot.update(ct=text, pair=mental.to_text(r), layers={str(to): deck_handoff.PAIR_LAYER},
                        keys={})
        d["owed"].remove(match)
        return
    if any(s["layers"] != {mine: deck_handoff.PAIR_LAYER} or "pair" not in s for s in slots):
        raise IntegrityError(f"{what} comes on slots that are not pairs handed to the seat.")
    _new_key_point(d, seat, item.get("key"), what, proved=not check)
    _new_key_point(d, seat, item.get("relock"), what, proved=not check)
    if item.get("key") == item.get("relock"):
        raise IntegrityError(f"{what} uses one key twice: the order could be read.")
    ctx = batch_context(game_id, deck, seq, seat, match["serial"] + 1, slot_ids)
    cts = deck_handoff.check_adopt(item, mental.point_bytes(d["keys"][mine]), _pairs(slots),
                                   context, slot_ids, ctx, unpack_proof(item.get("proof")),
                                   what, check)
    texts = [mental.to_text(y) for y in cts]
    _refuse_repeats(d, texts, what)
    layer = slot_layer(match["serial"] + 1)
    for slot, text in zip(slots, texts, strict=True):
        slot.pop("pair")
        slot.update(ct=text, layers={mine: layer}, keys={mine: item["relock"]})
    d["owed"].remove(match)


def _pairs(slots: list[dict[str, Any]]) -> list[tuple[bytes, bytes]]:
    """``(R, C)`` of each handed-off slot, in order."""
    return [(mental.point_bytes(s["pair"]), mental.point_bytes(s["ct"])) for s in slots]


def _refuse_repeats(d: Deck, texts: list[str], what: str) -> None:
    """New ciphertexts of a batch must differ from each other and from every one the deck
    shows (a repeat would duplicate a card or link two slots)."""
    if len(set(texts)) != len(texts):
        raise IntegrityError(f"{what} lists the same ciphertext twice: a card was duplicated.")
    if {s["ct"] for s in d["slots"].values()} & set(texts):
        raise IntegrityError(f"{what} repeats a ciphertext the deck shows already.")


def _apply_item(d: Deck, game_id: str, deck: str, seq: int, seat: int, item: Any,
                check: bool = True) -> None:
    """Replay one item; with ``check`` (always, except on the signer's own fresh work and
    on an entry this home verified before) its proof is verified, so a wrong peel, batch
    re-lock or open is refused here and now."""
    where = f"deck {deck!r}: seat {seat}'s chore"
    match = _match(d, seat, item, where)
    if item["op"] in BATCH_OPS:
        _apply_batch(d, game_id, deck, seq, seat, item, match, check)
        return
    op, slot_id = item["op"], item["slot"]
    what = f"{where}, {describe_item(item)}"
    slot = d["slots"][slot_id]
    _check_from([slot], item, what)
    x = mental.point_bytes(slot["ct"])
    ctx = dleq.context(game_id, deck, seq, seat, op, slot_id)
    proof = item.get("proof")
    if str(seat) not in slot["layers"]:  # owed items never ask this
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
    else:  # a peel
        # Checked as a point of the group by the proof's check, which multiplies it (the
        # multiplication refuses exactly the points from_text refuses); if the check fails,
        # an invalid point is still refused as one, first, as below. Without ``check``,
        # checked before (an entry this home verified) or made here (the signer's work).
        y = _point_text(item.get("ct"), what)
    if check and not dleq.verify(proof, mental.BASE, layer_point(d, slot, seat), y, x, ctx):
        if op == "peel":
            _point(item.get("ct"), what)
        claim = f"does not show {card}" if op == "open" else "is not the slot with its layer removed"
        raise IntegrityError(
            f"{what} fails its proof: the published value {claim}. A wrong or forged "
            "peel is refused."
        )
    if mental.to_text(y) == slot["ct"]:  # never with a valid proof; kept as a plain guard
        raise IntegrityError(f"{what} leaves slot {slot_id} unchanged.")
    text = mental.to_text(y)
    for other_id, other in d["slots"].items():
        if other_id != slot_id and other["ct"] == text:
            raise IntegrityError(
                f"{what} makes slot {slot_id} equal to slot {other_id}: a card was duplicated."
            )
    slot["ct"] = text
    slot["layers"].pop(str(seat), None)
    slot["keys"].pop(str(seat), None)
    if op == "open":
        # A reveal's open shows a card its seat still holds: the rules see it at the audit
        # (Game.on_reveal), as they see every held card; any other open shows it face up.
        if not match.get("reveal"):
            slot["status"] = "open"
        slot["card"] = item["card"]
    d["owed"].remove(match)


def apply_chore(d: Deck, seat: int, chore: Chore, game_id: str, seq: int,
                check: bool = True, complete: bool = True) -> None:
    """Update the public state from a chore of entry ``seq``, or raise IntegrityError saying
    what is wrong or missing. All or nothing: ``d`` is unchanged when it raises. Without
    ``check`` (an entry this home verified before) its proofs are not verified again, nor
    its points checked to be points of the group (only their form); every other check
    still runs. ``complete``: the seat owes nothing after it (not in a round, whose
    work pbem.protocol.crypto.deck_rounds fixes and the engine checks)."""
    deck = chore.get("deck", "?") if isinstance(chore, dict) else "?"
    if not isinstance(chore, dict) or chore.get("op") not in ("shuffle", "work"):
        raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore is neither a shuffle nor work.")
    work = copy_deck(d)
    if seat not in work["passes"] and chore["op"] != "shuffle":
        raise IntegrityError(f"deck {deck!r}: seat {seat} owes its shuffle pass first.")
    if chore["op"] == "shuffle":
        _apply_shuffle(work, deck, seat, chore, game_id, seq, check)
    else:
        items = chore.get("items")
        if not isinstance(items, list) or not items:
            raise IntegrityError(f"deck {deck!r}: seat {seat}'s chore lists no work.")
        for item in items:
            _apply_item(work, game_id, deck, seq, seat, item, check)
        if complete:
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
    listed = ", ".join(describe_item(item) for item in missing)
    raise IntegrityError(f"deck {deck!r}: seat {seat}'s entry omits owed work: {listed}.")


# ---- reading one's own cards ------------------------------------------------------------
def own_only(d: Deck, slot_id: str, seat: int) -> bool:
    slot = d["slots"][slot_id]
    return list(slot["layers"]) == [str(seat)] and not pending_on(d, slot_id)


def owe_reveal_opens(d: Deck, seat: int) -> None:
    """Owe an open of every slot ``seat`` holds under its own layer alone, in slot order:
    its reveal's work where the rules open each seat's cards at its reveal (PROTOCOL.md
    section 7). A held slot still under another seat's layer stays closed."""
    for sid, slot in sorted_slots(d):
        if slot["owner"] == seat and slot["status"] == "held" and own_only(d, sid, seat):
            d["owed"].append({"seat": seat, "op": "open", "slot": sid, "stage": 0,
                              "reveal": True})


def readable(d: Deck, seat: int) -> bool:
    """True once every drawn or held slot of ``seat`` carries only its own layer (or was
    opened by its reveal)."""
    return all(
        own_only(d, sid, seat) or "card" in slot
        for sid, slot in d["slots"].items()
        if slot["status"] in ("drawn", "held") and slot["owner"] == seat
    )


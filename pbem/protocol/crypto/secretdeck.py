"""Secret decks as games see them: draw, deal, keep, return, pass, open, count.

A secret deck lives in ``state["secret"][deck]``, managed here and in
pbem.protocol.crypto.mental_deck; games touch it only through the functions below (games import
it as ``from pbem.game import secretdeck``). Two modes share one layout and one set of calls:

* ``plain``: slots hold card uids in the clear. Used by pbem.play.local (rules tests,
  bots, benches), where nobody needs protecting; every operation takes effect at once.
* ``mental``: slots hold ciphertexts (points of edwards25519) under one layer per seat
  (PROTOCOL.md section 6). The calls below only record what is owed; the seats' next
  entries do the work (peels, re-locks, opens, each with a proof checked at replay),
  automatically, and the audit opens every slot at the end.

So a game never assumes work is done: it asks. ``readable(state, deck, seat)`` says the
seat can read all its private slots; ``settled(state, deck, slots)`` that no work is
pending on those slots; ``owing(state, deck)`` which seats owe work now (a game that must
wait for a seat's work, an open say, lets that seat act); ``card(state, deck, slot)`` gives
an opened card once everyone can see it (None before). In plain mode all of these say
"done" at once, so the same game code runs in both modes.

The operations (a seat's private slots are its ``drawn`` and ``held`` ones):

* ``reserve_top(state, deck, seat, n)``: a private draw of the top ``n`` slots.
* ``deal(state, deck, {seat: n, ...})``: a private hand of ``n`` to each seat at once,
  in seat order from the top (a draft's deal: call it when the set-up chance is resolved
  by the ``start`` entry, once every seat has shuffled, or later).
* ``deal_when_shuffled(state, deck, {seat: n, ...}, seats)``: at set-up, have a mental
  deck dealt so the moment its last shuffle pass lands, its peels begun in that pass's
  entry (``deal`` then returns that deal).
* ``keep`` (drawn -> held), ``return_bottom`` (drawn -> under the pile as one batch with
  fresh slot ids, which it returns; every other seat then re-locks and permutes the
  batch with a shuffle proof, so nobody can link a new slot to an old one).
* ``pass_slots(state, deck, holder, to, slots)``: private slots of ``holder`` become
  ``to``'s under fresh slot ids, which it returns (same status); ``to`` re-locks and
  permutes the batch with a shuffle proof, then ``holder`` removes its own layer, so
  only ``to`` can then read them and nobody else learns anything. ``holder`` has seen
  the cards and knows what it passed, never which new slot holds which.
* ``pass_in_one_step(state, deck)``: from then on ``pass_slots`` keeps the slot ids and
  passes in one step each way: ``holder`` hands the batch off (its layer off, each card
  encrypted to ``to``), and ``to`` takes it under keys of its own in a secret order in
  one item, which may go in the entry where it chooses among the cards
  (``own_work_only`` says when it can read them so).
* ``open_slots(state, deck, seat, slots)``: ``seat`` shows private slots to everyone: it
  peels its own last layer, names the card and proves it; everyone can check it at once.
  The slot's status becomes ``open`` and ``card`` gives its uid.
* ``holder``, ``status``, ``drawn``, ``held``, ``privately_held``, ``counts``,
  ``remaining``, ``opened``: public bookkeeping.

Example, a draft (hands of 3, pick one, pass the rest left; tests/support/secret_draft.py
is this game whole)::

    # set-up chance, resolved by the start entry, once every seat has shuffled:
    hands = secretdeck.deal(state, "draft", {seat: 3 for seat in range(n)})
    state["queue"] = [[hands[seat]] for seat in range(n)]   # hands waiting, per seat
    # a seat's turn: the oldest hand waiting for it, once no work is pending on it
    hand = state["queue"][seat][0]
    if secretdeck.settled(state, "draft", hand):           # else the seat waits
        # (the player reads `hand` through view's secrets and chooses `pick`)
        state["queue"][seat].pop(0)
        secretdeck.keep(state, "draft", seat, [pick])
        rest = [s for s in hand if s != pick]
        fresh = secretdeck.pass_slots(state, "draft", seat, (seat + 1) % n, rest)
        state["queue"][(seat + 1) % n].append(fresh)
    # at the end of the draft, everyone shows what they took:
    for s in range(n):
        secretdeck.open_slots(state, "draft", s, secretdeck.held(state, "draft", s))
    # ... and the game goes on once every secretdeck.card(state, "draft", slot) is known.

A game keeps its own record of hands: ``drawn`` lists all of a seat's drawn slots, so two
hands waiting for one seat would run together. Which slot a seat keeps is public (its
card is not), but a passed hand's slots are fresh and shuffled by its receiver, so a seat
that held the hand before cannot tell which card that was: when the hand comes back it
sees which cards are gone, never who took which (as at a table).

What a seat may read of its own private slots comes to the game through ``view``'s
``secrets`` argument; ``card`` is the only card a game reads from the state.

Layout::

    {"mode": "plain"|"mental",
     "order": ["s3", "s0", ...],          # the draw pile, top first (slot ids)
     "slots": {"s0": {"status": "deck"|"drawn"|"held"|"open",
                      "owner": -1 | seat,
                      "card": uid,             # plain mode; mental mode once open
                      ...crypto fields...}},  # mental mode only
     "next": 18}                          # next fresh slot number

Slot ids are public and say nothing about the card.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pbem.errors import IllegalMoveError

State = dict[str, Any]


ONE_STEP = "one-step"


def pass_in_one_step(state: State, deck: str) -> None:
    """Make the deck's passes one-step passes (``pass_slots``): call it once the deck
    exists (the engine builds it after ``setup``) and before its first pass, at the deal
    say. A passed batch keeps its slot ids; in mental mode the giver hands it off in one item and
    the receiver adopts it and re-locks it in a secret order in one, and the receiver may
    pick from it before its adoption is done (``own_work_only``), the adoption going in
    the same entry as the pick."""
    _deck(state, deck)["pass"] = ONE_STEP


def own_work_only(state: State, deck: str, seat: int, slot_ids: Iterable[str]) -> bool:
    """True when ``seat`` can read these slots now or once its own next entry has done the
    work it owes on them now (the adoption of a hand passed to it in one step): so it can
    choose among them in that entry. The same as ``settled`` in plain mode and for decks
    whose passes are not one-step."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return True
    from pbem.protocol.crypto import deck_hooks

    return deck_hooks.own_work_only(d, seat, slot_ids)


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
        from pbem.protocol.crypto import deck_hooks

        deck_hooks.on_reserve(d, taken, seat)
    return taken


def drawn(state: State, deck: str, seat: int) -> list[str]:
    """Slots drawn by ``seat`` and not yet kept or returned, in draw order."""
    d = _deck(state, deck)
    return _in_order([s for s, v in d["slots"].items()
                      if v["status"] == "drawn" and v["owner"] == seat])


def held(state: State, deck: str, seat: int) -> list[str]:
    """Slots ``seat`` keeps (its commitments to cards only it has seen)."""
    d = _deck(state, deck)
    return _in_order([s for s, v in d["slots"].items()
                      if v["status"] == "held" and v["owner"] == seat])


def privately_held(state: State, deck: str, seats: Iterable[int]) -> bool:
    """True if any of ``seats`` has a drawn or held slot: ``any(drawn(...) or held(...))``
    over them, in one pass over the deck's slots."""
    wanted = set(seats)
    return any(v["status"] in ("drawn", "held") and v["owner"] in wanted
               for v in _deck(state, deck)["slots"].values())


def readable(state: State, deck: str, seat: int) -> bool:
    """True once every drawn or held slot of ``seat`` carries only its own layer (or plain)."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return True
    from pbem.protocol.crypto import mental_deck

    return mental_deck.readable(d, seat)


def keep(state: State, deck: str, seat: int, slot_ids: list[str]) -> None:
    """Move drawn slots to the seat's hand."""
    d = _deck(state, deck)
    for slot_id in slot_ids:
        slot = d["slots"].get(slot_id)
        if slot is None or slot["status"] != "drawn" or slot["owner"] != seat:
            raise IllegalMoveError(f"slot {slot_id} is not one of your drawn cards")
        slot["status"] = "held"


def _fresh_ids(d: dict[str, Any], count: int) -> list[str]:
    """``count`` slot ids never used in the deck before."""
    out = [f"s{d['next'] + i}" for i in range(count)]
    d["next"] += count
    return out


def return_bottom(state: State, deck: str, seat: int, slot_ids: list[str]) -> list[str]:
    """Put drawn slots under the pile as one batch; returns the batch's fresh slot ids.

    The batch gets fresh ids (in plain mode too: the same public bookkeeping). In mental
    mode every other seat then re-locks the batch with a fresh key in a secret order
    (chores, each with a shuffle proof), so nobody can link a new slot to an old one nor
    tell which returned card is where; until then nobody can read its slots."""
    d = _deck(state, deck)
    if len(set(slot_ids)) != len(slot_ids):
        raise IllegalMoveError("the same slot is named twice")
    for slot_id in slot_ids:
        slot = d["slots"].get(slot_id)
        if slot is None or slot["status"] != "drawn" or slot["owner"] != seat:
            raise IllegalMoveError(f"slot {slot_id} is not one of your drawn cards")
    new_ids = _fresh_ids(d, len(slot_ids))
    if d["mode"] == "plain":
        for old_id, new_id in zip(slot_ids, new_ids, strict=True):
            d["slots"][new_id] = {"status": "deck", "owner": -1,
                                  "card": d["slots"].pop(old_id)["card"]}
    else:
        from pbem.protocol.crypto import deck_hooks

        deck_hooks.on_return(d, list(slot_ids), new_ids, seat)
    d["order"] += new_ids
    return new_ids


def deal_when_shuffled(state: State, deck: str, hands: Mapping[int, int], seats: int) -> None:
    """At set-up (``Game.setup``, before the deck exists): in mental mode the deck is dealt
    as ``deal`` would deal it the moment its last shuffle pass lands, and the peels that
    makes owed begin in that pass's entry (pbem.protocol.crypto.deck_hooks.deal_at_last_pass);
    the game still calls ``deal`` with the same hands, which then returns that deal. In
    plain mode ``deal`` deals as usual."""
    state.setdefault("secret", {})[deck] = {"deal": [hands.get(s, 0) for s in range(seats)]}


def deal(state: State, deck: str, hands: Mapping[int, int]) -> dict[int, list[str]]:
    """Private draws for several seats at once: seat -> how many. Returns seat -> slot
    ids; seats take their slots from the top in seat order. A mental deck dealt at its
    last pass (``deal_when_shuffled``) returns that deal (the same hands must be asked)."""
    d = _deck(state, deck)
    if "deal" in d and d["mode"] == "mental":
        if [hands.get(s, 0) for s in range(d["seats"])] != d["deal"]:
            raise IllegalMoveError("a deal differs from the one the deck was dealt at its "
                                   "last shuffle pass")
        return {seat: drawn(state, deck, seat) for seat in sorted(hands)}
    seats = len(state["seats"])
    if any(not 0 <= seat < seats or count < 0 for seat, count in hands.items()):
        raise IllegalMoveError("a deal names a seat that is not at the table or a negative count")
    wanted = sum(hands.values())
    if wanted > len(d["order"]):
        raise IllegalMoveError(f"the deck has {len(d['order'])} cards; the deal needs {wanted}")
    return {seat: reserve_top(state, deck, seat, hands[seat]) for seat in sorted(hands)}


def _private_slots(d: dict[str, Any], seat: int, slot_ids: list[str]) -> None:
    """Refuse unless every slot is one of ``seat``'s drawn or held slots, named once."""
    if len(set(slot_ids)) != len(slot_ids):
        raise IllegalMoveError("the same slot is named twice")
    for slot_id in slot_ids:
        slot = d["slots"].get(slot_id)
        if slot is None or slot["owner"] != seat or slot["status"] not in ("drawn", "held"):
            raise IllegalMoveError(f"slot {slot_id} is not one of your private cards")


def pass_slots(state: State, deck: str, holder: int, to: int, slot_ids: list[str]) -> list[str]:
    """``holder``'s private slots become ``to``'s (same status) under fresh ids, which are
    returned: the game keeps those. In mental mode ``to`` re-locks the batch with a fresh
    key in a secret order (a shuffle proof), then ``holder`` peels its own layer (chores,
    in that order), so only ``to`` can read them and ``holder``, who has seen the cards,
    cannot tell which is in which new slot; ``readable``/``settled`` say when that is
    done. The slots must be settled (their holder can read them)."""
    d = _deck(state, deck)
    if to == holder or not 0 <= to < len(state["seats"]):
        raise IllegalMoveError(f"cards cannot be passed from seat {holder} to seat {to}")
    _private_slots(d, holder, slot_ids)
    statuses = {d["slots"][slot_id]["status"] for slot_id in slot_ids}
    if len(statuses) > 1:
        raise IllegalMoveError("drawn and held cards cannot be passed together")
    status = statuses.pop() if statuses else "drawn"
    if d.get("pass") == ONE_STEP:
        if d["mode"] == "mental":
            from pbem.protocol.crypto import deck_hooks

            deck_hooks.on_pass_one_step(d, list(slot_ids), holder, to)
        for slot_id in slot_ids:
            d["slots"][slot_id]["owner"] = to
        return list(slot_ids)
    new_ids = _fresh_ids(d, len(slot_ids))
    if d["mode"] == "plain":
        for old_id, new_id in zip(slot_ids, new_ids, strict=True):
            d["slots"][new_id] = {"status": status, "owner": to,
                                  "card": d["slots"].pop(old_id)["card"]}
    else:
        from pbem.protocol.crypto import deck_hooks

        deck_hooks.on_pass(d, list(slot_ids), new_ids, holder, to, status)
    return new_ids


def open_slots(state: State, deck: str, seat: int, slot_ids: list[str]) -> None:
    """Show ``seat``'s private slots to everyone. Plain mode: at once. Mental mode: the
    seat's next entry peels its last layer and names each card with a proof; until then
    ``card`` returns None for them."""
    d = _deck(state, deck)
    _private_slots(d, seat, slot_ids)
    if d["mode"] == "plain":
        for slot_id in slot_ids:
            d["slots"][slot_id]["status"] = "open"
        return
    from pbem.protocol.crypto import deck_hooks

    deck_hooks.on_open(d, list(slot_ids), seat)


def reshuffle(state: State, deck: str, seat: int, slot_ids: list[str]) -> None:
    """``seat`` re-locks slots it holds in a secret order before they are shown, so that
    a move that named one of them earlier (a draft's pick, at its step) does not tie its
    card to that move. Plain mode: nothing (no secrets). Mental mode: the seat's next
    entry re-keys them to one fresh key, then re-locks them with another and a secret
    permutation, with a shuffle proof; the ids stay."""
    d = _deck(state, deck)
    if d["mode"] == "plain" or len(slot_ids) < 2:
        return
    _private_slots(d, seat, slot_ids)
    # Its re-key, re-lock and the opens after them are one seat's chain of work: a round
    # of deck work takes the whole chain (deck_rounds._chained).
    d["chain"] = True
    from pbem.protocol.crypto import deck_hooks

    deck_hooks.on_reshuffle(d, list(slot_ids), seat)


def card(state: State, deck: str, slot_id: str) -> str | None:
    """The uid of an opened slot (everyone may know it); None while it is not open."""
    slot = _deck(state, deck)["slots"].get(slot_id)
    if slot is None or slot["status"] != "open":
        return None
    return str(slot["card"])


def opened(state: State, deck: str) -> dict[str, str]:
    """Slot -> uid of every opened slot."""
    return {s: v["card"] for s, v in _sorted_slots(_deck(state, deck)) if v["status"] == "open"}


def holder(state: State, deck: str, slot_id: str) -> int:
    """The seat a slot belongs to (-1 in the pile)."""
    return int(_deck(state, deck)["slots"][slot_id]["owner"])


def status(state: State, deck: str, slot_id: str) -> str:
    """``deck`` (in the pile), ``drawn``, ``held`` or ``open``."""
    return str(_deck(state, deck)["slots"][slot_id]["status"])


def settled(state: State, deck: str, slot_ids: Iterable[str] | None = None) -> bool:
    """True when no work is pending on these slots (on the whole deck when None)."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return True
    from pbem.protocol.crypto import mental_deck

    return mental_deck.settled(d, d["slots"] if slot_ids is None else slot_ids)


def owing(state: State, deck: str) -> list[int]:
    """Seats that owe work on the deck now; their next entry does it (empty in plain mode)."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return []
    from pbem.protocol.crypto import mental_deck

    return mental_deck.owing(d)


def owed_ops(state: State, deck: str, seat: int) -> list[str]:
    """The kinds of work ``seat`` owes on the deck now, in order ("peel", "open", "rekey",
    "shuffle", "handoff", "adopt"; [] in plain mode)."""
    d = _deck(state, deck)
    if d["mode"] == "plain":
        return []
    from pbem.protocol.crypto import mental_deck

    return [str(item["op"]) for item in mental_deck.owed(d, seat)]


def counts(state: State, deck: str) -> dict[int, int]:
    """How many cards each seat holds (public)."""
    d = _deck(state, deck)
    out: dict[int, int] = {}
    for _, v in _sorted_slots(d):
        if v["status"] == "held":
            out[v["owner"]] = out.get(v["owner"], 0) + 1
    return out


def _slot_number(slot_id: str) -> int:
    """A slot's place in draw order: the number of its id ("s12")."""
    return int(slot_id[1:])


def _sorted_slots(d: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return sorted(d["slots"].items(), key=lambda kv: _slot_number(kv[0]))


def _in_order(slot_ids: list[str]) -> list[str]:
    """Slot ids in draw order: the few a seat has, sorted after choosing them."""
    return sorted(slot_ids, key=_slot_number)


# ---- plain-mode helpers for pbem.local -------------------------------------------------
def readable_plain(d: dict[str, Any], seat: int) -> dict[str, str]:
    """Slot -> card for the slots ``seat`` drew or holds (plain mode)."""
    return {
        s: v["card"]
        for s, v in _sorted_slots(d)
        if v["owner"] == seat and v["status"] in ("drawn", "held")
    }


def open_all_plain(d: dict[str, Any]) -> dict[str, str]:
    """Slot -> card for every held or open slot (what the audit opens at the end)."""
    return {s: v["card"] for s, v in _sorted_slots(d) if v["status"] in ("held", "open")}

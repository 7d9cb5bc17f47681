"""Secret-deck work in rounds (docs/protocol-rounds.md, "Deck work"): which work several
seats may do in parallel, each on one predecessor, and what each entry of such a round
must carry.

A seat's entry in a round is signed on the state before the round, so it can only do the
work its seat owed there. The work of a round is therefore fixed when the round starts:
each seat's items owed now on each deck. Two conditions make those entries independent,
so that applying them in seat order gives what each signer computed:

* no two seats' items name a common slot (every item's proof is on the exact ciphertexts
  before it, and two seats working one slot in parallel would each prove against a
  ciphertext the other changed);
* no seat's own work goes on past its items (a seat whose items leave it more work at the
  next stage of its slots does that in the same entry elsewhere, which a round cannot
  hold: the next stage's work is fixed only once its items are done).

Items are compared by what identifies them: op, slot or slots (in order), serial.
"""

from __future__ import annotations

from typing import Any

from pbem.protocol.crypto import mental_deck

Deck = dict[str, Any]
Item = dict[str, Any]
Work = dict[int, dict[str, list[Item]]]  # seat -> deck -> items, in owed order


def item_key(item: Item) -> tuple[str, tuple[str, ...], int]:
    """What identifies an owed or a published item (a published one may carry more)."""
    serial = item.get("serial", -1)
    return (str(item.get("op", "")), tuple(str(s) for s in mental_deck.item_slots(item)),
            serial if type(serial) is int else -2)


def plan(decks: dict[str, Deck]) -> Work:
    """The work of a round of every seat owing work now on ``decks``, or {} when that work
    cannot be done in parallel (the conditions above; a shuffle pass still owed, which
    works on the whole deck, is never in a round)."""
    work: Work = {}
    taken: dict[str, set[str]] = {}  # deck -> slots some seat's items name
    for name, d in sorted(decks.items()):
        if len(d["passes"]) < d["seats"]:
            return {}
        for seat in mental_deck.owing(d):
            items = mental_deck.owed(d, seat)
            if d.get("chain"):
                items = _chained(d, seat, items)
            if _continues(d, seat, items):
                return {}
            slots = {s for item in items for s in mental_deck.item_slots(item)}
            if slots & taken.setdefault(name, set()):
                return {}
            taken[name] |= slots
            work.setdefault(seat, {})[name] = items
    return work


def _chained(d: Deck, seat: int, items: list[Item]) -> list[Item]:
    """On a deck whose owed work chains (``chain``: secretdeck.reshuffle), ``items`` and
    what each leaves owed by ``seat`` alone once done, stage after stage (a re-key, the
    re-lock it allows, then the opens after it), in the order they are done: the whole
    of it is fixed when the round starts, since no other seat's work comes between."""
    chain = list(items)
    while more := _owed_after(d, seat, chain):
        chain += more
    return chain


def _continues(d: Deck, seat: int, items: list[Item]) -> bool:
    """Whether ``seat`` owes more once ``items`` are done: the next stage on their slots
    is its own too."""
    return bool(_owed_after(d, seat, items))


def _owed_after(d: Deck, seat: int, items: list[Item]) -> list[Item]:
    """What ``seat`` owes now once ``items`` are done. Bookkeeping only (no proof is made):
    the items leave ``owed``; the deck itself is not changed (nor copied: only ``owed``
    and ``passes`` are read)."""
    keys = {item_key(item) for item in items}
    left = [o for o in d["owed"] if not (o["seat"] == seat and item_key(o) in keys)]
    return mental_deck.owed({**d, "owed": left}, seat)


def mismatch(published: Any, expected: list[Item]) -> str:
    """How a chore's published items differ from the ``expected`` ones (any order), in
    words: the first item it does that was not expected, or the first it omits; '' when
    they are the same."""
    if not isinstance(published, list) or not all(isinstance(i, dict) for i in published):
        return "its items are not a list of work"
    wanted = [item_key(item) for item in expected]
    for item in published:
        if item_key(item) not in wanted:
            return f"it does {mental_deck.with_article(mental_deck.describe_item(item))} it did not owe then"
        wanted.remove(item_key(item))
    missing = [item for item in expected if item_key(item) in wanted]
    return f"it omits the {mental_deck.describe_item(missing[0])}" if missing else ""

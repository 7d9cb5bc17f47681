"""What one entry changed, for people (``Game.describe``): public facts only.

The entry's own lines come from the journal, in the order things happened: chance
resolved at its head (set-up dice and display, refills, Justin's turn), then each move,
then the end of the turn. To them this adds what follows from comparing the states
before and after: the bank's goods, every score that moved, the result when the game has
ended, and the chance now waiting for the next entry. Everything in this game is public
but Posse's draft hands, of which only the slots and the shown cards are told.
"""

from __future__ import annotations

from pbem.game import State

from . import posse
from .constants import BANK_GOODS
from .journal import new_lines
from .scoring import justin_score, result_line, score_of
from .state import join_and


def describe(before: State, after: State, seat: int) -> list[str]:
    lines = new_lines(before, after)
    if after["variant"] == "posse":
        # The deck work is the entry's chores; the draft's end (cards handed out) follows it.
        end = next((i for i, line in enumerate(lines) if line.startswith(posse.HANDED_OUT)),
                   len(lines))
        lines[end:end] = deck_work(before, after, seat)
    if after["phase"] == "setup":
        return lines
    lines += _bank(before, after)
    lines += _scores(before, after)
    if after["phase"] == "over" and before["phase"] != "over":
        lines.append(result_line(after))
    lines += [f"Chance waiting for the next entry: {pending_text(r)}."
              for r in after.get("pending", []) if r not in before.get("pending", [])]
    return lines


def deck_work(before: State, after: State, seat: int) -> list[str]:
    """Posse: the secret deck's work the entry did (its chores, done for the signer by
    pbem), from the public slots before and after it: layers removed and added, and the
    cards shown. Only shown cards are named; a slot in a hand is only counted."""
    old = before.get("secret", {}).get(posse.DECK)
    new = after.get("secret", {}).get(posse.DECK)
    if old is None or new is None:
        return []
    names = after["seats"]
    mine = str(seat)
    peeled: dict[int, int] = {}
    handed: dict[int, int] = {}  # one-step passes (rules version 4): handed off, adopted
    locked = adopted = 0
    shown: dict[int, list[str]] = {}
    # A hand's last card, kept by the player who passed the hand for the one on its left
    # (posse._pick), is shown by the keeper but is the left player's: named so.
    for_left: dict[str, int] = (after.get("draft") or {}).get("for_left", {})
    passed: dict[int, list[tuple[str, int]]] = {}
    for slot_id, slot in new["slots"].items():
        was = old["slots"].get(slot_id, {})
        if slot["status"] == "open" and was.get("status") != "open":
            if slot_id in for_left:
                passed.setdefault(int(slot["owner"]), []).append(
                    (str(slot["card"]), int(for_left[slot_id])))
            else:
                shown.setdefault(int(slot["owner"]), []).append(str(slot["card"]))
            continue
        layers, had = slot.get("layers", {}), was.get("layers", {})
        if mine in had and mine not in layers:
            into = handed if "pair" in slot else peeled
            into[int(slot["owner"])] = into.get(int(slot["owner"]), 0) + 1
        elif had.get(mine) == "pair" and layers.get(mine) != "pair":
            adopted += 1
        elif was and mine in layers and had.get(mine) != layers[mine]:
            locked += 1  # (a slot new in this entry is a pass's fresh id: no lock)
    name = names[seat]
    lines = []
    if peeled:
        held = join_and([names[s] for s in sorted(peeled)])
        lines.append(f"{name} removed their layer from {sum(peeled.values())} cards held by "
                     f"{held}: only their holders can read them.")
    for to in sorted(handed):
        lines.append(f"{name} handed the {handed[to]} cards passed to {names[to]} over to them, "
                     f"each locked so that only {names[to]} can read it.")
    if adopted:
        lines.append(f"{name} put the {adopted} cards passed to them under keys of their own, in "
                     "a secret order.")
    if locked:
        lines.append(f"{name} locked the {locked} cards passed to them with fresh keys: once the "
                     "giver removes their layer, only " + name + " can read them.")
    for holder in sorted(set(shown) | set(passed)):
        kept = sorted(shown.get(holder, []))
        lines.append(f"{names[holder]} shows the cards they kept, each with its proof: "
                     f"{', '.join(kept) or 'none'}"
                     + "".join(f"; and the last card of the hand they passed, which is "
                               f"{names[to]}'s: {uid}" for uid, to in sorted(passed.get(holder, [])))
                     + ".")
    return lines


def _bank(before: State, after: State) -> list[str]:
    changed = [f"{g} {before['bank'][g]} -> {after['bank'][g]}" for g in BANK_GOODS
               if before["bank"][g] != after["bank"][g]]
    return [f"The bank: {', '.join(changed)}."] if changed else []


def _scores(before: State, after: State) -> list[str]:
    moved = []
    for index, name in enumerate(after["seats"]):
        was, now = score_of(before, index)[0], score_of(after, index)[0]
        if was != now:
            moved.append(f"{name} {was} -> {now}")
    if after["solo"]:
        was, now = justin_score(before)[0], justin_score(after)[0]
        if was != now:
            moved.append(f"Justin {was} -> {now}")
    return [f"Scores: {', '.join(moved)}."] if moved else []


def pending_text(request: dict[str, object]) -> str:
    """A queued chance request in words (for views and accounts)."""
    kind = request.get("kind")
    if kind == "setup":
        return "set-up: first player, dice placed and rolled, commanders, display"
    if kind == "posse":
        return "the rest of set-up after the Posse draft: first player, dice, starting gold "\
               "and the display's chance"
    if kind == "deal":
        return f"the display's {request.get('count')} cards, dealt after the Trail Boss picks"
    if kind == "refill":
        return f"display refill of {request.get('count')} card(s)"
    if kind == "solo":
        refill = request.get("refill")
        return (f"display refill of {refill} card(s), then Justin's turn" if refill else
                "Justin's turn")
    return str(kind)

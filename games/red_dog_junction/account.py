"""What one entry changed, for people (``Game.describe``): public facts only.

The entry's own lines come from the journal, in the order things happened: chance
resolved at its head (set-up dice and display, refills, Justin's turn), then each move,
then the end of the turn. To them this adds what follows from comparing the states
before and after: the bank's goods, every score that moved, the result when the game has
ended, and the chance now waiting for the next entry. Everything in this game is public,
so nothing here can leak a secret.
"""

from __future__ import annotations

from pbem.game import State

from .constants import BANK_GOODS
from .journal import new_lines
from .scoring import justin_score, result_line, score_of


def describe(before: State, after: State, seat: int) -> list[str]:
    lines = new_lines(before, after)
    if after["phase"] == "setup":
        return lines
    lines += _bank(before, after)
    lines += _scores(before, after)
    if after["phase"] == "over" and before["phase"] != "over":
        lines.append(result_line(after))
    lines += [f"Chance waiting for the next entry: {pending_text(r)}."
              for r in after.get("pending", []) if r not in before.get("pending", [])]
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
    if kind == "deal":
        return f"the display's {request.get('count')} cards, dealt after the Trail Boss picks"
    if kind == "refill":
        return f"display refill of {request.get('count')} card(s)"
    if kind == "solo":
        refill = request.get("refill")
        return (f"display refill of {refill} card(s), then Justin's turn" if refill else
                "Justin's turn")
    return str(kind)

"""The actions of a turn: each checks the rules, explains a refusal, then changes the state.

Each ``do_*`` validates everything before touching the state, so a refused move leaves
it as it was. ``ctx`` is the turn bookkeeping of the player acting (``state["turn"]``
during the turn, a copy while queued actions are replayed after boom draws).
"""

from __future__ import annotations

from typing import Any

from pbem.game import IllegalMoveError, secretdeck

from . import board, bonus_draw
from .model import add, card, contract_words, empty_check, handle, held, log
from .notation import Move, cubes_words, text

State = dict[str, Any]
DECK = "superbonus"


def _house_here(state: State, seat: int, doing: str) -> str:
    where = state["trucks"][seat]["where"]
    if where in ("", "road"):
        raise IllegalMoveError(f"You can {doing} only while your truck is in a warehouse (A-F).")
    return str(where)


def _aboard(state: State, seat: int) -> dict[str, int]:
    return state["trucks"][seat]["cubes"]


def load_total(state: State, seat: int) -> int:
    return sum(_aboard(state, seat).values())


def do_place(state: State, seat: int, move: Move) -> None:
    """RM-S8: the first turn starts with the truck on any warehouse, free."""
    truck = state["trucks"][seat]
    if truck["where"]:
        raise IllegalMoveError("Your truck is already on the board.")
    board.set_position(truck, ("wh", move["house"], "", ""))
    log(state, f"{handle(state, seat)} starts at warehouse {move['house']}.")


def do_forward(state: State, seat: int, move: Move) -> None:
    """RM-M1..M6."""
    wanted = text(state, move)
    path = board.forward_path(state, seat, wanted, move["spaces"])
    if path is None:
        reason = board.why_not_forward(state, seat, wanted, move["spaces"])
        raise IllegalMoveError(f"'{wanted}' is not possible: {reason}.")
    board.arrive(state["trucks"][seat], path)
    log(state, f"{handle(state, seat)} drives {wanted}: now {board.describe(path[-1])}.")


def do_backward(state: State, seat: int, move: Move) -> None:
    """RM-M7, and RM-M5 for a backward move too."""
    wanted = text(state, move)
    options = board.backward_options(state, seat)
    if wanted not in options:
        reason = board.why_no_backward(state, seat, move["into"])
        raise IllegalMoveError(f"'{wanted}' is not possible: {reason}.")
    truck = state["trucks"][seat]
    board.set_position(truck, options[wanted], truck["heading"])  # backing in keeps it
    log(state, f"{handle(state, seat)} backs up: now {board.describe(options[wanted])}.")


def do_load(state: State, seat: int, move: Move, ctx: dict[str, Any]) -> None:
    """RM-A13: cubes of any colour lying in this warehouse, up to the truck's room."""
    letter = _house_here(state, seat, "load")
    house = state["houses"][letter]
    for colour, n in move["cubes"].items():
        if house.get(colour, 0) < n:
            raise IllegalMoveError(
                f"Warehouse {letter} holds {house.get(colour, 0)} {colour} cube(s), not {n}.")
    room = state["data"]["capacity"] - load_total(state, seat)
    wanted = sum(move["cubes"].values())
    if wanted > room:
        raise IllegalMoveError(
            f"Your truck has room for {room} more cube(s) (it carries at most "
            f"{state['data']['capacity']}), not {wanted}.")
    for colour, n in move["cubes"].items():
        add(house, colour, -n)
        add(_aboard(state, seat), colour, n)
        if colour == state["data"]["perish"]:
            ctx["blue"] = ctx.get("blue", 0) + n
    log(state, f"{handle(state, seat)} loads {cubes_words(move['cubes'], state['data']['colours'])}"
               f" at {letter}.")
    empty_check(state, letter)


def do_unload(state: State, seat: int, move: Move) -> None:
    """RM-A14/A15: cubes onto your contracts for this warehouse; score completed ones."""
    letter = _house_here(state, seat, "unload")
    aboard = _aboard(state, seat)
    totals: dict[str, int] = {}
    for uid, cubes in move["parts"].items():
        entry = held(state, seat, uid)
        if entry is None:
            raise IllegalMoveError(f"{uid} is not one of your contracts.")
        info = card(state, uid)
        if entry["done"]:
            raise IllegalMoveError(f"{uid} is already complete.")
        if info["to"] != letter:
            raise IllegalMoveError(f"{uid} is delivered at warehouse {info['to']}, not {letter}.")
        for colour, n in cubes.items():
            if colour != info["colour"]:
                raise IllegalMoveError(f"{uid} wants {info['colour']} cubes, not {colour}.")
            missing = info["count"] - entry["cubes"]
            if n > missing:
                raise IllegalMoveError(f"{uid} needs only {missing} more {colour} cube(s).")
            totals[colour] = totals.get(colour, 0) + n
    for colour, n in totals.items():
        if aboard.get(colour, 0) < n:
            raise IllegalMoveError(f"Your truck carries {aboard.get(colour, 0)} {colour} cube(s), not {n}.")
    for uid, cubes in move["parts"].items():
        entry = held(state, seat, uid)
        assert entry is not None
        info = card(state, uid)
        for colour, n in cubes.items():
            add(aboard, colour, -n)
            entry["cubes"] += n
        if entry["cubes"] == info["count"]:
            entry["done"] = True
            state["scores"][seat] += info["points"]
            log(state, f"{handle(state, seat)} completes {uid} at {letter}: +{info['points']}.")
        else:
            log(state, f"{handle(state, seat)} puts {entry['cubes']}/{info['count']} on {uid}.")


def do_dump(state: State, seat: int, move: Move, ctx: dict[str, Any]) -> None:
    """RM-A16: cubes of colours none of your contracts needs, into this warehouse, where
    anyone may load them later; RM-P2: perishable cubes loaded this turn are not
    delivered by that, so they leave the game instead."""
    letter = _house_here(state, seat, "unload")
    aboard = _aboard(state, seat)
    for colour, n in move["cubes"].items():
        if aboard.get(colour, 0) < n:
            raise IllegalMoveError(f"Your truck carries {aboard.get(colour, 0)} {colour} cube(s), not {n}.")
        needing = needs_colour(state, seat, colour)
        if needing:
            raise IllegalMoveError(
                f"{needing} still needs {colour} cubes: only colours unrelated to your "
                "contracts may be unloaded into a warehouse.")
    colours = state["data"]["colours"]
    for colour, n in move["cubes"].items():
        add(aboard, colour, -n)
        spoilt = min(n, ctx.get("blue", 0)) if colour == state["data"]["perish"] else 0
        if spoilt:
            ctx["blue"] -= spoilt
            add(state["removed"], colour, spoilt)
            log(state, f"{spoilt} {colour} cube(s) loaded this turn and not delivered spoil: "
                       "they leave the game.")
        if n - spoilt:
            add(state["houses"][letter], colour, n - spoilt)
    log(state, f"{handle(state, seat)} leaves {cubes_words(move['cubes'], colours)} at {letter}.")


def needs_colour(state: State, seat: int, colour: str) -> str:
    """The first open contract of ``seat`` that wants ``colour`` cubes, or ''."""
    for entry in state["contracts"][seat]:
        if not entry["done"] and card(state, entry["id"])["colour"] == colour:
            return str(entry["id"])
    return ""


def check_contracts(state: State, move: Move) -> None:
    take = state["data"]["take"]
    count = len(move["slots"]) + (1 if move["top"] else 0)
    if count > take:
        raise IllegalMoveError(f"Take 1 to {take} contracts at a time, not {count}.")
    for slot in move["slots"]:
        if slot > len(state["market"]) or not state["market"][slot - 1]:
            raise IllegalMoveError(f"Market slot m{slot} is empty until the market is refilled.")
    if move["top"] and not state["deck"]:
        raise IllegalMoveError("The contract deck is empty: there is no top card to take.")


def do_contracts(state: State, seat: int, move: Move) -> None:
    """RM-A4: market cards now; the caller arranges the blind top card (chance)."""
    check_contracts(state, move)
    taken = []
    for slot in move["slots"]:
        uid = state["market"][slot - 1]
        state["market"][slot - 1] = ""
        state["contracts"][seat].append({"id": uid, "cubes": 0, "done": False})
        taken.append(uid)
    if taken:
        words = ", ".join(contract_words(state, uid) for uid in taken)
        log(state, f"{handle(state, seat)} takes {words}.")


def do_superbonus(state: State, seat: int) -> None:
    """RM-A10: reserve the top cards of the Super Bonus deck for this seat, in secret (a
    short draw is completed from the next returns: bonus_draw)."""
    if secretdeck.drawn(state, DECK, seat) or bonus_draw.waiting(state, seat):
        raise IllegalMoveError("You still have drawn Super Bonus cards to choose from; take "
                               "more once you have kept or returned them.")
    if state["sb"].get("closed"):
        raise IllegalMoveError("The Super Bonus deck is closed: a player was declared absent "
                               "and played by the bot, and no card can be drawn without "
                               "their key.")
    bonus_draw.draw(state, seat)


def do_keep(state: State, seat: int, move: Move) -> None:
    """RM-A10: keep drawn cards (at most ``sb_keep`` in all from one draw)."""
    _check_drawn(state, seat, move["slots"])
    kept = state["sb_kept"][seat]
    limit = state["data"]["sb_keep"]
    if kept + len(move["slots"]) > limit:
        raise IllegalMoveError(f"You may keep at most {limit} of the cards you drew.")
    secretdeck.keep(state, DECK, seat, move["slots"])
    state["sb_kept"][seat] = kept + len(move["slots"])
    _finish_choice(state, seat, f"{handle(state, seat)} keeps {len(move['slots'])} Super Bonus card(s).")


def do_bottom(state: State, seat: int, move: Move) -> None:
    """RM-A10: put drawn cards under the Super Bonus deck (as one batch with fresh slot
    ids, which the others then shuffle, so no order or id says which card is where), then
    complete any open short draw from them; in version 5's last choices, set them aside."""
    _check_drawn(state, seat, move["slots"])
    if seat in state["sb"].get("last", []):
        bonus_draw.set_aside(state, seat, move["slots"])
        _finish_choice(state, seat, "")
        return
    secretdeck.return_bottom(state, DECK, seat, move["slots"])
    _finish_choice(state, seat, f"{handle(state, seat)} returns {len(move['slots'])} card(s) "
                                 "under the Super Bonus deck.")


def _check_drawn(state: State, seat: int, slots: list[str]) -> None:
    drawn = bonus_draw.undecided(state, seat)
    if not drawn:
        raise IllegalMoveError("You have no drawn Super Bonus cards to choose from.")
    for slot in slots:
        if slot not in drawn:
            raise IllegalMoveError(f"{slot} is not one of your drawn cards ({' '.join(drawn)}).")
    if not secretdeck.readable(state, DECK, seat):
        raise IllegalMoveError("Your drawn Super Bonus cards cannot be read yet: the other "
                               "players have not unlocked them.")


def choice_words(state: State, seat: int) -> str:
    """What the drawer must still choose, naming its cards: 'keep up to 2 of s3 s7 s9
    (keep s3 s7), put the others under the deck (bottom s9 ...)'."""
    drawn = bonus_draw.undecided(state, seat)
    room = min(state["data"]["sb_keep"] - state["sb_kept"][seat], len(drawn))
    names = " ".join(drawn)
    if room <= 0:
        return f"put {names} under the deck (bottom {names})"
    return (f"keep up to {room} of {names} (keep {' '.join(drawn[:room])}) and put the others "
            f"under the deck (bottom {' '.join(drawn[room:]) or names})")


def _finish_choice(state: State, seat: int, line: str) -> None:
    if line:
        log(state, line)
    bonus_draw.complete(state)  # returned cards complete open short draws first
    if not bonus_draw.undecided(state, seat):
        state["sb_kept"][seat] = 0

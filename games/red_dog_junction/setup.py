"""The state before the first turn, and the chance that fills it in.

``new_state`` builds everything that is not random; the ``setup`` chance request (resolved
by the start entry's beacon) picks the first player, rolls the six dice and places them at
random around the Junction, deals the Trail Boss commanders and hands out the starting
gold in seat order from the first player. setup_choices then deals the six display cards
at once, or first lets each player make a set-up choice (the Trail Boss crew pick).

The market deck is kept as a sorted list: its cards are drawn face up, so (PROTOCOL.md
section 5) a draw takes a uniform card from what remains, which is the same as drawing
from a shuffled deck and shows nobody the order. "Shuffle the deck" is therefore nothing
to do here, including the Trail Boss reshuffle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.game import Sampler, State, fixed, queue_chance

from . import journal
from .components import start_card_ids, tables
from .constants import DICE, DISPLAY_SIZE, GOLD, PLANET_GOODS, SPACE_GOOD
from .state import card, no_goods


def fresh_turn() -> dict[str, Any]:
    """What the acting player has done so far this turn."""
    return {
        "actions": 0,  # actions taken
        "agents_left": 0,  # agents still unused in the agent action now open
        "rascal": "",  # the crew type the rascals were named this turn
        "commanded": [],  # commanders that acted this turn (once a turn each)
        "capacity_bonus": 0,  # cargo nets played this turn
    }


def new_player(number: int, start_crew: dict[str, int]) -> dict[str, Any]:
    return {
        "at": "home",
        "ship": no_goods(),
        "storage": no_goods(),
        "crew": start_card_ids(number, start_crew),
        "commanders": [],
        "boosts": [],
        "played": [],  # boosts played this turn, discarded at its end
        "deals": [],
        "owes_pick": False,  # Trail Boss: a crew card still to pick at set-up
    }


def new_state(seats: Sequence[str], options: dict[str, Any], components: dict[str, Any],
              variant_setup: Mapping[str, Callable[[State], None]] | None = None) -> State:
    rules = tables(components)
    solo = len(seats) == 1
    takers = 2 if solo else len(seats)  # solo is set up as a 2-player game
    amounts = rules["amounts"]
    box_gold = rules["box_gold"] if takers in (2, 3) else 0
    space = no_goods()
    space[SPACE_GOOD] = amounts[SPACE_GOOD]
    state: State = {
        "rules": rules,
        "variant": str(options.get("variant", "standard")),
        "solo": solo,
        "seats": list(seats),
        "phase": "setup",
        "first": 0,
        "current": 0,
        "turn": 1,  # every turn counts, Justin's too
        "bank": {GOLD: amounts[GOLD] - box_gold, "whiskey": amounts["whiskey"]},
        "box": {GOLD: box_gold},
        "planets": {g: amounts[g] for g in PLANET_GOODS},
        "space": space,
        "dice": {**{d: 1 for d in DICE}, GOLD: rules["gold_start"]},
        "ring": [],  # the six dice in ring order, placed at random by the start entry
        "deck": sorted(rules["market"]),
        "display": [],
        "discard": [],
        "stacks": {k: list(v) for k, v in rules["stacks"].items()},
        "players": [new_player(i + 1, rules["start_crew"]) for i in range(len(seats))],
        "ts": fresh_turn(),
        "end": {"gold_fired": False, "end_after": 0, "reason": ""},
        "last": [],  # what happened outside the players' moves (Justin, refills)
        "journal": journal.fresh(),  # what the entry in progress did, in words
    }
    if solo:
        # Justin is player 2 of a 2-player set-up: his starting set opens his stack.
        state["justin"] = {
            "at": "home",
            "ship": no_goods(),
            "storage": no_goods(),
            "stack": start_card_ids(2, rules["start_crew"]),
            "deals": [],
            "awaiting": "",  # "junction" or "planet": player 1 names his dock
        }
    # A variant's own set-up (Posse's draft: posse.prepare) is passed in: it builds on
    # this module (resolve_setup, deal_display), so this module cannot import it.
    hook = (variant_setup or {}).get(state["variant"])
    if hook is not None:
        hook(state)
    # Set-up is done with the rules tables: from here on one table, never changed, that
    # every copy of the state shares.
    state["rules"] = fixed(state["rules"])
    queue_chance(state, {"kind": "setup"})
    return state


def resolve_setup(state: State, rng: Sampler) -> None:
    """The start entry's chance (setup_choices then deals the display or opens a stage)."""
    n = len(state["players"])
    state["first"] = 0 if state["solo"] else rng.randbelow(n)
    seats = state["seats"]
    journal.chance(state, f"First player: {seats[state['first']]}.")
    place_dice(state, rng)
    order = turn_order(state)
    if state["variant"] == "trail-boss":
        commanders = [c for c in state["deck"] if card(state, c)["kind"] == "commander"]
        for seat, ident in zip(order, rng.sample(commanders, n), strict=True):
            state["deck"].remove(ident)
            state["players"][seat]["commanders"].append(ident)
        journal.chance(state, "Trail Boss commanders dealt: " + ", ".join(
            f"{seats[s]} {state['players'][s]['commanders'][0]}" for s in order) + ".")
    start_gold = state["rules"]["start_gold"]
    owners = [state["players"][s] for s in order] + ([state["justin"]] if state["solo"] else [])
    names = [seats[s] for s in order] + (["Justin"] if state["solo"] else [])
    for index, owner in enumerate(owners):
        owner["storage"][GOLD] = start_gold[index]
        state["bank"][GOLD] -= start_gold[index]
    journal.chance(state, "Starting gold into storage: " + ", ".join(
        f"{name} {start_gold[i]}" for i, name in enumerate(names)) + ".")
    state["current"] = state["first"]


def turn_order(state: State) -> list[int]:
    """The seats in turn order from the first player."""
    n = len(state["players"])
    return [(state["first"] + k) % n for k in range(n)]


def deal_display(state: State, rng: Sampler, late: bool = False) -> None:
    """Turn the six display cards (the end of set-up); ``late``: in the entry last written
    (see journal.late)."""
    state["display"] = draw(state, DISPLAY_SIZE, rng)
    (journal.late if late else journal.chance)(
        state, f"The display is dealt: {', '.join(state['display'])}.")


def place_dice(state: State, rng: Sampler) -> None:
    """RDJ-S7: roll the six dice and place them at random around the Junction: die spot
    N lies between docks N-1 and N, so dock N touches the dice at spots N and N+1."""
    state["ring"] = rng.sample(list(DICE), len(DICE))
    for die in state["ring"]:
        state["dice"][die] = rng.randint(1, 6)
    spots = ", ".join(f"{die} {state['dice'][die]}" for die in state["ring"])
    journal.chance(state, f"The six dice were rolled and placed around the Junction, in ring "
                          f"order from the spot before dock 1: {spots}; the gold die shows "
                          f"{state['dice'][GOLD]}.")


def draw(state: State, count: int, rng: Sampler | None) -> list[str]:
    """Take ``count`` uniform cards from the deck (all of them when it has no more)."""
    deck = state["deck"]
    # No sampler is needed (or given) when the rest of the deck is taken.
    drawn = rng.sample(deck, count) if rng is not None and len(deck) > count else list(deck[:count])
    for ident in drawn:
        deck.remove(ident)
    return drawn


def refill(state: State, count: int, rng: Sampler | None) -> None:
    """Turn ``count`` cards into the display; new cards enter at the deck end of the row
    (the front), so the card at the far end is the one that has waited longest. Turning
    the deck's last card ends the game at once."""
    if count <= 0:
        return
    was = len(state["deck"])
    drawn = draw(state, count, rng)
    state["display"][:0] = drawn
    journal.chance(state, f"Display refilled with {', '.join(drawn) or 'nothing'}"
                          f" ({len(state['deck'])} left in the deck).")
    if was and not state["deck"]:
        end_game(state, "deck")


def end_game(state: State, reason: str) -> None:
    state["phase"] = "over"
    if not state["end"]["reason"]:
        state["end"]["reason"] = reason
        journal.note(state, "The deck's last card is turned: the game ends at once."
                     if reason == "deck" else
                     "The last turns are played: the game ends.")

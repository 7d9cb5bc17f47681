"""Shared helpers for the Red Dog Junction tests: a set-up state to arrange by hand, and
moves applied through the game's own normalize/apply/end_turn."""

from __future__ import annotations

import copy
from typing import Any

from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.state import card

HANDLES = ["ann", "bob", "cy", "dee", "eve"]
# The dice in ring order that tests arrange (set-up places them at random, RDJ-S7):
# dock 1 between scrap and whiskey, dock 2 whiskey/gas, 3 gas/ruby, 4 ruby/ice,
# 5 ice/oxygen, 6 oxygen/scrap.
TEST_RING = ["scrap", "whiskey", "gas", "ruby", "ice", "oxygen"]
_STOCK = GAME.stock_components()


def stock() -> dict[str, Any]:
    return copy.deepcopy(_STOCK)


def new_game(players: int = 2, variant: str = "standard", seed: bytes = b"rdj",
             components: dict[str, Any] | None = None, first: int | None = 0,
             ring: list[str] | None = TEST_RING) -> dict[str, Any]:
    """A state after set-up chance, with the first player forced (None: as drawn) and
    the dice arranged in ``ring`` order (None: as placed at random)."""
    options = {"variant": variant}
    GAME.validate_options(options, players)
    state = GAME.setup(HANDLES[:players], options, components or stock())
    state["seats"] = HANDLES[:players]
    resolve_all(state, seed)
    if first is not None:
        state["first"] = state["current"] = first
        if state.get("waiting"):  # a set-up stage (Trail Boss picks) starts from ``first``
            state["waiting"] = [(first + k) % players for k in range(players)]
    if ring is not None and state["ring"]:
        state["ring"] = list(ring)
    return state


def resolve_all(state: dict[str, Any], seed: bytes = b"chance") -> None:
    rng = Sampler(seed)
    pending = state.get("pending", [])
    state["pending"] = []
    for request in pending:
        body = {k: v for k, v in request.items() if k != "seq"}
        GAME.resolve(state, body, rng)


def act(state: dict[str, Any], *moves: str, seat: int | None = None) -> list[str]:
    """Apply moves for ``seat`` (default: whoever acts); return their canonical forms."""
    who = state["current"] if seat is None else seat
    done = []
    for text in moves:
        move = GAME.normalize(state, who, text)
        GAME.apply(state, who, move)
        done.append(move)
    return done


def end(state: dict[str, Any], seed: bytes = b"chance") -> None:
    """End the current turn and resolve what it queued (the next seat's beacon)."""
    GAME.end_turn(state, state["current"])
    resolve_all(state, seed)


def put(state: dict[str, Any], seat: int | str, where: str = "ship", **goods: int) -> None:
    """Move goods from their supplies to a ship or storage (goods stay conserved)."""
    owner = state["justin"] if seat == "justin" else state["players"][int(seat)]
    for good, n in goods.items():
        supply = (state["bank"] if good in ("gold", "whiskey") else
                  state["space"] if good == "scrap" else state["planets"])
        assert supply[good] >= n, f"not enough {good} in its supply"
        supply[good] -= n
        owner[where][good] += n


def jettison_all(state: dict[str, Any], seat: int, where: str = "ship") -> None:
    """Send every good of a ship (or storage) back to its supply."""
    owner = state["players"][seat]
    for good, n in owner[where].items():
        supply = (state["bank"] if good in ("gold", "whiskey") else
                  state["space"] if good == "scrap" else state["planets"])
        supply[good] += n
        owner[where][good] = 0


def give_card(state: dict[str, Any], seat: int, ident: str) -> None:
    """Hand a market card to a player as if bought (from the deck or the display)."""
    for pile in ("deck", "display"):
        if ident in state[pile]:
            state[pile].remove(ident)
            break
    else:
        raise AssertionError(f"{ident} is neither in the deck nor the display")
    kind = card(state, ident)["kind"]
    state["players"][seat][{"crew": "crew", "commander": "commanders", "boost": "boosts"}[kind]
                          ].append(ident)


def to_display(state: dict[str, Any], ident: str, last: bool = False) -> None:
    """Put a deck card into the display (swapping one display card back into the deck)."""
    if ident in state["display"]:
        state["display"].remove(ident)
    else:
        state["deck"].remove(ident)
        back = state["display"].pop(0 if last else -1)
        state["deck"].append(back)
        state["deck"].sort()
    if last:
        state["display"].append(ident)
    else:
        state["display"].insert(0, ident)


def card_of(state: dict[str, Any], ctype: str, pile: str = "deck") -> str:
    """The first card of a crew type (or a card id prefix) in a pile."""
    for ident in state[pile]:
        entry = card(state, ident)
        if entry["type"] == ctype or ident.startswith(ctype):
            return ident
    raise AssertionError(f"no {ctype} in the {pile}")


def hire(state: dict[str, Any], seat: int, ctype: str, count: int = 1) -> list[str]:
    """Give a player ``count`` more crew of a type from the deck/display."""
    got = []
    for _ in range(count):
        pile = "deck" if any(card(state, c)["type"] == ctype
                             for c in state["deck"]) else "display"
        ident = card_of(state, ctype, pile)
        give_card(state, seat, ident)
        got.append(ident)
    return got


def clean(state: dict[str, Any]) -> None:
    broken = GAME.invariants(state)
    assert broken == [], broken

"""What must hold in every state of Red Dog Junction (``Game.invariants``)."""

from __future__ import annotations

from pbem.game import State

from . import posse
from .components import start_card_ids
from .constants import DICE, GOLD, GOODS, JUSTIN
from .state import die_sides, goods_owned, ship, ship_keys, ship_name


def broken_invariants(state: State) -> list[str]:
    """Goods, cards and tiles conserved; no negative count; one ship per dock."""
    broken: list[str] = []
    amounts = state["rules"]["amounts"]
    for good in GOODS:
        have = goods_owned(state, good)
        if have != amounts[good]:
            broken.append(f"{good}: {have} cubes in play, the game has {amounts[good]}.")
    stores: list[tuple[str, dict[str, int]]] = [
        ("the bank", state["bank"]), ("the box", state["box"]), ("space", state["space"]),
        ("the planets", state["planets"])]
    for key in ship_keys(state):
        owner = ship(state, key)
        stores += [(f"{ship_name(state, key)}'s ship", owner["ship"]),
                   (f"{ship_name(state, key)}'s storage", owner["storage"])]
    for where, goods in stores:
        for good, n in goods.items():
            if n < 0:
                broken.append(f"{where} holds {n} {good}.")
    cards = state["deck"] + state["display"] + state["discard"]
    for player in state["players"]:
        cards += player["crew"] + player["commanders"] + player["boosts"] + player["played"]
    if state["variant"] == "posse" and state["phase"] in ("setup", "draft"):
        # Posse before the draft's cards are handed out: they are in the secret deck.
        cards += posse.deck_cards(state["rules"], len(state["players"]))
    expected = list(state["rules"]["market"])
    for number in range(1, len(state["players"]) + 1):
        expected += start_card_ids(number, state["rules"]["start_crew"])
    if state["solo"]:
        cards += state[JUSTIN]["stack"]
        expected += start_card_ids(2, state["rules"]["start_crew"])
    if sorted(cards) != sorted(expected):
        missing = sorted(set(expected) - set(cards))
        extra = sorted(c for c in set(cards) if cards.count(c) > expected.count(c))
        broken.append(f"cards not conserved (missing {missing}, extra {extra}).")
    tiles = [t for s in state["stacks"].values() for t in s]
    tiles += [t for k in ship_keys(state) for t in ship(state, k)["deals"]]
    if sorted(tiles) != sorted(state["rules"]["tiles"]):
        broken.append("super deal tiles not conserved.")
    places = [ship(state, k)["at"] for k in ship_keys(state)]
    docked = [p for p in places if p not in ("space", "home")]
    if len(docked) != len(set(docked)):
        broken.append(f"two ships share a dock: {sorted(docked)}.")
    for die in [*DICE, GOLD]:
        if not 1 <= state["dice"][die] <= die_sides(state, die):
            broken.append(f"the {die} die shows {state['dice'][die]}.")
    return broken

"""What ships and crews do to goods and docks: shared by the crew actions, the commander
and boost effects, and (where the rules match) Justin.

Each function checks everything first and changes the state only once the move is
known to be legal, so a refused move never leaves half its effect behind.
"""

from __future__ import annotations

from pbem.game import IllegalMoveError, State

from .constants import GOLD, GOODS, PLANET_GOODS
from .state import (
    describe,
    die_sides,
    dock_dice,
    empty_supply,
    give_back,
    has,
    in_supply,
    join_and,
    place_label,
    refuse_empty,
    ship,
    ship_name,
    supply_name,
    take_supply,
    taken_by,
    total,
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def move_goods(source: dict[str, int], target: dict[str, int], goods: dict[str, int]) -> None:
    for good, n in goods.items():
        source[good] -= n
        target[good] += n


def check_place(state: State, key: str, place: str, owner: str = "") -> None:
    """Refuse a dock a ship may not take: the bank, another's home, a taken dock."""
    if place == "bank":
        raise IllegalMoveError("The bank is not a place ships can visit: it only keeps the "
                               "gold and whiskey.")
    if place == "home" and owner and owner != key:
        name = ship_name(state, owner)
        raise IllegalMoveError(f"{name}'s home base takes only {name}'s ship.")
    taken_by(state, place, key)


def do_haul(state: State, seat: int, load: dict[str, int], unload: dict[str, int],
            everything: bool) -> str:
    """Move goods between storage and ship, both ways in one go; say what moved."""
    player = state["players"][seat]
    cargo, storage = player["ship"], player["storage"]
    if everything:
        if not total(cargo):
            raise IllegalMoveError("Your ship is empty: there is nothing to unload.")
        unload = {g: n for g, n in cargo.items() if n}
    if not has(cargo, unload):
        raise IllegalMoveError(f"Your ship holds {describe(cargo)}, not {describe(unload)}.")
    if not has(storage, load):
        raise IllegalMoveError(f"Your storage holds {describe(storage)}, not {describe(load)}.")
    both = sorted(set(load) & set(unload), key=GOODS.index)
    if both:
        raise IllegalMoveError(f"{both[0].capitalize()} cannot be loaded and unloaded at once.")
    move_goods(cargo, storage, unload)
    move_goods(storage, cargo, load)
    done = [f"unloaded {describe(unload)} into storage"] if unload else []
    done += [f"loaded {describe(load)} onto the ship"] if load else []
    return " and ".join(done)


def do_mine(state: State, seat: int, count: int, what: str) -> str:
    """Take up to ``count`` of the planet's good onto the ship (fewer if it runs out);
    say what was mined."""
    player = state["players"][seat]
    if player["at"] not in PLANET_GOODS:
        raise IllegalMoveError("Mining needs your ship docked at a planet.")
    if count < 1:
        raise IllegalMoveError(f"You have no {what}s.")
    good = player["at"]
    refuse_empty(state, good, "mining")
    got = take_supply(state, good, count)
    player["ship"][good] += got
    short = f" (the planet had only {got})" if got < count else ""
    return f"mined {got} {good} at {place_label(good)}{short}"


def do_rustle(state: State, seat: int, targets: tuple[str, ...], limit: int, what: str) -> str:
    """Undock each target ship into space (any ship, yours too); say which from where."""
    if limit < 1:
        raise IllegalMoveError(f"You have no {what}s.")
    if len(targets) > limit:
        raise IllegalMoveError(f"You can undock at most {plural(limit, 'ship')} this way.")
    for key in targets:
        if ship(state, key)["at"] == "space":
            raise IllegalMoveError(f"{ship_name(state, key)}'s ship is already in space.")
    moved = [f"{ship_name(state, key)}'s ship (from {place_label(ship(state, key)['at'])})"
             for key in targets]
    for key in targets:
        ship(state, key)["at"] = "space"
    return f"undocked {join_and(moved)} into space"


def do_salvage(state: State, seat: int, goods: dict[str, int], limit: int, what: str,
               in_space: bool = True) -> str:
    """Take goods lying in space onto the ship; say what."""
    player = state["players"][seat]
    if in_space and player["at"] != "space":
        raise IllegalMoveError("Salvaging needs your ship in space.")
    if limit < 1:
        raise IllegalMoveError(f"You have no {what}s.")
    if total(goods) > limit:
        raise IllegalMoveError(f"You can take at most {plural(limit, 'good')} from space.")
    if not total(state["space"]):
        raise IllegalMoveError("Nothing lies in space (the supply of goods to salvage is empty): "
                               "salvaging would gain nothing.")
    if not has(state["space"], goods):
        raise IllegalMoveError(f"Space holds {describe(state['space'])}, not {describe(goods)}.")
    move_goods(state["space"], player["ship"], goods)
    return f"took {describe(goods)} from space onto the ship"


def do_swap(state: State, seat: int, target: str, give: dict[str, int], take: dict[str, int],
            outlaws: int) -> str:
    """Swap equal numbers of goods with another ship, both in space; say what."""
    player = state["players"][seat]
    if player["at"] != "space":
        raise IllegalMoveError("Swapping needs your ship in space.")
    if outlaws < 1:
        raise IllegalMoveError("You have no outlaws.")
    if target == str(seat):
        raise IllegalMoveError("Swap with another ship, not your own.")
    other = ship(state, target)
    name = ship_name(state, target)
    if other["at"] != "space":
        raise IllegalMoveError(f"{name}'s ship is not in space.")
    if total(give) != total(take):
        raise IllegalMoveError(f"Give and take the same number of goods (here {total(give)} and "
                               f"{total(take)}): nothing is taken without giving.")
    if total(give) > 2 * outlaws:
        raise IllegalMoveError(f"Your {plural(outlaws, 'outlaw')} swap at most "
                               f"{2 * outlaws} goods each way.")
    if not has(player["ship"], give):
        raise IllegalMoveError(f"Your ship holds {describe(player['ship'])}, not {describe(give)}.")
    if not has(other["ship"], take):
        raise IllegalMoveError(f"{name}'s ship holds {describe(other['ship'])}, not "
                               f"{describe(take)}.")
    move_goods(player["ship"], other["ship"], give)
    move_goods(other["ship"], player["ship"], take)
    return f"swapped {describe(give)} for {name}'s {describe(take)}"


def rates_at(state: State, place: str) -> dict[str, int]:
    """The goods tradable at a Junction dock and how many make one trade of each."""
    return {d: state["dice"][d] for d in [*dock_dice(state, place), GOLD]}


def do_trade(state: State, seat: int, place: str, give: str, get: str, count: int) -> str:
    """``count`` trades at a Junction dock's rates: give value(give) of ``give`` for
    value(get) of ``get`` each, with the ship's goods. Gains come from their supply.
    Says what was traded."""
    rates = rates_at(state, place)
    if give not in rates or get not in rates:
        a, b = dock_dice(state, place)
        raise IllegalMoveError(f"{place_label(place)} sits between the {a} and {b} dice: "
                               f"only {a}, {b} and gold trade there.")
    if give == get:
        raise IllegalMoveError("Trade one good for another.")
    cargo = state["players"][seat]["ship"]
    cost = rates[give] * count
    if cargo[give] < cost:
        raise IllegalMoveError(f"{plural(count, 'trade')} of {give} for {get} need {cost} "
                               f"{give} on your ship; it holds {cargo[give]}.")
    check_trade_gets(state, give, get, rates, count)
    cargo[give] -= cost
    give_back(state, give, cost)
    wanted = rates[get] * count
    got = take_supply(state, get, wanted)
    cargo[get] += got
    short = f"; {supply_name(get)} had only {got}" if got < wanted else ""
    return (f"traded {cost} {give} for {got} {get} at {place_label(place)} ({plural(count, 'trade')}"
            f" at {give} {rates[give]}, {get} {rates[get]}{short})")


def trade_gets(state: State, get: str, rate: int, count: int) -> bool:
    """Whether each of ``count`` trades getting ``rate`` of ``get`` gets something: the
    trades are made in turn from the supply, so the last one needs more than the others
    take."""
    return in_supply(state, get) > rate * (count - 1)


def check_trade_gets(state: State, give: str, get: str, rates: dict[str, int],
                     count: int) -> None:
    """Refuse a trade that would pay and get nothing (its supply is empty); a trade the
    supply pays only in part goes ahead (the rulings: an empty supply limits a trade)."""
    if trade_gets(state, get, rates[get], count):
        return
    where = supply_name(get)
    have = in_supply(state, get)
    if not have:
        raise IllegalMoveError(f"{empty_supply(get)}: {rates[give] * count} {give} for {get} "
                               "would gain nothing.")
    useful = -(-have // rates[get])  # trades that still get something
    raise IllegalMoveError(f"{where.capitalize()} holds {have} {get}: only "
                           f"{plural(useful, 'trade')} of {give} for {get} "
                           f"{'gets' if useful == 1 else 'get'} anything.")


def junction_place(state: State, seat: int, what: str) -> str:
    place = state["players"][seat]["at"]
    if not place.startswith("junction "):
        raise IllegalMoveError(f"{what} needs your ship docked at the Junction.")
    return place


def set_die(state: State, die: str, value: int) -> str:
    sides = die_sides(state, die)
    if not 1 <= value <= sides:
        raise IllegalMoveError(f"The {die} die has faces 1 to {sides}.")
    if state["dice"][die] == value:
        raise IllegalMoveError(f"The {die} die already shows {value}.")
    return turn_die(state, die, value)


def step_die(state: State, die: str, step: int) -> str:
    value = state["dice"][die] + step
    sides = die_sides(state, die)
    if not 1 <= value <= sides:
        raise IllegalMoveError(f"The {die} die shows {state['dice'][die]} and cannot go "
                               f"{'up' if step > 0 else 'down'}.")
    return turn_die(state, die, value)


def turn_die(state: State, die: str, value: int) -> str:
    """Set a die's face; say what changed."""
    was = state["dice"][die]
    state["dice"][die] = value
    return f"turned the {die} die from {was} to {value}"

"""Fixed words of the Red Dog Junction rules: goods, crew types, card effects.

These are rules, not component data: the rulebook names the seven goods and the seven
crew types, and the code implements each card effect listed here. components.toml picks
effects (and their numbers) from this table for every commander and boost.
"""

from __future__ import annotations

from typing import NamedTuple

GOODS = ("gold", "whiskey", "scrap", "gas", "ice", "ruby", "oxygen")
BANK_GOODS = ("gold", "whiskey")  # kept in the bank/distillery
SPACE_GOOD = "scrap"  # scattered in space
PLANET_GOODS = ("gas", "ice", "ruby", "oxygen")  # each mined on the planet of its name
DICE = ("whiskey", "scrap", "gas", "ice", "ruby", "oxygen")  # six-sided, at the Junction
GOLD = "gold"  # the four-sided die in the Junction's centre is the gold die

CREW_TYPES = ("cowboy", "agent", "miner", "scavenger", "rustler", "outlaw", "rascal")
RASCAL_AS = tuple(t for t in CREW_TYPES if t != "rascal")  # what a rascal may be named
ACTIONS_PER_TURN = 2
SOLO_ACTIONS = 3  # the human in the Trailblazer solo mode
DISPLAY_SIZE = 6
JUNCTION_DOCKS = 6
OUTLAW_GOODS = 2  # goods each outlaw may swap each way

# Trailblazer (solo): Justin the automaton.
JUSTIN = "justin"
JUSTIN_CAPACITY = 12
JUSTIN_TAKES = 3  # goods per scavenger salvage or miner mining
JUSTIN_SWAP = 6  # goods per outlaw swap
JUSTIN_DEAL = 8  # the super deal stack the rascal takes
# What Justin values most first (the rulings: gold, whiskey, mined goods, scrap). The
# mined goods are one class: he never prefers one to another (his outlaw swaps no oxygen
# for gas); their order here only settles which of them he takes or drops first.
JUSTIN_PRIORITY = ("gold", "whiskey", "gas", "ice", "ruby", "oxygen", "scrap")
JUSTIN_CLASS = {"gold": 0, "whiskey": 1, **{g: 2 for g in PLANET_GOODS}, "scrap": 3}

VARIANTS = ("standard", "trail-boss", "posse")
POSSE_HAND = 9  # Posse: cards dealt to each player for the draft


class EffectSpec(NamedTuple):
    """One card effect: its argument shape in move notation, its numeric parameters
    (read from the card's entry in components.toml), and its card text."""

    args: str  # none | die_value | die_delta | die | dock_trade | trade | place | haul |
    #            ships | ship | goods
    params: tuple[str, ...]
    text: str  # format string over the params


EFFECTS: dict[str, EffectSpec] = {
    "tax": EffectSpec("none", ("amount",), "Take {amount} gold from the bank into your storage."),
    "set_die": EffectSpec(
        "die_value", (), "Turn any one die (the gold die too) to any face you choose."
    ),
    "nudge": EffectSpec("die_delta", (), "Move any one die (the gold die too) up or down by 1."),
    "flip": EffectSpec(
        "die", (), "Turn any one die (the gold die too) upside down: a six-sided die shows "
        "7 minus its face, the gold die 5 minus its face."
    ),
    "remote_trade": EffectSpec(
        "dock_trade", (), "From anywhere, make one trade with your ship's goods at the rates "
        "of any Junction dock you name."
    ),
    "haggle": EffectSpec(
        "trade", (), "Docked at the Junction: make one trade at your dock's rates, as an "
        "extra agent would."
    ),
    "jump": EffectSpec("place", (), "Move your ship from wherever it is to any free dock."),
    "haul": EffectSpec(
        "haul", (), "From anywhere, load and unload goods between your storage and ship "
        "as if docked at home."
    ),
    "deep_mine": EffectSpec(
        "none", ("bonus",), "Docked at a planet: mine with your miners plus {bonus}."
    ),
    "extra_mine": EffectSpec("none", ("amount",), "Docked at a planet: mine {amount} of its good."),
    "posse": EffectSpec(
        "ships", ("bonus",), "Rustle with your rustlers plus {bonus}: undock that many ships."
    ),
    "tow": EffectSpec("ship", (), "Undock any one ship (yours too) into space."),
    "tractor": EffectSpec(
        "goods", ("amount",), "From anywhere, take up to {amount} goods lying in space onto "
        "your ship."
    ),
    "cargo_net": EffectSpec("none", ("amount",), "Your ship holds {amount} more at the end of "
                            "this turn."),
    "windfall": EffectSpec(
        "none", ("amount",), "Take {amount} whiskey from the bank onto your ship."
    ),
}

"""Local play: games on one machine without signatures, and the bots.

local   LocalTable: a game with chance from a fixed seed (rules tests, bots, benches)
bots    random and greedy players; they go through the same legality checks as people
"""

from pbem._imports import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "LocalTable": "local",
    "choose_turn": "bots", "choose_free_moves": "bots", "parse_bot": "bots",
})

"""Local play: games on one machine without signatures, and the bots.

local   LocalTable: a game with chance from a fixed seed (rules tests, bots, benches)
bots    random and greedy players; they go through the same legality checks as people
"""

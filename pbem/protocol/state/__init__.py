"""What a save means, entry by entry: the header and the empty table a replay starts from,
the table (seats, the game's state, whose duty comes next), one turn applied, which of
two branches is the game's, the evidence for a skip of beacon links, and the result of a
game.

Modules: headers, table, turns, branchrule, evidence, result, rounds.
"""

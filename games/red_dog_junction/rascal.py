"""The rascals' naming at the head of a turn (RDJ-A10, and the ruling that each rascal
names its own type): `rascal miner` names one type for all of a player's rascals,
`rascal miner outlaw` one type for each. The canonical form is the one word when every
rascal names the same type, else one word a rascal in the order of RASCAL_AS, so old
saves (`rascal miner`, two rascals) replay exactly as they were played."""

from __future__ import annotations

from itertools import combinations_with_replacement

from pbem.game import IllegalMoveError, State

from .constants import RASCAL_AS
from .state import crew_types, join_and


def count(state: State, seat: int) -> int:
    """How many rascal cards the seat has (named or not)."""
    return crew_types(state, seat).count("rascal")


def naming(names: list[str]) -> str:
    """The canonical naming of ``names`` (one type a rascal, or one for all)."""
    if len(set(names)) == 1:
        return names[0]
    return " ".join(sorted(names, key=RASCAL_AS.index))


def check(state: State, seat: int, names: list[str]) -> list[str]:
    """``names`` as one type for each rascal, or IllegalMoveError saying what is wrong."""
    if "rascal" in names:
        raise IllegalMoveError("A rascal counts as another crew type, not as a rascal.")
    bad = [n for n in names if n not in RASCAL_AS]
    if bad:
        raise IllegalMoveError(f"'{bad[0]}' is not a crew type a rascal can be named "
                               f"({', '.join(RASCAL_AS)}).")
    rascals = count(state, seat)
    if len(names) == 1:
        return names * rascals
    if len(names) != rascals:
        raise IllegalMoveError(f"You have {rascals} rascal{'s' if rascals != 1 else ''}: name "
                               "one crew type for all of them (`rascal miner`) or one for "
                               "each (`rascal miner outlaw`).")
    return names


def legal(state: State, seat: int) -> list[str]:
    """Every naming the seat may make, canonical, each once, in a stable order."""
    seen: dict[str, None] = {}
    for names in combinations_with_replacement(RASCAL_AS, max(count(state, seat), 1)):
        seen.setdefault(naming(list(names)), None)
    return list(seen)


def said(names: list[str]) -> str:
    """What a naming means, for people: 'they count as miners this turn', 'they count as
    a miner and an outlaw this turn'."""
    kinds = list(dict.fromkeys(sorted(names, key=RASCAL_AS.index)))
    if len(kinds) == 1:
        return f"they count as {kinds[0]}s this turn"
    parts = [_counted(names.count(k), k) for k in kinds]
    return f"they count as {join_and(parts)} this turn"


def _counted(number: int, kind: str) -> str:
    if number == 1:
        return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    return f"{number} {kind}s"

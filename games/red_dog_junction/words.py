"""The words of move notation: goods, counts, places, ships, cards and trades.

Each function reads a few lower-case tokens and returns what they name, accepting unique
prefixes ("ox" for oxygen), the goods' colours ("black" for scrap) and counts written
"gold x2", "2 gold" or "gold gold". Unknown words raise InvalidMoveError, words that fit
more than one thing AmbiguousMoveError; neither looks at whether a move is allowed now.
"""

from __future__ import annotations

import re

from pbem.game import AmbiguousMoveError, InvalidMoveError, State, one_match, word_matches

from .constants import CREW_TYPES, GOODS, JUNCTION_DOCKS, PLANET_GOODS
from .move import GoodsT
from .state import name_map, occupant

COLOURS = {"black": "scrap", "brown": "whiskey", "purple": "gas", "red": "ruby",
           "green": "oxygen", "yellow": "gold", "o2": "oxygen", "white": "ice"}
SHOP_WORDS = {"shop", "trinket", "jose", "jose's", "joses", "store"}
COUNT = re.compile(r"^(?:x(\d+)|(\d+)x)$")
STEPS = {"+1": 1, "+": 1, "up": 1, "1": 1, "-1": -1, "-": -1, "down": -1}
SPACED_COUNT = re.compile(r"\bx\s+(\d+)")  # "gold x 2" is "gold x2"
JUNCTION = re.compile(r"(?:junction|junc|j|dock)?(\d+)")
TRADE_SIGN = re.compile(r"\s*(->|>|:|=)\s*|\s+for\s+|\s+to\s+")
TRADE_SPLIT = re.compile(r"[:\s]+")


def tokens(text: str) -> list[str]:
    t = text.strip().lower().replace(",", " ").replace("×", "x").replace("*", " x")
    if "x" in t and SPACED_COUNT.search(t):  # the substitution costs more than the search
        t = SPACED_COUNT.sub(r"x\1", t)
    return t.split()


def good_word(word: str) -> str:
    if word in GOODS:  # as word_matches says of a whole name, and the canonical form
        return word
    if word in COLOURS:  # no colour word is a good's name
        return COLOURS[word]
    return one_match(
        word, GOODS, ambiguous=lambda hits: f"'{word}' could be {' or '.join(hits)}; spell it out.",
        unknown=lambda: f"'{word}' is not a good (the goods are {', '.join(GOODS)}).")


def crew_word(word: str) -> str:
    matches = word_matches(word, CREW_TYPES)
    if len(matches) == 1:
        return matches[0]
    raise InvalidMoveError(f"'{word}' is not a crew type ({', '.join(CREW_TYPES)}).")


def goods_words(words: list[str], what: str) -> GoodsT:
    """'gold x2 ruby', '2 gold ruby', 'gold gold ruby' -> (("gold", 2), ("ruby", 1))."""
    counts: dict[str, int] = {}
    pending = 0
    last = ""
    last_added = 0
    for word in words:
        match = COUNT.match(word)
        if match:
            n = int(match.group(1) or match.group(2))
            if n < 1:
                raise not_a_count(word, "gold x2")
            if not last:
                raise InvalidMoveError(f"'{word}' must follow a good, as in 'gold x2'.")
            counts[last] += n - last_added
            last, last_added = "", 0
            continue
        if word.isdigit():
            if pending:
                raise InvalidMoveError(f"two counts in a row in {what}.")
            pending = int(word)
            if pending < 1:
                raise InvalidMoveError(f"a count in {what} must be at least 1.")
            continue
        good = good_word(word)
        last_added = pending or 1
        counts[good] = counts.get(good, 0) + last_added
        last, pending = good, 0
    if pending:
        raise InvalidMoveError(f"a count in {what} must be followed by a good.")
    if not counts:
        raise InvalidMoveError(f"name the goods for {what}, e.g. 'gold x2 ruby'.")
    return tuple((g, counts[g]) for g in GOODS if g in counts)


def place_words(state: State, seat: int, rest: list[str], verb: str) -> tuple[str, str]:
    """A place to dock: (place, owner key for another player's home base or "")."""
    if not rest:
        raise InvalidMoveError(f"Say where to {verb}: junction N, a planet, shop or home.")
    word = rest[0]
    if word in ("space",):
        raise InvalidMoveError("To go to space, use `undock`.")
    if word in ("bank", "distillery"):
        return "bank", ""
    if word == "home":
        if len(rest) == 1:
            return "home", ""
        if len(rest) > 2:
            raise InvalidMoveError("Say `dock home`.")
        key = ship_word(state, seat, rest[1])
        return "home", "" if key == str(seat) else key
    if word in SHOP_WORDS:
        return "shop", ""
    number = junction_words(rest)
    if number is not None:
        return junction_place(state, number), ""
    leftover = [w for w in rest if w != "planet"]
    if len(leftover) == 1 and leftover[0] != "gold":
        planets = [p for p in PLANET_GOODS if p.startswith(leftover[0])]
        if len(planets) == 1:
            return planets[0], ""
        if leftover[0] in COLOURS and COLOURS[leftover[0]] in PLANET_GOODS:
            return COLOURS[leftover[0]], ""
    raise InvalidMoveError(f"'{' '.join(rest)}' is not a place: say junction N (1-"
                           f"{JUNCTION_DOCKS}), gas, ice, ruby, oxygen, shop or home.")


def junction_words(rest: list[str]) -> int | None:
    """'junction 3', 'j3', 'junction3', '3' -> 3; 'junction' alone -> 0; else None."""
    joined = "".join(rest)
    match = JUNCTION.fullmatch(joined)
    if match:
        return int(match.group(1))
    if joined in ("junction", "j", "junc"):
        return 0
    return None


def junction_place(state: State, number: int) -> str:
    if number == 0:
        free = [str(n) for n in range(1, JUNCTION_DOCKS + 1)
                if not occupant(state, f"junction {n}")]
        # With at most five ships some dock is always free.
        if len(free) > 1:
            raise AmbiguousMoveError(f"Say which Junction dock: {', '.join(free)} are free.")
        return f"junction {free[0]}"
    if not 1 <= number <= JUNCTION_DOCKS:
        raise InvalidMoveError(f"The Junction's docks are numbered 1 to {JUNCTION_DOCKS}.")
    return f"junction {number}"


def ship_word(state: State, seat: int, word: str) -> str:
    if word in ("me", "self", "myself", "mine"):
        return str(seat)
    names = name_map(state)
    return names[one_match(
        word, names, ambiguous=lambda _: f"'{word}' could be more than one ship; spell the name out.",
        unknown=lambda: f"There is no ship called '{word}' (ships: {', '.join(names)}).")]


def ships_words(state: State, seat: int, words: list[str], what: str) -> tuple[str, ...]:
    if not words:
        raise InvalidMoveError(f"Name the ships for {what}, e.g. `rustle bob`.")
    keys = [ship_word(state, seat, w) for w in words]
    if len(set(keys)) != len(keys):
        raise InvalidMoveError("Name each ship once.")
    order = list(name_map(state).values())
    return tuple(sorted(keys, key=order.index))


def card_word(state: State, word: str, pool: list[str]) -> str:
    """A card id from an exact id or a prefix; copies with the same face are one card."""
    cards = state["rules"]["cards"]
    if word in cards:
        return word
    in_pool = [c for c in pool if c.startswith(word)]
    faces = {cards[c] for c in in_pool}  # an entry's text is its face: all but the id
    if len(faces) == 1:
        return in_pool[0]
    if in_pool:
        raise AmbiguousMoveError(f"'{word}' could be {', '.join(in_pool)}; say which.")
    known = [c for c in state["rules"]["market"] if c.startswith(word)]
    if len(known) == 1:
        return known[0]
    raise InvalidMoveError(f"There is no card '{word}' here.")


def not_a_count(word: str, example: str) -> InvalidMoveError:
    """For a count written 'x0' or '0x': a count is a whole number of at least 1."""
    return InvalidMoveError(f"'{word}' is not a count: write at least x1, as in '{example}'.")


def trade_words(rest: list[str], counted: bool) -> tuple[str, str, int]:
    count = 1
    words = list(rest)
    if counted and words:
        match = COUNT.match(words[-1])
        if match:
            count = int(match.group(1) or match.group(2))
            words.pop()
        elif words[-1].isdigit() and len(words) > 1:
            count = int(words.pop())
        if count < 1:
            raise not_a_count(rest[-1], "trade scrap:gold x2")
    text = " ".join(words)
    text = TRADE_SIGN.sub(":", text)
    pieces = [p for p in TRADE_SPLIT.split(text) if p]
    if len(pieces) != 2:
        raise InvalidMoveError("Write a trade as GIVE:GET, e.g. `trade scrap:gold x2`.")
    give, get = good_word(pieces[0]), good_word(pieces[1])
    return give, get, count

"""Move notation: parsing what people type into one canonical string per move.

``parse`` turns text (any case, commas or spaces, abbreviations where unambiguous) into
a small dict; ``text`` formats that dict canonically. The canonical forms, for people,
are in NOTATION at the end of this module (``pbem rules road-master`` prints them).
"""

from __future__ import annotations

import re
from typing import Any

from pbem.game import IllegalMoveError, InvalidMoveError, one_match

State = dict[str, Any]
Move = dict[str, Any]

VERBS = {
    "place": "place", "start": "place", "p": "place",
    "forward": "forward", "fwd": "forward", "fw": "forward", "f": "forward", "drive": "forward",
    "backward": "backward", "back": "backward", "bwd": "backward", "bk": "backward",
    "reverse": "backward",
    "load": "load", "ld": "load",
    "unload": "unload", "ul": "unload", "deliver": "unload",
    "dump": "dump", "drop": "dump",
    "contracts": "contracts", "contract": "contracts", "take": "contracts",
    "superbonus": "superbonus", "super": "superbonus", "sb": "superbonus", "bonus": "superbonus",
    "keep": "keep", "k": "keep",
    "bottom": "bottom", "return": "bottom", "bot": "bottom",
    "policy": "policy", "pol": "policy",
}
HEADING_WORDS = {"east": "east", "e": "east", "west": "west", "w": "west"}
COUNT = re.compile(r"^(?:[x*×]?(\d+)|(\d+)x)$")


GLUED = re.compile(r"^([a-z]+?)(\d+)\b")
SPACED_COUNT = re.compile(r"\bx\s+(\d+)")


def _words(raw: str) -> list[str]:
    text = raw.strip().lower().replace(",", " ").replace(";", " ")
    # "f3", "forward3": split a trailing number off a verb; "x 2" -> "x2".
    glued = GLUED.match(text)
    if glued and glued.group(1) in VERBS:
        text = f"{glued.group(1)} {glued.group(2)}{text[glued.end():]}"
    if "x" in text:
        text = SPACED_COUNT.sub(r"x\1", text)
    return text.split()


def parse(state: State, seat: int, raw: str) -> Move:
    """The move ``raw`` means, as a dict; raises InvalidMoveError/AmbiguousMoveError."""
    words = _words(raw)
    if not words:
        raise InvalidMoveError("The move is empty.")
    verb = VERBS.get(words[0])
    if verb is None:
        raise InvalidMoveError(f"'{words[0]}' is not a Road Master move; see the notation.")
    rest = words[1:]
    parser = _PARSERS[verb]
    return parser(state, seat, rest)


def _parse_place(state: State, seat: int, rest: list[str]) -> Move:
    letters = list(state["data"]["houses"])
    if len(rest) != 1 or rest[0].upper() not in letters:
        raise InvalidMoveError(f"Say which warehouse: place {'|'.join(letters)}.")
    return {"kind": "place", "house": rest[0].upper()}


def _parse_forward(state: State, seat: int, rest: list[str]) -> Move:
    """'forward 4 into C exit west left': the count anywhere, the warehouses in the order
    driven (see _route)."""
    spaces = 0
    left = False
    route: list[tuple[str, str]] = []  # ("exit", heading) / ("into", letter), in order
    letters = list(state["data"]["houses"])
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.isdigit() and not spaces:
            spaces = int(word)
        elif word in ("exit", "out", "leave", "heading"):
            if i + 1 >= len(rest) or rest[i + 1] not in HEADING_WORDS:
                raise InvalidMoveError("Say the heading after 'exit': east or west.")
            route.append(("exit", HEADING_WORDS[rest[i + 1]]))
            i += 1
        elif word in ("east", "west"):
            route.append(("exit", word))
        elif word in ("into", "in", "enter", "to", "via", "through"):
            if i + 1 >= len(rest) or rest[i + 1].upper() not in letters:
                raise InvalidMoveError(f"Say which warehouse after '{word}': {'|'.join(letters)}.")
            route.append(("into", rest[i + 1].upper()))
            i += 1
        elif word in ("left", "l"):
            left = True
        elif word in ("right", "r"):
            pass
        else:
            raise InvalidMoveError(f"'{word}' does not belong in a forward move.")
        i += 1
    if not spaces:
        raise InvalidMoveError("Say how far: forward 1 to forward 4.")
    move: Move = {"kind": "forward", "spaces": spaces, "left": left, **_route(route)}
    if move["into"] and left:
        raise InvalidMoveError("A truck inside a warehouse is in no lane; drop 'left'.")
    return move


def _route(route: list[tuple[str, str]]) -> dict[str, Any]:
    """The warehouses of a forward move in the order driven: ``exit`` (the heading out of
    the warehouse it starts in, or ""), ``via`` ([letter, heading] for each warehouse
    entered and left again) and ``into`` (the warehouse it ends in, or "")."""
    exit_heading = ""
    if route and route[0][0] == "exit":
        exit_heading = route.pop(0)[1]
    via: list[list[str]] = []
    into = ""
    while route:
        kind, value = route.pop(0)
        if kind == "exit" or into:
            raise InvalidMoveError("Name each warehouse the move drives through before the "
                                   "heading it leaves with: forward 4 into C exit west.")
        if route and route[0][0] == "exit":
            via.append([value, route.pop(0)[1]])
        elif route:
            raise InvalidMoveError(f"Say the heading the truck leaves {value} with: "
                                   f"into {value} exit east (or west).")
        else:
            into = value
    return {"exit": exit_heading, "via": via, "into": into}


def _parse_backward(state: State, seat: int, rest: list[str]) -> Move:
    letters = list(state["data"]["houses"])
    if rest and rest[0] == "1":
        rest = rest[1:]  # "backward 1": backward is always one space
    if not rest:
        return {"kind": "backward", "into": ""}
    if len(rest) == 2 and rest[0] in ("into", "in", "enter", "to") and rest[1].upper() in letters:
        return {"kind": "backward", "into": rest[1].upper()}
    if len(rest) == 1 and rest[0].upper() in letters:
        return {"kind": "backward", "into": rest[0].upper()}
    raise InvalidMoveError("A backward move is 'backward' or 'backward into C'.")


def colour_of(state: State, word: str) -> str:
    """A colour from a name or an unambiguous start of one ('or', 'pu', 'bl')."""
    colours: list[str] = state["data"]["colours"]
    return one_match(word, colours,
                     ambiguous=lambda hits: f"'{word}' could be {' or '.join(hits)}; say which.",
                     unknown=lambda: f"'{word}' is not a cube colour ({', '.join(colours)}).")


def _count(word: str) -> int | None:
    match = COUNT.match(word)
    if not match:
        return None
    return int(match.group(1) or match.group(2))


def parse_cubes(state: State, words: list[str], what: str) -> dict[str, int]:
    """'orange x2 purple', '2 orange purple' -> {colour: n}."""
    cubes: dict[str, int] = {}
    pending = 0  # a count typed before its colour
    last = ""  # the last colour, if it has no count yet
    for word in words:
        n = _count(word)
        if n is not None:
            if last:
                cubes[last] += n - 1
                last = ""
            elif not pending:
                pending = n
            else:
                raise InvalidMoveError(f"Two counts in a row in '{what}'.")
            continue
        colour = colour_of(state, word)
        cubes[colour] = cubes.get(colour, 0) + (pending or 1)
        last = "" if pending else colour
        pending = 0
    if pending:
        raise InvalidMoveError(f"A count without a colour in '{what}'.")
    if not cubes or any(n < 1 for n in cubes.values()):
        raise InvalidMoveError(f"Say which cubes: {what} orange x2 purple.")
    return cubes


def _parse_load(state: State, seat: int, rest: list[str]) -> Move:
    return {"kind": "load", "cubes": parse_cubes(state, rest, "load")}


def _parse_dump(state: State, seat: int, rest: list[str]) -> Move:
    return {"kind": "dump", "cubes": parse_cubes(state, rest, "dump")}


CARD = re.compile(r"^[a-z]\d+$")


def _parse_unload(state: State, seat: int, rest: list[str]) -> Move:
    parts: dict[str, dict[str, int]] = {}
    order: list[str] = []
    current = ""
    chunk: list[str] = []

    def close() -> None:
        if not current:
            return
        held = {e["id"] for e in state["contracts"][seat]}
        if current not in held:
            raise IllegalMoveError(f"{current} is not one of your contracts.")
        colour = state["data"]["cards"][current]["colour"]
        if not chunk:
            cubes = {colour: 1}
        elif all(_count(w) is not None for w in chunk):
            cubes = {colour: sum(_count(w) or 0 for w in chunk)}  # "c17 x2": colour implied
        else:
            cubes = parse_cubes(state, chunk, "unload")
        for c, n in cubes.items():
            parts.setdefault(current, {})
            parts[current][c] = parts[current].get(c, 0) + n
        if current not in order:
            order.append(current)

    for word in rest:
        if CARD.match(word) and _count(word) is None:
            close()
            current, chunk = word, []
        elif not current:
            raise InvalidMoveError("Name a contract first: unload c17 orange x2.")
        else:
            chunk.append(word)
    close()
    if not parts:
        raise InvalidMoveError("Say what to unload: unload c17 orange x2 (or dump blue).")
    held_order = [e["id"] for e in state["contracts"][seat]]
    return {"kind": "unload", "parts": {c: parts[c] for c in sorted(order, key=held_order.index)}}


SLOT = re.compile(r"^m?(\d+)$")


def _parse_contracts(state: State, seat: int, rest: list[str]) -> Move:
    market: list[str] = state["market"]
    slots: set[int] = set()
    top = False
    for word in rest:
        if word in ("top", "deck", "t", "blind"):
            if top:
                raise InvalidMoveError("The top of the deck can be taken only once.")
            top = True
            continue
        match = SLOT.match(word)
        if match:
            slot = int(match.group(1))
            if not 1 <= slot <= len(market):
                raise InvalidMoveError(f"There is no market slot m{slot} (m1-m{len(market)}).")
        elif word in market:
            slot = market.index(word) + 1
        else:
            raise InvalidMoveError(f"'{word}' is neither a market slot (m1-m{len(market)}) nor 'top'.")
        if slot in slots:
            raise InvalidMoveError(f"Market slot m{slot} is named twice.")
        slots.add(slot)
    if not slots and not top:
        raise InvalidMoveError("Say which contracts: contracts m2 m5 top.")
    return {"kind": "contracts", "slots": sorted(slots), "top": top}


def _parse_superbonus(state: State, seat: int, rest: list[str]) -> Move:
    if rest:
        raise InvalidMoveError("'superbonus' takes no arguments.")
    return {"kind": "superbonus"}


DRAWN_SLOT = re.compile(r"^s\d+$")


def _slots(state: State, seat: int, rest: list[str], verb: str) -> list[str]:
    from .bonus_draw import undecided

    drawn = undecided(state, seat) if "secret" in state else []
    out: list[str] = []
    for word in rest:
        word = word.lstrip("#")
        if DRAWN_SLOT.match(word):
            slot = word
        elif word.isdigit() and 1 <= int(word) <= len(drawn):
            slot = drawn[int(word) - 1]
        else:
            raise InvalidMoveError(
                f"'{word}' is not a drawn card: use slot ids (s3) or positions 1-{len(drawn)}.")
        if slot in out:
            raise InvalidMoveError(f"{slot} is named twice.")
        out.append(slot)
    if not out:
        raise InvalidMoveError(f"Say which cards: {verb} s3 s7.")
    return out


def _parse_keep(state: State, seat: int, rest: list[str]) -> Move:
    slots = _slots(state, seat, rest, "keep")
    return {"kind": "keep", "slots": sorted(slots, key=lambda s: int(s[1:]))}


def _parse_bottom(state: State, seat: int, rest: list[str]) -> Move:
    return {"kind": "bottom", "slots": _slots(state, seat, rest, "bottom")}


def _parse_policy(state: State, seat: int, rest: list[str]) -> Move:
    if len(rest) != 1 or rest[0] not in ("stop", "push", "go", "continue"):
        raise InvalidMoveError("Say 'policy stop' or 'policy push'.")
    return {"kind": "policy", "policy": "stop" if rest[0] == "stop" else "push"}


_PARSERS = {
    "place": _parse_place,
    "forward": _parse_forward,
    "backward": _parse_backward,
    "load": _parse_load,
    "unload": _parse_unload,
    "dump": _parse_dump,
    "contracts": _parse_contracts,
    "superbonus": _parse_superbonus,
    "keep": _parse_keep,
    "bottom": _parse_bottom,
    "policy": _parse_policy,
}


# ---- canonical text ---------------------------------------------------------------
def cubes_words(cubes: dict[str, int], colours: list[str]) -> str:
    return " ".join(f"{c} x{cubes[c]}" if cubes[c] > 1 else c for c in colours if cubes.get(c))


def text(state: State, move: Move) -> str:
    kind = move["kind"]
    colours: list[str] = state["data"]["colours"]
    if kind == "place":
        return f"place {move['house']}"
    if kind == "forward":
        out = f"forward {move['spaces']}"
        if move["exit"]:
            out += f" exit {move['exit']}"
        for letter, heading in move.get("via", []):
            out += f" into {letter} exit {heading}"
        if move["into"]:
            out += f" into {move['into']}"
        elif move["left"]:
            out += " left"
        return out
    if kind == "backward":
        return f"backward into {move['into']}" if move["into"] else "backward"
    if kind in ("load", "dump"):
        return f"{kind} {cubes_words(move['cubes'], colours)}"
    if kind == "unload":
        parts = [f"{uid} {cubes_words(cubes, colours)}" for uid, cubes in move["parts"].items()]
        return "unload " + " ".join(parts)
    if kind == "contracts":
        refs = [f"m{s}" for s in move["slots"]] + (["top"] if move["top"] else [])
        return "contracts " + " ".join(refs)
    if kind == "superbonus":
        return "superbonus"
    if kind in ("keep", "bottom"):
        return f"{kind} " + " ".join(move["slots"])
    return f"policy {move['policy']}"


NOTATION = """\
Road Master moves. One `pbem play` is one whole turn: up to 4 actions, each from a
different action token. Case, commas and extra spaces do not matter; colours and
words may be shortened where unambiguous.

place C                      first turn: the truck starts on a warehouse (free)
forward 3                    forward 1-4 spaces, ending in the right lane
forward 2 left               ... ending in the left lane (mid-overtake, at a warehouse)
forward 2 into D             ... ending inside a warehouse
forward 2 exit west          leaving a warehouse, heading west
forward 4 into C exit west   ... through a warehouse: in, out with either heading, on
backward | backward into C   one space back; or back into the warehouse beside you;
                             in a warehouse, back out (keeping the heading it came in with)
load orange x2 purple        load cubes lying in this warehouse (one action)
unload c17 orange x2         put cubes on your contracts for this warehouse
dump blue                    put cubes into this warehouse (anyone may load them)
contracts m2 m5 top          take 1-3 contracts: market slots m1-m9, and/or the top
superbonus                   draw the top 6 Super Bonus cards in secret
keep s3 s7                   next turn, first: keep drawn Super Bonus cards (slot or position)
bottom s1 s2 s5              ... and put the rest under the deck (the others shuffle them)
policy push | policy stop    hazardous goods: go on or stop (default) after a first half boom
"""

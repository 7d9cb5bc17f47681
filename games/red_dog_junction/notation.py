"""Move notation: parsing what people type into a Move (move.fmt writes it back).

A Move is a small frozen record; ``parse`` accepts friendly variants (any case, extra
spaces and commas, unique prefixes of goods, cards, places and crew types, colour names
of goods, "2 gold" for "gold x2") and move.fmt writes the one canonical string. Parsing is
about words: whether the move is allowed now is for actions.py to say. Names of ships are
the players' handles (and Justin's, in the solo game); "me" means your own ship.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.game import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, State

from . import posse, rascal
from .components import alt_name
from .constants import EFFECTS, GOODS, JUNCTION_DOCKS
from .move import GoodsT, Move
from .setup_choices import pickable
from .state import card, crew_count, has
from .words import (
    COUNT,
    STEPS,
    card_word,
    crew_word,
    good_word,
    goods_words,
    junction_place,
    junction_words,
    place_words,
    ship_word,
    ships_words,
    tokens,
    trade_words,
)

Parser = Callable[[State, int, list[str]], Move]

VERBS = {
    "undock": "undock", "launch": "undock", "dock": "dock", "land": "dock", "taxi": "taxi",
    "load": "load", "unload": "load", "buy": "buy", "hire": "buy", "deal": "deal",
    "superdeal": "deal", "mine": "mine", "rustle": "rustle", "swap": "swap",
    "salvage": "salvage", "trade": "trade", "adjust": "adjust", "rascal": "rascal",
    "play": "play", "boost": "play", "command": "command", "pass": "pass", "skip": "pass",
    "jettison": "jettison", "dump": "jettison", "pick": "pick", "justin": "justin",
    "automaton": "justin",
}


# ---- parsing ------------------------------------------------------------------------------
def parse(state: State, seat: int, text: str) -> Move:
    words = tokens(text)
    if not words:
        raise InvalidMoveError("The move is empty.")
    head = words[0]
    if head == "super" and len(words) > 1 and words[1] == "deal":
        words = ["deal", *words[2:]]
        head = "deal"
    verb = VERBS.get(head)
    if verb is None:
        raise InvalidMoveError(f"'{words[0]}' is not a move; see `pbem rules red-dog-junction`.")
    rest = words[1:]
    if verb in ("undock", "pass"):
        if rest:
            raise InvalidMoveError(f"`{verb}` takes nothing after it.")
        return Move(verb)
    parser = PARSERS[verb]
    if verb == "load":
        return parser(state, seat, words)
    return parser(state, seat, rest)


def _parse_dock(state: State, seat: int, rest: list[str]) -> Move:
    place, owner = place_words(state, seat, rest, "dock")
    return Move("dock", place=place, ships=(owner,) if owner else ())


def _parse_taxi(state: State, seat: int, rest: list[str]) -> Move:
    number = junction_words(rest)
    if not number:
        raise InvalidMoveError("Say which Junction dock to taxi to, e.g. `taxi 5`.")
    junction_place(state, number)
    return Move("taxi", number=number)


def _parse_load(state: State, seat: int, words: list[str]) -> Move:
    load: GoodsT = ()
    unload: GoodsT = ()
    everything = False
    # Split at each 'load'/'unload' word; each part names the goods moved that way.
    parts: list[tuple[str, list[str]]] = []
    for word in words:
        if word in ("load", "unload"):
            parts.append((word, []))
        else:
            parts[-1][1].append(word)
    seen = set()
    for way, part in parts:
        if way in seen:
            raise InvalidMoveError(f"Say `{way}` once; list all its goods after it.")
        seen.add(way)
        if way == "unload" and part == ["all"]:
            everything = True
        elif way == "load" and part == ["all"]:
            raise InvalidMoveError("Name the goods to load, e.g. `load ruby x2`.")
        elif way == "unload":
            unload = goods_words(part, "unload")
        else:
            load = goods_words(part, "load")
    return Move("load", goods=load, goods2=unload, everything=everything)


def _parse_buy(state: State, seat: int, rest: list[str]) -> Move:
    if not rest:
        raise InvalidMoveError("Say which card to buy, e.g. `buy outlaw-1 pay ruby`.")
    ident = card_word(state, rest[0], state["display"])
    alternatives = [alt_name(c) for c in card(state, ident)["cost"]]
    alt = ""
    if len(rest) > 1:
        if rest[1] != "pay" or len(rest) != 3:
            raise InvalidMoveError("Write `buy CARD pay GOODS`, e.g. `buy outlaw-1 pay ruby`.")
        alt = "+".join(g for g in GOODS if g in {good_word(w) for w in rest[2].split("+")})
    if len(alternatives) == 1 and alt in ("", alternatives[0]):
        return Move("buy", card=ident)
    if not alt and len(alternatives) > 1:
        storage = state["players"][seat]["storage"]
        affordable = [a for a, c in zip(alternatives, card(state, ident)["cost"], strict=True)
                      if has(storage, c)]
        if len(affordable) > 1:
            raise AmbiguousMoveError(f"Say how you pay for {ident}: "
                                     f"{' or '.join(f'`buy {ident} pay {a}`' for a in affordable)}.")
        alt = affordable[0] if affordable else ""
    return Move("buy", card=ident, alt=alt)


def _parse_deal(state: State, seat: int, rest: list[str]) -> Move:
    stacks = sorted(state["stacks"], key=int)
    if not rest:
        open_stacks = [s for s in stacks if state["stacks"][s]]
        if len(open_stacks) != 1:
            raise AmbiguousMoveError(f"Say which stack: {' or '.join('deal ' + s for s in stacks)}.")
        return Move("deal", number=int(open_stacks[0]))
    if len(rest) != 1 or rest[0] not in stacks:
        raise InvalidMoveError(f"The super deal stacks are {' and '.join(stacks)}: "
                               f"say e.g. `deal {stacks[-1]}`.")
    return Move("deal", number=int(rest[0]))


def _parse_mine(state: State, seat: int, rest: list[str]) -> Move:
    """`mine N` uses N miners (RDJ-A1: up to as many as you have); plain `mine` uses them
    all and is written `mine N` with their number (bare `mine` when there are none)."""
    if not rest:
        return Move("mine", number=crew_count(state, seat, "miner"))
    match = COUNT.match(rest[0]) if len(rest) == 1 else None
    text = (match.group(1) or match.group(2)) if match else rest[0] if len(rest) == 1 else ""
    if not text.isdigit():
        raise InvalidMoveError("Write `mine N` (N miners, e.g. `mine 2`) or `mine` to use "
                               "them all.")
    if int(text) < 1:
        raise InvalidMoveError("Mine with at least 1 miner, e.g. `mine 1`.")
    return Move("mine", number=int(text))


def _parse_rustle(state: State, seat: int, rest: list[str]) -> Move:
    return Move("rustle", ships=ships_words(state, seat, rest, "rustle"))


def _parse_swap(state: State, seat: int, rest: list[str]) -> Move:
    if len(rest) < 5 or "give" not in rest or "take" not in rest:
        raise InvalidMoveError("Write `swap NAME give GOODS take GOODS`.")
    target = ship_word(state, seat, rest[0])
    body = rest[1:]
    gi, ti = body.index("give"), body.index("take")
    if min(gi, ti) != 0:
        raise InvalidMoveError("Write `swap NAME give GOODS take GOODS`.")
    if gi < ti:
        give, take = body[gi + 1:ti], body[ti + 1:]
    else:
        take, give = body[ti + 1:gi], body[gi + 1:]
    return Move("swap", ships=(target,), goods=goods_words(give, "give"),
                goods2=goods_words(take, "take"))


def _parse_goods_verb(verb: str) -> Parser:
    def parse_it(state: State, seat: int, rest: list[str]) -> Move:
        return Move(verb, goods=goods_words(rest, verb))
    return parse_it


def _parse_trade(state: State, seat: int, rest: list[str]) -> Move:
    give, get, count = trade_words(rest, counted=True)
    return Move("trade", give=give, get=get, number=count)


def _parse_adjust(state: State, seat: int, rest: list[str]) -> Move:
    if len(rest) != 2 or rest[1] not in STEPS:
        raise InvalidMoveError("Write `adjust DIE +1` or `adjust DIE -1`, e.g. `adjust scrap -1`.")
    return Move("adjust", die=good_word(rest[0]), number=STEPS[rest[1]])


def _parse_rascal(state: State, seat: int, rest: list[str]) -> Move:
    if not rest:
        raise InvalidMoveError("Write `rascal TYPE`, e.g. `rascal miner` (one type for all "
                               "your rascals), or one type for each, `rascal miner outlaw`.")
    names = [crew_word(word) for word in rest]
    if len(names) in (1, rascal.count(state, seat)):
        return Move("rascal", crew=rascal.naming(names))
    return Move("rascal", crew=" ".join(names))  # refused by the rules, saying why


def _parse_pick(state: State, seat: int, rest: list[str]) -> Move:
    if state["phase"] == "draft":  # Posse: a slot of the hand, never the card's name
        if len(rest) != 1:
            raise InvalidMoveError("Write `pick SLOT`, e.g. `pick s12` (or the card's position "
                                   "in your hand, `pick 3`).")
        return Move("pick", card=posse.slot_word(state, seat, rest[0].lstrip("#")))
    if len(rest) != 1:
        raise InvalidMoveError("Write `pick CARD`, e.g. `pick miner-2`.")
    if "rascal".startswith(rest[0]) and len(rest[0]) > 2:
        raise IllegalMoveError("A Trail Boss pick is any crew card but a rascal, e.g. "
                               "`pick miner`.")
    # An exact id is taken as it is (card_word): only a prefix needs the deck's crew.
    pool = [] if rest[0] in state["rules"]["cards"] else pickable(state)
    return Move("pick", card=card_word(state, rest[0], pool))


def _parse_justin(state: State, seat: int, rest: list[str]) -> Move:
    if rest and rest[0] == "dock":
        rest = rest[1:]
    place, owner = place_words(state, seat, rest, "dock Justin's ship")
    if owner or place in ("home", "bank"):
        raise InvalidMoveError("Justin docks at a Junction dock or a planet you name.")
    return Move("justin", place=place)


def _parse_card_action(verb: str) -> Parser:
    def parse_it(state: State, seat: int, rest: list[str]) -> Move:
        if not rest:
            raise InvalidMoveError(f"Say which card to {verb}, e.g. "
                                   f"`{'play nudge-1 gold +1' if verb == 'play' else 'command mayor'}`.")
        player = state["players"][seat]
        pool = player["boosts"] if verb == "play" else player["commanders"]
        ident = card_word(state, rest[0], pool)
        entry = card(state, ident)
        if entry["kind"] != ("boost" if verb == "play" else "commander"):
            raise InvalidMoveError(f"{ident} is not a {'boost' if verb == 'play' else 'commander'}.")
        return effect_args(state, seat, Move(verb, card=ident), EFFECTS[entry["effect"]].args,
                           rest[1:])
    return parse_it


# What each shape of effect arguments looks like, in the usage line (_usage).
EFFECT_EXAMPLES = {"die_value": "DIE FACE", "die_delta": "DIE +1|-1", "die": "DIE",
                   "dock_trade": "DOCK GIVE:GET", "trade": "GIVE:GET", "place": "PLACE",
                   "haul": "unload GOODS load GOODS", "ships": "NAME ...", "ship": "NAME",
                   "goods": "GOODS", "none": ""}


def _usage(move: Move, shape: str) -> InvalidMoveError:
    """How to write ``move``'s arguments: built only when a move is refused."""
    example = EFFECT_EXAMPLES[shape]
    return InvalidMoveError(f"Write `{move.verb} {move.card}{' ' + example if example else ''}`.")


def effect_args(state: State, seat: int, move: Move, shape: str, rest: list[str]) -> Move:
    """Fill ``move`` with the arguments a card effect takes."""
    if shape == "none":
        if rest:
            raise _usage(move, shape)
        return move
    if not rest:
        raise _usage(move, shape)
    if shape == "die_value":
        if len(rest) != 2 or not rest[1].isdigit():
            raise _usage(move, shape)
        return move._replace(die=good_word(rest[0]), number=int(rest[1]))
    if shape == "die_delta":
        if len(rest) != 2 or rest[1] not in STEPS:
            raise _usage(move, shape)
        return move._replace(die=good_word(rest[0]), number=STEPS[rest[1]])
    if shape == "die":
        if len(rest) != 1:
            raise _usage(move, shape)
        return move._replace(die=good_word(rest[0]))
    if shape == "dock_trade":
        number = junction_words(rest[:1])
        if not number or not 1 <= number <= JUNCTION_DOCKS:
            raise _usage(move, shape)
        give, get, _ = trade_words(rest[1:], counted=False)
        return move._replace(number=number, give=give, get=get)
    if shape == "trade":
        give, get, _ = trade_words(rest, counted=False)
        return move._replace(give=give, get=get)
    if shape == "place":
        place, owner = place_words(state, seat, rest, "move")
        return move._replace(place=place, ships=(owner,) if owner else ())
    if shape == "haul":
        if rest[0] not in ("load", "unload"):
            raise _usage(move, shape)
        haul = _parse_load(state, seat, rest)
        return move._replace(goods=haul.goods, goods2=haul.goods2, everything=haul.everything)
    if shape in ("ships", "ship"):
        ships = ships_words(state, seat, rest, move.card)
        if shape == "ship" and len(ships) != 1:
            raise _usage(move, shape)
        return move._replace(ships=ships)
    return move._replace(goods=goods_words(rest, move.card))


PARSERS: dict[str, Parser] = {
    "dock": _parse_dock, "taxi": _parse_taxi, "load": _parse_load, "buy": _parse_buy,
    "deal": _parse_deal, "mine": _parse_mine, "rustle": _parse_rustle, "swap": _parse_swap,
    "salvage": _parse_goods_verb("salvage"), "jettison": _parse_goods_verb("jettison"),
    "trade": _parse_trade, "adjust": _parse_adjust, "rascal": _parse_rascal,
    "pick": _parse_pick, "justin": _parse_justin, "play": _parse_card_action("play"),
    "command": _parse_card_action("command"),
}



"""Move notation: parsing what players type, and the one canonical string per move.

``parse`` reads friendly variants into a :class:`Move` (syntax only); ``complete`` uses
the state to fill in what may be left out when only one choice fits (which payment,
which reward); ``fmt`` writes the canonical string.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pbem.game import InvalidMoveError, State, derived, one_match

from .constants import WORK

NOTATION = """\
Station to Station moves. One turn is written in phase order: the first turn's route
pick, market moves, travel moves (with any route takes), the station move, the crew
move. Crew abilities go wherever their text can still act. Cities, goods and crews are
written as their ids (lower case, hyphens: oklahoma-city, st-louis); names and unique
prefixes are accepted when typing ("St. Louis", "okla").

First turn (STS-S10)
  route keep 1            keep the first of your two drawn standard routes (2: the other)

Market (before travelling; any number, any order)
  buy coal x2             buy coal at $3 each (at most 9 coal held)
  buy oil x2              buy a pair of oil; x4 buys two pairs. A good the city's market
                          does not sell is imported for 1 coal more per pair (coal bought
                          this turn may pay). Pairs load short when cars are full.
  discard grain           throw 1 good off to make room (when a pair no longer fits, or
                          before a supply's free goods)

Travel (STS-T3: any path along track; the first space is free, each further space costs
1 coal; the stop may not be the city the turn began in, though a path may pass it)
  travel denver           by a shortest path; written with its cost: travel denver (1 coal).
                          `moves` lists every city in reach once, at its cheapest cost
  travel salt-lake-city via portland san-francisco
                          by the path you name, longer ones too (cities may repeat): it costs
                          its own spaces (from Seattle: 3 spaces, 2 coal; the shortest is 2
                          spaces, 1 coal). Only the stop counts for routes (STS-T5)
  route take display 1    after completing a route: take display card 1 (or 2)
  route take blind        ... or the top card of the deck (it arrives with the next player)
  travel st-louis         again, when another train is in the stop city (first space free)

Station (one of)
  order                   fulfil the order here (its only reward, its only payment)
  order cash              ... taking the cash reward (or: order points, order coal)
  order cash pay oil      ... when railcars leave a choice of goods, name those you pay
  supply                  take the supply's reward
  railcar                 attach the railcar
  work coal               box the token and work: coal (2 coal), cash ($5), both (1 coal, $2)

Crew (optional, one of; then pay its tickets one move each)
  hire basic west         hire the West basic crew: 1 West ticket, or any 2 tickets
  hire skilled north      hire the North skilled crew: 1 North ticket + 1 any, or any 3
  hire basic west keep old
                          ... but keep the crew already under West (the new one is discarded)
  caboose                 take the top caboose: one ticket from each region
  pay west                discard a ticket toward the hire or caboose under way; it happens
                          as soon as the tickets paid cover the cost. Tickets: <region> (an
                          order ticket there), <region>-crew (the crew in that space), wild
                          (a completed start route; it stands for any region).
  Example (crew example B): hire skilled north, pay north-crew, pay south

Crew abilities (STS-C12, C13: once per turn, at any moment of your turn its text can still
act, not in the turn hired; an ability's effect lasts until the end of the turn it is used in)
  crew fireman                    next movement: one more free space
  crew coal-broker                buy 1 coal for $1 (at any moment of your turn)
  crew importer                   next imported pair costs no coal (market)
  crew haggler                    next pair costs $1 less (market)
  crew porter oil                 before travelling, buy 1 local good for half its pair price,
                                  rounded up
  crew teamster grain             throw 1 good off for $2
  crew loader steel               this turn's order needs 1 steel fewer (before you pay it)
  crew shunter                    station work gives $2 more (before it, or after: $2 at once)
  crew dockhand                   1 more bonus coal, once you took a token in a coastal city
  crew quartermaster              the supply gives $2 more (before it, or after: $2 at once)
  crew conductor 2 display 1      swap your unmarked standard route in slot 2 for display card 1
  crew clerk                      the basic hire costs any 1 ticket (before hiring)
  crew engineer                   next movement: two more free spaces
  crew coal-baron                 buy 2 coal for $3 (at any moment of your turn)
  crew master-importer            imports cost no coal for the rest of the turn (market)
  crew trader                     every later pair this turn costs $1 less (market)
  crew foreman cash               after the station action, also work (coal, cash, both)
  crew steward                    the order fulfilled this turn scores 2 more points (before
                                  it, or after: the points at once)
  crew stationmaster              this turn's order gives all its reward options (before it, or
                                  after: the rewards not chosen at once)
  crew cartographer               routes you complete later this turn score 2 more points
  crew surveyor denver            mark Denver (next to the train) on your route card without a
                                  marker that names it; when two such cards name it, name the
                                  one you choose by its slot: crew surveyor denver route 2
  crew ticket-agent south         one South order ticket becomes a wild ticket
  crew recruiter                  the skilled hire costs as a basic hire (before hiring)
  crew yardmaster                 the supply or railcar taken here turns gold (a supply before
                                  its reward; a railcar also once it is on your train)
  crew paymaster                  the caboose costs tickets of 3 different regions (before it)

A turn ends once the train has travelled and the station move is made; the cleanup then
draws a token onto the city the turn began in (it appears for the next player). The draw
that takes a season's last token ends the season (STS-CL2): supplies and railcars on the
map turn gold and the next season fills the bag. Once the countdown tokens (one per
player) are in, every player plays one last turn (STS-CL5).
"""


class Move(NamedTuple):
    kind: str  # keep take coal buy discard travel order supply railcar work hire caboose pay crew
    name: str = ""  # good, city, work kind, deck, crew id, reward, route source, ticket
    number: int = 0  # goods or coal bought, route position
    region: str = ""  # hire slot region
    pay: tuple[str, ...] | None = None  # goods paying an order; None: not given
    keep_old: bool = False
    arg: str = ""  # crew ability argument
    via: tuple[str, ...] = ()  # a travel move's path: the cities between here and the stop
    coal: int = -1  # a travel move's coal, as written or worked out (-1: not known)


def fmt(move: Move) -> str:
    kind = move.kind
    if kind == "keep":
        return f"route keep {move.number}"
    if kind == "take":
        return f"route take display {move.number}" if move.name == "display" else "route take blind"
    if kind == "coal":
        return f"buy coal x{move.number}"
    if kind == "buy":
        return f"buy {move.name} x{move.number}"
    if kind == "discard":
        return f"discard {move.name}"
    if kind == "travel":
        path = f" via {' '.join(move.via)}" if move.via else ""
        cost = "" if move.coal < 0 else (" (free)" if move.coal == 0 else f" ({move.coal} coal)")
        return f"travel {move.name}{path}{cost}"
    if kind == "order":
        text = "order" + (f" {move.name}" if move.name else "")
        return text + (f" pay {' '.join(move.pay) or 'nothing'}" if move.pay is not None else "")
    if kind in ("supply", "railcar"):
        return kind
    if kind == "work":
        return f"work {move.name}"
    if kind == "hire":
        return f"hire {move.name} {move.region}" + (" keep old" if move.keep_old else "")
    if kind == "caboose":
        return "caboose"
    if kind == "pay":
        return f"pay {move.name}"
    if kind == "crew":
        return f"crew {move.name}" + (f" {move.arg}" if move.arg else "")
    raise ValueError(kind)


# ---- reading names ------------------------------------------------------------------
_SEPARATORS = re.compile(r"[\s_]+")


def slugify(text: str) -> str:
    text = text.lower().replace(".", "").replace("'", "")
    return _SEPARATORS.sub("-", text.strip()).strip("-")


def _pick(word: str, options: list[str], what: str) -> str:
    """An id from its exact form or a unique prefix."""
    return one_match(slugify(word), options,
                     ambiguous=lambda hits: f"'{word}' could be the {what} {', '.join(hits[:6])}",
                     unknown=lambda: f"there is no {what} called '{word}'")


def city_ids(state: State) -> dict[str, str]:
    """slug -> id for every way of writing a city (its id and its name); the caller must
    not change it. Every move that names a city asks: worked out once on the set-up's
    Fixed map."""
    data = state["data"]

    def build() -> dict[str, str]:
        found = {}
        for cid, city in data["cities"].items():
            found[cid] = cid
            found[slugify(city["name"])] = cid
        return found

    return derived(data, "city ids", build)


def pick_city(state: State, text: str) -> str:
    names = city_ids(state)
    slug = slugify(text)
    if slug in names:  # what _pick finds first, without sorting every name
        return names[slug]
    return names[_pick(text, sorted(names), "city")]


def _cities_in(state: State, words: list[str]) -> list[str]:
    """Read a list of city names that may be several words each, longest match first."""
    names = city_ids(state)
    found = []
    i = 0
    while i < len(words):
        for j in range(len(words), i, -1):
            slug = slugify(" ".join(words[i:j]))
            if slug in names:
                found.append(names[slug])
                i = j
                break
        else:
            found.append(pick_city(state, words[i]))
            i += 1
    return found


def pick_good(state: State, word: str) -> str:
    return _pick(word, list(state["data"]["goods"]), "good")


def _count(word: str) -> int:
    word = word.removeprefix("x")
    if not word.isdigit():
        raise InvalidMoveError(f"'{word}' is not a number")
    return int(word)


def _tickets(state: State, words: list[str]) -> tuple[str, ...]:
    regions = state["data"]["regions"]
    tickets: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "wild":
            tickets.append("wild")
        elif word.endswith("-crew"):
            tickets.append(f"{_pick(word.removesuffix('-crew'), regions, 'region')}-crew")
        else:
            region = _pick(word, regions, "region")
            if i + 1 < len(words) and words[i + 1] == "crew":
                tickets.append(f"{region}-crew")
                i += 1
            else:
                tickets.append(region)
        i += 1
    if not tickets:
        raise InvalidMoveError("name the ticket you pay: 'pay west', 'pay north-crew' or 'pay wild'")
    return tuple(tickets)


# ---- parsing ------------------------------------------------------------------------
def parse(state: State, text: str) -> Move:
    words = text.lower().replace(",", " ").replace(";", " ").split()  # commas, semicolons: spaces
    if not words:
        raise InvalidMoveError("an empty move")
    head, rest = words[0], words[1:]
    if head == "route":
        return _parse_route(rest)
    if head in ("keep",):
        return _parse_route(["keep", *rest])
    if head in ("take",) and rest and rest[0] in ("display", "blind", "deck"):
        return _parse_route(["take", *rest])
    if head in ("buy", "import", "purchase"):
        return _parse_buy(state, rest)
    if head in ("discard", "drop", "throw", "dump"):
        if len(rest) != 1:
            raise InvalidMoveError("discard one good at a time: 'discard oil'")
        return Move("discard", pick_good(state, rest[0]))
    if head in ("travel", "go", "move", "to"):
        return _parse_travel(state, rest)
    if head in ("order", "fulfil", "fulfill", "deliver"):
        return _parse_order(state, rest)
    if head in ("supply", "railcar") or (head == "take" and rest in (["supply"], ["railcar"])):
        if head == "take":
            head, rest = rest[0], []
        if rest:
            raise InvalidMoveError(f"'{head}' takes nothing more")
        return Move(head)
    if head == "work":
        return Move("work", _work_kind(rest))
    if head == "hire":
        return _parse_hire(state, rest)
    if head == "caboose":
        if rest:
            raise InvalidMoveError(SEPARATE.format(head="caboose", first="north"))
        return Move("caboose")
    if head == "pay":
        if rest and all(w in state["data"]["goods"] for w in rest):
            raise InvalidMoveError(
                f"'pay' discards tickets for a crew or caboose; an order's goods are named in "
                f"the order move: 'order pay {' '.join(rest)}'")
        tickets = _tickets(state, rest)
        if len(tickets) != 1:
            raise InvalidMoveError("pay one ticket per move: 'pay west', then 'pay north-crew'")
        return Move("pay", tickets[0])
    if head in ("crew", "use"):
        return _parse_crew(state, rest)
    raise InvalidMoveError(f"unknown move '{words[0]}'; see the notation for every move form")


def _parse_route(rest: list[str]) -> Move:
    if rest[:1] == ["keep"] and len(rest) == 2:
        return Move("keep", number=_count(rest[1]))
    words = rest[1:] if rest[:1] == ["take"] else rest
    if words in (["blind"], ["deck"]):
        return Move("take", "blind")
    if len(words) == 2 and words[0] == "display":
        return Move("take", "display", number=_count(words[1]))
    raise InvalidMoveError("write 'route keep 1', 'route take display 1' or 'route take blind'")


def _parse_buy(state: State, rest: list[str]) -> Move:
    count = 0
    names = []
    for word in rest:
        if word == "x":
            continue
        if word.isdigit() or (word.startswith("x") and word[1:].isdigit()):
            count = _count(word)
        else:
            names.append(word)
    if len(names) != 1:
        raise InvalidMoveError("write 'buy coal x2' or 'buy oil x2'")
    if names[0] == "coal":
        return Move("coal", "coal", number=count or 1)
    return Move("buy", pick_good(state, names[0]), number=count or 2)


COST_SUFFIX = re.compile(r"\s*\(?\s*(?:for\s+|cost\s+|costs\s+)?(free|(\d+)\s*coal)\s*\)?\s*$")


def _parse_travel(state: State, rest: list[str]) -> Move:
    """``travel <city>``, ``travel <city> via <city> ...``, ``travel <city> <city> ...``
    (a path city by city), each with an optional cost: ``(free)``, ``(2 coal)``."""
    text = " ".join(rest)
    coal = -1
    cost = COST_SUFFIX.search(text)
    if cost and cost.start() > 0:
        coal = int(cost.group(2)) if cost.group(2) else 0
        text = text[: cost.start()]
    words = text.split()
    if words[:1] == ["to"]:
        words = words[1:]  # "travel to houston", "go to houston"
    if not words:
        raise InvalidMoveError("say where the train goes: 'travel denver'")
    if "via" in words:
        at = words.index("via")
        dest_words, via_words = words[:at], words[at + 1 :]
        if not via_words:
            raise InvalidMoveError("name the cities after 'via': 'travel denver via salt-lake-city'")
        if not dest_words:
            # "travel via houston oklahoma-city": the last city is the stop.
            path = _cities_in(state, via_words)
            return Move("travel", path[-1], via=tuple(path[:-1]), coal=coal)
        return Move("travel", pick_city(state, " ".join(dest_words)),
                    via=tuple(_cities_in(state, via_words)), coal=coal)
    try:
        return Move("travel", pick_city(state, " ".join(words)), coal=coal)
    except InvalidMoveError:
        if len(words) < 2:
            raise
        path = _cities_in(state, words)  # a path written city by city
        return Move("travel", path[-1], via=tuple(path[:-1]), coal=coal)


def _parse_order(state: State, rest: list[str]) -> Move:
    label = ""
    pay: list[str] | None = None
    for word in rest:
        if word == "pay":
            pay = []
        elif word in ("cash", "coal", "points", "point", "pts", "$"):
            label = {"point": "points", "pts": "points", "$": "cash"}.get(word, word)
        elif pay is not None and word != "nothing":
            pay.append(pick_good(state, word))
        elif word not in ("for", "take", "nothing"):
            raise InvalidMoveError("write 'order', 'order cash' or 'order points pay oil steel'")
    goods = list(state["data"]["goods"])
    return Move("order", label, pay=None if pay is None else tuple(sorted(pay, key=goods.index)))


def _work_kind(rest: list[str]) -> str:
    text = " ".join(rest).replace("$", "")
    aliases = {"coal": "coal", "2 coal": "coal", "cash": "cash", "5": "cash", "money": "cash",
               "both": "both", "mixed": "both", "mix": "both", "coal cash": "both",
               "1 coal 2": "both", "coal and cash": "both", "1 coal and 2": "both"}
    if text in aliases:
        return aliases[text]
    raise InvalidMoveError(f"work for {', '.join(WORK)}: 'work coal', 'work cash' or 'work both'")


SEPARATE = "write the tickets as moves of their own after '{head}': '{head}', 'pay {first}', ..."


def _parse_hire(state: State, rest: list[str]) -> Move:
    if len(rest) < 2 or rest[0] not in ("basic", "skilled"):
        raise InvalidMoveError("write 'hire basic <region>' or 'hire skilled <region>'")
    deck = rest[0]
    region = _pick(rest[1], state["data"]["regions"], "region")
    words = rest[2:]
    keep_old = False
    if words in (["keep", "old"], ["keep", "new"]):
        keep_old = words[-1] == "old"
        words = []
    if "pay" in words:
        raise InvalidMoveError(SEPARATE.format(head=f"hire {deck} {region}", first=region))
    if words:
        raise InvalidMoveError("write 'hire basic west' or 'hire basic west keep old'")
    return Move("hire", deck, region=region, keep_old=keep_old)


def _parse_crew(state: State, rest: list[str]) -> Move:
    if not rest:
        raise InvalidMoveError("name the crew: 'crew fireman'")
    crews = sorted(state["data"]["crews"])
    # Crew ids may be typed as several words ("coal broker"): take the longest match.
    for j in range(len(rest), 0, -1):
        slug = slugify(" ".join(rest[:j]))
        if slug in crews:
            crew, args = slug, rest[j:]
            break
    else:
        crew, args = _pick(rest[0], crews, "crew"), rest[1:]
    return Move("crew", crew, arg=" ".join(args))


def _survey_arg(state: State, words: list[str]) -> str:
    """``denver``, ``denver route 2``, ``denver 2`` (also ``slot 2``, ``card 2``):
    the city, then the route slot of the card to mark when more than one fits."""
    slot = 0
    if len(words) > 1 and words[-1].isdigit():
        slot, words = int(words[-1]), words[:-1]
        if slot not in (1, 2):
            raise InvalidMoveError("route slots are 1 and 2: 'crew surveyor denver route 2'")
        if len(words) > 1 and words[-1] in ("route", "slot", "card"):
            words = words[:-1]
    city = pick_city(state, " ".join(words))
    return f"{city} route {slot}" if slot else city


def normalize_arg(state: State, move: Move, kind: str) -> Move:
    """Read a crew ability's argument by what the ability takes."""
    arg = move.arg
    if not arg or kind in ("", "swap"):
        words = arg.split()
        if kind == "swap" and len(words) == 2 and all(w.isdigit() for w in words):
            arg = f"{words[0]} display {words[1]}"  # "crew conductor 2 1"
        return move._replace(arg=arg)
    if kind == "good":
        return move._replace(arg=pick_good(state, arg))
    if kind == "region":
        return move._replace(arg=_pick(arg, state["data"]["regions"], "region"))
    if kind == "survey":
        return move._replace(arg=_survey_arg(state, arg.split()))
    if kind == "work":
        return move._replace(arg=_work_kind(arg.split()))
    return move

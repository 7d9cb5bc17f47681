"""Component data: loading the representative TOML, validating it, indexing it.

The stock data is a plain dict as read from ``components.toml`` (stored in every save's
header). ``index`` turns it into the keyed form the rules work with; set-up stores that
form in the state, because ``apply`` and friends only ever receive the state.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from pbem.game import ComponentReader, Fixed, is_whole

from .abilities import ABILITIES
from .constants import (
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    REWARD_KEYS,
    SEASONS,
)

# The largest map coordinate a city may have (any scale below it; the picture fits it).
MAP_LIMIT = 10000

# Order sizes per season (STS-ST11, STS-ST12): (fewest goods, most goods).
# The season groups the set-up removal table thins (STS-S1: countdown tokens stand apart).
REMOVED_SEASONS = SEASONS[:3]

ORDER_SIZES = {"summer": (2, 4), "autumn": (3, 4), "winter": (5, 6), "countdown": (4, 6)}


READ = ComponentReader("Station to Station")



def reward_label(option: dict[str, int]) -> str:
    """The word that picks one reward option of an order: cash, coal or points."""
    for key in ("cash", "coal", "points"):
        if option.get(key, 0):
            return key
    return "nothing"


def validate(data: dict[str, Any]) -> None:
    """Raise ComponentError naming the first entry that cannot be used."""
    # Each check builds its message only when it fails: a header's data is checked once
    # per process, and thousands of sentences nobody reads cost more than the checks.
    READ.need(isinstance(data, dict), "the data must be a table")
    regions = READ.names(data.get("regions"), "regions")
    READ.need(len(regions) == 4 and len(set(regions)) == 4, "there must be exactly four distinct regions")

    goods: Any = data.get("goods")
    READ.need(isinstance(goods, dict) and len(goods) == 4, "there must be exactly four goods")
    for name, good in goods.items():
        READ.need(isinstance(good, dict) and is_whole(good.get("pair_price")) and good["pair_price"] > 0,
              f"good '{name}' needs a positive integer pair_price")
        READ.need(name not in REWARD_KEYS and name not in ("wild", "nothing", "coal"),
              f"good '{name}' clashes with a reserved word")

    _validate_cities(data, regions, goods)
    _validate_tokens(data, goods)
    _validate_removal(data)
    _validate_routes(data)
    _validate_crews(data)

    cabooses: Any = data.get("cabooses")
    READ.need(isinstance(cabooses, list) and cabooses and all(is_whole(c) and c > 0 for c in cabooses),
          "cabooses must be a non-empty list of positive points")
    READ.need(cabooses == sorted(cabooses, reverse=True), "cabooses must be listed from the highest down")


def _validate_cities(data: dict[str, Any], regions: list[str], goods: dict[str, Any]) -> None:
    cities: Any = data.get("cities")
    READ.need(isinstance(cities, dict) and len(cities) >= MAX_PLAYERS + 2, "cities must be a table of cities")
    for slug, city in cities.items():
        where = f"city '{slug}'"
        if not isinstance(city, dict):
            raise READ.fail(where, "must be a table")
        if not (isinstance(city.get("name"), str) and city["name"]):
            raise READ.fail(where, "needs a name")
        if city.get("region") not in regions:
            raise READ.fail(where, f"has unknown region {city.get('region')!r}")
        if not isinstance(city.get("coastal"), bool):
            raise READ.fail(where, "needs coastal = true or false")
        market = READ.names(city.get("market"), where, "market")
        if not market:
            raise READ.fail(where, "needs a local market of at least one good")
        for good in market:
            if good not in goods:
                raise READ.fail(where, f"sells unknown good '{good}'")
        track = READ.names(city.get("track"), where, "track")
        if len(set(track)) != len(track):
            raise READ.fail(where, "lists a neighbour twice")
        if len(track) < 2:
            raise READ.fail(where, f"has {len(track)} neighbour(s); every city needs at least 2")
        for other in track:
            if other == slug:
                raise READ.fail(where, "has track to itself")
            if other not in cities:
                raise READ.fail(where, f"has track to unknown city '{other}'")
            if slug not in cities[other].get("track", []):
                raise READ.fail(where, f"lists track to '{other}' but '{other}' does not list '{slug}'")
    seen = {next(iter(cities))}
    queue = deque(seen)
    while queue:
        for other in cities[queue.popleft()]["track"]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    missing = sorted(set(cities) - seen)
    READ.need(not missing, f"city '{missing[0] if missing else ''}' cannot be reached by track")
    for region in regions:
        READ.need(any(c["region"] == region for c in cities.values()), f"region '{region}' has no city")
    _validate_coordinates(cities)


def _validate_coordinates(cities: dict[str, Any]) -> None:
    """Map coordinates are optional (only the drawn board uses them), but a board is drawn
    from all of them or none, so either every city has both or no city has any."""
    placed: dict[tuple[int, int], str] = {}
    for slug, city in cities.items():
        for axis in ("x", "y"):
            if axis in city:
                value = city[axis]
                if not (is_whole(value) and 0 <= value <= MAP_LIMIT):
                    raise READ.fail(f"city '{slug}'",
                                    f"needs {axis} as a whole number from 0 to {MAP_LIMIT}")
        has = ("x" in city, "y" in city)
        if has[0] != has[1]:
            raise READ.fail(f"city '{slug}'", f"gives {'x' if has[0] else 'y'} without "
                            f"{'y' if has[0] else 'x'}")
        if has[0]:
            point = (city["x"], city["y"])
            if point in placed:
                raise READ.fail(f"city '{slug}'", f"is drawn on the same point as '{placed[point]}'")
            placed[point] = slug
    if placed and len(placed) < len(cities):
        bare = next(slug for slug, city in cities.items() if "x" not in city)
        raise READ.fail(f"city '{bare}'", "has no x and y; give map coordinates to every city or to none")


def _validate_reward(reward: Any, where: str, what: str, goods: dict[str, Any], *,
                     allow_goods: bool) -> None:
    """One reward table, ``what`` of ``where`` (``reward``, ``start face``)."""
    if not (isinstance(reward, dict) and reward):
        raise READ.fail(where, f"{what} must be a non-empty table")
    for key, value in reward.items():
        if not (key in REWARD_KEYS or (allow_goods and key in goods)):
            raise READ.fail(where, f"{what} has unknown reward '{key}'")
        if not (is_whole(value) and value > 0):
            raise READ.fail(where, f"{what} gives a non-positive '{key}'")


def _validate_tokens(data: dict[str, Any], goods: dict[str, Any]) -> None:
    tokens: Any = data.get("tokens")
    READ.need(isinstance(tokens, list) and tokens, "tokens must be a list")
    ids: set[str] = set()
    for token in tokens:
        READ.need(isinstance(token, dict) and isinstance(token.get("id"), str), "every token needs an id")
        tid = token["id"]
        where = f"token '{tid}'"
        if tid in ids:
            raise READ.fail(where, "is listed twice")
        ids.add(tid)
        season = token.get("season")
        if season not in SEASONS:
            raise READ.fail(where, f"has unknown season {season!r}")
        kind = token.get("kind")
        if kind not in KINDS:
            raise READ.fail(where, f"has unknown kind {kind!r}")
        if season == "countdown" and kind != "order":
            raise READ.fail(f"{where}:", "countdown tokens are orders")
        if season == "countdown":
            used: Any = token.get("players")
            if not (is_whole(used) and MIN_PLAYERS <= used <= MAX_PLAYERS):
                raise READ.fail(where, f"needs players, the fewest players that use it "
                                f"({MIN_PLAYERS} to {MAX_PLAYERS})")
        elif "players" in token:
            raise READ.fail(f"{where}:", "only countdown tokens name players")
        if kind == "order":
            _validate_order(token, where, season, goods)
        elif kind == "supply":
            for face in ("start", "gold"):
                _validate_reward(token.get(face), where, f"{face} face", goods, allow_goods=True)
        else:
            for face in ("start", "gold"):
                pictured = READ.names(token.get(face), where, f"{face} face")
                if not pictured:
                    raise READ.fail(where, f"{face} face pictures no good")
                for good in pictured:
                    if good not in goods:
                        raise READ.fail(where, f"{face} face pictures unknown good '{good}'")


def _validate_order(token: dict[str, Any], where: str, season: str, goods: dict[str, Any]) -> None:
    owed = READ.names(token.get("goods"), where, "goods")
    for good in owed:
        if good not in goods:
            raise READ.fail(where, f"asks for unknown good '{good}'")
    low, high = ORDER_SIZES[season]
    if not low <= len(owed) <= high:
        raise READ.fail(f"{where}:", f"a {season} order needs {low} to {high} goods, not {len(owed)}")
    if season == "countdown" and len(set(owed)) != 1:
        raise READ.fail(f"{where}:", "a countdown order asks for one type of good")
    rewards: Any = token.get("rewards")
    if not (isinstance(rewards, list) and rewards):
        raise READ.fail(where, "needs a list of rewards")
    for option in rewards:
        _validate_reward(option, where, "reward", goods, allow_goods=False)
    labels = [reward_label(o) for o in rewards]
    if len(set(labels)) != len(labels):
        raise READ.fail(f"{where}:", "its reward options must lead with different things "
                        "(cash, coal, points)")
    if season == "summer":
        if not (len(rewards) == 2 and labels[1] == "points" and "cash" in rewards[0]):
            raise READ.fail(f"{where}:", "a summer order offers cash (maybe with coal) or points")
    elif season == "autumn":
        if not (len(rewards) == 1 and len(rewards[0]) >= 2 and "points" in rewards[0]):
            raise READ.fail(f"{where}:", "an autumn order gives one combined reward with points")
    elif rewards != [{"points": rewards[0].get("points", 0)}]:
        raise READ.fail(f"{where}:", f"a {season} order gives points only")


def _validate_removal(data: dict[str, Any]) -> None:
    """STS-S1/S2: the removal table counts the season groups only; countdown tokens are
    set aside first and each names the fewest players that use it (one per player)."""
    table: Any = data.get("removal")
    READ.need(isinstance(table, list), "removal must be a list of rows, one per player count")
    counts = dict.fromkeys(SEASONS, 0)  # one pass over the tokens (their seasons are checked)
    for token in data["tokens"]:
        counts[token["season"]] += 1
    countdown = [t["players"] for t in data["tokens"] if t["season"] == "countdown"]
    rows = {row.get("players"): row for row in table if isinstance(row, dict)}
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        READ.need(players in rows, f"removal has no row for {players} players")
        row = rows[players]
        READ.need("countdown" not in row,
                  f"removal for {players} players names countdown tokens, which are never removed "
                  "at random: give each countdown token the fewest players that use it (players = 2)")
        for season in REMOVED_SEASONS:
            value: Any = row.get(season)
            READ.need(is_whole(value) and value >= 0,
                  f"removal for {players} players needs a count for {season}")
            READ.need(value < counts[season],
                  f"removal for {players} players takes all {counts[season]} {season} tokens")
        empty = len(data["cities"]) - players
        # Some tokens stay in the bag after the set-up deal (the rulebook's note), so the
        # draw that empties the summer bag, ending the season, is always a cleanup's.
        READ.need(counts["summer"] - row["summer"] > empty,
              f"removal for {players} players leaves too few summer tokens to fill {empty} cities "
              "and keep one in the bag")
        used = sum(1 for fewest in countdown if fewest <= players)
        READ.need(used == players,
                  f"a game of {players} players uses {used} countdown tokens; it needs one per "
                  "player (each countdown token's players is the fewest players that use it)")


def _validate_routes(data: dict[str, Any]) -> None:
    cities = data["cities"]
    ids: set[str] = set()

    def check(route: Any, where: str) -> list[str]:
        READ.need(isinstance(route, dict) and isinstance(route.get("id"), str), f"every {where} needs an id")
        rid = route["id"]
        named = f"route '{rid}'"
        if rid in ids:
            raise READ.fail(named, "is listed twice")
        ids.add(rid)
        pair = READ.names(route.get("cities"), named, "cities")
        if not (len(pair) == 2 and pair[0] != pair[1]):
            raise READ.fail(named, "needs two different cities")
        for city in pair:
            if city not in cities:
                raise READ.fail(named, f"names unknown city '{city}'")
        if not (is_whole(route.get("points")) and route["points"] >= 0):
            raise READ.fail(named, "needs points")
        reward = route.get("reward", {})
        if not isinstance(reward, dict):
            raise READ.fail(named, "reward must be a table")
        for key, value in reward.items():
            if key not in ("cash", "coal"):
                raise READ.fail(named, f"has unknown reward '{key}'")
            if not (is_whole(value) and value > 0):
                raise READ.fail(named, f"gives a non-positive '{key}'")
        return pair

    starts: Any = data.get("start_routes")
    READ.need(isinstance(starts, list) and len(starts) >= MAX_PLAYERS,
          f"there must be at least {MAX_PLAYERS} start routes")
    start_cities: set[str] = set()
    for route in starts:
        pair = check(route, "start route")
        start = route.get("start")
        if start not in pair:
            raise READ.fail(f"start route '{route['id']}'", "has its train icon off its two cities")
        if start in start_cities:
            raise READ.fail(f"start route '{route['id']}'", "shares its start city")
        start_cities.add(start)
    standard: Any = data.get("routes")
    READ.need(isinstance(standard, list) and len(standard) >= 2 * MAX_PLAYERS + 2,
          f"there must be at least {2 * MAX_PLAYERS + 2} standard routes")
    for route in standard:
        check(route, "route")


def _validate_crews(data: dict[str, Any]) -> None:
    crews: Any = data.get("crews")
    READ.need(isinstance(crews, list), "crews must be a list")
    ids: set[str] = set()
    for crew in crews:
        READ.need(isinstance(crew, dict) and isinstance(crew.get("id"), str), "every crew needs an id")
        cid = crew["id"]
        named = f"crew '{cid}'"
        if cid in ids:
            raise READ.fail(named, "is listed twice")
        ids.add(cid)
        if crew.get("deck") not in ("basic", "skilled"):
            raise READ.fail(named, "needs deck basic or skilled")
        if not (isinstance(crew.get("name"), str) and crew["name"]):
            raise READ.fail(named, "needs a name")
        if crew.get("ability") not in ABILITIES:
            raise READ.fail(named, f"has unknown ability {crew.get('ability')!r}")
        owner = ABILITIES[crew["ability"]].deck
        if owner != crew["deck"]:
            raise READ.fail(f"{named}:", f"ability '{crew['ability']}' is a {owner} ability")
    for deck in ("basic", "skilled"):
        count = sum(1 for c in crews if c["deck"] == deck)
        READ.need(count >= 5, f"the {deck} crew deck needs at least 5 cards (4 market slots and a spare)")


def index(data: dict[str, Any]) -> dict[str, Any]:
    """The keyed form of validated data that set-up stores in the state, every table in
    it Fixed: what ``pbem.game.fixed`` makes of it, built in one pass (copying the tables
    and then fixing them was about 6% of the game's time in a verify)."""
    return Fixed({
        "regions": list(data["regions"]),
        "goods": Fixed({g: v["pair_price"] for g, v in data["goods"].items()}),
        "cities": Fixed({slug: _frozen(city) for slug, city in data["cities"].items()}),
        "tokens": Fixed({t["id"]: _frozen(t) for t in data["tokens"]}),
        "routes": Fixed({
            **{r["id"]: _route(r, r["start"]) for r in data["start_routes"]},
            **{r["id"]: _route(r, "") for r in data["routes"]},
        }),
        "crews": Fixed({c["id"]: Fixed({"deck": c["deck"], "name": c["name"], "ability": c["ability"]})
                        for c in data["crews"]}),
        "removal": Fixed({str(row["players"]): Fixed({s: row[s] for s in REMOVED_SEASONS})
                          for row in data["removal"]}),
        "cabooses": list(data["cabooses"]),
    })


def _route(route: dict[str, Any], start: str) -> Fixed:
    # Validated: names, whole numbers and a table of whole numbers, nothing nested deeper.
    return Fixed({"cities": list(route["cities"]), "points": route["points"],
                  "reward": Fixed(route.get("reward", {})), "start": start})


_LEAVES = (str, int, bool, float)  # what pbem.game.fixed returns as it is


def _frozen(value: Any) -> Any:
    """``pbem.game.fixed(value)`` (a copy, every table in it Fixed), without a call per
    text or number: the cities and tokens are copied whole, keys the checks skip too."""
    if isinstance(value, dict):
        return Fixed({k: v if type(v) in _LEAVES else _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return [v if type(v) in _LEAVES else _frozen(v) for v in value]
    return value

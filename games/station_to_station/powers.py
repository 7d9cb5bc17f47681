"""Using crew abilities: ``crew <id> [argument]``, once per turn, not in the hiring turn.

Most abilities set a modifier in ``turn["mods"]`` that the market, travel, station and
crew rules read; a few act at once (coal, goods, markers, route swaps).
"""

from __future__ import annotations

from pbem.game import State

from .abilities import ABILITIES
from .components import reward_label
from .constants import COAL_LIMIT, WORK
from .market import is_local
from .routes import mark_if_here, top_up_display
from .state import (
    free_cars,
    gain_cash,
    gain_coal,
    load_goods,
    note,
    owed_first,
    pay_cash,
    put_sorted,
    score,
    seat_name,
    unload_goods,
)
from .words import describe_route, reward_text, route_name

PHASE_WORDS = {
    "market": "in the market phase",
    "again": "before a movement",
    "station": "in the station phase, before the station action",
    "crew": "after the station action",
    "done": "after the station action",
}
# Who may still act once the station action is taken, and on what it was.
AFTER = ("crew", "done")


def owned_crews(state: State, seat: int) -> list[str]:
    player = state["players"][seat]
    return [player["crews"][r] for r in state["data"]["regions"] if player["crews"][r]]


def ability_of(state: State, crew: str) -> str:
    return str(state["data"]["crews"][crew]["ability"])


def porter_price(state: State, good: str) -> int:
    return int(-(-state["data"]["goods"][good] // 2))


def check_power(state: State, seat: int, crew: str, arg: str) -> str:
    turn = state["turn"]
    if crew not in state["data"]["crews"]:
        return f"there is no crew called '{crew}'"
    if crew not in owned_crews(state, seat):
        return f"you have not hired the {crew}"
    if crew == turn["hired"]:
        return f"the {crew} was hired this turn and works from your next turn"
    if crew in turn["used"]:
        return f"the {crew} has already been used this turn"
    key = ability_of(state, crew)
    ability = ABILITIES[key]
    if turn["phase"] not in ability.phases:
        if owed_first(state):
            return owed_first(state)
        words = list(dict.fromkeys(PHASE_WORDS[p] for p in ability.phases if p in PHASE_WORDS))
        when = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
        if ability.phases == AFTER:
            when = "after the station action"
        elif "crew" in ability.phases and "done" not in ability.phases:
            return f"the {crew} is used before hiring or taking a caboose, and this turn's is taken"
        return f"the {crew} is used {when}"
    return _check_specific(state, seat, key, arg)


def _check_specific(state: State, seat: int, key: str, arg: str) -> str:
    """The ability's own conditions (phase and ownership are already checked)."""
    player = state["players"][seat]
    turn = state["turn"]
    data = state["data"]
    ability = ABILITIES[key]
    if ability.arg == "" and arg:
        return f"the {key} takes no argument"
    if ability.arg == "good" and arg not in data["goods"]:
        return f"name a good for the {key}: {', '.join(data['goods'])}"
    if ability.arg == "region" and arg not in data["regions"]:
        return f"name a region for the {key}: {', '.join(data['regions'])}"
    if ability.arg == "work" and arg not in WORK:
        return f"the {key} works for coal, cash or both"
    token = data["tokens"][turn["token"]] if turn["token"] else None
    after = turn["phase"] in AFTER
    if after:
        reason = _check_after(state, seat, key)
        if reason != "go on":
            return reason
    if key == "coal-broker":
        if player["cash"] < 1 or player["coal"] + 1 > COAL_LIMIT:
            return "the coal broker needs $1 and room for 1 coal"
    elif key == "coal-baron":
        if player["cash"] < 3 or player["coal"] + 2 > COAL_LIMIT:
            return "the coal baron needs $3 and room for 2 coal"
    elif key == "porter":
        if not is_local(state, arg):
            return f"the porter buys only goods of the local market, and {arg} is not one"
        if free_cars(player) < 1:
            return "your freight cars are full"
        if player["cash"] < porter_price(state, arg):
            return f"a single {arg} costs ${porter_price(state, arg)}"
    elif key == "teamster":
        if player["goods"][arg] < 1:
            return f"your train carries no {arg}"
    elif key == "loader" and turn["phase"] == "station":
        if token is None or token["kind"] != "order" or arg not in token["goods"]:
            return f"the loader needs an order here that asks for {arg}"
    elif key == "dockhand":
        if not turn["took"] or not data["cities"][player["city"]]["coastal"]:
            return "the dockhand works only after taking a token in a coastal city"
    elif key == "quartermaster" and turn["phase"] == "station":
        if token is None or token["kind"] != "supply":
            return "the quartermaster needs a supply token here"
    elif key == "stationmaster" and turn["phase"] == "station":
        if token is None or token["kind"] != "order" or len(token["rewards"]) < 2:
            return "the stationmaster needs an order here with a choice of rewards"
    elif key == "yardmaster" and turn["phase"] == "station":
        if token is None or token["kind"] == "order" or turn["gold"]:
            return "the yardmaster turns a supply or railcar showing its starting face"
    elif key == "conductor":
        return _check_swap(state, seat, arg)
    elif key == "surveyor":
        return _check_survey(state, seat, arg)
    elif key == "ticket-agent" and not player["tickets"][arg]:
        return f"you have no order ticket under {arg}"
    return ""


def _check_after(state: State, seat: int, key: str) -> str:
    """After the station action, an ability about that action acts on what it was;
    "go on" for the abilities this does not concern."""
    did = state["turn"]["did"]
    tokens = state["data"]["tokens"]
    if key == "steward" and did["action"] != "order":
        return "the steward adds points to an order, and you fulfilled none this turn"
    if key == "stationmaster":
        if did["action"] != "order" or len(tokens[did["token"]]["rewards"]) < 2 or not did["label"]:
            return "the stationmaster adds the other rewards of an order fulfilled this turn, and " \
                   "you fulfilled none with a choice of rewards"
        return ""
    if key == "quartermaster" and did["action"] != "supply":
        return "the quartermaster adds $2 to a supply, and you took none this turn"
    if key == "shunter" and did["action"] != "work":
        return "the shunter adds $2 to work at the station, and you did not work this turn"
    if key == "yardmaster":
        if did["action"] == "supply":
            return "the supply you took has given its reward and is boxed: use the yardmaster " \
                   "before taking a supply"
        if did["action"] != "railcar" or did["gold"]:
            return "the yardmaster turns a supply or railcar you took this turn, showing its " \
                   "starting face, and you took none"
        return ""
    return "go on"


def parse_swap(arg: str) -> tuple[int, int]:
    """``<slot> display <n>`` -> (slot, n); (0, 0) when malformed."""
    parts = arg.split()
    if len(parts) == 3 and parts[1] == "display" and parts[0].isdigit() and parts[2].isdigit():
        return int(parts[0]), int(parts[2])
    return 0, 0


def _check_swap(state: State, seat: int, arg: str) -> str:
    slot, position = parse_swap(arg)
    if not slot:
        return "say which route slot and display card: crew conductor 2 display 1"
    player = state["players"][seat]
    if slot not in (1, 2):
        return "route slots are 1 and 2"
    entry = player["routes"][slot - 1]
    if not entry["card"] or state["data"]["routes"][entry["card"]]["start"]:
        return f"route slot {slot} holds no standard route card"
    if entry["marker"]:
        return f"the route card in slot {slot} already has a marker"
    if not 1 <= position <= len(state["routes"]["display"]):
        return f"the route display has {len(state['routes']['display'])} card(s)"
    return ""


def parse_survey(arg: str) -> tuple[str, int]:
    """``<city>`` or ``<city> route <slot>`` -> (city, slot); slot 0 when not named."""
    city, _, slot = arg.partition(" route ")
    return city, int(slot) if slot.isdigit() else 0


def survey_slots(state: State, seat: int, city: str) -> list[int]:
    """The route slots (1, 2) whose card names ``city`` and has no marker yet."""
    player = state["players"][seat]
    routes = state["data"]["routes"]
    return [slot for slot, entry in enumerate(player["routes"], 1)
            if entry["card"] and not entry["marker"] and city in routes[entry["card"]]["cities"]]


def survey_choices(state: State, seat: int, city: str) -> list[str]:
    """The surveyor's arguments for ``city``: the city alone when one card fits, else
    the city with each fitting card's slot (the player chooses the card)."""
    slots = survey_slots(state, seat, city)
    return [city] if len(slots) < 2 else [f"{city} route {slot}" for slot in slots]


def _check_survey(state: State, seat: int, arg: str) -> str:
    player = state["players"][seat]
    data = state["data"]
    city, slot = parse_survey(arg)
    if city not in data["cities"]:
        return f"there is no city called '{city}'"
    if city not in data["cities"][player["city"]]["track"]:
        return "the surveyor marks a city next to your train"
    slots = survey_slots(state, seat, city)
    name = data["cities"][city]["name"]
    if not slots:
        return f"none of your route cards without a marker names {name}"
    if slot and slot not in slots:
        entry = player["routes"][slot - 1] if slot in (1, 2) else None
        if entry is None:
            return "route slots are 1 and 2"
        if entry["card"] and entry["marker"]:
            return f"the route card in slot {slot} already has a marker"
        return f"the route card in slot {slot} does not name {name}"
    if not slot and len(slots) > 1:
        shown = " or ".join(f"'crew surveyor {city} route {s}'" for s in slots)
        return f"{name} is on more than one of your route cards without a marker: write {shown}"
    return ""


def use_power(state: State, seat: int, crew: str, arg: str) -> None:
    player = state["players"][seat]
    turn = state["turn"]
    mods = turn["mods"]
    key = ability_of(state, crew)
    turn["used"].append(crew)
    after = turn["phase"] in AFTER
    if key == "surveyor":
        city, slot = parse_survey(arg)  # the one card that fits, when the move names none
        arg = f"{city} route {slot or survey_slots(state, seat, city)[0]}"
    if key == "fireman":
        mods["free_spaces"] += 1
    elif key == "engineer":
        mods["free_spaces"] += 2
    elif key == "coal-broker":
        pay_cash(player, 1)
        gain_coal(player, 1)
    elif key == "coal-baron":
        pay_cash(player, 3)
        gain_coal(player, 2)
    elif key == "importer":
        mods["import_free"] += 1
    elif key == "master-importer":
        mods["import_free_all"] = True
    elif key == "haggler":
        mods["pair_discount"] += 1
    elif key == "trader":
        mods["pair_discount_all"] = True
    elif key == "porter":
        pay_cash(player, porter_price(state, arg))
        load_goods(player, arg, 1)
    elif key == "teamster":
        unload_goods(player, arg, 1)
        gain_cash(player, 2)
    elif key == "loader":
        mods["order_discount"].append(arg)
    elif key == "shunter":
        if after:
            gain_cash(player, 2)  # the work is done: its $2 more come at once
        else:
            mods["work_cash"] += 2
    elif key == "dockhand":
        gain_coal(player, 1)
    elif key == "quartermaster":
        if after:
            gain_cash(player, 2)
        else:
            mods["supply_cash"] += 2
    elif key == "conductor":
        _swap(state, seat, arg)
    elif key == "clerk":
        mods["basic_any_one"] = True
    elif key == "recruiter":
        mods["skilled_as_basic"] = True
    elif key == "paymaster":
        mods["caboose_three"] = True
    elif key == "steward":
        if after:
            score(player, "orders", 2)
        else:
            mods["order_points"] += 2
    elif key == "stationmaster":
        if after:
            _other_rewards(state, seat)
        else:
            mods["order_all"] = True
    elif key == "cartographer":
        mods["route_points"] += 2
    elif key == "surveyor":
        _survey(state, seat, arg)
    elif key == "ticket-agent":
        player["wilds"].append(player["tickets"][arg].pop())
    elif key == "yardmaster":
        if after:
            car = next(c for c in player["railcars"] if c["id"] == turn["did"]["token"])
            car["gold"] = True  # the railcar taken this turn, on the train now
        else:
            turn["gold"] = True
    elif key == "foreman":
        coal, cash = WORK[arg]
        gain_coal(player, coal)
        gain_cash(player, cash)
    words = AFTER_EFFECTS.get(key, "") if after else ""
    words = words or _effect_words(state, seat, key, arg)
    note(state, f"{seat_name(state, seat)} used the {crew}: {words}")


def _other_rewards(state: State, seat: int) -> None:
    """The Stationmaster after the order: its reward options not chosen, at once."""
    player = state["players"][seat]
    did = state["turn"]["did"]
    for option in state["data"]["tokens"][did["token"]]["rewards"]:
        if reward_label(option) != did["label"]:
            gain_cash(player, option.get("cash", 0))
            gain_coal(player, option.get("coal", 0))
            score(player, "orders", option.get("points", 0))


EFFECTS = {
    "fireman": "the next movement has one more free space",
    "engineer": "the next movement has two more free spaces",
    "coal-broker": "bought 1 coal for $1",
    "coal-baron": "bought 2 coal for $3",
    "importer": "the next imported pair costs no coal",
    "master-importer": "imports cost no coal for the rest of the turn",
    "haggler": "the next pair costs $1 less",
    "trader": "every later pair this turn costs $1 less",
    "porter": "bought 1 {arg}",
    "teamster": "threw 1 {arg} off the train for $2",
    "loader": "the order this turn needs 1 {arg} fewer",
    "shunter": "work this turn gives $2 more",
    "dockhand": "1 more bonus coal",
    "quartermaster": "the supply gives $2 more",
    "conductor": "swapped a route card for one of the display",
    "clerk": "the basic hire this turn costs any 1 ticket",
    "recruiter": "the skilled hire this turn costs as a basic hire",
    "paymaster": "the caboose this turn costs tickets of 3 regions",
    "steward": "the order this turn scores 2 more points",
    "stationmaster": "the order here gives all its reward options",
    "cartographer": "routes completed later this turn score 2 more points",
    "surveyor": "marked {arg} on a route card",
    "ticket-agent": "one {arg} order ticket became a wild ticket",
    "yardmaster": "the token taken here turned to its gold face",
    "foreman": "also worked for {arg}",
}


# Used after the station action, these act on it at once.
AFTER_EFFECTS = {
    "shunter": "$2 more for the work at the station",
    "quartermaster": "$2 more for the supply taken",
    "steward": "2 more points for the order fulfilled",
    "yardmaster": "the railcar taken here turned to its gold face",
}


def _effect_words(state: State, seat: int, key: str, arg: str) -> str:
    if key == "porter":
        return f"bought 1 {arg} for ${porter_price(state, arg)}"
    if key == "foreman":
        coal, cash = WORK[arg]
        return f"also worked for {reward_text({'cash': cash, 'coal': coal})}"
    if key == "stationmaster" and state["turn"]["phase"] in AFTER:
        did = state["turn"]["did"]
        others = [reward_text(o) for o in state["data"]["tokens"][did["token"]]["rewards"]
                  if reward_label(o) != did["label"]]
        return f"also took the order's other rewards: {' and '.join(others)}"
    if key == "stationmaster" and state["turn"]["phase"] in AFTER:
        did = state["turn"]["did"]
        others = [reward_text(o) for o in state["data"]["tokens"][did["token"]]["rewards"]
                  if reward_label(o) != did["label"]]
        return f"also took the order's other rewards: {' and '.join(others)}"
    if key == "surveyor":
        city, slot = parse_survey(arg)
        card = state["players"][seat]["routes"][slot - 1]["card"]
        return f"marked {state['data']['cities'][city]['name']} on route {route_name(state['data'], card)}"
    return EFFECTS.get(key, key).format(arg=arg)


def _swap(state: State, seat: int, arg: str) -> None:
    slot, position = parse_swap(arg)
    player = state["players"][seat]
    old = player["routes"][slot - 1]["card"]
    put_sorted(state["routes"]["discards"], old)
    card = state["routes"]["display"].pop(position - 1)
    note(state, f"{seat_name(state, seat)} discarded route {route_name(state['data'], old)} face up "
                f"and took {describe_route(state['data'], card)} from the display")
    player["routes"][slot - 1] = {"card": card, "marker": "", "pending": False}
    mark_if_here(state, player, slot - 1)
    top_up_display(state)


def _survey(state: State, seat: int, arg: str) -> None:
    city, slot = parse_survey(arg)  # the slot is named by now (use_power)
    state["players"][seat]["routes"][slot - 1]["marker"] = city


def power_args(state: State, seat: int, crew: str) -> list[str]:
    """Every argument worth trying for ``crew`` now (each is then checked)."""
    kind = ABILITIES[ability_of(state, crew)].arg
    data = state["data"]
    if kind == "good":
        return list(data["goods"])
    if kind == "region":
        return list(data["regions"])
    if kind == "work":
        return list(WORK)
    if kind == "survey":
        return [choice for city in sorted(data["cities"][state["players"][seat]["city"]]["track"])
                for choice in survey_choices(state, seat, city)]
    if kind == "swap":
        return [f"{slot} display {n}" for slot in (1, 2)
                for n in range(1, len(state["routes"]["display"]) + 1)]
    return [""]

"""Views and the plain-text picture of one.

Everything in Station to Station is public (the bag and decks are drawn face up), so
every seat's view is the public state plus who is looking (and a few facts worked out
from it).
"""

from __future__ import annotations

import textwrap
from typing import Any

from pbem.game import State, ended_line, waiting_line

from .abilities import ABILITIES
from .constants import FREIGHT_CARS, SEASONS
from .scoring import final_breakdown
from .travel import cheapest_costs
from .words import crew_text, describe_route, describe_token, pending_lines

__all__ = ["describe_route", "describe_token", "render", "view"]

WIDTH = 100  # text lines are wrapped at this width
RECENT = 10  # recent events shown


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The public state (nothing is secret) and who is looking, plus facts worked out
    from it for people: each train's reach, the later seasons' token counts, the text
    of every crew in sight. A new top-level dict that shares the state's inner values,
    which readers must not change."""
    shown = dict(state)
    shown["viewer"] = -1 if seat is None else seat
    if state.get("data"):
        shown["reach"] = [reach(state, s) for s in range(len(state["players"]))]
        shown["seasons_ahead"] = seasons_ahead(state)
        shown["crew_text"] = {crew: crew_text(state["data"], crew) for crew in _crews_in_sight(state)}
    return shown


def reach(state: State, seat: int) -> dict[str, int]:
    """Coal for the cheapest movement from the seat's train to every city it can afford:
    for the seat travelling now with this turn's crew bonuses and without the city the
    turn began in; for any other seat as its next turn would begin (STS-T3, T4)."""
    coal = state["players"][seat]["coal"]
    return {city: cost for city, cost in cheapest_costs(state, seat).items() if cost <= coal}


def seasons_ahead(state: State) -> dict[str, int]:
    """How many tokens each later season will put in the bag (its removal already made)."""
    return {season: len(state["waiting"][season]) - state["removal"].get(season, 0)
            for season in SEASONS if season in state.get("waiting", {})}


def _crews_in_sight(state: State) -> list[str]:
    found = []
    for deck in ("basic", "skilled"):
        found += [c for c in state["crews"][deck]["market"].values() if c]
    for player in state["players"]:
        found += [c for c in player["crews"].values() if c]
    return sorted(set(found))


def _name(shown: dict[str, Any], seat: int) -> str:
    seats = shown.get("seats") or []
    return str(seats[seat]) if 0 <= seat < len(seats) else f"seat {seat}"


def render(shown: dict[str, Any]) -> str:
    out: list[str] = []
    turn = shown.get("turn") or {}
    season = shown["season"]
    ahead = seasons_ahead(shown)
    later = ", ".join(f"{s} {n}" for s, n in ahead.items()) or "nothing"
    out.append(f"STATION TO STATION  turn {shown['turns'] + 1}  season {season}"
               f"  (bag: {shown['bag_left']} tokens to come; later seasons' tokens: {later})")
    if shown.get("over"):
        out.append("The game is over.")
    elif waiting_line(shown):  # over, or an absence vote due: nobody simply to act
        out.append(waiting_line(shown))
    elif not shown.get("ready"):
        out.append("Waiting for the set-up deal.")
    else:
        last = "  ** LAST ROUND: countdown tokens are in the bag **" if shown.get("final_round") else ""
        out.append(f"To act: {_name(shown, shown['current'])}  phase: {turn.get('phase', '')}{last}")
    pending = pending_lines(shown)
    if pending:
        # A vote owed next resolves nothing (its entry carries no beacon link).
        when = ("resolved by the next entry in the order of play; a vote resolves nothing"
                if shown.get("vote") else "resolved before the next turn")
        out.append(f"Pending ({when}): " + "; ".join(pending))
    out.append("")
    out += _map(shown)
    out.append("")
    out += _tables(shown)
    out.append("")
    for seat in range(len(shown["players"])):
        out += _player(shown, seat)
    notes = shown.get("notes") or []
    if notes:
        out.append("")
        out.append("Recent events (newest last):")
        out += _wrapped(notes[-RECENT:], "  ")
    return "\n".join(out)


def _wrapped(lines: list[str], indent: str) -> list[str]:
    out = []
    for line in lines:
        out += textwrap.wrap(line, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")
    return out


def _map(shown: dict[str, Any]) -> list[str]:
    data = shown["data"]
    trains: dict[str, list[str]] = {}  # two while a train must move on from a taken city
    for seat, player in enumerate(shown["players"]):
        if player["city"]:
            trains.setdefault(player["city"], []).append(_name(shown, seat))
    width = max(len(c["name"]) for c in data["cities"].values()) + 2
    out = ["MAP  (~ coastal: +1 coal; [market goods]; neighbours)"]
    for region in data["regions"]:
        out.append(f" {region.upper()}")
        for cid, city in data["cities"].items():
            if city["region"] != region:
                continue
            spot = shown["map"][cid]
            if cid in trains:
                what = ("TRAIN " if len(trains[cid]) == 1 else "TRAINS ") + " and ".join(trains[cid])
            elif spot["token"]:
                what = describe_token(data, spot["token"], spot["gold"])
            else:
                what = "(empty)"
            name = city["name"] + (" ~" if city["coastal"] else "")
            market = "/".join(city["market"])
            out.append(f"  {name:<{width}} [{market:<18}] {what:<44} -> {', '.join(city['track'])}")
    return out


def _tables(shown: dict[str, Any]) -> list[str]:
    data = shown["data"]
    routes = shown["routes"]
    display = "   ".join(f"{i}) {describe_route(data, r)}" for i, r in enumerate(routes["display"], 1))
    out = [f"Route display: {display or '(empty)'}",
           f"Route deck {len(routes['deck'])}, discards {len(routes['discards'])}"
           + (" (face up):" if routes["discards"] else "")]
    if routes["discards"]:
        out += _wrapped(["; ".join(describe_route(data, r) for r in routes["discards"])], "  ")
    out += [
           "Goods (pair price): " + ", ".join(f"{g} ${p}" for g, p in data["goods"].items())]
    out.append("Crew market:")
    for deck in ("basic", "skilled"):
        stock = shown["crews"][deck]
        out.append(f"  {deck:<8} deck {len(stock['deck'])}, discards {len(stock['discards'])}")
        for region in data["regions"]:
            crew = stock["market"][region]
            text = f"{crew}: {ABILITIES[data['crews'][crew]['ability']].text}" if crew else "(empty)"
            out.append(f"    {region:<6} {text}")
    cabooses = " ".join(str(c) for c in shown["cabooses"]) or "none left"
    out.append(f"Cabooses (top first): {cabooses}")
    boxed = boxed_lines(shown)
    if boxed:
        out.append(f"Boxed at stops this season ({len(boxed)}):")
        out += _wrapped(["; ".join(boxed)], "  ")
    return out


def boxed_lines(shown: dict[str, Any]) -> list[str]:
    """The tokens boxed at stops this season, each with its city and who boxed it
    ("Memphis: order ... (bob)"): face up at the table, so the picture gives them too."""
    data = shown["data"]
    return [f"{data['cities'][b['city']]['name']}: {describe_token(data, b['token'], b['gold'])}"
            f" ({_name(shown, b['seat'])})" for b in shown.get("boxed") or []]


def _reach_line(shown: dict[str, Any], seat: int, costs: dict[str, int]) -> str:
    """``travel from Dallas (2 coal): free: Houston, ...; 1 coal: ...``"""
    data = shown["data"]
    player = shown["players"][seat]
    turn = shown.get("turn") or {}
    now = turn.get("seat") == seat and turn.get("phase") in ("choose", "market", "again")
    groups: dict[int, list[str]] = {}
    for city, coal in costs.items():
        groups.setdefault(coal, []).append(data["cities"][city]["name"])
    listed = "; ".join(f"{'free' if coal == 0 else f'{coal} coal'}: {', '.join(names)}"
                       for coal, names in sorted(groups.items()))
    when = "now" if now else "next turn"
    return (f"travel {when} from {data['cities'][player['city']]['name']} with {player['coal']} coal "
            f"(cheapest paths; a longer one: travel CITY via CITY ...): {listed or 'nowhere'}")


def _player(shown: dict[str, Any], seat: int) -> list[str]:
    data = shown["data"]
    player = shown["players"][seat]
    turn = shown.get("turn") or {}
    marks = []
    if seat == shown.get("first"):
        marks.append("first player")
    if seat == shown.get("viewer"):
        marks.append("you")
    if seat == shown.get("current") and not shown.get("over") and not waiting_line(shown):
        marks.append("to act")
    head = f"{_name(shown, seat)}{' (' + ', '.join(marks) + ')' if marks else ''}"
    city = data["cities"][player["city"]]["name"] if player["city"] else "-"
    parts = final_breakdown(player)
    out = [f"{head}: ${player['cash']}  coal {player['coal']}  points {player['points']}"
           f"  (now worth {sum(parts.values())} with coal and cash)  at {city}"]
    goods = ", ".join(f"{g} {n}" for g, n in player["goods"].items() if n) or "none"
    out.append(f"  goods: {goods} ({sum(player['goods'].values())}/{FREIGHT_CARS} cars)")
    cars = ", ".join(describe_token(data, c["id"], c["gold"]).removeprefix("railcar ")
                     for c in player["railcars"]) or "none"
    out.append(f"  railcars: {cars}" + (f"; caboose {player['caboose']}" if player["caboose"] else ""))
    for slot, entry in enumerate(player["routes"], 1):
        if entry["pending"]:
            text = "(blind card arriving)"
        elif entry["card"]:
            marker = data["cities"][entry["marker"]]["name"] if entry["marker"] else "none"
            text = f"{describe_route(data, entry['card'])}  marker: {marker}"
        else:
            text = "(empty)"
        out.append(f"  route {slot}: {text}")
    for i, rid in enumerate(player["choice"], 1):
        out.append(f"  to choose {i}: {describe_route(data, rid)}")
    tickets = ", ".join(f"{r} {len(player['tickets'][r])}" for r in data["regions"])
    out.append(f"  tickets: {tickets}, wild {len(player['wilds'])}")
    crews = []
    for region in data["regions"]:
        crew = player["crews"][region]
        if crew:
            state_word = ""
            if turn.get("seat") == seat and crew in turn.get("used", []):
                state_word = " (used)"
            if turn.get("seat") == seat and crew == turn.get("hired"):
                state_word = " (new)"
            crews.append(f"{region}: {crew}{state_word}")
    out.append(f"  crews: {', '.join(crews) or 'none'}")
    out += _wrapped([f"{player['crews'][r]}: {crew_text(data, player['crews'][r])}"
                     for r in data["regions"] if player["crews"][r]], "    ")
    costs = (shown.get("reach") or [{}] * (seat + 1))[seat]
    # No travel to offer once play is over, by the rules or ended by the engine.
    if player["city"] and (seat == shown.get("viewer") or seat == shown.get("current")) \
            and not shown.get("over") and not ended_line(shown):
        out += _wrapped([_reach_line(shown, seat, costs)], "  ")
    if turn.get("seat") == seat and turn.get("token"):
        out.append(f"  token in hand: {describe_token(data, turn['token'], turn['gold'])}")
    job = turn.get("job") if turn.get("seat") == seat else None
    if job:
        what = "the caboose" if job["kind"] == "caboose" else f"the {job['deck']} {job['region']} crew"
        out.append(f"  paying for {what}: paid {' '.join(job['paid']) or 'nothing yet'}")
    return out

"""Components in words: tokens, route cards, rewards and crews, as the text view, the
event notes and ``describe`` write them (one wording everywhere)."""

from __future__ import annotations

from typing import Any

from pbem.game import derived

from .abilities import ABILITIES

# The words for a token, a route card or a reward read only the set-up's Fixed tables, so
# each is worked out once per table (``derived``) however often the notes repeat it.


def article(word: str) -> str:
    """``an order``, ``a supply``."""
    return f"an {word}" if word[:1] in ("a", "e", "i", "o", "u") else f"a {word}"


def reward_text(option: dict[str, int]) -> str:
    """``$8+1 coal``, ``5 pts``, ``2 oil``: one reward option or supply face."""
    return derived(option, "words", lambda: _reward_words(option))


def _reward_words(option: dict[str, int]) -> str:
    parts = []
    if option.get("cash"):
        parts.append(f"${option['cash']}")
    if option.get("coal"):
        parts.append(f"{option['coal']} coal")
    if option.get("points"):
        parts.append(f"{option['points']} pts")
    parts += [f"{v} {k}" for k, v in option.items() if k not in ("cash", "coal", "points") and v]
    return "+".join(parts)


def describe_token(data: dict[str, Any], tid: str, gold: bool) -> str:
    token = data["tokens"][tid]
    return derived(token, "gold words" if gold else "words", lambda: _token_words(token, gold))


def _token_words(token: dict[str, Any], gold: bool) -> str:
    if token["kind"] == "order":
        rewards = " or ".join(reward_text(o) for o in token["rewards"])
        return f"order {'+'.join(token['goods'])} -> {rewards}"
    face = token["gold" if gold else "start"]
    mark = " (gold)" if gold else ""
    if token["kind"] == "supply":
        return f"supply {reward_text(face)}{mark}"
    return f"railcar {'/'.join(face)}{mark}"


def describe_route(data: dict[str, Any], rid: str) -> str:
    route = data["routes"][rid]
    return derived(route, "words", lambda: _route_words(data, route))


def _route_words(data: dict[str, Any], route: dict[str, Any]) -> str:
    a, b = (data["cities"][c]["name"] for c in route["cities"])
    reward = reward_text(route["reward"])
    tag = " [start]" if route["start"] else ""
    return f"{a} - {b}: {route['points']} pts{' +' + reward if reward else ''}{tag}"


def route_name(data: dict[str, Any], rid: str) -> str:
    a, b = (data["cities"][c]["name"] for c in data["routes"][rid]["cities"])
    return f"{a} - {b}"


def crew_text(data: dict[str, Any], crew: str) -> str:
    """The ability text a crew card carries."""
    return ABILITIES[data["crews"][crew]["ability"]].text


def seat_called(state: dict[str, Any], seat: int) -> str:
    seats = state.get("seats") or []
    return str(seats[seat]) if 0 <= seat < len(seats) else f"seat {seat}"


def pending_lines(state: dict[str, Any]) -> list[str]:
    """Chance waiting for the next player's beacon, one phrase per request."""
    data = state["data"]
    lines = []
    for request in state.get("pending", []):
        kind = request.get("kind")
        if kind == "token":
            lines.append(f"token draw onto {data['cities'][request['city']]['name']}")
        elif kind == "route-blind":
            lines.append(f"{seat_called(state, request['seat'])}'s blind route card")
        elif kind == "route-display":
            lines.append("route display refill")
        elif kind == "crew":
            lines.append(f"{request['deck']} crew for the {request['region']} slot")
        elif kind == "setup":
            lines.append("set-up deal")
    return lines

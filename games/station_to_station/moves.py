"""Moves: completing parsed moves with the state, applying them, listing legal ones.

Each move kind has one check (the reason it is illegal, "" when legal) shared by
``apply_move`` and ``legal_moves``, so the list and the rules cannot drift apart.
"""

from __future__ import annotations

from pbem.game import AmbiguousMoveError, IllegalMoveError, State

from . import crew, market, powers, routes, station, travel
from .abilities import ABILITIES
from .constants import COAL_LIMIT, WORK
from .notation import Move, fmt, normalize_arg
from .state import free_cars


def complete(state: State, seat: int, move: Move) -> Move:
    """Fill in what the player may leave out when only one choice fits; drop what the
    canonical form leaves out (an order payment with no choice)."""
    if move.kind == "travel" and move.via[:1] == (state["players"][seat]["city"],):
        move = move._replace(via=move.via[1:])  # a path written from the train's own city
    if move.kind == "travel" and move.coal < 0:
        spaces = travel.path_spaces(state, seat, move.name, move.via)
        return move._replace(coal=travel.coal_for(state, spaces)) if spaces > 0 else move
    if move.kind == "order" and _order_ready(state):
        return _complete_order(state, seat, move)
    if move.kind == "crew" and move.name in state["data"]["crews"]:
        kind = ABILITIES[state["data"]["crews"][move.name]["ability"]].arg
        move = normalize_arg(state, move, kind)
        return _complete_survey(state, seat, move) if kind == "survey" else move
    return move


def _complete_survey(state: State, seat: int, move: Move) -> Move:
    """The Surveyor names the card only when more than one fits: a slot that is the only
    choice is dropped; none named where two fit is ambiguous (when otherwise legal)."""
    city, slot = powers.parse_survey(move.arg)
    slots = powers.survey_slots(state, seat, city)
    if slot and slots == [slot]:
        return move._replace(arg=city)
    if not slot and len(slots) > 1 and not check(state, seat, move._replace(arg=f"{city} route {slots[0]}")):
        shown = " or ".join(f"'{fmt(move._replace(arg=f'{city} route {s}'))}'" for s in slots)
        raise AmbiguousMoveError(f"more than one of your route cards without a marker names "
                                 f"{state['data']['cities'][city]['name']}: write {shown}")
    return move


def _order_ready(state: State) -> bool:
    token = station.held_token(state)
    return state["turn"].get("phase") == "station" and token is not None and token["kind"] == "order"


def _complete_order(state: State, seat: int, move: Move) -> Move:
    labels = station.reward_labels(state)
    label = move.name
    if labels == [""]:
        label = ""
    elif not label:
        raise AmbiguousMoveError(f"choose the order's reward: {' or '.join('order ' + x for x in labels)}")
    payments = station.order_payments(state, seat)
    pay = move.pay
    if len(payments) == 1:
        if pay is not None and pay != payments[0]:
            raise IllegalMoveError(f"this order is paid with {' '.join(payments[0]) or 'nothing'}")
        pay = None
    elif pay is None:
        player = state["players"][seat]
        affordable = [p for p in payments if station.can_pay(player, p)] or payments[:1]
        if len(affordable) > 1:
            shown = " or ".join(f"'{fmt(move._replace(name=label, pay=p))}'" for p in affordable)
            raise AmbiguousMoveError(f"railcars leave a choice of goods to pay; write {shown}")
        pay = affordable[0]  # with none affordable, apply says the goods are lacking
    return move._replace(name=label, pay=pay)


# ---- applying -----------------------------------------------------------------------
def check(state: State, seat: int, move: Move) -> str:
    kind = move.kind
    if kind == "keep":
        return routes.check_keep(state, seat, move.number)
    if kind == "take":
        return travel.check_route_take(state, seat, move.name, move.number)
    if kind == "coal":
        return market.check_buy_coal(state, seat, move.number)
    if kind == "buy":
        return market.check_buy_goods(state, seat, move.name, move.number)
    if kind == "discard":
        return market.check_discard(state, seat, move.name)
    if kind == "travel":
        return travel.check_travel(state, seat, move.name, move.via, move.coal)
    if kind == "order":
        return station.check_order(state, seat, move.name, move.pay)
    if kind == "supply":
        return station.check_supply(state, seat)
    if kind == "railcar":
        return station.check_railcar(state, seat)
    if kind == "work":
        return station.check_work(state, seat, move.name)
    if kind == "hire":
        return crew.check_hire(state, seat, move.name, move.region, move.keep_old)
    if kind == "caboose":
        return crew.check_caboose(state, seat)
    if kind == "pay":
        return crew.check_pay(state, seat, move.name)
    if kind == "crew":
        return powers.check_power(state, seat, move.name, move.arg)
    return f"unknown move {kind}"


def _order_payment(state: State, seat: int, move: Move) -> tuple[str, ...]:
    """The goods a checked order move pays: as named, else its only payment."""
    if move.pay is not None:
        return move.pay
    if _order_ready(state):
        payments = station.order_payments(state, seat)
        if len(payments) == 1:
            return payments[0]
    return ("?",)  # no payment named where one must be: check_order says which


def apply_move(state: State, seat: int, move: Move) -> None:
    reason = check(state, seat, move)
    if reason:
        raise IllegalMoveError(reason)
    kind = move.kind
    if kind == "keep":
        routes.keep_route(state, seat, move.number)
    elif kind == "take":
        travel.route_take(state, seat, move.name, move.number)
    elif kind == "coal":
        market.buy_coal(state, seat, move.number)
    elif kind == "buy":
        market.buy_goods(state, seat, move.name, move.number)
    elif kind == "discard":
        market.discard(state, seat, move.name)
    elif kind == "travel":
        travel.travel(state, seat, move.name, move.via)
    elif kind == "order":
        station.fulfil_order(state, seat, move.name, _order_payment(state, seat, move))
    elif kind == "supply":
        station.take_supply(state, seat)
    elif kind == "railcar":
        station.take_railcar(state, seat)
    elif kind == "work":
        station.work(state, seat, move.name)
    elif kind == "hire":
        crew.start_hire(state, seat, move.name, move.region, move.keep_old)
    elif kind == "caboose":
        crew.start_caboose(state, seat)
    elif kind == "pay":
        crew.pay(state, seat, move.name)
    elif kind == "crew":
        powers.use_power(state, seat, move.name, move.arg)


# ---- listing ------------------------------------------------------------------------
def legal(state: State, seat: int) -> list[Move]:
    """Every legal move now, in a stable order (phase order, then data order)."""
    phase = state["turn"]["phase"]
    found: list[Move] = []
    if phase == "choose":
        found += [Move("keep", number=n) for n in (1, 2)]
    if phase == "route":
        found += [Move("take", "display", number=n) for n in range(1, len(state["routes"]["display"]) + 1)]
        found.append(Move("take", "blind"))
    if phase == "market":
        found += _market(state, seat)
    if phase in ("market", "again"):
        # Each destination once, at its cheapest cost; longer paths are named with "via".
        costs = travel.cheapest_costs(state, seat)
        found += [Move("travel", city, coal=coal)
                  for city, coal in sorted(costs.items(), key=lambda item: item[1])]
    if phase == "station":
        found += _station(state, seat)
    if phase == "crew":
        found += _crew(state, seat)
    if phase == "paying":
        found += [Move("pay", ticket) for ticket in crew.ticket_order(state)]
    for owned in powers.owned_crews(state, seat):
        found += [Move("crew", owned, arg=arg) for arg in powers.power_args(state, seat, owned)]
    return [m for m in found if not check(state, seat, m)]


def _market(state: State, seat: int) -> list[Move]:
    player = state["players"][seat]
    found = [Move("coal", "coal", number=n) for n in range(1, COAL_LIMIT - player["coal"] + 1)]
    room = free_cars(player)
    for good in state["data"]["goods"]:
        found += [Move("buy", good, number=2 * pairs) for pairs in range(1, room // 2 + 2)]
    found += [Move("discard", good) for good in state["data"]["goods"]]
    return found


def _station(state: State, seat: int) -> list[Move]:
    found: list[Move] = []
    if _order_ready(state):
        payments = station.order_payments(state, seat)
        for label in station.reward_labels(state):
            for payment in payments:
                found.append(Move("order", label, pay=payment if len(payments) > 1 else None))
    found += [Move("supply"), Move("railcar")]
    found += [Move("work", kind) for kind in WORK]
    found += [Move("discard", good) for good in state["data"]["goods"]]
    return found


def _crew(state: State, seat: int) -> list[Move]:
    found: list[Move] = []
    for deck in ("basic", "skilled"):
        for region in state["data"]["regions"]:
            found += [Move("hire", deck, region=region), Move("hire", deck, region=region, keep_old=True)]
    found.append(Move("caboose"))
    return found

"""The station phase: fulfil an order, take a supply, take a railcar, or work."""

from __future__ import annotations

from functools import cache
from typing import Any

from pbem.game import State, derived

from .components import reward_label
from .constants import WORK
from .state import (
    city_name,
    gain_cash,
    gain_coal,
    load_goods,
    note,
    owed_first,
    put_sorted,
    score,
    seat_name,
    token_face,
    unload_goods,
)
from .words import article, describe_token, reward_text

Payment = tuple[str, ...]


def held_token(state: State) -> dict[str, Any] | None:
    tid = state["turn"]["token"]
    return state["data"]["tokens"][tid] if tid else None


def _station_reason(state: State, kind: str) -> str:
    """Why a token action is impossible now ("" if the held token is of ``kind``)."""
    reason = _not_station(state)
    if reason:
        return reason
    token = held_token(state)
    if token is None:
        return "there was no token in this city: you may only work"
    if token["kind"] != kind:
        take = "'order' (or 'order cash', 'order points')" if token["kind"] == "order" \
            else f"'{token['kind']}'"
        return (f"the token here is {article(token['kind'])}, not {article(kind)}: take it with "
                f"{take}, or box it and work ('work coal', 'work cash' or 'work both')")
    return ""


def _not_station(state: State) -> str:
    """Why the station action cannot be taken now ("" in the station phase)."""
    phase = state["turn"]["phase"]
    if phase == "station":
        return ""
    if phase in ("crew", "done", "paying"):
        return "the station action of this turn is already taken"
    return owed_first(state) or "the station phase comes after the train has travelled (travel <city>)"


# ---- orders -------------------------------------------------------------------------
def order_payments(state: State, seat: int) -> list[Payment]:
    """The goods that may pay the held order, each railcar taking at most 1 good off
    (STS-ST8; several railcars stack). Only the largest discounts are offered: using a
    discount never costs anything."""
    token = held_token(state)
    assert token is not None and token["kind"] == "order"
    data = state["data"]
    sources = _source_indices(state, seat)
    if not sources:  # nothing to take off: the order's own goods, the common case
        return [_order_goods(data, token)]
    results = _remainders(_owed(data, token), sources)
    least = min(sum(r) for r in results)
    # A payment written as goods indices sorts as the goods' order says.
    picks = sorted({_spelled(r) for r in results if sum(r) == least})
    goods = list(data["goods"])
    return [tuple(goods[i] for i in pick) for pick in picks]


# Order payments are asked for several times per order move (complete, check, apply):
# what they read from the fixed tokens is worked out once per token.
def _goods_rank(data: dict[str, Any]) -> dict[str, int]:
    goods = data["goods"]
    return derived(data, "goods rank", lambda: {g: i for i, g in enumerate(goods)})


def _owed(data: dict[str, Any], token: dict[str, Any]) -> tuple[int, ...]:
    """How many of each good (in goods order) the order asks for."""
    return derived(token, "owed", lambda: tuple(token["goods"].count(g) for g in data["goods"]))


def _order_goods(data: dict[str, Any], token: dict[str, Any]) -> Payment:
    """The order's goods in goods order: its payment when nothing is taken off."""
    return derived(token, "paid goods", lambda: tuple(
        g for g, count in zip(data["goods"], _owed(data, token), strict=True) for _ in range(count)))


def _pictures(data: dict[str, Any]) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """The goods indices each railcar token pictures: its start face, then its gold face."""
    def build() -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
        rank = _goods_rank(data)
        return {tid: (tuple(rank[g] for g in token["start"]), tuple(rank[g] for g in token["gold"]))
                for tid, token in data["tokens"].items() if token["kind"] == "railcar"}

    return derived(data, "railcar pictures", build)


def _source_indices(state: State, seat: int) -> tuple[tuple[int, ...], ...]:
    """What may take a good off, as goods indices: each railcar (on the face it was taken
    with) and each loader's named good."""
    data = state["data"]
    pictures = _pictures(data)
    sources = [pictures[car["id"]][1 if car["gold"] else 0] for car in state["players"][seat]["railcars"]]
    rank = _goods_rank(data)
    sources += [(rank[good],) for good in state["turn"]["mods"]["order_discount"]]
    return tuple(sources)


def _spelled(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Goods counts as the goods indices one by one: (2, 0, 1) -> (0, 0, 2)."""
    return tuple(i for i, count in enumerate(counts) for _ in range(count))


@cache
def _remainders(owed: tuple[int, ...], sources: tuple[tuple[int, ...], ...]) -> frozenset[tuple[int, ...]]:
    """Every goods count left owing after each source takes one good it pictures."""
    if not sources:
        return frozenset([owed])
    head, rest = sources[0], sources[1:]
    options = sorted({i for i in head if owed[i] > 0})
    if not options:
        return _remainders(owed, rest)
    found: set[tuple[int, ...]] = set()
    for i in options:
        found |= _remainders(owed[:i] + (owed[i] - 1,) + owed[i + 1 :], rest)
    return frozenset(found)


def reward_labels(state: State) -> list[str]:
    """The words that pick a reward of the held order; [""] when there is no choice."""
    token = held_token(state)
    assert token is not None
    if len(token["rewards"]) == 1 or state["turn"]["mods"]["order_all"]:
        return [""]
    return [reward_label(option) for option in token["rewards"]]


def can_pay(player: dict[str, Any], payment: Payment) -> bool:
    return all(player["goods"][g] >= payment.count(g) for g in set(payment))


def check_order(state: State, seat: int, label: str, payment: Payment | None) -> str:
    """Why the order cannot be fulfilled so ("" if it can); ``payment`` None: not named,
    which stands for the only payment when there is one."""
    reason = _station_reason(state, "order")
    if reason:
        return reason
    if label not in reward_labels(state):
        options = " or ".join(x for x in reward_labels(state) if x) or "its only reward"
        return f"this order's reward is {options}"
    payments = order_payments(state, seat)
    if payment is None:
        payment = payments[0] if len(payments) == 1 else ("?",)
    if payment not in payments:
        head = "order" + (f" {label}" if label else "")
        shown = " or ".join(f"'{head} pay {' '.join(p) or 'nothing'}'" for p in payments)
        return f"after railcar discounts this order is paid with other goods: write {shown}"
    if not can_pay(state["players"][seat], payment):
        return (f"your train lacks the goods for this order ({' '.join(payment)}): "
                "box the token and work instead")
    return ""


def fulfil_order(state: State, seat: int, label: str, payment: Payment) -> None:
    """STS-ST3/ST4: pay the goods, take the reward, file the ticket under the region."""
    player = state["players"][seat]
    turn = state["turn"]
    token = held_token(state)
    assert token is not None
    for good in set(payment):
        unload_goods(player, good, payment.count(good))
    chosen = [o for o in token["rewards"] if not label or reward_label(o) == label]
    for option in chosen:
        gain_cash(player, option.get("cash", 0))
        gain_coal(player, option.get("coal", 0))
        score(player, "orders", option.get("points", 0))
    score(player, "orders", turn["mods"]["order_points"])
    region = state["data"]["cities"][player["city"]]["region"]
    player["tickets"][region].append(turn["token"])
    got = " and ".join(reward_text(o) for o in chosen)
    if turn["mods"]["order_points"]:
        got += f" and {turn['mods']['order_points']} pts (steward)"
    saved = len(token["goods"]) - len(payment)
    by = "railcars and the loader" if turn["mods"]["order_discount"] else "railcars"
    discount = f" ({saved} taken off by {by})" if saved else ""
    order = describe_token(state["data"], turn["token"], False)
    paid = " ".join(payment) or "nothing"
    note(state, f"{seat_name(state, seat)} fulfilled the {order} at {city_name(state, player['city'])}, "
                f"paying {paid}{discount}, for {got}; the ticket goes under {region}")
    _done(state, "order", label)


# ---- supplies, railcars, work -----------------------------------------------------
def check_supply(state: State, seat: int) -> str:
    return _station_reason(state, "supply")


def take_supply(state: State, seat: int) -> None:
    """STS-ST6: a supply gives its reward and is boxed (never a ticket)."""
    player = state["players"][seat]
    turn = state["turn"]
    face: dict[str, int] = token_face(state, turn["token"], turn["gold"])
    gain_cash(player, face.get("cash", 0) + turn["mods"]["supply_cash"])
    lost = gain_coal(player, face.get("coal", 0))
    score(player, "supplies", face.get("points", 0))
    short = 0
    for good in state["data"]["goods"]:
        if face.get(good, 0):
            short += face[good] - load_goods(player, good, face[good])  # past 8 cars: fewer load
    bonus = turn["mods"]["supply_cash"]
    extra = f" and ${bonus} (quartermaster)" if bonus else ""
    if lost:
        extra += f"; {lost} coal lost over the limit of 9"
    if short:
        extra += f"; {short} goods did not fit"
    supply = describe_token(state["data"], turn["token"], turn["gold"])
    note(state, f"{seat_name(state, seat)} took the {supply} at {city_name(state, player['city'])}"
                f"{extra}; the token is boxed")
    box_at_stop(state, seat)
    _done(state, "supply")


def check_railcar(state: State, seat: int) -> str:
    return _station_reason(state, "railcar")


def take_railcar(state: State, seat: int) -> None:
    """STS-ST7: the railcar joins the train for good, on the face it showed."""
    player = state["players"][seat]
    turn = state["turn"]
    player["railcars"].append({"id": turn["token"], "gold": turn["gold"]})
    railcar = describe_token(state["data"], turn["token"], turn["gold"])
    note(state, f"{seat_name(state, seat)} attached the {railcar} at {city_name(state, player['city'])}")
    _done(state, "railcar")


def check_work(state: State, seat: int, kind: str) -> str:
    if kind not in WORK:
        return "work for coal (2 coal), cash ($5) or both (1 coal and $2)"
    return _not_station(state)


def work(state: State, seat: int, kind: str) -> None:
    """STS-ST9: box the token (if any) and take one of the three work rewards."""
    player = state["players"][seat]
    turn = state["turn"]
    boxed = ""
    if turn["token"]:
        boxed = (f"boxed the {describe_token(state['data'], turn['token'], turn['gold'])} at "
                 f"{city_name(state, player['city'])} and ")
        box_at_stop(state, seat)
    coal, cash = WORK[kind]
    cash += turn["mods"]["work_cash"]
    gain_coal(player, coal)
    gain_cash(player, cash)
    note(state, f"{seat_name(state, seat)} {boxed}worked for {work_words(coal, cash)}")
    _done(state, "work")


def work_words(coal: int, cash: int) -> str:
    return reward_text({"cash": cash, "coal": coal}) or "nothing"


def box_at_stop(state: State, seat: int) -> None:
    """The token taken at the stop goes to the box, recorded for the view this season."""
    turn = state["turn"]
    player = state["players"][seat]
    put_sorted(state["box"], turn["token"])
    state.setdefault("boxed", []).append(
        {"token": turn["token"], "gold": turn["gold"], "city": player["city"], "seat": seat})


def _done(state: State, action: str, label: str = "") -> None:
    """The station action is taken: remember what it was (crews used after it read that)."""
    turn = state["turn"]
    turn["did"] = {"action": action, "token": turn["token"], "gold": turn["gold"], "label": label}
    turn["token"] = ""
    turn["gold"] = False
    turn["phase"] = "crew"

"""The crew phase: tickets, hiring basic and skilled crews, taking a caboose.

A ticket is named by where it sits on the board: ``west`` (an order ticket under West),
``west-crew`` (the crew in the West crew space) or ``wild`` (a completed start route, or
an order ticket a Ticket Agent turned wild). A payment is a sorted tuple of those names.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from pbem.game import State, derived

from .state import note, owed_first, put_sorted, score, seat_name
from .words import article, crew_text

Payment = tuple[str, ...]


def ticket_counts(state: State, seat: int) -> dict[str, int]:
    """Every ticket name the player could spend, with how many of it they hold."""
    player = state["players"][seat]
    counts: dict[str, int] = {}
    for region in state["data"]["regions"]:
        if player["tickets"][region]:
            counts[region] = len(player["tickets"][region])
        if player["crews"][region]:
            counts[f"{region}-crew"] = 1
    if player["wilds"]:
        counts["wild"] = len(player["wilds"])
    return counts


def ticket_order(state: State) -> list[str]:
    """Every ticket name in the order payments are written in (the caller must not change
    it): worked out once on the set-up's Fixed data, as every hire and pay reads it."""
    data = state["data"]
    return derived(data, "ticket order", lambda: _ticket_names(data["regions"]))


def _ticket_names(regions: list[str]) -> list[str]:
    names = []
    for region in regions:
        names += [region, f"{region}-crew"]
    return names + ["wild"]


NOT_A_TICKET = 1 << 30  # sorts after every ticket name


def _ticket_rank(state: State) -> dict[str, int]:
    """Each ticket name's place in ``ticket_order`` (its first, as list.index says)."""
    data = state["data"]

    def build() -> dict[str, int]:
        rank: dict[str, int] = {}
        for i, name in enumerate(ticket_order(state)):
            rank.setdefault(name, i)
        return rank

    return derived(data, "ticket rank", build)


def sort_payment(state: State, payment: list[str] | tuple[str, ...]) -> Payment:
    rank = _ticket_rank(state)
    return tuple(sorted(payment, key=lambda t: rank.get(t, NOT_A_TICKET)))


def ticket_region(ticket: str) -> str:
    """The region a ticket belongs to ("" for a wild)."""
    return "" if ticket == "wild" else ticket.removesuffix("-crew")


def matches(ticket: str, region: str) -> bool:
    """STS-C2: a ticket of a required region comes from that region or is a wild."""
    return ticket == "wild" or ticket_region(ticket) == region


# ---- hiring and the caboose: a head move, then one ``pay <ticket>`` per ticket ---------
# The payment completes as soon as the tickets paid cover the cost, so a listed move is
# never more than the nine ticket names, however many tickets a player holds.
def hire_cost_met(state: State, deck: str, region: str, payment: Payment) -> bool:
    """STS-C4/C5 with the Clerk and Recruiter changes."""
    mods = state["turn"]["mods"]
    matching = sum(1 for t in payment if matches(t, region))
    size = len(payment)
    if deck == "basic" or mods["skilled_as_basic"]:
        if deck == "basic" and mods["basic_any_one"]:
            return size == 1
        return (size == 1 and matching == 1) or size == 2
    return (size == 2 and matching >= 1) or size == 3


def caboose_need(state: State) -> int:
    return 3 if state["turn"]["mods"]["caboose_three"] else len(state["data"]["regions"])


def caboose_cost_met(state: State, payment: Payment) -> bool:
    """STS-C10: one ticket from each region (a wild stands for a region not paid)."""
    regions = [ticket_region(t) for t in payment if t != "wild"]
    return len(payment) == caboose_need(state) and len(set(regions)) == len(regions)


def _cost_met(state: State, job: dict[str, Any], payment: Payment) -> bool:
    if job["kind"] == "caboose":
        return caboose_cost_met(state, payment)
    return hire_cost_met(state, job["deck"], job["region"], payment)


def _can_finish(state: State, seat: int, job: dict[str, Any], paid: Payment, spare: dict[str, int]) -> bool:
    """Could tickets from ``spare`` (names -> counts) complete a payment that starts ``paid``?"""
    if _cost_met(state, job, paid):
        return True
    most = 4 if job["kind"] == "caboose" else 3
    names = [t for t in ticket_order(state) if spare.get(t, 0) > 0]
    for size in range(1, most - len(paid) + 1):
        for extra in combinations_with_replacement(names, size):
            # Whether a cost is met does not hang on the tickets' order: no sorting.
            if all(extra.count(t) <= spare[t] for t in set(extra)) and \
                    _cost_met(state, job, paid + extra):
                return True
    return False


def _spare(state: State, seat: int, job: dict[str, Any]) -> dict[str, int]:
    """Tickets that may still pay for ``job`` (a kept old crew may not)."""
    counts = ticket_counts(state, seat)
    if job.get("keep_old"):
        counts.pop(f"{job['region']}-crew", None)
    return counts


def _crew_phase_reason(state: State) -> str:
    phase = state["turn"]["phase"]
    if phase == "done":
        return "only one crew hire or caboose is allowed per turn"
    if phase == "paying":
        return "finish paying for the crew or caboose under way first"
    if phase != "crew":
        if owed_first(state):
            return owed_first(state)
        now = "first travel (travel <city>), then" if phase == "market" else "first"
        return (f"crews and cabooses are taken in the crew phase, after the station action: "
                f"{now} take the station action (order, supply, railcar or work coal/cash/both)")
    return ""


def check_hire(state: State, seat: int, deck: str, region: str, keep_old: bool) -> str:
    reason = _crew_phase_reason(state)
    if reason:
        return reason
    if deck not in ("basic", "skilled") or region not in state["data"]["regions"]:
        return "hire a basic or skilled crew from one of the four region slots"
    if not state["crews"][deck]["market"][region]:
        return f"the {deck} {region} slot of the crew market is empty"
    if keep_old and not state["players"][seat]["crews"][region]:
        return f"you have no crew under {region} to keep"
    job = {"kind": "hire", "deck": deck, "region": region, "keep_old": keep_old}
    if not _can_finish(state, seat, job, (), _spare(state, seat, job)):
        if deck == "basic":
            return f"a basic crew costs 1 {region} ticket or any 2 tickets, and you lack them"
        return f"a skilled crew costs 1 {region} ticket plus 1 any, or any 3 tickets, and you lack them"
    return ""


def start_hire(state: State, seat: int, deck: str, region: str, keep_old: bool) -> None:
    state["turn"]["phase"] = "paying"
    state["turn"]["job"] = {"kind": "hire", "deck": deck, "region": region, "keep_old": keep_old,
                            "paid": []}


def check_caboose(state: State, seat: int) -> str:
    reason = _crew_phase_reason(state)
    if reason:
        return reason
    if state["players"][seat]["caboose"]:
        return "a train may have only one caboose"
    if not state["cabooses"]:
        return "no caboose is left"
    if not _can_finish(state, seat, {"kind": "caboose"}, (), ticket_counts(state, seat)):
        return f"a caboose costs one ticket from each of {caboose_need(state)} different regions"
    return ""


def start_caboose(state: State, seat: int) -> None:
    state["turn"]["phase"] = "paying"
    state["turn"]["job"] = {"kind": "caboose", "paid": []}


def check_pay(state: State, seat: int, ticket: str) -> str:
    turn = state["turn"]
    if turn["phase"] != "paying":
        return "tickets are paid after choosing a crew to hire or the caboose"
    job = turn["job"]
    spare = _spare(state, seat, job)
    if spare.get(ticket, 0) < 1:
        if job.get("keep_old") and ticket == f"{job['region']}-crew":
            return f"you are keeping the crew under {job['region']}, so it cannot pay"
        return f"you have no {ticket} ticket"
    spare[ticket] -= 1
    paid = sort_payment(state, (*job["paid"], ticket))
    if not _can_finish(state, seat, job, paid, spare):
        return f"paying {ticket} leaves no way to complete the payment"
    return ""


def pay(state: State, seat: int, ticket: str) -> None:
    """Discard one ticket; once the tickets paid cover the cost, the hire or caboose happens."""
    job = state["turn"]["job"]
    job.setdefault("spent", []).append(ticket_words(state, seat, ticket))
    spend(state, seat, (ticket,))
    job["paid"] = list(sort_payment(state, (*job["paid"], ticket)))
    if not _cost_met(state, job, tuple(job["paid"])):
        return
    if job["kind"] == "caboose":
        _take_caboose(state, seat)
    else:
        _hire(state, seat, job["deck"], job["region"], job["keep_old"])
    state["turn"]["job"] = {}
    state["turn"]["phase"] = "done"


def _hire(state: State, seat: int, deck: str, region: str, keep_old: bool) -> None:
    """STS-C6: the crew goes under its region; one crew per space."""
    player = state["players"][seat]
    crew = state["crews"][deck]["market"][region]
    state["crews"][deck]["market"][region] = ""  # refilled at cleanup (STS-C9 ruling)
    old = player["crews"][region]
    who = seat_name(state, seat)
    paid = ", ".join(state["turn"]["job"].get("spent", []))
    note(state, f"{who} hired the {deck} {region} crew {crew} ({crew_text(state['data'], crew)}), "
                f"paying {paid}")
    if old and keep_old:
        _discard_crew(state, crew)
        note(state, f"{who} kept the {old} under {region}: the new {crew} is discarded (one crew a space)")
    else:
        if old:
            _discard_crew(state, old)
            note(state, f"the {crew} replaces {who}'s {old} under {region}; the {old} is discarded")
        player["crews"][region] = crew
        state["turn"]["hired"] = crew


def _take_caboose(state: State, seat: int) -> None:
    player = state["players"][seat]
    points = state["cabooses"].pop(0)
    player["caboose"] = points
    score(player, "cabooses", points)
    paid = ", ".join(state["turn"]["job"].get("spent", []))
    note(state, f"{seat_name(state, seat)} took the {points}-point caboose, paying {paid}")


def _discard_crew(state: State, crew: str) -> None:
    deck = state["data"]["crews"][crew]["deck"]
    put_sorted(state["crews"][deck]["discards"], crew)


def ticket_words(state: State, seat: int, ticket: str) -> str:
    """A ticket about to be spent, in words: "a west order ticket", "the porter (west crew)"."""
    if ticket == "wild":
        return "a wild ticket"
    if ticket.endswith("-crew"):
        region = ticket_region(ticket)
        return f"the {state['players'][seat]['crews'][region]} ({region} crew)"
    return f"{article(ticket)} order ticket"


# ---- spending -----------------------------------------------------------------------
def spend(state: State, seat: int, payment: Payment) -> None:
    """Discard tickets: orders to the box, crews to their deck's discards, wilds away."""
    player = state["players"][seat]
    for ticket in payment:
        if ticket == "wild":
            item = player["wilds"].pop()
            put_sorted(state["routes"]["box"] if item in state["data"]["routes"] else state["box"], item)
        elif ticket.endswith("-crew"):
            region = ticket_region(ticket)
            _discard_crew(state, player["crews"][region])
            player["crews"][region] = ""
        else:
            put_sorted(state["box"], player["tickets"][ticket].pop())

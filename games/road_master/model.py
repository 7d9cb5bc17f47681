"""Road Master's state: set-up, cube and card bookkeeping, and the contract deck.

The state is a plain dict (see pbem.game). ``state["data"]`` is the part of the
component data the rules need, fixed at set-up from the ``components`` argument (the
save's header), so no rule ever re-reads the TOML. Everything else changes in play:

- ``trucks[seat]``: ``where`` ("" before placement, "road", or a warehouse letter),
  ``x``/``lane``/``heading`` on the road, ``cubes`` {colour: n}.
- ``houses[letter]``: {colour: n} cubes lying in each warehouse (strays included).
- ``market``: the freight market slots (card id or "" while a gap waits for a refill);
  ``deck``: the face-down contract deck as a multiset of card ids; ``deck_top``: the
  back colour of its top card, which everyone sees (RM-A4), or "" while the deck is
  empty or its new top has not been turned yet. A draw picks the top's back colour in
  proportion to the cards showing it, then a uniform card of that back: together a
  uniform card, the same as a shuffled pile (PROTOCOL.md section 5), but the back is
  known one draw ahead and the face is not.
- ``contracts[seat]``: held contracts {id, cubes (delivered so far), done}.
- ``removed`` {colour: n}: cubes out of the game; ``gone``: cards out of the game.
- ``turn``: the current turn's bookkeeping (actions used, hazardous-goods queue...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import Fixed, OptionError, Sampler, copy_state, derived, fixed, queue_chance

State = dict[str, Any]
LOG_LINES = 24  # recent events kept in the state (and shown by describe)
# The parts of the state a turn's actions change; saved whole before the first boom draw
# of a turn so that what follows can be replayed once the draws are known ("secret" and
# "sb", which holds the queue of short draws: a Super Bonus taken after the draw is
# reserved, or queued short, only when the draws resolve, RM-H4/RM-A10).
DYNAMIC = ("trucks", "houses", "market", "deck", "deck_top", "contracts", "scores", "removed",
           "gone", "emptied", "log", "log_count", "pending", "secret", "sb")


def share_data(state: State) -> None:
    """Make ``state["data"]`` Fixed again if it came back from JSON as plain dicts (an
    archived table), so that the copies made from here on share it. Same value."""
    if not isinstance(state["data"], Fixed):
        state["data"] = fixed(state["data"])


def build_data(components: dict[str, Any], options: dict[str, Any], players: int) -> Fixed:
    """The rules' working copy of the component data for these options, every table
    Fixed as it is built (what ``fixed`` would make of it, without a second walk)."""
    rules = components["rules"]
    cards_data = components["cards"]
    houses = Fixed({
        w["letter"]: Fixed(colour=w["colour"], space=w["space"], side=w["side"])
        for w in components["warehouses"]
    })
    hazard = rules["hazardous_colour"] if options.get("hazardous") else ""
    perish = rules["perishable_colour"] if options.get("perishable") else ""
    cards: dict[str, dict[str, Any]] = {}
    for entry in cards_data["contracts"]:
        if entry["colour"] in (hazard, perish):
            continue  # replaced by the advanced contracts below (RM-H1, RM-P1)
        cards[entry["id"]] = _contract(entry, "basic")
    if hazard:
        for entry in cards_data["hazardous"]:
            cards[entry["id"]] = _contract(entry, "hazardous")
    if perish:
        for entry in cards_data["perishable"]:
            cards[entry["id"]] = _contract(entry, "perishable")
    if options.get("shortages", True):
        for entry in cards_data["shortages"]:
            # Its back shows the colour of the warehouse it names (pbem ruling: the
            # rulebook gives contract backs only).
            cards[entry["id"]] = Fixed(kind="shortage", warehouse=entry["warehouse"],
                                       back=houses[entry["warehouse"]]["colour"])
    return Fixed({
        "length": components["board"]["length"],
        "houses": houses,
        "colours": [h["colour"] for h in houses.values()],
        "capacity": rules["truck_capacity"],
        "per_turn": rules["actions_per_turn"],
        "market_size": rules["market_size"],
        "take": rules["contracts_per_take"],
        "fmax": rules["forward_max"],
        "sb_draw": rules["superbonus_draw"],
        "sb_keep": rules["superbonus_keep"],
        "target": rules["end_score"][str(players)],
        "cubes_total": rules["cubes_per_colour"] * len(houses),
        "tokens": [list(t["faces"]) for t in components["tokens"]],
        "boom": Fixed(ok=components["boom"]["ok"], half=components["boom"]["half"]),
        "hazard": hazard,
        "perish": perish,
        "cards": Fixed(cards),
        # Super Bonus cards are secret: only their scoring data is kept, by uid, for the
        # final count after the reveal; views never copy this table.
        "bonus": Fixed({
            b["id"]: Fixed(need=Fixed(b["need"]), points=b["points"], penalty=b["penalty"])
            for b in cards_data["superbonus"]
        }),
    })


def _contract(entry: dict[str, Any], kind: str) -> Fixed:
    return Fixed(
        kind=kind,
        back=entry["colour"],  # a contract's back is the colour of its cubes
        colour=entry["colour"],
        count=entry["count"],
        to=entry["to"],
        points=entry["points"],
        penalty=entry["penalty"],
    )


def new_turn() -> dict[str, Any]:
    """Bookkeeping of the turn being played."""
    return {
        "actions": [],  # action kinds used so far (RM-A1)
        "last": "",  # kind of the last action, so consecutive unloads make one action
        "blue": 0,  # perishable cubes loaded this turn (RM-P2)
        "drew_bonus": False,  # Super Bonus taken this turn: the choice waits a turn
        "policy": "stop",  # hazardous goods: what a first half boom does (RM-H5), from
        # here on: each action records the policy in force when it is played
        "draw": False,  # a boom draw is pending: later actions are queued
        "draw_first": False,  # ... right after the action that caused it
        "draw_move": "",  # ... which is this one (when draw_first)
        "draw_policy": "stop",  # ... played under this policy
        "queue": [],  # actions after the first draw, applied once the draws are known
        "snapshot": {},  # the state as it was at the first draw
    }


def setup(seats: Sequence[str], options: dict[str, Any], components: dict[str, Any]) -> State:
    players = len(seats)
    data = build_data(components, options, players)
    first = -1
    wanted = str(options.get("first", "") or "")
    if wanted:
        if wanted not in seats:
            raise OptionError(f"first={wanted} names no player; the players are {', '.join(seats)}.")
        first = list(seats).index(wanted)
    per_colour = components["rules"]["cubes_per_colour"]
    state: State = {
        "data": data,
        "options": {k: options.get(k) for k in ("shortages", "hazardous", "perishable")},
        "first": first,
        "turn_no": 0,
        "ended": False,
        "trucks": [
            {"where": "", "x": -1, "lane": "", "heading": "", "cubes": {}} for _ in seats
        ],
        "houses": {letter: {h["colour"]: per_colour} for letter, h in data["houses"].items()},
        "market": [""] * data["market_size"],
        "deck": list(data["cards"]),
        "deck_top": "",
        "contracts": [[] for _ in seats],
        "scores": [0] * players,
        "removed": {},
        "gone": [],
        "emptied": [],
        "turn": new_turn(),
        "log": [],
        "log_count": 0,  # log lines ever written, so describe knows which are new
        "sb_kept": [0] * players,  # cards kept so far from each seat's pending draw
        "sb": {"opened": {}, "revealed": False},
        "pending": [],
    }
    queue_chance(state, {"kind": "setup"})
    return state


# ---- small helpers ------------------------------------------------------------------
def handle(state: State, seat: int) -> str:
    seats = state.get("seats") or []
    return str(seats[seat]) if seat < len(seats) else f"seat {seat}"


def log(state: State, line: str) -> None:
    state["log"].append(line)
    del state["log"][:-LOG_LINES]
    state["log_count"] = state.get("log_count", 0) + 1


def contract_words(state: State, uid: str) -> str:
    """'c12 (2 purple -> D, +5/-1)': a contract as everyone sees it face up."""
    info = card(state, uid)
    tag = {"hazardous": ", hazardous", "perishable": ", perishable"}.get(info["kind"], "")
    return (f"{uid} ({info['count']} {info['colour']} -> {info['to']}, +{info['points']}/"
            f"-{info['penalty']}{tag})")


def add(counts: dict[str, int], colour: str, n: int) -> None:
    """Add n (maybe negative) to a colour count, dropping zeros to keep states canonical."""
    value = counts.get(colour, 0) + n
    if value < 0:
        raise ValueError(f"negative count of {colour}")
    if value:
        counts[colour] = value
    else:
        counts.pop(colour, None)


def cubes_text(counts: dict[str, int], order: Sequence[str]) -> str:
    parts = [f"{c} x{counts[c]}" if counts[c] > 1 else c for c in order if counts.get(c)]
    return " ".join(parts) or "nothing"


def house_colour(state: State, letter: str) -> str:
    return str(state["data"]["houses"][letter]["colour"])


def card(state: State, uid: str) -> dict[str, Any]:
    return state["data"]["cards"][uid]


def held(state: State, seat: int, uid: str) -> dict[str, Any] | None:
    for entry in state["contracts"][seat]:
        if entry["id"] == uid:
            return entry
    return None


def players(state: State) -> int:
    return len(state["scores"])


# ---- the contract deck ------------------------------------------------------------------
def apply_shortage(state: State, uid: str) -> None:
    """RM-A7: the named warehouse loses half (rounded down) of its own cubes."""
    letter = card(state, uid)["warehouse"]
    colour = house_colour(state, letter)
    lost = state["houses"][letter].get(colour, 0) // 2
    if lost:
        add(state["houses"][letter], colour, -lost)
        add(state["removed"], colour, lost)
    state["gone"].append(uid)
    log(state, f"Shortage at {letter}: {lost} {colour} cube(s) leave the game.")


def back(state: State, uid: str) -> str:
    return str(card(state, uid)["back"])


def _backs(state: State) -> dict[str, str]:
    """Card id -> the colour its back shows, as one plain table: a draw looks up every
    card of the deck, and a plain dict answers faster than the Fixed card tables."""
    cards = state["data"]["cards"]
    return derived(state["data"], "backs", lambda: {uid: str(c["back"]) for uid, c in cards.items()})


def turn_top(state: State, rng: Sampler) -> None:
    """Turn the deck's new top card so its back shows: its colour is drawn in proportion
    to the cards of the deck showing each back."""
    deck = state["deck"]
    state["deck_top"] = back(state, deck[rng.randbelow(len(deck))]) if deck else ""


def _take_top(state: State, rng: Sampler) -> str:
    """The top card itself: a uniform card among those showing the top's back."""
    if not state["deck_top"]:
        turn_top(state, rng)
    shown = state["deck_top"]
    backs = _backs(state)
    places = [i for i, uid in enumerate(state["deck"]) if backs[uid] == shown]
    state["deck_top"] = ""
    return str(state["deck"].pop(places[rng.randbelow(len(places))]))


def draw_contract(state: State, rng: Sampler) -> str:
    """Turn up the deck's top card, playing shortages, and show the next top's back.

    Returns the contract drawn, or "" if the deck ran out."""
    while state["deck"]:
        uid = _take_top(state, rng)
        turn_top(state, rng)
        if card(state, uid)["kind"] == "shortage":
            apply_shortage(state, uid)
            continue
        return uid
    return ""


def refill_market(state: State, rng: Sampler) -> None:
    """RM-A5/RM-S4: fill every gap of the market from the deck, in slot order; then make
    sure the deck's top shows its back."""
    for slot, uid in enumerate(state["market"]):
        if uid:
            continue
        drawn = draw_contract(state, rng)
        if not drawn:
            log(state, "The contract deck is empty; the market stays short.")
            break
        state["market"][slot] = drawn
        log(state, f"Market m{slot + 1}: {contract_words(state, drawn)}.")
    if not state["deck_top"]:
        turn_top(state, rng)


def blind_request(state: State, seat: int) -> dict[str, Any]:
    """RM-A4, taking the top card unseen: it leaves the deck now, showing its back; which
    card it is (one of those with that back) is drawn with the next beacon. The pool is
    fixed here, so a card of that back that a warehouse emptying takes out of the deck
    later this turn can still be the one already taken."""
    shown = state["deck_top"]
    backs = _backs(state)
    pool = [uid for uid in state["deck"] if not shown or backs[uid] == shown]
    state["deck_top"] = ""  # the next card's back shows with the next beacon
    return {"kind": "blind", "seat": seat, "back": shown, "pool": pool}


def take_blind(state: State, request: dict[str, Any], rng: Sampler) -> None:
    """RM-A4: the top card taken unseen goes to the taker (a shortage plays, and the
    taker gets the next card instead)."""
    seat = int(request["seat"])
    pool = [str(uid) for uid in request["pool"]]
    uid = pool[rng.randbelow(len(pool))] if pool else ""
    if uid in state["deck"]:
        state["deck"].remove(uid)
    elif uid in state["gone"]:
        state["gone"].remove(uid)  # its colour's contracts left the deck after it was taken
    if uid and card(state, uid)["kind"] == "shortage":
        apply_shortage(state, uid)
        uid = draw_contract(state, rng)
    if uid:
        state["contracts"][seat].append({"id": uid, "cubes": 0, "done": False})
        log(state, f"{handle(state, seat)} took {contract_words(state, uid)} from the top of the "
                   "deck.")
    else:
        log(state, f"The deck ran out: {handle(state, seat)} got no card from the top.")
    if not state["deck_top"]:
        turn_top(state, rng)


def needs_refill(state: State) -> bool:
    """Market gaps to fill, or a deck top to turn, with the next beacon."""
    return bool(state["deck"]) and ("" in state["market"] or not state["deck_top"])


def empty_check(state: State, letter: str) -> None:
    """RM-A8: a warehouse with no cube of its own colour takes its colour's contracts
    out of the market and the deck (held ones stay)."""
    colour = house_colour(state, letter)
    if state["houses"][letter].get(colour, 0):
        return
    cards = state["data"]["cards"]
    hit = [u for u in state["deck"] if cards[u].get("colour") == colour]
    for slot, uid in enumerate(state["market"]):
        if uid and cards[uid].get("colour") == colour:
            hit.append(uid)
            state["market"][slot] = ""
    if state["deck_top"] == colour and any(u in hit for u in state["deck"]):
        state["deck_top"] = ""  # the top went too: the next top shows with the next beacon
    state["deck"] = [u for u in state["deck"] if u not in hit]
    state["gone"].extend(hit)
    if letter not in state["emptied"]:
        state["emptied"].append(letter)
        log(state, f"Warehouse {letter} is empty: {len(hit)} {colour} contract(s) leave the game.")
    elif hit:
        log(state, f"{len(hit)} more {colour} contract(s) leave the game.")


def take_snapshot(state: State) -> dict[str, Any]:
    return copy_state({key: state[key] for key in DYNAMIC if key in state})

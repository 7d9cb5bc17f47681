"""What a seat may see, and a plain-text picture of it.

The public view carries every public fact; a seat's view adds its own Super Bonus cards
(drawn or held), learnt only through ``secrets`` (never from the deck's slots). Nothing
else about the Super Bonus deck appears: counts, not cards.
"""

from __future__ import annotations

import textwrap
from typing import Any

from pbem.game import ended_line, secretdeck, waiting_line

from . import board
from .bonus_draw import undecided
from .model import card, cubes_text, players
from .tokens import faces_text
from .turn import (
    DECK,
    STALLED_ROUNDS,
    STALLED_ROUNDS_EMPTY_DECK,
    boom_plan,
    choice_due,
    draws_text,
    is_over,
    last_choosers,
    pending_secret_choice,
    planned_draws,
    to_act,
)

State = dict[str, Any]


def _contract_view(state: State, uid: str) -> dict[str, Any]:
    info = card(state, uid)
    return {"id": uid, "kind": info["kind"], "colour": info["colour"], "count": info["count"],
            "to": info["to"], "points": info["points"], "penalty": info["penalty"]}


def view(state: State, seat: int | None, secrets: dict[str, dict[str, str]] | None) -> dict[str, Any]:
    data = state["data"]
    n = players(state)
    has_deck = "secret" in state
    out: dict[str, Any] = {
        "game": "road-master",
        "seats": list(state.get("seats", [])),
        "to_act": -1 if to_act(state) is None else to_act(state),
        "over": is_over(state) and to_act(state) is None,  # not in the last choices
        "first": state["first"],
        "turn_no": state["turn_no"],
        "round": state["turn_no"] // n + 1,
        "target": data["target"],
        "options": dict(state["options"]),
        "scores": list(state["scores"]),
        "board": {
            "length": data["length"],
            "houses": {k: {**h, "cubes": dict(state["houses"][k])} for k, h in data["houses"].items()},
        },
        "trucks": [dict(t, cubes=dict(t["cubes"])) for t in state["trucks"]],
        "market": [_contract_view(state, u) if u else {} for u in state["market"]],
        # Cards taken blind this turn have left the deck, though which they are is drawn
        # with the next beacon.
        "deck": len(state["deck"]) - sum(p.get("kind") == "blind" for p in state.get("pending", [])),
        "contracts": [
            [dict(_contract_view(state, e["id"]), cubes=e["cubes"], done=e["done"]) for e in held]
            for held in state["contracts"]
        ],
        "removed": dict(state["removed"]),
        "end": _end(state),
        "stall": {
            "quiet_rounds": state.get("quiet_rounds", 0),
            "ends_at": STALLED_ROUNDS,
            "quiet_rounds_deck_spent": state.get("quiet_empty", 0),
            "ends_at_deck_spent": STALLED_ROUNDS_EMPTY_DECK,
        },
        "gone": len(state["gone"]),
        "gone_cards": _gone_cards(state),
        "emptied": list(state["emptied"]),
        "turn": {
            "actions": list(state["turn"]["actions"]),
            "policy": state["turn"]["policy"],
            "boom_pending": state["turn"]["draw"],
            "queued": [q["move"] for q in state["turn"]["queue"]],
            # RM-H5: each boom draw due so far and the policy that governs it
            "draws": planned_draws(boom_plan(state["turn"])) if state["turn"]["draw"] else [],
        },
        "pending": [str(p.get("kind", "")) for p in state.get("pending", [])],
        "tokens": [list(t) for t in data["tokens"]],
        "actions_per_turn": data["per_turn"],
        "superbonus": {
            "deck": secretdeck.remaining(state, DECK) if has_deck else 0,
            "held": [secretdeck.counts(state, DECK).get(s, 0) if has_deck else 0 for s in range(n)],
            "drawn": [len(undecided(state, s)) if has_deck else 0 for s in range(n)],
        },
        "log": list(state["log"]),
    }
    booms = [p for p in state.get("pending", []) if p.get("kind") == "boom"]
    if booms:  # a turn's boom draws wait for the next beacon: what waits, under which policy
        out["boom"] = {"seat": int(booms[0]["seat"]), "draws": planned_draws(booms[0]),
                       "queued": [str(q["move"]) for q in booms[0]["moves"]]}
    if state["sb"].get("closed"):  # only then: the snapshot of older saves stays the same
        out["superbonus"]["closed"] = True
    if state["deck"] and state["deck_top"]:
        out["contract_deck_top"] = state["deck_top"]  # RM-A4: the top card's back colour
    if state["sb"]["revealed"]:
        out["superbonus"]["opened"] = _opened(state)
    if seat is not None:
        out["private"] = _private(state, seat, secrets or {})
    return out


def _gone_cards(state: State) -> list[dict[str, Any]]:
    """The cards out of the game, in the order they left (public at the table: a shortage
    is played face up, an emptied warehouse's contracts are picked out in the open). A
    card taken blind this turn is drawn with the next beacon from the deck as it was, so
    one that has left since may still turn out to be it: ``maybe_taken`` says so."""
    blind = {str(u) for p in state.get("pending", []) if p.get("kind") == "blind" for u in p["pool"]}
    rows = []
    for uid in state["gone"]:
        info = card(state, uid)
        row = ({"id": uid, "kind": "shortage", "warehouse": info["warehouse"]}
               if info["kind"] == "shortage" else _contract_view(state, uid))
        if uid in blind:
            row["maybe_taken"] = True
        rows.append(row)
    return rows


def _end(state: State) -> dict[str, Any]:
    """RM-G1/G2: once a score reaches the target the end is triggered (and stays so when
    the game is over), and while play goes on the round under way is the last; it ends
    with the turn of the seat before the first player."""
    n = players(state)
    triggered = max(state["scores"]) >= state["data"]["target"]  # and stays so once over
    out = {"triggered": triggered, "last_round": triggered and not is_over(state),
           "last_to_play": (state["first"] - 1) % n if state["first"] >= 0 else -1}
    last = last_choosers(state)
    return {**out, "last_choices": last} if last else out


def _opened(state: State) -> list[dict[str, Any]]:
    rows = []
    opened = state["sb"]["opened"]
    for seat in range(players(state)):
        for slot in secretdeck.held(state, DECK, seat):
            uid = opened.get(slot, "")
            row: dict[str, Any] = {"seat": seat, "slot": slot, "card": uid}
            if uid:
                row.update(state["data"]["bonus"][uid])
            rows.append(row)
    return rows


def _private(state: State, seat: int, secrets: dict[str, dict[str, str]]) -> dict[str, Any]:
    mine = secrets.get(DECK, {})
    cards = []
    if "secret" in state:
        drawn = undecided(state, seat)
        aside = [s for s in secretdeck.drawn(state, DECK, seat) if s not in drawn]
        for status, slots in (("drawn", drawn), ("held", secretdeck.held(state, DECK, seat)),
                              ("aside", aside)):
            for slot in slots:
                uid = mine.get(slot, "")
                row: dict[str, Any] = {"slot": slot, "status": status, "card": uid}
                if uid in state["data"]["bonus"]:
                    info = state["data"]["bonus"][uid]
                    row.update(need=dict(info["need"]), points=info["points"], penalty=info["penalty"])
                cards.append(row)
    return {"seat": seat, "superbonus": cards, "choice_pending": pending_secret_choice(state, seat),
            "choice_due": choice_due(state, seat)}


# ---- text ------------------------------------------------------------------------------
ARROW = {"east": ">", "west": "<"}


def finished(v: dict[str, Any]) -> bool:
    """Whether play is over: by the rules, or ended by the engine where the game's own
    state does not know it (a resignation, an absence remedy: the view's ``ended``)."""
    return bool(v["over"]) or bool(ended_line(v))


def render(v: dict[str, Any]) -> str:
    seats = v["seats"] or [f"seat {i}" for i in range(len(v["scores"]))]
    colours = [h["colour"] for h in v["board"]["houses"].values()]
    lines = [_headline(v, seats)]
    lines += _status(v, seats)
    lines.append("")
    lines += _road(v)
    lines.append("")
    lines.append("Warehouses:")
    for letter, house in v["board"]["houses"].items():
        parked = [seats[i] for i, t in enumerate(v["trucks"]) if t["where"] == letter]
        emptied = " (emptied: its contracts left the game)" if letter in v["emptied"] else ""
        line = (f"  {letter} {house['colour']:<7} space {house['space']:>2} {house['side']:<5} "
                f"cubes: {cubes_text(house['cubes'], colours):<28}"
                + (f" trucks: {', '.join(parked)}" if parked else "") + emptied)
        lines.append(line.rstrip())
    lines.append("")
    lines.append(f"Market (deck {v['deck']} card(s) left{_deck_top(v)}, {v['gone']} out of the "
                 "game):")
    for i, c in enumerate(v["market"], start=1):
        gap = ("(empty: the game is over)" if finished(v) else
               "(empty: refilled at the end of the turn)" if v["deck"] else
               "(empty: the deck is out)")
        lines.append(f"  m{i} " + (_card_line(c) if c else gap))
    lines += _gone_lines(v)
    if v["superbonus"].get("closed"):
        lines.append("Super Bonus deck closed (a player is absent and played by the bot).")
    lines.append("")
    lines.append("Players:")
    for i, name in enumerate(seats):
        lines += _player(v, i, name, colours)
    if "private" in v:
        lines += _private_lines(v)
    if "opened" in v["superbonus"]:
        lines.append("Super Bonus cards revealed:")
        for row in v["superbonus"]["opened"]:
            need = cubes_text(row.get("need", {}), colours)
            lines.append(f"  {seats[row['seat']]}: {row['card'] or '(never opened)'} {need}")
    if v["removed"]:
        lines.append(f"Cubes out of the game: {cubes_text(v['removed'], colours)}")
    if v["log"]:
        lines.append("")
        lines.append("Recent events:")
        lines += [f"  {line}" for line in v["log"][-8:]]
    return "\n".join(lines)


def _gone_lines(v: dict[str, Any]) -> list[str]:
    """The cards out of the game: shortages, then each colour's contracts."""
    groups = gone_groups(v)
    if not groups:
        return []
    out = [f"Out of the game ({len(v['gone_cards'])} card(s)):"]
    for group in groups:
        out += textwrap.wrap(group, 100, initial_indent="  ", subsequent_indent="    ")
    return out


def gone_groups(v: dict[str, Any]) -> list[str]:
    """The cards out of the game as sentences (the text view and the picture): the
    shortages, then each emptied colour's contracts, then what the * means."""
    rows = v.get("gone_cards", [])
    groups = []
    shortages = [f"{_gone_id(r)} (at {r['warehouse']})" for r in rows if r["kind"] == "shortage"]
    if shortages:
        groups.append("shortages: " + ", ".join(shortages))
    letters = {h["colour"]: k for k, h in v["board"]["houses"].items()}
    for colour, letter in letters.items():
        cards = [f"{_gone_id(r)} {r['count']} -> {r['to']} +{r['points']}/-{r['penalty']}"
                 for r in rows if r["kind"] != "shortage" and r["colour"] == colour]
        if cards:
            groups.append(f"{colour} contracts ({letter} emptied): " + ", ".join(cards))
    if any(r.get("maybe_taken") for r in rows):
        groups.append("* may yet be the card taken blind from the deck's top this turn (it is "
                      "drawn with the next beacon from the deck as it was)")
    return groups


def _gone_id(row: dict[str, Any]) -> str:
    return str(row["id"]) + ("*" if row.get("maybe_taken") else "")


def _deck_top(v: dict[str, Any]) -> str:
    if "contract_deck_top" in v:
        return f", the top card's back is {v['contract_deck_top']}"
    if v["deck"] and not finished(v):
        return ", the new top card is turned with the next beacon"
    return ""


def _headline(v: dict[str, Any], seats: list[str]) -> str:
    opts = [k for k, on in v["options"].items() if on and k != "shortages"]
    if not v["options"].get("shortages", True):
        opts.append("no shortages")
    head = f"Road Master, round {v['round']}, game ends at {v['target']} points"
    head += f" ({', '.join(opts)})" if opts else ""
    if v["over"]:
        return head + ". The game is over."
    if waiting_line(v):  # over, or an absence vote due: nobody simply to act
        return f"{head}. {waiting_line(v)}"
    if v["to_act"] < 0:
        return head + ". Setting up."
    turn = v["turn"]
    who = seats[v["to_act"]]
    extra = f"; used: {', '.join(turn['actions'])}" if turn["actions"] else ""
    if turn["boom_pending"]:
        extra += f"; boom draw pending, queued: {'; '.join(turn['queued']) or 'nothing'}"
    pending = f" Pending: {', '.join(v['pending'])}." if v["pending"] else ""
    return f"{head}. {who} to act{extra}.{pending}"


POLICY = {
    "stop": "a first half boom ends the turn there ('policy push' carries on at risk)",
    "push": "the turn carries on after a first half boom; a second one explodes the truck",
}


def _status(v: dict[str, Any], seats: list[str]) -> list[str]:
    """The public facts a player must not have to work out: the first player, the end,
    the stall count, the boom policy, the Super Bonus deck."""
    out = []
    if v["first"] >= 0:
        out.append(f"{seats[v['first']]} played first.")
    return out + end_lines(v, seats) + _boom_status(v, seats)


def end_lines(v: dict[str, Any], seats: list[str]) -> list[str]:
    """The last round and the stall count (RM-G1/G2, RM-X1): the text view and the
    picture both give them."""
    out = []
    end = v.get("end", {})
    if end.get("last_round") and not waiting_line(v):
        leader = max(range(len(seats)), key=lambda i: v["scores"][i])
        out.append(f"The end is triggered: {seats[leader]} has {v['scores'][leader]} of "
                   f"{v['target']} points. This is the last round; it ends after "
                   f"{seats[end['last_to_play']]}'s turn.")
    if end.get("last_choices") and not waiting_line(v):
        out.append("The game is over but for the last Super Bonus choices, made before any "
                   f"reveal: {', '.join(seats[s] for s in end['last_choices'])}.")
    stall = v.get("stall", {})
    quiet = stall.get("quiet_rounds", 0)
    if quiet and not finished(v):
        line = (f"No score has moved for {quiet} round(s); the game ends at "
                f"{stall['ends_at']}")
        if not v["deck"]:
            line += (f", or at {stall['ends_at_deck_spent']} with the contract deck spent "
                     f"({stall['quiet_rounds_deck_spent']} so far)")
        out.append(line + ".")
    return out


def _boom_status(v: dict[str, Any], seats: list[str]) -> list[str]:
    """The boom draws waiting, the policy in force, the Super Bonus deck and the tokens."""
    out = []
    if "boom" in v:
        who = seats[v["boom"]["seat"]]
        out += _wrapped(f"Boom cards for {who} are drawn with the next beacon, each while "
                        f"yellow cubes are aboard: {draws_text(v['boom']['draws'])}.")
    if v["options"].get("hazardous") and not finished(v) and v["to_act"] >= 0:
        policy = v["turn"]["policy"]
        default = " (the default)" if policy == "stop" else ""
        out.append(f"Boom policy from here on: {policy}{default}: {POLICY[policy]}.")
        if v["turn"].get("draws"):
            out += _wrapped(f"Boom draws due this turn, each while yellow cubes are aboard: "
                            f"{draws_text(v['turn']['draws'])}.")
    out.append(f"Super Bonus deck: {v['superbonus']['deck']} card(s).")
    out += _wrapped(f"Action tokens, two faces each (a turn plays up to {v['actions_per_turn']} "
                    f"actions, each on a different token): {faces_text(v['tokens'])}.")
    return out


def _wrapped(text: str) -> list[str]:
    """A long status sentence as lines of at most 100 characters."""
    return textwrap.wrap(text, 100, subsequent_indent="  ")


def _road(v: dict[str, Any]) -> list[str]:
    length = v["board"]["length"]
    houses = v["board"]["houses"]
    cells = {(t["x"], t["lane"]): f"{i + 1}{ARROW[t['heading']]}"
             for i, t in enumerate(v["trucks"]) if t["where"] == "road"}
    north = [" "] * length
    south = [" "] * length
    for letter, h in houses.items():
        (north if h["side"] == "north" else south)[h["space"]] = letter
    numbers = "".join(f"{x:>3}" for x in range(length))
    lanes = [f"{lane:<6}" + "".join(f"{cells.get((x, lane), '.'):>3}" for x in range(length))
             for lane in ("north", "south")]
    return [
        "      " + "".join(f"{c:>3}" for c in north) + "   (warehouses north of the road)",
        lanes[0] + "   <- heading west keeps north",
        lanes[1] + "   -> heading east keeps south",
        "      " + "".join(f"{c:>3}" for c in south) + "   (warehouses south of the road)",
        "space" + " " + numbers,
    ]


def _card_line(c: dict[str, Any]) -> str:
    tag = {"hazardous": " hazardous", "perishable": " perishable"}.get(c["kind"], "")
    return (f"{c['id']:<4} {c['count']} {c['colour']:<7} -> {c['to']}  +{c['points']:<2} "
            f"-{c['penalty']}{tag}")


def _player(v: dict[str, Any], i: int, name: str, colours: list[str]) -> list[str]:
    t = v["trucks"][i]
    if not t["where"]:
        place = "not placed yet"
    elif t["where"] == "road":
        place = board.describe(("road", t["x"], t["lane"], t["heading"]))
    else:  # the heading it came in with, which backing out keeps (RM-M7)
        place = f"in warehouse {t['where']}" + (f", heading {t['heading']}" if t["heading"] else "")
    sb = v["superbonus"]
    lines = [f"  {i + 1}. {name:<10} score {v['scores'][i]:>3}   truck {place}, carrying "
             f"{cubes_text(t['cubes'], colours)}   Super Bonus held {sb['held'][i]}"
             + (f", drawn {sb['drawn'][i]} to choose" if sb["drawn"][i] else "")]
    for c in v["contracts"][i]:
        state = "done" if c["done"] else f"{c['cubes']}/{c['count']}"
        lines.append(f"       {_card_line(c)}  [{state}]")
    return lines


def _private_lines(v: dict[str, Any]) -> list[str]:
    priv = v["private"]
    rows = priv["superbonus"]
    if not rows:
        return []
    colours = [h["colour"] for h in v["board"]["houses"].values()]
    lines = ["Your Super Bonus cards:"]
    for row in rows:
        what = (f"{row['card']}: {cubes_text(row['need'], colours)}  +{row['points']} -{row['penalty']}"
                if row.get("need") else "(not readable yet)")
        lines.append(f"  {row['slot']:<4} {row['status']:<5} {what}")
    if priv["choice_due"]:
        lines.append("  Choose now: keep some (keep s3 s7), the rest under the deck (bottom ...).")
    return lines

"""What a seat sees (everything in this game is public) and its plain-text picture."""

from __future__ import annotations

from typing import Any

from pbem import game as contract
from pbem.game import State, secretdeck

from . import posse, setup_choices
from .components import card_text
from .constants import CREW_TYPES, GOODS, JUNCTION_DOCKS, JUSTIN, PLANET_GOODS, POSSE_HAND
from .describe import pending_text
from .scoring import justin_score, result, score_of
from .setup_choices import pickable_types
from .state import (
    allowed_actions,
    capacity,
    card,
    crew_counts,
    dock_dice,
    join_and,
    occupant,
    place_label,
    rascal_names,
    ship_name,
    tile,
    total,
)
from .turnflow import head_message, owed_head


def _nonzero(goods: dict[str, int]) -> dict[str, int]:
    return {g: n for g, n in goods.items() if n}


def _card_view(state: State, ident: str) -> dict[str, Any]:
    entry = card(state, ident)
    return {
        "id": ident, "kind": entry["kind"], "name": entry["name"], "vp": entry["vp"],
        "cost": " or ".join(_goods_text(c) for c in entry["cost"]), "text": card_text(entry),
    }


def _goods_text(goods: dict[str, int]) -> str:
    return " ".join(f"{g} {goods[g]}" for g in GOODS if goods.get(g)) or "-"


def _docked(state: State, place: str) -> str:
    key = occupant(state, place)
    return ship_name(state, key) if key else ""


def view(state: State, seat: int | None,
         secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    over = state["phase"] == "over"
    current = posse.to_act(state) if state["phase"] == "draft" else state["current"]
    out: dict[str, Any] = {
        "game": "red-dog-junction",
        "viewer": -1 if seat is None else seat,
        "variant": state["variant"],
        "solo": state["solo"],
        "phase": state["phase"],
        "turn": state["turn"],
        "to_act": "" if over else state["seats"][current],
        "bank": dict(state["bank"]),
        "box": _nonzero(state["box"]),
        "space": _nonzero(state["space"]),
        "planets": {p: {"stock": state["planets"][p], "ship": _docked(state, p)}
                    for p in PLANET_GOODS},
        "shop": {"name": state["rules"]["shop"], "ship": _docked(state, "shop"),
                 "stacks": {k: {"top": v[0] if v else "", "left": len(v),
                                "cost": _goods_text(tile(state, v[0])["cost"])
                                if v else ""}
                            for k, v in sorted(state["stacks"].items(), key=lambda i: int(i[0]))}},
        "dice": dict(state["dice"]),
        "ring": list(state["ring"]),
        "docks": [{"dock": n, "ship": _docked(state, f"junction {n}"),
                   "dice": dock_dice(state, f"junction {n}") if state["ring"] else []}
                  for n in range(1, JUNCTION_DOCKS + 1)],
        "display": [_card_view(state, c) for c in state["display"]],
        "deck": len(state["deck"]),
        "discard": len(state["discard"]),
        "players": [_player_view(state, i) for i in range(len(state["players"]))],
        "end": dict(state["end"]),
        "pending": [pending_text(r) for r in state.get("pending", [])],
        "last": list(state["last"]),
    }
    out["result"] = result(state)
    out["pickable"] = pickable_types(state) if state["phase"] == "pick" else {}
    if setup_choices.active(state):
        out["owed"] = setup_choices.ask(state, current)
    if state["variant"] == "posse" and state["phase"] in ("setup", "draft"):
        out["draft"] = _draft_view(state, seat, secrets)
    if state["phase"] == "play":
        ts = state["ts"]
        out["turn_state"] = {"actions": ts["actions"], "allowed": allowed_actions(state),
                             "agents_left": ts["agents_left"], "rascal": ts["rascal"],
                             "commanded": list(ts["commanded"])}
        head = owed_head(state, current)
        out["owed"] = head_message(state, current, head) if head else ""
    if state["solo"]:
        out["justin"] = _justin_view(state)
    owned = {c for p in state["players"] for c in p["commanders"] + p["boosts"]}
    out["cards"] = {c: card_text(card(state, c)) for c in sorted(owned)}
    return out


def _draft_view(state: State, seat: int | None,
                secrets: dict[str, dict[str, str]] | None) -> dict[str, Any]:
    """Posse's draft: public counts for everyone; the viewer's own hand, picks and the last
    card kept for the left player, from what the viewer can read (never anyone else's)."""
    draft = state["draft"]
    names = state["seats"]
    out: dict[str, Any] = {
        "hand_size": POSSE_HAND,
        "choices": {names[s]: draft["choices"][s] for s in range(len(names))},
        "holding": {names[s]: len(draft["queue"][s][0]) if draft["queue"][s] else 0
                    for s in range(len(names))},
        "can_pick": [names[s] for s in range(len(names)) if posse.hand(state, s)],
        # from three players, the seats still to pick in the step under way
        "picking": [names[s] for s in posse.simultaneous(state)],
        "waiting": posse.waiting_words(state) if state["phase"] == "draft" else "",
        "shown": draft["shown"],
    }
    if seat is None or state["phase"] != "draft":
        return out
    # (the viewer's own cards it has shown are public: its secrets may no longer list them)
    known = {**secretdeck.opened(state, posse.DECK), **posse.known(state, seat, secrets)}
    left = names[posse.left_of(state, seat)]

    def cards(slots: list[str]) -> list[dict[str, Any]]:
        return [{"slot": s, **_card_view(state, known[s])} for s in slots if s in known]

    current = posse.hand(state, seat)
    out["hand"] = [{**c, "move": f"pick {c['slot']}"} for c in cards(current)]
    out["pass_to"] = left
    out["picks"] = cards(posse.picks_of(state, seat))
    out["for_left"] = cards([s for s, who in draft["for_left"].items()
                             if who == posse.left_of(state, seat)
                             and secretdeck.holder(state, posse.DECK, s) == seat])
    out["incoming"] = [len(h) for h in draft["queue"][seat][0 if not current else 1:]]
    return out


def _player_view(state: State, seat: int) -> dict[str, Any]:
    player = state["players"][seat]
    score, parts, ties = score_of(state, seat)
    out = {
        "name": state["seats"][seat],
        "at": player["at"],
        "ship": _nonzero(player["ship"]),
        "load": total(player["ship"]),
        "capacity": capacity(state, seat),
        "storage": _nonzero(player["storage"]),
        "crew": {t: n for t, n in crew_counts(state, seat).items() if n},
        "commanders": list(player["commanders"]),
        "boosts": list(player["boosts"]),
        "played": list(player["played"]),
        "deals": list(player["deals"]),
        "score": score,
        "score_parts": parts,
        "tiebreaks": ties,
        "owes_pick": player["owes_pick"],
    }
    named = rascal_names(state, seat)
    if named:  # mid-turn only: "crew" counts each rascal once, under the type it names
        out["rascals"] = {t: named.count(t) for t in CREW_TYPES if t in named}
    return out


def _justin_view(state: State) -> dict[str, Any]:
    me = state[JUSTIN]
    score, parts, _ = justin_score(state)
    types = [card(state, c)["type"] or card(state, c)["kind"] for c in me["stack"]]
    return {
        "name": ship_name(state, JUSTIN), "at": me["at"], "ship": _nonzero(me["ship"]),
        "storage": _nonzero(me["storage"]), "stack": list(me["stack"]),
        "top": me["stack"][-1] if me["stack"] else "",
        "crew": {t: types.count(t) for t in dict.fromkeys(types)},
        "deals": list(me["deals"]), "awaiting": me["awaiting"], "score": score,
        "score_parts": parts, "next": state["display"][-1] if state["display"] else "",
    }


# ---- the picture ----------------------------------------------------------------------------
def _g(goods: dict[str, int], zeros: bool = False) -> str:
    """'gold 2, ruby 1' ('-' for nothing); with ``zeros`` the goods held at 0 are shown."""
    return ", ".join(f"{g} {goods[g]}" for g in GOODS
                     if goods.get(g) or (zeros and g in goods)) or "-"


def _result_text(result: dict[str, Any]) -> str:
    """The game's own result sentence; once the game is audited the session puts the
    engine's result section in its place (see pbem.drawing.panels.result_section), told
    here by its winner line (the CLI prints every score after the picture)."""
    if "text" in result:
        return str(result["text"])
    return contract.kit.winner_words(result) + "."  # the kit loads here, when first drawn


def _card_line(c: dict[str, Any], lead: str) -> str:
    vp = f" {c['vp']}vp" if c["kind"] != "boost" else ""
    return f"  {lead:<10} {c['id']:<14} {c['kind']:<9}{vp:>5}  cost {c['cost']:<24} {c['text']}"


def _draft_lines(v: dict[str, Any]) -> list[str]:
    """Posse's draft: whose entry, the counts, and the viewer's hand and picks."""
    d = v["draft"]
    chosen = ", ".join(f"{name} {n}" for name, n in d["choices"].items())
    who = draft_next(d) or f"{v['to_act']} signs the next entry"
    lines = [f"Red Dog Junction (posse), set-up: the Posse draft; {who}",
             f"  Cards chosen: {chosen} (of {d['hand_size'] - 1} each; every player's last card "
             "is the last of a hand, without a choice)."]
    if d["shown"]:
        lines.append("  Every choice is made: the players show what they kept; then the first "
                     "player, dice, gold and display.")
    if d["waiting"]:
        lines.append(f"  Waiting for: {d['waiting']}.")
    if d.get("hand"):
        names = list(d["choices"])
        viewer = names[v["viewer"]] if 0 <= v["viewer"] < len(names) else ""
        if len(names) > 2 and viewer not in d["picking"]:
            # A hand read before its step: the others' hands are still on their way.
            lines.append(f"Your next hand ({len(d['hand'])} cards; you pick one in the next "
                         f"step, the rest go to {d['pass_to']}):")
        else:
            lines.append(f"Your hand ({len(d['hand'])} cards; pick one, the rest go to "
                         f"{d['pass_to']}):")
        lines += [_card_line(c, c["move"]) for c in d["hand"]]
    for size in d.get("incoming", []):
        lines.append(f"A hand of {size} is on its way to you (deck work pending on it).")
    if "picks" in d:
        lines.append(f"Your picks so far ({len(d['picks'])}):" if d["picks"] else
                     "Your picks so far: none.")
        lines += [_card_line(c, c["slot"]) for c in d["picks"]]
    if d.get("for_left"):
        lines.append(f"Kept for {d['pass_to']} (the last card of your hand, theirs without a "
                     "choice):")
        lines += [_card_line(c, c["slot"]) for c in d["for_left"]]
    return lines


def draft_picking(d: dict[str, Any]) -> list[str] | None:
    """A Posse draft from three players picks in steps, each seat from its own hand, in
    parallel, and the deck work between and after the steps is the engine's to ask for,
    so no one seat "signs the next entry": the names still to pick in the step under way
    (the view's ``picking``, posse.simultaneous), [] between steps. None with two
    players, who pick in turn."""
    if len(d.get("choices", {})) < 3:
        return None
    return list(d.get("picking", []))


def draft_next(d: dict[str, Any]) -> str:
    """What comes next in a Posse draft from three players (:func:`draft_picking`), in
    words; '' with two, where one seat signs the next entry."""
    picking = draft_picking(d)
    if picking is None:
        return ""
    if picking:
        return f"{join_and(picking)} still to pick in this step"
    return "every pick is made" if d.get("shown") else ("the deck work on the hands comes before "
                                                    "the next picks")


def acting(v: dict[str, Any], name: str) -> bool:
    """Whether the player list marks ``name`` as acting: the seat to act, or in a Posse
    draft from three players the seats still to pick in the step (none between steps)."""
    picking = draft_picking(v.get("draft", {})) if v["phase"] == "draft" else None
    return name == v["to_act"] if picking is None else name in picking


def _rascal_words(rascals: dict[str, int]) -> str:
    """{'miner': 1, 'outlaw': 1} -> 'as miner 1, outlaw 1' (the named rascals)."""
    return "as " + ", ".join(f"{t} {n}" for t, n in rascals.items())


def _rascals_among(number: int) -> str:
    return "a rascal" if number == 1 else f"{number} rascals"


def render(v: dict[str, Any]) -> str:
    lines: list[str] = []
    head = f"Red Dog Junction ({v['variant']}{', solo' if v['solo'] else ''}), turn {v['turn']}"
    if v["phase"] == "over":
        reason = "deck ran out" if v["end"]["reason"] == "deck" else "bank gold ran out"
        lines.append(f"{head}: GAME OVER ({reason})")
        lines.append(f"  {_result_text(v['result'])}")
    elif contract.waiting_line(v):  # over, or an absence vote due: nobody simply to act
        lines.append(f"{head}: {contract.waiting_line(v)}")
    elif v["phase"] == "play":
        ts = v["turn_state"]
        extra = f", agents left {ts['agents_left']}" if ts["agents_left"] else ""
        rascals: dict[str, int] = next(
            (p.get("rascals", {}) for p in v["players"] if p["name"] == v["to_act"]), {})
        extra += f", rascals {_rascal_words(rascals)}" if rascals else ""
        lines.append(f"{head}: {v['to_act']} to act, actions {ts['actions']}/{ts['allowed']}"
                     f"{extra}")
        if v["owed"]:
            lines.append(f"  owed: {v['owed']}")
    elif v["phase"] == "pick":
        lines.append(f"{head}: Trail Boss set-up, {v['to_act']} picks a crew card before the "
                     "first turn; the display is dealt after the last pick")
        kinds = ", ".join(f"{t} x{n}" for t, n in v["pickable"].items())
        lines.append(f"  crew you may pick: {kinds} (not a rascal)")
        if v["owed"]:
            lines.append(f"  owed: {v['owed']}")
    elif v["phase"] == "draft":
        lines += _draft_lines(v)
    else:
        lines.append(f"{head}: set-up pending" + (": the start entry deals the Posse draft's "
                                                  "hands" if "draft" in v else ""))
    end = v["end"]
    if end["gold_fired"] and v["phase"] != "over" and not contract.ended_line(v):
        lines.append(f"  The bank's gold ran out: the game ends after turn {end['end_after']}.")
    lines.append(f"Bank: {_g(v['bank'], zeros=True)}   Box: {_g(v['box'])}   Space: {_g(v['space'])}")
    planets = "  ".join(f"{p} {d['stock']}" + (f" [{d['ship']}]" if d["ship"] else "")
                        for p, d in v["planets"].items())
    lines.append(f"Planets: {planets}")
    shop = v["shop"]
    stacks = "  ".join(f"{k}-gold: {s['top'] or 'empty'}" + (f" ({s['cost']}, {s['left']} left)"
                                                            if s["top"] else "")
                       for k, s in shop["stacks"].items())
    docked = f" [{shop['ship']}]" if shop["ship"] else ""
    lines.append(f"Shop{docked}: {stacks}")
    dice = v["dice"]
    if v["ring"]:
        ring = "  ".join(f"{d['dice'][0]} {dice[d['dice'][0]]}  [{d['dock']}: {d['ship'] or '-'}]"
                         for d in v["docks"])
        lines.append(f"Junction, gold die {dice['gold']}; dice and [docks] around the ring:")
        lines.append(f"  {ring}  (then {v['ring'][0]} again)")
    elif "draft" in v:
        lines.append("Junction: the dice are rolled and placed after the draft's last "
                     "choice, by the entry that draws the rest of set-up.")
    else:
        lines.append("Junction: the dice are rolled and placed by the start entry.")
    if v["phase"] in ("setup", "pick", "draft") and not v["display"]:
        lines.append(f"Display: dealt after set-up (deck {v['deck']}).")
    else:
        lines.append(f"Display (deck {v['deck']}, discard {v['discard']}), last card at the "
                     "right:")
    for c in v["display"]:
        vp = f" {c['vp']}vp" if c["kind"] != "boost" else ""
        lines.append(f"  {c['id']:<14} {c['kind']:<9}{vp:>5}  cost {c['cost']:<24} {c['text']}")
    lines.append("Players:")
    for p in v["players"]:
        mark = "*" if acting(v, p["name"]) and not contract.waiting_line(v) else " "
        lines.append(f" {mark}{p['name']:<10} at {place_label(p['at']):<18} ship "
                     f"{p['load']}/{p['capacity']}: {_g(p['ship'])}   storage: {_g(p['storage'])}"
                     f"   score {p['score']}")
        rascals = p.get("rascals", {})
        crew = ", ".join(f"{t} {n}" + (f" ({_rascals_among(rascals[t])})" if t in rascals else "")
                         for t, n in p["crew"].items())
        cards = [f"crew: {crew}"]
        if p["commanders"]:
            cards.append(f"commanders: {', '.join(p['commanders'])}")
        if p["boosts"]:
            cards.append(f"boosts: {', '.join(p['boosts'])}")
        if p["deals"]:
            cards.append(f"deals: {', '.join(p['deals'])}")
        if p["owes_pick"]:
            cards.append("Trail Boss pick owed")
        lines.append("   " + "   ".join(cards))
    if v["solo"]:
        j = v["justin"]
        wait = f", waiting for you to name a {j['awaiting']} dock" if j["awaiting"] else ""
        lines.append(f"  {j['name']} (automaton) at {place_label(j['at'])}{wait}: ship "
                     f"{_g(j['ship'])}   storage {_g(j['storage'])}   score {j['score']}")
        lines.append(f"   stack top {j['top'] or '-'} ({len(j['stack'])} cards)"
                     f"{', deals ' + ', '.join(j['deals']) if j['deals'] else ''}; "
                     f"next he takes {j['next'] or '-'}")
    if v["cards"]:
        lines.append("Commanders and boosts held:")
        lines.extend(f"  {k}: {t}" for k, t in v["cards"].items())
    for event in v["last"]:
        lines.append(f"Since your last look: {event}.")
    for pending in v["pending"]:
        lines.append(f"Pending chance: {pending}.")
    return "\n".join(lines)

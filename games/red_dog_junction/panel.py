"""The side panel of Red Dog Junction's picture (``svg.render_svg``): the game's status,
the final result once the game is complete and audited (the view's ``result``), and one
card per player (and one for Justin in the solo game), each with its ship's load."""

from __future__ import annotations

from typing import Any

from pbem.game import ended_line, kit, rank_with_tiebreaks, waiting_line

from .constants import CREW_TYPES, JUSTIN, JUSTIN_CAPACITY
from .palette import GOODS_KEY, PANEL_W, PANEL_X, goods_words, in_order, owner_colour
from .state import join_and, place_label
from .view import acting, draft_next

# What the status says of the turn in progress, for the turn state's keys that are set.
TURN_WORDS = (("agents_left", "Agents left in this action: {}"),
              ("rascal", "Rascals named this turn: {}"),
              ("commanded", "Commanders used this turn: {}"))


def _audited(view: dict[str, Any]) -> dict[str, Any] | None:
    """The engine's final result (``pbem.drawing.panels.result_section``), which the
    session puts in the view's ``result`` once the game is complete and audited; None
    while ``result`` is the game's own (scores by name, winners, a sentence) or empty."""
    result = view.get("result")
    return result if isinstance(result, dict) and "ranking" in result else None


def _final_places(view: dict[str, Any]) -> dict[int, int]:
    """Places once the game is over: the engine's ranking when the view carries the
    audited result, else ranked from the view's scores and tie-breaks."""
    audited = _audited(view)
    if audited is not None:
        return kit.result_places(audited)
    players = view.get("players", [])
    scores = {i: int(p.get("score", 0)) for i, p in enumerate(players)}
    ties = {i: [int(t) for t in p.get("tiebreaks", [])] for i, p in enumerate(players)}
    return {seat: place for place, group in enumerate(rank_with_tiebreaks(scores, ties), 1)
            for seat in group}


def _solo_verdict(view: dict[str, Any]) -> str:
    """Who won the solo game, as the outcome decides it: score, then unused boosts, then
    crew cards (Justin's boosts never stay unused)."""
    human, justin = view["players"][0], view["justin"]
    crews = sum(int(n) for t, n in justin.get("crew", {}).items() if t in CREW_TYPES)
    mine = (int(human.get("score", 0)), *[int(t) for t in human.get("tiebreaks", [])])
    his = (int(justin.get("score", 0)), 0, crews)
    name = str(human.get("name", ""))
    return (f"{name} beats Justin" if mine > his else
            "Justin wins" if his > mine else "a shared win with Justin")


def _status_lines(view: dict[str, Any]) -> list[str]:
    players = view.get("players", [])
    count = len(players)
    variant = {"trail-boss": "Trail Boss variant", "posse": "Posse variant"}.get(
        str(view.get("variant")), f"{view.get('variant', 'standard')} game")
    lines = [f"{variant} · " + ("solo (Trailblazer) against Justin" if view.get("solo")
                                else f"{count} players")]
    phase = view.get("phase")
    turn = view.get("turn", 0)
    end = view.get("end", {})
    if phase == "over":
        why = "the deck ran out" if end.get("reason") == "deck" else "the bank's gold ran out"
        lines.append(f"GAME OVER after turn {turn}: {why}.")
        places = _final_places(view)
        order = sorted(places, key=lambda s: (places[s], s))
        if _audited(view) is None:  # else the result panel below says it
            lines.append("Final: " + ", ".join(
                f"{places[s]}. {players[s].get('name', s)} {players[s].get('score', 0)}"
                for s in order))
            winners = view.get("result", {}).get("winners", []) if not view.get("solo") else []
            if winners:
                lines.append(("Winner: " if len(winners) == 1 else "Shared win: ")
                             + join_and([str(w) for w in winners]) + ".")
        if view.get("solo") and isinstance(view.get("justin"), dict):
            lines.append(f"Justin scored {view['justin'].get('score', 0)}: "
                         f"{_solo_verdict(view)}.")
    elif waiting_line(view):  # over, or an absence vote due: nobody simply to act
        lines.append(waiting_line(view))
    elif phase == "play":
        ts = view.get("turn_state", {})
        lines.append(f"Turn {turn} · To act: {view.get('to_act', '')}")
        lines.append(f"Actions taken {ts.get('actions', 0)} of {ts.get('allowed', 0)}")
        lines += [form.format(", ".join(value) if isinstance(value, list)
                              else ", ".join(str(value).split()) if key == "rascal" else value)
                  for key, form in TURN_WORDS if (value := ts.get(key))]
        if view.get("owed"):
            lines.append(f"Owed first: {view['owed']}")
    elif phase == "setup" and isinstance(view.get("draft"), dict):
        lines.append("Waiting for the start entry: it deals each player 9 cards, in secret, "
                     "for the Posse draft.")
    elif phase == "setup":
        lines.append("Waiting for the start entry: first player, dice placed around the "
                     "Junction" + (", Trail Boss commanders" if view.get("variant") == "trail-boss"
                                   else "") + ", starting gold.")
    elif phase == "draft":
        lines += _draft_lines(view)
    else:
        lines += _stage_lines(view)
    if end.get("gold_fired") and phase != "over" and not ended_line(view):
        lines.append(f"LAST TURNS: the bank's gold ran out; the game ends after turn "
                     f"{end.get('end_after', 0)}.")
    viewer = view.get("viewer", -1)
    if isinstance(viewer, int) and 0 <= viewer < count:
        lines.append(f"Seen by: {players[viewer].get('name', viewer)}")
    else:
        lines.append("Public view (what everyone sees)")
    lines += [f"Pending: {p}" for p in view.get("pending", [])]
    return lines


def _stage_lines(view: dict[str, Any]) -> list[str]:
    """A set-up stage (after the start entry, before the first turn): who chooses now,
    what may be chosen, who is still to choose."""
    players = view.get("players", [])
    still = [str(p.get("name", "")) for p in players if p.get("owes_pick")]
    lines = ["Set-up: Trail Boss crew picks, one entry each in turn order; the display is "
             "dealt after the last pick."]
    if view.get("to_act"):
        lines.append(f"To pick: {view['to_act']}")
    pickable = view.get("pickable", {})
    if pickable:
        lines.append("May pick from the deck: " + ", ".join(
            f"{t} x{n}" for t, n in pickable.items()) + " (no rascal)")
    if still:
        lines.append(f"Still to pick: {join_and(still)}")
    return lines


def _draft_lines(view: dict[str, Any]) -> list[str]:
    """Posse's draft, in public words: who signs next, the cards chosen, what it waits for."""
    draft = view.get("draft", {})
    chosen = ", ".join(f"{name} {n}" for name, n in draft.get("choices", {}).items())
    lines = [f"Set-up: the Posse draft. {draft.get('hand_size', 9)} cards each in secret; pick "
             "one, pass the rest to the left.",
             f"Next: {draft_next(draft)}" if draft_next(draft) else
             f"Next entry: {view.get('to_act', '')}",
             f"Cards chosen: {chosen} (of {int(draft.get('hand_size', 9)) - 1} each; the last "
             "card of a hand comes without a choice)"]
    if draft.get("waiting"):
        lines.append(f"Waiting for: {draft['waiting']}")
    if draft.get("shown"):
        lines.append("Every choice is made: the players show what they kept; then the first "
                     "player, dice, gold and display.")
    return lines


def _draw_status(out: kit.Canvas, view: dict[str, Any]) -> int:
    y = kit.status_block(out, PANEL_X, 0, PANEL_W, "Red Dog Junction", _status_lines(view),
                         strong=("Turn", "GAME OVER", "Pending", "To pick", "Next entry"),
                         alert=("LAST", "Owed"))
    audited = _audited(view)
    if audited is not None:
        y = kit.result_panel(out, PANEL_X, y, PANEL_W, audited) + 8
    return y


def _card_names(ids: list[str], used: list[str]) -> str:
    return ", ".join(f"{c} (used)" if c in used else c for c in ids)


def _player_lines(view: dict[str, Any], seat: int) -> list[str]:
    player = view["players"][seat]
    current = (player.get("name") == view.get("to_act") and view.get("phase") == "play"
               and not ended_line(view))
    ts = view.get("turn_state", {}) if current else {}
    crew = player.get("crew", {})
    lines = [f"at {place_label(str(player.get('at', '')))} · gold in storage "
             f"{player.get('storage', {}).get('gold', 0)}"]
    others = {g: n for g, n in player.get("storage", {}).items() if g != "gold"}
    if others:
        lines.append(f"storage also: {goods_words(others)}")
    rascals = player.get("rascals", {})
    lines.append("crew: " + (" · ".join(f"{t}\u00a0{n}" for t, n in crew.items()) or "none")
                 + (" (rascals as " + ", ".join(f"{t}\u00a0{n}" for t, n in rascals.items())
                    + ")" if rascals else ""))
    lines.append(f"commanders: {_card_names(player.get('commanders', []), ts.get('commanded', []))}"
                 if player.get("commanders") else "commanders: none")
    lines.append(f"unused boosts: {', '.join(player.get('boosts', [])) or 'none'}")
    if player.get("played"):
        lines.append(f"played this turn: {', '.join(player['played'])}")
    lines.append(f"super deals: {', '.join(player.get('deals', [])) or 'none'}")
    if player.get("owes_pick"):
        lines.append("Trail Boss: a crew pick is owed")
    draft = view.get("draft")
    if isinstance(draft, dict) and view.get("phase") == "draft":
        name = str(player.get("name", ""))
        holding = int(draft.get("holding", {}).get(name, 0))
        lines.append(f"Posse draft: {draft.get('choices', {}).get(name, 0)} chosen; "
                     + (f"a hand of {holding} " + ("to pick from" if name in
                                                   draft.get("can_pick", []) else "on its way")
                        if holding else "no hand yet"))
    parts = player.get("score_parts", {})
    lines.append(f"score {player.get('score', 0)} = "
                 + " + ".join(f"{k} {v}" for k, v in parts.items()))
    return lines


def _to_act(view: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` acts next: the player whose turn it is, or who chooses now in a
    set-up stage."""
    player = view["players"][seat]
    if view.get("phase") == "draft":  # Posse: the seats of the pick step, or with two
        return acting(view, str(player.get("name")))  # the seat that signs next
    if player.get("name") != view.get("to_act"):
        return False
    return view.get("phase") == "play" or (view.get("phase") not in ("setup", "over")
                                           and bool(player.get("owes_pick")))


def _player_marks(view: dict[str, Any], seat: int, places: dict[int, int]) -> list[str]:
    to_act = _to_act(view, seat) and not waiting_line(view)
    return kit.seat_marks(you=seat == view.get("viewer"), to_act=to_act,
                          place=places.get(seat, 0))


def _draw_owner_card(out: kit.Canvas, ident: str, key: str, owner: dict[str, Any],
                     marks: list[str], lines: list[str], top: int) -> int:
    """One panel card: the name and marks, the ship's load as cubes, then text lines."""
    wrapped = [part for text in lines for part in kit.wrap(text, PANEL_W - 24, 12)]
    height = 24 + 20 + 15 * len(wrapped) + 10
    out.open("g", id=ident, class_="player")
    x = kit.player_card(out, PANEL_X, top, PANEL_W, height, owner_colour(key),
                        str(owner.get("name", key)), f"({', '.join(marks)})" if marks else "")
    y = top + 40
    cargo = [g for g, n in in_order(owner.get("ship", {})) for _ in range(n)]
    limit = f"/{owner['capacity']}" if "capacity" in owner else ""
    out.text(x, y, f"ship {len(cargo)}{limit}", 12, font_weight="bold")
    GOODS_KEY.row(out, cargo[:18], x + 62, y - 10, 11, per_row=18)
    if len(cargo) > 18:
        out.text(x + 62 + 13 * 18, y, f"+{len(cargo) - 18}", 11)
    kit.write_lines(out, x, y, PANEL_W - 24, lines, size=12, leading=15)
    out.close()
    return top + height


def _justin_lines(view: dict[str, Any]) -> list[str]:
    justin = view["justin"]
    stack = justin.get("stack", [])
    lines = [f"at {place_label(str(justin.get('at', '')))} · gold in storage "
             f"{justin.get('storage', {}).get('gold', 0)}"]
    others = {g: n for g, n in justin.get("storage", {}).items() if g != "gold"}
    if others:
        lines.append(f"storage also: {goods_words(others)}")
    lines.append(f"stack: {len(stack)} cards, top {justin.get('top') or 'none'}")
    crew = justin.get("crew", {})
    lines.append("by type: " + (" · ".join(f"{t}\u00a0{n}" for t, n in crew.items()) or "none"))
    lines.append(f"super deals: {', '.join(justin.get('deals', [])) or 'none'}")
    if justin.get("awaiting"):
        lines.append(f"waiting for you to name a {justin['awaiting']} dock")
    if view.get("phase") != "over":
        lines.append(f"next he takes: {justin.get('next') or 'nothing'}")
    parts = justin.get("score_parts", {})
    lines.append(f"score {justin.get('score', 0)} = "
                 + " + ".join(f"{k} {v}" for k, v in parts.items()))
    return lines


def draw_panel(out: kit.Canvas, view: dict[str, Any]) -> int:
    y = _draw_status(out, view)
    places = _final_places(view) if view.get("phase") == "over" else {}
    for seat, player in enumerate(view.get("players", [])):
        y = _draw_owner_card(out, f"player-{seat}", str(seat), player,
                             _player_marks(view, seat, places), _player_lines(view, seat),
                             y) + 8
    if view.get("solo") and isinstance(view.get("justin"), dict):
        # His capacity is a rule, not state: the view has no entry for it.
        justin = dict(view["justin"], capacity=JUSTIN_CAPACITY)
        y = _draw_owner_card(out, "player-justin", JUSTIN, justin, ["automaton"],
                             _justin_lines(view), y) + 8
    return y

"""Whose turn, what a move does within it, and how a turn ends.

A turn is: the Super Bonus keep/return choice owed from the last turn (free, first), the
truck's placement on a first turn (free), then up to 4 actions on 4 different tokens
(RM-A1), plus the free hazardous-goods policy. Consecutive unload/dump moves make one
unload action (the rulebook's unload covers several contracts and the warehouse at once).

Hazardous goods (RM-H3..H8) in play by email: boom cards are chance, resolved by the
next player's beacon, so the turn's actions are applied up to the first draw; the later
ones are checked as if no boom came, then rolled back at the end of the turn and queued,
each with the policy in force when it was played (a policy holds from where it stands
until the next one; the draw after a load/forward/backward, or before an unload, goes
by its action's policy; see hazard.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.game import IllegalMoveError, derived, queue_chance, secretdeck

from . import actions, bonus_draw, tokens
from .model import add, blind_request, handle, log, needs_refill, new_turn, players, take_snapshot
from .notation import Move, parse, text

State = dict[str, Any]
ACTION_OF = {
    "forward": "forward",
    "backward": "backward",
    "load": "load",
    "unload": "unload",
    "dump": "unload",
    "contracts": "contracts",
    "superbonus": "superbonus",
}
DECK = "superbonus"


def is_over(state: State) -> bool:
    return bool(state["ended"])


# pbem ruling (the rulebook is silent): a game in which no score changes for many complete
# rounds could go on for ever (cubes or contracts exhausted, trucks locked together); it
# ends after STALLED_ROUNDS such rounds, or after STALLED_ROUNDS_EMPTY_DECK of them with
# the contract deck spent (the quiet rounds before the deck ran out do not count there).
STALLED_ROUNDS = 20
STALLED_ROUNDS_EMPTY_DECK = 10


def check_end(state: State, by_chance: bool = False) -> None:
    """RM-G1/G2: between turns, the game ends once someone has reached the target and
    every player has had as many turns (a round is complete); also when it has stalled
    (the pbem ruling above). ``by_chance``: checked as the last turn's boom cards are
    drawn, in the entry of the seat whose turn would come next."""
    done = state["turn_no"]
    if not done or done % players(state) != 0 or state["ended"]:
        return
    nxt = to_act(state)
    if max(state["scores"]) >= state["data"]["target"]:
        _end_game(state, "The target is reached and the round is complete: the game is over.")
        _hold_for(state, nxt if by_chance else None)
        return
    total = sum(state["scores"])
    still = total == state.get("round_score", 0)
    state["round_score"] = total
    state["quiet_rounds"] = state.get("quiet_rounds", 0) + 1 if still else 0
    state["quiet_empty"] = state.get("quiet_empty", 0) + 1 if still and not state["deck"] else 0
    if state["quiet_rounds"] >= STALLED_ROUNDS:
        _end_game(state, f"No score has changed for {state['quiet_rounds']} rounds: by the "
                         f"stall rule ({STALLED_ROUNDS} such rounds) the game is over.")
    elif state["quiet_empty"] >= STALLED_ROUNDS_EMPTY_DECK:
        _end_game(state, f"No score has changed for {state['quiet_rounds']} rounds, the last "
                         f"{state['quiet_empty']} of them with the contract deck spent: by the "
                         f"stall rule ({STALLED_ROUNDS_EMPTY_DECK} such rounds once the deck is "
                         "spent) the game is over.")
    _hold_for(state, nxt if by_chance else None)


def _hold_for(state: State, resolver: int | None) -> None:
    """Version 5, the game ended as the last turn's boom cards were drawn, in the entry of
    ``resolver`` (the seat whose turn would have come): with last choices to make, that
    entry is still the resolver's turn (its last choice if it has one, else nothing),
    since only the reveals would otherwise follow and the choices come first."""
    if resolver is not None and last_choosers(state):
        state["sb"]["resolver"] = resolver


# The rules version from which the last Super Bonus choices (cards drawn but not yet kept
# or returned when the rules end the game) are made in a turn of their own, all of them
# before any reveal: a reveal publishes its seat's seed, and so the cards it holds, and at
# a table every last choice is made before the hands are shown. Version 4 made each one
# in its seat's reveal, so a later chooser could read an earlier revealer's cards first.
LAST_CHOICES = 5


def _end_game(state: State, line: str) -> None:
    log(state, line)
    state["ended"] = True
    if state.get("rules", 0) >= LAST_CHOICES and "secret" in state:
        _open_last_choices(state)


def _open_last_choices(state: State) -> None:
    """Version 5: every open short draw stays as it is (bonus_draw.close_all), and the
    seats holding drawn cards make their last choice together (the step of ``last``)."""
    bonus_draw.close_all(state)
    last = [s for s in range(players(state)) if secretdeck.drawn(state, DECK, s)]
    if last:
        state["sb"]["last"] = last
        log(state, "Before any reveal, the last Super Bonus choices: "
                   f"{', '.join(handle(state, s) for s in last)}.")


def last_choosers(state: State) -> list[int]:
    """Version 5, once the rules ended the game: the seats still to make their last Super
    Bonus choice, in seat order (a simultaneous step: each chooses from its own cards, and
    no card returned then comes back to anyone); [] otherwise."""
    return list(state["sb"].get("last", [])) if is_over(state) else []


def settling(state: State) -> bool:
    """Version 5, after the last choices (which return nothing: bonus_draw.set_aside):
    cards returned before the end still owe shuffles (a return at the head of the last
    turn, say). The reveals wait for that work (the engine asks for it), so that they
    carry none and form a round. Not once the deck is closed (a seat played by the bot,
    whose key no work can use: no draw came after that, so no last choice either)."""
    return (is_over(state) and state["sb"].get("last") == [] and not state["sb"].get("closed")
            and bool(secretdeck.owing(state, DECK)))


def last_step(state: State) -> list[int]:
    """The seats of the step of the last choices under way (Game.simultaneous): the last
    choosers, once the resolver's turn (_hold_for) is played."""
    return [] if _resolver(state) is not None else last_choosers(state)


def _resolver(state: State) -> int | None:
    held = state["sb"].get("resolver") if is_over(state) else None
    return None if held is None else int(held)


def last_waits_on_deck(state: State) -> bool:
    """Version 5: a last chooser cannot read its drawn cards yet (other seats owe peels on
    them), or the last choices' returns owe shuffles: nobody decides anything until that
    deck work is done (the resolver's turn first: it is the entry that ended the game)."""
    if _resolver(state) is not None:
        return False
    return (any(not secretdeck.readable(state, DECK, s) for s in last_choosers(state))
            or settling(state))


def to_act(state: State) -> int | None:
    if state["first"] < 0:
        return None
    if is_over(state):
        resolver = _resolver(state)
        if resolver is not None:
            return resolver
        last = last_choosers(state)
        if last:
            return last[0]
        # The engine asks the owing seats for the work itself (Game.waits_on_deck).
        return secretdeck.owing(state, DECK)[0] if settling(state) else None
    return int((state["first"] + state["turn_no"]) % players(state))


def pending_secret_choice(state: State, seat: int) -> bool:
    """True while ``seat`` has drawn Super Bonus cards still to keep or return."""
    return "secret" in state and bool(bonus_draw.undecided(state, seat))


def choice_due(state: State, seat: int) -> bool:
    """The choice is owed now: at the head of the drawer's next turn (not the turn it
    drew in: in mental mode the cards become readable only after the others' entries),
    or once the game is over: in the step of the last choices (version 5), or in the
    drawer's final step, its reveal (versions 3 and 4)."""
    if not pending_secret_choice(state, seat) or not secretdeck.readable(state, DECK, seat):
        # In mental mode the cards become readable once every other seat has peeled its
        # layer (their chores); until then the choice waits and the turns go on.
        return False
    if is_over(state):
        return _last_choice_due(state, seat) if state.get("rules", 0) >= LAST_CHOICES else True
    if bonus_draw.waiting(state, seat):
        return False  # a short draw is chosen from once complete (bonus_draw)
    return to_act(state) == seat and not state["turn"]["drew_bonus"]


def _last_choice_due(state: State, seat: int) -> bool:
    """Version 5: a last chooser chooses in the entry that ended the game if that is its
    own (the resolver's), else in the step of the last choices, once no deck work is
    waited on (while it is, no seat has a decision to make: Game.waits_on_deck)."""
    resolver = _resolver(state)
    if resolver is not None:
        return seat == resolver and seat in last_choosers(state)
    return seat in last_choosers(state) and not last_waits_on_deck(state)


def _not_yet(state: State, seat: int) -> str:
    """Why a last chooser's choice is not due now ("" if it is, or nothing is owed)."""
    if (state.get("rules", 0) < LAST_CHOICES or seat not in last_choosers(state)
            or not secretdeck.readable(state, DECK, seat) or choice_due(state, seat)):
        return ""
    resolver = _resolver(state)
    if resolver is not None:
        return (f"First {handle(state, resolver)} plays the turn whose boom cards ended the "
                "game; the last Super Bonus choices come after it.")
    return ("The last Super Bonus choices wait until the secret-deck work owed now is done: "
            "another chooser's drawn cards are not readable yet.")


def yellow_aboard(state: State, seat: int) -> bool:
    colour = state["data"]["hazard"]
    return bool(colour) and state["trucks"][seat]["cubes"].get(colour, 0) > 0


def can_take(state: State, action: str) -> bool:
    """May the current turn take one more ``action`` (a token showing it is free)?"""
    turn = state["turn"]
    if action == "unload" and turn["last"] == "unload":
        return True  # continues the unload action under way
    # The tokens never change: whether a list of actions fits them is worked out once.
    data = state["data"]
    known: dict[tuple[str, ...], bool] = derived(data, "token fits", dict)
    wanted = (*turn["actions"], action)
    if wanted not in known:
        known[wanted] = tokens.fits(list(wanted), data["tokens"], data["per_turn"])
    return known[wanted]


def _token_refusal(state: State, action: str) -> str:
    used = state["turn"]["actions"]
    per_turn = state["data"]["per_turn"]
    if len(used) >= per_turn:
        return f"You have used all {per_turn} actions of this turn."
    return (f"No token left shows '{action}': this turn already used {', '.join(used)}, "
            "and each action needs a different token. Your tokens show "
            f"{tokens.faces_text(state['data']['tokens'])}.")


def apply(state: State, seat: int, raw: str) -> None:
    apply_parsed(state, seat, parse(state, seat, raw))


def apply_parsed(state: State, seat: int, move: Move) -> None:
    """Apply a move parsed from its canonical text."""
    kind = move["kind"]
    actor = to_act(state)
    if kind in ("keep", "bottom"):
        # The choice is legal at the head of the drawer's turn, and also after the end
        # (version 5: in the step of the last choices; before: the drawer's reveal).
        if is_over(state):
            if _not_yet(state, seat):  # else _check_drawn refuses a seat with no cards left
                raise IllegalMoveError(_not_yet(state, seat))
        elif actor is not None and (actor != seat or state["turn"]["drew_bonus"]):
            raise IllegalMoveError("Choose your Super Bonus cards at the start of your next turn.")
        if bonus_draw.waiting(state, seat):
            if actor is not None:
                raise IllegalMoveError(
                    f"Your Super Bonus draw still waits for {bonus_draw.waiting(state, seat)} "
                    "card(s) from the next returns under the deck: choose once it is complete.")
            bonus_draw.close(state, seat)  # the game is over: no later draw can come
        (actions.do_keep if kind == "keep" else actions.do_bottom)(state, seat, move)
        return
    if actor is None:
        raise IllegalMoveError("The game is over.")
    if is_over(state):
        raise IllegalMoveError("The game is over: only the last Super Bonus choices (keep, "
                               "bottom) are left before the reveals.")
    if actor != seat:
        raise IllegalMoveError(f"It is {handle(state, actor)}'s turn.")
    if choice_due(state, seat):
        raise IllegalMoveError("First choose your Super Bonus cards: "
                               f"{actions.choice_words(state, seat)}.")
    if kind == "place":
        actions.do_place(state, seat, move)
        return
    if not state["trucks"][seat]["where"]:
        letters = "|".join(state["data"]["houses"])
        raise IllegalMoveError(f"Place your truck first: place {letters}.")
    if kind == "policy":
        if not state["data"]["hazard"]:
            raise IllegalMoveError("A boom policy is for the hazardous goods option only.")
        state["turn"]["policy"] = move["policy"]
        return
    _act(state, seat, move)


def _act(state: State, seat: int, move: Move) -> None:
    turn = state["turn"]
    action = ACTION_OF[move["kind"]]
    cont = action == "unload" and turn["last"] == "unload"
    if not can_take(state, action):
        raise IllegalMoveError(_token_refusal(state, action))
    hazard = bool(state["data"]["hazard"])
    was_drawing = turn["draw"]
    # RM-H3: a boom card is drawn before an unload action while yellow is aboard.
    before = hazard and not was_drawing and action == "unload" and not cont and yellow_aboard(state, seat)
    snapshot = take_snapshot(state) if before else None
    blue = turn["blue"]
    perform(state, seat, move, turn, lambda request: queue_chance(state, request))
    if not cont:
        turn["actions"].append(action)
    turn["last"] = action
    if snapshot is not None:
        _start_queue(turn, snapshot, blue, first=False)
    if was_drawing or before:
        turn["queue"].append({"move": text(state, move), "cont": cont, "policy": turn["policy"]})
    elif hazard and action in ("load", "forward", "backward") and yellow_aboard(state, seat):
        # RM-H3: ... and after a load, forward or backward action.
        _start_queue(turn, take_snapshot(state), turn["blue"], first=True)
        turn.update(draw_move=text(state, move), draw_policy=turn["policy"])


def _start_queue(turn: dict[str, Any], snapshot: dict[str, Any], blue: int, first: bool) -> None:
    snapshot["blue"] = blue
    turn.update(draw=True, draw_first=first, snapshot=snapshot)


def perform(
    state: State, seat: int, move: Move, ctx: dict[str, Any],
    blind: Callable[[dict[str, Any]], None],
) -> None:
    """Carry out one action (validated inside); ``blind`` arranges a top-card draw (the
    request of model.blind_request)."""
    kind = move["kind"]
    if kind == "forward":
        actions.do_forward(state, seat, move)
    elif kind == "backward":
        actions.do_backward(state, seat, move)
    elif kind == "load":
        actions.do_load(state, seat, move, ctx)
    elif kind == "unload":
        actions.do_unload(state, seat, move)
    elif kind == "dump":
        actions.do_dump(state, seat, move, ctx)
    elif kind == "contracts":
        actions.do_contracts(state, seat, move)
        if move["top"]:
            request = blind_request(state, seat)
            blind(request)
            shown = f" (its back {request['back']})" if request["back"] else ""
            log(state, f"{handle(state, seat)} takes the top card of the deck{shown}, unseen.")
    elif kind == "superbonus":
        actions.do_superbonus(state, seat)
        ctx["drew_bonus"] = True


# The rules version from which the turn that ends the game asks for no market refill.
QUIET_END = 4
# Rules version 5: each reveal opens its seat's held Super Bonus cards, with proofs; the
# seed it publishes opens no other card (Game.opens_at_reveal).
OPEN_AT_REVEAL = 5


def end_turn(state: State, seat: int) -> None:
    if seat == _resolver(state):
        _end_resolver_turn(state, seat)
        return
    if seat in last_choosers(state):
        end_last_choice(state, seat)
        return
    if to_act(state) != seat:
        raise IllegalMoveError("It is not your turn.")
    if is_over(state):  # version 5, while the last choices' returns owe deck work
        raise IllegalMoveError("The game is over: only the reveals are left.")
    if choice_due(state, seat):
        raise IllegalMoveError(f"choose your Super Bonus cards: {actions.choice_words(state, seat)}")
    if not state["trucks"][seat]["where"]:
        raise IllegalMoveError(f"place your truck on a warehouse ({'|'.join(state['data']['houses'])})")
    turn = state["turn"]
    if turn["draw"]:
        snapshot = dict(turn["snapshot"])
        blue = snapshot.pop("blue")
        state.update(snapshot)  # roll back to the first draw; hazard.py replays the rest
        request = {"kind": "boom", "seat": seat, **boom_plan(turn), "blue": blue}
        queue_chance(state, request)
        log(state, f"{handle(state, seat)} drives on with hazardous goods: boom cards are drawn "
                   f"next ({len(turn['queue'])} action(s) wait; "
                   f"{policy_words(planned_draws(request))}).")
    else:
        finish_turn(state, seat, turn["blue"])
        if needs_refill(state):
            queue_chance(state, {"kind": "refill"})
    state["turn_no"] += 1
    state["turn"] = new_turn()
    if not turn["draw"]:
        check_end(state)  # else hazard.resolve_boom checks, once the draws are known (RM-X1)
        if state["ended"] and state.get("rules", 0) >= QUIET_END:
            # A market refilled now could change no score (RM-G3, G4): the final reveals
            # need wait for no chance.
            state["pending"] = [r for r in state.get("pending", []) if r.get("kind") != "refill"]


def _end_resolver_turn(state: State, seat: int) -> None:
    """The turn of the entry whose boom draws ended the game: its seat's last choice if
    it has one it can make now (else that comes in the step of the last choices)."""
    if seat in last_choosers(state) and secretdeck.readable(state, DECK, seat):
        end_last_choice(state, seat)
    del state["sb"]["resolver"]


def end_last_choice(state: State, seat: int) -> None:
    """Version 5: ``seat``'s turn of the last choices ends once it kept or returned every
    card it drew; the reveals begin after the last of these turns."""
    if pending_secret_choice(state, seat):
        if not secretdeck.readable(state, DECK, seat):
            raise IllegalMoveError("your drawn Super Bonus cards cannot be read yet: the other "
                                   "players have not unlocked them")
        raise IllegalMoveError(f"choose your Super Bonus cards: {actions.choice_words(state, seat)}")
    last = state["sb"]["last"]
    last.remove(seat)  # [] once every choice is made (kept: settling reads it)
    state["turn"] = new_turn()
    if not last:
        log(state, "Every last Super Bonus choice is made: the reveals follow.")


def boom_plan(turn: dict[str, Any]) -> dict[str, Any]:
    """The turn under way's boom draws, shaped as the request end_turn will queue."""
    first = turn["draw_first"]
    return {"first": first, "after": turn["draw_move"] if first else "", "moves": turn["queue"],
            "policy": turn["draw_policy"] if first or not turn["queue"] else turn["queue"][0]["policy"]}


def planned_draws(request: dict[str, Any]) -> list[dict[str, str]]:
    """Each boom draw a request may make, in order, with the policy that governs a first
    half boom there (RM-H5): {"when": "after"/"before", "move", "policy"}. A draw is made
    only while yellow cubes are aboard at that point; contracts and Super Bonus draw none."""
    out = []
    if request["first"]:
        out.append({"when": "after", "move": str(request.get("after", "")),
                    "policy": str(request["policy"])})
    for entry in request["moves"]:
        action = ACTION_OF[str(entry["move"]).split()[0]]
        policy = str(entry.get("policy", request["policy"]))
        if action == "unload" and not entry["cont"]:
            out.append({"when": "before", "move": str(entry["move"]), "policy": policy})
        elif action in ("load", "forward", "backward"):
            out.append({"when": "after", "move": str(entry["move"]), "policy": policy})
    return out


def policy_words(draws: list[dict[str, str]]) -> str:
    """'policy stop at every draw', or draw by draw when the policies differ."""
    policies = {d["policy"] for d in draws}
    if len(policies) == 1:
        return f"policy {policies.pop()} at every draw"
    return draws_text(draws)


def draws_text(draws: list[dict[str, str]]) -> str:
    """'after load yellow: policy stop; before unload h3 yellow x3: policy push'."""
    return "; ".join(f"{d['when']} {d['move']}: policy {d['policy']}" for d in draws)


def finish_turn(state: State, seat: int, blue_loaded: int) -> None:
    """End-of-turn effects on the truck: RM-P2 perishables spoil."""
    colour = state["data"]["perish"]
    if not colour:
        return
    aboard = state["trucks"][seat]["cubes"]
    lost = min(aboard.get(colour, 0), blue_loaded)
    if lost:
        add(aboard, colour, -lost)
        add(state["removed"], colour, lost)
        log(state, f"{lost} {colour} cube(s) spoil on {handle(state, seat)}'s truck.")

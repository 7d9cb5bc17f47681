"""Ending a turn: what is still owed, the cleanup refill, seasons, and the end of game."""

from __future__ import annotations

from pbem.game import IllegalMoveError, State, queue_chance

from .constants import SEASONS
from .state import (
    OWED,
    city_name,
    new_turn,
    note,
    put_sorted,
)
from .words import describe_token


def owed(state: State) -> str:
    """What the turn still needs before it can end ("" when it may end)."""
    return OWED.get(state["turn"]["phase"], "")


# The rules version from which the cleanup that ends the game asks for no chance: its
# token is the bag's only one, and no crew is refilled once the game is over (STS-G1).
QUIET_END = 4


def end_turn(state: State, seat: int) -> None:
    reason = owed(state)
    if reason:
        raise IllegalMoveError(reason)  # the engine says "the turn cannot end yet: ..."
    refill_city(state, state["turn"]["start"])
    quiet = state["over"] and state.get("rules", 0) >= QUIET_END
    if not quiet:
        refill_crews(state)
    state["turns"] += 1
    if state["over"]:
        note(state, "the last countdown token is placed: the game is over")
        if quiet and any(r.get("kind") != "token" for r in state.get("pending", [])):
            # A route or display drawn now could change no score (STS-G2, G3).
            state["pending"] = [r for r in state["pending"] if r.get("kind") == "token"]
            note(state, "the draws this turn asked for are not made: the game is over")
        state["turn"] = {}
        return
    state["current"] = (seat + 1) % len(state["players"])
    new_turn(state, state["current"])


def refill_city(state: State, city: str) -> None:
    """STS-CL1: ask for a bag token onto the city the turn began in. The draw that takes
    a season's last token ends the season (STS-CL2, in ``end_season`` when the draw is
    made); the cleanup placing the last countdown token ends the game (STS-G1)."""
    if state["bag_left"] == 0:
        return  # the countdown is spent (the game is over): the city stays empty
    state["bag_left"] -= 1
    if (state.get("rules", 0) >= QUIET_END and state["season"] == "countdown"
            and state["bag_left"] == 0 and len(state["bag"]) == 1):
        # The game's last token, the bag's only one: placed now, no draw to wait for.
        place_token(state, city, state["bag"].pop())
        state["over"] = True  # STS-G1
        end_season(state)
        return
    queue_chance(state, {"kind": "token", "city": city})
    note(state, f"a token will be drawn onto {city_name(state, city)} (with the next player)")
    if state["season"] == "countdown" and state["bag_left"] == 0:
        state["over"] = True  # STS-G1


def place_token(state: State, city: str, tid: str) -> None:
    """Put bag token ``tid`` on ``city``: orders order side up, others on their starting
    face."""
    state["map"][city] = {"token": tid, "gold": False}
    note(state, f"drawn onto {city_name(state, city)}: {describe_token(state['data'], tid, False)}")


def end_season(state: State) -> None:
    """STS-CL2..CL5, once the season's last token is drawn and placed: the tokens never
    drawn go to the box; unless the countdown is over, every supply and railcar on the
    map (the one just placed too) turns to its gold face and the next season fills the
    bag. The countdown's coming means each player, the one whose cleanup drew winter's
    last token included, plays exactly one more turn: one countdown token each."""
    index = SEASONS.index(state["season"])
    # Tokens never drawn this season (those removed at set-up) go to the box unseen.
    for tid in state["bag"]:
        put_sorted(state["box"], tid)
    state["bag"] = []
    if index + 1 == len(SEASONS):
        return
    # STS-CL3: every supply and railcar on the map turns to its upgraded face.
    for spot in state["map"].values():
        if spot["token"] and state["data"]["tokens"][spot["token"]]["kind"] != "order":
            spot["gold"] = True
    season = SEASONS[index + 1]
    state["season"] = season
    state["bag"] = state["waiting"].pop(season)
    state["bag_left"] = len(state["bag"]) - state["removal"].get(season, 0)
    state["boxed"] = []
    note(state, f"the last {SEASONS[index]} token is drawn: {SEASONS[index]} ends; supplies and "
                f"railcars on the map turn to their gold face; {season} begins with "
                f"{state['bag_left']} tokens in the bag")
    if season == "countdown":
        state["final_round"] = True  # STS-CL5: every player is on their last turn
        note(state, "the countdown tokens are in the bag: every player now plays one last turn, "
                    "each drawing one countdown token at its cleanup")


def refill_crews(state: State) -> None:
    """STS-C9 ruling: empty crew market slots are refilled at cleanup."""
    asked = {(r.get("deck"), r.get("region")) for r in state.get("pending", []) if r.get("kind") == "crew"}
    for deck in ("basic", "skilled"):
        stock = state["crews"][deck]
        for region, crew in stock["market"].items():
            if crew or (deck, region) in asked:
                continue
            if stock["deck"] or stock["discards"]:
                queue_chance(state, {"kind": "crew", "deck": deck, "region": region})
                note(state, f"the {deck} {region} crew slot will be refilled")


"""Choices the players make during set-up: after the start entry, before the first turn.

The start entry's chance settles everything random in the rulebook's set-up (first
player, dice, commanders, gold). A variant may then need a choice from each player before
the game begins: Trail Boss has every player pick an extra crew card from the deck
before the display is dealt, and only then is the deck shuffled (「各プレイヤーは、山札から
追加の乗組員カード(ラスカルを除く)を1枚選びます。山札をシャッフルしてゲームを開始します」).

Each choice is its own entry (a turn entry holding one move), in turn order from the first
player, so every player sees the choices before theirs. A stage is a phase of the state
("pick") with the seats still to choose in ``state["waiting"]``; ``STAGES`` lists each
variant's stages in order. After the last stage the display deal is queued as chance,
resolved by the beacon of the first player's first turn; with no stage it is dealt by the
start entry itself.

Posse's crew draft (phase "draft", posse.py) is a set-up stage of its own kind: the start
entry deals the hands and nothing else, its entries follow the secret deck's work rather
than the turn order, and it ends by drawing the rest of set-up; here it is only routed.
"""

from __future__ import annotations

from pbem.game import IllegalMoveError, Sampler, State, queue_chance

from . import posse
from .constants import CREW_TYPES, DISPLAY_SIZE
from .journal import note
from .move import Move
from .setup import deal_display, turn_order
from .state import card, card_words

# The set-up stages of each variant, in order; each stage's move verb is its name.
STAGES: dict[str, tuple[str, ...]] = {"trail-boss": ("pick",)}

ASKS = {"pick": "Pick your Trail Boss crew card from the deck (any crew but a rascal), "
                "e.g. `pick {example}`."}


# The phases of set-up stages: each of ASKS, and Posse's draft (see ``drafting``).
SETUP_PHASES = frozenset([*ASKS, "draft"])


def active(state: State) -> bool:
    """Whether the game is in a set-up stage (players choosing before the first turn)."""
    return state["phase"] in SETUP_PHASES  # asked before every move: one look-up


def drafting(state: State) -> bool:
    return bool(state["phase"] == "draft")


def begin(state: State, rng: Sampler) -> None:
    """After the start entry's chance: open the first stage, or deal and begin play."""
    state["setup_stages"] = list(STAGES.get(state["variant"], ()))
    _next_stage(state, rng)


def _next_stage(state: State, rng: Sampler | None) -> None:
    if state["setup_stages"]:
        stage = state["setup_stages"].pop(0)
        state["phase"] = stage
        state["waiting"] = turn_order(state)
        if stage == "pick":
            for seat in state["waiting"]:
                state["players"][seat]["owes_pick"] = True
        state["current"] = state["waiting"][0]
        return
    state["phase"] = "play"
    state["current"] = state["first"]
    if rng is not None:
        deal_display(state, rng)
    else:  # the first player's first turn resolves it
        queue_chance(state, {"kind": "deal", "count": DISPLAY_SIZE})


def pickable(state: State) -> list[str]:
    """Trail Boss: the deck's crew cards a player may pick (any but a rascal)."""
    return [c for c in state["deck"]
            if card(state, c)["kind"] == "crew" and card(state, c)["type"] != "rascal"]


def pickable_types(state: State) -> dict[str, int]:
    """Each crew type a Trail Boss player may pick, with how many the deck holds."""
    types = [card(state, ident)["type"] for ident in pickable(state)]
    return {t: types.count(t) for t in CREW_TYPES if t in types}


def ask(state: State, seat: int) -> str:
    """What the stage asks of ``seat`` now ("" once it has chosen)."""
    if drafting(state):
        return posse.ask(state, seat)
    if not active(state) or seat != state["current"] or not _owes(state, seat):
        return ""
    example = next(iter(pickable_types(state)), "miner")
    return ASKS[state["phase"]].format(example=example)


def _owes(state: State, seat: int) -> bool:
    return bool(state["players"][seat]["owes_pick"])


def legal(state: State, seat: int) -> list[Move]:
    """One pick of each crew type (copies are alike), while the seat still owes it."""
    if drafting(state):
        return posse.legal(state, seat)
    if seat != state["current"] or not _owes(state, seat):
        return []
    first: dict[str, str] = {}
    for ident in pickable(state):
        first.setdefault(card(state, ident)["type"], ident)
    return [Move("pick", card=first[t]) for t in CREW_TYPES if t in first]


def apply(state: State, seat: int, move: Move) -> None:
    """A set-up choice; any other move is refused with what is owed."""
    if drafting(state):
        posse.apply(state, seat, move)
        return
    if seat != state["current"]:
        raise IllegalMoveError(f"It is {state['seats'][state['current']]}'s set-up choice, not "
                               f"{state['seats'][seat]}'s.")
    if not _owes(state, seat):
        raise IllegalMoveError("Your set-up choice is made; the first turn waits for the other "
                               "players' choices. End here.")
    if move.verb != state["phase"]:
        raise IllegalMoveError("The game has not begun: " + ask(state, seat))
    _pick(state, seat, move.card)


def _pick(state: State, seat: int, ident: str) -> None:
    entry = card(state, ident)
    if ident not in state["deck"]:
        raise IllegalMoveError(f"{ident} is not in the deck.")
    if entry["kind"] != "crew" or entry["type"] == "rascal":
        raise IllegalMoveError("Pick a crew card that is not a rascal.")
    player = state["players"][seat]
    state["deck"].remove(ident)
    player["crew"].append(ident)
    player["owes_pick"] = False
    note(state, f"{state['seats'][seat]} picked {card_words(state, ident)} from the deck.")


def check_end(state: State, seat: int) -> None:
    if drafting(state):
        posse.check_end(state, seat)
        return
    if seat != state["current"]:
        raise IllegalMoveError(f"It is not {state['seats'][seat]}'s set-up choice.")
    if _owes(state, seat):
        raise IllegalMoveError(ask(state, seat))


def end(state: State, seat: int) -> None:
    """The seat's choice is made: the next seat chooses, or the next stage (or play)
    begins."""
    if drafting(state):
        posse.end(state, seat)
        return
    check_end(state, seat)
    state["waiting"].pop(0)
    if state["waiting"]:
        state["current"] = state["waiting"][0]
    else:
        _next_stage(state, None)

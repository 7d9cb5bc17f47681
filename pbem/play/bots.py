"""Bots: they pick moves from ``bot_moves`` (the legal moves, or a game's shorter list of
them) and go through the same checks as people.

``random[:SEED]`` plays uniformly among the legal moves (and "end the turn" when that is
allowed), reproducibly with a seed. ``greedy`` plays the move that most raises the
game's heuristic, one move at a time, and ends the turn when nothing beats ending it;
a turn that gains it nothing is now and then played at random (``STALL_ODDS``), so that
greedy players never stay stuck for ever.
``steady`` is the deterministic bot that plays an absent player's turns (PROTOCOL.md
section 11, ``Game.absent_turn``): greedy with ties broken by the order of the legal
moves and no randomness at all, so ``play --bot steady`` shows what it would do.
"""

from __future__ import annotations

from pbem.errors import MoveError, UsageError
from pbem.game import Game, State, copy_state, position_key
from pbem.hashing import sha256
from pbem.protocol.crypto import entropy
from pbem.protocol.crypto.sampler import Sampler

MAX_MOVES_PER_TURN = 60
END = "<end>"
STALL_ODDS = 4  # a greedy turn that gains nothing is played at random once in this many


def parse_bot(spec: str) -> tuple[str, str]:
    name, _, arg = spec.partition(":")
    if name not in ("random", "greedy", "steady"):
        raise UsageError(f"There is no bot '{name}'. Bots: random[:SEED], greedy, steady.")
    return name, arg


Secrets = dict[str, dict[str, str]]


def choose_turn(game: Game, state: State, seat: int, spec: str, salt: str = "",
                secrets: Secrets | None = None) -> list[str]:
    """A whole turn for ``seat`` chosen by the bot ``spec``; ``state`` is not changed.
    ``secrets``: the seat's own readable secret cards (as ``view`` gets them), which the
    greedy bot weighs through ``Game.heuristic_knowing`` (and ``Game.bot_state``); never
    another seat's."""
    name, arg = parse_bot(spec)
    if name == "steady":
        return game.absent_turn(copy_state(state), seat)
    seed = (arg or entropy.fresh_bytes(16).hex()) + "/" + salt
    rng = Sampler(sha256(f"pbem/bot/{seed}".encode()))
    working = _working(game, state, seat, secrets)
    before = game.heuristic_knowing(working, seat, secrets or {}) if name == "greedy" else 0
    chosen: list[str] = []
    # States this turn has been in (a move back to one is a loop), the Fixed tables every
    # copy shares standing in by identity (position_key): not written out per move.
    seen = {position_key(working)}
    for _ in range(MAX_MOVES_PER_TURN):
        options = game.bot_moves(working, seat)
        can_end = game.can_end_turn(working, seat)
        if not options:
            break
        move = _random_pick(rng, options, can_end) if name == "random" else _greedy_pick(
            game, working, seat, options, can_end, rng, secrets or {})
        if move == END:
            break
        trial = copy_state(working)
        game.apply(trial, seat, move)
        key = position_key(trial)
        if key in seen and can_end:
            break  # e.g. toggling a setting back and forth: nothing more to gain
        seen.add(key)
        working = trial
        chosen.append(move)
    if not game.can_end_turn(working, seat):
        # Finish with whatever ends the turn soonest (e.g. jettisoning down to capacity).
        for _ in range(MAX_MOVES_PER_TURN):
            options = game.bot_moves(working, seat)
            if not options:
                break
            move = options[rng.randbelow(len(options))]
            game.apply(working, seat, move)
            chosen.append(move)
            if game.can_end_turn(working, seat):
                break
    if name == "greedy" and _gained(game, working, seat, secrets or {}) <= before \
            and rng.randbelow(STALL_ODDS) == 0:
        # Nothing it sees raises its heuristic: one move ahead, every player can be stuck
        # where staying put beats each single move (and the game never ends). Now and
        # then such a turn is played at random instead, which gets the game going again.
        return choose_turn(game, state, seat, f"random:{seed}", "stalled", secrets)
    return chosen


def _gained(game: Game, working: State, seat: int, secrets: Secrets) -> int:
    """The heuristic once the turn is ended (what lasts only for the turn is gone)."""
    if not game.can_end_turn(working, seat):
        return game.heuristic_knowing(working, seat, secrets)
    trial = copy_state(working)
    game.end_turn(trial, seat)
    return game.heuristic_knowing(trial, seat, secrets)


def _working(game: Game, state: State, seat: int, secrets: Secrets | None) -> State:
    working = copy_state(state)
    return working if secrets is None else game.bot_state(working, seat, secrets)


def _random_pick(rng: Sampler, options: list[str], can_end: bool) -> str:
    pool = options + ([END] if can_end else [])
    return pool[rng.randbelow(len(pool))]


def _greedy_pick(game: Game, state: State, seat: int, options: list[str], can_end: bool,
                 rng: Sampler, secrets: Secrets) -> str:
    best_move = END
    best_score: int | None = None
    if can_end:
        trial = copy_state(state)
        game.end_turn(trial, seat)
        best_score = game.heuristic_knowing(trial, seat, secrets)
    for move in options:
        trial = copy_state(state)
        try:
            game.apply(trial, seat, move)
        except MoveError:
            continue
        score = game.heuristic_knowing(trial, seat, secrets)
        if best_score is None or score > best_score:
            best_move, best_score = move, score
    if best_move == END and not can_end:
        return options[rng.randbelow(len(options))]
    return best_move


def choose_free_moves(game: Game, state: State, seat: int, spec: str, salt: str = "",
                      secrets: Secrets | None = None) -> list[str]:
    """Moves still open to ``seat`` outside a turn (after the game is over), until none
    are left: random picks uniformly, greedy by the heuristic."""
    name, arg = parse_bot(spec)
    if name == "steady":
        arg = arg or "steady"  # no randomness: the same choice on every machine
    rng = Sampler(sha256(f"pbem/bot/{arg or entropy.fresh_bytes(16).hex()}/{salt}".encode()))
    working = _working(game, state, seat, secrets)
    chosen: list[str] = []
    for _ in range(MAX_MOVES_PER_TURN):
        options = game.bot_moves(working, seat)
        if not options:
            break
        if name == "random":
            move = options[rng.randbelow(len(options))]
        else:
            move = _greedy_pick(game, working, seat, options, False, rng, secrets or {})
        game.apply(working, seat, move)
        chosen.append(move)
    return chosen

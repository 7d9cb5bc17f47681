"""Entries that answer themselves (PROTOCOL.md section 12): what ``pbem sync`` and
``pbem inbox --answer`` sign for a player unless the player switched it off.

An entry answers itself when it holds no decision: a reveal once the rules have ended
the game (with no choice still owed in it), or a turn whose whole content is forced: at
every step exactly one legal move and the turn not yet allowed to end, until it may end
with no move left (a forced pass, chores with nothing else). Any step with two options,
or with one move and the choice of ending instead, is a choice: never made for a person.
Joins, starts, votes, absences and resignations never answer themselves.

The switch: the profile's ``auto_answer`` (the home) and ``[games.ID] auto_answer`` (one
game, which wins over the home's); on unless switched off (format pbem/2: an entry with
no decision should cost nobody a day)."""

from __future__ import annotations

from pathlib import Path

from pbem import session
from pbem.errors import MoveError, PbemError
from pbem.mail import profile
from pbem.protocol.crypto.identity import Home

MAX_FORCED_STEPS = 200  # a forced turn longer than this is treated as a choice


def forced_moves(turn: session.Owed) -> list[str] | None:
    """The moves of the entry ``turn`` owes if they are forced (possibly none), else None."""
    if turn.kind == "reveal" and not turn.takes_moves:
        return []
    if turn.kind not in ("turn", "reveal"):
        return None
    state = turn.state
    moves: list[str] = []
    for _ in range(MAX_FORCED_STEPS):
        options = turn.options(state)
        can_end = turn.unfinished(state) is None
        if not options:
            return moves if can_end else None
        if can_end or len(options) != 1:
            return None  # ending now or moving on, or two moves: a choice
        try:
            state, move = turn.step(state, options[0])
        except MoveError:
            return None
        moves.append(move)
    return None


def enabled(home: Home, game_id: str) -> bool:
    """Whether this home answers such entries of this game by itself."""
    current = profile.load(home)
    per_game = profile.game_setting(current, game_id, "auto_answer")
    if isinstance(per_game, bool):
        return per_game
    return current.extra.get("auto_answer") is not False


def answer(home: Home, path: str | Path) -> session.Written | None:
    """Sign the entry owed in the save at ``path`` if it answers itself (written next to
    the save); None if this home owes nothing there or the entry holds a choice. Raises
    what signing raises (a changed key, a stale save: never signed over)."""
    turn = session.owed(home, path)
    moves = forced_moves(turn)
    if moves is None:
        return None
    return session.sign_next(home, path, None, moves, None, None)


def nothing_to_decide(home: Home, path: str | Path) -> tuple[str, list[str]] | None:
    """The entry this home owes in the save at ``path``, in words, and its moves, when it
    holds no decision ('deck work only', 'forced: pass'); None when it holds a choice,
    or this home owes nothing there."""
    try:
        turn = session.owed(home, path)
        moves = forced_moves(turn)
    except PbemError:
        return None
    if moves is None:
        return None
    if moves:
        return "forced: " + "; ".join(moves), moves
    if turn.kind == "reveal":
        return "a reveal with nothing to choose", []
    return ("deck work only" if _secret_decks(turn.state) else "no move to make"), []


def _secret_decks(state: object) -> bool:
    """Whether the game deals from a mental deck (an entry with no moves does its work)."""
    decks = state.get("secret") if isinstance(state, dict) else None
    return isinstance(decks, dict) and any(
        isinstance(d, dict) and d.get("mode") == "mental" for d in decks.values())

"""Applying one whole turn and resolving queued chance: the core shared by the signed
engine, the local table used in tests and bots, and `moves`/`--dry-run`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pbem.errors import MoveError, TurnError
from pbem.game import Game, State, copy_state, play_move
from pbem.protocol.crypto.sampler import Sampler
from pbem.terminal import shortened, shown

MOVE_SEPARATOR = ";"


def split_moves(args: Iterable[str]) -> list[str]:
    """Moves as typed: an argument (or a line) may hold several, separated by ';', which
    is how ``play`` and ``log`` print a turn. Empty parts are dropped."""
    out: list[str] = []
    for arg in args:
        out += [part.strip() for part in arg.split(MOVE_SEPARATOR) if part.strip()]
    return out


def apply_moves(game: Game, state: State, seat: int, moves: Iterable[str]) -> list[str]:
    """Apply moves in place (normalizing each); return the canonical strings.

    A failing move is re-raised with its position so the user knows which one."""
    canonical: list[str] = []
    for index, text in enumerate(moves, start=1):
        try:
            move = play_move(game, state, seat, text)
        except MoveError as exc:
            # The game's message may quote the move, which the file bounds only to 16 KB.
            said = exc.message.replace(text, shown(text)) if len(text) > 40 else exc.message
            raise type(exc)(f"move {index} ({shown(text)}): {shortened(said)}",
                            code=exc.code) from None
        canonical.append(move)
    return canonical


def play_turn(game: Game, state: State, seat: int, moves: Iterable[str], *,
              in_place: bool = False) -> tuple[State, list[str]]:
    """A copy of ``state`` after ``seat`` plays ``moves`` as one whole turn; with
    ``in_place``, ``state`` itself (half-changed if it raises: throw it away then)."""
    actor = game.to_act(state)
    if actor is None:
        raise TurnError("The game is over; no more turns can be played.")
    if actor != seat and seat not in game.simultaneous(state):
        raise TurnError(f"It is not seat {seat}'s turn (seat {actor} is to act).")
    working = state if in_place else copy_state(state)
    canonical = apply_moves(game, working, seat, moves)
    try:
        game.end_turn(working, seat)
    except MoveError as exc:
        raise type(exc)(f"the turn cannot end yet: {shortened(exc.message)}",
                        code=exc.code) from None
    return working, canonical


def resolve_pending(
    game: Game, state: State, rng_for: Callable[[int], Sampler], *, signer: int | None = None,
    signer_of: Callable[[int], int] | None = None,
) -> None:
    """Resolve, in place and in order, every pending request that may be resolved now.

    Requests carry the ``seq`` of the entry that queued them. With ``signer`` and
    ``signer_of`` given, a request queued by that same signer stays pending (it must
    be resolved by a different seat's beacon); otherwise all are resolved. Each
    entry's requests share one sampler: ``rng_for(seq)``."""
    pending = state.get("pending", [])
    if not pending:
        return
    keep: list[dict] = []
    ready: list[dict] = []
    for request in pending:
        seq = request.get("seq", -1)
        if signer is not None and signer_of is not None and signer_of(seq) == signer:
            keep.append(request)
        else:
            ready.append(request)
    state["pending"] = keep
    samplers: dict[int, Sampler] = {}
    for request in ready:
        seq = request.get("seq", -1)
        if seq not in samplers:
            samplers[seq] = rng_for(seq)
        body = {k: v for k, v in request.items() if k != "seq"}
        game.resolve(state, body, samplers[seq])


def stamp_pending(state: State, seq: int) -> None:
    """Mark requests queued during entry ``seq`` with it."""
    for request in state.get("pending", []):
        request.setdefault("seq", seq)

"""What a save whose next entries are a round tells its reader to do (docs/protocol-rounds.md):
every seat still to sign in it (a join, a reveal, a turn of a simultaneous step) signs on
it now, in parallel."""

from __future__ import annotations

from pathlib import Path

from pbem.errors import TurnError
from pbem.home import sealed
from pbem.protocol.state.table import Table


def reveals_step(table: Table, missing: list[int], me: int | None) -> str:
    """What to do with a save whose final reveals are a round (PROTOCOL.md section 4):
    every seat still to reveal reveals on it now, in parallel, the signer too if it is
    one of them."""
    others = [table.seats[s].handle + (f" <{table.seats[s].email}>" if table.seats[s].email
                                        else "") for s in missing if s != me]
    mine = " You reveal now too: 'pbem play' on this save." if me in missing else ""
    if not others:
        return mine.strip()
    return (f"Send it to {', '.join(others)}, who reveal{'s' if len(others) == 1 else ''} "
            f"with 'pbem play': the final reveals are signed in parallel.{mine}")


def joins_step(table: Table, missing: list[int]) -> str:
    """What to do with a save whose joins are a round (PROTOCOL.md section 4): every seat
    still to join joins on it, in parallel, and mails its join to every other seat."""
    names = [table.seats[s].handle + (f" <{table.seats[s].email}>" if table.seats[s].email
                                       else "") for s in missing]
    if table.round_first < 0:  # the invitation: nobody has joined yet
        return (f"Send it to {', '.join(names)}, who each join it with 'pbem join', in "
                "parallel, and mail their join to every other player.")
    return (f"Send it to every other player: the joins are signed in parallel, and "
            f"{', '.join(names)} still join{'s' if len(names) == 1 else ''}. The host "
            "starts once one save holds every join: 'pbem inbox' and 'pbem sync' assemble "
            "them by themselves, 'pbem merge' from files.")


def turns_step(table: Table, missing: list[int], me: int | None) -> str:
    """What to do with a save whose next turns are the round of a simultaneous step
    (docs/protocol-rounds.md): every seat still to act in it plays on it now, in
    parallel, the signer too if it is one of them, and mails its entry to every other
    player."""
    others = [table.seats[s].handle + (f" <{table.seats[s].email}>" if table.seats[s].email
                                        else "") for s in missing if s != me]
    kind = table.step_kind()
    what = {"sealed": "the sealed turns of a simultaneous step are signed in parallel (each "
                      "commits to its moves, opened once every seat has committed)",
            "opening": "the sealed moves are opened in parallel ('pbem play' with no moves "
                       "opens what this home sealed)"}.get(
        kind, "the turns of a simultaneous step are signed in parallel")
    mine = " You play now too: 'pbem play' on this save." if me in missing else ""
    if not others:
        return mine.strip()
    return (f"Send it to every other player: {what}, and {', '.join(others)} still "
            f"play{'s' if len(others) == 1 else ''}.{mine}")


def kept_opening(home_path: Path, table: Table, kind: str, seat: int
                 ) -> tuple[int, list[str]] | None:
    """(seq of the commitment, the moves sealed in it as typed) where ``seat``'s ``kind``
    of entry opens a sealed step and this home kept what it sealed; None otherwise
    (another home's seal is opened by typing the same moves again, which only the engine
    can check)."""
    committed = table.commitment(seat) if kind == "turn" else None
    if committed is None:
        return None
    kept = sealed.sealed_moves(home_path, table.game_id, committed[0])
    return None if kept is None else (committed[0], kept)


def opening_next(at: int, moves: list[str], typed: list[str]) -> list[str]:
    """The one move an opening of the ``moves`` sealed in entry ``at`` takes after
    ``typed`` ([] once all are typed); TurnError, as 'play' gives, if ``typed`` strays
    from them."""
    if typed != moves[:len(typed)]:
        raise TurnError(f"These are not the moves you sealed in entry {at}: a sealed "
                        "step's moves are opened exactly as they were sealed.", code="sealed")
    return moves[len(typed):len(typed) + 1]

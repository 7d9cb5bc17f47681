"""What a save whose next entries are the round of a simultaneous step tells its reader
to do (docs/protocol-rounds.md): every seat still to act plays on it now, in parallel."""

from __future__ import annotations

from pbem.protocol.state.table import Table


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

"""`pbem demo`: a whole game between bots, each in its own home, hand to hand.

Every hop reads the previous player's file from disk in the next player's home and
verifies the whole history there before signing, exactly as people do by email.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem import session
from pbem.errors import UsageError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.state.table import Report
from pbem.registry import load as load_game

HANDLES = ["ann", "bob", "cy", "dee", "eve", "fay"]
MAX_ENTRIES = 5000


@dataclass
class DemoResult:
    folder: Path
    report: Report
    last_save: Path
    hops: int


def run(ruleset: str, players: int | None, options: list[str], bot: str, folder: str | None,
        echo: Callable[[str], None] = print) -> DemoResult:
    game = load_game(ruleset)
    n = players if players is not None else max(game.info.min_players, min(3, game.info.max_players))
    if not game.info.min_players <= n <= game.info.max_players:
        raise UsageError(f"{game.info.title} takes {game.info.min_players} to "
                         f"{game.info.max_players} players, not {n}.")
    base = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    saves = base / "saves"
    saves.mkdir(parents=True, exist_ok=True)
    handles = HANDLES[:n]
    homes: dict[str, Home] = {}
    for handle in handles:
        home = Home(base / "homes" / handle)
        if not home.has_identity():
            home.keygen(handle)
        homes[handle] = home
        echo(f"{handle}: identity {home.load().fingerprint} in {home.path}")
    written = session.new_game(homes[handles[0]], ruleset, handles, options, None, folder=saves)
    echo(f"{handles[0]} created {game.info.title} ({written.table.game_id[:8]}) -> "
         f"{written.path.name}")
    hops = 1
    while True:
        duty = written.table.duty()
        if duty is None:
            break
        if hops > MAX_ENTRIES:
            raise UsageError(f"The demo stopped after {MAX_ENTRIES} entries without an end.")
        if written.table.round_missing():
            written = _round(written, homes, bot, echo)
            hops += 1
            continue
        handle = written.table.seats[duty.seat].handle
        kind = "join" if duty.kind == "join" else None
        written = session.sign_next(homes[handle], written.path, kind, [],
                                    bot if duty.kind in ("turn", "reveal") else None, None)
        entry = written.entry
        echo(f"{entry['seq']:4d} {handle:4} {entry['kind']:6} {_done(entry)}".rstrip())
        hops += 1
    # Every player checks the final save in their own home.
    final = None
    for handle in handles:
        final = session.load(written.path, homes[handle])
    assert final is not None
    echo(f"Final save {written.path.name} verified in all {n} homes.")
    return DemoResult(base, final.report, written.path, hops)


def _done(entry: dict[str, Any]) -> str:
    """What an entry did, after its kind: its moves; a turn with none that only did the
    secret-deck work its seat owed says so (it is no move of the game)."""
    if entry["kind"] == "turn" and not entry["moves"] and entry.get("chores"):
        return "(secret-deck work)"
    return "; ".join(entry["moves"])


def _round(before: session.Written, homes: dict[str, Home], bot: str,
           echo: Callable[[str], None]) -> session.Written:
    """A round (PROTOCOL.md section 4), as people play it by mail: every seat of it signs
    on the same save, in its own home (its bot choosing the turns of a simultaneous step,
    as a Posse draft's picks), and mails its entry to everyone; each home verifies every
    one, and the seat that acts after the round assembles them (one hop)."""
    from pbem.session import rounds

    table = before.table
    parts: list[session.Written] = []
    for seat in table.round_missing():
        handle = table.seats[seat].handle
        duty = table.duty_for(seat)
        kind = "join" if duty is not None and duty.kind == "join" else None
        chooses = duty is not None and duty.kind in ("turn", "reveal")
        parts.append(session.sign_next(homes[handle], before.path, kind, [],
                                       bot if chooses else None, None))
        entry = parts[-1].entry
        echo(f"{entry['seq']:4d} {handle:4} {entry['kind']:6} (in a round) "
             f"{_done(entry)}".rstrip())
    for home in homes.values():
        for part in parts:
            session.load(part.path, home)
    # Any home holding every entry of the round assembles it: the last signer's here.
    last = parts[-1].entry["seat"]
    path, save, _ = rounds.merge_files([p.path for p in parts], homes[last], None)
    verified = session.load(path, homes[last])
    echo(f"     {last:4} assembled the round -> {path.name}")
    return session.Written(path, save, verified.table, save.entries[-1])

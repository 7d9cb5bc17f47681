"""Shared helpers for the benchmarks: timing with medians, games built in memory."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbem import registry  # noqa: E402
from pbem.play import bots  # noqa: E402
from pbem.protocol import engine  # noqa: E402
from pbem.protocol.identity import Home  # noqa: E402
from pbem.protocol.savefile import Save  # noqa: E402


def register_test_games() -> None:
    from tests.support.dice_race import GAME

    registry.register("dice-race", GAME)


def median_time(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Median wall time of ``fn`` in seconds over ``repeat`` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def homes(n: int) -> list[Home]:
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    made = []
    for i in range(n):
        home = Home(root / f"p{i}")
        home.keygen(f"p{i}")
        made.append(home)
    return made


def build_game(ruleset: str, players: int, options: list[str], bot: str = "random:1",
               max_entries: int | None = None) -> Save:
    """A whole game signed in memory (no files), each seat with its own identity."""
    game = registry.load(ruleset)
    people = homes(players)
    ids = [h.load() for h in people]
    typed = engine.parse_options(game, options)
    header = engine.new_header(game, [(i.handle, "") for i in ids], typed)
    table = engine.empty_table(header)
    entries = []
    while True:
        duty = table.duty()
        if duty is None or (max_entries is not None and len(entries) >= max_entries):
            break
        who = ids[duty.seat]
        shown = engine.preview(table, who)
        kind = shown.duty().kind  # type: ignore[union-attr]
        moves: list[str] = []
        if kind == "turn":
            moves = bots.choose_turn(shown.game, shown.gstate, duty.seat, bot,
                                     salt=str(len(entries)))
        entry, table = engine.sign_entry(table, who, kind, moves)
        entries.append(entry)
    return Save(header, entries, engine.public_state(table))


def loadable_games() -> list[str]:
    """Installed games that load (a game still being written is skipped, with a note)."""
    from pbem.errors import PbemError

    names = []
    for name in registry.names():
        try:
            registry.load(name)
        except PbemError as exc:
            print(f"  (skipping {name}: {exc.message})")
            continue
        names.append(name)
    return names

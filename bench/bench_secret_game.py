"""Road Master with the mental deck: verify of a 6-player game with Super Bonus draws,
with the end-of-game audit (shuffle passes re-done, key points checked, every slot opened)
and without, where the time goes, and the final save verified in a player's home (which
verified every entry but the last, so it checks no proof twice).

    python bench/bench_secret_game.py [--quick] [--repeat N]

The game is built from fixed identities, a fixed game id and fixed entropy (nonces), so
every run (and every version of the code with the same seed derivation) verifies the same
game. The goal: verify with the audit under 0.5 s.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import as_new_process, build_fixed, median_cpu, paired_medians

from pbem import session
from pbem.protocol.crypto import beacon, mental_deck, mental_open
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save

GAME_ID = "0123456789abcdef0123456789abcdef"


def build(players: int, bot: str, max_entries: int) -> Save:
    return build_fixed("road-master", players, [], bot, max_entries,
                       label=f"secret-game/{players}/{bot}", game_id=GAME_ID)


AUDIT = ("audit: beacon walks", "audit: chores (shuffles, key points)",
         "audit: opening every slot")


def breakdown(text: str) -> dict[str, float]:
    """Seconds spent in the deck's replay (proof checks), each part of the audit, and in
    all, in one verify as a new process runs it: the audit's cost is timed inside it, not
    worked out as the difference of two noisy medians."""
    spent: dict[str, float] = defaultdict(float)
    originals: list[tuple[Any, str, Callable[..., Any]]] = []

    def timed(module: Any, name: str, label: str) -> None:
        original = getattr(module, name)
        originals.append((module, name, original))

        def wrapper(*args: Any, **kw: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kw)
            finally:
                spent[label] += time.perf_counter() - start

        setattr(module, name, wrapper)

    timed(mental_deck, "apply_chore", "deck replay (chores, proofs)")
    try:  # the code before shuffle proofs has no such module: the bench runs on both
        from pbem.protocol.crypto import shuffle_proof
        timed(shuffle_proof, "verify", "  of which shuffle proofs")
    except ImportError:
        pass
    from pbem.protocol.crypto import dleq
    timed(dleq, "verify", "  of which peel/re-key proofs")
    timed(beacon, "_walk_to_anchor", AUDIT[0])
    timed(mental_open, "audit_chore", AUDIT[1])
    timed(mental_open, "open_held", AUDIT[2])
    try:
        as_new_process()
        start = time.perf_counter()
        parsed = savefile.parse(text)
        spent["parse"] = time.perf_counter() - start
        start = time.perf_counter()
        engine.replay(parsed)
        spent["total verify (after parse)"] = time.perf_counter() - start
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
    spent["audit in all"] = sum(spent[label] for label in AUDIT)
    return dict(spent)


def at_home(save: Save, text: str, repeat: int) -> tuple[float, float]:
    """Median seconds of ``pbem verify`` of the final save in a home that verified the save
    before it, and in a new home (both audit from the first entry)."""
    before = Save(save.header, save.entries[:-1], {})
    before.state = engine.public_state(engine.replay(before, check_snapshot=False).table)
    home = Home(Path(tempfile.mkdtemp(prefix="pbem-bench-home-")))
    session.verify(before, home)

    def player() -> None:
        as_new_process()
        session.verify(savefile.parse(text), home, record=False)

    def newcomer() -> None:
        as_new_process()
        session.verify(savefile.parse(text), None)

    found = paired_medians([player, newcomer], repeat)
    return found[0], found[1]


def whole_game(name: str, save: Save, repeat: int) -> None:
    """Verify time (with the audit) and size of one whole game, and where the time goes:
    the figures to compare before and after a change to the secret deck."""
    text = savefile.dumps(save)

    def verify() -> None:
        as_new_process()
        engine.replay(savefile.parse(text))

    [spent] = paired_medians([verify], repeat)
    shuffles = sum(1 for e in save.entries for c in e["chores"]
                   for i in [c, *c.get("items", [])] if i.get("op") == "shuffle")
    print(f"{name}: {len(save.entries)} entries, {shuffles} shuffles, save {len(text) // 1024} KB, "
          f"verify with audit {spent * 1000:.0f} ms")
    runs = [breakdown(text) for _ in range(repeat)]
    for label in runs[0]:
        values = sorted(run[label] for run in runs)
        print(f"    {label:<40} {values[len(values) // 2] * 1000:7.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a game cut at 400 entries")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median taken)")
    parser.add_argument("--bot", default="random:5")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    save = build(6, args.bot, 400 if args.quick else 3000)
    complete = save.entries[-1]["kind"] == "reveal"
    chores = sum(len(e["chores"]) for e in save.entries)
    items = sum(len(c.get("items", [])) + len(c.get("cts", [])) for e in save.entries
                for c in e["chores"])
    draws = sum(1 for e in save.entries for m in e["moves"] if m == "superbonus")
    text = savefile.dumps(save)

    def with_audit() -> None:
        as_new_process()
        engine.replay(savefile.parse(text))

    def without_audit() -> None:
        as_new_process()
        engine.replay(savefile.parse(text), audit_secrets=False)

    # Side by side, so that a load that comes and goes falls on both.
    full, bare = paired_medians([with_audit, without_audit], args.repeat)
    cpu = median_cpu(with_audit, args.repeat)
    report = engine.replay(savefile.parse(text))
    print(f"road-master 6p {args.bot}: {len(save.entries)} entries "
          f"({'complete' if complete else 'cut short'}), {draws} Super Bonus draws, "
          f"{chores} chores with {items} ciphertexts, {len(text) // 1024} KB; "
          f"audit: {report.audit if complete else '-'}")
    print(f"  verify with audit {full * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU time, which the "
          f"machine's load moves less; goal under 500 ms), without {bare * 1000:.0f} ms; "
          f"{bare / len(save.entries) * 1000:.2f} ms per entry without it (the audit's own "
          "cost, timed inside the verify, is below)")
    if complete:
        in_home, new_home = at_home(save, text, args.repeat)
        print(f"  the final save in a player's home, which verified all but the last entry: "
              f"{in_home * 1000:.0f} ms; in a new home: {new_home * 1000:.0f} ms "
              f"({new_home / in_home:.2f}x)")
    runs = [breakdown(text) for _ in range(args.repeat)]
    print("  where the time goes (median of runs, with the audit):")
    for label in runs[0]:
        values = sorted(run[label] for run in runs)
        print(f"    {label:<40} {values[len(values) // 2] * 1000:7.0f} ms")
    # Two whole games, greedy bots, measured the same way on every run.
    whole_game("road-master 6p greedy (whole game)",
               build_fixed("road-master", 6, [], "greedy"), args.repeat)
    whole_game("red-dog-junction posse 5p greedy (whole game)",
               build_fixed("red-dog-junction", 5, ["variant=posse"], "greedy"), args.repeat)


if __name__ == "__main__":
    main()

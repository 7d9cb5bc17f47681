"""The Posse draft of Red Dog Junction under rules version 4 (a hand passed in one step:
the giver's handoff, then the receiver's adopt in the entry where it picks) against
version 3 (the receiver's re-lock, then the giver's peel): hops, deck work in the save,
and the time to verify the draft.

    python bench/bench_onestep.py [--quick] [--players N]

Both drafts are the same greedy-bot game of bench_hops.py (fixed identities and entropy),
cut at the entry that shows the last pick. Verify is `engine.replay` of that save (every
signature, every proof, the rules), CPU time, the two timed in turn (common.paired_times).
"""

from __future__ import annotations

import argparse
import json

from bench_hops import draft_hops, play
from common import machine_speed, paired_medians

from pbem.protocol.replay import engine
from pbem.protocol.saveformat.savefile import Save


def draft_save(players: int, rules: int) -> tuple[Save, int]:
    """The draft's save (up to the entry that shows the last pick) and its hops."""
    played = play("red-dog-junction", players, ["variant=posse"], 40 * players, rules=rules)
    end = next(i for i in range(len(played.states))
               if played.states[i]["view"].get("phase") not in ("setup", "draft"))
    save = Save(played.save.header, played.save.entries[:end + 1], played.states[end])
    return save, draft_hops(played)


def chore_bytes(save: Save) -> int:
    return sum(len(json.dumps(e["chores"], separators=(",", ":"))) for e in save.entries)


def compare(players: int, repeat: int, versions: tuple[int, int]) -> None:
    """The draft under the two rules versions: hops, deck work, the largest join's chores
    and verify time, and the newer against the older."""
    print(machine_speed())
    built = {rules: draft_save(players, rules) for rules in versions}
    times = paired_medians([lambda s=save: engine.replay(s, check_snapshot=False)
                            for save, _ in built.values()], repeat)
    for (rules, (save, hops)), spent in zip(built.items(), times, strict=True):
        items = sum(len(c.get("items", [])) for e in save.entries for c in e["chores"])
        join = max(len(json.dumps(e["chores"], separators=(",", ":")))
                   for e in save.entries if e["kind"] == "join")
        print(f"Posse draft, {players} players, rules v{rules}: {hops} hops, "
              f"{len(save.entries)} entries, {items} deck items, chores "
              f"{chore_bytes(save) / 1024:.1f} KB (largest join's {join / 1024:.1f} KB); "
              f"verify {spent * 1000:.0f} ms (median of {repeat}, CPU)")
    (old, old_hops), (new, new_hops) = (built[v] for v in versions)
    print(f"v{versions[1]} / v{versions[0]}: hops {new_hops}/{old_hops} = "
          f"{new_hops / old_hops:.2f}, chores {chore_bytes(new) / chore_bytes(old):.2f}, "
          f"verify {times[1] / times[0]:.2f}")


def main(versions: tuple[int, int] = (3, 4), doc: str | None = __doc__) -> None:
    """Version 4 against 3 (bench_earlydeal.py: 5 against 4)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--quick", action="store_true", help="3 players, 3 runs")
    parser.add_argument("--players", type=int, default=5)
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    compare(3 if args.quick else args.players, 3 if args.quick else 5, versions)


if __name__ == "__main__":
    main()

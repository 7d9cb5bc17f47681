"""The Posse draft of Red Dog Junction under rules version 5 (the deck dealt as its last
shuffle pass lands: the last joiner peels in its join, the host in the start, the other
deal peels in rounds) against version 4 (dealt at the start, its peels one after
another): hops, deck work in the save, the last join's size and the time to verify.

    python bench/bench_earlydeal.py [--quick] [--players N]

Both drafts are the same greedy-bot game of bench_hops.py (fixed identities and entropy),
cut at the entry that shows the last pick (bench_onestep.draft_save). Verify is
`engine.replay` of that save, CPU time, the two timed in turn (common.paired_times).
"""

from __future__ import annotations

import argparse
import json

from bench_onestep import chore_bytes, draft_save
from common import machine_speed, paired_medians

from pbem.protocol.replay import engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 players, 3 runs")
    parser.add_argument("--players", type=int, default=5)
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    players = 3 if args.quick else args.players
    repeat = 3 if args.quick else 5
    print(machine_speed())
    built = {rules: draft_save(players, rules) for rules in (4, 5)}
    times = paired_medians([lambda s=save: engine.replay(s, check_snapshot=False)
                            for save, _ in built.values()], repeat)
    for (rules, (save, hops)), spent in zip(built.items(), times, strict=True):
        items = sum(len(c.get("items", [])) for e in save.entries for c in e["chores"])
        join = max(len(json.dumps(e["chores"], separators=(",", ":")))
                   for e in save.entries if e["kind"] == "join")
        print(f"Posse draft, {players} players, rules v{rules}: {hops} hops, "
              f"{len(save.entries)} entries, {items} deck items, chores "
              f"{chore_bytes(save) / 1024:.1f} KB, largest join's chores {join / 1024:.1f} "
              f"KB; verify {spent * 1000:.0f} ms (median of {repeat}, CPU)")
    (v4, hops4), (v5, hops5) = built[4], built[5]
    print(f"v5 / v4: hops {hops5}/{hops4}, chores {chore_bytes(v5) / chore_bytes(v4):.2f}, "
          f"verify {times[1] / times[0]:.2f}")


if __name__ == "__main__":
    main()

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 players, 3 runs")
    parser.add_argument("--players", type=int, default=5)
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    players = 3 if args.quick else args.players
    repeat = 3 if args.quick else 5
    print(machine_speed())
    built = {rules: draft_save(players, rules) for rules in (3, 4)}
    times = paired_medians([lambda s=save: engine.replay(s, check_snapshot=False)
                            for save, _ in built.values()], repeat)
    for (rules, (save, hops)), spent in zip(built.items(), times, strict=True):
        items = sum(len(c.get("items", [])) for e in save.entries for c in e["chores"])
        print(f"Posse draft, {players} players, rules v{rules}: {hops} hops, "
              f"{len(save.entries)} entries, {items} deck items, chores "
              f"{chore_bytes(save) / 1024:.1f} KB; verify {spent * 1000:.0f} ms "
              f"(median of {repeat}, CPU)")
    (v3, hops3), (v4, hops4) = built[3], built[4]
    print(f"v4 / v3: hops {hops4}/{hops3} = {hops4 / hops3:.2f}, chores "
          f"{chore_bytes(v4) / chore_bytes(v3):.2f}, verify {times[1] / times[0]:.2f}")


if __name__ == "__main__":
    main()

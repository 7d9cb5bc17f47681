"""Road Master with the mental deck: verify of a 6-player game with Super Bonus draws,
with the end-of-game audit (every chore re-computed, every slot opened) and without.

    python bench/bench_secret_game.py [--quick]
"""

from __future__ import annotations

import sys

from common import build_game, median_time

from pbem.protocol import engine, savefile


def main() -> None:
    quick = "--quick" in sys.argv
    save = build_game("road-master", 6, [], bot="random:5", max_entries=400 if quick else 3000)
    complete = save.entries[-1]["kind"] == "reveal"
    chores = sum(len(e["chores"]) for e in save.entries)
    items = sum(len(c.get("items", [])) + len(c.get("cts", [])) for e in save.entries
                for c in e["chores"])
    draws = sum(1 for e in save.entries for m in e["moves"] if m == "superbonus")
    text = savefile.dumps(save)

    def with_audit() -> None:
        engine.replay(savefile.parse(text))

    def without_audit() -> None:
        engine.replay(savefile.parse(text), audit_secrets=False)

    full = median_time(with_audit, 3)
    bare = median_time(without_audit, 3)
    report = engine.replay(savefile.parse(text))
    print(f"road-master 6p random bots: {len(save.entries)} entries "
          f"({'complete' if complete else 'cut short'}), {draws} Super Bonus draws, "
          f"{chores} chores with {items} ciphertexts; audit: {report.audit if complete else '-'}")
    print(f"  verify with audit {full * 1000:.0f} ms, without {bare * 1000:.0f} ms "
          f"(audit costs {(full - bare) * 1000:.0f} ms, {full / bare:.2f}x); "
          f"{bare / len(save.entries) * 1000:.2f} ms per entry without it")


if __name__ == "__main__":
    main()

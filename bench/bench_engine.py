"""Engine benchmarks: verify cost per entry, linear growth, incremental re-verification
and bot games per second (start-up: bench_startup.py). Prints figures and ratios;
asserts nothing.

    python bench/bench_engine.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    ROOT,
    build_fixed,
    build_game,
    crypto_run,
    floor_run,
    full_verify_run,
    loadable_games,
    paired_medians,
    paired_times,
    register_test_games,
)

from pbem import registry, session
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.crypto.identity import Home, verify_signature
from pbem.protocol.crypto.sampler import Sampler
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical


def verify_report(label: str, save: savefile.Save) -> tuple[int, float]:
    text = savefile.dumps(save)
    n = len(save.entries)
    bare, full = paired_medians([floor_run(text), full_verify_run(text)], 3)
    print(f"  {label:34} {n:6d} entries  verify {full * 1000:8.1f} ms  "
          f"{full / n * 1e6:7.0f} us/entry  floor {bare * 1000:7.1f} ms  "
          f"ratio {full / bare:4.1f}x")
    return n, full


def incremental(save: savefile.Save) -> None:
    """An in-progress game (the reveals cut off: a complete save is always audited from
    its first entry): verify it in a home whose archive verified all but its last entry,
    against the floor for that work: parsing the file and checking that one entry (its
    hash, signature and rules step). The home still hashes every entry and checks every
    prev (PROTOCOL.md section 9); the goal is within 1.5x of the floor."""
    from pbem.protocol.replay import engine
    from pbem.protocol.saveformat.canonical import digest

    entries = [e for e in save.entries if e["kind"] != "reveal"]

    def with_state(part: list[dict]) -> savefile.Save:
        cut = savefile.Save(save.header, part, {})
        cut.state = engine.public_state(engine.replay(cut, check_snapshot=False).table)
        return cut

    home = Home(Path(tempfile.mkdtemp(prefix="pbem-bench-home-")))
    before = with_state(entries[:-1])
    session.verify(before, home)
    table = engine.replay(before, check_snapshot=False).table
    text = savefile.dumps(with_state(entries))
    last = entries[-1]
    keys = {e["seat"]: bytes.fromhex(e["pubkey"]) for e in entries if "pubkey" in e}

    def one_new() -> None:
        session.verify(savefile.parse(text), home, record=False)

    def floor() -> None:
        parsed = savefile.parse(text)
        entry = parsed.entries[-1]
        digest(entry)
        body = {k: v for k, v in entry.items() if k != "sig"}
        verify_signature(keys[entry["seat"]], bytes.fromhex(entry["sig"]), canonical(body))
        engine.step(table, entry, replay=True)

    def parse_only() -> None:
        savefile.parse(text)

    inc, low, parse = paired_medians([one_new, floor, parse_only], 7)
    assert last["kind"] == "turn"
    print(f"  {save.ruleset:20} {len(save.header['seats'])}p, {len(entries):4d} entries: "
          f"{inc * 1000:6.1f} ms; floor (parse + check the new entry) {low * 1000:6.1f} ms "
          f"-> {inc / low:.2f}x; of which TOML parse and schema {parse * 1000:.1f} ms")


def bot_games_per_second(ruleset: str, players: int, seconds: float = 3.0) -> None:
    game = registry.load(ruleset)
    handles = [f"p{i}" for i in range(players)]
    games = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        table = LocalTable(game, handles, seed=f"bench{games}".encode())
        rng = Sampler(f"bot{games}".encode())
        for _ in range(2000):
            if table.to_act() is None:
                break

            table.prepare()
            seat = table.to_act()
            if seat is None:  # chance resolved at the turn's start ended the game
                break
            table.play(bots.choose_turn(game, table.state, seat, f"random:{rng.randbelow(10**9)}"))
            turns += 1
        games += 1
    elapsed = time.perf_counter() - start
    print(f"  {ruleset:20} {players}p random bots: {games / elapsed:7.1f} games/s, "
          f"{turns / elapsed:8.0f} turns/s")


# Each game with its options on, at every player count it takes.
OPTIONS_ON = {
    "red-dog-junction": ["variant=trail-boss"],
    "road-master": ["hazardous=true", "perishable=true"],
    "station-to-station": [],
}
POSSE = ["variant=posse"]


def floor_table(quick: bool) -> list[savefile.Save]:
    """verify --full against the floor of the same file, per game and player count (whole
    greedy games, options on, built the same on every run), then the example saves.
    Returns the 4-player games (for the incremental figures)."""
    repeat = 3 if quick else 7
    print(f"verify --full against the floor (parse the TOML; per entry canonical JSON, "
          f"Ed25519 check, hash), medians of {repeat} rounds, side by side in this process "
          "(each ratio the median of each round's own). "
          "'crypto': the secret deck's group operations (proofs, key checks) and the "
          "audit's beacon walks inside that verify, which the floor leaves out; 'rest': "
          "what remains above floor + crypto (the rules replay and its bookkeeping); the "
          "last ratio is verify / (floor + crypto), goal <= 1.3x")
    print(f"  {'game':52} {'entries':>7} {'floor ms':>9} {'verify ms':>10} {'ratio':>6} "
          f"{'crypto ms':>10} {'rest ms':>8} {'ratio':>6}")
    fours = []
    rows: list[tuple[str, str]] = []
    for ruleset, options in OPTIONS_ON.items():
        game = registry.load(ruleset)
        counts = range(max(2, game.info.min_players), game.info.max_players + 1)
        if quick:
            counts = range(min(4, game.info.max_players), min(4, game.info.max_players) + 1)
        for players in counts:
            save = build_fixed(ruleset, players, options)
            if players == min(4, game.info.max_players):
                fours.append(save)
            label = f"{ruleset} {players}p greedy {' '.join(options)}".rstrip()
            rows.append((label, savefile.dumps(save)))
    # Red Dog Junction's other variant: the Posse draft deals hands from the secret deck.
    for players in (3,) if quick else (2, 3, 5):
        save = build_fixed("red-dog-junction", players, POSSE)
        rows.append((f"red-dog-junction {players}p greedy {POSSE[0]}", savefile.dumps(save)))
    for folder in sorted((ROOT / "saves").iterdir()):
        files = sorted(folder.glob("*.toml"))
        if files:
            rows.append((f"saves/{folder.name}/{files[-1].name[-13:]}", files[-1].read_text()))
    for label, text in rows:
        # Each round times the floor, the verify and an instrumented verify (its crypto
        # share) in turn: the ratios are the medians of each round's own.
        timed, shares = crypto_run(text)
        floors, fulls, _ = paired_times([floor_run(text), full_verify_run(text), timed],
                                        repeat)
        crypto = shares[-repeat:]
        floor, full, share = (statistics.median(v) for v in (floors, fulls, crypto))
        rest = statistics.median(f - fl - c for fl, f, c in zip(floors, fulls, crypto,
                                                                 strict=True))
        ratio = statistics.median(f / fl for fl, f in zip(floors, fulls, strict=True))
        goal = statistics.median(f / (fl + c) for fl, f, c in zip(floors, fulls, crypto,
                                                                   strict=True))
        entries = text.count("\n[[entry]]")
        print(f"  {label:52} {entries:7d} {floor * 1000:9.1f} {full * 1000:10.1f} "
              f"{ratio:5.2f}x {share * 1000:10.1f} {rest * 1000:8.1f} {goal:5.2f}x")
    return fours


def beacon_walk() -> None:
    """One seat's 4,096-link chain walked with hashlib's SHA-256 (OpenSSL) and with the
    hash the chain uses (pbem.protocol.crypto.beacon: Python's own, when the build has it)."""
    import hashlib

    from pbem.protocol.crypto import beacon

    def walk(sha256: Callable[[bytes], Any]) -> Callable[[], None]:
        def run() -> None:
            value = bytes(32)
            for _ in range(beacon.CHAIN_LENGTH):
                value = sha256(value).digest()
        return run

    openssl, ours = paired_medians([walk(hashlib.sha256), walk(beacon._link_sha256)], 15)
    print(f"beacon walk, {beacon.CHAIN_LENGTH:,} links: hashlib {openssl * 1000:.2f} ms, "
          f"the chain's own hash ({beacon._link_sha256.__module__}) {ours * 1000:.2f} ms "
          f"({openssl / ours:.2f}x)")


def main() -> None:
    quick = "--quick" in sys.argv
    register_test_games()
    beacon_walk()
    fours = floor_table(quick)
    print("incremental: the archive has verified all but the last entry; goal <= 1.5x")
    for save in fours:
        incremental(save)
    print("verify: growth with length (dice-race, synthetic)")
    sizes = (250, 500, 1000) if quick else (250, 500, 1000, 2000)
    results = []
    for size in sizes:
        save = build_game("dice-race", 3, ["target=1000000", f"turns={size}"])
        results.append(verify_report(f"dice-race {size} turns", save))
    (n0, t0), (n1, t1) = results[0], results[-1]
    print(f"  growth: {n1 / n0:.1f}x entries -> {t1 / t0:.1f}x time "
          f"(per-entry cost ratio {(t1 / n1) / (t0 / n0):.2f}; 1.0 is linear)")
    incremental(save)
    print("start-up: see bench_startup.py")
    print("bot games per second (LocalTable, no signatures)")
    for ruleset in loadable_games():
        game = registry.load(ruleset)
        bot_games_per_second(ruleset, min(3, game.info.max_players), 1.0 if quick else 3.0)


if __name__ == "__main__":
    main()

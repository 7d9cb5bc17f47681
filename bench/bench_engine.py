"""Engine benchmarks: verify cost per entry, linear growth, incremental re-verification,
command start-up, and bot games per second. Prints figures and ratios; asserts nothing.

    python bench/bench_engine.py [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, build_game, loadable_games, median_time, register_test_games

from pbem import registry, session
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol import savefile
from pbem.protocol.canonical import canonical
from pbem.protocol.identity import Home, verify_signature
from pbem.protocol.sampler import Sampler


def bare_cost(text: str, save: savefile.Save) -> float:
    """Parse the TOML, hash every entry and check every signature: nothing else."""
    import tomllib

    keys = {e["seat"]: bytes.fromhex(e["pubkey"]) for e in save.entries if "pubkey" in e}

    def run() -> None:
        data = tomllib.loads(text)
        for entry in data["entry"]:
            body = {k: v for k, v in entry.items() if k != "sig"}
            raw = canonical(body)
            canonical(entry)
            verify_signature(keys[entry["seat"]], bytes.fromhex(entry["sig"]), raw)

    return median_time(run, 3)


def full_verify(text: str) -> float:
    def run() -> None:
        session.verify(savefile.parse(text), None)

    return median_time(run, 3)


def verify_report(label: str, save: savefile.Save) -> tuple[int, float]:
    text = savefile.dumps(save)
    n = len(save.entries)
    full = full_verify(text)
    bare = bare_cost(text, save)
    print(f"  {label:34} {n:6d} entries  verify {full * 1000:8.1f} ms  "
          f"{full / n * 1e6:7.0f} us/entry  bare parse+hash+sig {bare * 1000:7.1f} ms  "
          f"ratio {full / bare:4.1f}x")
    return n, full


def incremental(save: savefile.Save) -> None:
    """An in-progress game (the reveals cut off: a complete save is always audited from
    its first entry): verify it in a home whose archive verified all but its last entry,
    against the floor for that work: parsing the file and checking that one entry (its
    hash, signature and rules step). The home still hashes every entry and checks every
    prev (PROTOCOL.md section 9); issue 12's goal is within 1.5x of the floor."""
    from pbem.protocol import engine
    from pbem.protocol.canonical import digest

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

    inc = median_time(one_new, 7)
    low = median_time(floor, 7)
    parse = median_time(parse_only, 7)
    full = full_verify(text)
    assert last["kind"] == "turn"
    print(f"  incremental, {len(entries)} entries (archive has all but the last): "
          f"{inc * 1000:.1f} ms; floor (parse + check the new entry) {low * 1000:.1f} ms "
          f"-> {inc / low:.2f}x (goal <= 1.5x); of which TOML parse and schema "
          f"{parse * 1000:.1f} ms; full verify {full * 1000:.1f} ms ({full / inc:.1f}x slower)")


def startup(save_path: Path, home: Path) -> None:
    exe = [sys.executable]
    pbem = [sys.executable, "-m", "pbem"]

    def timed(cmd: list[str]) -> float:
        def run() -> None:
            subprocess.run(cmd, check=False, capture_output=True, cwd=ROOT)

        return median_time(run, 5)

    base = timed(exe + ["-c", "pass"])
    imports = timed(exe + ["-c", "import click, cryptography"])
    version = timed(pbem + ["--version"])
    show = timed(pbem + ["--home", str(home), "show", str(save_path)])
    print(f"  python -c pass {base * 1000:.0f} ms; import click, cryptography "
          f"{imports * 1000:.0f} ms; pbem --version {version * 1000:.0f} ms "
          f"({version / imports:.2f}x); pbem show {show * 1000:.0f} ms ({show / imports:.2f}x)")


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


def main() -> None:
    quick = "--quick" in sys.argv
    register_test_games()
    print("verify: whole games")
    for ruleset in loadable_games():
        if ruleset == "dice-race":
            continue
        game = registry.load(ruleset)
        n = min(4, game.info.max_players)
        save = build_game(ruleset, n, [], bot="greedy", max_entries=1500)
        whole = "whole" if save.entries[-1]["kind"] == "reveal" else "cut at 1500"
        verify_report(f"{ruleset} {n}p greedy ({whole})", save)
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
    print("start-up")
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    small = build_game("dice-race", 2, [], max_entries=6)
    path = folder / "g.toml"
    path.write_text(savefile.dumps(small))
    startup(path, folder / "nohome")
    print("bot games per second (LocalTable, no signatures)")
    for ruleset in loadable_games():
        game = registry.load(ruleset)
        bot_games_per_second(ruleset, min(3, game.info.max_players), 1.0 if quick else 3.0)


if __name__ == "__main__":
    main()

"""Start-up of the command line: `pbem show`, `pbem moves` and `pbem verify` of a newly
received save, each as a ratio to the floor (starting Python and importing what any pbem
command needs: click and cryptography's Ed25519).

For each game a whole bot game is played first (`pbem demo`, in a temporary folder, with
fixed keys and entropy: the same game on every run). The
receiver is the player who signs the save after the middle one; their home holds their
identity and has verified the last save they signed themselves, as a player's home does
when the next save arrives by mail. Every run gets a fresh copy of that home, so each one
verifies the new entries and loads the identity, as a real first look at the save does.

Runs the installed ``pbem`` beside this interpreter, interleaved (one run of each command
per round) so the machine's load falls on all of them alike; the goal is every command
within 1.3x of the floor.

With ``--instructions``, each command also runs once under valgrind's callgrind, which
counts the instructions run: the same count on a busy machine as on a quiet one. The
count is split three ways: the floor, the imports of the modules the command loads
beyond it, and the work the command then does (parsing, checking, replaying, showing).

    python bench/bench_startup.py [--rounds N] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = [sys.executable, "-c", "import click, cryptography.hazmat.primitives.asymmetric.ed25519"]
GAMES = {"red-dog-junction": 3, "road-master": 3, "station-to-station": 3}
COMMANDS = ("show", "moves", "verify")


def pbem() -> list[str]:
    script = Path(sys.executable).parent / "pbem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pbem"]


def signer(path: Path) -> str:
    match = re.search(r"-\d{4}-([a-z0-9_-]+)\.toml$", path.name)
    assert match, path
    return match.group(1)


# `pbem demo` with every fresh value (keys, seeds, nonces, the game id) drawn from a stream
# fixed by the game's name, and a clock that stands still: the same game on every run and
# every machine, so that the figures of two runs compare (a game drawn afresh each time
# made Road Master's work swing threefold, with the Super Bonus draws the game happened
# to have between the receiver's two entries).
FIXED_DEMO = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from tests.support.stream import fixed_entropy
from pbem.cli import main
game, players, folder = sys.argv[2:]
with fixed_entropy(hashlib.sha256(b"pbem-bench-startup/" + game.encode()).digest()):
    main(["demo", game, "--players", players, "--dir", folder, "--quiet"],
         standalone_mode=False)
"""


def prepare(game: str, players: int, work: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """A bot game of ``game``, the same on every run (FIXED_DEMO); returns (the middle
    save, the receiver's home before it)."""
    folder = work / game
    subprocess.run([sys.executable, "-c", FIXED_DEMO, str(ROOT), game, str(players),
                    str(folder)], env=env, stdout=subprocess.DEVNULL, check=True)
    files = sorted((folder / "saves").glob("*.toml"))
    middle = len(files) // 2
    receiver = signer(files[middle + 1])
    own = [f for f in files[:middle] if signer(f) == receiver]
    before = work / f"{game}-home"
    before.mkdir()
    for name in ("identity.pem", "identity.toml"):
        shutil.copy(folder / "homes" / receiver / name, before / name)
    if own:
        subprocess.run(pbem() + ["--home", str(before), "verify", str(own[-1])], env=env,
                       stdout=subprocess.DEVNULL, check=True)
    return files[middle], before


def child_cpu() -> float:
    """CPU seconds (user + system) of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(label: str, times: dict[str, list[float]], rounds: int) -> None:
    floors = times["floor"]
    floor = statistics.median(floors)
    # Quartiles need two rounds at least (one round is enough for --instructions).
    low, _, high = statistics.quantiles(floors, n=4) if len(floors) > 1 else (floor,) * 3
    print(f"{label}, medians of {rounds} rounds: floor {floor * 1000:.0f} ms (quartiles "
          f"{low * 1000:.0f}-{high * 1000:.0f} ms); ratio: the median of each round's ratio "
          "to that round's floor")
    print(f"  {'game':20} " + "".join(f"{c + ' ms':>10} {'ratio':>6}" for c in COMMANDS))
    for game in GAMES:
        cells = []
        for command in COMMANDS:
            spent = times[f"{game} {command}"]
            ratio = statistics.median(t / f for t, f in zip(spent, floors, strict=True))
            cells.append(f"{statistics.median(spent) * 1000:10.0f} {ratio:5.2f}x")
        print(f"  {game:20} " + "".join(cells))


# The modules a command loads, printed by the command run in process (for the import
# share of its instruction count).
LOADED = """
import contextlib, io, json, sys
before = set(sys.modules)
sys.argv = ["pbem"] + sys.argv[1:]
from pbem.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main()
print(json.dumps([m for m in sys.modules if m not in before]))
"""


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """Instructions ``argv`` runs, counted by valgrind's callgrind."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *argv], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    match = re.search(r"Collected : (\d+)", done.stderr)
    assert match, done.stderr[-500:]
    return int(match.group(1))


def importable(name: str) -> bool:
    """A module a plain ``import`` line can load again (not a C extension's inner part)."""
    return not name.startswith(("_openssl", "_sodium", "typing.", "tomli._")) \
        and "__mypyc" not in name and not name.startswith("encodings")


def count_instructions(runs: dict[str, tuple[list[str], Path | None]], work: Path,
                       env: dict[str, str]) -> None:
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed; skipped")
        return
    home = work / "run-home"

    def fresh(argv: list[str], before: Path | None) -> list[str]:
        if before is not None:
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(before, home)
        return [str(home) if a == "HOME" else a for a in argv]

    floor = instructions(FLOOR, env)
    print(f"instructions (valgrind callgrind), millions: floor {floor / 1e6:.0f}; each "
          "command as floor + its imports + its work, and its ratio to the floor")
    print(f"  {'game':20} {'command':8} {'total':>7} {'ratio':>6} {'imports':>8} {'work':>6}")
    for name, (argv, before) in runs.items():
        if before is None:
            continue
        total = instructions(fresh(argv, before), env)
        loaded = subprocess.run([sys.executable, "-c", LOADED, *fresh(argv, before)[len(pbem()):]],
                                env=env, capture_output=True, text=True, check=True).stdout
        modules = [m for m in json.loads(loaded) if importable(m)]
        imported = instructions([sys.executable, "-c", "import " + ", ".join(modules)], env)
        game, command = name.split()
        print(f"  {game:20} {command:8} {total / 1e6:7.0f} {total / floor:5.2f}x "
              f"{(imported - floor) / 1e6:8.0f} {(total - imported) / 1e6:6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (at least 1)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each command's instructions under valgrind")
    args = parser.parse_args()
    rounds = args.rounds
    if rounds < 1:
        parser.error("--rounds must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="pbem-bench-startup-"))
    # As installed by pip: byte code compiled once and re-used (a development shell may
    # set PYTHONDONTWRITEBYTECODE, which makes every run compile every module again). The
    # cache goes to a folder of its own, so no checkout gets __pycache__ folders.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",
                                                              "PBEM_HOME", "PBEM_PASSPHRASE")}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pyc")
    try:
        runs: dict[str, tuple[list[str], Path | None]] = {"floor": (FLOOR, None)}
        for game, players in GAMES.items():
            save, before = prepare(game, players, work, env)
            for command in COMMANDS:
                runs[f"{game} {command}"] = (pbem() + ["--home", "HOME", command, str(save)],
                                             before)
        times: dict[str, list[float]] = {name: [] for name in runs}
        walls: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(rounds + 1):  # round 0 is a warm-up (byte code, disk cache)
            for name, (argv, before) in runs.items():
                home = work / "run-home"
                if before is not None:
                    shutil.rmtree(home, ignore_errors=True)
                    shutil.copytree(before, home)
                argv = [str(home) if a == "HOME" else a for a in argv]
                cpu_before = child_cpu()
                start = time.perf_counter()
                subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
                if round_:
                    walls[name].append(time.perf_counter() - start)
                    times[name].append(child_cpu() - cpu_before)
        print("start-up of a newly received save against the floor (python -c 'import "
              "click, cryptography...ed25519'); goal <= 1.3x")
        report("CPU time (user + system; steadier on a busy machine)", times, rounds)
        report("wall time", walls, rounds)
        if args.instructions:
            count_instructions(runs, work, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

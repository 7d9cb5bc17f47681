"""Start-up of the command line: median wall time of a few commands, each as a ratio to
importing what any pbem command needs (click and cryptography's Ed25519).

Runs the installed ``pbem`` beside this interpreter, interleaved (one run of each command
per round) so the machine's load falls on all of them alike. Issue 12's goal: ``show``,
``--help`` and ``verify`` within 1.5x of the floor."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVES = ROOT / "saves"
FLOOR = [sys.executable, "-c", "import click, cryptography.hazmat.primitives.asymmetric.ed25519"]


def pbem() -> list[str]:
    script = Path(sys.executable).parent / "pbem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pbem"]


def mid_save(game: str) -> Path:
    """The example game's save from the middle of play (the third of its four files)."""
    return sorted((SAVES / game).glob("*.toml"))[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    home = tempfile.mkdtemp(prefix="pbem-bench-home-")
    # As installed by pip: byte code compiled once and re-used (a development shell may
    # set PYTHONDONTWRITEBYTECODE, which makes every run compile every module again). The
    # cache goes to a folder of its own, so no checkout gets __pycache__ folders.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PBEM_HOME=home, PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="pbem-bench-pyc-"))
    commands = {"floor (import click, cryptography)": FLOOR,
                "pbem --help": pbem() + ["--help"]}
    for game in ("red-dog-junction", "road-master", "station-to-station"):
        save = str(mid_save(game))
        commands[f"pbem show ({game})"] = pbem() + ["show", save]
        commands[f"pbem verify ({game})"] = pbem() + ["verify", save]
    for argv in commands.values():  # warm-up: the home's archive has seen every save
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    floors = times["floor (import click, cryptography)"]
    print(f"start-up, median of {rounds} runs; the ratio to the floor is the median of each "
          "round's ratio (the floor ran in the same round, so a load that comes and goes "
          "falls on both):")
    for name, runs in times.items():
        median = statistics.median(runs)
        ratio = statistics.median(run / floor for run, floor in zip(runs, floors, strict=True))
        print(f"  {name:40} {median * 1000:6.0f} ms  {ratio:4.2f}x")


if __name__ == "__main__":
    main()

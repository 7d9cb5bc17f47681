"""``pbem verify SAVE...`` over many saves (a league organiser checking every game of a
season): saves per second with ``--jobs 1`` and ``--jobs 2``, each run in a fresh home.

The saves are the example games' files (saves/) copied over and over, and the saves of
a few whole games played by bots, in shuffled order (fixed seed), 1,000 by default."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, build_game

from pbem.protocol.saveformat import savefile

BOT_GAMES = [("red-dog-junction", 2), ("road-master", 3), ("station-to-station", 2)]


def make_saves(folder: Path, count: int) -> list[str]:
    sources = sorted((ROOT / "saves").glob("*/*.toml"))
    for ruleset, players in BOT_GAMES:  # whole games, so verify audits them too
        path = folder / f"bot-{ruleset}.toml"
        path.write_text(savefile.dumps(build_game(ruleset, players, [], bot="greedy")), "utf-8")
        sources.append(path)
    paths = []
    for i in range(count):
        source = sources[i % len(sources)]
        target = folder / f"{i:04d}-{source.name}"
        shutil.copy(source, target)
        paths.append(str(target))
    random.Random(12).shuffle(paths)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--saves", type=int, default=1000)
    count = parser.parse_args().saves
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-many-"))
    paths = make_saves(folder, count)
    pbem = Path(sys.executable).parent / "pbem"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="pbem-bench-pyc-")
    print(f"verify {count} saves ({os.cpu_count()} cores), each run in a fresh home:")
    outputs = {}
    for jobs in (1, 2):
        home = tempfile.mkdtemp(prefix="pbem-bench-home-")
        start = time.perf_counter()
        done = subprocess.run([str(pbem), "--home", home, "verify", "--jobs", str(jobs), *paths],
                              env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        refused = sum(": refused" in line for line in done.stdout.splitlines())
        outputs[jobs] = done.stdout
        print(f"  --jobs {jobs}: {seconds:6.1f} s, {count / seconds:6.1f} saves/s "
              f"(exit {done.returncode}, {refused} refused)")
    print(f"  same output: {outputs[1] == outputs[2]}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

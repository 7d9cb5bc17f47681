"""Regenerate saves/: one whole bot game per installed game, run by hand (make saves;
or name games: python tools/make_example_saves.py red-dog-junction).

Keeps a few saves of each game (the create, the start, one mid-game turn and the final
save, which holds the whole history) and writes expected.json beside them with the final
scores, which tests/test_example_saves.py checks by replaying. Never run by the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem import demo, registry  # noqa: E402
from pbem.protocol.saveformat import savefile  # noqa: E402

PLAYERS = {"red-dog-junction": 3, "road-master": 4, "station-to-station": 3}
# The clock the example games are played at (every entry signs it): a fixed time, before
# the test suite's own fixed clock, so no test finds an example entry dated ahead of it
# (PROTOCOL.md section 11: such an entry is not built on).
CLOCK = "2025-06-01T09:00:00Z"


def main() -> None:
    os.environ["PBEM_CLOCK"] = CLOCK
    out_root = ROOT / "saves"
    for name in sys.argv[1:] or registry.names():
        work = Path(tempfile.mkdtemp(prefix="pbem-saves-"))
        result = demo.run(name, PLAYERS.get(name), [], "greedy", str(work), echo=lambda _: None)
        files = sorted((work / "saves").glob("*.toml"))
        final = result.last_save  # by name, a seat's part of a final round may sort last
        keep = {files[0], files[len(files) // 2], final}
        keep |= {f for f in files if savefile.read(f).entries[-1]["kind"] == "start"}
        target = out_root / name
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for f in sorted(keep):
            shutil.copy(f, target / f.name)
        outcome = result.report.outcome
        table = result.report.table
        expected = {
            "final": final.name,
            "entries": len(table.signers),
            "audit": result.report.audit,
            "scores": {table.seats[s].handle: v for s, v in outcome.scores.items()}
            if outcome else None,
            "ranking": [[table.seats[s].handle for s in g] for g in outcome.ranking]
            if outcome else None,
        }
        (target / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
        print(f"{name}: {len(files)} saves, kept {len(keep)} in {target}")


if __name__ == "__main__":
    main()

"""Run every benchmark in bench/ in turn (make bench)."""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine_speed  # noqa: E402

# Byte code compiled once and re-used by every process a benchmark starts, as installed
# by pip (with PYTHONDONTWRITEBYTECODE each would compile pbem afresh).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
print(machine_speed(), "(before)")
for script in sorted(HERE.glob("bench_*.py")):
    print(f"== {script.name}")
    sys.argv = [str(script)] + sys.argv[1:]
    runpy.run_path(str(script), run_name="__main__")
print(machine_speed(), "(after)")

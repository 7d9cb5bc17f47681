"""Game code computes in integers only: no float literal, no true division, no float()
or round(). Rules, views and bots decide what is signed, and the steady bot's turns
(PROTOCOL.md section 11) are re-played by every verifier, so each must give the same
result on every machine and every Python from 3.11 on. Floats do not: Python 3.12 sums
floats with compensation where 3.11 adds them in order, so ``sum`` of the same floats
can end in another last bit, and ``int`` of it in another integer. Read from the source,
so a new module is checked without listing it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAME_FILES = sorted((ROOT / "games").rglob("*.py"))


def float_uses(source: str) -> list[str]:
    """Each place ``source`` makes or divides into a float, as 'line N: what'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        what = ""
        if isinstance(node, ast.Constant) and isinstance(node.value, float | complex):
            what = f"the number {node.value!r}"
        elif isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ast.Div):
            what = "'/' (use '//' on integers)"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("float", "round"):
            what = f"{node.func.id}()"
        if what:
            found.append(f"line {getattr(node, 'lineno', '?')}: {what}")
    return found


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_game_code_computes_in_integers(path: Path) -> None:
    found = float_uses(path.read_text("utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: {'; '.join(found)}"


def test_the_check_can_fail() -> None:
    """What Red Dog Junction's greedy heuristic once held is found."""
    before = ("AT_RISK = 0.5\n"
              "def unit(gold, die):\n"
              "    rate = min(gold / die, 1.0)\n"
              "    return float(85 * rate)\n"
              "x = 3\nx /= 2\n")
    assert sorted(float_uses(before)) == [
        "line 1: the number 0.5", "line 3: '/' (use '//' on integers)", "line 3: the number 1.0",
        "line 4: float()", "line 6: '/' (use '//' on integers)"]
    assert float_uses("x = 7 // 2\ny = round\n") == []

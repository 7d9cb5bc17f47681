"""The shape of the engine's code (DESIGN.md, "Thin commands"): no function in pbem/ over
100 lines and none in pbem/cli/ over 60; no module imports an underscore (private) name
from another module. Read from the source (ast), so a new module is checked without
listing it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PBEM = ROOT / "pbem"
MAX_LINES = 100
MAX_CLI_LINES = 60

# Functions allowed to stay too long (none now); an entry naming a function that is short
# enough fails too.
LONG_ALLOWED: dict[str, int] = {}

# Private names one module may import from another (none now); an entry no longer
# imported fails too.
PRIVATE_IMPORTS_ALLOWED: set[str] = set()


def sources() -> list[tuple[str, ast.Module]]:
    return [(path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(PBEM.rglob("*.py"))]


def function_lengths(tree: ast.Module) -> list[tuple[str, int]]:
    """Every function (nested ones too) and its length: from its ``def`` line to its last
    line, body included; the decorators above it (click's options) are not counted."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            found.append((node.name, node.end_lineno - node.lineno + 1))
    return found


def limit_for(path: str) -> int:
    return MAX_CLI_LINES if path.startswith("pbem/cli/") else MAX_LINES


def too_long() -> dict[str, int]:
    return {f"{path}:{name}": length for path, tree in sources()
            for name, length in function_lengths(tree) if length > limit_for(path)}


def private_names(tree: ast.Module) -> list[str]:
    """``from X import _name`` as "X._name" (a dunder such as __version__ is public)."""
    return [f"{node.module}.{alias.name}" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")]


def private_imports() -> set[str]:
    return {f"{path}: {name}" for path, tree in sources() for name in private_names(tree)}


def test_no_function_in_pbem_over_100_lines_nor_in_the_cli_over_60() -> None:
    long = too_long()
    assert {k: v for k, v in long.items() if k not in LONG_ALLOWED} == {}
    stale = sorted(k for k in LONG_ALLOWED if k not in long)
    assert stale == [], "short enough now: take these out of LONG_ALLOWED"


def test_no_module_in_pbem_imports_a_private_name_from_another() -> None:
    found = private_imports()
    assert sorted(found - PRIVATE_IMPORTS_ALLOWED) == []
    assert sorted(PRIVATE_IMPORTS_ALLOWED - found) == [], "gone: take them out of the list"


def test_the_length_counts_the_def_and_its_body_not_its_decorators() -> None:
    tree = ast.parse("@decorator\n@another(1)\ndef f():\n    x = 1\n\n    return x\n")
    assert function_lengths(tree) == [("f", 4)]


def test_a_private_import_is_found() -> None:
    tree = ast.parse("from pbem.cli.common import _home, echo\nfrom pbem import __version__\n")
    assert private_names(tree) == ["pbem.cli.common._home"]

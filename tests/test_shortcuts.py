"""docs/SHORTCUTS.md lists every in-process cache of pbem and every shortcut a home keeps,
each with the rule that keeps it honest and the test that proves it: a cache added
without an entry there fails here, and so does an entry naming a test that does not
exist. The rules that had no test of their own are proved here."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from pbem.componentdata import ComponentReader
from pbem.drawing.canvas import attr
from pbem.game import _takes_components
from pbem.protocol.saveformat import savefile

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "SHORTCUTS.md"
CACHES = ("cache", "lru_cache", "cached_property")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def decorated_caches(path: Path, module: str) -> list[str]:
    """``module.function`` for every function a functools cache decorates."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in CACHES:
                    found.append(f"{module}.{node.name}")
    return found


def _empty_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.Set | ast.List):
        return not getattr(value, "keys", getattr(value, "elts", None))
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("dict", "set", "list", "OrderedDict") and not value.args)


def module_memos(path: Path, module: str) -> list[str]:
    """``module.NAME`` for every module-level name bound to an empty dict, set or list:
    what a module fills as it runs (a memo, or a registry)."""
    found = []
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names, value = [node.target.id], node.value
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            value = node.value
        else:
            continue
        if _empty_container(value):
            found += [f"{module}.{name}" for name in names if name != "__all__"]
    return found


def unlisted(files: dict[str, Path], page: str) -> list[str]:
    """The caches and memos of these modules (name -> file) that the page does not name."""
    listed = set(re.findall(r"`([\w.]+)`", page))
    found = []
    for module, path in files.items():
        found += decorated_caches(path, module) + module_memos(path, module)
    return [name for name in found if name not in listed]


ENGINE_MODULES = {module_name(p): p for p in sorted((ROOT / "pbem").rglob("*.py"))}


def test_every_cache_and_memo_of_pbem_is_on_the_shortcuts_page() -> None:
    assert unlisted(ENGINE_MODULES, PAGE.read_text("utf-8")) == []


def test_the_cache_check_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import functools\nfrom functools import lru_cache\n"
                    "_SEEN: dict[str, int] = {}\nKNOWN = set()\nFULL = {1: 2}\n"
                    "@lru_cache(maxsize=4)\ndef a(x): return x\n"
                    "@functools.cache\ndef b(): return 1\n", "utf-8")
    page = "`pbem.m.a` and `pbem.m.KNOWN`"
    assert unlisted({"pbem.m": path}, page) == ["pbem.m.b", "pbem.m._SEEN"]


def test_every_test_the_page_names_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", PAGE.read_text("utf-8"))
    assert len(named) >= 20
    missing = [f"{file}::{test}" for file, test in named
               if not (ROOT / file).is_file()
               or f"def {test}(" not in (ROOT / file).read_text("utf-8")]
    assert missing == []


def test_the_page_is_linked_from_the_protocol_and_the_design_notes() -> None:
    for doc in ("PROTOCOL.md", "DESIGN.md"):
        assert "SHORTCUTS.md" in (ROOT / "docs" / doc).read_text("utf-8"), doc


# ---- the rules that had no test of their own ------------------------------------------------
def test_an_entry_changed_after_it_was_written_is_written_anew() -> None:
    """savefile keeps each signed entry's text by the entry's whole JSON: an entry changed
    in place (the same dict) is another key, never the old text."""
    entry: dict[str, Any] = {"seq": 1, "kind": "turn", "moves": ["roll"], "sig": "a" * 128}
    save = savefile.Save({"game": "dice-race"}, [entry], {"turn": 1})
    before = savefile.dumps(save)
    entry["moves"][0] = "hold"
    after = savefile.dumps(save)
    assert '"roll"' in before and '"hold"' in after and '"roll"' not in after


def test_installed_component_data_is_handed_out_as_a_fresh_copy(tmp_path: Path) -> None:
    """The installed file is read and checked once per process; each caller gets its own
    copy, so one that changes its data changes nobody else's."""
    path = tmp_path / "components.toml"
    path.write_text('[deck]\ncards = ["a", "b"]\n', "utf-8")
    checked: list[int] = []

    def validate(data: dict[str, Any]) -> None:
        checked.append(1)

    reader = ComponentReader("Fixture Game")
    first = reader.load(path, validate)
    first["deck"]["cards"].append("forged")
    second = ComponentReader("Fixture Game").load(path, validate)
    assert second == {"deck": {"cards": ["a", "b"]}} and checked == [1]


def test_takes_components_reads_the_signature_of_each_method() -> None:
    def plain(state: Any) -> None: ...

    def wants(state: Any, components: Any) -> None: ...

    def open_ended(state: Any, **extra: Any) -> None: ...

    assert [_takes_components(f) for f in (plain, wants, open_ended, plain)] == [
        False, True, True, False]


def test_an_svg_attribute_is_cached_by_value_and_type() -> None:
    """``1 == True`` in Python: an untyped cache would give one the other's text."""
    assert attr(True) == '"True"' and attr(1) == '"1"'
    assert attr(1.0) == '"1.0"' and attr(True) == '"True"'

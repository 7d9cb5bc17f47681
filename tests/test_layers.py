"""The house rules of imports (docs/DEVELOPING.md, "Layout"): rooms import only downward, the
protocol never imports mail or drawing, games import only ``pbem.game``, and only the
CLI (and its prompt) imports click. Read from the source, so a new module is checked without listing it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOUNDATION = ("pbem.errors", "pbem.atomic", "pbem.record", "pbem.componentdata", "pbem.game",
              "pbem.outcome",
              "pbem.registry", "pbem.terminal", "pbem.tomltext",
              "pbem.recent", "pbem.hashing", "pbem.__version__")

# Room (or top module) -> what it may import from pbem, besides itself and FOUNDATION.
# The rooms of the protocol, bottom up: each imports only the rooms before it.
PROTOCOL_ROOMS = ("pbem.protocol.crypto", "pbem.protocol.saveformat", "pbem.protocol.state",
                  "pbem.protocol.timekeeping", "pbem.protocol.replay")
ALLOWED: dict[str, tuple[str, ...]] = {
    "pbem.protocol": (),  # the package's __init__: a docstring only
    **{room: PROTOCOL_ROOMS[:at] for at, room in enumerate(PROTOCOL_ROOMS)},
    "pbem.home": ("pbem.protocol",),
    "pbem.drawing": (),
    "pbem.play": ("pbem.protocol",),
    "pbem.session": ("pbem.protocol", "pbem.home", "pbem.play", "pbem.drawing"),
    "pbem.mail": ("pbem.protocol", "pbem.home", "pbem.play", "pbem.drawing", "pbem.session"),
    "pbem.batch": ("pbem.protocol", "pbem.home", "pbem.session"),
    "pbem.demo": ("pbem.protocol", "pbem.play", "pbem.drawing", "pbem.session", "pbem.mail"),
    "pbem.prompt": ("pbem.protocol", "pbem.session"),
    "pbem.cli": ("pbem",),
    "pbem.__main__": ("pbem.cli",),
}
# The command line (the package pbem.cli, every module of it) and the prompt it opens
# are the only modules that talk to click.
CLICK_USERS = ("pbem.cli", "pbem.prompt")
# The foundation itself: the game contract re-exports two leaf modules of the protocol and
# the drawing kit (games draw their boards with it and may import only pbem.game); the
# kit imports nothing above the foundation, so no cycle and no upward import follows.
FOUNDATION_ALLOWED = {
    "pbem.errors": (),
    "pbem.atomic": (),
    "pbem.record": (),
    "pbem.componentdata": (),
    "pbem.terminal": (),
    "pbem.tomltext": (),
    "pbem.recent": (),
    "pbem.hashing": (),
    "pbem.registry": (),
    "pbem.outcome": (),
    "pbem.game": ("pbem.protocol.crypto.sampler", "pbem.protocol.crypto.secretdeck", "pbem.drawing.kit"),
    "pbem": (),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[str]:
    """Every module a file imports, at any depth (lazy imports inside functions count)."""
    tree = ast.parse(path.read_text("utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            # "from pbem import session" imports pbem.session; "from x.y import z" is
            # judged as x.y.z, whether z is a module or a name in one.
            found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def room_of(module: str) -> str:
    for room in sorted(ALLOWED, key=len, reverse=True):
        if within(module, (room,)):
            return room
    return module


ENGINE_FILES = sorted((ROOT / "pbem").rglob("*.py"))
GAME_FILES = sorted((ROOT / "games").rglob("*.py"))


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_modules_import_only_downward(path: Path) -> None:
    module = module_name(path)
    bad = []
    for name in imports_of(path):
        if name.split(".")[0] == "games":
            bad.append(f"{name} (the engine never imports a game)")
        if name.split(".")[0] == "click" and not within(module, CLICK_USERS):
            bad.append(f"{name} (only the CLI imports click)")
        if name.split(".")[0] != "pbem" or name == "pbem":
            continue
        if module in FOUNDATION_ALLOWED:
            if not within(name, FOUNDATION + FOUNDATION_ALLOWED[module]):
                bad.append(name)
            continue
        room = room_of(module)
        if room not in ALLOWED:
            bad.append(f"{module} belongs to no room listed in this test")
            continue
        if not within(name, (room, *FOUNDATION, *ALLOWED[room])):
            bad.append(name)
    assert not bad, f"{module} imports {', '.join(bad)}"


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_games_import_only_the_game_contract(path: Path) -> None:
    bad = [name for name in imports_of(path)
           if (name.split(".")[0] == "pbem" and not within(name, ("pbem.game", "pbem.errors")))
           or name.split(".")[0] == "click"]
    assert not bad, f"{path.relative_to(ROOT)} imports {', '.join(bad)}"


def may_import(module: str) -> tuple[str, ...]:
    room = room_of(module)
    return (room, *FOUNDATION, *ALLOWED[room])


def test_the_check_can_fail() -> None:
    """A protocol module that imported mail, a room above its own or the home's storage
    would be refused."""
    engine = module_name(ROOT / "pbem" / "protocol" / "replay" / "engine.py")
    table = module_name(ROOT / "pbem" / "protocol" / "state" / "table.py")
    assert room_of(engine) == "pbem.protocol.replay"
    assert within("pbem.protocol.state.table", may_import(engine))
    assert not within("pbem.mail.message", may_import(engine))
    assert not within("pbem.protocol.replay.engine", may_import(table))
    assert not within("pbem.home.archive", may_import(table))
    assert within("pbem.protocol.replay.engine", may_import("pbem.home.archive"))


# ---- the structure of the protocol and the home --------------------------------------
# (Module sizes: tests/test_cli_layout.py, at most 800 lines a module.)
PROTOCOL = ROOT / "pbem" / "protocol"
STORAGE_ROOMS = (*PROTOCOL_ROOMS, "pbem.home")


def folder(package: str) -> Path:
    return ROOT.joinpath(*package.split("."))


def test_every_protocol_module_sits_in_a_room() -> None:
    """Nothing is left in pbem/protocol/ itself and every folder there is a room listed
    here: a half-moved room fails."""
    loose = sorted(p.name for p in PROTOCOL.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    folders = sorted(f"pbem.protocol.{p.name}" for p in PROTOCOL.iterdir()
                     if p.is_dir() and any(p.glob("*.py")))
    assert folders == sorted(PROTOCOL_ROOMS)


@pytest.mark.parametrize("package", ["pbem.protocol", *STORAGE_ROOMS])
def test_a_room_says_its_job_and_runs_no_code(package: str) -> None:
    """A room's __init__ is its docstring only: one that imported its modules would load
    the whole room for any one of them, and hide a cycle behind the package's name."""
    tree = ast.parse((folder(package) / "__init__.py").read_text("utf-8"))
    assert ast.get_docstring(tree), f"{package} does not say its job"
    assert len(tree.body) == 1, f"{package}/__init__.py holds more than its docstring"


def test_no_room_is_named_like_a_module() -> None:
    """A room called like a module (a room ``clock`` holding ``clock.py``) would make
    every mention of the name ambiguous."""
    rooms = {room.rpartition(".")[2] for room in STORAGE_ROOMS}
    modules = {p.stem for p in ENGINE_FILES}
    assert sorted(rooms & modules) == []


def private_names_used(path: Path) -> list[str]:
    """The private names (``_x``, not dunders) a file takes from another pbem module: by
    ``from pbem.m import _x`` or as ``m._x`` on a pbem module it imported."""
    tree = ast.parse(path.read_text("utf-8"))
    modules: set[str] = set()
    found: list[str] = []

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pbem"):
            found += [f"{node.module}.{a.name}" for a in node.names if private(a.name)]
            modules |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.startswith("pbem")}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and private(node.attr)
                and isinstance(node.value, ast.Name) and node.value.id in modules):
            found.append(f"{node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", [p for p in ENGINE_FILES
                                  if within(module_name(p), ("pbem.protocol", "pbem.home"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_protocol_or_home_module_uses_another_ones_private_names(path: Path) -> None:
    """A name another module needs is public (no underscore), so a maintainer reading a
    module knows what the rest of pbem relies on."""
    assert private_names_used(path) == []


def test_the_private_name_check_can_fail(tmp_path: Path) -> None:
    fake = tmp_path / "fake.py"
    fake.write_text("from pbem.protocol.crypto import mental_deck\n"
                    "from pbem.protocol.crypto.mental import _scalar\n"
                    "mental_deck._point(b'')\n", "utf-8")
    assert private_names_used(fake) == ["pbem.protocol.crypto.mental._scalar", "mental_deck._point"]


def module_graph() -> dict[str, list[str]]:
    """Module -> the pbem and games modules it imports (lazy imports too), each named by
    its file: ``from pbem.protocol import engine`` is pbem.protocol.replay.engine, ``from
    pbem.game import Game`` is pbem.game."""
    files = {module_name(p): p for p in [*ENGINE_FILES, *GAME_FILES]}
    graph: dict[str, list[str]] = {}
    for module, path in files.items():
        targets = []
        for name in imports_of(path):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module and name not in targets:
                targets.append(name)
        graph[module] = sorted(targets)
    return graph


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, []):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_two_modules_import_each_other_even_lazily() -> None:
    """An import inside a function to dodge a cycle is still a cycle: the two modules
    cannot be understood, tested or moved one without the other."""
    assert cycles(module_graph()) == []


def test_the_cycle_check_can_fail() -> None:
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]

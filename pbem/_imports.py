"""Import plumbing: old paths of modules that moved into rooms, and lazy room exports.

``import pbem.engine`` gives the very module ``pbem.protocol.engine`` (not a copy), so
monkeypatching and ``isinstance`` behave as before; new code imports the room paths.
A room's ``__init__`` names its public API without importing it: the module behind a
name loads on first use, so ``import pbem.protocol`` costs nothing at start-up.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import importlib.abc

MOVED = {
    **{f"pbem.{name}": f"pbem.protocol.{name}" for name in (
        "archive", "beacon", "canonical", "contacts", "derive", "engine", "identity",
        "mental", "mental_deck", "sampler", "savefile", "secretdeck", "turns")},
    "pbem.bots": "pbem.play.bots",
    "pbem.local": "pbem.play.local",
    "pbem.render": "pbem.drawing.page",
    "pbem.smtp": "pbem.mail.smtp",
    "pbem.inbox": "pbem.mail.inbox",
    "pbem.profile": "pbem.mail.profile",
}


class _OldPath:
    """A meta path finder and loader for the old paths. It does not subclass
    ``importlib.abc``'s classes: importing that module pulls in importlib.resources,
    tempfile and shutil, a tenth of pbem's start-up, for two base classes with no code."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, cast("importlib.abc.Loader", self))
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the real module ran when it was imported by its own name."""


def install_old_paths() -> None:
    if not any(isinstance(f, _OldPath) for f in sys.meta_path):
        sys.meta_path.append(_OldPath())


def lazy_exports(package: str, names: dict[str, str]) -> tuple[Callable[[str], Any], list[str]]:
    """``__getattr__`` and ``__all__`` for a room: ``names`` maps a public name to the
    module of the room that defines it."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__, sorted(names)

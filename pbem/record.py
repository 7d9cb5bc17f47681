"""``Record``: equality and a readable repr for the small classes that carry results.

Those classes write their ``__init__`` out rather than use ``@dataclass``: the decorator
generates its methods with ``exec`` when a module loads, about 0.6 ms a class, which was
12 ms of every command's start-up over the classes a command loads. Immutable
values (moves, options) are ``typing.NamedTuple``, which costs a fifth of that."""

from __future__ import annotations

from typing import Any, ClassVar


class Record:
    """Two records are equal when they are of one class with equal fields (as with a
    dataclass, and unhashable for the same reason: they can change)."""

    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in _public(vars(self)))
        return f"{type(self).__name__}({fields})"


def _public(fields: dict[str, Any]) -> list[tuple[str, Any]]:
    """Fields shown by repr: a leading underscore marks one that may hold a secret."""
    return [(name, value) for name, value in fields.items() if not name.startswith("_")]

"""Reading a game's component data: the installed ``components.toml`` and the copy every
save's header carries (which a crafted save may fill with anything).

One set of checks for every game, each naming the bad entry in a sentence
(ComponentError: "Road Master components: card 'r7' needs 'points' as a whole number
from 0 to 1000."), so an owner who edits the file, or a player who opens a crafted save,
reads what is wrong instead of a traceback. Games reach it through ``pbem.game``.
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem import tomltext
from pbem.errors import ComponentError

# Numbers in a header size lists and loops (card copies, dice): bounded, so a crafted save
# cannot make set-up take gigabytes. Far above anything a printed game uses.
MAX_NUMBER = 1000


def is_whole(value: Any) -> bool:
    """A TOML integer (``true`` is not one, though Python counts it as 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


class ComponentReader:
    """The checks for one game's data; every failure starts with the game's title."""

    def __init__(self, title: str) -> None:
        self.title = title

    # Equal by title, so the data of one game is read and checked once per process
    # whichever reader asks (``load`` caches by reader, file and check).
    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComponentReader) and other.title == self.title

    def __hash__(self) -> int:
        return hash(self.title)

    def fail(self, where: str, what: str) -> ComponentError:
        """'<title> components: <where> <what>.' (raise it)."""
        return ComponentError(f"{self.title} components: {where} {what}.")

    def need(self, condition: object, message: str) -> None:
        """Raise '<title> components: <message>.' unless ``condition`` holds."""
        if not condition:
            raise ComponentError(f"{self.title} components: {message}.")

    def table(self, data: dict[str, Any], key: str, where: str | None = None) -> dict[str, Any]:
        value = data.get(key)
        if not isinstance(value, dict):
            raise self.fail(where or f"[{key}]", "is missing or is not a table"
                            + (f" ([{key}])" if where else ""))
        return value

    def array(self, data: dict[str, Any], key: str, where: str | None = None) -> list[Any]:
        value = data.get(key)
        if not isinstance(value, list):
            raise self.fail(where or key, "is missing or is not a list"
                            + (f" ({key})" if where else ""))
        return value

    def tables(self, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
        """A TOML array of tables (``[[key]]``)."""
        value = data.get(key)
        if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
            raise self.fail(f"[[{key}]]", "is missing or is not a list of tables")
        return value

    def whole(self, entry: dict[str, Any], key: str, where: str, minimum: int = 0,
            maximum: int = MAX_NUMBER) -> int:
        value = entry.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
            raise self.fail(where, f"needs '{key}' as a whole number from {minimum} to {maximum}")
        return value

    def text(self, entry: dict[str, Any], key: str, where: str) -> str:
        value = entry.get(key)
        if not isinstance(value, str) or not value:
            raise self.fail(where, f"needs '{key}' as a non-empty text")
        return value

    def names(self, value: Any, where: str, what: str = "") -> list[str]:
        """A list of names (texts): ``what`` of ``where`` (the sentence is built only if
        it is not one: set-up checks thousands of these)."""
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise self.fail(f"{where} {what}" if what else where, "must be a list of names")
        return list(value)

    def load(self, path: Path, validate: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """The installed data at ``path``, validated: a fresh copy each time (callers may
        change theirs), read and checked once per process."""
        return copied(_read(self, path, validate))


def copied(value: Any) -> Any:
    """An exact copy of plain data (tables, lists, texts, numbers).

    By marshal, built into Python: half the time of pickle and a sixth of copy.deepcopy,
    which walks every value in Python; shared parts stay shared, as with both. marshal
    takes only the built-in types; a value holding anything else (a Fixed table, see
    pbem.game) goes through pickle, loaded on that first copy."""
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        import pickle

        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


@functools.cache
def _read(reader: ComponentReader, path: Path,
          validate: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomltext.load(handle)
    except OSError as exc:
        raise ComponentError(f"{reader.title} components: cannot read {path} "
                             f"({exc.strerror}); reinstall the game.") from None
    except tomltext.TOMLDecodeError as exc:
        raise ComponentError(f"{reader.title} components: {path} is not valid TOML ({exc}); "
                             "fix the file or reinstall the game.") from None
    validate(data)
    return data

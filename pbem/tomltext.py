"""TOML in and out: the one parser and the one writer behind every file pbem reads or
writes (saves, identities, contacts, mail profiles, component data).

Reading uses tomli, pinned to the 2.3 series: the same TOML 1.0 grammar as the standard
library's tomllib on Python 3.11, so every home accepts exactly the same files whatever
Python it runs (a later tomllib may follow TOML 1.1), compiled with mypyc (about 2.7x
faster than tomllib on a long save) and with tomli 2.3.1's guard against quadratic keys.

Writing is ours: the layout of tomli-w (tables, arrays of tables, inline tables up to 100
characters, arrays one item a line) for the values a pbem file holds (str, int, bool,
lists and tables), byte for byte, so files written by earlier versions look the same.
tomli-w escapes every string a character at a time; a save is thousands of hex strings
that need no escape, so this writer checks each string once with a regular expression.
tests/test_tomltext.py holds it to tomli-w's output on whole games.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import IO, Any

import tomli
from tomli import TOMLDecodeError

__all__ = ["TOMLDecodeError", "dumps", "load", "loads", "section"]

MAX_LINE_LENGTH = 100
INDENT = "    "
# What a basic string cannot hold as is: quote, backslash and control characters but tab.
_NEEDS_ESCAPE = re.compile(r'[\x00-\x08\x0a-\x1f\x7f"\\]')
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_COMPACT_ESCAPES = {"\b": "\\b", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"',
                    "\\": "\\\\"}


def loads(text: str) -> dict[str, Any]:
    return tomli.loads(text)


def load(handle: IO[bytes]) -> dict[str, Any]:
    return tomli.load(handle)


def dumps(doc: Mapping[str, Any]) -> str:
    """``doc`` as TOML text; TypeError for a value TOML cannot hold here (floats, dates
    and other types never appear in a pbem file)."""
    out: list[str] = []
    _table(doc, "", False, out, {})
    return "".join(out)


def section(name: str, table: Mapping[str, Any], in_array: bool = False) -> str:
    """One top-level table as :func:`dumps` writes it inside a document: ``[name]`` (or
    ``[[name]]``, one item of an array of tables) and everything under it. A document of
    tables only is its sections joined by blank lines (pbem.protocol.savefile builds a
    save so, re-using the text of entries it has written before)."""
    out: list[str] = []
    _table(table, _key(name), in_array, out, {})
    return "".join(out)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _COMPACT_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return f'"{_NEEDS_ESCAPE.sub(_escape, text)}"'


def _key(part: str) -> str:
    if not isinstance(part, str):
        raise TypeError(f"Invalid mapping key {part!r} of type {type(part).__qualname__!r}.")
    return part if _BARE_KEY.fullmatch(part) else _string(part)


def _literal(value: object, cache: dict[int, str], level: int = 0) -> str:
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = INDENT * (level + 1)
        items = ",\n".join(inner + _literal(item, cache, level + 1) for item in value)
        return f"[\n{items},\n{INDENT * level}]"
    if isinstance(value, Mapping):
        return _inline(value, cache)
    raise TypeError(f"Object of type {type(value).__qualname__!r} is not TOML serializable")


def _inline(table: Mapping[str, Any], cache: dict[int, str]) -> str:
    # Keyed by identity, like tomli-w: the same table is asked for when choosing the
    # layout and again when writing it.
    found = cache.get(id(table))
    if found is None:
        if not table:
            found = "{}"
        else:
            pairs = ", ".join(f"{_key(k)} = {_literal(v, cache)}" for k, v in table.items())
            found = "{ " + pairs + " }"
        cache[id(table)] = found
    return found


def _fits_inline(table: Mapping[str, Any], cache: dict[int, str]) -> bool:
    rendered = _inline(table, cache)  # as one indented item of an array, comma and all
    return len(INDENT) + len(rendered) + 1 <= MAX_LINE_LENGTH and "\n" not in rendered


def _table(table: Mapping[str, Any], name: str, in_array: bool, out: list[str],
           cache: dict[int, str]) -> None:
    literals: list[tuple[str, Any]] = []
    tables: list[tuple[str, Mapping[str, Any], bool]] = []
    for key, value in table.items():
        if isinstance(value, Mapping):
            tables.append((key, value, False))
        elif (isinstance(value, (list, tuple)) and value
              and all(isinstance(v, Mapping) for v in value)
              and not all(_fits_inline(v, cache) for v in value)):
            tables.extend((key, v, True) for v in value)
        else:
            literals.append((key, value))
    written = False
    if in_array or (name and (literals or not tables)):
        out.append(f"[[{name}]]\n" if in_array else f"[{name}]\n")
        written = True
    for key, value in literals:
        out.append(f"{_key(key)} = {_literal(value, cache)}\n")
        written = True
    for key, value, in_aot in tables:
        if written:
            out.append("\n")
        written = True
        part = _key(key)
        _table(value, f"{name}.{part}" if name else part, in_aot, out, cache)

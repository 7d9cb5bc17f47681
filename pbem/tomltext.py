"""TOML in and out: the one parser and the one writer behind every file pbem reads or
writes (saves, identities, contacts, mail profiles, component data).

Reading uses tomli, pinned to the 2.3 series: the same TOML 1.0 grammar as the standard
library's tomllib on Python 3.11, so every home accepts exactly the same files whatever
Python it runs (a later tomllib may follow TOML 1.1), compiled with mypyc (about 2.7x
faster than tomllib on a long save) and with tomli 2.3.1's guard against quadratic keys.

Writing is tomli-w's. A hand-written writer of the same layout was about twice as fast,
but that is 1 to 12 ms on a command that takes well over 100 ms: not worth a second
TOML writer to keep in step (measured in bench/README.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

import tomli
from tomli import TOMLDecodeError

__all__ = ["TOMLDecodeError", "dumps", "load", "loads", "section"]


def loads(text: str) -> dict[str, Any]:
    return tomli.loads(text)


def load(handle: IO[bytes]) -> dict[str, Any]:
    return tomli.load(handle)


def dumps(doc: Mapping[str, Any]) -> str:
    """``doc`` as TOML text; TypeError for a value TOML cannot hold (None, bytes, a key
    that is not a string)."""
    import tomli_w  # here: reading a save (verify, show) never writes TOML

    return tomli_w.dumps(doc)


def section(name: str, table: Mapping[str, Any], in_array: bool = False) -> str:
    """One top-level table as :func:`dumps` writes it inside a document: ``[name]`` (or
    ``[[name]]``, one item of an array of tables, for a table too long to go inline, as a
    signed entry always is) and everything under it. A document of
    tables only is its sections joined by blank lines (pbem.protocol.saveformat.savefile builds a
    save so, re-using the text of entries it has written before)."""
    return dumps({name: [table] if in_array else table})

"""Canonical bytes and hashes of signed data (PROTOCOL.md section 3).

canonical(x) is JSON with sorted keys, no insignificant whitespace, UTF-8. Only
strings, integers, booleans, lists and string-keyed tables may be signed: no floats,
no None, no dates, so every machine produces the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pbem.hashing import sha256_hex
from pbem.terminal import shown


class NotCanonicalError(ValueError):
    """A value that may not appear in signed data; the message gives its path."""


# Bounds on anything read from a file (PROTOCOL.md section 9, step 1). Integers stay within
# the range every JSON reader keeps exact; nesting, strings and keys stay small enough
# that no walk, copy or hash of a value can run out of stack, memory or time.
MAX_DEPTH = 32
MAX_INT = 2**53 - 1
MAX_STRING = 16_384  # characters in one string or key
# A key named in a message as it is; any other (long, odd characters) is shown quoted, cut.
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,24}")


def check_signable(value: Any, path: str = "", *, max_int: int = MAX_INT,
                   max_depth: int = MAX_DEPTH, max_string: int = MAX_STRING) -> None:
    """Raise NotCanonicalError if ``value`` holds anything but str/int/bool/list/dict, or
    breaks a bound: nesting deeper than ``max_depth``, an integer beyond ``max_int`` either
    way, a string or key longer than ``max_string``. Iterative: any depth is safe to check."""
    if _signable(value, max_int, max_depth, max_string):
        return
    _find_unsignable(value, path, max_int=max_int, max_depth=max_depth, max_string=max_string)


def _signable(value: Any, max_int: int, max_depth: int, max_string: int) -> bool:
    """Whether ``value`` passes check_signable: the same walk without naming each path
    (a save's every value is checked on every verify; the paths only name a failure).
    Leaves are checked where they are met; only tables and lists wait on the stack."""
    if not isinstance(value, dict | list):
        return _leaf_in_bounds(value, max_int, max_string)
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= max_depth:
            return False
        children: Iterable[Any] = item
        container = type(item)
        if container is dict or (container is not list and isinstance(item, dict)):
            for key in item:
                if (type(key) is not str and not isinstance(key, str)) or len(key) > max_string:
                    return False
            children = item.values()
        for sub in children:
            kind = type(sub)
            if kind is str:
                if len(sub) > max_string:
                    return False
            elif kind is int:
                if not -max_int <= sub <= max_int:
                    return False
            elif kind is dict or kind is list:
                stack.append((sub, depth + 1))
            elif kind is not bool:
                # A subclass (a game's Fixed table, say), judged as the full check judges it.
                if isinstance(sub, dict | list):
                    stack.append((sub, depth + 1))
                elif not _leaf_in_bounds(sub, max_int, max_string):
                    return False
    return True


def _leaf_in_bounds(value: Any, max_int: int, max_string: int) -> bool:
    """A leaf as the full check judges it: by what it is an instance of, in its order."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -max_int <= value <= max_int
    if isinstance(value, str):
        return len(value) <= max_string
    return False


def _find_unsignable(value: Any, path: str, *, max_int: int, max_depth: int,
                     max_string: int) -> None:
    """check_signable's walk with paths, for the message: raises at the first offence."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            if not -max_int <= item <= max_int:
                raise NotCanonicalError(f"{_at(where)} is a number beyond ±{max_int}")
            continue
        if isinstance(item, str):
            if len(item) > max_string:
                raise NotCanonicalError(f"{_at(where)} is a text of {len(item)} "
                                        f"characters (at most {max_string})")
            continue
        if isinstance(item, list | dict) and depth >= max_depth:
            raise NotCanonicalError(f"{_at(where)} nests more than {max_depth} deep")
        if isinstance(item, list):
            stack.extend((sub, f"{where}[{i}]", depth + 1) for i, sub in enumerate(item))
            continue
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise NotCanonicalError(f"{_at(where)} has a non-string key {shown(key)}")
                if len(key) > max_string:
                    raise NotCanonicalError(f"{_at(where)} has a key of {len(key)} "
                                            f"characters (at most {max_string})")
                label = key if _PLAIN_KEY.fullmatch(key) else shown(key, 20)
                stack.append((sub, f"{where}.{label}" if where else label, depth + 1))
            continue
        kind = type(item).__name__
        raise NotCanonicalError(f"{_at(where)} is a {kind}; only strings, integers, "
                                "booleans, arrays and tables may be signed")


def _at(where: str) -> str:
    """A value's place for a message: its path, the end kept when it is long."""
    if not where:
        return "value"
    return where if len(where) <= 80 else "..." + where[-77:]


def canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical bytes."""
    return sha256_hex(canonical(value))

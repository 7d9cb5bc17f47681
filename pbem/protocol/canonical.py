"""Canonical bytes and hashes of signed data (PROTOCOL.md section 3).

canonical(x) is JSON with sorted keys, no insignificant whitespace, UTF-8. Only
strings, integers, booleans, lists and string-keyed tables may be signed: no floats,
no None, no dates, so every machine produces the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


class NotCanonicalError(ValueError):
    """A value that may not appear in signed data; the message gives its path."""


def check_signable(value: Any, path: str = "") -> None:
    """Raise NotCanonicalError if ``value`` holds anything but str/int/bool/list/dict."""
    if isinstance(value, bool | int | str):
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_signable(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonicalError(f"{path or 'value'} has a non-string key {key!r}")
            check_signable(item, f"{path}.{key}" if path else key)
        return
    kind = type(value).__name__
    raise NotCanonicalError(f"{path or 'value'} is a {kind}; only strings, integers, "
                            "booleans, arrays and tables may be signed")


def canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical bytes."""
    return hashlib.sha256(canonical(value)).hexdigest()

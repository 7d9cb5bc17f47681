"""The text form of the deck's binary values (points, proofs) in format pbem/2: unpadded
base64url (RFC 4648 section 5, no ``=``), a third shorter than hex.

Exactly one text per byte string: a reader refuses padding, the ``+`` and ``/`` of the
other alphabet, whitespace, a length no byte string has (4k + 1 characters), and a last
character whose unused low bits are not zero (``decode`` re-encodes and compares)."""

from __future__ import annotations

import base64
import re

from pbem.terminal import shown

_FORM = re.compile(r"[A-Za-z0-9_-]*")


def encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def length(n: int) -> int:
    """Characters of ``n`` bytes as text."""
    return -(-4 * n // 3)


def decode(text: object, size: int | None = None, what: str = "binary value") -> bytes:
    """The bytes of ``text``, else ValueError: not canonical unpadded base64url, or not
    ``size`` bytes long where ``size`` is given."""
    if not isinstance(text, str) or not _FORM.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError(f"{shown(text, 72)} is not a {what} in unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if encode(data) != text:
        raise ValueError(f"{shown(text, 72)} is not a {what} in canonical base64url "
                         "(its last character's unused bits are not zero)")
    if size is not None and len(data) != size:
        raise ValueError(f"{shown(text, 72)} is not a {what} of {size} bytes in base64url")
    return data

"""Finding pbem saves in a mail someone else wrote: every part that is or may be a save,
bounded in size before anything is decoded, and the text of headers as its sender meant
it."""

from __future__ import annotations

import base64
import binascii
import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from email.policy import Compat32
from typing import Any

from pbem.errors import SaveFileError
from pbem.protocol.saveformat import packed

MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024  # far above any real save; parsing stops there
# A mail that carries a save has a handful of MIME parts and short headers. The standard
# library's parser takes time quadratic in a header's parameters and encoded words (a
# Content-Type of 3.5 MB took 12 s, a Subject of 4.4 MB 46 s) and memory for every part
# (a million of them fit in the largest message read), so both are bounded.
MAX_PARTS = 1000
MAX_HEADER_CHARS = 16 * 1024
# Of a gzip part not named as a save, only this much is inflated to see whether it is
# one: each of hundreds of parts was inflated to the attachment cap (0.6 s per 25 parts).
PEEK_BYTES = 64 * 1024
# A save is text full of hashes and signatures: gzip makes it at most about 8 times
# smaller (every save of the three games, long and short). A part any start of which
# inflates to more than MAX_RATIO times its size (plus PEEK_BYTES) is no save, and is
# inflated no further: a mail of 990 such parts once took 38 s, each inflated to the cap.
MAX_RATIO = 50


class TooManyParts(Exception):
    """A message of more than MAX_PARTS MIME parts, found while it was being parsed."""


class _Bounded(Compat32):
    """compat32 (only a few headers are read, decoded by hand), with every header's
    value cut at MAX_HEADER_CHARS as it is parsed: none that pbem reads is ever longer."""

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        name, value = super().header_source_parse(sourcelines)
        return name, value[:MAX_HEADER_CHARS]


def reading_policy() -> Compat32:
    """The email policy to parse one message with (a new one for each: it counts its
    parts, and raises TooManyParts past MAX_PARTS)."""
    made = 0

    def part(policy: Any) -> Message:
        nonlocal made
        made += 1
        if made > MAX_PARTS:
            raise TooManyParts()
        return Message(policy)

    return _Bounded(message_factory=part)


@dataclass
class Found:
    """One part of a message that is, or may be, a pbem save."""

    name: str  # the attachment's file name, or a description of the part
    content_type: str
    size: int  # decoded size in bytes (estimated for a part over the cap; a gzip one not
    # read: as it came)
    data: bytes = b""  # the decoded bytes, inflated if gzip (BOM and CRLF left for savefile)
    problem: str = ""  # "too-large" when the part was not read
    # Of a gzip part not read, why: "cap" (it inflates past it) or "ratio" (past MAX_RATIO)
    inflating: str = ""


SAVE_MARKERS = (b"[header]", b"pbem/")


def looks_like_save(data: bytes) -> bool:
    """Cheap test by content: a pbem save has a [header] table naming the pbem format."""
    return all(marker in data for marker in SAVE_MARKERS)


def clean_text(text: str) -> str:
    """Text from a mail as its sender meant it: raw 8-bit bytes (kept by the parser as
    lone surrogates, which no terminal or JSON encoder accepts) read as UTF-8, and
    anything still undecodable shown as U+FFFD. Control characters stay: the CLI escapes
    them (pbem.terminal)."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that did not come from a raw byte
        return text.encode("utf-8", "replace").decode("utf-8")


def _part_name(part: Message, index: int) -> str:
    try:
        name = part.get_filename()
    except Exception:  # a hostile Content-Disposition must not lose the part
        name = None
    if name:
        return clean_text(str(name))
    return f"part {index} ({part.get_content_type()})"


def _encoded_size(part: Message) -> tuple[int, str]:
    raw = part.get_payload(decode=False)
    text = raw if isinstance(raw, str) else ""
    cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
    size = len(text)
    if cte == "base64":
        size = size * 3 // 4
    elif cte == "quoted-printable":
        size = _qp_size(text)
    return size, text


_QP_SHORTER = re.compile(r"=[0-9A-Fa-f]{2}|=\r?\n")


def _qp_size(text: str) -> int:
    """The bytes quoted-printable ``text`` decodes to, or a little more (never less, so
    no part slips past the cap): an escape ``=XX`` is one byte, a soft line break none;
    anything else, a stray ``=`` included, counts as itself."""
    saved = 0
    for match in _QP_SHORTER.finditer(text):
        found = match.group()
        saved += len(found) - (0 if found[1] in "\r\n" else 1)
    return len(text) - saved


def _peek(text: str, cte: str, limit: int = 16384) -> bytes:
    """The first bytes of an over-large part, decoded, to see whether it is a save."""
    head = text[:limit]
    try:
        if cte == "base64":
            compact = "".join(head.split())
            return base64.b64decode(compact[: len(compact) // 4 * 4])
        if cte == "quoted-printable":
            return quopri.decodestring(head.encode("ascii", "replace"))
    except (binascii.Error, ValueError):
        return b""
    return head.encode("utf-8", "replace")


def find_saves(message: Message, max_bytes: int = MAX_ATTACHMENT_BYTES) -> list[Found]:
    """Every part of ``message`` (forwarded messages included) that looks like a save.

    A part over ``max_bytes`` is not decoded; it is listed with problem "too-large" if its
    name, type or first bytes suggest a save, and ignored otherwise (a photo)."""
    return list(iter_saves(message, max_bytes))


def iter_saves(message: Message, max_bytes: int = MAX_ATTACHMENT_BYTES) -> Iterator[Found]:
    """:func:`find_saves` one part at a time: a message of hundreds of saves is never
    held decoded all at once."""
    for index, part in enumerate(message.walk()):
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        name = _part_name(part, index)
        size, text = _encoded_size(part)
        if size > max_bytes:
            cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
            if (name.lower().endswith((".toml", ".toml.gz")) or "toml" in ctype
                    or looks_like_save(_peek(text, cte))):
                yield Found(name, ctype, size, problem="too-large")
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        if packed.is_gzip(payload):
            yield from _packed_save(payload, name, ctype, max_bytes)
        elif looks_like_save(payload):
            yield Found(name, ctype, len(payload), payload)


def _packed_save(payload: bytes, name: str, ctype: str, max_bytes: int) -> list[Found]:
    """A gzip-compressed part, inflated to at most ``max_bytes`` and MAX_RATIO times its
    size: the save it holds. One named as a save that inflates past either is
    "too-large", and one that is damaged is passed on as it is (savefile then says why,
    as for any damaged save); any other archive is no save."""
    named = name.lower().endswith(".toml.gz") or "toml" in ctype
    if not named and not looks_like_save(packed.head(payload, PEEK_BYTES)):
        return []  # another archive (a pbem save starts with its [header]): not inflated
    try:
        data = packed.unpack(payload, max_bytes, name, ratio=MAX_RATIO, slack=PEEK_BYTES)
    except packed.OverRatio:
        return [_not_inflated(name, ctype, payload, "ratio")] if named else []
    except packed.TooLarge:
        return [_not_inflated(name, ctype, payload, "cap")] if named else []
    except SaveFileError:
        return [Found(name, ctype, len(payload), payload)] if named else []
    return [Found(name, ctype, len(data), data)] if looks_like_save(data) else []


def _not_inflated(name: str, ctype: str, payload: bytes, why: str) -> Found:
    return Found(name, ctype, len(payload), problem="too-large", inflating=why)


def mentions_pbem(message: Message) -> bool:
    """Whether a message claims to be about a pbem game (for 'save missing' reports): its
    headers, or a subject pbem wrote (old ones named the entry, new ones only the game).
    A player's reply ("Re: [pbem] ...") is talk, not a mail whose save was lost."""
    subject = str(message.get("Subject", ""))
    return bool(message.get("X-Pbem-Game")) or subject.lstrip().lower().startswith("[pbem]")


def defects(message: Message) -> list[str]:
    """Names of the MIME defects the parser found anywhere in the message."""
    names: list[str] = []
    for part in message.walk():
        for defect in getattr(part, "defects", []):
            label = type(defect).__name__
            if label not in names:
                names.append(label)
    return names

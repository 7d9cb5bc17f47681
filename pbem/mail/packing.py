"""The save as a turn mail attaches it: as it is, quoted-printable, when the mail fits its
budget with it and the sharp board; else gzip-compressed as ``NAME.toml.gz`` (base64),
which pbem reads as it is (pbem.protocol.saveformat.packed), so the words of the mail ("save the
attached NAME.toml.gz and run pbem play NAME.toml.gz") stay true with no unzipping.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.protocol.saveformat import packed, savefile


@dataclass(frozen=True)
class Attached:
    """The save's attachment: its file name, its bytes, and what it takes in the mail."""

    name: str
    data: bytes  # the file as attached: the save, or the save gzip-compressed
    subtype: str  # of application/
    cte: str
    size: int  # bytes in the mail, encoded, with CRLF line ends

    @property
    def packed(self) -> bool:
        return self.subtype == "gzip"


def base64_size(n: int) -> int:
    """Bytes that ``n`` bytes take in a mail as base64 in lines of 76 (CRLF ends)."""
    encoded = 4 * -(-n // 3)
    return encoded + 2 * -(-encoded // 76)


def attachment(name: str, data: bytes, text: str, room: int) -> Attached:
    """The save ``data`` (its quoted-printable ``text`` as message.save_text writes it) as
    it is if that takes at most ``room`` bytes of the mail, else gzip-compressed, unless
    that is no smaller."""
    plain = Attached(name, data, "toml", "quoted-printable", len(text) + text.count("\n"))
    if plain.size <= room:
        return plain
    squeezed = packed.pack(data)
    gz = Attached(name + packed.GZIP_SUFFIX, squeezed, "gzip", "base64",
                  base64_size(len(squeezed)))
    return gz if gz.size < plain.size else plain


def as_saved(name: str, raw: bytes) -> tuple[str, bytes]:
    """A save file's name and bytes as the mail is to carry them: a gzip-compressed file
    inflated (bounded, SaveFileError if it cannot be) and named without its ``.gz``, so
    that :func:`attachment` chooses afresh."""
    if not packed.is_gzip(raw):
        return name, raw
    data = packed.unpack(raw, savefile.MAX_SAVE_BYTES, name)
    return name.removesuffix(packed.GZIP_SUFFIX) or name, data

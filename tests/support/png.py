"""PNG images decoded with the standard library (zlib and the PNG filters), for tests of
pictures: the board PNGs pbem renders and the screenshots Chromium takes."""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from pathlib import Path


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _read(data: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, bytes per pixel, filtered rows) of an 8-bit, non-interlaced grey,
    grey+alpha, RGB or RGBA PNG: its chunks read and its image data inflated, each row
    checked to be one filter byte (0 to 4) and its pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, (depth, interlace)
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    assert width and height and len(raw) == height * (stride + 1), "image data of another size"
    assert max(raw[::stride + 1]) <= 4, "unknown PNG filter"
    return width, height, bpp, raw


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG that :func:`decode_png` would decode, without undoing its
    filters (pure-Python filters take seconds on a full-size board)."""
    width, height, _, _ = _read(data)
    return width, height


def decode_png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows of pixel bytes, bytes per pixel) of an 8-bit, non-interlaced
    grey, RGB or RGBA PNG (what Chromium writes)."""
    width, height, bpp, raw = _read(data)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        method, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if method == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif method == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev, strict=True))
        elif method == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif method == 4:
            for i in range(stride):
                up = prev[i]
                if i < bpp:  # left and corner are 0: the predictor is up
                    line[i] = (line[i] + up) & 0xFF
                    continue
                left, corner = line[i - bpp], prev[i - bpp]
                # _paeth(left, up, corner), written out: this loop runs per byte
                pa, pb, pc = abs(up - corner), abs(left - corner), abs(left + up - 2 * corner)
                guess = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + guess) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def encode_png(width: int, rows: list[bytes], bpp: int) -> bytes:
    """An RGBA PNG whose row y uses filter y % 5 (to test the decoder with)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    raw = bytearray()
    prev = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        method = y % 5
        out = bytearray()
        for i, value in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            corner = prev[i - bpp] if i >= bpp else 0
            guess = [0, left, prev[i], (left + prev[i]) >> 1, _paeth(left, prev[i], corner)]
            out.append((value - guess[method]) & 0xFF)
        raw += bytes([method]) + out
        prev = row
    header = struct.pack(">IIBBBBB", width, len(rows), 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw)))
            + chunk(b"IEND", b""))


def colours(png: Path | bytes) -> tuple[tuple[int, int], Counter[tuple[int, ...]]]:
    """The size of a screenshot and how many pixels have each RGB colour."""
    width, height, rows, bpp = decode_png(png if isinstance(png, bytes) else png.read_bytes())
    counts: Counter[tuple[int, ...]] = Counter()
    for row in rows:
        if bpp == 1:
            counts.update((v, v, v) for v in row)
        else:
            counts.update(zip(row[0::bpp], row[1::bpp], row[2::bpp], strict=True))
    return (width, height), counts


def near(counts: Counter[tuple[int, ...]], rgb: tuple[int, int, int], slack: int = 3) -> int:
    """Pixels within ``slack`` of ``rgb`` on every channel."""
    return sum(n for c, n in counts.items() if all(abs(a - b) <= slack for a, b in zip(c, rgb,
                                                                                         strict=True)))


def rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF

"""The board PNG of a turn mail: its size and encode time as pbem writes it today, against
lossless re-encodings of the same pixels, for every title at its largest player count and
the 5-player Posse game, each board as its last entry's mail draws it (a whole game by
greedy bots, fixed identities and entropy: the same boards on every run).

    python bench/bench_png.py [--quick]

Today's board is resvg's picture cut to 256 colours (pbem.drawing.png.mail_png) and
written by Pillow (zlib level 9, every row filtered with None, as Pillow does for palette
images). The re-encodings keep every pixel (each is decoded here and compared with the
quantized picture) and change only how they are written:

- ``none``: filter None on every row, zlib level 9 and memLevel 9;
- ``none+order``: the same, the palette renumbered by use, most used colour first;
- ``sub``, ``up``, ``average``, ``paeth``: that filter on every row (palette renumbered by use);
- ``adaptive``: each row's filter chosen by the minimum sum of absolute differences
  (the usual heuristic, libpng's), palette renumbered by use;
- ``zopfli``: today's PNG deflated again by Zopfli, filter None (pbem.drawing.png.squeezed,
  what a mail near its budget carries), with its median time against today's.

Sizes are in bytes with their ratio to today's; times are the median of several runs
(Pillow's encoder and the stdlib-zlib ``none`` writer, both in C; the filters here are
pure Python and their time says nothing of a C encoder, so it is not printed). ``--quick``
cuts each game at 150 entries and times one run.
"""

from __future__ import annotations

import argparse
import io
import struct
import tempfile
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

from common import build_fixed, median_time

from pbem import registry, session
from pbem.drawing import png
from pbem.protocol.crypto.identity import Home

FILTERS = {"none": 0, "sub": 1, "up": 2, "average": 3, "paeth": 4}  # PNG filter types
COST = [min(v, 256 - v) for v in range(256)]  # |signed byte|, the heuristic's measure


def board_svg(ruleset: str, players: int, options: list[str], cap: int) -> str:
    save = build_fixed(ruleset, players, options, max_entries=cap)
    verified = session.verify(save, Home(Path(tempfile.mkdtemp(prefix="pbem-bench-png-"))))
    svg = verified.table.game.render_svg(session.public_view(verified))
    assert isinstance(svg, str)
    return svg


def quantized(svg: str) -> object:
    """The mail's board before it is written: resvg's picture cut to 256 colours, exactly
    as mail_png cuts it."""
    from PIL import Image

    with Image.open(io.BytesIO(png.png_of(svg, png.MAIL_WIDTH * png.MAIL_SCALE))) as image:
        return image.convert("RGB").quantize(png.MAIL_COLOURS, method=Image.Quantize.FASTOCTREE)


def pillow_png(image: object) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)  # type: ignore[attr-defined]
    return out.getvalue()


# ---- a palette PNG writer with every filter, for measuring ---------------------------------
def _filtered(kind: int, row: bytes, prev: bytes) -> bytes:
    """``row`` filtered with PNG filter type ``kind`` (one byte a pixel), ``prev`` the
    row above it as given (zeros for the first)."""
    if kind == 0:
        return row
    if kind == 1:
        return bytes((x - a) & 255 for x, a in zip(row, b"\0" + row[:-1], strict=True))
    if kind == 2:
        return bytes((x - b) & 255 for x, b in zip(row, prev, strict=True))
    if kind == 3:
        return bytes((x - ((a + b) >> 1)) & 255
                     for x, a, b in zip(row, b"\0" + row[:-1], prev, strict=True))
    out = bytearray(len(row))
    a = c = 0
    for i, (x, b) in enumerate(zip(row, prev, strict=True)):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        out[i] = (x - (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        a, c = x, b
    return bytes(out)


def _cost(data: bytes) -> int:
    return sum(map(COST.__getitem__, data))


def palette_png(image: object, how: str, order: bool) -> bytes:
    """The PNG of ``image`` (mode P) with each row filtered as ``how`` says, the palette
    renumbered by use when ``order``."""
    width, height = image.size  # type: ignore[attr-defined]
    pixels: bytes = image.tobytes()  # type: ignore[attr-defined]
    palette = bytes(image.getpalette())  # type: ignore[attr-defined]
    counts = [pixels.count(i) for i in range(256)]
    used = [i for i in range(256) if counts[i]]
    if order:
        used.sort(key=lambda i: (-counts[i], i))
    renumber = bytearray(256)
    for new, old in enumerate(used):
        renumber[old] = new
    pixels = pixels.translate(renumber)
    rows, prev = [], bytes(width)
    for y in range(height):
        row = pixels[y * width:(y + 1) * width]
        if how == "adaptive":  # the filter whose bytes are smallest as signed numbers
            kind = min(FILTERS.values(), key=lambda k: _cost(_filtered(k, row, prev)))
        else:
            kind = FILTERS[how]
        rows.append(bytes([kind]) + _filtered(kind, row, prev))
        prev = row
    packer = zlib.compressobj(9, zlib.DEFLATED, 15, 9)
    idat = packer.compress(b"".join(rows)) + packer.flush()
    plte = b"".join(palette[3 * i:3 * i + 3] for i in used)
    head = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", head) + _chunk(b"PLTE", plte)
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def same_pixels(data: bytes, image: object) -> bool:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as back:
        return back.convert("RGB").tobytes() == image.convert("RGB").tobytes()  # type: ignore[attr-defined]


def report(name: str, svg: str, repeat: int) -> None:
    image = quantized(svg)
    today = pillow_png(image)
    variants: dict[str, Callable[[], bytes]] = {
        "none": partial(palette_png, image, "none", False),
        **{("none+order" if how == "none" else how): partial(palette_png, image, how, True)
           for how in [*FILTERS, "adaptive"]},
    }
    width, height = image.size  # type: ignore[attr-defined]
    t_today = median_time(lambda: pillow_png(image), repeat)
    t_none = median_time(variants["none"], repeat)
    print(f"{name:<34} {width}x{height}: today {len(today):7d} B in {t_today * 1000:5.0f} ms")
    for label, make in variants.items():
        data = make()
        assert same_pixels(data, image), f"{name} {label}: the pixels changed"
        timed = f" in {t_none * 1000:5.0f} ms ({t_none / t_today:4.2f}x)" if label == "none" else ""
        print(f"    {label:<11} {len(data):7d} B  x{len(data) / len(today):6.4f}{timed}")
    squeezed = png.squeezed(today)
    assert same_pixels(squeezed, image), f"{name} zopfli: the pixels changed"
    t_squeeze = median_time(lambda: png.squeezed(today), max(1, repeat // 2))
    print(f"    {'zopfli':<11} {len(squeezed):7d} B  x{len(squeezed) / len(today):6.4f} in "
          f"{t_squeeze * 1000:5.0f} ms ({t_squeeze / t_today:4.2f}x, after today's)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="games cut at 150 entries")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    cap, repeat = (150, 1) if args.quick else (3000, 5)
    for ruleset in ("red-dog-junction", "road-master", "station-to-station"):
        players = registry.load(ruleset).info.max_players
        report(f"{ruleset} {players}p", board_svg(ruleset, players, [], cap), repeat)
    report("red-dog-junction variant=posse 5p",
           board_svg("red-dog-junction", 5, ["variant=posse"], cap), repeat)


if __name__ == "__main__":
    main()

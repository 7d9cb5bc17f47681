"""PNG images read by Pillow, for tests of pictures: the board PNGs pbem renders and the
screenshots Chromium takes. Pillow (a test dependency only) decodes them in C, and is a
decoder of its own: a PNG pbem writes must be one that another program reads."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

from PIL import Image, ImageChops


def _image(data: bytes | Path) -> Image.Image:
    """The decoded image, every pixel read (a truncated or corrupt file fails here)."""
    image = Image.open(io.BytesIO(data) if isinstance(data, bytes) else data)
    assert image.format == "PNG", f"not a PNG file but {image.format}"
    image.load()
    return image


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG whose image data decodes whole."""
    size: tuple[int, int] = _image(data).size
    return size


def _rgb(data: bytes | Path) -> Image.Image:
    """The image as 8-bit RGB (alpha dropped: pbem's pictures and screenshots are opaque)."""
    return _image(data).convert("RGB")


def colours(png: Path | bytes) -> tuple[tuple[int, int], Counter[tuple[int, ...]]]:
    """The size of a picture and how many pixels have each RGB colour."""
    image = _rgb(png)
    width, height = image.size
    found = image.getcolors(maxcolors=width * height)
    assert found is not None
    return (width, height), Counter({colour: count for count, colour in found})


def changed(first: bytes, second: bytes) -> int:
    """How many pixels differ between two PNGs of one size, in any channel (alpha too)."""
    a, b = _image(first), _image(second)
    assert a.size == b.size and a.mode == b.mode, (a.size, b.size, a.mode, b.mode)
    # The largest difference over the channels, per pixel; then the pixels where it is 0.
    bands = ImageChops.difference(a, b).split()
    largest = bands[0]
    for band in bands[1:]:
        largest = ImageChops.lighter(largest, band)
    return a.size[0] * a.size[1] - largest.histogram()[0]


def same_pixels(first: bytes, second: bytes) -> bool:
    """Whether two PNGs show the same picture, pixel for pixel, however each is encoded."""
    a, b = _rgb(first), _rgb(second)
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


def near(counts: Counter[tuple[int, ...]], rgb: tuple[int, int, int], slack: int = 3) -> int:
    """Pixels within ``slack`` of ``rgb`` on every channel."""
    return sum(n for c, n in counts.items() if all(abs(a - b) <= slack for a, b in zip(c, rgb,
                                                                                         strict=True)))


def rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF

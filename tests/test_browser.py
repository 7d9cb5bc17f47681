"""The drawn board in a real browser: headless Chromium opens the HTML page of
``pbem show --html`` and the HTML part of an email, takes a screenshot, and the PNG (decoded
here with zlib and the PNG filters, no imaging library) must show the board.

"Shows the board" is checked by colour: the map's parchment background and the players'
colours are drawn only by the SVG, so they must cover many pixels of the screenshot, and
the same page with the board cut out (the control) must not show them. A screenshot that
is blank, or a page whose SVG the browser refuses, fails.

The browser tests are skipped when no Chromium is installed (Debian/Ubuntu:
``apt-get install -y chromium``); the PNG decoder's own test always runs.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from games.station_to_station import GAME
from games.station_to_station import svg as sts_svg
from pbem import session
from pbem.drawing import page as render
from pbem.mail import message as mail
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.identity import Home

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((path for name in BROWSERS if (path := shutil.which(name))), None)
WINDOW = (1200, 900)
MAP_BACKGROUND = (0xF6, 0xF3, 0xEA)  # the map box of the Station to Station board

needs_browser = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium found (looked for " + ", ".join(BROWSERS) + "); install Debian's "
    "'chromium' package to run the browser rendering tests",
)


# ---- PNG, decoded with the standard library ------------------------------------------------
def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows of pixel bytes, bytes per pixel) of an 8-bit, non-interlaced
    grey, RGB or RGBA PNG (what Chromium writes)."""
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
                left = line[i - bpp] if i >= bpp else 0
                corner = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], corner)) & 0xFF
        else:
            assert method == 0, f"unknown PNG filter {method}"
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def _encode_png(width: int, rows: list[bytes], bpp: int) -> bytes:
    """An RGBA PNG whose row y uses filter y % 5 (the decoder's test fixture)."""
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


def test_png_decoder_undoes_every_filter() -> None:
    width, bpp = 7, 4
    rows = [bytes((x * 37 + y * 91 + c * 53 + x * y * c) % 256 for x in range(width)
                  for c in range(bpp)) for y in range(10)]
    assert decode_png(_encode_png(width, rows, bpp)) == (width, len(rows), rows, bpp)


def colours(png: Path) -> tuple[tuple[int, int], Counter[tuple[int, ...]]]:
    """The size of a screenshot and how many pixels have each RGB colour."""
    width, height, rows, bpp = decode_png(png.read_bytes())
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


def screenshot(page: Path, tmp: Path) -> tuple[tuple[int, int], Counter[tuple[int, ...]]]:
    assert BROWSER is not None
    shot = tmp / (page.stem + ".png")
    profile = tmp / (page.stem + "-profile")
    done = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}",
         f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={shot}",
         page.resolve().as_uri()],
        capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and shot.is_file(), done.stderr.decode(errors="replace")[-2000:]
    return colours(shot)


def assert_board_drawn(counts: Counter[tuple[int, ...]], size: tuple[int, int]) -> None:
    assert size == WINDOW
    area = size[0] * size[1]
    white = counts.get((255, 255, 255), 0)
    assert area - white >= area // 5, f"only {area - white} non-white pixels"
    assert len(counts) >= 100, f"only {len(counts)} distinct colours"
    assert near(counts, MAP_BACKGROUND) >= area // 10, "the map's background is not on screen"
    for seat in range(2):  # the first two players' trains, flags and panel cards
        colour = rgb(sts_svg.PLAYER_COLOURS[seat])
        assert near(counts, colour) >= 200, f"seat {seat}'s colour is not on screen"


def assert_no_board(counts: Counter[tuple[int, ...]]) -> None:
    """The control: the page without its SVG shows none of the board's own colours."""
    assert near(counts, MAP_BACKGROUND) < 100


def without_board(page: str) -> str:
    cut = re.sub(r"<svg\b.*?</svg>\n?", "", page, count=1, flags=re.S)
    assert cut != page and "<svg" not in cut
    return cut


# ---- the pages ------------------------------------------------------------------------------------
def _sts_view() -> dict[str, Any]:
    """A Station to Station game six greedy turns in, seen by its second seat."""
    table = LocalTable(GAME, ["ann", "bob", "cy"], seed=b"browser")
    for turn in range(6):
        table.prepare()
        seat = table.to_act()
        assert seat is not None
        table.play(bots.choose_turn(GAME, table.state, seat, "greedy", salt=str(turn)))
    table.prepare()
    return table.view(1)


@needs_browser
def test_show_html_page_renders_the_board_in_chromium(tmp_path: Path) -> None:
    view = _sts_view()
    page = render.html_page(GAME, view, "Station to Station, seen by bob")
    board = tmp_path / "board.html"
    board.write_text(page, encoding="utf-8")
    size, counts = screenshot(board, tmp_path)
    assert_board_drawn(counts, size)
    control = tmp_path / "control.html"
    control.write_text(without_board(page), encoding="utf-8")
    assert_no_board(screenshot(control, tmp_path)[1])


def _mailed_game(homes: dict[str, Home], folder: Path) -> session.Written:
    """A signed three-seat Station to Station game: created, joined, started, two turns."""
    folder.mkdir(parents=True, exist_ok=True)
    emails = {h: f"{h}@example.org" for h in homes}
    written = session.new_game(homes["ann"], "station-to-station",
                               [f"{h}={emails[h]}" for h in homes], [], None, folder=folder)
    turns = 0
    while turns < 2:
        duty = written.table.duty()
        assert duty is not None
        handle = written.table.seats[duty.seat].handle
        is_turn = duty.kind == "turn"
        written = session.sign_next(homes[handle], written.path,
                                    "join" if duty.kind == "join" else None, [],
                                    "greedy" if is_turn else None, None)
        turns += is_turn
    return written


def html_part(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


@needs_browser
def test_email_html_part_renders_the_board_in_chromium(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    last = _mailed_game(homes, tmp_path / "saves")
    msg = mail.compose(last.path, homes[last.entry["seat"]])
    page = html_part(msg)
    assert "<svg" in page and 'class="pbem-board"' in page
    board = tmp_path / "mail.html"
    board.write_text(page, encoding="utf-8")
    size, counts = screenshot(board, tmp_path)
    assert_board_drawn(counts, size)
    control = tmp_path / "mail-control.html"
    control.write_text(without_board(page), encoding="utf-8")
    assert_no_board(screenshot(control, tmp_path)[1])

"""The drawn board in a real browser: headless Chromium opens the HTML page of
``pbem show --html`` and the HTML part of an email, takes a screenshot, and the PNG (decoded
with tests/support/png.py: zlib and the PNG filters, no imaging library) must show the board.

"Shows the board" is checked by colour: the map's parchment background and the players'
colours are drawn only by the SVG, so they must cover many pixels of the screenshot, and
the same page with the board cut out (the control) must not show them. A screenshot that
is blank, or a page whose SVG the browser refuses, fails.

The browser tests are skipped when no Chromium is installed (Debian/Ubuntu:
``apt-get install -y chromium``); the PNG decoder's own test is in test_pictures.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
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
from pbem.protocol.identity import Home
from tests.support.boards import greedy_view
from tests.support.png import colours, decode_png, near, rgb

__all__ = ["WINDOW", "decode_png", "near", "needs_browser", "rgb", "screenshot", "without_board"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((path for name in BROWSERS if (path := shutil.which(name))), None)
WINDOW = (1200, 900)
MAP_BACKGROUND = (0xF6, 0xF3, 0xEA)  # the map box of the Station to Station board

needs_browser = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium found (looked for " + ", ".join(BROWSERS) + "); install Debian's "
    "'chromium' package to run the browser rendering tests",
)


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
    return greedy_view(GAME, b"browser", 1)


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

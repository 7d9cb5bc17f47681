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

import email
import re
import shutil
import subprocess
from collections import Counter
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.drawing import page as render
from pbem.mail import message as mail
from pbem.protocol.crypto.identity import Home
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station import svg as sts_svg
from tests.support.boards import greedy_view, signed_game
from tests.support.png import colours, near, rgb

__all__ = ["WINDOW", "near", "needs_browser", "rgb", "screenshot", "without_board"]

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


def assert_board_drawn(counts: Counter[tuple[int, ...]], size: tuple[int, int],
                       share: int = 10) -> None:
    """The board's own colours cover the screen: the map's background at least 1/share
    of it (the board is smaller as an 800-pixel image in mail)."""
    assert size == WINDOW
    area = size[0] * size[1]
    white = counts.get((255, 255, 255), 0)
    assert area - white >= area // 5, f"only {area - white} non-white pixels"
    assert len(counts) >= 100, f"only {len(counts)} distinct colours"
    assert near(counts, MAP_BACKGROUND) >= area // share, "the map's background is not on screen"
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


def check_shown(page: Path, control: Path, tmp: Path, share: int = 10) -> None:
    """The page shows the board; the same page without it (the control) does not."""
    size, counts = screenshot(page, tmp)
    assert_board_drawn(counts, size, share)
    assert_no_board(screenshot(control, tmp)[1])


@needs_browser
def test_show_html_page_renders_the_board_in_chromium(tmp_path: Path) -> None:
    page = render.html_page(GAME, _sts_view(), "Station to Station, seen by bob")
    board, control = tmp_path / "board.html", tmp_path / "control.html"
    board.write_text(page, encoding="utf-8")
    control.write_text(without_board(page), encoding="utf-8")
    check_shown(board, control, tmp_path)


def as_mhtml(message: EmailMessage, image: bool = True) -> str:
    """The HTML body of a message with its cid: images, as an MHTML archive: Chromium,
    like a mail client, then resolves each cid: URL to the message's own part. Without
    ``image``, the archive leaves the images out (the control)."""
    related = next(p for p in message.walk() if p.get_content_type() == "multipart/related")
    parts = related.get_payload()
    assert isinstance(parts, list) and parts[0].get_content_type() == "text/html"
    parts[0]["Content-Location"] = "http://mail.invalid/message.html"  # the archive's root
    if not image:
        related.set_payload(parts[:1])
    lines = [line for line in related.as_string().splitlines() if not line.startswith("MIME-")]
    head = ["From: <Saved by the pbem tests>", "Subject: a turn email",
            "Date: Sat, 1 Jan 2000 00:00:00 +0000", "MIME-Version: 1.0"]
    return "\r\n".join(head + lines) + "\r\n"


@needs_browser
def test_turn_email_from_its_eml_shows_the_board_as_a_png_in_chromium(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """The .eml of a turn email, as a mail client shows it: its HTML body (no SVG in it)
    with the board image its cid: URL names, taken from the message's own PNG part. The
    board's colours fill the screen (so the image loaded, at its size); the same body
    without the image part shows none of them."""
    last = signed_game(homes, tmp_path / "saves", "station-to-station", 2)
    eml = mail.write_eml(mail.compose(last.path, homes[last.entry["seat"]]), tmp_path / "turn.eml")
    message = email.message_from_bytes(eml.read_bytes(), policy=policy.default)
    body = message.get_body(preferencelist=("html",))
    assert body is not None
    html = str(body.get_content())
    assert "<svg" not in html and re.search(r'<img src="cid:[^"]+" width="800"', html)
    board, control = tmp_path / "mail.mhtml", tmp_path / "mail-control.mhtml"
    board.write_text(as_mhtml(message), encoding="utf-8", newline="")
    control.write_text(as_mhtml(message, image=False), encoding="utf-8", newline="")
    check_shown(board, control, tmp_path, share=20)

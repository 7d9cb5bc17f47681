"""Every turn mail stays under 500 KB (pbem.mail.message.MAIL_BUDGET), with the board
drawn at twice the pixels where that fits beside the save, at the mail width where only
that fits, and as tables where no picture does; the save always travels whole."""

from __future__ import annotations

import email
from email import policy
from pathlib import Path

import pytest

from pbem import session
from pbem.drawing import png
from pbem.mail import message as mail
from pbem.protocol.identity import Home
from tests.support.png import png_size

SAVES = Path(__file__).resolve().parent.parent / "saves"


def largest(game: str) -> Path:
    return max((SAVES / game).glob("*.toml"), key=lambda p: p.stat().st_size)


def parts(message: email.message.EmailMessage) -> dict[str, bytes]:
    found = {}
    for part in message.walk():
        if not part.is_multipart():
            payload = part.get_payload(decode=True)
            found[part.get_content_type()] = payload if isinstance(payload, bytes) else b""
    return found


@pytest.mark.heavy
@pytest.mark.parametrize("game", ["red-dog-junction", "road-master", "station-to-station"])
def test_each_games_turn_mail_is_under_the_budget_with_the_sharp_board(
        game: str, tmp_path: Path) -> None:
    path = largest(game)
    sent = mail.compose(path, Home(tmp_path / "reader"), to=["table@example.org"])
    size = len(sent.as_bytes())
    assert size < mail.MAIL_BUDGET, f"{game}: {size} bytes"
    found = parts(sent)
    # The sharpest board that fits beside the save: twice the pixels unless that would
    # cross the budget (Road Master's saves grow large: about 200 KB by mid-game).
    svg = session.load(path, None)
    board_svg = svg.table.game.render_svg(session.public_view(svg))
    assert board_svg
    sharp = png.mail_png(board_svg)
    fits = size - len(found.get("image/png", b"")) * 4 // 3 + len(sharp) * 4 // 3 \
        < mail.MAIL_BUDGET - mail.MAIL_MARGIN
    width = png_size(found["image/png"])[0]
    assert width == (png.MAIL_WIDTH * png.MAIL_SCALE if fits else png.MAIL_WIDTH), (game, size)
    assert "text/html" in found and "board.html" not in str(sent)  # no page repeats it
    assert found["application/toml"] == path.read_bytes()  # the save, byte for byte


@pytest.mark.heavy
def test_a_save_that_leaves_less_room_gets_a_smaller_board_then_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget shrinks the picture, never the save (as a 6-player Road Master game
    near its end, whose save alone weighs over 300 KB)."""
    path = sorted((SAVES / "road-master").glob("*.toml"), key=lambda p: p.stat().st_size)[-2]
    save_size = 4 * path.stat().st_size // 3 + path.stat().st_size // 50
    full = mail.compose(path, Home(tmp_path / "a"), to=["t@example.org"])
    sharp = len(parts(full)["image/png"])
    assert png_size(parts(full)["image/png"])[0] == png.MAIL_WIDTH * png.MAIL_SCALE
    budget = mail.MAIL_MARGIN + save_size + 40_000 + sharp  # room for less than 2x
    monkeypatch.setattr(mail, "MAIL_BUDGET", budget)
    smaller = mail.compose(path, Home(tmp_path / "b"), to=["t@example.org"])
    assert len(smaller.as_bytes()) < budget
    assert png_size(parts(smaller)["image/png"])[0] == png.MAIL_WIDTH
    monkeypatch.setattr(mail, "MAIL_BUDGET", mail.MAIL_MARGIN + save_size + 20_000)
    none = mail.compose(path, Home(tmp_path / "c"), to=["t@example.org"])
    assert "image/png" not in parts(none) and "<table" in str(none.get_body(("html",)))
    assert len(none.as_bytes()) < mail.MAIL_BUDGET
    message = email.message_from_bytes(none.as_bytes(), policy=policy.default)
    assert [f.name for f in mail.find_saves(message)] == [path.name]

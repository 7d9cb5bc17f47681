"""Board pictures outside the games: the PNG rendered in this process (no browser, the
fonts shipped in pbem/drawing/fonts), ``show --png``, and the final result that reaches
the pictures of a complete, audited game.

PNGs are decoded here with the standard library (tests/support/png.py), so a PNG that
does not decode, is blank, has no text or has the wrong size fails."""

from __future__ import annotations

import email
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image

from pbem import session
from pbem.cli import main
from pbem.drawing import png
from pbem.drawing.page import png_page
from pbem.errors import UsageError
from pbem.game import Game
from pbem.mail import message as mail
from pbem.play.local import LocalTable
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem.registry import load as load_game
from pbem_games.red_dog_junction import GAME as RDJ
from pbem_games.road_master import GAME as RM
from pbem_games.station_to_station import GAME as STS
from tests.enginekit import play_game
from tests.support import boards
from tests.support.boards import by_id, greedy_view, parse, text_of
from tests.support.png import changed, colours, png_size

ROOT = Path(__file__).resolve().parent.parent
STS_GAME = ROOT / "saves" / "station-to-station"
# The example game's final save and its audited result (tools/make_example_saves.py).
STS_EXPECTED = json.loads((STS_GAME / "expected.json").read_text("utf-8"))
STS_FINAL = STS_GAME / STS_EXPECTED["final"]


def winner_line() -> str:
    [winner] = STS_EXPECTED["ranking"][0]
    return f"Winner: {winner} with {STS_EXPECTED['scores'][winner]} points"


def _png(pixels: list[tuple[int, int, int, int]], width: int) -> bytes:
    image = Image.new("RGBA", (width, len(pixels) // width))
    image.putdata(pixels)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_the_png_helpers_count_colours_and_changed_pixels() -> None:
    """colours counts each RGB colour; changed sees a difference of one in one channel,
    alpha included; png_size refuses a PNG whose image data is cut short."""
    base = [(255, 255, 255, 255)] * 5 + [(10, 20, 30, 255)] * 3
    data = _png(base, 4)
    assert colours(data) == ((4, 2), Counter({(255, 255, 255): 5, (10, 20, 30): 3}))
    assert changed(data, data) == 0
    nudged = list(base)
    nudged[0], nudged[6], nudged[7] = (255, 254, 255, 255), (10, 20, 30, 254), (11, 20, 30, 255)
    assert changed(data, _png(nudged, 4)) == 3
    assert png_size(data) == (4, 2)
    with pytest.raises((OSError, SyntaxError)):
        png_size(data[: len(data) // 2])


def board(game: Game) -> str:
    """A three-seat game six greedy turns in, drawn as seat 0 sees it."""
    drawn = game.render_svg(greedy_view(game, b"pictures", 0))
    assert drawn is not None
    return drawn


def size_of(svg: str) -> tuple[int, int]:
    root = ET.fromstring(svg)
    _, _, width, height = (int(v) for v in (root.get("viewBox") or "").split())
    return width, height


def dark(counts: Any) -> int:
    """Pixels dark enough to be letters (text is drawn in near-black ink)."""
    return sum(n for (r, g, b), n in counts.items() if r + g + b < 150)


def without_text(svg: str) -> str:
    return re.sub(r"<text\b[^>]*>.*?</text>", "", svg, flags=re.S)


@pytest.mark.parametrize("game", [RDJ, RM, STS], ids=lambda g: g.info.id)
def test_every_board_renders_to_a_png_for_mail(game: Game) -> None:
    """At the mail width: a PNG that decodes, of the SVG's shape, in many colours, with
    its text drawn in the shipped font (the same board without its text differs in many
    pixels)."""
    svg = board(game)
    data = png.png_of(svg, png.MAIL_WIDTH)
    (width, height), counts = colours(data)
    svg_w, svg_h = size_of(svg)
    assert width == png.MAIL_WIDTH == 800
    assert svg_h * width // svg_w <= height <= -(-svg_h * width // svg_w)
    area = width * height
    assert area - counts.get((255, 255, 255), 0) >= area // 5, "mostly blank"
    assert len(counts) >= 500, f"only {len(counts)} colours"
    assert changed(data, png.png_of(without_text(svg), png.MAIL_WIDTH)) >= area // 50, \
        "no text drawn"


def test_the_full_size_png_is_the_svgs_own_size_and_the_same_every_time() -> None:
    svg = board(STS)
    data = png.png_of(svg)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert png_size(data) == size_of(svg)
    assert png.png_of(svg) == data  # no system font can change a byte


def test_text_renders_with_the_shipped_fonts_only() -> None:
    """Letters come from pbem/drawing/fonts (DejaVu Sans and its bold, with their
    licence): the renderer is never given the machine's fonts."""
    for name in (*png.FONT_FILES, "LICENSE", "README.md"):
        assert (png.FONTS / name).is_file(), name
    words = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40" '
             'viewBox="0 0 300 40"><text x="5" y="28" font-size="24" '
             'font-family="no such font">Road Master · −3 ★</text></svg>')
    bold = words.replace("<text ", '<text font-weight="bold" ')
    plain_dark, bold_dark = (dark(colours(png.png_of(s))[1]) for s in (words, bold))
    assert plain_dark > 300 and bold_dark > plain_dark * 5 // 4  # a bold face is there


def test_a_picture_that_cannot_be_drawn_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(png.PictureError, match="could not be drawn as a PNG") as caught:
        png.png_of("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='0'></svg>")
    assert isinstance(caught.value, UsageError) and caught.value.exit_code == 2
    monkeypatch.setitem(sys.modules, "resvg_py", None)  # as if the package were missing
    with pytest.raises(png.PictureError, match="needs the resvg-py package"):
        png.png_of(board(STS))


# ---- show --png and the final result -----------------------------------------------------------
def run(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in result.output + (result.stderr or "")
    return result


def test_show_png_draws_the_board_and_the_final_result(tmp_path: Path) -> None:
    """A finished example game: ``show --png`` writes the board at its own size, and the
    SVG of the same command names the winner with every score (from the audit)."""
    picture, drawn = tmp_path / "final.png", tmp_path / "final.svg"
    r = run(tmp_path / "home", "show", str(STS_FINAL), "--png", str(picture), "--svg", str(drawn))
    assert r.exit_code == 0, r.output
    assert f"Drew {picture}" in r.output
    svg = drawn.read_text("utf-8")
    assert png_size(picture.read_bytes()) == size_of(svg)
    result = text_of(by_id(parse(svg), "result"))
    assert winner_line() in result
    for place, [handle] in enumerate(STS_EXPECTED["ranking"], start=1):
        assert f"{place}. {handle} {STS_EXPECTED['scores'][handle]}" in result
    assert "Audit: clean" in result


def test_show_png_of_a_game_without_pictures_writes_nothing(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]  # dice-race draws none
    picture = tmp_path / "none.png"
    r = run(homes["bob"].path, "show", str(save), "--png", str(picture), "--svg",
            str(tmp_path / "none.svg"))
    assert r.exit_code == 2 and "draws no picture" in r.stderr
    assert not picture.exists() and not (tmp_path / "none.svg").exists()


def test_the_views_of_a_complete_game_carry_the_audited_result(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every seat has revealed and the audit ran, the seat's view and the public
    view are of the final state (the cards the audit opened recorded by on_reveal) and
    carry the result; before that, neither has a result."""
    secret = load_game("secret-draw")
    plain_view = type(secret).view

    def view(self: Game, state: dict[str, Any], seat: int | None, secrets: Any = None
             ) -> dict[str, Any]:
        return {**plain_view(self, state, seat, secrets), "opened": state.get("opened", {})}

    monkeypatch.setattr(type(secret), "view", view)
    paths = play_game(homes, tmp_path / "saves", game="secret-draw", bot="greedy")
    middle = session.load(paths[len(paths) // 2], homes["ann"])
    assert "result" not in session.seat_view(homes["ann"], middle)[1]
    assert "result" not in session.public_view(middle)
    final = session.verify(savefile.read(paths[-1]), homes["bob"])
    outcome = final.report.outcome
    assert outcome is not None and final.report.final is not None
    opened = final.report.final["opened"]
    assert opened, "the game should have opened cards"
    for shown in (session.seat_view(homes["bob"], final)[1], session.public_view(final)):
        assert shown["opened"] == opened
        result = shown["result"]
        assert result["seats"] == ["ann", "bob", "cy"] and result["audit"] == "clean"
        assert result["scores"] == [outcome.scores[s] for s in range(3)]
        assert result["ranking"] == outcome.ranking and result["problems"] == []
    assert final.table.gstate["opened"] == {}  # the signed state itself is untouched


def test_png_page_is_the_png_of_the_games_svg() -> None:
    shown = LocalTable(RM, ["ann", "bob"], {"first": "ann"}, seed=b"png-page").view(0)
    data = png_page(RM, shown, 400)
    assert png_size(data)[0] == 400
    assert data == png.png_of(RM.render_svg(shown) or "", 400)


# ---- the turn email ----------------------------------------------------------------------------
def image_parts(message: EmailMessage) -> dict[str, bytes]:
    """Content-ID (without <>) -> decoded bytes of every image/png part."""
    found = {}
    for part in message.walk():
        if part.get_content_type() == "image/png":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            found[str(part["Content-ID"]).strip().strip("<>")] = payload
    return found


def board_pages(message: EmailMessage) -> list[str]:
    return [str(p.get_content()) for p in message.iter_attachments()
            if p.get_content_type() == "text/html"]


def test_the_turn_email_embeds_the_board_as_a_cid_png(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    """As a mail client reads the .eml: the HTML body (at most 800 pixels wide, no SVG)
    shows an image whose cid: names a PNG part that decodes to the board drawn at twice
    the pixels and shown 800 CSS pixels wide; no page repeats the picture; the save is
    still the one save found."""
    last = boards.signed_game(homes, tmp_path / "saves", "station-to-station", 2)
    sent = mail.compose(last.path, homes[last.entry["seat"]])
    eml = mail.write_eml(sent, tmp_path / "turn.eml")
    message = email.message_from_bytes(eml.read_bytes(), policy=policy.default)
    body = message.get_body(preferencelist=("html",))
    assert body is not None and body.get_content_type() == "text/html"
    html = str(body.get_content())
    assert "<svg" not in html and "max-width:800px" in html
    [cid] = re.findall(r'<img src="cid:([^"]+)"', html)
    images = image_parts(message)
    assert list(images) == [cid]
    width, height = png.MAIL_WIDTH, -(-png_size(images[cid])[1] // png.MAIL_SCALE)
    assert re.search(rf'<img src="cid:{re.escape(cid)}" width="{width}" height="{height}"', html)
    svg = STS.render_svg(session.public_view(session.load(last.path, homes["cy"])))
    pixels_wide, pixels_high = png_size(images[cid])
    assert svg is not None and width == png.MAIL_WIDTH == 800
    assert pixels_wide == png.MAIL_WIDTH * png.MAIL_SCALE
    assert height == -(-pixels_high * width // pixels_wide)
    assert -1 <= pixels_high - size_of(svg)[1] * pixels_wide // size_of(svg)[0] <= 1
    assert board_pages(message) == []
    assert [f.name for f in mail.find_saves(message)] == [last.path.name]


def test_the_last_email_shows_the_winner(tmp_path: Path) -> None:
    """The email of a finished game draws the audited result: the board it draws (the
    image) holds the result, and the image is that board."""
    message = mail.compose(STS_FINAL, Home(tmp_path / "reader"), to=["table@example.org"])
    svg = STS.render_svg(session.public_view(session.load(STS_FINAL, None)))
    assert svg is not None
    result = text_of(by_id(parse(svg), "result"))
    assert winner_line() in result
    [image] = image_parts(message).values()
    assert image == png.mail_png(svg)


def test_the_email_falls_back_to_tables_when_no_png_can_be_made(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    last = boards.signed_game(homes, tmp_path / "saves", "station-to-station", 1)

    def refuse(svg: str, scale: int = 2) -> bytes:
        raise png.PictureError("no renderer here")

    monkeypatch.setattr(mail, "mail_png", refuse)
    message = mail.compose(last.path, homes[last.entry["seat"]])
    body = message.get_body(preferencelist=("html",))
    assert body is not None and "<table" in str(body.get_content())
    assert not image_parts(message) and len(board_pages(message)) == 1

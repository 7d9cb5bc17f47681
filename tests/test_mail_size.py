"""Every turn mail carries the save whole and the board drawn once at twice the pixels,
under 500 KB (pbem.mail.message.MAIL_BUDGET) where the two fit, the save gzip-compressed
and then the board's PNG squeezed (the same pixels, fewer bytes) where only that makes them
fit; a mail they make larger says so under the board (the board is never made less sharp
or left out to fit)."""

from __future__ import annotations

import email
import gzip
import hashlib
from email import policy
from pathlib import Path

import pytest

from pbem.drawing import png
from pbem.mail import message as mail
from pbem.mail import packing
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import packed, savefile
from tests.support.duty import bot_game
from tests.support.png import png_size, same_pixels

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
    assert png_size(found["image/png"])[0] == png.MAIL_WIDTH * png.MAIL_SCALE, game
    assert "text/html" in found and "board.html" not in str(sent)  # no page repeats it
    # the save, byte for byte (gzip-compressed where the plain mail would pass the budget)
    attached = found.get("application/toml") or gzip.decompress(found["application/gzip"])
    assert attached == path.read_bytes()


@pytest.mark.heavy
def test_the_largest_turn_mail_of_a_five_player_posse_game_is_under_the_budget(
        tmp_path: Path) -> None:
    """Red Dog Junction's Posse variant at 5 players: its largest save is the last one (a
    save only grows), and the mail that carries it has the sharp board and fits, the save
    gzip-compressed (611 KB with it as it is: the save 342 KB, 384 KB quoted-printable;
    the board PNG 158 KB, 216 KB in base64)."""
    save = bot_game("red-dog-junction", 5, ["variant=posse"],
                    hashlib.sha256(b"mail-size/red-dog-junction/5/variant=posse").digest())
    _fits_with_the_sharp_board(save, tmp_path)


@pytest.mark.heavy
def test_the_longest_five_player_posse_game_measured_fits_with_its_board_squeezed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 5-player Posse game bench/bench_hops.py played under rules version 3 (415
    entries, its save 421 KB; a game begun so plays on under it): with zlib's gzip and
    the board as Pillow writes it, its last mail was 505.5 KB, over the budget; the save
    packed by Zopfli and the board's PNG deflated again fit it, and the board shows the
    same pixels as before it was squeezed."""
    save = bot_game("red-dog-junction", 5, ["variant=posse"],
                    hashlib.sha256(b"pbem-bench/hops/red-dog-junction/5/variant=posse").digest(),
                    rules=3)
    assert len(save.entries) == 415  # the game measured (a change of rules changes it)
    drawn: list[bytes] = []

    def squeezed(data: bytes) -> bytes:
        drawn.append(data)
        return png.squeezed(data)

    monkeypatch.setattr(mail, "squeezed", squeezed)
    sent = _fits_with_the_sharp_board(save, tmp_path)
    board = parts(sent)["image/png"]
    [before] = drawn
    assert len(board) < len(before) * 95 // 100 and same_pixels(board, before)
    assert "larger than the" not in str(sent.get_body(("html",)))


def _fits_with_the_sharp_board(save: savefile.Save, tmp_path: Path
                               ) -> email.message.EmailMessage:
    sent = mail.compose(save, Home(tmp_path / "reader"), to=["table@example.org"])
    found = parts(sent)
    assert png_size(found["image/png"])[0] == png.MAIL_WIDTH * png.MAIL_SCALE
    size = len(sent.as_bytes(policy=policy.SMTP))
    assert size < mail.MAIL_BUDGET, f"{size} bytes"
    [attached] = [p for p in sent.iter_attachments() if p.get_content_type() == "application/gzip"]
    name = str(attached.get_filename())
    assert name.endswith(".toml.gz") and f"pbem verify {name}" in str(sent.get_body(("plain",)))
    assert gzip.decompress(found["application/gzip"]) == savefile.dumps(save).encode()
    back = email.message_from_bytes(sent.as_bytes(policy=policy.SMTP), policy=policy.default)
    assert [f.data for f in mail.find_saves(back)] == [savefile.dumps(save).encode()]
    return sent


@pytest.mark.heavy
def test_a_save_that_leaves_no_room_keeps_the_sharp_board_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget never shrinks the picture: a save that leaves no room for the sharp
    board goes gzip-compressed; where even that does not fit, the board's PNG is squeezed
    (the same pixels in fewer bytes); and where even that does not fit, the board stays at
    twice the pixels and the mail says under it that it is larger than the budget, with
    the sizes."""
    path = sorted((SAVES / "road-master").glob("*.toml"), key=lambda p: p.stat().st_size)[-2]
    data = path.read_bytes()
    attached = mail.save_text(data)
    save_size = len(attached) + attached.count("\n")  # as attached, CRLF line ends
    packed_size = packing.base64_size(len(packed.pack(data)))
    full = mail.compose(path, Home(tmp_path / "a"), to=["t@example.org"])
    sharp = parts(full)["image/png"]
    assert "larger than the" not in str(full.get_body(("html",)))
    # Room for the text and the sharp board, and halfway between the save's two sizes.
    text = 2 * len(str(full.get_body(("plain",))).encode()) + 4096
    fits = packing.base64_size(len(sharp)) + text + (save_size - packed_size) // 2
    smaller = png.squeezed(sharp)
    assert len(smaller) < len(sharp) and same_pixels(smaller, sharp)
    saved = packing.base64_size(len(sharp)) - packing.base64_size(len(smaller))
    squeezes = text + packing.base64_size(len(smaller)) + saved // 2  # fits only squeezed
    for room in (fits, squeezes, 40_000, 20_000, -100_000):  # then less than the board
        monkeypatch.setattr(mail, "MAIL_BUDGET", mail.MAIL_MARGIN + packed_size + room)
        tight = mail.compose(path, Home(tmp_path / f"b{room}"), to=["t@example.org"])
        # the same sharp board, squeezed where the save gzip-compressed leaves no room
        assert parts(tight)["image/png"] == (sharp if room == fits else smaller), room
        html = str(tight.get_body(("html",)))
        message = email.message_from_bytes(tight.as_bytes(), policy=policy.default)
        [found] = mail.find_saves(message)
        assert (found.name, found.data) == (path.name + ".gz", data), room
        assert f"pbem verify {path.name}.gz" in html and f"{path.name} " not in html
        if room in (fits, squeezes):  # the save as it is leaves no room; gzip-compressed
            assert "larger than the" not in html  # it does, or with the board squeezed
            continue
        assert f"the save is {-(-len(data) // 1000)} KB ({-(-packed_size // 1000)} KB as " \
            "attached)" in html, html
        assert "<table" not in html


def test_the_board_is_drawn_once_per_send(homes: dict[str, Home], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """One mail per recipient, one drawing for them all (it was drawn for a first mail
    that only counted the recipients, then again, and again at the mail width when twice
    the pixels did not fit)."""
    from tests.support import boards

    last = boards.signed_game(homes, tmp_path / "saves", "station-to-station", 3)
    drawn: list[int | None] = []
    real = png.png_of

    def counted(svg: str, width: int | None = None) -> bytes:
        drawn.append(width)
        return real(svg, width)

    monkeypatch.setattr(png, "png_of", counted)
    sent = mail.compose_each(last.path, homes[last.entry["seat"]])
    assert len(sent) >= 2 and drawn == [png.MAIL_WIDTH * png.MAIL_SCALE]


# ---- the save as attached: quoted-printable, byte for byte, well under base64 -----------
def test_the_save_is_attached_as_quoted_printable_well_under_base64(tmp_path: Path) -> None:
    """The save travels as quoted-printable text (a line end ``=0A``, so no hop can make it
    CRLF), a tenth to a sixth over its size, not the third of base64, and arrives byte for byte
    through a mail written with CRLF line ends."""
    path = largest("red-dog-junction")
    data = path.read_bytes()
    sent = mail.compose(path, Home(tmp_path / "reader"), to=["table@example.org"])
    [part] = [p for p in sent.walk() if p.get_content_type() == "application/toml"]
    assert part["Content-Transfer-Encoding"] == "quoted-printable"
    assert len(str(part.get_payload())) < 1.2 * len(data) < mail._base64_size(len(data))
    wire = sent.as_bytes(policy=policy.SMTP)
    assert b"\r\n" in wire
    back = email.message_from_bytes(wire, policy=policy.default)
    assert [f.data for f in mail.find_saves(back)] == [data]
    # Its size is read as the bytes it decodes to, not its longer text: a save just under
    # the limit is not "too large".
    [found] = mail.find_saves(back, max_bytes=len(data) + 100)
    assert found.data == data and found.problem != "too-large"


@pytest.mark.parametrize("data", [
    b"a = 1\n" * 40,
    b"x" * 75 + b"From the saloon\n.\n..dot\n \t\n",  # a soft break right before "From "
    b"x" * 75 + b".start\n" + b"y" * 74 + b" From \n",
    "caf\u00e9 = \"\u2713\"\r\nend\n".encode(),  # non-ASCII and a CR kept as they are
    b"trailing spaces   \nand tabs\t\t\n" * 30,
], ids=["lines", "from-after-soft-break", "dot-after-soft-break", "utf8-cr", "trailing-blanks"])
def test_save_text_keeps_every_byte_and_no_line_starts_with_from_or_a_dot(data: bytes) -> None:
    import quopri

    text = mail.save_text(data)
    assert text.isascii()
    for line in text.split("\n"):
        assert len(line) <= 78 and not line.startswith(("From ", ".")), line
        assert line == line.rstrip(" \t")  # no blank a hop may strip at a line's end
    assert quopri.decodestring(text.replace("\n", "\r\n").encode()) == data
    part = email.message_from_string(
        "Content-Type: application/toml\nContent-Transfer-Encoding: quoted-printable\n\n"
        + text, policy=policy.default)
    assert part.get_payload(decode=True) == data


@pytest.mark.parametrize("text", ["=0A=3Dab=\r\nxy\r\n", "=zz=z" * 50, "\r" * 90, "a  \r\nb",
                                  "=\nq", "=0a", "=\r\r\n", "x=\r", "= \r\n", "plain"], ids=repr)
def test_a_quoted_printable_size_is_never_read_as_less_than_it_decodes_to(text: str) -> None:
    """The cap on attachments reads a part's size before decoding it: a stray ``=`` or a
    CR must not make a part look smaller than it is."""
    import quopri

    from pbem.mail.attachments import _qp_size

    assert _qp_size(text) >= len(quopri.decodestring(text.encode()))

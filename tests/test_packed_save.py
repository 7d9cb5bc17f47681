"""A save stored gzip-compressed (NAME.toml.gz, or any name): every command reads it as
it is; inflating is bounded, and a damaged, cut, padded or bombing stream is refused in
one sentence with the malformed-save exit code (4), a tampered save inside as tampered (3).
"""

from __future__ import annotations

import copy
import email
import gzip
import tracemalloc
import zlib
from email import policy
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem import session
from pbem.cli import main
from pbem.errors import SaveFileError
from pbem.mail import inbox
from pbem.mail import message as mail
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import packed, savefile
from tests.enginekit import play_game
from tests.test_inbox import message_with, write_mbox


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> list[Path]:
    return play_game(homes, tmp_path / "saves", stop_after=8)


def verify(path: Path, tmp_path: Path) -> Result:
    result = CliRunner().invoke(main, ["--home", str(tmp_path / "reader"), "verify", str(path)])
    assert "Traceback" not in result.output and result.exception is None or \
        isinstance(result.exception, SystemExit), result.output
    return result


def packed_copy(tmp_path: Path, data: bytes, name: str = "game.toml.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_pack_is_deterministic_with_no_name_nor_time_and_inflates_back(game: list[Path]) -> None:
    data = game[-1].read_bytes()
    squeezed = packed.pack(data)
    assert squeezed == packed.pack(data) and squeezed[:10] == b"\x1f\x8b\x08\x00\0\0\0\0\x02\xff"
    assert gzip.decompress(squeezed) == data == packed.unpack(squeezed, len(data))


@pytest.mark.parametrize("name", ["game.toml.gz", "game.toml", "renamed"])
def test_a_packed_save_reads_whatever_its_name(game: list[Path], tmp_path: Path,
                                                name: str) -> None:
    path = packed_copy(tmp_path, gzip.compress(game[-1].read_bytes()), name)
    assert savefile.read(path).entries == savefile.read(game[-1]).entries
    assert verify(path, tmp_path).exit_code == 0


def _flipped(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x10]) + data[middle + 1:]


@pytest.mark.parametrize("damage, words", [
    (_flipped, "is damaged"),
    (lambda d: d[: len(d) * 2 // 3], "is cut short"),
    (lambda d: d[:-4], "is cut short"),  # the length in the trailer gone
    (lambda d: d + b"garbage", "has other bytes after its end"),
    (lambda d: d + packed.pack(b"[header]\n"), "has other bytes after its end"),  # 2 members
], ids=["flipped-byte", "truncated", "no-trailer", "trailing-garbage", "second-member"])
def test_a_damaged_packed_save_is_one_sentence_and_exit_4(game: list[Path], tmp_path: Path,
                                                          damage, words: str) -> None:
    path = packed_copy(tmp_path, damage(packed.pack(game[-1].read_bytes())))
    with pytest.raises(SaveFileError) as info:
        savefile.read(path)
    assert info.value.message == (f"{path} is gzip-compressed but {words}, so it is not a "
                                  "readable pbem save; ask the sender for the file again.")
    result = verify(path, tmp_path)
    assert result.exit_code == 4 and words in result.output, result.output


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """1 GB of zeros gzip-compressed: about 1 MB on disk."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    out = [squeezer.compress(zeros) for _ in range(1024)]
    return b"".join(out) + squeezer.flush()


def test_a_gzip_bomb_is_refused_after_the_largest_save_with_bounded_memory(
        bomb: bytes, tmp_path: Path) -> None:
    assert len(bomb) < 2 * 1024 * 1024
    path = packed_copy(tmp_path, bomb)
    tracemalloc.start()
    try:
        with pytest.raises(SaveFileError) as info:
            savefile.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * savefile.MAX_SAVE_BYTES
    assert info.value.exit_code == 4 and info.value.code == "SaveFileError"
    assert info.value.message == (f"{path} is gzip-compressed and inflates to more than "
                                  f"{savefile.MAX_SAVE_BYTES} bytes, far larger than any pbem "
                                  "save; refusing it.")
    result = verify(path, tmp_path)
    assert result.exit_code == 4 and "inflates to more than" in result.output


def test_a_tampered_save_packed_is_still_tampered(game: list[Path], tmp_path: Path) -> None:
    save = savefile.read(game[-1])
    entries = copy.deepcopy(save.entries)
    turn = next(e for e in reversed(entries) if e["kind"] == "turn")
    turn["moves"] = ["pass"] if turn["moves"] != ["pass"] else ["roll"]
    text = savefile.dumps(savefile.Save(save.header, entries, save.state))
    path = packed_copy(tmp_path, packed.pack(text.encode()))
    result = verify(path, tmp_path)
    assert result.exit_code == 3 and f"Entry {turn['seq']}" in result.output, result.output


# ---- in mail: the attachment finder and inbox --------------------------------------------
def test_a_packed_attachment_is_found_as_the_save_it_holds(
        homes: dict[str, Home], game: list[Path], tmp_path: Path) -> None:
    data = game[-1].read_bytes()
    msg = message_with(packed.pack(data), filename="g.toml.gz", subtype="gzip")
    [found] = mail.find_saves(msg)
    assert (found.name, found.data, found.size, found.problem) == ("g.toml.gz", data,
                                                                   len(data), "")
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [msg])], homes["cy"])
    assert report.verified == 1 and report.games[0].seq == savefile.read(game[-1]).entries[-1]["seq"]
    assert not [p for p in report.problems if p.level == "error"], report.text()


def test_a_bomb_attachment_is_too_large_and_never_inflated_past_the_cap(
        homes: dict[str, Home], bomb: bytes, tmp_path: Path) -> None:
    msg = message_with(bomb, filename="g.toml.gz", subtype="gzip")
    [found] = mail.find_saves(msg)
    assert found.problem == "too-large" and found.data == b""
    other = message_with(bomb, filename="photos.tar.gz", subtype="gzip")
    assert mail.find_saves(other) == []  # some other archive: no save
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [msg])], homes["cy"])
    assert [p.code for p in report.problems] == ["too-large"]


def test_a_damaged_packed_attachment_is_reported_malformed(
        homes: dict[str, Home], game: list[Path], tmp_path: Path) -> None:
    msg = message_with(_flipped(packed.pack(game[-1].read_bytes())), filename="g.toml.gz",
                       subtype="gzip")
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [msg])], homes["cy"])
    [problem] = report.problems
    assert problem.code == "malformed" and "gzip-compressed but is damaged" in problem.message


def test_inbox_reads_a_bare_packed_save_file(homes: dict[str, Home], game: list[Path],
                                             tmp_path: Path) -> None:
    path = packed_copy(tmp_path, packed.pack(game[-1].read_bytes()))
    report = inbox.scan([path], homes["cy"])
    assert report.verified == 1 and report.problems == [], report.text()


def test_the_mails_commands_work_on_the_packed_save_as_it_is(
        homes: dict[str, Home], game: list[Path], tmp_path: Path) -> None:
    """What a mail with NAME.toml.gz says to run, run on that file, no unzipping."""
    path = packed_copy(tmp_path, packed.pack(game[-1].read_bytes()), game[-1].name + ".gz")
    table = session.verify(savefile.read(game[-1]), homes["cy"]).table
    duty = table.duty()
    assert duty is not None
    actor = homes[table.seats[duty.seat].handle]
    for command in (["show", str(path)], ["moves", str(path)], ["log", str(path)],
                    ["play", str(path), "roll", "-o", str(tmp_path / "next.toml")]):
        result = CliRunner().invoke(main, ["--home", str(actor.path), *command])
        assert result.exit_code == 0, (command, result.output)
    assert savefile.read(tmp_path / "next.toml").entries[:-1] == savefile.read(path).entries
    assert (tmp_path / "next.toml").read_bytes().startswith(b"# pbem save")  # written plain


@pytest.mark.parametrize("budget", [None, 1000], ids=["roomy", "packed"])
def test_send_mails_a_packed_save_and_inbox_reads_the_mail(
        homes: dict[str, Home], game: list[Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, budget: int | None) -> None:
    """``pbem send NAME.toml.gz`` attaches the save itself, as NAME.toml where the mail fits
    with it, else packed again as NAME.toml.gz; either reads back byte for byte."""
    data = game[-1].read_bytes()
    path = packed_copy(tmp_path, packed.pack(data), game[-1].name + ".gz")
    if budget is not None:
        monkeypatch.setattr(mail, "MAIL_BUDGET", budget)
    result = CliRunner().invoke(main, ["--home", str(homes["ann"].path), "send", str(path),
                                       "--to", "t@example.org", "--stdout"])
    assert result.exit_code == 0, result.output
    sent = email.message_from_string(result.output, policy=policy.default)
    [found] = mail.find_saves(sent)
    name = game[-1].name + (".gz" if budget else "")
    assert (found.name, found.data) == (name, data)
    assert f"pbem verify {name}" in str(sent.get_body(("plain",)))
    eml = tmp_path / "sent.eml"
    eml.write_text(result.output)
    report = inbox.scan([eml], homes["cy"])
    assert report.verified == 1, report.text()


def test_a_packed_save_is_grouped_with_its_game_and_no_picture_overwrites_it(
        game: list[Path], tmp_path: Path) -> None:
    from pbem import batch
    from pbem.drawing import page
    from pbem.errors import UsageError

    path = packed_copy(tmp_path, packed.pack(game[-1].read_bytes()))
    game_id = savefile.read(game[-1]).game_id
    assert batch.peek_game_id(str(path)) == batch.peek_game_id(str(game[-1])) == game_id
    assert batch.groups([str(game[-1]), str(path)]) == [[0, 1]]
    with pytest.raises(UsageError, match="is a pbem save"):
        page.refuse_save_target(path)
    other = packed_copy(tmp_path, packed.pack(b"not a save"), "other.gz")
    page.refuse_save_target(other)  # any other gzip file is no save


def test_inbox_reads_a_bare_packed_bomb_as_too_large_within_its_cap(
        homes: dict[str, Home], bomb: bytes, game: list[Path], tmp_path: Path) -> None:
    path = packed_copy(tmp_path, bomb)
    report = inbox.scan([path], homes["cy"], max_bytes=1024 * 1024)
    [problem] = report.problems
    assert problem.code == "too-large" and "inflates to more than" in problem.message
    # The same save as a file, plain and packed: one save, the other its duplicate.
    plain = game[-1]
    report = inbox.scan([plain, packed_copy(tmp_path, packed.pack(plain.read_bytes()))],
                        homes["cy"])
    assert (report.saves, report.duplicates, report.verified) == (2, 1, 1), report.text()

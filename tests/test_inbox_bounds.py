"""A whole scan of ``pbem inbox`` is bounded in memory however many saves the mail holds
(their bytes wait in a stash and are parsed again when needed, pbem.mail.stash), with the
same report as when every save is held; and a gzip part is inflated only as far as a save
could go."""

from __future__ import annotations

import errno
import hashlib
import json
import mailbox
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.mail import attachments, inbox, stash
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import packed
from tests.test_inbox import fork_mails, message_with, play_and_mail, write_mbox

MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parent.parent
# Peak RSS of a scan in a fresh process, in KiB (ru_maxrss), and what it found.
_SCAN = """
import json, resource, sys
from pbem.mail import inbox
from pbem.protocol.crypto.identity import Home
report = inbox.scan([sys.argv[1]], Home(sys.argv[2]), file_saves=False)
print(json.dumps([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, report.saves,
                  len(report.problems)]))
"""


def _peak_kib(box: Path, home: Home) -> tuple[int, int, int]:
    done = subprocess.run([sys.executable, "-c", _SCAN, str(box), str(home.path)],
                          capture_output=True, text=True, timeout=120, check=True)
    peak, saves, problems = json.loads(done.stdout)
    return peak, saves, problems


def _maildir(path: Path, data: bytes, mails: int, per_mail: int) -> Path:
    """``mails`` messages of ``per_mail`` saves each, every one distinct (a comment)."""
    box = mailbox.Maildir(str(path), create=True)
    for m in range(mails):
        msg = EmailMessage()
        msg["From"], msg["Subject"] = "mallory@example.net", "[pbem] many saves"
        msg.set_content("saves")
        for i in range(per_mail):
            msg.add_attachment(data + b"# copy %d %d\n" % (m, i), maintype="application",
                               subtype="toml", filename=f"s{m}-{i}.toml")
        box.add(msg.as_bytes())
    return path


def test_memory_of_a_scan_does_not_grow_with_the_saves_it_finds(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Before: every distinct save of a scan was held, bytes and parsed (3 mails of 900
    saves, 280 MB; 6 of them, 480 MB). Five mails of 900 saves now take what one does."""
    save = play_and_mail(homes, tmp_path / "saves", stop_after=30)[-1].path.read_bytes()
    dan = Home(tmp_path / "homes" / "dan")
    dan.keygen("dan")  # no seat: each save is parsed, then refused
    one = _maildir(tmp_path / "one", save, 1, 900)
    five = _maildir(tmp_path / "five", save, 5, 900)
    small, saves_one, problems_one = _peak_kib(one, dan)
    large, saves_five, problems_five = _peak_kib(five, dan)
    assert (saves_one, problems_one, saves_five, problems_five) == (900, 900, 4500, 4500)
    # Before, the four more mails took 250 MB more; now none. The bound leaves room for
    # any noise of a busy machine.
    assert large - small < 60 * 1024, (small, large)


@pytest.fixture
def mixed(homes: dict[str, Home], tmp_path: Path) -> tuple[Path, Home]:
    """A mailbox of a game's every save and a fork of its newest, and a home that has
    seen part of the game before."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=8)
    viewer = homes[next(h for h in homes if h != hops[-1].actor)]
    inbox.scan([write_mbox(tmp_path / "early.mbox", [h.msg for h in hops[:4]])], viewer)
    box = write_mbox(tmp_path / "m.mbox", [*(h.msg for h in hops),
                                           *fork_mails(homes, hops[-1], tmp_path)])
    return box, viewer


def test_saves_read_back_from_the_stash_give_the_same_report(
        mixed: tuple[Path, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """None held parsed and every byte in a file on disk: the same report, word for word, as a
    scan that holds them all."""
    box, viewer = mixed
    copy = Home(tmp_path / "copy")
    shutil.copytree(viewer.path, copy.path)
    held = inbox.scan([box], viewer).to_json()
    monkeypatch.setattr(inbox, "HELD_BYTES", 0)
    monkeypatch.setattr(stash, "IN_MEMORY", 1)
    monkeypatch.setattr(stash.Stash.__init__, "__defaults__", (1,))
    read_back = inbox.scan([box], copy).to_json()
    assert held["games"] and any(p["code"] == "fork" for p in held["problems"])
    text = json.dumps(read_back).replace(str(copy.path), str(viewer.path))
    assert json.loads(text) == held


def test_a_stash_with_no_room_is_the_disk_refusing_not_a_bad_message(
        mixed: tuple[Path, Home], monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk under the stash is said as such (exit 2), not as a message that could
    not be parsed, and nothing is recorded as read."""
    box, viewer = mixed

    def no_room(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(stash.Stash.__init__, "__defaults__", (1,))  # to disk at once
    monkeypatch.setattr(tempfile, "TemporaryFile", no_room)
    result = CliRunner().invoke(main, ["--home", str(viewer.path), "inbox", str(box)])
    assert result.exit_code == 2, result.output
    assert ("could not be read or written (No space left on device: the scan's temporary "
            "file)") in result.output
    assert "parsed" not in result.output and "Traceback" not in result.output
    monkeypatch.undo()
    assert inbox.scan([box], viewer, file_saves=False).already_read == 0


# ---- gzip parts ---------------------------------------------------------------------------
def _packed_text(text: bytes) -> bytes:
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return squeezer.compress(text) + squeezer.flush()


SAVE_START = b'# pbem save\n[header]\nformat = "pbem/2"\n'
# 9 MiB of spaces after a save's first lines: 9 KB packed, over the cap of 8 MiB
BOMB = _packed_text(SAVE_START + b" " * (9 * MIB))


class _Counted:
    """zlib.decompressobj, counting every byte inflated (in ``inflated``)."""

    inflated = 0

    def __init__(self, wbits: int) -> None:
        self._inflater = _REAL_DECOMPRESSOBJ(wbits)

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out = self._inflater.decompress(data, max_length)
        _Counted.inflated += len(out)
        return out

    def __getattr__(self, name: str) -> object:
        return getattr(self._inflater, name)


_REAL_DECOMPRESSOBJ = zlib.decompressobj


def test_gzip_parts_named_as_saves_are_inflated_only_as_far_as_a_save_could_go(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: each part named *.toml.gz was inflated to the cap (8 MiB), whatever it was:
    990 of them (a mail of 12 MB) took 38 s. A save shrinks at most about 8 times; a part
    that inflates more than 50 times is stopped there, and said so in one line each."""
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "mallory@example.net", "[pbem] packed"
    msg.set_content("saves")
    for i in range(20):
        msg.add_attachment(BOMB, maintype="application", subtype="gzip",
                           filename=f"g{i}.toml.gz")
    box = write_mbox(tmp_path / "m.mbox", [msg])
    monkeypatch.setattr(zlib, "decompressobj", _Counted)
    report = inbox.scan([box], homes["bob"], file_saves=False)
    monkeypatch.undo()
    assert _Counted.inflated < 20 * 256 * 1024, _Counted.inflated  # before: 20 x 8 MiB
    assert [p.code for p in report.problems] == ["too-large"] * 20
    assert report.problems[0].message == (
        f"This gzip-compressed attachment of {len(BOMB)} bytes was not read: a part of it "
        f"inflates to more than {attachments.MAX_RATIO} times its size, far more than a save "
        "that pbem writes compresses.")
    assert report.problems[0].origin is not None
    assert report.problems[0].origin.attachment == "g0.toml.gz"


def test_a_gzip_part_over_the_cap_says_its_own_size_not_the_cap(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Before: 'An attachment of 65537 bytes' (the cap plus one) for one of 53767
    bytes; a packed save that inflates past the cap is said as what it is."""
    text = SAVE_START + b"".join(b"# %s\n" % hashlib.sha256(b"%d" % i).hexdigest().encode()
                                 for i in range(1400))
    data = _packed_text(text)
    assert len(data) < 64 * 1024 < len(text) < 4 * len(data)  # far within the ratio
    box = write_mbox(tmp_path / "m.mbox", [message_with(data, filename="g.toml.gz",
                                                         subtype="gzip")])
    [problem] = inbox.scan([box], homes["bob"], max_bytes=64 * 1024, file_saves=False).problems
    assert (problem.code, problem.message) == ("too-large", (
        f"This gzip-compressed attachment of {len(data)} bytes was not read: it inflates to "
        "more than the 65536 bytes that inbox reads per attachment (a real save is far "
        "smaller)."))


@pytest.mark.parametrize("path", sorted((ROOT / "saves").glob("*/*.toml"))
                         + sorted((ROOT / "tests" / "fixtures").glob("*/*.toml")),
                         ids=lambda p: p.name)
def test_every_example_save_packed_is_far_within_the_ratio(path: Path) -> None:
    data = path.read_bytes()
    squeezed = packed.pack(data)
    assert packed.unpack(squeezed, len(data), ratio=attachments.MAX_RATIO,
                         slack=attachments.PEEK_BYTES) == data
    assert len(data) < attachments.MAX_RATIO / 4 * len(squeezed)

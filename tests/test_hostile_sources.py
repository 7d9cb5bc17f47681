"""What a mail source holds is read within bounds (pbem.mail.sources): a pipe or a device
where a message should be (a FIFO in a Maildir, a link to /dev/zero) is never waited on
or read, and of a message far over its cap only the head is read, however large the file:
a Maildir file, an .eml, an mbox message, a file in a folder (a link included)."""

from __future__ import annotations

import os
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from pbem.mail import attachments, inbox, sources
from pbem.mail.report import InboxReport
from pbem.protocol.crypto.identity import Home
from tests.test_inbox import play_and_mail, write_maildir

HUGE = 256 * 1024 * 1024  # sparse: no disk, but a read of it would take all of it
CAP = 1024 * 1024  # --max-size in these scans: messages are read up to 4 MiB
HEADER = b"From: mallory@example.net\nSubject: [pbem] a huge one\n\n"


def scanned(paths: list[Path], home: Home, unblock: list[Path]) -> InboxReport:
    """The scan of ``paths``, in a thread: if it still waits after 20 s (on a pipe),
    each pipe in ``unblock`` is given a writer that leaves at once, and the test fails."""
    result: list[InboxReport] = []
    worker = threading.Thread(target=lambda: result.append(
        inbox.scan(paths, home, max_bytes=CAP, file_saves=False)), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        for pipe in unblock:
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(20)
        pytest.fail("the scan waited on a pipe")
    return result[0]


def huge_file(path: Path, head: bytes = HEADER) -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(HUGE)
    return path


def peak_of(work: Callable[[], InboxReport]) -> tuple[InboxReport, int]:
    tracemalloc.start()
    try:
        report = work()
        return report, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_maildir_of_pipes_devices_and_a_huge_message_is_read_within_bounds(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Before: a FIFO in new/ hung the scan for ever, a link to /dev/zero filled memory
    (11 GB in 30 s), a 256 MiB message was read whole before being refused."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=3)
    box = write_maildir(tmp_path / "Maildir", [hops[-1].msg])
    os.mkfifo(box / "new" / "1.pipe")
    (box / "new" / "2.device").symlink_to(os.devnull)
    huge_file(box / "new" / "3.huge")
    report, peak = peak_of(lambda: scanned([box], homes[hops[-1].actor],
                                           [box / "new" / "1.pipe"]))
    assert peak < 16 * CAP, peak
    assert report.verified == 1 and [g.seq for g in report.games] == [hops[-1].seq]
    said = {p.origin.where: (p.code, p.message) for p in report.problems if p.origin}
    not_a_file = ("unreadable", "This message cannot be read (not a plain file: a pipe, a "
                  "device or a socket).")
    assert said["message 1.pipe"] == said["message 2.device"] == not_a_file
    assert said["message 3.huge"][0] == "too-large"
    assert said["message 3.huge"][1].startswith("This message of 256.0 MiB was not read")


@pytest.mark.parametrize("kind", ["eml", "mbox", "linked in a folder"])
def test_a_huge_message_file_is_refused_after_reading_its_head_only(
        homes: dict[str, Home], tmp_path: Path, kind: str) -> None:
    """Before: the whole file (or mbox message, or the file a folder's link names) was
    read into memory, then refused for its size; an mbox's one line of 256 MiB was held
    whole to find where its messages start."""
    mbox = b"From mallory@example.net Mon Dec  7 01:00:00 2026\n" + HEADER
    big = huge_file(tmp_path / "big.mail", mbox if kind == "mbox" else HEADER)
    source = big
    if kind == "linked in a folder":
        source = tmp_path / "folder"
        source.mkdir()
        (source / "a.eml").symlink_to(big)
    report, peak = peak_of(lambda: scanned([source], homes["ann"], []))
    assert peak < 16 * CAP, peak
    [problem] = report.problems
    assert problem.code == "too-large" and report.messages == 1
    assert problem.message.startswith("This message of 256.0 MiB was not read")


@pytest.mark.parametrize("make", [os.mkfifo, lambda p: Path(p).symlink_to(os.devnull)],
                         ids=["pipe", "device"])
def test_a_pipe_or_device_named_as_a_source_is_a_line_of_the_report(
        homes: dict[str, Home], tmp_path: Path, make: Callable[[Path], None]) -> None:
    """Before: a pipe hung the scan (and a link to /dev/zero filled memory)."""
    source = tmp_path / "mail.eml"
    make(source)
    report = scanned([source], homes["ann"], [source])
    assert [(p.code, p.message) for p in report.problems] == [
        ("unreadable", f"{source} cannot be read (not a plain file: a pipe, a device or a "
         "socket).")]
    assert report.messages == 0


def test_an_mbox_line_longer_than_a_piece_is_one_line(tmp_path: Path) -> None:
    """The table of contents reads lines in pieces: a "From " inside a long line is not a
    message's start, as mailbox.mbox (which reads whole lines) finds them."""
    import mailbox

    long_line = b"x" * (sources.HEAD_BYTES - 3) + b"From inside\n"
    box = tmp_path / "m.mbox"
    box.write_bytes(b"From a\nSubject: one\n\n" + long_line + b"\nFrom b\nSubject: two\n\nhi\n")
    with open(box, "rb") as fh:
        ours = [sources._mbox_message(fh, b, s, 1 << 20)[0] for b, s in sources._mbox_toc(fh, 0)]
    theirs = mailbox.mbox(str(box), create=False)
    assert ours == [theirs.get_bytes(k) for k in theirs.iterkeys()] and len(ours) == 2
    theirs.close()


# ---- what the email parser is given ----------------------------------------------------
def test_a_message_of_thousands_of_parts_is_refused_while_it_is_parsed(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Before: every part was parsed and kept (200,000 parts of a 6.4 MB mail took 4.6 s
    and 164 MB; a million fit in the largest message read)."""
    part = b"--B\nContent-Type: text/plain\n\nx\n"
    eml = tmp_path / "wide.eml"
    eml.write_bytes(HEADER.replace(b"\n\n", b"\nContent-Type: multipart/mixed; boundary=B\n\n")
                    + part * (attachments.MAX_PARTS + 1) + b"--B--\n")
    report = inbox.scan([eml], homes["ann"], file_saves=False)
    assert [(p.code, p.message) for p in report.problems] == [
        ("unreadable", f"This message has more than {attachments.MAX_PARTS} MIME parts, far more than "
         "a mail that carries a save; it was not read.")]


def test_headers_are_cut_before_they_are_decoded(homes: dict[str, Home],
                                                 tmp_path: Path) -> None:
    """The parser's decoding of encoded words and RFC 2231 parameters takes time quadratic
    in their number (a Subject of 200,000 words took 46 s, a file name of 160,000 pieces
    12 s). Before: the whole header was decoded and shown."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=2)
    words = b" ".join([b"=?utf-8?q?a=1B?="] * 20000)
    pieces = b"".join(b"; filename*%d*=a%%1B" % i for i in range(20000))
    save = hops[-1].path.read_bytes()
    eml = tmp_path / "long.eml"
    eml.write_bytes(b"From: mallory@example.net\nSubject: " + words + b"\nContent-Type: "
                    b"application/toml\nContent-Disposition: attachment" + pieces + b"\n\n"
                    + save)
    report = inbox.scan([eml], homes[hops[-1].actor], file_saves=False)
    assert report.verified == 1, report.text()
    origin = report.games[0].origin
    assert 0 < len(origin.subject) <= attachments.MAX_HEADER_CHARS
    assert 0 < len(origin.attachment) <= attachments.MAX_HEADER_CHARS


def test_a_gzip_part_not_named_as_a_save_is_inflated_only_far_enough_to_tell(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Before: each such part was inflated up to the attachment cap to look for a save
    (480 of them, 50 MB each, in a 30 MB mail: 11.9 s); a save starts with its header."""
    import gzip

    from tests.test_inbox import message_with

    album = message_with(gzip.compress(bytes(50_000_000), 9), filename="album.bin",
                         subtype="octet-stream")
    tracemalloc.start()
    try:
        assert attachments.find_saves(album) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 1024 * 1024, peak

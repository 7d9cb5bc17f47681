"""An mbox is read from where the last scan stopped (pbem.mail.sources, pbem.mail.seen):
only when every byte before that point is what was read then; a rewritten or truncated
mbox is read whole again, never read from a point that is no longer a message's start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.mail import inbox, sources
from pbem.protocol.crypto.identity import Home


def message(n: int, body: bytes = b"") -> bytes:
    return (b"From bob@example.org Mon Dec  7 01:00:00 2026\n"
            + f"From: bob@example.org\nSubject: note {n}\n\nline one of {n}\n".encode()
            + body + b"\n")


def write(path: Path, numbers: range | list[int]) -> Path:
    path.write_bytes(b"".join(message(n) for n in numbers))
    return path


def append(path: Path, numbers: range | list[int]) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join(message(n) for n in numbers))


@pytest.fixture
def home(homes: dict[str, Home]) -> Home:
    return homes["ann"]


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The messages the scan parses as email (their Subject lines)."""
    seen: list[bytes] = []
    real = inbox.message_from_bytes

    def spy(data: bytes, *args: Any, **kwargs: Any) -> Any:
        seen.append(data.split(b"Subject: ")[1].split(b"\n")[0])
        return real(data, *args, **kwargs)
    monkeypatch.setattr(inbox, "message_from_bytes", spy)
    return seen


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The byte each mbox scan starts reading from."""
    seen: list[int] = []
    real = sources._mbox_toc

    def spy(fh: Any, start: int) -> list[tuple[int, int]]:
        seen.append(start)
        return real(fh, start)
    monkeypatch.setattr(sources, "_mbox_toc", spy)
    return seen


def test_nothing_new_is_not_read_again(home: Home, tmp_path: Path, parsed: list[bytes],
                                       starts: list[int]) -> None:
    box = write(tmp_path / "m.mbox", range(1, 6))
    first = inbox.scan([box], home)
    assert first.messages == 5 and len(parsed) == 5
    again = inbox.scan([box], home)
    assert (again.messages, again.already_read) == (0, 5)
    assert len(parsed) == 5  # no message parsed again
    last = box.read_bytes().rindex(b"From bob")
    assert starts == [0, last]  # only the last message is looked at (by its digest)


def test_an_appended_message_is_found(home: Home, tmp_path: Path, parsed: list[bytes],
                                      starts: list[int]) -> None:
    box = write(tmp_path / "m.mbox", range(1, 4))
    inbox.scan([box], home)
    resumed_at = box.read_bytes().rindex(b"From bob")
    append(box, [4, 5])
    report = inbox.scan([box], home)
    assert (report.messages, report.already_read) == (2, 3)
    assert parsed == [b"note 1", b"note 2", b"note 3", b"note 4", b"note 5"]
    assert starts == [0, resumed_at]
    assert [p.origin.where for p in report.problems] == []  # plain notes: nothing to say


def test_a_message_cut_short_while_delivered_is_read_whole_later(
        home: Home, tmp_path: Path, parsed: list[bytes]) -> None:
    box = write(tmp_path / "m.mbox", range(1, 3))
    whole = message(3, b"the rest of it\n")
    with open(box, "ab") as fh:
        fh.write(whole[:70])  # a delivery under way
    inbox.scan([box], home)
    with open(box, "ab") as fh:
        fh.write(whole[70:])
    report = inbox.scan([box], home)
    assert (report.messages, report.already_read) == (1, 2)
    assert parsed[-1] == b"note 3"


@pytest.mark.parametrize("change", ["delete-first", "truncate", "same-size-edit", "rewrite"])
def test_a_rewritten_mbox_is_read_whole(home: Home, tmp_path: Path, parsed: list[bytes],
                                        starts: list[int], change: str) -> None:
    """After a mail client rewrote the file, the old offset may fall inside a message:
    the scan reads from the start (messages read before are skipped by digest)."""
    box = write(tmp_path / "m.mbox", range(1, 6))
    inbox.scan([box], home)
    new: list[int] = [6, 7]
    if change == "delete-first":  # an expunge: everything moves up
        write(box, [2, 3, 4, 5, 6, 7])
    elif change == "truncate":
        write(box, [1, 2])
        new = []
    elif change == "same-size-edit":  # a flag written into an old message, same length
        data = box.read_bytes().replace(b"line one of 2", b"line ONE of 2")
        box.write_bytes(data)
        append(box, new)
        new = [2, 6, 7]  # message 2's bytes changed: it is a message not read before
    else:  # rewritten from scratch with other mail of the same shape
        write(box, [11, 12, 13, 14, 15, 16, 17])
        new = [11, 12, 13, 14, 15, 16, 17]
    parsed.clear()
    report = inbox.scan([box], home)
    assert starts[-1] == 0
    assert parsed == [f"note {n}".encode() for n in new]
    assert report.messages == len(new)


def test_all_reads_everything_and_the_record_survives_damage(
        home: Home, tmp_path: Path, parsed: list[bytes], starts: list[int]) -> None:
    box = write(tmp_path / "m.mbox", range(1, 4))
    inbox.scan([box], home)
    assert inbox.scan([box], home, read_all=True).messages == 3 and starts[-1] == 0
    record = home.path / "inbox-seen.json"
    data = json.loads(record.read_text())
    [entry] = data["sources"].values()
    assert set(entry["resume"]) == {"offset", "digest", "messages"}
    assert entry["resume"]["messages"] == 2
    entry["resume"]["offset"] = 5  # a damaged record: inside message 1
    record.write_text(json.dumps(data))
    report = inbox.scan([box], home)
    assert (report.messages, report.already_read) == (0, 3) and starts[-1] == 0


def test_toc_is_mailbox_mbox_s(tmp_path: Path) -> None:
    """The messages read are byte for byte those the standard library's mbox gives (so
    the digests of records written before still match)."""
    import mailbox

    box = tmp_path / "m.mbox"
    box.write_bytes(message(1) + b"From x\nno blank line before\nFrom y\n\n\nFrom z\nlast"
                    + b"\r\n" + message(2) + b"\n")
    ours = []
    with open(box, "rb") as fh:
        for begin, stop in sources._mbox_toc(fh, 0):
            ours.append(sources._mbox_message(fh, begin, stop, 1 << 20)[0])
    theirs = mailbox.mbox(str(box), create=False)
    assert ours == [theirs.get_bytes(k) for k in theirs.iterkeys()]
    theirs.close()

"""Inbox benchmark: messages per second that `inbox.scan` reads, verifies and summarises.

    python bench/bench_inbox.py [--quick]

1. The figure asked for: an mbox of 1,000 messages, each carrying a save, re-using the
   saves of one real game (as a mailbox does: every save is Cc'd to every player, and
   older messages are kept). Scanned into a fresh copy of the reader's home each run,
   then re-scanned in a home that has already seen everything.
2. The verification-bound case: every message carries a different save (one hop each
   of a long game), so nothing is a duplicate and every save is verified.

Medians of a few runs; prints figures, asserts nothing.
"""

from __future__ import annotations

import mailbox
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from common import register_test_games

from pbem import session
from pbem.mail import inbox
from pbem.mail import message as mail
from pbem.mail.report import InboxReport
from pbem.protocol.crypto.identity import Home
from tests.support.duty import sign_duty

HANDLES = ("ann", "bob", "cy")


def play_and_mail(root: Path, hops: int) -> tuple[dict[str, Home], list[EmailMessage], str]:
    """A dice-race game of ``hops`` entries, each save mailed by its signer; returns the
    homes, the messages, and who is to act after the last one."""
    homes = {}
    for handle in HANDLES:
        homes[handle] = Home(root / "homes" / handle)
        homes[handle].keygen(handle)
    folder = root / "saves"
    folder.mkdir()
    seats = [f"{h}={h}@example.org" for h in HANDLES]
    written = session.new_game(homes["ann"], "dice-race", seats,
                               ["target=1000000", f"turns={hops}"], None, folder=folder)
    messages = [mail.compose(written.path, homes["ann"])]
    while len(messages) < hops and written.table.duty() is not None:
        written = sign_duty(homes, written, "random:1")
        messages.append(mail.compose(written.path, homes[written.entry["seat"]]))
    duty = written.table.duty()
    actor = written.table.seats[duty.seat].handle if duty else HANDLES[0]
    return homes, messages, actor


def write_mbox(path: Path, messages: list[EmailMessage]) -> Path:
    box = mailbox.mbox(str(path))
    box.lock()
    for msg in messages:
        box.add(msg.as_bytes())
    box.flush()
    box.unlock()
    box.close()
    return path


CPU: list[float] = []  # the median CPU time of the last timed() call, for the report


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall-clock seconds; the median CPU seconds go to CPU (steadier on a busy
    machine, where wall-clock time also counts the other processes)."""
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU[:] = [statistics.median(cpu)]
    return statistics.median(times)


def scan_fresh(box: Path, home: Home, work: Path) -> Callable[[], InboxReport]:
    """A scan in a copy of ``home`` as it was before, so every run does the same work."""
    counter = iter(range(1_000_000))

    def run() -> InboxReport:
        copy = work / f"run-{next(counter)}"
        shutil.copytree(home.path, copy)
        try:
            return inbox.scan([box], Home(copy))
        finally:
            shutil.rmtree(copy)

    return run


def main() -> None:
    quick = "--quick" in sys.argv
    repeat = 5
    register_test_games()
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-inbox-"))
    try:
        print("1. 1,000 messages re-using the saves of one game")
        distinct = 12
        homes, messages, actor = play_and_mail(root / "a", distinct)
        total = 1000
        mixed = [messages[i % len(messages)] for i in range(total)]
        box = write_mbox(root / "a" / "mail.mbox", mixed)
        size = box.stat().st_size
        run = scan_fresh(box, homes[actor], root / "a")
        report = run()
        assert report.messages == total and report.games and not report.problems, report.text()
        seconds = timed(run, repeat)
        print(f"   mbox {size / 1e6:.1f} MB, {total} messages, {len(messages)} distinct saves "
              f"({report.duplicates} duplicate copies)")
        print(f"   scan into a fresh home: {seconds:.2f} s, {total / seconds:,.0f} messages/s "
              f"(median of {repeat}; CPU {CPU[0]:.2f} s)")
        seen = inbox.scan([box], homes[actor])
        assert seen.games[0].filed
        seconds = timed(lambda: inbox.scan([box], homes[actor]), repeat)
        print(f"   re-scan, everything already seen: {seconds:.2f} s, "
              f"{total / seconds:,.0f} messages/s (CPU {CPU[0]:.2f} s)")

        print("3. 3,000 messages (the saves of one game, Cc'd): a re-read with the record of "
              "mail read, and with --all")
        homes, messages, actor = play_and_mail(root / "c", distinct)
        big = [messages[i % len(messages)] for i in range(3000)]
        box = write_mbox(root / "c" / "mail.mbox", big)
        maildir = mailbox.Maildir(str(root / "c" / "Maildir"), create=True)
        for msg in big:
            maildir.add(msg.as_bytes())
        for label, source in (("mbox", box), ("Maildir", root / "c" / "Maildir")):
            first = inbox.scan([source], homes[actor], read_all=True)
            assert first.messages == 3000, first.text()
            again = timed(lambda source=source: inbox.scan([source], homes[actor]), repeat)
            cpu_again = CPU[0]
            every = timed(lambda source=source: inbox.scan([source], homes[actor],
                                                           read_all=True), 3)
            print(f"   {label}: re-read (nothing new) {again:.2f} s (CPU {cpu_again:.2f} s); "
                  f"--all {every:.2f} s (CPU {CPU[0]:.2f} s)")

        hops = 60 if quick else 200
        print(f"2. {hops} messages, each a different save (a {hops}-entry game)")
        homes, messages, actor = play_and_mail(root / "b", hops)
        box = write_mbox(root / "b" / "mail.mbox", messages)
        run = scan_fresh(box, homes[actor], root / "b")
        report = run()
        assert report.verified == len(messages), report.text()
        seconds = timed(run, repeat)
        print(f"   mbox {box.stat().st_size / 1e6:.1f} MB; scan: {seconds:.2f} s, "
              f"{len(messages) / seconds:,.0f} messages/s (every save verified; median of "
              f"{repeat}; CPU {CPU[0]:.2f} s)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

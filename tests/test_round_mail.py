"""Rounds assembled from mail (pbem inbox, PROTOCOL.md section 4): each seat of a round of
sealed commitments (Sealed Bids, three seats) signs its slot on the save before the
round and mails it; a home reading those mails in any order assembles the same save,
and two entries of one seat in its slot are reported as a fork whichever comes first."""

from __future__ import annotations

import shutil
from pathlib import Path

from pbem import session
from pbem.mail import inbox
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge, play_game, with_entries


def slots(homes: dict[str, Home], tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The save before the round, and each seat's commitment signed on it, in its own
    file."""
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    return start, {h: session.sign_next(homes[h], start, None, [f"bid {i + 1}"], None,
                                        str(tmp_path / f"{h}.toml")).path
                   for i, h in enumerate(homes)}


def test_the_assembled_round_is_the_same_whatever_the_mail_order(
        homes: dict[str, Home], tmp_path: Path) -> None:
    _, paths = slots(homes, tmp_path)
    orders = [["ann", "bob", "cy"], ["cy", "bob", "ann"], ["bob", "ann", "cy"]]
    filed = set()
    for n, order in enumerate(orders):
        home = Home(tmp_path / f"copy{n}")
        shutil.copytree(homes["cy"].path, home.path)
        (summary,) = inbox.scan([paths[h] for h in order], home).games
        assert not summary.problems
        filed.add(savefile.dumps(savefile.read(summary.filed)))
    (text,) = filed
    assert [e["seat"] for e in savefile.parse_bytes(text.encode(), "x").entries[-3:]] == \
        ["ann", "bob", "cy"]


def test_two_entries_of_one_seat_in_its_slot_are_a_fork_in_either_order(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """bob signs his slot twice (two commitments, two mails; his client would not, so
    the second is re-signed by hand): the scan reports the fork (exit 3) whichever of
    the two it reads first."""
    _, paths = slots(homes, tmp_path)
    honest = savefile.read(paths["bob"])
    twin = forge({**honest.entries[-1], "sealed": "ab" * 32}, homes["bob"].load())
    other = tmp_path / "bob2.toml"
    other.write_text(savefile.dumps(with_entries(honest, [*honest.entries[:-1], twin])))
    for n, order in enumerate([[paths["bob"], other], [other, paths["bob"]]]):
        home = Home(tmp_path / f"copy{n}")
        shutil.copytree(homes["ann"].path, home.path)
        report = inbox.scan(order, home)
        assert "fork" in [p.code for p in report.problems]
        assert report.exit_code() == 3


def test_the_game_s_branch_is_the_newest_save_whatever_the_mail_order(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Two saves of one length, two branches at bob's slot: bob's commitment (A, signed
    first, the game's) and ann's proposal that he is absent (B). A home reading B last
    went by B: its summary waited for cy's vote on a void proposal and it filed B."""
    from tests.test_cache_attacks import two_branches

    a, b = two_branches(homes, tmp_path)
    paths = [tmp_path / "A.toml", tmp_path / "B.toml"]
    for path, save in zip(paths, (a, b), strict=True):
        path.write_text(savefile.dumps(save))
    for n, order in enumerate([paths, paths[::-1]]):
        home = Home(tmp_path / f"copy{n}")
        shutil.copytree(homes["ann"].path, home.path)
        (summary,) = inbox.scan(order, home).games
        assert (summary.to_act, summary.next) == ("ann", "turn")
        assert savefile.read(summary.filed).entries == a.entries

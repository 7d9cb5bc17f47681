"""Attacks on the paths that let a home skip work: the archive's cached table and the
told cache, where a round's last entry is the same in two saves whose earlier slots of
the round differ (each entry of a round follows the entry before the round, so its hash
pins none of the others: PROTOCOL.md section 4). The test game is Sealed Bids
(tests/support/sealed_bids.py): ann commits to her bid; in save A bob and cy commit
too, in save B ann proposes bob absent in bob's slot and cy's commitment is A's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem import session
from pbem.errors import IntegrityError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import sign_as, with_entries
from tests.test_queue_attacks import committed


def two_branches(homes: dict[str, Home], tmp_path: Path, options: list[str] | None = None
                 ) -> tuple[Save, Save]:
    """(A, B) as the module docstring says (the game with ``options``); cy's home has
    verified A (its archive caches the table after cy's entry, the round complete)."""
    start = committed(homes, tmp_path, [("ann", "bid 4")], options)
    bob = sign_as(homes["bob"], start, None)
    a = sign_as(homes["cy"], bob.path, None)
    proposal = sign_as(homes["ann"], start, "absent", player="bob", remedy="bot")
    entries = [*proposal.save.entries, a.save.entries[-1]]
    b = Save(proposal.save.header, entries, {})
    b = with_entries(b, entries, engine.public_state(engine.replay(
        b, check_snapshot=False).table))
    return a.save, b


def archived_cache(home: Home, save: Save) -> dict[str, Any]:
    from pbem.home.archive import Archive

    return dict(Archive(home.archive_dir, save.game_id).data["cache"])


def test_a_round_with_another_entry_in_an_earlier_slot_is_not_read_with_the_cached_table(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """B is a valid branch (bob came back while ann proposed him absent): cy's home
    verifies it with B's own table (the proposal open), where it read it with A's cached
    table and refused B's true [state] as edited by hand."""
    a, b = two_branches(homes, tmp_path)
    assert archived_cache(homes["cy"], a)["hash"] == engine.entry_hash(a.entries[-1])
    verified = session.verify(b, homes["cy"])
    assert verified.report.table.proposal["player"] == 1
    assert verified.report.checked_from == 0  # replayed, not resumed


def test_a_forged_state_copied_from_the_other_branch_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """B with A's [state] (no proposal open) was accepted in cy's home, read with A's
    table: the home would then sign on a table no other verifier has."""
    a, b = two_branches(homes, tmp_path)
    forged = with_entries(b, b.entries, a.state)
    with pytest.raises(IntegrityError) as refused:
        session.verify(forged, homes["cy"])
    assert refused.value.code == "snapshot"


def test_the_cached_table_is_still_resumed_after_a_complete_round(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """The check costs no resume where the save's round is the one this home replayed:
    the next entry after A is replayed alone in cy's home."""
    a, _ = two_branches(homes, tmp_path)
    path = tmp_path / "a.toml"
    savefile.write_new(path, savefile.dumps(a))
    after = sign_as(homes["ann"], path, None)
    assert session.verify(after.save, homes["cy"]).report.checked_from == len(a.entries)


def test_log_tells_a_round_entry_as_this_save_has_it_not_as_another_save_had_it(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Open bids: in A cy's bid completes the step (its note says who won the prize); in
    B bob's slot holds ann's proposal, so cy's same entry only bids. cy's home logged A
    first: its told cache, keyed by cy's entry hash alone, told B's last entry as A's."""
    from pbem.session import logbook

    a, b = two_branches(homes, tmp_path, ["open=true"])
    paths = [tmp_path / "a.toml", tmp_path / "b.toml"]
    for path, save in zip(paths, (a, b), strict=True):
        savefile.write_new(path, savefile.dumps(save))

    def last(save: Save) -> range:
        return range(len(save.entries) - 1, len(save.entries))

    told_a = logbook.history(paths[0], homes["cy"], last).notes[-1].changes
    assert any("won the prize" in line for line in told_a)
    told_b = logbook.history(paths[1], homes["cy"], last).notes[-1].changes
    assert not any("won the prize" in line for line in told_b)


def test_inbox_refuses_an_old_save_of_known_entries_put_out_of_order(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """inbox skips the replay of a save whose entries this home verified, when a newer one
    exists: a save of those entries in another order (cy's entry of the round before
    bob's, a broken chain) was counted as verified, and the scan ended with exit 0."""
    from pbem.mail import inbox

    start = committed(homes, tmp_path, [("ann", "bid 4")])
    bob = sign_as(homes["bob"], start, None)
    a = sign_as(homes["cy"], bob.path, None)
    newer = sign_as(homes["ann"], a.path, None)
    session.verify(newer.save, homes["ann"])
    *before, b_entry, c_entry = a.save.entries
    swapped = tmp_path / "swapped.toml"
    swapped.write_text(savefile.dumps(with_entries(a.save, [*before, c_entry, b_entry])))
    report = inbox.scan([swapped, newer.path], homes["ann"], file_saves=False)
    assert report.verified == 1
    assert [p.code for p in report.problems] == ["tampered"]
    assert report.exit_code() == 3


def test_a_cache_written_inside_a_round_is_never_resumed(homes: dict[str, Home],
                                                         tmp_path: Path) -> None:
    """pbem never caches a table inside a round (the save completing it may hold entries
    before the cached one); a hand-made cache at ann's entry of the round, its round's
    planned work edited, is not resumed from: its head (the entry before the round) is
    not the save's round digest there. The save replays from entry 0 and verifies."""
    import json

    from pbem.home.archive import Archive

    path = committed(homes, tmp_path, [("ann", "bid 4")])
    save = savefile.read(path)
    home = homes["cy"]
    session.verify(save, home)
    table = engine.replay(save).table.to_json()
    assert table["round_first"] == len(save.entries) - 1
    table["round_work"] = [[1, "deck", {"op": "peel"}]]
    archive = Archive(home.archive_dir, save.game_id)
    data = dict(archive.data, cache={"hash": engine.entry_hash(save.entries[-1]),
                                     "table": table})
    archive.path.write_text(json.dumps(data), "utf-8")
    assert session.verify(save, home).report.checked_from == 0

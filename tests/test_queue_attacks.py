"""Attacks on the queue of proposals signed in a round's slots (docs/protocol-rounds.md,
"Seats withholding their entries in a reveal or turn round"): what a cheating seat that
fills the slots of the others can and cannot do. The test game is Sealed Bids
(tests/support/sealed_bids.py), whose steps are simultaneous and offer the bot."""

from __future__ import annotations

from pathlib import Path

from pbem import session
from pbem.protocol.crypto.identity import Home
from pbem.protocol.timekeeping import absence
from tests.enginekit import play_game, sign_as, tick


def withheld_by_both(homes: dict[str, Home], tmp_path: Path) -> session.Written:
    """Three seats: ann commits to her bid and fills bob's and cy's slots of the round of
    commitments with proposals (remedy bot). Nobody is left to vote on either."""
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    mine = session.sign_next(homes["ann"], start, None, ["bid 4"], None,
                             str(tmp_path / "ann.toml"))
    first = sign_as(homes["ann"], mine.path, "absent", player="bob", remedy="bot")
    return sign_as(homes["ann"], first.path, "absent", player="cy", remedy="bot")


def test_a_queued_bot_proposal_is_void_once_too_few_people_are_left(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Each of ann's proposals was offered when signed (two other seats played by people),
    but once bob's takes effect only ann is left besides cy: 'bot' for cy would have ann
    sign on both sides of every bot turn and foresee its chance. cy's proposal is void
    when its turn to open comes (it never opens), and cy stays removable with 'end'."""
    both = withheld_by_both(homes, tmp_path)
    assert both.table.proposal["player"] == 1 and both.table.proposal["voters"] == []
    tick(days=8)
    one = sign_as(homes["ann"], both.path, "confirm")
    table = one.table
    assert table.bots == [1]
    assert not table.proposal and not table.queue  # cy's 'bot' never opens
    assert table.against[2] == one.entry["time"]  # a new proposal waits a patience
    opened = session.sign_next(homes["ann"], one.path, None, [], None, None)  # ann's bid
    duty = opened.table.duty()
    assert duty is not None and duty.seat == 2  # cy's bid, in the open (a bot plays)
    again = sign_as(homes["ann"], opened.path, "absent", player="cy", remedy="end")
    assert again.table.proposal["player"] == 2 and again.table.proposal["remedy"] == "end"


def test_show_names_each_queued_proposal_with_its_own_remedy(tmp_path: Path) -> None:
    """A step's proposals may carry 'bot': 'show' (text and --json ``queue``) says the
    remedy each queued proposal carries, and that the seat named answers by playing."""
    from tests.test_simultaneous import four_homes, two_withheld

    homes = four_homes(tmp_path)
    second = two_withheld(homes, tmp_path)
    table = second.table
    assert absence.queue_status(table) == [{"player": "dan", "by": "ann",
                                            "seq": table.queue[0]["seq"], "remedy": "bot"}]
    line = next(x for x in absence.lines(table) if x.startswith("Queued behind"))
    assert "remedy 'bot'" in line and "'end'" not in line
    assert "answers by playing on this save" in line

"""Attacks on the queue of proposals signed in a round's slots (docs/protocol-rounds.md,
"Seats withholding their entries in a reveal or turn round"): what a cheating seat that
fills the slots of the others can and cannot do. The test game is Sealed Bids
(tests/support/sealed_bids.py), whose steps are simultaneous and offer the bot."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import TurnError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import timing
from pbem.protocol.timekeeping import absence
from pbem.session import absentees
from tests.enginekit import forge, next_entry, play_game, sign_as, tick, with_entries

PATIENCE = datetime.timedelta(days=7)  # the default


def committed(homes: dict[str, Home], tmp_path: Path, bids: list[tuple[str, str]],
              options: list[str] | None = None) -> Path:
    """A three-seat Sealed Bids game (with ``options``) at its first sealed step, where
    each of ``bids`` (handle, move) is committed in turn, each on the save the one before
    wrote (with the option ``open=true``, bid in the open)."""
    path = play_game(homes, tmp_path / "s", game="sealed-bids", options=options,
                     stop_after=4)[-1]
    for handle, move in bids:
        path = session.sign_next(homes[handle], path, None, [move], None,
                                 str(tmp_path / f"{handle}.toml")).path
    return path


def withheld_by_both(homes: dict[str, Home], tmp_path: Path) -> session.Written:
    """Three seats: ann commits to her bid and fills bob's and cy's slots of the round of
    commitments with proposals (remedy bot). Nobody is left to vote on either."""
    mine = committed(homes, tmp_path, [("ann", "bid 4")])
    first = sign_as(homes["ann"], mine, "absent", player="bob", remedy="bot")
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
    duty = table.duty()
    assert duty is not None and duty.seat == 2  # cy commits before ann opens
    again = sign_as(homes["ann"], one.path, "absent", player="cy", remedy="end")
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


def test_a_back_dated_answer_does_not_open_the_next_proposal_early(tmp_path: Path) -> None:
    """ann fills cy's slot early and bob's ten days later, completing the round; bob's
    proposal opens then, cy's waits behind it. bob answers with his reveal dated before
    the round was complete: cy's proposal still opens no earlier than the one it waited
    behind, so its confirm is a whole patience after the round, not at once (else cy,
    who could answer only once the round was complete, would have had no time at all)."""
    from tests.test_reveal_rounds_many import make_homes, propose, to_the_reveals

    homes = make_homes(tmp_path, 3)
    path = to_the_reveals(homes, tmp_path / "saves")
    path = session.sign_next(homes["ann"], path, None, [], None, None).path
    tick(days=8)
    early = propose(homes, "ann", path, "cy")
    tick(days=10)
    late = propose(homes, "ann", early.path, "bob")
    assert late.table.proposal["player"] == 1 and late.table.queue[0]["player"] == 2
    tick(hours=1)
    honest = session.sign_next(homes["bob"], late.path, None, [], None, None)
    back = forge({**honest.entry, "time": early.entry["time"]}, homes["bob"].load())
    save = with_entries(honest.save, [*honest.save.entries[:-1], back])
    table = engine.replay(save, check_snapshot=False).table  # bob's answer is the game's
    assert table.proposal["player"] == 2 and not table.queue
    assert absence.confirm_from(table) >= timing.parse_stamp(late.entry["time"]) + PATIENCE


def test_a_back_dated_refusal_neither_opens_the_next_early_nor_skips_a_patience(
        tmp_path: Path) -> None:
    """Four seats: ann and bob reveal; ann fills dee's slot, then cy's ten days later.
    cy's proposal opens with bob to vote; bob refuses it, dating his vote back before the
    round was complete. dee's proposal opens no earlier than cy's did, and a new proposal
    against cy waits a patience from then too, not from the date bob wrote."""
    from tests.test_reveal_rounds_many import make_homes, propose, reveal_all, to_the_reveals

    homes = make_homes(tmp_path, 4)
    path = reveal_all(homes, to_the_reveals(homes, tmp_path / "saves"), ["ann", "bob"])
    tick(days=8)
    early = propose(homes, "ann", path, "dee")
    tick(days=10)
    late = propose(homes, "ann", early.path, "cy")
    assert late.table.proposal["player"] == 2 and late.table.proposal["voters"] == [1]
    tick(hours=1)
    honest = absentees.sign_absence(homes["bob"], late.path, "vote", {"vote": "refuse"},
                                    None)
    back = forge({**honest.entry, "time": early.entry["time"]}, homes["bob"].load())
    save = with_entries(honest.save, [*honest.save.entries[:-1], back])
    table = engine.replay(save, check_snapshot=False).table
    assert table.proposal["player"] == 3
    assert table.proposal["opened"] >= late.entry["time"]
    assert table.against[2] >= late.entry["time"]


def refused_withholder(homes: dict[str, Home], tmp_path: Path) -> session.Written:
    """ann and bob commit to their bids; cy withholds its commitment, ann proposes cy
    absent in cy's slot and bob refuses the proposal: the game waits for cy again."""
    path = committed(homes, tmp_path, [("ann", "bid 4"), ("bob", "bid 5")])
    proposal = sign_as(homes["ann"], path, "absent", player="cy", remedy="bot")
    return sign_as(homes["bob"], proposal.path, "vote", vote="refuse")


def test_a_withholder_whose_proposal_was_refused_commits_before_anything_opens(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """After the refusal nobody opens: cy commits first (an entry in the order of play,
    sealed like the others'), then the three open in a round. Else ann and bob would open
    one after another and cy would bid in the open having read both bids."""
    refusal = refused_withholder(homes, tmp_path)
    duty = refusal.table.duty()
    assert duty is not None and duty.seat == 2 and refusal.table.round_seats() == []
    with pytest.raises(TurnError):
        session.sign_next(homes["ann"], refusal.path, None, [], None, None)
    late = session.sign_next(homes["cy"], refusal.path, None, ["bid 6"], None, None)
    assert late.entry["moves"] == [] and "sealed" in late.entry and "round" not in late.entry
    assert late.table.round_seats() == [0, 1, 2] and late.table.step_kind() == "opening"


def test_a_turn_in_the_open_by_a_seat_that_has_not_committed_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """cy's bid signed by hand in the open after the refusal (as a cheating client would,
    once it had read the others' bids) is refused: it must be a commitment."""
    refusal = refused_withholder(homes, tmp_path)
    tick(hours=1)
    entry = next_entry(refusal.save, homes["cy"], "turn", ["bid 6"])
    with pytest.raises(TurnError) as caught:
        engine.replay(with_entries(refusal.save, [*refusal.save.entries, entry]),
                      check_snapshot=False)
    assert caught.value.code == "sealed"


def test_a_late_commitment_plays_no_bot_turn_before_the_openings(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """cy commits and fills ann's and bob's slots (remedy bot); ann's takes effect, bob's
    is void as it opens (only cy would be left). bob, who signs for the bot seat ann,
    commits late: like the round's entries that commitment plays no bot turn (ann's bid is
    played after the openings, as in any sealed step), and bob and cy then open."""
    mine = committed(homes, tmp_path, [("cy", "bid 3")])
    first = sign_as(homes["cy"], mine, "absent", player="ann", remedy="bot")
    both = sign_as(homes["cy"], first.path, "absent", player="bob", remedy="bot")
    tick(days=8)
    one = sign_as(homes["cy"], both.path, "confirm")
    assert one.table.bots == [0] and not one.table.proposal and not one.table.queue
    late = session.sign_next(homes["bob"], one.path, None, ["bid 5"], "greedy", None)
    assert "sealed" in late.entry and not late.entry.get("bot")
    assert late.table.round_seats() == [1, 2]


def test_the_first_seat_of_a_sealed_step_withholding_stays_removable(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """ann (seat 0) never commits; bob and cy do, and bob proposes ann absent in her slot.
    In the save that proposal comes first and a commitment last: the round is still a
    round of commitments, and the commitment that completes it in the save opens the
    proposal, as it did when bob signed (else every home refused the save: stuck)."""
    path = committed(homes, tmp_path, [("bob", "bid 4"), ("cy", "bid 5")])
    proposal = sign_as(homes["bob"], path, "absent", player="ann", remedy="end")
    assert [e["kind"] for e in proposal.save.entries[-3:]] == ["absent", "turn", "turn"]
    table = engine.replay(proposal.save).table
    assert table.proposal["player"] == 0 and table.proposal["voters"] == [2]
    voted = sign_as(homes["cy"], proposal.path, "vote", vote="accept")
    assert voted.table.dropped == [0] and voted.table.stopped




def test_a_withholder_cannot_resign_into_a_bot_proposal_it_would_open(tmp_path: Path) -> None:
    """bob and cy withhold their commitments; ann fills both slots (remedy bot). bob, whose
    proposal is open, answering by resigning would open cy's 'bot' proposal in a game then
    over (where the only remedy is 'end': cy would neither reveal nor rank last): the
    answer voids bob's proposal and opens cy's, so the next entry is dan's vote, and the
    resignation is refused before anything is written. bob answers by playing."""
    from tests.test_simultaneous import four_homes, one_step

    homes = four_homes(tmp_path)
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=5)[-1]
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "dan": "bid 5"})
    first = sign_as(homes["ann"], two, "absent", player="bob", remedy="bot")
    both = sign_as(homes["ann"], first.path, "absent", player="cy", remedy="bot")
    assert both.table.proposal["player"] == 1 and both.table.proposal["voters"] == [3]
    files = sorted(p.name for p in both.path.parent.iterdir())
    with pytest.raises(TurnError, match="must be a vote by dan"):
        session.sign_next(homes["bob"], both.path, "resign", [], None, None)
    assert sorted(p.name for p in both.path.parent.iterdir()) == files
    answer = session.sign_next(homes["bob"], both.path, None, ["bid 2"], None, None)
    assert answer.table.proposal["player"] == 2 and answer.table.resigned < 0


@pytest.mark.parametrize("voter", ["ann", "dan"])
def test_neither_the_proposer_nor_another_withholder_votes_on_a_queued_proposal(
        tmp_path: Path, voter: str) -> None:
    """cy's proposal is open and dan's waits behind it: ann (who proposed both) and dan
    (proposed in the same round) may not vote on cy's; bob, the one voter, may."""
    from tests.test_simultaneous import four_homes, two_withheld

    homes = four_homes(tmp_path)
    second = two_withheld(homes, tmp_path)
    assert second.table.proposal["player"] == 2 and second.table.proposal["voters"] == [1]
    files = sorted(p.name for p in second.path.parent.iterdir())
    with pytest.raises(TurnError):
        sign_as(homes[voter], second.path, "vote", vote="refuse")
    assert sorted(p.name for p in second.path.parent.iterdir()) == files
    assert sign_as(homes["bob"], second.path, "vote", vote="refuse").table.proposal[
        "player"] == 3  # bob's refusal voids cy's proposal and opens dan's


def test_a_copied_table_is_equal_and_shares_nothing_a_step_changes(tmp_path: Path) -> None:
    """Table.copy (signing and branch replays step on a copy): with a proposal open, one
    queued and commitments kept, the copy equals the table, and changing the copy's
    fields leaves the table as it was."""
    from tests.test_simultaneous import four_homes, two_withheld

    homes = four_homes(tmp_path)
    table = two_withheld(homes, tmp_path).table
    assert table.queue and table.proposal and table.commits
    before = repr(table)
    twin = table.copy()
    assert twin == table and twin.header is table.header
    twin.queue[0]["seq"] = -1
    twin.proposal["voters"].append(9)
    twin.commits[0][2] = "forged"
    twin.seats[0].handle = "eve"
    twin.gstate["changed"] = True
    twin.against[0] = "changed"
    assert repr(table) == before and twin != table


def test_show_names_the_empty_slot_not_the_seat_whose_slot_holds_a_proposal(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Bids in the open: bob bids, and a patience on proposes ann absent in her slot, while
    cy has not bid. ann cannot play until the round is complete; the round waits for cy,
    past patience too. show named ann ('turn by ann', her patience running out in seven
    days) and not cy."""
    from pbem.protocol.timekeeping import clock
    from pbem.session import rounds

    path = committed(homes, tmp_path, [("bob", "bid 2")], ["open=true"])
    table = sign_as(homes["bob"], path, "absent", player="ann",
                    remedy="end").table
    assert table.queue[0]["player"] == 0 and table.round_missing() == [2]
    assert rounds.next_words(table) == ("turn by cy", ["cy"])
    assert clock.status(table)["to_act"] == "cy"
    (line,) = clock.lines(table, timing.now())
    assert line.startswith("To act: cy (turn)") and "may propose cy absent" in line
    assert ("this save holds those of bob, and a proposal that ann is absent in ann's slot; "
            "missing: cy") in rounds.status_line(table)

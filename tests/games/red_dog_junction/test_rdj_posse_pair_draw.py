"""Posse (RDJ-V2), rules version 6: the rest of set-up is drawn from two links of the opens
round (docs/protocol-rounds.md, "Drawn from two links of the round"), the last picker's
(cy, whose pick queued it) and the first other seat's in seat order (ann), by whichever of
their two entries is applied second, once both are in. Checked: the draw is exactly that,
in any order of signing; no seat's preview shows it before both are in; a proposal in
either slot leaves it pending, and the answer on top draws the same; a remedy that
silences one of the two hands it to the next entry in the order of play; the mail says
which entries draw it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem import session
from pbem.errors import PbemError
from pbem.game import copy_state
from pbem.mail import message
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.state.table import Table
from pbem.session import absentees
from pbem_games.red_dog_junction import posse
from tests.enginekit import forge, next_entry, sign_as, with_entries
from tests.games.red_dog_junction.test_rdj_posse_open_round import drawn, opens_ahead
from tests.games.red_dog_junction.test_rdj_posse_rounds import HANDLES, posse_until
from tests.support.duty import sign_duty
from tests.test_chance_property import soon


def expected_draw(before: Table, links: dict[str, str]) -> tuple[Any, ...]:
    """The rest of set-up as version 6 draws it: PROTOCOL.md section 5's R for the queuing
    entry (cy's last pick), from cy's link of the opens round and ann's."""
    queued = {int(r["seq"]) for r in before.gstate["pending"]}
    assert len(queued) == 1 and before.signers[min(queued)] == 2  # cy's last pick
    state = copy_state(before.gstate)
    state["pending"] = []
    posse.resolve(state, beacon.sampler(before.game_id, min(queued),
                                        bytes.fromhex(links["cy"]), bytes.fromhex(links["ann"])))
    return drawn(state)


def pending_for_all(homes: dict[str, Any], table: Table) -> None:
    for handle in HANDLES:
        assert signing.preview(table, homes[handle].load()).gstate["pending"], handle


def mail_text(path: Path, home: Home, to: str) -> str:
    (mail,) = message.compose_each(path, home, to=[f"{to}@example.org"])
    return " ".join(mail.get_body(("plain",)).get_content().split())


def verified_as_signed(written: session.Written, home: Path) -> None:
    """A home that had none of the game verifies the save to the state its signer's has."""
    report = session.verify(savefile.read(written.path), Home(home))
    assert report.table.gstate == written.table.gstate


def drawn_alone(before: Table, link: str) -> tuple[Any, ...]:
    """The rest of set-up as version 5 drew it: from cy's last pick's link and ``link``, a
    lone entry's own (known to its signer before its last choice)."""
    queued = min(int(r["seq"]) for r in before.gstate["pending"])
    state = copy_state(before.gstate)
    state["pending"] = []
    posse.resolve(state, beacon.sampler(before.game_id, queued,
                                        bytes.fromhex(before.beacons[queued]),
                                        bytes.fromhex(link)))
    return drawn(state)


@pytest.mark.heavy
@pytest.mark.parametrize("order", [["ann", "bob", "cy"], ["cy", "bob", "ann"],
                                   ["bob", "cy", "ann"]])
def test_RDJ_V2_version_6_draws_set_up_from_the_last_pickers_and_first_seats_opens(
        order: list[str], tmp_path: Path) -> None:
    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    assert before.header["rules_version"] >= posse.PAIR_RULES
    assert before.gstate["pending"] and before.deck_round() == [0, 1, 2]
    assert before.deck_round_resolver() == -1  # no one entry draws it
    pending_for_all(homes, before)
    links: dict[str, str] = {}
    for who in order:
        written = sign_as(homes[who], written.path)
        assert written.entry.get("round") == len(before.signers)
        links[who] = written.entry["beacon"]
        verified_as_signed(written, tmp_path / f"a-{who}")
        both = {"ann", "cy"} <= set(links)
        assert bool(written.table.gstate["pending"]) == (not both)
        if not both and written.table.round_missing():
            pending_for_all(homes, written.table)
    state = written.table.gstate
    assert written.table.round_first < 0 and state["phase"] == "play"
    assert drawn(state) == expected_draw(before, links)


@pytest.mark.heavy
@pytest.mark.parametrize("withheld", ["ann", "cy"])
def test_RDJ_V2_version_6_a_proposal_in_a_drawing_slot_leaves_it_pending_and_the_answer_draws(
        withheld: str, tmp_path: Path) -> None:
    """One of the two seats withholds its open; bob proposes it absent in its slot
    (remedy end). Nothing is drawn; the answer on top carries the link its slot would
    have, and draws the same as the round would have."""
    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    other = "cy" if withheld == "ann" else "ann"
    written = sign_as(homes["bob"], written.path)
    written = sign_as(homes[other], written.path)
    written = sign_as(homes["bob"], written.path, "absent", player=withheld, remedy="end")
    table = written.table
    assert table.round_first < 0 and table.gstate["pending"] and table.pair_draw
    assert table.proposal.get("player") == HANDLES.index(withheld)
    pending_for_all(homes, table)
    text = mail_text(written.path, homes["bob"], withheld)
    assert (f"not shown yet: they are drawn from cy's and ann's entries of the round of "
            f"secret-deck work together, and appear once {withheld}'s is in the save.") in text
    links = {other: next(e["beacon"] for e in reversed(written.save.entries)
                         if e["seat"] == other and e.get("beacon"))}
    written = sign_as(homes[withheld], written.path)
    assert "round" not in written.entry and not written.table.proposal
    links[withheld] = written.entry["beacon"]
    assert not written.table.gstate["pending"]
    assert drawn(written.table.gstate) == expected_draw(before, links)
    verified_as_signed(written, tmp_path / "auditor")


@pytest.mark.heavy
def test_RDJ_V2_version_6_the_mail_in_the_opens_round_names_the_entries_that_draw(
        tmp_path: Path) -> None:
    homes, written = posse_until(tmp_path, opens_ahead)
    written = sign_as(homes["bob"], written.path)
    text = mail_text(written.path, homes["bob"], "ann")
    assert ("not shown yet: they are drawn from cy's and ann's entries of the round of "
            "secret-deck work together, and appear once cy's and ann's are in the save.") in text
    written = sign_as(homes["ann"], written.path)
    text = mail_text(written.path, homes["ann"], "cy")
    assert "appear once cy's is in the save." in text


@pytest.mark.heavy
def test_RDJ_V2_version_6_a_dropped_drawer_leaves_the_draw_to_the_order_of_play(
        tmp_path: Path) -> None:
    """cy withholds its open and is voted out (remedy end, the only one in the draft): cy's
    link never comes, so the chance is no longer the round's to draw; the entries after
    it draw it as any pending chance (PROTOCOL.md section 5), and the game ends verified."""
    homes, written = posse_until(tmp_path, opens_ahead)
    written = sign_as(homes["ann"], written.path)
    written = sign_as(homes["bob"], written.path)
    written = sign_as(homes["ann"], written.path, "absent", player="cy", remedy="end")
    assert written.table.pair_draw and written.table.gstate["pending"]
    written = sign_as(homes["bob"], written.path, "vote", vote="accept")
    assert 2 in written.table.dropped and written.table.stopped
    for _ in range(6):
        if written.table.duty() is None:
            break
        written = sign_duty(homes, written, "greedy")
    assert written.table.duty() is None and not written.table.gstate["pending"]
    verified_as_signed(written, tmp_path / "auditor")


@pytest.mark.heavy
def test_RDJ_V2_version_6_an_answer_before_the_opens_round_draws_with_the_last_pickers_open(
        tmp_path: Path) -> None:
    """bob proposes ann absent before anyone opens (no round under way: the proposal names
    the seat the game waits for). ann's answer, a lone open, must not draw the rest of
    set-up from cy's last pick and her own link, which she knew before keeping her last
    card (ann, past her patience, would have foreseen it whenever a proposal came before
    the others' opens): it begins the draw and publishes her link, and cy's open, the
    next, completes it."""
    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    written = sign_as(homes["bob"], written.path, "absent", player="ann", remedy="end")
    assert written.table.round_first < 0 and written.table.proposal.get("player") == 0
    written = sign_as(homes["ann"], written.path)
    assert "round" not in written.entry
    links = {"ann": written.entry["beacon"]}
    foreseen = drawn_alone(before, links["ann"])
    assert written.table.gstate["pending"], "ann's lone answer drew it from her own link"
    pending_for_all(homes, written.table)
    while written.table.gstate["pending"]:  # cy's open, alone (bob owed nothing more)
        written = sign_duty(homes, written, "greedy")
        links[written.entry["seat"]] = written.entry["beacon"]
    assert "cy" in links
    assert drawn(written.table.gstate) == expected_draw(before, links)
    assert drawn(written.table.gstate) != foreseen
    verified_as_signed(written, tmp_path / "auditor")


def both_withheld(tmp_path: Path) -> tuple[dict[str, Home], Table, session.Written]:
    """bob opens; ann and cy withhold theirs and bob proposes both absent in their slots
    (remedy end): ann's proposal open, cy's queued. (the homes, the table before the opens
    round, the save then)."""
    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    written = sign_as(homes["bob"], written.path)
    for withheld in ("ann", "cy"):
        written = sign_as(homes["bob"], written.path, "absent", player=withheld, remedy="end")
    assert written.table.proposal.get("player") == 0 and written.table.queue
    return homes, before, written


@pytest.mark.heavy
@pytest.mark.parametrize("order", [("cy", "ann"), ("ann", "cy")])
def test_RDJ_V2_version_6_both_drawing_seats_withheld_and_answered_draw_the_same(
        order: tuple[str, str], tmp_path: Path) -> None:
    """ann and cy both withhold their opens; bob proposes both absent in their slots. cy's
    proposal is queued behind ann's. Either answers first (docs/protocol-rounds.md: in any
    order among the withholders), each with its opens and no more. cy answering while
    ann's stands: its link must count all the same (it did not: the draw kept waiting for
    cy's link, already published, and the draft could never end). ann answering first, on
    top of her open proposal, was refused ("the next entry must be a turn by cy"): with
    cy's proposal then open no deck work was asked for, and the game named cy."""
    homes, before, written = both_withheld(tmp_path)
    links: dict[str, str] = {}
    for who in order:
        written = sign_as(homes[who], written.path)
        assert "round" not in written.entry and not written.entry["moves"]
        assert written.entry["chores"]
        links[who] = written.entry["beacon"]
        assert bool(written.table.gstate["pending"]) == (len(links) == 1)
        if len(links) == 1:  # the one answer voids its own proposal only; nothing drawn
            other = HANDLES.index(order[1])
            assert written.table.proposal.get("player") == other and not written.table.queue
            pending_for_all(homes, written.table)
    assert not written.table.gstate["pending"]
    assert drawn(written.table.gstate) == expected_draw(before, links)
    verified_as_signed(written, tmp_path / "auditor")


@pytest.mark.heavy
@pytest.mark.parametrize("kind", ["absent", "away"])
def test_RDJ_V2_version_6_the_last_pickers_work_waits_for_an_entry_with_its_link(
        kind: str, tmp_path: Path) -> None:
    """Before anyone opens, cy (the last picker) signs an entry out of the order of play:
    a proposal that ann is absent, or an away note. Such an entry carries no link, and it
    did cy's open: no round with cy was then formed, and ann's lone open drew the rest of
    set-up from cy's last pick and her own link, as in version 5, known to ann before her
    last choice. It now does no open there: cy's open, with its link, still draws."""
    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    written = (sign_as(homes["cy"], written.path, "absent", player="ann", remedy="end")
               if kind == "absent" else absentees.sign_absence(
                   homes["cy"], written.path, "away", {"away_until": soon()}, None))
    assert not written.entry.get("beacon")
    links: dict[str, str] = {}
    if kind == "absent":  # ann answers (bob, the one voter, would be asked first)
        written = sign_as(homes["ann"], written.path)
        links["ann"] = written.entry["beacon"]
    while written.table.gstate["pending"] and len(links) < 4:
        written = sign_duty(homes, written, "greedy")
        links.setdefault(written.entry["seat"], written.entry["beacon"])
    assert not written.table.gstate["pending"]
    foreseen = drawn_alone(before, links["ann"])
    assert drawn(written.table.gstate) != foreseen, "drawn as ann foresaw it"
    assert drawn(written.table.gstate) == expected_draw(before, links)
    verified_as_signed(written, tmp_path / "auditor")


@pytest.mark.heavy
def test_RDJ_V2_version_6_before_the_opens_round_nothing_tells_of_a_draw_that_will_not_be(
        tmp_path: Path) -> None:
    """Before the opens round, the mail said the next entry in the order of play shows the
    rest of set-up (no one entry draws it in version 6); and where bob proposed ann absent
    there, ann's preview (show, play: what she sees before signing her answer) showed the
    rest of set-up drawn from the last pick's link and her own, as version 5 drew it, but
    her answer draws nothing: an outcome the game never has."""
    homes, written = posse_until(tmp_path, opens_ahead)
    words = ("not shown yet: they are drawn from cy's and ann's entries of the round of "
             "secret-deck work together, and appear once cy's and ann's are in the save.")
    assert words in mail_text(written.path, homes["cy"], "ann")
    written = sign_as(homes["bob"], written.path, "absent", player="ann", remedy="end")
    assert written.table.proposal.get("player") == 0 and not written.table.pair_draw
    assert words in mail_text(written.path, homes["bob"], "cy")  # cy's vote is due
    pending_for_all(homes, written.table)
    written = sign_as(homes["ann"], written.path)
    assert written.table.gstate["pending"] and written.table.pair_draw


@pytest.mark.heavy
def test_RDJ_V2_resigning_in_the_opens_round_is_refused_in_true_words(tmp_path: Path) -> None:
    """'pbem resign' before or inside the opens round signed the resignation in the seat's
    slot, which the engine refuses: the refusal said 'the order of play names no round
    here', while it names one. It now says why, and nothing is written."""
    from click.testing import CliRunner

    from pbem.cli import main

    homes, written = posse_until(tmp_path, opens_ahead)
    for who in ("ann", "bob"):
        if who == "bob":
            written = sign_as(homes["ann"], written.path)
        before = sorted(written.path.parent.iterdir())
        result = CliRunner().invoke(main, ["--home", str(homes[who].path), "resign", "--yes",
                                           str(written.path)])
        text = " ".join(result.output.split())
        assert result.exit_code == 1 and "Traceback" not in text, text
        assert ("You cannot resign inside the round of ann, bob, cy (its entries are signed in "
                "parallel, each in its slot): sign your entry of the round first; you can "
                "resign on a turn of yours after it.") in text
        assert sorted(written.path.parent.iterdir()) == before


@pytest.mark.heavy
def test_RDJ_V2_a_resignation_before_the_opens_round_draws_nothing_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann's client, changed to sign her resignation in no slot before the opens round
    (with her open, as owed), drew the rest of set-up alone from cy's last pick's link and
    her own, the version 5 outcome she could work out before keeping her last card; the
    ranking her resignation leaves reads it (starting gold). The engine refuses it."""
    from pbem.errors import TurnError
    from pbem.protocol.replay import pairdraw

    homes, written = posse_until(tmp_path, opens_ahead)
    before = written.table
    with monkeypatch.context() as patched:  # the cheating client
        patched.setattr(signing, "_place_in_round", lambda *_: None)
        patched.setattr(pairdraw, "refuse_resign", lambda *_: None, raising=False)
        forged = session.sign_next(homes["ann"], written.path, "resign", [], None, None)
        assert "round" not in forged.entry and forged.entry["chores"]
        # what ann knew in advance
        assert drawn(forged.table.gstate) == drawn_alone(before, forged.entry["beacon"])
    with pytest.raises(TurnError) as refused:
        session.verify(savefile.read(forged.path), Home(tmp_path / "auditor"))
    assert "resigns before the round of secret-deck work" in refused.value.message


@pytest.mark.heavy
def test_RDJ_V2_version_6_a_withholders_answer_out_of_turn_does_its_work_and_no_more(
        tmp_path: Path) -> None:
    """ann answers first, on top of her open proposal while cy's is queued (the game names
    cy): her answer is let through out of the game's order only as the deck work her seat
    owes. Re-signed by ann with a move added, or with her work left out, it is refused;
    bob, proposed by nobody, signs no turn there."""
    homes, _, written = both_withheld(tmp_path)
    save = written.save
    answer = sign_as(homes["ann"], written.path).entry
    ann = homes["ann"].load()
    for altered, why in (({**answer, "moves": ["pass"]}, "carries moves"),
                         ({**answer, "chores": []}, "omits the secret-deck work")):
        with pytest.raises(PbemError, match=why):
            engine.replay(with_entries(save, [*save.entries, forge(altered, ann)]),
                          check_snapshot=False)
    bob = {**next_entry(save, homes["bob"], "turn"), "prev": answer["prev"]}  # the round's
    with pytest.raises(PbemError, match="must be by cy"):
        engine.replay(with_entries(save, [*save.entries, forge(bob, homes["bob"].load())]),
                      check_snapshot=False)

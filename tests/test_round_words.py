"""What pbem prints inside a round (docs/protocol-rounds.md): every statement of who acts
now names every seat still to sign in the round, not only the first of them; what a seat
owes (a reveal, a vote, a sealed step's commitment or opening) is said as what it is; and
each vote or confirm names the proposal it settles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem import registry, session
from pbem.cli import main
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import play_game, tick
from tests.test_reveal_rounds_many import make_homes, reveal_all, to_the_reveals


def committed_by_bob(homes: dict[str, Home], tmp_path: Path) -> Path:
    """Sealed Bids of ann, bob, cy at its first step; bob has committed to his bid."""
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    out = tmp_path / "bob.toml"
    session.sign_next(homes["bob"], start, None, ["bid 2"], None, str(out))
    return out


def cli(homes: dict[str, Home], handle: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--home", str(homes[handle].path), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_show_names_every_seat_still_to_sign_in_the_round(homes: dict[str, Home],
                                                          tmp_path: Path) -> None:
    """cy acts now as much as ann: show no longer says the turn is ann's alone."""
    path = committed_by_bob(homes, tmp_path)
    lines = cli(homes, "cy", "show", str(path)).splitlines()
    assert "Next: a turn by each of ann, cy  (you among them)" in lines
    (clock,) = [line for line in lines if line.startswith("To act: ")]
    assert clock.startswith("To act: ann, cy (a turn each, in parallel) since ")
    assert "; patience (7 days) runs out " in clock
    assert "Next: a turn by each of ann, cy" in cli(homes, "bob", "show", str(path))
    assert "(you among them)" not in cli(homes, "bob", "show", str(path))


def test_verify_names_every_seat_still_to_sign_in_the_round(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    path = committed_by_bob(homes, tmp_path)
    assert "Next: a turn by each of ann, cy.\n" in cli(homes, "cy", "verify", str(path))


def test_a_seat_away_in_the_round_gets_a_clock_line_of_its_own(homes: dict[str, Home],
                                                                tmp_path: Path) -> None:
    """Clocks that differ are not told as one: cy's away note, signed before the round,
    moves its clock alone."""
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    away = tmp_path / "away.toml"
    cli(homes, "cy", "away", str(start), "--until", "3d", "-o", str(away))
    lines = cli(homes, "bob", "show", str(away)).splitlines()
    clocks = [line for line in lines if line.startswith("To act: ")]
    assert len(clocks) == 2, lines
    assert clocks[0].startswith("To act: ann, bob (a turn each, in parallel) since ")
    assert clocks[1].startswith("To act: cy (turn) since ")
    assert "; away, so the clock counts from " in clocks[1]
    assert "Next: a turn by each of ann, bob, cy  (you among them)" in lines


def all_committed(homes: dict[str, Home], tmp_path: Path) -> Path:
    """Sealed Bids of ann, bob, cy: every seat committed (ann 4, bob 2, cy 1)."""
    path = committed_by_bob(homes, tmp_path)
    for handle, move in (("ann", "bid 4"), ("cy", "bid 1")):
        out = tmp_path / f"{handle}.toml"
        session.sign_next(homes[handle], path, None, [move], None, str(out))
        path = out
    return path


def test_moves_at_an_opening_lists_only_the_sealed_moves(homes: dict[str, Home],
                                                         tmp_path: Path) -> None:
    """An opening accepts only what the seat sealed: 'moves' lists that, not every bid."""
    path = all_committed(homes, tmp_path)
    assert cli(homes, "bob", "moves", str(path)).splitlines() == ["bid 2"]
    listed = json.loads(cli(homes, "bob", "moves", "--json", str(path)))
    assert listed == {"seat": "bob", "moves": ["bid 2"], "can_end_turn": False}
    assert cli(homes, "bob", "moves", str(path), "bid 2").splitlines() == \
        ["(the turn may end here)"]
    strayed = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "moves",
                                        str(path), "bid 3"])
    assert strayed.exit_code == 1
    assert strayed.output == ("pbem: These are not the moves you sealed in entry 5: a "
                              "sealed step's moves are opened exactly as they were "
                              "sealed.\n")


def test_absent_lists_remedies_for_any_seat_still_missing_in_the_round(tmp_path: Path
                                                                       ) -> None:
    """cy and eve withhold their reveals: 'absent SAVE eve' lists eve's remedies (the
    engine accepts a proposal in eve's slot), and one that revealed is refused in words
    naming the round's missing seats."""
    five = make_homes(tmp_path, 5)
    path = reveal_all(five, to_the_reveals(five, tmp_path / "saves"), ["ann", "bob", "dee"])
    tick(days=8)
    listed = cli(five, "bob", "absent", str(path), "eve")
    assert listed.startswith("Remedies open if eve is declared absent now (choose one "
                             "with --remedy; nothing was written):\n  end: eve ranks last")
    refused = CliRunner().invoke(main, ["--home", str(five["bob"].path), "absent",
                                        str(path), "dee"])
    assert refused.exit_code == 1
    assert refused.output == ("pbem: The round waits for cy, eve, not dee: only a seat "
                              "still missing in it can be declared absent (in its "
                              "slot).\n")


def test_a_seat_not_in_the_step_is_told_every_seat_that_plays_now(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann sits the step out; bob and cy bid in parallel: play names both, not bob alone."""
    from tests.test_simultaneous import HostSitsOut

    monkeypatch.setitem(registry._extra, "host-sits-out", HostSitsOut())
    start = play_game(homes, tmp_path / "s", game="host-sits-out", stop_after=4)[-1]
    refused = CliRunner().invoke(main, ["--home", str(homes["ann"].path), "play",
                                        str(start), "bid 1"])
    assert refused.exit_code == 1
    assert refused.output == ("pbem: It is the turn of each of bob, cy to play, not yours. "
                              "Send the save to bob, cy.\n")


def test_the_mail_title_names_every_seat_that_plays_in_the_round(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    """Every seat opens its sealed bid now: the mail's title says so, not 'ann to play'."""
    from pbem.mail import message

    path = all_committed(homes, tmp_path)
    mail = message.compose(path, homes["cy"], to=["bob@example.org"])
    (text,) = [part.get_content() for part in mail.walk()
               if part.get_content_type() == "text/plain"]
    title = text.splitlines()[0]
    assert title.startswith("Sealed Bids, game ") and \
        title.endswith(", entry 6: ann, bob, cy to play"), title


def test_remind_in_a_step_round_names_the_others_missing_also_to_the_first_of_them(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Nobody has committed in the step's round, a patience has passed: ann, the first
    seat missing, may remind bob and cy (before, the check read 'it waits for you' and
    reminded nobody, and named only the first seat missing to anyone else)."""
    from pbem.mail import reminders
    from pbem.protocol.saveformat import timing

    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    tick(days=8)
    found = reminders.check(homes["ann"], start, "ann", timing.now())
    assert found.due and found.who == "bob and cy"
    path = committed_by_bob(homes, tmp_path / "b")
    found = reminders.check(homes["bob"], path, "bob", timing.now())
    assert found.who == "ann and cy" and not found.due  # a new game: no patience run yet


def test_the_mail_to_a_seat_not_in_the_step_names_every_seat_that_plays(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann sits the step out; bob has bid, cy has not: a mail to ann says that bob and cy
    each play next (before, 'bob is to play next', the first of them alone)... once bob
    signed, only cy is missing, and the mail names cy alone."""
    from pbem.home.contacts import Contacts
    from pbem.mail import message
    from pbem.protocol.saveformat import savefile
    from tests.test_simultaneous import HostSitsOut

    monkeypatch.setitem(registry._extra, "host-sits-out", HostSitsOut())
    start = play_game(homes, tmp_path / "s", game="host-sits-out", stop_after=4)[-1]

    def body(path: Path, sender: str) -> str:
        """The words of the mail ``sender`` sends to each seat, as ann reads hers."""
        contacts = Contacts(homes[sender])
        contacts.check_save(savefile.read(path))
        for handle in ("ann", "bob", "cy"):
            if handle != sender:
                contacts.players[handle]["emails"] = [f"{handle}@example.org"]
        contacts.changed = True
        contacts.write()
        (mail,) = [m for m in message.compose_each(path, homes[sender])
                   if "ann@example.org" in str(m["To"])]
        (text,) = [part.get_content() for part in mail.walk()
                   if part.get_content_type() == "text/plain"]
        return " ".join(text.split())

    text = body(start, "bob")
    assert "bob and cy each play next. There is nothing for you to do now" in text
    out = tmp_path / "bob.toml"
    session.sign_next(homes["bob"], start, None, ["bid 1"], None, str(out))
    assert "cy is to play next. There is nothing for you to do now" in body(out, "bob")


def test_moves_where_only_the_final_reveal_is_owed_says_so(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    """A reveal is no turn: 'moves' names the reveal owed, in the prompt's words ('no
    choices left'), and how it is signed; the JSON keys stay as documented."""
    path = to_the_reveals(homes, tmp_path / "saves")
    for handle in homes:
        assert cli(homes, handle, "moves", str(path)) == (
            "(no choices left: your final reveal is owed; 'pbem play' signs it)\n")
    listed = json.loads(cli(homes, "cy", "moves", "--json", str(path)))
    assert listed == {"seat": "cy", "moves": [], "can_end_turn": True}


def test_moves_where_the_start_is_owed_says_so(homes: dict[str, Home],
                                               tmp_path: Path) -> None:
    joined = play_game(homes, tmp_path / "s", stop_after=3)[-1]
    assert cli(homes, "ann", "moves", str(joined)) == (
        "(no moves: the start is owed; 'pbem play' signs it)\n")


def two_proposed(tmp_path: Path) -> tuple[dict[str, Home], session.Written]:
    """Five seats; cy and eve withhold their reveals: bob proposes eve in her slot, ann
    cy in his, completing the round: ann's proposal opens (bob votes first), bob's waits."""
    from pbem.session import absentees

    five = make_homes(tmp_path, 5)
    path = reveal_all(five, to_the_reveals(five, tmp_path / "saves"), ["ann", "bob", "dee"])
    tick(days=8)
    path = absentees.sign_absence(five["bob"], path, "absent",
                                  {"player": "eve", "remedy": "end"}, None).path
    written = absentees.sign_absence(five["ann"], path, "absent",
                                     {"player": "cy", "remedy": "end"}, None)
    assert written.table.round_first < 0  # complete: ann's opens, bob's waits behind it
    return five, written


def test_moves_where_a_vote_or_an_answer_is_owed_says_so(tmp_path: Path) -> None:
    """bob owes his vote, eve (proposed, queued) may answer by revealing: 'moves' says
    what each owes (it raised an internal error, before that said the turn may end)."""
    five, written = two_proposed(tmp_path)
    assert cli(five, "bob", "moves", str(written.path)) == (
        "(no moves: your vote on the open proposal is owed; 'pbem vote SAVE accept' or "
        "'pbem vote SAVE refuse' signs it)\n")
    for handle in ("cy", "eve"):
        assert cli(five, handle, "moves", str(written.path)) == (
            "(no choices left: your final reveal is owed; 'pbem play' signs it)\n")


def test_log_names_the_proposal_each_vote_settles(tmp_path: Path) -> None:
    """A round's proposals open one after another: each vote line in 'log' says whose
    proposal it votes on, the seat it names, its entry and its remedy (bob's, queued
    behind ann's, is voted on in its turn)."""
    from pbem.session import absentees

    five, written = two_proposed(tmp_path)
    cy_seq, eve_seq = written.table.proposal["seq"], written.table.queue[0]["seq"]
    path = written.path
    for voter in ("bob", "dee", "dee", "ann"):
        path = absentees.sign_absence(five[voter], path, "vote", {"vote": "accept"},
                                      None).path
    lines = [line.strip() for line in cli(five, "ann", "log", str(path)).splitlines()]
    votes = [line for line in lines if " voted to " in line]
    assert votes == [
        f"bob voted to accept ann's proposal that cy is absent (entry {cy_seq}, remedy 'end').",
        f"dee voted to accept ann's proposal that cy is absent (entry {cy_seq}, remedy 'end').",
        f"dee voted to accept bob's proposal that eve is absent (entry {eve_seq}, remedy "
        "'end').",
        f"ann voted to accept bob's proposal that eve is absent (entry {eve_seq}, remedy "
        "'end')."]


def test_log_names_the_proposal_each_confirm_settles(tmp_path: Path) -> None:
    """cy fills both other slots; nobody votes, so cy confirms each in turn: each
    confirm line names the proposal it settles (the seat, the entry, the remedy)."""
    from tests.test_reveal_rounds_many import propose, settle

    three = make_homes(tmp_path, 3)
    path = reveal_all(three, to_the_reveals(three, tmp_path / "saves"), ["cy"])
    tick(days=8)
    seqs = []
    for player in ("ann", "bob"):
        written = propose(three, "cy", path, player)
        path, seqs = written.path, [*seqs, written.entry["seq"]]
    path = settle(three, path, "cy")
    lines = [line.strip() for line in cli(three, "cy", "log", str(path)).splitlines()]
    assert [line for line in lines if " confirmed " in line] == [
        f"cy confirmed the proposal that {player} is absent (entry {seq}, remedy 'end'), "
        "unanswered for a full patience." for player, seq in zip(("ann", "bob"), seqs,
                                                                strict=True)]


def plain_text(mail: object) -> str:
    (text,) = [part.get_content() for part in mail.walk()  # type: ignore[attr-defined]
               if part.get_content_type() == "text/plain"]
    return str(text)


def test_a_mail_to_addresses_typed_by_hand_names_every_seat_of_the_round(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Nobody knows who reads a mail sent to addresses given by hand: ann, first of the
    round, is not told it is 'the sender's' move alone, nor cy that it is ann's."""
    from pbem.mail import message

    path = committed_by_bob(homes, tmp_path)
    name = path.name
    for sender in ("ann", "bob", "cy"):
        text = plain_text(message.compose(path, homes[sender], to=["x@example.org"]))
        paragraphs = text.split("\n\n")
        assert paragraphs[2] == (
            f"It is the move of each of ann and cy, in parallel: save the attached {name} "
            f"and run\n    pbem play {name} MOVE ...\n('pbem moves {name}' lists what you "
            f"can play; 'pbem show {name}' shows the board.)"), (sender, text)
        tags = {"ann": " [next]", "bob": "", "cy": " [next]"}
        tags[sender] = " [sender, next]" if tags[sender] else " [sender]"
        assert "\nSeats: " + "; ".join(f"{h} (no address){tags[h]}" for h in tags) + ".\n" \
            in text


def test_a_mail_to_addresses_typed_by_hand_names_every_seat_still_to_reveal(
        homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem.mail import message

    path = reveal_all(homes, to_the_reveals(homes, tmp_path / "saves"), ["bob"])
    text = plain_text(message.compose(path, homes["bob"], to=["x@example.org"]))
    assert (f"\n\nThe game is over; ann and cy each reveal now, in parallel, for the final "
            f"audit:\n    pbem play {path.name}\n\n") in text


def prompted(homes: dict[str, Home], handle: str, path: Path, typed: str,
             monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """'pbem play SAVE' at a terminal (the prompt opens), ``typed`` read as its input."""
    import pbem.cli.play

    monkeypatch.setattr(pbem.cli.play, "_at_terminal", lambda: True)
    result = CliRunner().invoke(main, ["--home", str(homes[handle].path), "play", str(path),
                                       "-o", str(path.parent / "opened.toml")], input=typed)
    return result.exit_code, result.output.splitlines()


def test_the_prompt_at_an_opening_offers_only_the_moves_sealed(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob sealed 'bid 2': the prompt says it is his opening, lists that move alone,
    refuses another bid, and 'done' opens it."""
    path = all_committed(homes, tmp_path)
    code, lines = prompted(homes, "bob", path, "?\nbid 3\ndone\n", monkeypatch)
    assert code == 0, lines
    assert lines[0].endswith(": the opening of the moves you sealed in entry 5, "
                             "'bid 2' (bob).")
    assert lines[2:] == [
        "An opening carries exactly the moves sealed, and no other: 'done' opens them",
        "(signs the opening), 'show' the board, 'quit' leaves without writing.",
        "bob>   bid 2",
        "bob>   Not taken: you sealed 'bid 2' in entry 5, and an opening carries exactly "
        "those moves.",
        "Still to open: bid 2; 'done' opens them.",
        "bob>   bid 2",
        "turn by bob: bid 2",
        "  bob bid",
        f"Wrote {path.parent / 'opened.toml'}",
        "Send it to every other player: the sealed moves are opened in parallel ('pbem "
        "play' with no moves opens what this home sealed), and ann, cy still play."]


def test_the_prompt_at_an_opening_this_home_lost_says_to_type_the_same_moves(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    path = all_committed(homes, tmp_path)
    shutil.rmtree(homes["bob"].path / "sealed")
    code, lines = prompted(homes, "bob", path, "bid 3\ndone\n", monkeypatch)
    assert lines[0].endswith(": the opening of the moves you sealed in entry 5; this home "
                             "did not keep them, so type exactly those moves again: any "
                             "others are refused before anything is signed (bob).")
    assert code == 1 and lines[-1].endswith(
        "pbem: These are not the moves you sealed in entry 5: a sealed step's moves are "
        "opened exactly as they were sealed.")
    assert not (path.parent / "opened.toml").exists()


def test_sync_json_names_every_seat_past_patience_in_the_round(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    """Nobody has committed, a patience has passed: sync's ``past_patience`` keeps
    ``to_act`` a handle (the first seat missing, as the clock names it) and lists every
    seat still to sign in ``round_missing``; ann, one of them, is told it is hers too;
    the text line is grammatical."""
    from pbem.mail import sync
    from pbem.protocol.saveformat import timing

    play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)
    tick(days=8)
    (late,) = sync.remind_due(homes["ann"], None, "no SMTP server", timing.now())
    data = late.to_json()
    assert (data["to_act"], data["round_missing"], data["yours"]) == (
        "ann", ["ann", "bob", "cy"], True)
    assert late.text().endswith(": bob and cy are past patience since "
                                f"{late.found.past_shown()}; not reminded (no SMTP server).")


def test_inbox_json_lists_every_seat_still_to_sign_in_the_round(homes: dict[str, Home],
                                                               tmp_path: Path) -> None:
    path = committed_by_bob(homes, tmp_path)
    shown = json.loads(cli(homes, "bob", "inbox", "--no-file", "--json", str(path)))
    (game,) = shown["games"]
    assert (game["to_act"], game["round_missing"], game["your_move"]) == (
        "ann", ["ann", "cy"], False)
    assert "waiting for each of ann, cy (play)" in cli(homes, "bob", "inbox", "--no-file",
                                                       str(path))
    mine = json.loads(cli(homes, "cy", "inbox", "--no-file", "--json", str(path)))
    assert (mine["games"][0]["to_act"], mine["games"][0]["your_move"]) == ("cy", True)


def test_the_first_seat_missing_in_a_round_reminds_the_others(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    """ann is first of the round but not alone in it: her reminder goes to bob (To) and
    cy (Cc), the seats missing but hers (it was refused: 'The game waits for you')."""
    from pbem.mail import message

    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    for handle in ("bob", "cy"):
        cli(homes, "ann", "contacts", "email", handle, f"{handle}@example.org")
    tick(days=8)
    mail = message.compose(start, homes["ann"], cc=False, remind=True)
    assert (mail["To"], mail["Cc"]) == ("bob <bob@example.org>", "cy <cy@example.org>")
    text = plain_text(mail)
    assert text.startswith("Reminder: Sealed Bids, game ")
    assert "\n\nA reminder: this game has waited for bob and cy for 8 days, since " in text
    assert (" UTC (the signed time of the entry before the round, which made it their "
            "move).\n\n") in text


def test_a_mail_tells_a_commitment_and_an_opening_as_what_they_are(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A commitment carries no moves but did not just end a turn: the mail's history says
    the moves were sealed, and an opening that they were opened."""
    from pbem.mail import message

    path = all_committed(homes, tmp_path)
    opened = session.sign_next(homes["bob"], path, None, [], None, None).path
    text = plain_text(message.compose(opened, homes["bob"], to=["x@example.org"]))
    history = [line.strip() for line in text.split("\n\n")[1].splitlines()[1:]]
    assert history[-4:] == [
        "4  ann sealed their moves for the step (opened once every seat has sealed)",
        "5  bob sealed their moves for the step (opened once every seat has sealed)",
        "6  cy sealed their moves for the step (opened once every seat has sealed)",
        "8  bob opened the moves they sealed: bid 2"]


def test_the_prompt_at_a_commitment_says_the_moves_are_sealed(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    start = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=4)[-1]
    code, lines = prompted(homes, "bob", start, "bid 2\ndone\n", monkeypatch)
    assert code == 0, lines
    assert lines[0].endswith(": your sealed turn: the moves you type are committed, "
                             "hidden, and opened once every seat of the step has "
                             "committed (bob).")


def test_show_numbers_a_partial_rounds_entries_by_their_seqs(homes: dict[str, Home],
                                                             tmp_path: Path) -> None:
    """A save holding bob's entry of a round but not ann's lacks a seq: show's heading
    names the last entry's seq (it said one less, the count of entries), and --at takes
    seqs (the missing one was an internal error, KeyError, and the message said the save
    had every entry up to one it did not)."""
    path = committed_by_bob(homes, tmp_path)
    entries = savefile.read(path).entries
    bob = entries[-1]["seq"]
    assert [e["seq"] for e in entries][-2:] == [bob - 2, bob]  # ann's, before bob's, lacks
    assert cli(homes, "cy", "show", str(path)).startswith(
        f"Sealed Bids  game {savefile.read(path).game_id[:8]}  entry {bob}  phase ")
    at = cli(homes, "cy", "show", str(path), "--at", str(bob))
    assert f"  after entry {bob} (of {bob})  phase " in at.splitlines()[0]
    result = CliRunner().invoke(main, ["--home", str(homes["cy"].path), "show", str(path),
                                       "--at", str(bob - 1)])
    assert result.exit_code == 2, result.output
    assert (f"--at {bob - 1}: this save has entries 0 to {bob - 2} and {bob}; give one of "
            "them.") in result.output


def test_games_names_every_seat_still_to_sign_in_the_round(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    """bob's 'pbem games' said 'ann to play': cy signs now as much as ann."""
    path = committed_by_bob(homes, tmp_path)
    cli(homes, "cy", "verify", str(path))  # cy's home lists the game too
    first = cli(homes, "bob", "games").splitlines()[0]
    assert ": ann and cy each to play, waiting " in first
    (game,) = json.loads(cli(homes, "bob", "games", "--json"))["games"]
    assert (game["to_act"], game["round_missing"], game["your_move"]) == (
        "ann", ["ann", "cy"], False)
    assert ": you to play, waiting " in cli(homes, "cy", "games").splitlines()[0]
    (mine,) = json.loads(cli(homes, "cy", "games", "--json"))["games"]
    assert (mine["to_act"], mine["round_missing"], mine["your_move"]) == (
        "cy", ["ann", "cy"], True)


def test_verify_in_a_reveal_round_awaits_every_seat_still_to_reveal_now(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """bob has revealed: verify said '(awaiting ann now)', as if cy came after her."""
    path = reveal_all(homes, to_the_reveals(homes, tmp_path / "saves"), ["bob"])
    text = cli(homes, "bob", "verify", str(path))
    assert ("The game is over; the audit is pending until ann, cy reveal (awaiting each "
            "of ann, cy now, in parallel).\n") in text
    assert "(awaiting ann now)" not in text

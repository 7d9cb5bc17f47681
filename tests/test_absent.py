"""Absent players (PROTOCOL.md section 11; issue 11 "Absent players").

A seat the game waits for may be proposed absent by any other seat; the others vote in
seat order after the proposer; one refusal voids it; the last acceptance puts the remedy
into effect: ``end`` (the game stops, the absent seat ranks last) or ``bot`` (its turns
are played by the deterministic bot, recomputed by every verifier). These tests drive
the engine through pbem.session with one home per player; tests/test_absent_cli.py plays
the three real games through the command line.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import SaveFileError, TurnError
from pbem.game import rank_with_tiebreaks
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge, next_entry, play_game, sign_as, tick, with_entries


def players(tmp_path: Path, *handles: str) -> dict[str, Home]:
    """A home with an identity for each handle (the ``homes`` fixture has three)."""
    made = {}
    for handle in handles:
        made[handle] = Home(tmp_path / "homes" / handle)
        made[handle].keygen(handle)
    return made


def fresh(tmp_path: Path, name: str = "viewer") -> Home:
    return Home(tmp_path / name)


def waiting_for(path: Path) -> tuple[str, str]:
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None
    return table.seats[duty.seat].handle, duty.kind


def started(homes: dict[str, Home], tmp_path: Path, entries: int = 7,
            options: list[str] | None = None) -> Path:
    """A dice race well under way (the target is out of reach in so few entries)."""
    opts = options or ["target=1000"]
    return play_game(homes, tmp_path / "saves", options=opts, stop_after=entries)[-1]


def propose(homes: dict[str, Home], path: Path, remedy: str) -> tuple[str, str, Path]:
    """The seat after the one the game waits for proposes it absent: (absent, proposer,
    the proposal's save)."""
    absent, kind = waiting_for(path)
    assert kind == "turn"
    handles = list(homes)
    proposer = handles[(handles.index(absent) + 1) % len(handles)]
    written = sign_as(homes[proposer], path, "absent", player=absent, remedy=remedy)
    return absent, proposer, written.path


def vote_all(homes: dict[str, Home], path: Path, choice: str = "accept") -> Path:
    """Every vote due, in the order the proposal asks for them."""
    while True:
        handle, kind = waiting_for(path)
        if kind != "vote":
            return path
        path = sign_as(homes[handle], path, "vote", vote=choice).path


def play_to_end(homes: dict[str, Home], path: Path, limit: int = 2000) -> Path:
    for _ in range(limit):
        duty = session.load(path, None).table.duty()
        if duty is None:
            return path
        handle = session.load(path, None).table.seats[duty.seat].handle
        path = sign_as(homes[handle], path).path
    raise AssertionError("the game did not end")


# ---- the remedies -------------------------------------------------------------------------
def test_bot_remedy_accepted_runs_to_a_verified_end(homes: dict[str, Home],
                                                    tmp_path: Path) -> None:
    path = started(homes, tmp_path, options=["target=12"])
    absent, proposer, path = propose(homes, path, "bot")
    state = session.load(path, None).save.state
    assert state["phase"] == "voting" and state["proposal"]["player"] == absent
    path = vote_all(homes, path)
    after_remedy = len(savefile.read(path).entries)
    path = play_to_end(homes, path)
    save = savefile.read(path)
    later = save.entries[after_remedy:]
    assert all(e["seat"] != absent for e in later), "the absent seat never signs again"
    bot_turns = [t for e in later for t in e.get("bot", [])]
    assert bot_turns and all(t["seat"] == absent for t in bot_turns)
    report = session.verify(save, fresh(tmp_path), full=True).report
    assert report.audit == "clean" and report.outcome is not None
    assert report.unaudited == [f"{absent}'s secrets were not audited ({absent} was played "
                                f"by the bot and never revealed): {absent}'s beacon chain "
                                "stays unchecked."]  # a dice race: no secret deck
    assert absent not in [e["seat"] for e in save.entries if e["kind"] == "reveal"]
    assert save.state["absent"] == {absent: "bot"}


def test_end_remedy_ranks_the_absent_seat_last(homes: dict[str, Home], tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    absent, proposer, path = propose(homes, path, "end")
    path = vote_all(homes, path)
    verified = session.load(path, None)
    assert verified.table.over() and verified.table.stopped
    assert waiting_for(path)[1] == "reveal"
    path = play_to_end(homes, path)
    save = savefile.read(path)
    assert [e["kind"] for e in save.entries[-2:]] == ["reveal", "reveal"]
    assert absent not in [e["seat"] for e in save.entries if e["kind"] == "reveal"]
    report = session.verify(save, fresh(tmp_path), full=True).report
    assert report.audit == "clean"
    assert report.outcome is not None
    seat = report.table.seat_of(absent)
    assert report.outcome.ranking[-1] == [seat]
    assert absent in report.outcome.notes[0] and "ranks last" in report.outcome.notes[0]
    # The others are ranked by the game's own scoring of the position when it stopped.
    scores = {s: v for s, v in enumerate(report.table.gstate["score"]) if s != seat}
    assert report.outcome.ranking[:-1] == rank_with_tiebreaks(scores, {})
    assert report.outcome.scores[seat] == report.table.gstate["score"][seat]


def test_a_refusal_voids_the_proposal_and_the_game_waits_again(homes: dict[str, Home],
                                                                tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    absent, proposer, path = propose(homes, path, "end")
    path = vote_all(homes, path, "refuse")
    assert waiting_for(path) == (absent, "turn")
    assert "proposal" not in savefile.read(path).state
    path = sign_as(homes[absent], path).path  # the absent player plays on as usual
    assert session.verify(savefile.read(path), fresh(tmp_path), full=True).report.audit == "pending"


def test_four_seats_vote_in_seat_order_after_the_proposer(tmp_path: Path) -> None:
    homes = players(tmp_path, "ann", "bob", "cy", "dan")
    path = started(homes, tmp_path, entries=9)
    absent, kind = waiting_for(path)
    handles = list(homes)
    proposer = handles[(handles.index(absent) + 2) % 4]  # not the seat right after
    path = sign_as(homes[proposer], path, "absent", player=absent, remedy="bot").path
    order = []
    while waiting_for(path)[1] == "vote":
        handle = waiting_for(path)[0]
        order.append(handle)
        path = sign_as(homes[handle], path, "vote", vote="accept").path
    start = handles.index(proposer)
    expected = [handles[(start + i) % 4] for i in range(1, 4)]
    assert order == [h for h in expected if h != absent]
    assert session.load(path, None).table.bots == [handles.index(absent)]


def test_nobody_left_to_vote_needs_a_confirm_one_patience_later(tmp_path: Path) -> None:
    """PROTOCOL.md section 11 (revised): with nobody else to vote, the proposal alone
    puts nothing into effect (it once did, seconds into the other's turn); the proposer's
    confirm does, one patience after it, if the absent seat has not answered."""
    homes = players(tmp_path, "ann", "bob")
    path = started(homes, tmp_path, entries=6)
    absent, _ = waiting_for(path)
    other = next(h for h in homes if h != absent)
    # Two players: 'bot' is not offered (one player would sign on both sides of it).
    with pytest.raises(TurnError, match="two other players"):
        sign_as(homes[other], path, "absent", player=absent, remedy="bot")
    written = sign_as(homes[other], path, "absent", player=absent, remedy="end")
    assert not written.table.stopped and not written.table.dropped
    assert written.table.proposal and waiting_for(written.path) == (absent, "turn")
    tick(days=6, hours=23)
    with pytest.raises(TurnError, match="one patience"):
        sign_as(homes[other], written.path, "confirm")
    tick(hours=1)
    confirmed = sign_as(homes[other], written.path, "confirm")
    assert confirmed.table.stopped and confirmed.table.dropped == [list(homes).index(absent)]


def test_a_seat_that_withholds_its_reveal_can_be_declared_absent(homes: dict[str, Home],
                                                                  tmp_path: Path) -> None:
    path = started(homes, tmp_path, entries=5, options=["target=6"])
    while waiting_for(path)[1] != "reveal":
        path = sign_as(homes[waiting_for(path)[0]], path).path
    withholder, _ = waiting_for(path)
    other = next(h for h in homes if h != withholder)
    with pytest.raises(TurnError, match="only 'end'"):
        sign_as(homes[other], path, "absent", player=withholder, remedy="bot")
    path = sign_as(homes[other], path, "absent", player=withholder, remedy="end").path
    path = vote_all(homes, path)
    path = play_to_end(homes, path)
    report = session.verify(savefile.read(path), fresh(tmp_path), full=True).report
    assert report.audit == "clean" and report.outcome is not None
    assert report.outcome.ranking[-1] == [report.table.seat_of(withholder)]
    assert "withheld the final reveal" in report.outcome.notes[0]
    assert withholder in report.unaudited[0]


# ---- the absent player comes back -----------------------------------------------------------
def test_absent_player_returning_mid_vote_makes_a_branch_the_rule_chooses(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """The absent player plays on the save from before the proposal, no earlier than the
    proposal's signed time: a branch, not a fork, and by the rule of PROTOCOL.md section
    11 the proposal's branch is the game's (an answer wins only if signed earlier)."""
    from pbem.errors import TurnError

    base = started(homes, tmp_path)
    absent, proposer, proposal = propose(homes, base, "end")
    voter = waiting_for(proposal)[0]
    back = session.sign_next(homes[absent], base, None, ["roll"], None,
                             str(tmp_path / "back.toml")).path
    for path in (proposal, back):
        assert session.verify(savefile.read(path), fresh(tmp_path, path.stem),
                              full=True).report.table
    # A home that sees both says so plainly, whichever it sees first, and the same way.
    session.load(proposal, homes[voter])
    seen = session.load(back, homes[voter])
    assert len(seen.branches) == 1
    assert f"a turn by {absent}" in seen.branches[0]
    assert f"an absent proposal by {proposer}" in seen.branches[0]
    assert "The other branch is the game's" in seen.branches[0] and seen.void
    again = session.load(proposal, homes[voter])
    assert again.branches and not again.stale and not again.void
    assert "This save's branch is the game's" in again.branches[0]
    from click.testing import CliRunner

    from pbem.cli import main

    shown = CliRunner().invoke(main, ["--home", str(homes[voter].path), "verify", str(back)])
    assert shown.exit_code == 0 and "Two branches after entry" in shown.output
    # The proposal's branch goes on; nothing is signed on the void one.
    voted = sign_as(homes[voter], proposal, "vote", vote="accept").path
    assert session.load(voted, homes[voter]).table.dropped
    with pytest.raises(TurnError) as refused:
        sign_as(homes[voter], back)
    assert refused.value.code == "void"


def test_two_turns_by_the_returning_player_are_still_a_fork(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    """A branch does not hide equivocation: the archive checks every entry that follows."""
    from pbem.errors import IntegrityError

    base = started(homes, tmp_path)
    absent, proposer, proposal = propose(homes, base, "end")
    viewer = homes[proposer]
    table = session.load(base, None).table
    first = session.sign_next(homes[absent], base, None, ["roll"], None,
                              str(tmp_path / "roll.toml")).path
    entry, new_table = signing.sign_entry(table, homes[absent].load(), "turn", ["pass"])
    other = tmp_path / "pass.toml"
    other.write_text(savefile.dumps(session.appended(savefile.read(base), entry, new_table)))
    session.load(first, viewer)
    with pytest.raises(IntegrityError) as info:
        session.load(other, viewer)
    assert info.value.code == "fork"


def test_inbox_reports_both_branches(homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem.mail import inbox

    base = started(homes, tmp_path)
    absent, proposer, proposal = propose(homes, base, "end")
    back = session.sign_next(homes[absent], base, None, ["roll"], None,
                             str(tmp_path / "back.toml")).path
    voter = waiting_for(proposal)[0]
    report = inbox.scan([str(proposal), str(back)], homes[voter], file_saves=False)
    branches = [p for p in report.problems if p.code == "branch"]
    assert len(branches) == 1 and branches[0].level == "note"
    assert "Two branches" in branches[0].message
    assert report.exit_code() == 0


# ---- what a cheater could send instead ----------------------------------------------------------
def refused(save: savefile.Save, code: str) -> TurnError:
    with pytest.raises(TurnError) as info:
        engine.replay(save, check_snapshot=False)
    assert info.value.code == code, info.value.message
    return info.value


def extended(path: Path, entry: dict) -> savefile.Save:
    save = savefile.read(path)
    return with_entries(save, save.entries + [entry])


def test_a_vote_by_the_absent_seat_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    absent, proposer, path = propose(homes, path, "end")
    save = savefile.read(path)
    error = refused(extended(path, next_entry(save, homes[absent], "vote", vote="refuse")),
                    "vote")
    assert "proposed absent" in error.message


def test_a_vote_out_of_order_is_refused(tmp_path: Path) -> None:
    homes = players(tmp_path, "ann", "bob", "cy", "dan")
    path = started(homes, tmp_path, entries=9)
    absent, _ = waiting_for(path)
    handles = list(homes)
    proposer = handles[(handles.index(absent) + 1) % 4]
    path = sign_as(homes[proposer], path, "absent", player=absent, remedy="end").path
    due = waiting_for(path)[0]
    later = next(h for h in handles if h not in (absent, proposer, due))
    error = refused(extended(path, next_entry(savefile.read(path), homes[later], "vote",
                                              vote="accept")), "vote")
    assert f"the next vote is {due}'s" in error.message
    # and a second proposal while one is open
    refused(extended(path, next_entry(savefile.read(path), homes[due], "absent",
                                      player=absent, remedy="bot")), "absent")


def test_a_proposal_naming_a_seat_that_is_not_to_act_is_refused(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    waiting, _ = waiting_for(path)
    others = [h for h in homes if h != waiting]
    forged = next_entry(savefile.read(path), homes[others[0]], "absent", player=others[1],
                        remedy="end")
    error = refused(extended(path, forged), "absent")
    assert f"waits for {waiting}" in error.message
    with pytest.raises(TurnError, match=f"waits for {waiting}"):
        sign_as(homes[others[0]], path, "absent", player=others[1], remedy="end")
    # nor may a player declare themselves absent
    with pytest.raises(TurnError):
        sign_as(homes[waiting], path, "absent", player=waiting, remedy="end")


def test_a_remedy_the_game_does_not_offer_is_refused(tmp_path: Path) -> None:
    homes = players(tmp_path, "ann", "bob")
    path = started(homes, tmp_path, entries=6)
    absent, _ = waiting_for(path)
    other = next(h for h in homes if h != absent)
    forged = next_entry(savefile.read(path), homes[other], "absent", player=absent,
                        remedy="bot")
    error = refused(extended(path, forged), "remedy")
    assert "two other players" in error.message


def bot_game(homes: dict[str, Home], tmp_path: Path) -> tuple[str, Path]:
    """A dice race in which one seat is played by the bot; the save just after the second
    entry that played a bot turn (so the entry before it is a player's own turn)."""
    path = started(homes, tmp_path)
    absent, _, path = propose(homes, path, "bot")
    path = vote_all(homes, path)
    seen = 0
    for _ in range(12):
        handle = waiting_for(path)[0]
        path = sign_as(homes[handle], path).path
        seen += bool(savefile.read(path).entries[-1].get("bot"))
        if seen == 2:
            return absent, path
    raise AssertionError("the bot did not play twice")


def test_a_bot_move_other_than_the_bots_choice_is_refused(homes: dict[str, Home],
                                                          tmp_path: Path) -> None:
    absent, path = bot_game(homes, tmp_path)
    save = savefile.read(path)
    entry = save.entries[-1]
    signer = homes[entry["seat"]].load()
    played = entry["bot"][0]["moves"]
    other = ["pass"] if played != ["pass"] else ["roll"]
    changed = forge(dict(entry, bot=[{"seat": absent, "moves": other}]), signer)
    error = refused(with_entries(save, save.entries[:-1] + [changed]), "bot-move")
    assert "the bot plays" in error.message
    dropped = forge({k: v for k, v in entry.items() if k != "bot"}, signer)
    refused(with_entries(save, save.entries[:-1] + [dropped]), "bot-move")
    # A bot turn listed where none falls to the signer: a player's own turn, a vote.
    prior = save.entries[-2]
    assert prior["kind"] == "turn" and not prior.get("bot")
    extra = forge(dict(prior, bot=[{"seat": absent, "moves": ["pass"]}]),
                  homes[prior["seat"]].load())
    refused(with_entries(save, save.entries[:-2] + [extra]), "bot-move")
    at = next(i for i, e in enumerate(save.entries) if e["kind"] == "vote")
    vote = forge(dict(save.entries[at], bot=[{"seat": absent, "moves": ["pass"]}]),
                 homes[save.entries[at]["seat"]].load())
    forged = with_entries(save, save.entries[:at] + [vote])
    refused(forged, "bot-move")
    with pytest.raises(SaveFileError, match="bot turns"):  # the save file says so first
        savefile.parse(savefile.dumps(forged))


def test_the_absent_seat_cannot_sign_after_the_remedy(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    absent, _, path = propose(homes, path, "bot")
    path = vote_all(homes, path)
    forged = next_entry(savefile.read(path), homes[absent], "turn", ["pass"])
    with pytest.raises(TurnError):
        engine.replay(extended(path, forged), check_snapshot=False)
    with pytest.raises(TurnError):
        session.sign_next(homes[absent], path, None, ["pass"], None, None)


def test_absent_and_vote_entries_resolve_no_chance(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    """A proposer must not get the chance waiting for the absent seat resolved with its
    own link (it could choose between two outcomes by proposing or not)."""
    path = started(homes, tmp_path)
    before = session.load(path, None).table.gstate
    absent, _, proposal = propose(homes, path, "end")
    assert session.load(proposal, None).table.gstate == before
    refused_path = vote_all(homes, proposal, "refuse")
    table = session.load(refused_path, None).table
    assert table.gstate == before
    # ... and the absent player, back, resolves it with its own link as if nothing happened.
    back = signing.preview(table, homes[absent].load()).gstate
    direct = signing.preview(session.load(path, None).table, homes[absent].load()).gstate
    assert back == direct


def test_the_bot_is_a_pure_function_of_the_public_state(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    from pbem import registry
    from pbem.game import work_out_steady_turn

    for name in ("red-dog-junction", "station-to-station", "road-master"):
        game = registry.load(name)
        paths = play_game(homes, tmp_path / name, game=name, bot="greedy", stop_after=9)
        table = session.load(paths[-1], None).table
        seat = game.to_act(table.gstate)
        assert seat is not None
        state = copy.deepcopy(table.gstate)
        moves = game.absent_turn(state, seat)
        assert state == table.gstate, "the bot does not change the state it is given"
        assert moves and moves == game.absent_turn(copy.deepcopy(table.gstate), seat)
        # The second call above is remembered (pbem.game._STEADY_MEMO): work it out afresh,
        # and a caller changing the list it got changes nothing remembered.
        assert moves == work_out_steady_turn(game, copy.deepcopy(table.gstate), seat)
        moves.append("pass")
        assert game.absent_turn(copy.deepcopy(table.gstate), seat) == moves[:-1]


def test_the_bot_tells_positions_apart_as_their_whole_states_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The steady and greedy bots tell a turn's positions apart with the state's Fixed
    tables standing in by identity (pbem.game.position_key), not written out. Over the
    positions one move from each of a few turns' states, two keys are equal exactly when
    the whole states' keys are, and each bot plays the turns it plays with whole-state
    keys."""
    from pbem import game as contract
    from pbem import registry
    from pbem.game import Fixed, copy_state, work_out_steady_turn
    from pbem.play import bots
    from pbem.play.local import LocalTable

    for name in ("red-dog-junction", "station-to-station", "road-master"):
        game = registry.load(name)
        table = LocalTable(game, ["ann", "bob", "cy"], seed=b"positions")
        assert any(isinstance(v, Fixed) for v in table.state.values()), name
        for _ in range(3):
            table.prepare()
            seat = table.to_act()
            assert seat is not None
            positions = [table.state]
            for move in game.legal_moves(table.state, seat)[:12]:
                trial = copy_state(table.state)
                game.apply(trial, seat, move)
                positions.append(trial)
            keys = [(contract.position_key(p), contract._state_key(p)) for p in positions]
            for first in keys:
                for second in keys:
                    assert (first[0] == second[0]) == (first[1] == second[1]), name
            moves = work_out_steady_turn(game, table.state, seat)
            greedy = bots.choose_turn(game, table.state, seat, "greedy:keys")
            with monkeypatch.context() as patched:
                patched.setattr(contract, "position_key", contract._state_key)
                patched.setattr(bots, "position_key", contract._state_key)
                assert moves == work_out_steady_turn(game, table.state, seat), name
                assert greedy == bots.choose_turn(game, table.state, seat, "greedy:keys"), name
            table.play(greedy)


def test_malformed_absence_fields_are_malformed_saves(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    path = started(homes, tmp_path)
    absent, proposer, path = propose(homes, path, "end")
    text = path.read_text()
    for old, new in (('remedy = "end"', 'remedy = "exile"'), ('remedy = "end"', "remedy = 1"),
                     (f'player = "{absent}"', 'player = "Bob Smith"')):
        with pytest.raises(SaveFileError):
            savefile.parse(text.replace(old, new))


def test_after_a_stop_a_seat_withholding_its_reveal_ranks_last_too(tmp_path: Path) -> None:
    homes = players(tmp_path, "ann", "bob", "cy", "dan")
    path = started(homes, tmp_path, entries=9)
    absent, proposer, path = propose(homes, path, "end")
    path = vote_all(homes, path)
    withholder, kind = waiting_for(path)
    assert kind == "reveal" and withholder != absent
    other = next(h for h in homes if h not in (absent, withholder))
    path = sign_as(homes[other], path, "absent", player=withholder, remedy="end").path
    path = vote_all(homes, path)
    path = play_to_end(homes, path)
    report = session.verify(savefile.read(path), fresh(tmp_path), full=True).report
    assert report.audit == "clean" and report.outcome is not None
    seats = sorted(report.table.seat_of(h) or 0 for h in (absent, withholder))
    assert report.outcome.ranking[-1] == seats
    assert len(report.unaudited) == 2
    assert any("withheld the final reveal" in n for n in report.outcome.notes)


def test_play_bot_steady_is_the_absent_players_bot(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    from pbem import registry
    from pbem.play import bots

    game = registry.load("station-to-station")
    path = play_game(homes, tmp_path / "sts", game="station-to-station", bot="greedy",
                     stop_after=8)[-1]
    table = session.load(path, None).table
    seat = game.to_act(table.gstate)
    assert seat is not None
    assert bots.choose_turn(game, table.gstate, seat, "steady") == \
        game.absent_turn(copy.deepcopy(table.gstate), seat)


def test_mail_tells_proposals_votes_and_bot_turns() -> None:
    from pbem.mail.message import describe_entry

    assert describe_entry({"seat": "ann", "kind": "absent", "moves": [], "player": "bob",
                           "remedy": "bot"}) == "ann proposed that bob is absent (remedy bot)"
    assert describe_entry({"seat": "cy", "kind": "vote", "moves": [], "vote": "refuse"}) == \
        "cy voted to refuse the proposal"
    line = describe_entry({"seat": "cy", "kind": "turn", "moves": ["roll"],
                           "bot": [{"seat": "bob", "moves": ["pass"]}]})
    assert line == "cy played bob's turn for the bot (pass), then played: roll"

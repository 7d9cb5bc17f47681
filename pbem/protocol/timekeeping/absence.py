"""Absent players (PROTOCOL.md section 11): proposals, votes, remedies, the bot's turns.

A seat X that stops answering must not stop the game. While X is to act (a turn, or its
final reveal), any other seat still played by a person may sign an ``absent`` entry
(fields ``player``: X's handle, ``remedy``: ``end`` or ``bot``). Every other such seat then
signs a ``vote`` entry (field ``vote``: ``accept`` or ``refuse``) in seat order after the
proposer, skipping X. One refusal voids the proposal and the game waits for X again; the
last acceptance puts the remedy into effect in that same entry. With nobody left to vote
(two players, or the others played by the bot) the proposer signs a ``confirm`` entry at
least one patience after the proposal, and that puts it into effect. A vote not signed
within a patience of falling due is passed over, counted as an acceptance: by the next
voter's vote, or after the last one by a ``confirm`` (the proposer's or an accepting
seat's), so a silent voter cannot stop the game for good either (:func:`vote_deadlines`).

The game clock (pbem.protocol.timekeeping.clock): a proposal is valid only once X's patience has run
from the entry that made X to act (its clock stops while X is away, ``away_until`` notes),
and one patience after the last proposal against X or its refusal. X answers a proposal
by signing its turn or reveal on top of it, which voids it. All of this compares signed
times only, so every verifier agrees.

* ``end``: the game stops. X ranks last; the others are ranked by the rules' own
  end-of-game scoring applied to the position (``Game.score_now``), after the remaining
  seats have revealed as usual. X never reveals: the audit covers every seat that
  reveals and lists X's secrets as unaudited. A seat that withholds its final reveal is
  declared absent the same way (in the revealing phase only ``end`` is offered).
* ``bot``: X's turns are played by the rules' deterministic bot (``Game.absent_turn``,
  a pure function of the public state), each inside the entry of the seat that signs
  next after X (the next seat in seat order still played by a person), before that
  seat's own moves, and listed in the entry's ``bot`` field; every verifier recomputes
  them and refuses any other. X never reveals.

Choices made here, and why:

* ``absent`` and ``vote`` entries resolve no chance and play no bot turn. If the proposal
  resolved the chance waiting for X, a proposer (who knows its own next link) could pick
  between that outcome and the one X's link will give, simply by proposing or not.
* The chance of a bot turn is drawn from ``beacon.bot_sampler``: the signer's own link
  in that entry and the newest link before it by another seat (Table.link_before), so
  the signer could not compute it before that entry was signed (with a link of its own
  there, it could: it would open its sealed moves last and foresee what the bot's turn
  draws), and that entry's signer cannot compute it at all.
* ``bot`` needs two seats besides X still played by people: with only one, the same seat
  would sign on both sides of every bot turn and could foresee its chance.
* What is left (docs/protocol-beacon.md, "A remedy moves the resolver"): a remedy hands
  the chance waiting for X to another seat's link (the bot's signer's, whose entry also
  draws the bot's first turns; after ``end``, the first reveal's by a seat that did not
  queue it). If that seat proposed, voted or confirmed, it could compute those outcomes
  first, and choose between the two remedies and waiting, which hands the game back to
  X (or to the voters still due). In a game of three every seat left decides, so only a
  draw from two seats' links published after the decision would close it.
"""

from __future__ import annotations

import datetime
from typing import Any

from pbem.errors import TurnError
from pbem.game import Outcome, copy_state
from pbem.protocol.crypto import beacon
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import REMEDIES, Entry
from pbem.protocol.state.table import Table, bot_signer, people, silent
from pbem.protocol.state.turns import play_turn
from pbem.protocol.timekeeping import clock

# The entries of this module: no moves, no chance resolved, no bot turn.
KINDS = ("absent", "vote", "confirm", "away")
# The kinds a seat may sign while the game waits for another seat (the seat proposed
# absent answers with its own turn or reveal; a later voter votes once the votes before its
# own are passed over). The step checks each kind's own rule (check_vote and the others).
OUT_OF_TURN = ("absent", "vote", "confirm", "away")

# More bot turns than this inside one entry means a game whose turns never come back to
# a person: a bug, refused rather than looping.
MAX_BOT_TURNS = 64


def voters(table: Table, proposer: int, seat: int) -> list[int]:
    """Who votes on a proposal by ``proposer`` that ``seat`` is absent, in order."""
    n = len(table.seats)
    gone = silent(table) | {seat}
    return [(proposer + i) % n for i in range(1, n) if (proposer + i) % n not in gone]


def offered(table: Table, seat: int) -> dict[str, str]:
    """The remedies open now if ``seat`` is declared absent, each with what it means, as
    people will read it before they vote."""
    handle = table.seats[seat].handle
    title = table.game.info.title
    duty = table.duty()
    if duty is not None and duty.kind == "reveal":
        return {"end": (f"{handle} ranks last for withholding the final reveal; the others "
                        f"are ranked by {title}'s final scoring and the audit lists "
                        f"{handle}'s secrets as unaudited.")}
    from_game = table.game.remedies(table.gstate, seat)
    out: dict[str, str] = {}
    others = [s for s in people(table) if s != seat]
    for name in REMEDIES:
        if name not in from_game:
            continue
        extra = f" {from_game[name]}" if from_game[name] else ""
        if name == "end":
            out[name] = (f"The game ends now: {handle} ranks last; the others are ranked by "
                         f"{title}'s end-of-game scoring applied to the position now, after "
                         f"they reveal as usual; {handle}'s secrets stay unaudited.{extra}")
        elif len(others) >= 2:
            signer = table.seats[bot_signer(table, seat)].handle
            out[name] = (f"{handle}'s turns are played from now on by the rules' "
                         "deterministic bot (it sees only the public game), each signed by "
                         f"{signer} before {signer}'s own turn; {handle} never reveals, so "
                         f"{handle}'s secrets stay unaudited.{extra}")
    return out


def not_offered(table: Table, seat: int, remedy: str) -> str:
    """Why ``remedy`` is not open for ``seat`` now, in a sentence."""
    duty = table.duty()
    title = table.game.info.title
    if duty is not None and duty.kind == "reveal":
        return "The game is over and waits for a final reveal: only 'end' is possible."
    if remedy == "bot" and "bot" in table.game.remedies(table.gstate, seat):
        return ("'bot' needs two other players still playing: with one, that player would "
                "sign on both sides of every bot turn and could foresee its chance.")
    return f"{title} does not offer '{remedy}' now."


# ---- entries -----------------------------------------------------------------------------
def check_proposal(table: Table, seat: int, entry: Entry) -> int:
    """The seat an ``absent`` entry by ``seat`` names, once the proposal is allowed."""
    seq, handle = entry["seq"], table.seats[seat].handle
    duty = table.duty()
    if table.proposal:
        named = table.seats[table.proposal["player"]].handle
        raise TurnError(f"Entry {seq} ({handle}) proposes a player absent while the proposal "
                        f"that {named} is absent is still open (votes or its confirm due).",
                        seq=seq, code="absent")
    if duty is None or duty.kind not in ("turn", "reveal"):
        raise TurnError(f"Entry {seq} ({handle}) proposes a player absent, but nobody can be "
                        "declared absent before the game has started or after it is complete.",
                        seq=seq, code="absent")
    target = table.seat_of(entry["player"])
    if target is None:
        raise TurnError(f"Entry {seq} ({handle}) names '{entry['player']}', who has no seat "
                        "in this game.", seq=seq, code="absent")
    waiting = table.seats[duty.seat].handle
    if target != duty.seat and "round" not in entry:  # in a round: its slot (engine)
        raise TurnError(f"Entry {seq} ({handle}) declares {entry['player']} absent, but the "
                        f"game waits for {waiting}, not {entry['player']}: only the player "
                        "the game waits for can be declared absent.", seq=seq, code="absent")
    if seat == target:
        raise TurnError(f"Entry {seq}: {handle} cannot declare themselves absent; "
                        "'pbem resign' concedes.", seq=seq, code="absent")
    if seat in silent(table):
        raise TurnError(f"Entry {seq} is signed by {handle}, who was declared absent and "
                        "no longer signs in this game.", seq=seq, code="absent")
    remedy = entry["remedy"]
    open_now = offered(table, target)
    if remedy not in open_now:
        raise TurnError(f"Entry {seq} ({handle}) proposes the remedy '{remedy}' for "
                        f"{entry['player']}: {not_offered(table, target, remedy)} Remedies "
                        f"open now: {', '.join(open_now) or 'none'}.", seq=seq, code="remedy")
    problem = too_early(table, target, timing.signed_time(entry))
    if problem:
        raise TurnError(f"Entry {seq} ({handle}) proposes that {entry['player']} is absent, "
                        f"but {problem}", seq=seq, code="patience")
    return target


def too_early(table: Table, target: int, when: datetime.datetime | None) -> str:
    """Why a proposal signed at ``when`` that ``target`` is absent comes too early, in the
    words of a sentence's end ('' when it does not): patience after the entry that made
    ``target`` to act (its clock stops while it is away), and patience after the last
    proposal against it or its refusal, all signed times (PROTOCOL.md section 11)."""
    handle = table.seats[target].handle
    if when is None:
        return ("it carries no signed time, so nobody can check that it waited for "
                f"{handle}'s patience; pbem signs a time in every entry.")
    since, away = table.since, table.away_until[target]
    earliest = clock.earliest_proposal(table.header, since, away, table.against[target])
    if earliest is None or when >= earliest:
        return ""
    span = clock.patience_text(table.header)
    if table.against[target] and table.against[target] >= clock.waiting_start(since, away):
        why = f"the last proposal against {handle}, or its refusal"
    elif away and away >= since:
        why = f"the end of {handle}'s away note"
    else:
        why = f"the entry that made {handle} to act"
    return (f"it is signed at {timing.shown(when)}, before {timing.shown(earliest)}: this "
            f"game's patience is {span}, counted from {why} (signed times). Wait until then.")


def propose(new: Table, seat: int, target: int, entry: Entry) -> None:
    """Open the proposal. With nobody left to vote it waits for the proposer's
    ``confirm``, one patience later (PROTOCOL.md section 11). Signed in a slot of a round,
    it is queued instead, in slot order: the queue opens once the round is complete
    (:func:`round_entered`)."""
    proposal = {"player": target, "remedy": entry["remedy"], "by": seat,
                "seq": entry["seq"], "voters": voters(new, seat, target),
                "reveal": new.over(), "meaning": offered(new, target)[entry["remedy"]],
                "time": str(entry["time"]), "latest": str(entry["time"])}
    new.against[target] = clock.later(new.against[target], str(entry["time"]))
    if new.round_first < 0:
        new.proposal = proposal
        return
    drawer = new.deck_round_resolver()
    if new.pair_draw or (drawer >= 0 and drawer != target):
        # The slot's entry would have drawn none of the chance, or (a draw from two
        # links, pbem.protocol.replay.pairdraw) not alone: the answer keeps its link.
        proposal["draws"] = False
    new.queue.append(proposal)
    new.queue.sort(key=lambda p: int(p["player"]))  # a round's slots go in seat order


# ---- the queue: proposals signed in a round's slots (docs/protocol-rounds.md) -------------
def proposed(table: Table) -> list[int]:
    """The seats proposed absent and not yet settled: the open proposal's, then the
    queued ones', in the order they open."""
    open_now = [int(table.proposal["player"])] if table.proposal else []
    return open_now + [int(p["player"]) for p in table.queue]


def answers(table: Table, seat: int) -> bool:
    """Whether ``seat``'s next turn, reveal or resignation answers a proposal that it is
    absent (open, or queued behind another once its round is complete): it signs its
    own, whoever the game names first."""
    return seat in proposed(table) and table.round_first < 0


def answer_draws(table: Table, seat: int) -> bool:
    """Whether ``seat``'s answer to the proposal against it resolves the chance pending,
    as an entry in the order of play does: not where the proposal stands in the slot of a
    round of deck work whose chance another seat's entry draws (Table.deck_round_resolver).
    The answer draws what its slot would have, nothing; else a second withholder of that
    round, answering first with its own link, could choose between its outcome and the
    drawing seat's (docs/protocol-rounds.md)."""
    against = [table.proposal] if table.proposal else []
    return all(p.get("draws", True) for p in against + table.queue if p["player"] == seat)


def round_entered(new: Table) -> None:
    """After an entry of a round was applied: once every slot is signed, the proposals
    signed in the round's slots open one after another. Their voters are the seats
    neither silent nor proposed in this round (a withholder votes on no other
    withholder), and the first opens now, its clock counted from the latest signed time
    of the round's entries (nobody could answer or vote on it before the round was
    complete)."""
    check_proposers(new, done=False)
    if new.round_missing() or not new.queue:
        return
    withheld = {int(p["player"]) for p in new.queue}
    for proposal in new.queue:
        proposal["voters"] = [s for s in proposal["voters"] if s not in withheld]
    open_next(new, new.round_latest)


def check_proposers(table: Table, done: bool) -> None:
    """Every proposal in a slot of the round under way is by a seat that revealed in its
    own slot of the round. The save orders a round's entries by slot, so a proposer's
    reveal may come after its proposal: checked once the proposer's slot is applied, and
    for every proposal with ``done`` (the save ends inside the round)."""
    if table.round_first < 0:
        return
    for proposal in table.queue:
        by = int(proposal["by"])
        if (done or by in table.round_signed) and not table.round_revealed(by):
            raise unrevealed_proposer(table, by, int(proposal["seq"]))


def unrevealed_proposer(table: Table, seat: int, seq: int) -> TurnError:
    handle = table.seats[seat].handle
    names = ", ".join(table.seats[s].handle for s in table.round_seats())
    duty = table.duty()
    did = "played" if duty is not None and duty.kind == "turn" else "revealed"
    return TurnError(f"Entry {seq} ({handle}) proposes a player absent inside the round of "
                     f"{names}, but {handle} has not {did} in it: only a seat that did "
                     "may.", seq=seq, code="round")


def open_next(new: Table, when: str) -> None:
    """Open the next queued proposal, if none is open: its votes fall due, and its
    confirm counts, from ``when`` (the signed time of the entry that opens it) if that is
    later than its own (clock.vote_falls_due, clock.confirm_falls_due). A remedy taken
    since it was signed may have closed its own ('bot' once fewer than two other seats
    are played by people, or a remedy of the turns once the game stopped): it is then
    void, as if refused at ``when``, and the next one is asked."""
    while not new.proposal and new.queue:
        proposal = new.queue.pop(0)
        target = int(proposal["player"])
        duty = new.duty()
        open_now = ({} if duty is None or duty.kind not in ("turn", "reveal")
                    else offered(new, target))
        if proposal["remedy"] not in open_now:
            new.against[target] = clock.later(new.against[target], when)
            continue
        # Said again as it opens: what the remedy means now is what the voters read.
        proposal["meaning"] = open_now[proposal["remedy"]]
        proposal["reveal"] = new.over()
        proposal["opened"] = clock.later(str(proposal["time"]), when)
        new.proposal = proposal


def settled_at(proposal: dict[str, Any], entry: Entry) -> str:
    """When the entry that settles ``proposal`` settled it, for the clock of the next one
    (:func:`open_next`): its signed time, but never before the proposal opened or was
    last voted on, so a settling entry dated back (an answer, a refusal, the last
    acceptance) cannot open the next proposal before the one before it was settled."""
    return clock.later(str(entry.get("time", "")), str(proposal.get("time", "")),
                       str(proposal.get("opened", "")), str(proposal.get("latest", "")))


def confirm_from(table: Table) -> datetime.datetime:
    """The earliest signed time of the confirm of the open proposal."""
    due = clock.confirm_falls_due(table.header, table.proposal)
    assert due is not None  # check_proposal refused a proposal without a time
    return due


def check_confirm(table: Table, seat: int, entry: Entry) -> None:
    """A ``confirm`` entry: with nobody to vote, by the proposer at least patience after
    the proposal (X has not answered: its answer would have closed it); with votes still
    due, once each of them is passed over (:func:`vote_deadlines`), by the proposer or a
    seat that accepted."""
    seq, handle = entry["seq"], table.seats[seat].handle
    proposal = table.proposal
    if not proposal:
        raise TurnError(f"Entry {seq} ({handle}) confirms a proposal, but no proposal is "
                        "open (the player it named may have answered it).", seq=seq,
                        code="confirm")
    when = timing.signed_time(entry)
    at = "carries no signed time" if when is None else f"is signed at {timing.shown(when)}"
    if proposal["voters"]:
        if seat in proposal["voters"] or seat == proposal["player"] or seat in silent(table):
            raise TurnError(f"Entry {seq} ({handle}) confirms a proposal that {handle} may "
                            "not confirm: only its proposer or a seat that accepted it "
                            "can, once the votes still due are passed over.", seq=seq,
                            code="confirm")
        due = vote_deadlines(table)[-1]
        if when is None or when < due:
            raise TurnError(f"Entry {seq} ({handle}) confirms the proposal of entry "
                            f"{proposal['seq']}, but it {at}, before {timing.shown(due)}: "
                            f"votes are due ({voters_text(table)}), and a vote is passed "
                            "over only a patience after it falls due.", seq=seq,
                            code="patience")
        return
    if seat != proposal["by"]:
        by = table.seats[proposal["by"]].handle
        raise TurnError(f"Entry {seq} ({handle}) confirms {by}'s proposal: only {by}, who "
                        "made it, can confirm it.", seq=seq, code="confirm")
    due = confirm_from(table)
    if when is None or when < due:
        raise TurnError(f"Entry {seq} ({handle}) confirms the proposal of entry "
                        f"{proposal['seq']}, but it {at}, before {timing.shown(due)}: a "
                        f"confirm comes one patience ({clock.patience_text(table.header)}) "
                        "after the proposal. Wait until then.", seq=seq, code="patience")


def confirm(new: Table, entry: Entry) -> None:
    """The confirm (checked): every vote still due is passed over, and the remedy takes
    effect."""
    new.proposal["voters"] = []
    take_effect(new, entry)


# ---- votes that do not come (passed over) ---------------------------------------------------
def vote_deadlines(table: Table) -> list[datetime.datetime]:
    """When each vote still due on the open proposal is passed over, in voting order. The
    first falls due at the latest signed time of the proposal and the votes on it so far,
    each next one when the one before it is passed over; a voter's patience runs from
    then, its clock stopped while it is away, as for any seat the game waits for. So a
    voter who never votes cannot stop the game for good, and each one passed over had a
    whole patience of its own, in signed times (docs/protocol-absence.md)."""
    start = clock.vote_falls_due(table.proposal)
    out = []
    for voter in table.proposal["voters"]:
        over = clock.earliest_proposal(table.header, start, table.away_until[voter], "")
        assert over is not None  # a proposal always carries its signed time
        out.append(over)
        start = clock.stamp_of(over)
    return out


def proposal_words(table: Table) -> str:
    """"dee's proposal that cy is absent (entry 6, remedy 'end')": the open proposal in
    a few words, for a refusal ('pbem show' has it whole)."""
    proposal = table.proposal
    return (f"{table.seats[proposal['by']].handle}'s proposal that "
            f"{table.seats[proposal['player']].handle} is absent (entry {proposal['seq']}, "
            f"remedy '{proposal['remedy']}')")


def voters_text(table: Table) -> str:
    """"bob's, by 2025-06-16 10:00 UTC; then cy's, by ...": the votes due and when each
    is passed over."""
    due = zip(table.proposal["voters"], vote_deadlines(table), strict=True)
    return "; then ".join(f"{table.seats[s].handle}'s, by {timing.shown(when)}"
                          for s, when in due)


def check_vote(table: Table, seat: int, entry: Entry) -> None:
    """A ``vote`` entry: by the voter the proposal waits for, or by a later voter once
    every vote before its own is passed over (at the entry's signed time)."""
    proposal = table.proposal
    if not proposal or seat not in proposal["voters"]:
        raise wrong_voter(table, seat, entry)
    place = proposal["voters"].index(seat)
    if place == 0:
        return
    when = timing.signed_time(entry)
    due = vote_deadlines(table)[place - 1]
    if when is None or when < due:
        raise wrong_voter(table, seat, entry)


def passed_by(before: Table, entry: Entry) -> list[str]:
    """The voters whose votes ``entry`` (a vote or a confirm, on the table ``before`` it)
    passed over, in order."""
    due = [before.seats[s].handle for s in before.proposal.get("voters", [])]
    if entry["kind"] == "vote" and entry["seat"] in due:
        return due[:due.index(entry["seat"])]
    return due if entry["kind"] == "confirm" else []


def passing_words(passed: list[str]) -> str:
    """', passing over the vote of bob (not signed within a patience, counted as an
    acceptance)', or '' when nobody was passed over."""
    if not passed:
        return ""
    votes, counted = (("votes", "acceptances") if len(passed) > 1
                      else ("vote", "an acceptance"))
    return (f", passing over the {votes} of {' and '.join(passed)} (not signed within a "
            f"patience, counted as {counted})")


def vote(new: Table, seat: int, entry: Entry) -> None:
    """Count ``seat``'s vote (check_vote ran): the votes due before it are passed over,
    counted as acceptances; a refusal voids the proposal; the last acceptance puts it
    into effect."""
    voters = new.proposal["voters"]
    del voters[:voters.index(seat)]
    if entry["vote"] == "refuse":
        target, when = new.proposal["player"], settled_at(new.proposal, entry)
        new.proposal = {}
        new.against[target] = clock.later(new.against[target], when)
        open_next(new, when)
        return
    voters.pop(0)
    new.proposal["latest"] = clock.later(new.proposal.get("latest", ""),
                                         str(entry.get("time", "")))
    if not voters:
        take_effect(new, entry)


def answered(new: Table, entry: Entry) -> None:
    """The seat proposed absent signed its turn or reveal on top of the proposal (open or
    queued): its answer voids that proposal only, and a new proposal against it waits
    patience from here. A queued proposal voided so never opens; the open one voided
    opens the next."""
    target = new.seat_of(entry["seat"])
    assert target is not None  # chain.authenticate ran first
    when = str(entry.get("time", ""))
    new.against[target] = clock.later(new.against[target], when)
    if new.proposal and new.proposal["player"] == target:
        settled = settled_at(new.proposal, entry)
        new.proposal = {}
        open_next(new, settled)
        return
    new.queue = [p for p in new.queue if p["player"] != target]


def check_away_entry(table: Table, seat: int, entry: Entry) -> None:
    """An ``away`` entry (an away note alone) is signed out of turn by a seat still
    playing, while the game is under way and no proposal is open."""
    seq, handle = entry["seq"], table.seats[seat].handle
    duty = table.waiting_duty()
    if not table.started or duty is None:
        raise TurnError(f"Entry {seq} ({handle}) is an away note, but the game has not "
                        "started or is complete.", seq=seq, code="away")
    if seat in silent(table):
        raise TurnError(f"Entry {seq} is signed by {handle}, who was declared absent and "
                        "no longer signs in this game.", seq=seq, code="away")
    if table.proposal:
        raise TurnError(f"Entry {seq} ({handle}) is an away note while a proposal that a "
                        "player is absent is open: the player it names answers by playing, a "
                        "voter may add the note to its vote (pbem vote --away-until), and "
                        "anyone else signs it once the proposal is settled.", seq=seq,
                        code="away")
    if table.round_first >= 0 and duty.kind == "turn":
        raise TurnError(f"Entry {seq} ({handle}) is an away note inside a round of "
                        "simultaneous turns: each seat of the round signs only its turn there "
                        "(a seat still to play may add the note to it), and a seat that "
                        "played may propose one still to play absent in its place once its "
                        "patience has run.", seq=seq, code="away")
    if table.round_first >= 0:
        raise TurnError(f"Entry {seq} ({handle}) is an away note inside a round of final "
                        "reveals: each seat of the round signs only its reveal there (a seat "
                        "still to reveal may add the note to it), and a seat that revealed "
                        "may propose one still to reveal absent in its place once its "
                        "patience has run.", seq=seq, code="away")


def note_away(new: Table, seat: int, entry: Entry) -> None:
    """An away note (``away_until``) on any entry of the seat's own: its clock stops until
    then, within the game's allowance (PROTOCOL.md section 11)."""
    if "away_until" not in entry:
        return
    seq, handle = entry["seq"], new.seats[seat].handle
    when = timing.signed_time(entry)
    until = timing.parse_stamp(entry["away_until"])
    if when is None or until is None or until <= when:
        raise TurnError(f"Entry {seq} ({handle}) carries an away note, but "
                        + ("the entry has no signed time to count it from." if when is None
                           else "it ends before the entry's own signed time.")
                        + " An away note ends later than the entry that signs it.",
                        seq=seq, code="away")
    span = clock.away_span(when, until, new.away_until[seat])
    used = new.away_used[seat] + int(span.total_seconds())
    allowance = clock.away_allowance(new.header)
    if used > int(allowance.total_seconds()):
        left = allowance - datetime.timedelta(seconds=new.away_used[seat])
        raise TurnError(f"Entry {seq} ({handle}) declares {handle} away until "
                        f"{timing.shown(until)}, more than the {allowance.days} days this "
                        f"game allows a seat to be away ({handle} has "
                        f"{timing.duration_words(left)} left).", seq=seq, code="away")
    new.away_used[seat] = used
    new.away_until[seat] = clock.later(new.away_until[seat], str(entry["away_until"]))


def take_effect(new: Table, entry: Entry) -> None:
    """The last acceptance (or the confirm, ``entry``): the remedy applies from this entry
    on. The entry makes a seat to act that was not (the bot's signer, or the first
    revealer after ``end``), so that seat's clock starts here, at the latest signed time
    of the proposal, its votes and this entry: nobody may call it absent a patience after
    the entry that made the absent seat to act, nor by back-dating the last vote."""
    target, remedy = new.proposal["player"], new.proposal["remedy"]
    in_reveal = bool(new.proposal.get("reveal"))
    when = settled_at(new.proposal, entry)
    new.since = clock.later(new.since, str(new.proposal.get("time", "")),
                            str(new.proposal.get("latest", "")), str(entry.get("time", "")))
    new.proposal = {}
    # Moves the seat sealed and never opened are void: nobody can open them for it.
    new.commits = [c for c in new.commits if c[0] != target]
    new.game.on_absent(new.gstate, target, remedy)
    if remedy == "end":
        new.dropped = [*new.dropped, target]
        new.stopped = new.stopped or not in_reveal
    else:
        new.bots = sorted(set(new.bots) | {target})
    open_next(new, when)


def wrong_voter(table: Table, seat: int, entry: Entry) -> TurnError:
    """The error for a vote by a seat the proposal does not wait for."""
    seq, handle = entry["seq"], table.seats[seat].handle
    proposal = table.proposal
    if not proposal:
        return TurnError(f"Entry {seq} is a vote by {handle}, but no proposal is open.",
                         seq=seq, code="vote")
    if seat == proposal["player"]:
        return TurnError(f"Entry {seq} is a vote by {handle}, the player proposed absent: "
                         f"{handle} does not vote on it ({handle} answers it by signing "
                         f"{handle}'s turn or reveal on top of it).", seq=seq, code="vote")
    due = table.seats[proposal["voters"][0]].handle
    later = ""
    if seat in proposal["voters"]:
        place = proposal["voters"].index(seat)
        before = [table.seats[s].handle for s in proposal["voters"][:place]]
        later = (f" A later voter may vote once the votes before its own are passed over, "
                 f"each a patience after it falls due: {handle} from "
                 f"{timing.shown(vote_deadlines(table)[place - 1])} on (after "
                 f"{' and '.join(before)}).")
    return TurnError(f"Entry {seq} is a vote by {handle}, but the votes go in seat order "
                     f"after the proposer and the next vote is {due}'s.{later}", seq=seq,
                     code="vote")


# ---- the bot's turns -----------------------------------------------------------------------
def play_bot_turns(new: Table, signer: int, link: bytes, seq: int) -> list[dict[str, Any]]:
    """Play every turn of a bot seat that falls to ``signer`` now, in place: the bot's
    moves, then the chance they asked for (drawn from ``link``). Returns the turns as the
    entry's ``bot`` field lists them."""
    turns: list[dict[str, Any]] = []
    game = new.game
    published, before = new.link_before(seq, signer)
    while not new.over() and not new.proposal:
        seat = game.to_act(new.gstate)
        if seat is None or seat not in new.bots or bot_signer(new, seat) != signer:
            break
        if len(turns) >= MAX_BOT_TURNS:
            raise TurnError(f"Entry {seq}: the bot played {MAX_BOT_TURNS} turns in a row; "
                            "the game never comes back to a player.", seq=seq, code="bot-move")
        moves = game.absent_turn(copy_state(new.gstate), seat)
        new.gstate, moves = play_turn(game, new.gstate, seat, moves)
        # What this turn asked for (and what resolving earlier chance queued) carries no
        # entry number yet; requests stamped with one wait for their own resolver.
        pending = new.gstate.get("pending", [])
        fresh = [r for r in pending if "seq" not in r]
        new.gstate["pending"] = [r for r in pending if "seq" in r]
        rng = beacon.bot_sampler(new.game_id, published, len(turns), before, link)
        for request in fresh:
            game.resolve(new.gstate, {k: v for k, v in request.items() if k != "seq"}, rng)
        new.last_turn_seat = seat
        turns.append({"seat": new.seats[seat].handle, "moves": moves})
    return turns


# ---- the end ---------------------------------------------------------------------------------
def outcome(table: Table, gstate: dict[str, Any]) -> Outcome:
    """Remedy ``end`` and resigning: the rules' scoring of the position, every score as
    computed; the seats that left (resigned or dropped) last, sharing the last place if
    there are several (PROTOCOL.md section 11)."""
    gone = sorted(set(table.dropped) | ({table.resigned} if table.resigned >= 0 else set()))
    out = table.game.score_now(gstate)
    ranking = [[s for s in group if s not in gone] for group in out.ranking]
    ranking = [group for group in ranking if group] + [gone]
    notes = []
    if table.resigned >= 0:
        handle = table.seats[table.resigned].handle
        notes.append(f"{handle} resigned: {handle} ranks last.")
    for seat in table.dropped:
        handle = table.seats[seat].handle
        why = ("was declared absent and the game was stopped" if seat == table.dropped[0]
               and table.stopped else "withheld the final reveal")
        notes.append(f"{handle} {why}: {handle} ranks last.")
    when = (" when the game stopped" if table.stopped
            else f" when {table.seats[table.resigned].handle} resigned"
            if table.resigned >= 0 else "")
    others = ranked_others(table, gone, list(out.rivals), f"the position{when}")
    # A handle stays as written (lower case); only "the others" takes a capital.
    notes.append(f"{'T' + others[1:] if others.startswith('the ') else others}.")
    places: list[list[int | str]] = []
    if out.rivals:  # a rival (not a seat) keeps its place among the others
        places = [[s for s in group if s not in gone] for group in out.standing()]
        places = [group for group in places if group] + [list(gone)]
    return Outcome(scores=dict(out.scores), ranking=ranking, breakdown=out.breakdown,
                   tiebreaks=out.tiebreaks, tiebreak_names=out.tiebreak_names,
                   notes=[*notes, *out.notes], rivals=dict(out.rivals),
                   rival_breakdown=dict(out.rival_breakdown),
                   rival_tiebreaks=dict(out.rival_tiebreaks), places=places)


def ranked_others(table: Table, gone: list[int], rivals: list[str], position: str) -> str:
    """How the sides left are placed once the seats in ``gone`` rank last: 'bob and cy
    are ranked by the rules' scoring of POSITION' ('the others' past three), or in a solo
    game 'Justin is scored by the rules on POSITION'."""
    names = [s.handle for i, s in enumerate(table.seats) if i not in gone] + rivals
    if len(names) == 1:
        return f"{names[0]} is scored by the rules on {position}"
    listed = (f"{', '.join(names[:-1])} and {names[-1]}" if 1 < len(names) <= 3
              else "the others")
    return f"{listed} are ranked by the rules' scoring of {position}"


def unaudited(table: Table) -> list[str]:
    """A line for each seat whose secrets the audit cannot cover (it never revealed)."""
    lines = []
    decks = bool(table.gstate.get("secret"))
    # Where the deck's secrets come from a deck seed no reveal publishes, no seat's deck
    # work is checked against a seed (each step was proved in its entry): only the held
    # cards its reveal would have opened stay unchecked (PROTOCOL.md section 7).
    work = "" if table.game.opens_at_reveal() else ", shuffles and peels,"
    for seat in sorted(silent(table)):
        handle = table.seats[seat].handle
        how = "played by the bot" if seat in table.bots else "declared absent"
        what = (f"{handle}'s beacon chain{work} and the secret cards {handle} held stay"
                if decks else f"{handle}'s beacon chain stays")
        lines.append(f"{handle}'s secrets were not audited ({handle} was {how} and never "
                     f"revealed): {what} unchecked.")
    return lines


def lines(table: Table, you: str = "") -> list[str]:
    """What people should know about absent players, for show, verify and the commands;
    ``you``: the handle of the reader (a mail to one player), spoken to as "you"."""
    out = []
    for seat in table.bots:
        handle = table.seats[seat].handle
        signer = table.seats[bot_signer(table, seat)].handle
        out.append(f"You ({handle}) are absent: the bot plays your turns, signed by {signer}."
                   if handle == you else
                   f"{handle} is absent: the bot plays {handle}'s turns, signed by {signer}.")
    for seat in table.dropped:
        handle = table.seats[seat].handle
        stopped = table.stopped and seat == table.dropped[0]
        out.append(f"{handle} was declared absent: the game "
                   + ("was stopped; " if stopped else "ended without their reveal; ")
                   + f"{handle} ranks last.")
    out += queue_lines(table, you)
    proposal = table.proposal
    if proposal:
        handle = table.seats[proposal["player"]].handle
        by = table.seats[proposal["by"]].handle
        remedy = proposal["remedy"]
        if proposal["voters"]:
            then = (f"votes still due, in order: {voters_text(table)} (after its deadline a "
                    "vote may be passed over, counted as an acceptance, by the next vote or a "
                    "confirm; until then it still counts)")
        else:
            then = (f"nobody else votes, so it takes effect only if {by} confirms it "
                    f"('pbem confirm'), from {timing.shown(confirm_from(table))} on")
        if handle == you:
            out.append(f"{by} proposed in entry {proposal['seq']} that you ({handle}) are "
                       f"absent, remedy '{remedy}'; {then}. You answer it by playing (or "
                       "revealing) on this save, which voids it.")
        else:
            out.append(f"{by} proposed in entry {proposal['seq']} that {handle} is absent, "
                       f"remedy '{remedy}'; {then}. {handle} answers it by playing (or "
                       "revealing) on this save, which voids it.")
        meaning = proposal.get("meaning", "")
        if meaning:
            out.append(f"  '{remedy}' means: {meaning}")
    return out


def queue_status(table: Table) -> list[dict[str, Any]]:
    """docs/JSON.md's ``queue``: the proposals signed in a round's slots that wait to
    open, in the order they open (``player``, ``by``, ``seq``, ``remedy``)."""
    return [{"player": table.seats[p["player"]].handle, "by": table.seats[p["by"]].handle,
             "seq": int(p["seq"]), "remedy": str(p["remedy"])} for p in table.queue]


def queue_lines(table: Table, you: str = "") -> list[str]:
    """The queued proposals in words ([] when none)."""
    if not table.queue:
        return []
    def that(player: str) -> str:
        return f"you ({player}) are" if player == you else f"{player} is"

    named = "; ".join(f"{q['by']}'s that {that(q['player'])} absent (entry {q['seq']}, "
                      f"remedy '{q['remedy']}')" for q in queue_status(table))
    if table.round_first >= 0:
        return [f"Proposed in the round's slots: {named}. They open one after another, in "
                "slot order, once every slot of the round is signed."]
    answer = "revealing" if table.over() else "playing"
    return [f"Queued behind the open proposal, in order: {named}. Each opens when the one "
            "before it is settled, its votes and confirm counted from then; a player named "
            f"answers by {answer} on this save, which voids the proposal against them only."]

"""Absent players (PROTOCOL.md section 11): signing a proposal, vote, confirm or away
note (``sign_absence``) and the remedies open against a seat (``remedies``).
"""

from __future__ import annotations

import contextlib
import datetime
from pathlib import Path

from pbem import session
from pbem.errors import TurnError, UsageError
from pbem.home.contacts import Contacts
from pbem.protocol.crypto.identity import Home, Identity
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import LINK_KINDS
from pbem.protocol.state.table import Table, silent
from pbem.protocol.timekeeping import absence, clock


# ---- absent players (PROTOCOL.md section 11) ------------------------------------------------
def sign_absence(home: Home, path: str | Path, kind: str, fields: dict[str, str],
                 out: str | None) -> session.Written:
    """Sign an ``absent`` entry (``fields``: player, remedy), a ``vote`` (``fields``:
    vote), a ``confirm`` or an ``away`` note (``fields``: away_until) on the save at
    ``path`` and write it, the game locked (:func:`game_lock`). ``fields`` may add
    ``away_until`` or ``note`` (table talk) to any of them."""
    with session.game_lock(home, path):
        return _sign_absence(home, path, kind, fields, out)


def late_warnings(verified: session.Verified) -> list[str]:
    """Warnings before accepting or confirming the open proposal of ``verified``: one for
    each entry it rests on (the entry it follows, the proposal, the votes on it) that this
    home first saw long after its signed time (PROTOCOL.md section 11): its time may not
    be true, and the patience it claims to have waited may not have passed."""
    proposal = verified.table.proposal
    if not proposal:
        return []
    return [f"Warning: the proposal rests on an entry that came late. {late['words']} Its "
            "signed time is a claim; accept or confirm only if you believe it."
            for late in verified.late if int(late["seq"]) >= int(proposal["seq"]) - 1
            ] + _untimed_warning(verified)


def _untimed_warning(verified: session.Verified) -> list[str]:
    """A warning when the entry in the order of play the open proposal follows carries no
    signed time: the patience then counts from an earlier entry, and nothing shows when
    the seat named got its turn (a signer may leave its time out to shorten it)."""
    table = verified.table
    before = verified.save.entries[:int(table.proposal["seq"])]
    last = next((e for e in reversed(before) if e["kind"] in LINK_KINDS), None)
    if last is None or timing.signed_time(last) is not None:
        return []
    named = table.seats[table.proposal["player"]].handle
    return [f"Warning: entry {last['seq']} ({timing.kind_words(str(last['kind']))} by "
            f"{last['seat']}), the last before the proposal, carries no signed time, so "
            f"{named}'s patience counts from an earlier entry and nothing shows when {named} "
            "got the turn. Accept or confirm only if you know it has had its patience."]


def _sign_absence(home: Home, path: str | Path, kind: str, fields: dict[str, str],
                  out: str | None) -> session.Written:
    identity = home.load()
    verified = session.load(path, home)
    session.refuse_stale(verified, home)
    table = verified.table
    if kind == "absent":
        _check_proposal(table, identity, fields["player"], fields["remedy"])
    elif kind == "confirm":
        _check_confirm(table, identity)
    elif kind == "away":
        signing.seat_for(table, identity)
    else:
        if not table.proposal:
            raise TurnError("Nobody is proposed absent in this save: there is nothing to "
                            "vote on.")
        if table.seat_of(identity.handle) == table.proposal["player"]:
            raise TurnError(f"You ({identity.handle}) are the player proposed absent, so you "
                            "do not vote: answer it by playing your turn (or revealing) on "
                            "this save with 'pbem play', which voids it.")
        if not table.proposal["voters"]:
            raise TurnError("Nobody votes on this proposal: its proposer confirms it "
                            "('pbem confirm') one patience after it, unless the player it "
                            "names answers first.")
        _check_vote(table, identity)
    session.guard_branches(home, verified, identity, kind)
    contacts = Contacts(home)
    links = session.OwnLinks(home, table, identity, held=True)  # (under the game's lock)
    entry, new_table = signing.sign_entry(table, identity, kind, [], fields, used=links.used,
                                         claim=links.claim)
    new_table = signing.in_seat_order(verified.save, entry, new_table)
    save = session.appended(verified.save, entry, new_table)
    written = session.write(save, session.output_path(save, entry, Path(path), out), home,
                            links, entry)
    contacts.check_save(save)
    with contextlib.suppress(OSError):
        contacts.write()
    return session.Written(written, save, new_table, entry, table, keys=contacts.seat_keys(save))


def _check_proposal(table: Table, identity: Identity, handle: str, remedy: str) -> None:
    """The absent command's own checks, in the user's words, before anything is signed
    (the engine checks the same again at signing and at every replay)."""
    duty = table.duty()
    me = signing.seat_for(table, identity)
    target = table.seat_of(handle)
    if target is None:
        raise UsageError(f"There is no player '{handle}' in this game; its seats are "
                         f"{', '.join(s.handle for s in table.seats)}.")
    if duty is None or duty.kind not in ("turn", "reveal", "vote"):
        raise TurnError("Nobody can be declared absent before the game has started or "
                        "after it is complete.")
    if table.proposal:
        raise TurnError(f"A proposal is open: {absence.proposal_words(table)}. A new proposal "
                        "waits until this one is settled ('pbem show SAVE' shows it).")
    waiting = table.seats[duty.seat].handle
    if target == me:
        raise TurnError("You cannot declare yourself absent; 'pbem resign' concedes.")
    missing = table.round_missing() if table.round_first >= 0 else []
    if missing and target not in missing:
        names = ", ".join(table.seats[s].handle for s in missing)
        raise TurnError(f"The round waits for {names}, not {handle}: only a seat still "
                        "missing in it can be declared absent (in its slot).")
    if target != duty.seat and not missing:
        raise TurnError(f"The game waits for {waiting}, not {handle}: only the player the "
                        "game waits for can be declared absent.")
    offered = absence.offered(table, target)
    if remedy not in offered:
        choices = "; ".join(f"'{name}': {text}" for name, text in offered.items())
        raise TurnError(f"{absence.not_offered(table, target, remedy)} Remedies open for "
                        f"{handle} now: {choices}")
    due = proposal_due(table, target)
    now = timing.now()
    if due is not None and now < due:
        raise TurnError(f"{handle} still has time: you can propose that {handle} is absent "
                        f"from {timing.shown(due)} on (in {timing.duration_words(due - now)}), "
                        f"one patience ({clock.patience_text(table.header)}) after {handle} "
                        "was to act or after the last proposal against them.")


def _check_vote(table: Table, identity: Identity) -> None:
    """The vote command's own checks, in the user's words (the engine checks again): the
    voter due, or a later one once the votes before its own are passed over."""
    seat = signing.seat_for(table, identity)
    if seat in silent(table):
        signing.owed(table, identity)  # says how this seat left the game
    if seat not in table.proposal["voters"]:
        done = "proposed it" if seat == table.proposal["by"] else "voted on it already"
        raise TurnError(f"You ({identity.handle}) {done}. Votes still due: "
                        f"{absence.voters_text(table)}.")
    place = table.proposal["voters"].index(seat)
    if place == 0:
        return
    due = absence.vote_deadlines(table)[place - 1]
    now = timing.now()
    if now < due:
        before = [table.seats[s].handle for s in table.proposal["voters"][:place]]
        votes = (f"the votes of {' and '.join(before)} do" if len(before) > 1
                 else f"{before[0]}'s vote does")
        raise TurnError(f"It is {before[0]}'s turn to vote, not yours. If {votes} not come, "
                        f"yours passes over {'them' if len(before) > 1 else 'it'} (counted "
                        f"as {'acceptances' if len(before) > 1 else 'an acceptance'}) from "
                        f"{timing.shown(due)} on (in {timing.duration_words(due - now)}): "
                        "each vote is passed over a patience after it falls due.")


def proposal_due(table: Table, seat: int) -> datetime.datetime | None:
    """From when a proposal that ``seat`` is absent is valid (None: from now)."""
    return clock.earliest_proposal(table.header, table.since, table.away_until[seat],
                                   table.against[seat])


def _check_confirm(table: Table, identity: Identity) -> None:
    """The confirm command's own checks, in the user's words (the engine checks again)."""
    me = signing.seat_for(table, identity)
    proposal = table.proposal
    if not proposal:
        gone = [table.seats[s].handle for s in [*table.dropped, *table.bots]]
        if gone:
            raise TurnError("No proposal is open in this save, so there is nothing to "
                            f"confirm; a remedy is in effect already for {' and '.join(gone)}.")
        raise TurnError("No proposal is open in this save, so there is nothing to confirm: "
                        "nobody proposed a player absent, or the proposal was voided (that "
                        "player played, or a vote refused it).")
    handle = table.seats[proposal["player"]].handle
    if me == proposal["player"]:
        raise TurnError(f"The proposal is that you ({handle}) are absent, so it is not yours "
                        "to confirm: you answer it by playing (or revealing) on this save, "
                        "which voids it.")
    if proposal["voters"]:
        _check_confirm_over_votes(table, me, handle)
        return
    if proposal["by"] != me:
        by = table.seats[proposal["by"]].handle
        raise TurnError(f"Only {by}, who proposed that {handle} is absent, can confirm it.")
    due = absence.confirm_from(table)
    now = timing.now()
    if now < due:
        raise TurnError(f"You can confirm that {handle} is absent from {timing.shown(due)} "
                        f"on (in {timing.duration_words(due - now)}): one patience after "
                        f"your proposal, if {handle} has not answered by then.")


def _check_confirm_over_votes(table: Table, me: int, handle: str) -> None:
    """A confirm while votes are due: once each is passed over, by the proposer or a seat
    that accepted."""
    voters = table.proposal["voters"]
    if me in voters:
        raise TurnError(f"You vote on the proposal that {handle} is absent ('pbem vote'); "
                        "only its proposer or a seat that accepted it confirms it, once the "
                        "votes still due are passed over.")
    due = absence.vote_deadlines(table)[-1]
    now = timing.now()
    if now < due:
        raise TurnError(f"The others vote on the proposal that {handle} is absent: their last "
                        "acceptance puts it into effect. Votes still due: "
                        f"{absence.voters_text(table)}. If they do not come, you can confirm "
                        f"from {timing.shown(due)} on (in {timing.duration_words(due - now)}), "
                        "the silent votes counted as acceptances.")


def remedies(home: Home | None, path: str | Path, handle: str
             ) -> tuple[session.Verified, list[int], dict[str, str]]:
    """The save, the seats that can be proposed absent now (the player it waits for, or
    in a round under way each seat still missing in it; none while it waits for a vote,
    a join or nothing) and the remedies open for ``handle`` (none unless among them)."""
    verified = session.load(path, home)
    table = verified.table
    duty = table.duty()
    if duty is None or duty.kind not in ("turn", "reveal") or table.proposal:
        return verified, [], {}
    missing = table.round_missing() if table.round_first >= 0 else []
    seats = missing or [duty.seat]
    target = table.seat_of(handle)
    if target not in seats:
        return verified, seats, {}
    return verified, seats, absence.offered(table, target)


def not_proposable(table: Table, seats: list[int], handle: str) -> str:
    """Why ``handle`` cannot be proposed absent now, :func:`remedies` having offered
    nothing for it (``seats``: those that can be)."""
    names = [table.seats[s].handle for s in seats]
    if handle in names:
        return f"No remedy is open if {handle} is declared absent now."
    if len(names) > 1:
        return (f"The round waits for {', '.join(names)}, not {handle}: only a seat still "
                "missing in it can be declared absent (in its slot).")
    duty = table.duty()
    who = names[0] if names else table.seats[duty.seat].handle if duty else "nobody"
    return (f"The game waits for {who}, not {handle}: only the player the game waits for "
            "(on a turn or the final reveal) can be declared absent.")

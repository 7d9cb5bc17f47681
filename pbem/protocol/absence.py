"""Absent players (PROTOCOL.md section 11): proposals, votes, remedies, the bot's turns.

A seat X that stops answering must not stop the game. While X is to act (a turn, or its
final reveal), any other seat still played by a person may sign an ``absent`` entry
(fields ``player``: X's handle, ``remedy``: ``end`` or ``bot``). Every other such seat then
signs a ``vote`` entry (field ``vote``: ``accept`` or ``refuse``) in seat order after the
proposer, skipping X. One refusal voids the proposal and the game waits for X again; the
last acceptance puts the remedy into effect in that same entry (with nobody left to vote,
the proposal itself does).

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
  in that entry and the previous entry's beacon, so the signer could not compute it
  before the previous entry was signed, and the previous signer cannot compute it at all.
* ``bot`` needs two seats besides X still played by people: with only one, the same seat
  would sign on both sides of every bot turn and could foresee its chance.
* What is left: when the last voter is also the seat that signs the bot's first turn,
  it can compute that turn's chance before it votes. Its only other choice is to refuse,
  which everyone sees and which hands the game back to X.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbem.errors import TurnError
from pbem.game import Outcome, copy_state
from pbem.protocol import beacon
from pbem.protocol.savefile import REMEDIES, Entry
from pbem.protocol.turns import play_turn

if TYPE_CHECKING:
    from pbem.protocol.engine import Table

# More bot turns than this inside one entry means a game whose turns never come back to
# a person: a bug, refused rather than looping.
MAX_BOT_TURNS = 64


def silent(table: Table) -> set[int]:
    """Seats that no longer sign: played by the bot, or dropped by remedy ``end``."""
    return set(table.bots) | set(table.dropped)


def people(table: Table) -> list[int]:
    """Seats still played by people, in seat order."""
    gone = silent(table)
    return [s for s in range(len(table.seats)) if s not in gone]


def bot_signer(table: Table, seat: int) -> int:
    """The seat that plays ``seat``'s turn for the bot: the next seat in seat order after
    it that is still played by a person."""
    n = len(table.seats)
    gone = silent(table)
    for step in range(1, n):
        other = (seat + step) % n
        if other not in gone:
            return other
    raise TurnError("Every seat of this game is absent; nobody can sign for the bot.")


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
        return ("'bot' needs two other players still playing, so that the bot's chance is "
                "never foreseen by the one player who would sign on both sides of it.")
    return f"{title} does not offer '{remedy}' now."


# ---- entries -----------------------------------------------------------------------------
def check_proposal(table: Table, seat: int, entry: Entry) -> int:
    """The seat an ``absent`` entry by ``seat`` names, once the proposal is allowed."""
    seq, handle = entry["seq"], table.seats[seat].handle
    duty = table.duty()
    if table.proposal:
        named = table.seats[table.proposal["player"]].handle
        raise TurnError(f"Entry {seq} ({handle}) proposes a player absent while the proposal "
                        f"that {named} is absent is still being voted on.", seq=seq,
                        code="absent")
    if duty is None or duty.kind not in ("turn", "reveal"):
        raise TurnError(f"Entry {seq} ({handle}) proposes a player absent, but nobody can be "
                        "declared absent before the game has started or after it is complete.",
                        seq=seq, code="absent")
    target = table.seat_of(entry["player"])
    if target is None:
        raise TurnError(f"Entry {seq} ({handle}) names '{entry['player']}', who has no seat "
                        "in this game.", seq=seq, code="absent")
    waiting = table.seats[duty.seat].handle
    if target != duty.seat:
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
    return target


def propose(new: Table, seat: int, target: int, entry: Entry) -> None:
    """Open the proposal (or put it into effect at once if nobody is left to vote)."""
    new.proposal = {"player": target, "remedy": entry["remedy"], "by": seat,
                    "seq": entry["seq"], "voters": voters(new, seat, target),
                    "reveal": new.over(), "meaning": offered(new, target)[entry["remedy"]]}
    if not new.proposal["voters"]:
        take_effect(new)


def vote(new: Table, seat: int, entry: Entry) -> None:
    """Count ``seat``'s vote (the step checked it is the voter the proposal waits for)."""
    if entry["vote"] == "refuse":
        new.proposal = {}
        return
    new.proposal["voters"].pop(0)
    if not new.proposal["voters"]:
        take_effect(new)


def take_effect(new: Table) -> None:
    """The last acceptance: the remedy applies from this entry on."""
    target, remedy = new.proposal["player"], new.proposal["remedy"]
    in_reveal = bool(new.proposal.get("reveal"))
    new.proposal = {}
    new.game.on_absent(new.gstate, target, remedy)
    if remedy == "end":
        new.dropped = [*new.dropped, target]
        new.stopped = new.stopped or not in_reveal
    else:
        new.bots = sorted(set(new.bots) | {target})


def wrong_voter(table: Table, seat: int, entry: Entry) -> TurnError:
    """The error for a vote by a seat the proposal does not wait for."""
    seq, handle = entry["seq"], table.seats[seat].handle
    proposal = table.proposal
    if not proposal:
        return TurnError(f"Entry {seq} is a vote by {handle}, but no proposal is open.",
                         seq=seq, code="vote")
    if seat == proposal["player"]:
        return TurnError(f"Entry {seq} is a vote by {handle}, the player proposed absent: "
                         f"{handle} does not vote on it (to come back, {handle} plays on the "
                         "save from before the proposal).", seq=seq, code="vote")
    due = table.seats[proposal["voters"][0]].handle
    return TurnError(f"Entry {seq} is a vote by {handle}, but the votes go in seat order "
                     f"after the proposer and the next vote is {due}'s.", seq=seq, code="vote")


# ---- the bot's turns -----------------------------------------------------------------------
def play_bot_turns(new: Table, signer: int, link: bytes, seq: int) -> list[dict[str, Any]]:
    """Play every turn of a bot seat that falls to ``signer`` now, in place: the bot's
    moves, then the chance they asked for (drawn from ``link``). Returns the turns as the
    entry's ``bot`` field lists them."""
    turns: list[dict[str, Any]] = []
    game = new.game
    before = bytes.fromhex(new.beacons[seq - 1]) if seq > 0 else b""
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
        rng = beacon.bot_sampler(new.game_id, seq, len(turns), before, link)
        for request in fresh:
            game.resolve(new.gstate, {k: v for k, v in request.items() if k != "seq"}, rng)
        new.last_turn_seat = seat
        turns.append({"seat": new.seats[seat].handle, "moves": moves})
    return turns


# ---- the end ---------------------------------------------------------------------------------
def outcome(table: Table, gstate: dict[str, Any]) -> Outcome:
    """Remedy ``end``: the rules' scoring of the position, the dropped seats last (sharing
    the last place if there are several)."""
    dropped = table.dropped
    out = table.game.score_now(gstate)
    ranking = [[s for s in group if s not in dropped] for group in out.ranking]
    ranking = [group for group in ranking if group] + [sorted(dropped)]
    notes = []
    for seat in dropped:
        handle = table.seats[seat].handle
        why = ("was declared absent and the game was stopped" if seat == table.dropped[0]
               and table.stopped else "withheld the final reveal")
        notes.append(f"{handle} {why}: {handle} ranks last.")
    notes.append("The others are ranked by the rules' scoring of the position"
                 + (" when the game stopped." if table.stopped else "."))
    places: list[list[int | str]] = []
    if out.rivals:  # a rival (not a seat) keeps its place among the others
        places = [[s for s in group if s not in dropped] for group in out.standing()]
        places = [group for group in places if group] + [list(sorted(dropped))]
    return Outcome(scores=dict(out.scores), ranking=ranking, breakdown=out.breakdown,
                   tiebreaks=out.tiebreaks, tiebreak_names=out.tiebreak_names,
                   notes=[*notes, *out.notes], rivals=dict(out.rivals),
                   rival_breakdown=dict(out.rival_breakdown),
                   rival_tiebreaks=dict(out.rival_tiebreaks), places=places)


def unaudited(table: Table) -> list[str]:
    """A line for each seat whose secrets the audit cannot cover (it never revealed)."""
    lines = []
    decks = bool(table.gstate.get("secret"))
    for seat in sorted(silent(table)):
        handle = table.seats[seat].handle
        how = "played by the bot" if seat in table.bots else "declared absent"
        what = (f"{handle}'s beacon chain, shuffles and peels, and the secret cards "
                f"{handle} held" if decks else f"{handle}'s beacon chain")
        lines.append(f"{handle}'s secrets were not audited ({handle} was {how} and never "
                     f"revealed): {what} stay unchecked.")
    return lines


def lines(table: Table) -> list[str]:
    """What people should know about absent players, for show, verify and the commands."""
    out = []
    for seat in table.bots:
        out.append(f"{table.seats[seat].handle} is absent: the bot plays {table.seats[seat].handle}'s "
                   f"turns, signed by {table.seats[bot_signer(table, seat)].handle}.")
    for seat in table.dropped:
        handle = table.seats[seat].handle
        stopped = table.stopped and seat == table.dropped[0]
        out.append(f"{handle} was declared absent: the game "
                   + ("was stopped; " if stopped else "ended without their reveal; ")
                   + f"{handle} ranks last.")
    proposal = table.proposal
    if proposal:
        handle = table.seats[proposal["player"]].handle
        by = table.seats[proposal["by"]].handle
        remedy = proposal["remedy"]
        waiting = ", ".join(table.seats[s].handle for s in proposal["voters"])
        out.append(f"{by} proposed in entry {proposal['seq']} that {handle} is absent, remedy "
                   f"'{remedy}'; votes still due, in order: {waiting}.")
        meaning = proposal.get("meaning", "")
        if meaning:
            out.append(f"  '{remedy}' means: {meaning}")
    return out

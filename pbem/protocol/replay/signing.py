"""Signing the next entry: which seat an identity holds and what it owes (``seat_for``,
``owed``), its seeds and beacon links (``seat_seed``, ``next_link``), a look ahead
(``preview``) and the entry itself (``sign_entry``, which runs the engine's ``step`` on
it, so a signed entry is always what verification accepts).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from pbem.errors import (
    IdentityError,
    TurnError,
)
from pbem.game import Game, State, copy_state
from pbem.protocol.crypto import beacon, entropy
from pbem.protocol.crypto.derive import NONCE_BYTES, sealed_salt, seed_commitment
from pbem.protocol.crypto.identity import Identity
from pbem.protocol.replay import pairdraw
from pbem.protocol.replay.chain import check_new_key
from pbem.protocol.replay.engine import arrive, entry_hash, note_signed, replay, step
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.saveformat.savefile import LINK_KINDS, Entry, Save
from pbem.protocol.state import evidence
from pbem.protocol.state.headers import game_data
from pbem.protocol.state.rounds import sealed_commitment
from pbem.protocol.state.table import Duty, Table, bot_signer, silent
from pbem.protocol.state.turns import play_turn
from pbem.protocol.timekeeping import absence


# ---- signing ---------------------------------------------------------------------------
def seat_for(table: Table, identity: Identity) -> int:
    seat = table.seat_of(identity.handle)
    if seat is None:
        seated = ", ".join(s.handle for s in table.seats)
        raise TurnError(
            f"You ({identity.handle}) have no seat in this game; its seats are {seated}."
        )
    record = table.seats[seat]
    if record.pubkey and record.pubkey != identity.public_hex:
        raise IdentityError(
            f"This home's key is not the one that took the seat {identity.handle} in this "
            "game. Use the home you joined with (--home)."
        )
    return seat


def owed(table: Table, identity: Identity) -> Duty:
    """What this identity must sign now, or a TurnError saying whose move it is."""
    duty = table.duty()
    if duty is None:
        gone = sorted(silent(table))
        if gone:
            names = ", ".join(table.seats[s].handle for s in gone)
            raise TurnError(f"This game is complete: nothing more is owed (every seat revealed "
                            f"but {names}, declared absent). Run 'pbem verify'.")
        raise TurnError("This game is complete: every seat has revealed. Run 'pbem verify'.")
    seat = seat_for(table, identity)
    if seat in silent(table):
        what = (f"the bot plays your turns, each signed by "
                f"{table.seats[bot_signer(table, seat)].handle}" if seat in table.bots
                else "the game went on to its end without you")
        raise TurnError(f"You ({identity.handle}) were declared absent in this game and sign "
                        f"nothing more in it: {what}.")
    if absence.answers(table, seat):
        # The seat proposed absent answers by signing what it owes (PROTOCOL.md 11); a
        # seat proposed in a reveal round reveals, one of a simultaneous step plays its
        # turn of it, and one owing deck work the game waits on does it, whatever the
        # order (its proposal may be queued behind another).
        waiting = table.waiting_duty()
        assert waiting is not None
        assert (waiting.seat == seat or waiting.kind == "reveal"
                or seat in table.game.simultaneous(table.gstate) or table.owes_deck_work(seat))
        return Duty(seat, waiting.kind)
    if duty.seat != seat and table.round_place(seat) is not None:
        return Duty(seat, duty.kind)  # signed in a round, in parallel (PROTOCOL.md 4)
    if seat in table.round_signed and not table.round_revealed(seat):
        by = next(table.seats[p["by"]].handle for p in table.queue if p["player"] == seat)
        act = "reveal" if duty.kind == "reveal" else "play your turn"
        raise TurnError(f"Your slot in this round holds {by}'s proposal that you "
                        f"({identity.handle}) are absent. Once the round is complete, {act} "
                        "on the assembled save: that answers it (and voids it alone).")
    if seat in table.round_signed:
        names = ", ".join(table.seats[s].handle for s in table.round_missing())
        raise TurnError(f"You ({identity.handle}) have signed your {duty.kind} in this round "
                        f"already; it waits for {names}, not for you.")
    if duty.seat != seat:
        who = table.seats[duty.seat]
        action = {"create": "create", "join": "join", "start": "start the game",
                  "turn": "play", "reveal": "reveal", "vote": "vote on the proposal that "
                  "a player is absent"}[duty.kind]
        # In a round every seat still missing in it acts now, not only the first.
        acting = table.round_missing() if duty.seat in table.round_missing() else [duty.seat]
        whose = (f"{who.handle}'s turn" if len(acting) == 1 else "the turn of each of "
                 + ", ".join(table.seats[s].handle for s in acting))
        to = ", ".join(table.seats[s].handle + (f" ({table.seats[s].email})"
                                                 if table.seats[s].email else "")
                       for s in acting)
        confirm = ""
        proposal = table.proposal
        if proposal and proposal["by"] == seat and not proposal["voters"]:
            confirm = (f" Your proposal that {who.handle} is absent can be confirmed with "
                       f"'pbem confirm' from {timing.shown(absence.confirm_from(table))} on.")
        elif proposal and proposal["voters"] and seat not in proposal["voters"] \
                and seat != proposal["player"]:
            confirm = (" If the votes still due do not come, 'pbem confirm' passes over them "
                       f"from {timing.shown(absence.vote_deadlines(table)[-1])} on.")
        raise TurnError(f"It is {whose} to {action}, not yours. Send the save to {to}."
                        f"{confirm}")
    return duty


def seat_seed(table: Table, seat: int, identity: Identity) -> bytes:
    """``identity``'s seed for ``seat``, with the nonce the seat published when it joined.

    Only a seat that has joined has one; the create/join entry draws a fresh nonce."""
    nonce = table.seats[seat].nonce
    if not nonce:
        raise TurnError(f"{table.seats[seat].handle} has not joined this game yet.")
    return identity.seed(table.game_id, bytes.fromhex(nonce))


def deck_root(game: Game, identity: Identity, game_id: str, nonce: bytes) -> bytes:
    """The root of a seat's mental-deck secrets (PROTOCOL.md section 3), ``nonce`` the one
    its create or join published: its deck seed, which no entry publishes, where the rules
    open each seat's cards at its reveal (Game.opens_at_reveal); else its seed, as in the
    rules versions before."""
    if game.opens_at_reveal():
        return identity.deck_seed(game_id, nonce)
    return identity.seed(game_id, nonce)


# The places of its chains a home published in a game, on any branch (beacon.Position
# numbers; pbem.home.archive keeps them): its next entry never signs at one of them.
Used = Collection[int]


def next_position(table: Table, seat: int, used: Used = (),
                  voided: list[Entry] | None = None) -> beacon.Position:
    """Where ``seat``'s next link lies (PROTOCOL.md section 5): right below its newest one
    on this save's branch, or, with ``voided`` (the evidence: entries of a branch an
    answer to a proposal voided), right below the last link the seat published there.
    TurnError if its home published that place already (``used``: on another branch):
    a link is never published twice, so the home signs on the branch that holds it."""
    tip = table.seats[seat].tip()
    for linked in evidence.own_links({"seat": table.seats[seat].handle,
                                      "evidence": voided or []}):
        why = tip.follow(bytes.fromhex(linked["beacon"]), beacon.renewal(linked))
        if why:
            raise TurnError(f"The evidence for skipping links does not hold: {why}.",
                            code="branch-behind")
    place = tip.next_place()
    if place.number in used:
        raise TurnError(
            f"You ({table.seats[seat].handle}) have already signed your next entry of this "
            "game on another branch, with the beacon link this save would need, and a link "
            "is never published twice, so you cannot sign on this save: the game goes on "
            "with the branch that holds your entry. Play on the newest save of that branch.",
            code="branch-behind")
    return place


def next_link(table: Table, seat: int, identity: Identity, used: Used = (),
              voided: list[Entry] | None = None) -> bytes:
    """``seat``'s next beacon value (see :func:`next_position`)."""
    place = next_position(table, seat, used, voided)
    return beacon.published(_own_seed(table, seat, identity), place.depth, place.chain)


# ---- the evidence for a skip: the voided branch in the home's archive (evidence.py) ---
Successors = Callable[[str], list[str]]  # entry hash -> hashes of the entries after it
EntryOf = Callable[[str], "Entry | None"]  # entry hash -> the full entry, if kept


def find_voided(table: Table, seat: int, hashes: list[str], used: Used,
                successors: Successors, entry_of: EntryOf) -> list[Entry] | None:
    """The evidence ``seat``'s next entry on this save (entry hashes ``hashes``) carries,
    if its next place is one its home published (``used``) on a branch an answer to a
    proposal voided: that branch's entries from the proposal to the last of the seat's
    link-carrying ones, after which its next place is free. None if its next place is
    free, or if no such branch explains it (then the home signs on the other branch)."""
    tip = table.seats[seat].tip()
    if tip.next_place().number not in used:
        return None
    mine = [i for i, s in enumerate(table.signers) if s == seat and table.beacons[i]]
    for fork in range(max(mine, default=0) + 1, len(hashes)):
        answerer = table.seats[table.signers[fork]].handle
        if not table.beacons[fork]:
            continue
        for other in successors(hashes[fork - 1]):
            first = entry_of(other) if other != hashes[fork] else None
            if first is None or first["kind"] != "absent" or first.get("player") != answerer:
                continue
            found = _walk([first], other, _copy(tip), table.seats[seat].handle, used,
                          successors, entry_of)
            if found:
                return found
    return None


def _walk(branch: list[Entry], head: str, tip: beacon.Tip, handle: str, used: Used,
          successors: Successors, entry_of: EntryOf) -> list[Entry] | None:
    """``branch`` (ending with the entry ``head``) extended until the seat's next place
    is free, through the seat's own links one at a time; None if no branch does."""
    last = branch[-1]
    if "evidence" in last:  # evidence does not nest: no skip rests on this branch
        return None
    if last["seat"] == handle and last["kind"] in LINK_KINDS:
        if tip.follow(bytes.fromhex(last["beacon"]), beacon.renewal(last)):
            return None
        if tip.next_place().number not in used:
            return branch
    if len(branch) > MAX_VOIDED:
        return None
    for after in successors(head):
        entry = entry_of(after)
        if entry is not None:
            found = _walk([*branch, entry], after, _copy(tip), handle, used, successors,
                          entry_of)
            if found:
                return found
    return None


# A voided branch longer than this is not searched (a proposal's branch is voided by an
# answer its seat signs within its patience: a few rounds at most).
MAX_VOIDED = 400


def _copy(tip: beacon.Tip) -> beacon.Tip:
    return beacon.Tip(tip.last, tip.chain, tip.depth, tip.fresh, tip.seq)


def _own_seed(table: Table, seat: int, identity: Identity) -> bytes:
    seed = seat_seed(table, seat, identity)
    record = table.seats[seat]
    if record.seed_commit and seed_commitment(seed) != record.seed_commit:
        raise IdentityError(
            "This home's key does not reproduce the seed committed for this seat; use the "
            "home you joined with."
        )
    return seed


def preview(table: Table, identity: Identity, used: Used = (),
            voided: list[Entry] | None = None) -> Table:
    """The table as the seat about to sign sees it: pending chance resolved with its own
    next link (PROTOCOL.md section 5, last point), the one :func:`sign_entry` will sign
    with the same ``used`` and ``voided``. Others get the table unchanged."""
    seat = table.seat_of(identity.handle)
    answering = seat is not None and absence.answers(table, seat)
    # The seat proposed absent sees the game as its answer will leave it: no proposal
    # against it (one queued in a reveal round, behind another, is its own to answer).
    duty = owed(table, identity) if answering else table.duty()
    if duty is None or seat is None or duty.seat != seat or duty.kind in ("create", "join",
                                                                          "vote"):
        return table
    if table.seats[seat].pubkey != identity.public_hex:
        return table
    if (table.gstate.get("pending") and not answering and table.round_place(seat) is not None
            and seat != table.deck_round_resolver()):
        return table  # another seat's entry of the round resolves it
    own = answering and table.proposal.get("player") == seat
    view = Table(**{**vars(table), "gstate": copy_state(table.gstate),
                    "seats": [s.copy() for s in table.seats], "bots": list(table.bots),
                    "proposal": {} if own else copy_state(table.proposal),
                    "queue": [p for p in table.queue if p["player"] != seat]})
    if answering and not absence.answer_draws(table, seat):
        return view  # its answer draws nothing (its slot's entry would have drawn nothing)
    if answering and duty.kind == "turn":  # as the engine applies it (engine.step)
        pairdraw.answer_begins(view, seat)
    try:
        link = next_link(table, seat, identity, used, voided)
    except TurnError as exc:
        if exc.code != "branch-behind":
            raise
        # Its next link is published on another branch: nothing is resolved on this save
        # for this home to see (signing here is refused, with the reason).
        return table
    arrive(view, seat, link, len(table.signers))
    if duty.kind == "turn" and view.over() and view.reveal_first < 0:
        view.reveal_first = seat
    return view


def _check_kind(table: Table, identity: Identity, kind: str, moves: list[str] | None,
                used: Used, voided: list[Entry] | None) -> int:
    """The seat of ``identity``, which owes an entry in the order of play of ``kind`` (with
    ``moves``) here: TurnError saying what it owes otherwise."""
    mine = owed(table, identity)
    seat = mine.seat
    shown = preview(table, identity, used, voided)
    # A reveal owed is the seat's own, whoever the game names first (a round, or an
    # answer to a proposal queued behind another): nothing it resolves changes that;
    # so is a proposed seat's answer (its turn of a simultaneous step, say).
    duty = mine if mine.kind == "reveal" or absence.answers(table, seat) else shown.duty()
    assert duty is not None
    # the bot's turns hand the game to another seat (never in a round, PROTOCOL.md 4)
    bot_only = table.round_place(seat) is None and (
        duty.seat != seat or bot_then_round(table, shown, seat))
    if bot_only and (kind != "turn" or moves):
        raise TurnError(f"You sign the bot's turn, or the chance pending, only; the game "
                        f"then waits for {table.seats[duty.seat].handle}. Sign it with "
                        "no moves.")
    if kind == "resign" and _place_in_round(table, seat, kind, {}) is not None:
        # The engine refuses an entry in a slot that is not of the round's kind; said so.
        names = ", ".join(table.seats[s].handle for s in table.round_seats())
        raise TurnError(f"You cannot resign inside the round of {names} (its entries are "
                        "signed in parallel, each in its slot): sign your entry of the "
                        "round first; you can resign on a turn of yours after it.",
                        code="round")
    if not bot_only and kind != duty.kind and not (kind == "resign" and duty.kind == "turn"):
        raise TurnError(f"You owe a {duty.kind} entry now, not a {kind}.")
    return seat


def sign_entry(
    table: Table, identity: Identity, kind: str, moves: list[str] | None = None,
    fields: dict[str, str] | None = None, used: Used = (),
    claim: Callable[[beacon.Position], None] | None = None,
    voided: list[Entry] | None = None,
) -> tuple[Entry, Table]:
    """Build, check and sign the next entry for ``identity``; return it and the table.

    ``fields`` are the kind's own (``player`` and ``remedy`` of an ``absent`` entry, which
    any seated player may sign while another is to act; ``vote`` of a ``vote``), and
    ``away_until``, an away note any entry may carry (PROTOCOL.md section 11), and
    ``note``, table talk, which nothing but people reads (section 4).
    ``used``: the places of its chains this home published in the game (on any branch);
    an entry in the order of play takes its seat's next link, refused if the home
    published it (:func:`next_position`); with ``voided`` (the entries of a branch an
    answer to a proposal voided, on which this seat published links) it skips those and
    carries them as ``evidence``. Entries signed out of the order of play carry no link
    (PROTOCOL.md section 5). ``claim`` is told of the place once the entry is checked and
    before it is signed: the home records it; if it raises, nothing is signed."""
    if kind in absence.OUT_OF_TURN:
        seat = seat_for(table, identity)
        if not table.seats[seat].pubkey:
            raise TurnError("You have not joined this game yet.")
    else:
        seat = _check_kind(table, identity, kind, moves, used, voided)
    nonce = b""
    if kind in ("create", "join"):
        # A fresh nonce per seat and game (PROTOCOL.md section 2), published below.
        nonce = entropy.fresh_bytes(NONCE_BYTES)
        seed = identity.seed(table.game_id, nonce)
    else:
        seed = _own_seed(table, seat, identity)
    place_in_round = _place_in_round(table, seat, kind, fields or {})
    entry: Entry = {
        "seq": len(table.signers) if place_in_round is None else place_in_round[1],
        "game": table.game_id,
        "seat": identity.handle,
        "kind": kind,
        "prev": table.head,
        "moves": list(moves or []),
        "chores": [],
        "time": timing.now_stamp(),  # the signer's clock (PROTOCOL.md section 11)
        **(fields or {}),
    }
    if place_in_round is not None:  # the round's seqs and prev are fixed before it starts
        entry["round"] = place_in_round[0]
    if kind in ("create", "join"):
        entry["pubkey"] = identity.public_hex
        entry["nonce"] = nonce.hex()
        entry["seed_commit"] = seed_commitment(seed)
        entry["beacon"] = beacon.published(seed, 0).hex()
        place = None
    elif kind in LINK_KINDS:
        place = next_position(table, seat, used, voided)
        entry["beacon"] = beacon.published(seed, place.depth, place.chain).hex()
        if place.renew:  # a chain never runs out (PROTOCOL.md section 5)
            entry["anchor"] = beacon.anchor(seed, place.chain + 1).hex()
        if voided:
            entry["evidence"] = voided
    else:  # signed out of the order of play: no link, so it resolves and re-rolls nothing
        place = None
    if kind == "reveal":
        entry["seed"] = seed.hex()
    if kind == "turn":
        _seal(table, seat, entry, seed)
    if kind in ("create", "join"):
        # Refuse here what verification would refuse, before anything is signed or written.
        pinned = str(table.header["seats"][seat].get("key", ""))
        others = {s.handle: s.pubkey for s in table.seats if s.pubkey}
        check_new_key(entry, entry["seq"], pinned, others)

    deck_seed = deck_root(table.game, identity, table.game_id,
                          nonce or bytes.fromhex(table.seats[seat].nonce))

    def make(gstate: State, who: int, what: str,
             work: dict[str, list[dict[str, Any]]] | None) -> list[dict[str, Any]]:
        return owed_chores(gstate, who, deck_seed, table.game_id, entry["seq"], work)

    new, canonical_moves = step(table, entry, replay=False, make_chores=make)
    entry["moves"] = canonical_moves
    if claim is not None and place is not None:
        claim(place)
    entry["sig"] = identity.sign(canonical(entry)).hex()
    digest_signed = entry_hash(entry)
    new.settle_head(digest_signed)
    note_signed(digest_signed)
    return entry, new




def bot_then_round(table: Table, shown: Table, seat: int) -> bool:
    """Whether ``seat``'s next entry plays the bot's turns (``shown``: after them) or
    resolves the chance pending ahead of a sealed step, and its own turn is then in a
    round of a simultaneous step, signed apart in its slot."""
    if table.chance_before_round():
        return True
    return table.game.to_act(table.gstate) in table.bots and shown.round_place(seat) is not None


def seals_now(table: Table, seat: int) -> bool:
    """Whether ``seat``'s turn now commits to its moves, sealed (docs/protocol-rounds.md,
    "Sealed steps"): in the round of commitments, or late, with no commitment to open."""
    in_sealed_round = table.round_place(seat) is not None and table.step_kind() == "sealed"
    return table.commitment(seat) is None and (in_sealed_round or seat in table.late_commits())


def _seal(table: Table, seat: int, entry: Entry, seed: bytes) -> None:
    """A turn of a sealed step (docs/protocol-rounds.md): in the round where the seats
    commit, the entry carries the commitment to its moves (checked as a turn against the
    state before the step) and no moves; the seat's next turn opens them: the same moves
    and their salt, re-derived from the seed. TurnError if the moves are not the sealed
    ones."""
    committed = table.commitment(seat)
    if committed is None and not seals_now(table, seat):
        return
    _, moves = play_turn(table.game, table.gstate, seat, entry["moves"])
    if committed is not None:
        at, sealed = committed
        salt = sealed_salt(seed, table.game_id, at, bytes.fromhex(table.beacons[at])).hex()
        if sealed_commitment(table.game_id, at, moves, salt) != sealed:
            raise TurnError(f"These are not the moves you sealed in entry {at}: a sealed "
                            "step's moves are opened exactly as they were sealed.",
                            code="sealed")
        entry["moves"], entry["salt"] = moves, salt
        return
    salt = sealed_salt(seed, table.game_id, entry["seq"], bytes.fromhex(entry["beacon"])).hex()
    entry["sealed"] = sealed_commitment(table.game_id, entry["seq"], moves, salt)
    entry["moves"] = []


def owed_chores(gstate: State, seat: int, seed: bytes, game_id: str, seq: int,
                work: dict[str, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """The secret-deck work ``seat`` owes in ``gstate``, done with ``seed`` (its deck
    root, :func:`deck_root`), with proofs
    bound to entry ``seq`` of the game; in a round, exactly ``work`` (deck -> items)."""
    out = []
    for name, d in gstate.get("secret", {}).items():
        if d.get("mode") != "mental":
            continue
        from pbem.protocol.crypto import deck_hooks

        only = None if work is None else work.get(name, [])
        chore = deck_hooks.perform(d, name, seat, seed, game_id, seq, only)
        if chore is not None:
            out.append(chore)
    return out


def secrets_for(table: Table, seat: int, identity: Identity) -> dict[str, dict[str, str]]:
    """Slot -> card for the cards ``seat`` drew or holds, peeled with its own key.

    Raises IntegrityError, loudly, if a slot decrypts to no possible card."""
    decks = table.gstate.get("secret", {})
    if not decks or not table.seats[seat].nonce:  # nothing drawn before the seat joins
        return {}
    from pbem.protocol.crypto import mental_open

    options, components = game_data(table.header)
    uids = table.game.secret_decks(components, options, len(table.seats))
    seed = deck_root(table.game, identity, table.game_id, bytes.fromhex(table.seats[seat].nonce))
    out: dict[str, dict[str, str]] = {}
    for name, d in decks.items():
        if d.get("mode") == "mental":
            out[name] = mental_open.read(d, table.game_id, name, seat, seed, list(uids[name]))
    return out


def _place_in_round(table: Table, seat: int, kind: str, fields: dict[str, Any]
                    ) -> tuple[int, int] | None:
    """(round, seq) of the slot a new entry of ``kind`` by ``seat`` fills in the round
    under way, or None: its own slot; an ``absent`` entry by a seat that revealed in a
    reveal round, the slot of the seat it names (docs/protocol-rounds.md)."""
    if kind == "absent":
        target = table.seat_of(str(fields.get("player", "")))
        if not table.round_revealed(seat) or target is None:
            return None
        return table.round_place(target)
    return table.round_place(seat) if kind not in absence.OUT_OF_TURN else None


def in_seat_order(save: Save, entry: Entry, table: Table) -> Table:
    """The table after ``entry``, signed on ``save`` (``table`` as signing made it). A
    round's entries are stored and applied in seat order (PROTOCOL.md section 4): an
    entry signed on a save that holds a later seat's entry of its round was applied
    after that one, so the table is made again from the save in seat order (a step's
    state may follow the order: the slot ids a draft's passes number, say)."""
    if "round" not in entry or not any(e.get("round") == entry["round"]
                                       and e["seq"] > entry["seq"] for e in save.entries):
        return table
    entries = sorted(save.entries + [entry], key=lambda e: int(e["seq"]))
    return replay(Save(save.header, entries, {}), check_snapshot=False,
                  signed_here=entry_hash(entry)).table

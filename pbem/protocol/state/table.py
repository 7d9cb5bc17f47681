"""The table: what a replay knows after each entry (the seats, the game's state, whose
duty comes next) and the report verify makes of a save. Below the engine and its rooms
(absence, clock, result), which all read a table; the engine builds them (``step``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from pbem.componentdata import copied
from pbem.errors import IntegrityError, TurnError
from pbem.game import Game, Outcome, State, copy_state
from pbem.protocol.crypto import beacon
from pbem.protocol.saveformat.savefile import Entry
from pbem.protocol.state import evidence
from pbem.record import Record
from pbem.registry import for_save


class SeatRecord(Record):
    def __init__(self, handle: str, email: str = "", pubkey: str = "", seed_commit: str = "",
                 nonce: str = "", anchor: str = "", last_beacon: str = "", links: int = 0,
                 seed: str = "", chain: int = 0, depth: int | None = None, fresh: str = "",
                 anchors: list[list[Any]] | None = None,
                 skips: list[list[int]] | None = None) -> None:
        self.handle = handle
        self.email = email
        self.pubkey = pubkey  # hex, from the seat's create/join entry
        self.seed_commit = seed_commit
        self.nonce = nonce  # hex, from the seat's create/join entry: mixed into its seed
        self.anchor = anchor  # b_L, published at create/join
        self.last_beacon = last_beacon  # the seat's most recent published link
        self.links = links  # links published after the anchor
        self.seed = seed  # hex, once revealed
        # Where the seat's beacon stands (beacon.Tip, PROTOCOL.md section 5): the chain and
        # depth of its newest link, the fresh anchor its newest entry published ('' if
        # none), and every fresh anchor it published, as [seq, hex], for the audit.
        self.chain = chain
        self.depth = links if depth is None else depth
        self.fresh = fresh
        self.anchors = [] if anchors is None else anchors
        # [seq, links skipped] of each entry that skipped links on evidence (the places
        # its home published on a branch an answer to a proposal voided): shown by verify.
        self.skips = [] if skips is None else skips

    def copy(self) -> SeatRecord:
        fields = vars(self)
        return SeatRecord(**{**fields, "anchors": [list(a) for a in fields["anchors"]],
                             "skips": [list(k) for k in fields["skips"]]})

    def tip(self) -> beacon.Tip:
        return beacon.Tip(bytes.fromhex(self.last_beacon), self.chain, self.depth,
                          bytes.fromhex(self.fresh))

    def advance(self, entry: Entry) -> None:
        """The seat's entry ``entry`` in the order of play (not its create/join) publishes
        its next link: right below its previous one, or after the places its ``evidence``
        shows it published on a branch an answer voided (chain.authenticate checked the
        evidence itself)."""
        tip = self.tip()
        published = [bytes.fromhex(self.anchor)] + [bytes.fromhex(a) for _, a in self.anchors]
        known = len(published)
        linked = [*evidence.own_links(entry), entry]
        why, _ = beacon.follow_links(tip, linked, published)
        if why:  # chain.authenticate refused it already, or sign_entry built it wrong
            raise IntegrityError(f"Entry {entry['seq']} ({self.handle}): {why}.",
                                 seq=entry["seq"], code="beacon")
        renewing = [e for e in linked if "anchor" in e]
        self.anchors += [[e["seq"], fresh.hex()] for e, fresh in zip(renewing, published[known:],
                                                                     strict=True)]
        skipped = len(evidence.own_links(entry))
        if skipped:
            self.skips.append([int(entry["seq"]), skipped])
        self.last_beacon, self.chain, self.depth = entry["beacon"], tip.chain, tip.depth
        self.fresh = tip.fresh.hex()
        self.links += 1


# The form of the table the archive caches (to_json). A change in what the engine keeps
# or how it works a field out (2: a remedy taking effect starts the clock of the seat it
# makes to act; 3: format pbem/2, links only in the order of play) bumps it, so a table
# cached by an older pbem is never resumed from: the home replays instead, and reaches
# the verdict any other verifier does.
# 4: rounds (PROTOCOL.md section 4); 5: the set of a round kept; 6: turn rounds' kind
# and commitments, the queue of proposals in a round's slots; 9: whether a proposal in
# a slot of a round of deck work that draws chance stands where nothing is drawn; 10: a
# bot turn's chance draws from the newest link of another seat than its signer; 11: chance
# a round of deck work draws from two links (pair_draw); 12: an answer before that round
# begins the draw (a table cached by 11 had it resolve alone)
CACHE_FORMAT = 12


class Duty(NamedTuple):
    seat: int
    kind: str  # create, join, start, turn, reveal, vote


class Table(Record):
    """Everything replay knows after some prefix of the entries."""

    def __init__(self, header: dict[str, Any], seats: list[SeatRecord], gstate: State,
                 signers: list[int] | None = None, beacons: list[str] | None = None,
                 head: str = "", started: bool = False, last_turn_seat: int = -1,
                 resigned: int = -1, reveal_first: int = -1, findings: list[str] | None = None,
                 bots: list[int] | None = None, dropped: list[int] | None = None,
                 stopped: bool = False, proposal: dict[str, Any] | None = None,
                 since: str = "", against: list[str] | None = None,
                 away_until: list[str] | None = None, away_used: list[int] | None = None,
                 round_first: int = -1, round_prev: str = "",
                 round_digests: list[str] | None = None,
                 round_signed: list[int] | None = None,
                 round_set: list[int] | None = None, round_latest: str = "",
                 round_kind: str = "", commits: list[list[Any]] | None = None,
                 queue: list[dict[str, Any]] | None = None,
                 round_work: list[list[Any]] | None = None,
                 pair_draw: dict[str, Any] | None = None) -> None:
        self.header = header
        self.seats = seats
        self.gstate = gstate
        self.signers = [] if signers is None else signers  # seat of each entry, by seq
        self.beacons = [] if beacons is None else beacons  # beacon of each entry, by seq
        self.head = head  # hash of the last entry (the header's before entry 0)
        self.started = started
        self.last_turn_seat = last_turn_seat
        self.resigned = resigned
        self.reveal_first = reveal_first  # who reveals first, when chance ended the game
        self.findings = [] if findings is None else findings  # audit violations in replay
        # Absent players (PROTOCOL.md section 11, pbem.protocol.timekeeping.absence): the seats the
        # bot plays, the seats dropped by remedy "end" (and whether that stopped the game
        # before its rules ended it), and the proposal being voted on ({} when none).
        self.bots = [] if bots is None else bots
        self.dropped = [] if dropped is None else dropped
        self.stopped = stopped
        self.proposal = {} if proposal is None else proposal
        # The game clock (PROTOCOL.md section 11, pbem.protocol.timekeeping.clock), all signed times
        # ('' for none): the entry that made the seat now waited for to act; per seat,
        # the latest proposal against it (or its refusal), the end of its away note and
        # the seconds of its away allowance used.
        n = len(seats)
        self.since = since
        self.against = [""] * n if against is None else against
        self.away_until = [""] * n if away_until is None else away_until
        self.away_used = [0] * n if away_used is None else away_used
        # The round under way (PROTOCOL.md section 4): the seq of its first entry (-1 when
        # none), the head before it (every entry of the round follows it), the digests of
        # its entries and their seats, in seat order ('' for an entry being applied).
        self.round_first = round_first
        self.round_prev = round_prev
        self.round_digests = [] if round_digests is None else round_digests
        self.round_signed = [] if round_signed is None else round_signed
        # The round's set of seats, fixed when its first entry is applied: a reveal
        # round's set does not change while it fills.
        self.round_set = [] if round_set is None else round_set
        # The latest signed time of the round's entries so far ('' when none): the clock
        # of whoever acts after a turn round starts there once the round is complete.
        self.round_latest = round_latest
        # A round of a simultaneous step: "" (moves in the open), "sealed" (commitments)
        # or "opening" (the sealed moves opened); and the commitments not opened yet,
        # [seat, seq of the committing entry, commitment], in seat order.
        self.round_kind = round_kind
        self.commits = [] if commits is None else commits
        # Proposals signed in a round's slots, waiting to open one after another once the
        # round is complete, in slot order (docs/protocol-rounds.md): the open one is
        # ``proposal``; the next opens when it is settled.
        self.queue = [] if queue is None else queue
        # A round of secret-deck work (round_kind "deck"): the work each seat of it owed
        # when it began, [seat, deck, item], which its entry must do (deck_rounds.plan).
        self.round_work = [] if round_work is None else round_work
        # Chance a round of deck work draws from two of its links (pbem.protocol.replay.
        # pairdraw): the two seats, the queuing one first, and their links as they come.
        self.pair_draw = {} if pair_draw is None else pair_draw

    def copy(self) -> Table:
        """A table sharing nothing that ``engine.step`` changes with this one: the header
        is shared (nothing changes it), each seat copies itself, the game state shares
        its Fixed tables (copy_state), and every other field is plain data, copied whole
        in one pass, so a field added to the table is copied without a word here."""
        fields = vars(self)
        apart = {"header": self.header, "seats": [s.copy() for s in self.seats],
                 "gstate": copy_state(self.gstate)}
        plain = copied({k: v for k, v in fields.items() if k not in apart})
        fresh = object.__new__(Table)
        fresh.__dict__.update({k: apart[k] if k in apart else plain[k] for k in fields})
        return fresh

    def link_before(self, seq: int, other_than: int) -> tuple[int, bytes]:
        """The newest beacon link published before entry ``seq`` by another seat than
        ``other_than``, and the entry that published it ((-1, b"") if none): entries
        signed out of the order of play publish none (PROTOCOL.md section 5). A seat's own
        links it knows in advance, so one of them would let it foresee what is drawn."""
        for index in range(min(seq, len(self.beacons)) - 1, -1, -1):
            if self.beacons[index] and self.signers[index] != other_than:
                return index, bytes.fromhex(self.beacons[index])
        return -1, b""

    @property
    def game_id(self) -> str:
        return str(self.header["id"])

    @property
    def game(self) -> Game:
        """The game as the save's rules version plays it (headers.header_fits checked it)."""
        return for_save(self.header["game"]).for_rules(self.header["rules_version"])

    @property
    def solo(self) -> bool:
        return len(self.seats) == 1

    def joined(self) -> int:
        return sum(1 for s in self.seats if s.pubkey)

    def _first_unjoined(self) -> int:
        return next(i for i, s in enumerate(self.seats) if not s.pubkey)

    # ---- rounds (PROTOCOL.md section 4) ------------------------------------------------
    def join_round(self) -> list[int]:
        """The seats whose joins form a round: every seat but the host, when two or more
        join and no join owes a shuffle pass (a mental deck's passes at set-up each work
        on the deck the pass before made, so those joins stay one after another)."""
        if len(self.seats) < 3 or self.mental_decks():
            return []
        return list(range(1, len(self.seats)))

    def round_seats(self) -> list[int]:
        """The set of seats the order of play names for the round it waits on now, in
        seat order ([] when the next step is no round)."""
        if self.round_first >= 0 and self.round_set:
            return list(self.round_set)  # fixed when the round started
        if self.seats[0].pubkey and self.joined() < len(self.seats):
            seats = self.join_round()
            if self.round_first < 0 and any(self.seats[s].pubkey for s in seats):
                return []  # a join signed without a round: the others follow in seat order
            return seats
        return self.reveal_round() or self.step_round() or self.deck_round()

    def step_round(self) -> list[int]:
        """The seats whose turns of a simultaneous step of the rules form a round (the
        game's ``simultaneous``, two or more), when the turns are independent of the
        engine's own work too: no proposal open, no secret-deck work owed (but the adopts
        each seat of a step that is not sealed does in its turn, :meth:`step_work`) and,
        unless the step is sealed, no chance pending (an entry before the step resolves
        it) and no seat played by the bot or dropped. Otherwise the step's seats play one
        after another in seat order, as the game's ``to_act`` names them. A sealed step's
        round is of the seats played by people (docs/protocol-rounds.md)."""
        return self._step()[0]

    def step_work(self) -> dict[int, dict[str, list[dict[str, Any]]]]:
        """seat -> deck -> the adoptions of one-step passes (docs/protocol-deck.md) each
        seat of the simultaneous step about to start owes, which its entry in the step's
        round does after its moves ({} when none, or when no such round starts)."""
        return {} if self.round_first >= 0 else self._step()[1]

    def _step(self) -> tuple[list[int], dict[int, dict[str, list[dict[str, Any]]]]]:
        """(:meth:`step_round`, the adoptions its seats owe), worked out once."""
        if (not self.started or self.resigned >= 0 or self.stopped or self.proposal
                or self.queue):
            return [], {}
        if self.commits:  # the opening round: the seats that sealed their moves
            if self.late_commits():
                return [], {}  # nothing is opened before every seat of the step committed
            opening = [int(c[0]) for c in self.commits]
            return (opening if len(opening) > 1 else []), {}
        # Chance pending is resolved by an entry before the step's round (for a sealed
        # step, one that carries no moves: chance_before_round). A sealed step's seat
        # played by the bot plays after its rounds.
        if self.gstate.get("pending") or (not self.game.sealed(self.gstate)
                                          and (self.bots or self.dropped)):
            return [], {}
        gone = silent(self)
        seats = [s for s in self.game.simultaneous(self.gstate) if s not in gone]
        if len(seats) < 2:
            return [], {}
        if not self._deck_work_owed():
            return sorted(seats), {}
        work = self._adoptions(seats)  # deck work owed: a round only if it is their adopts
        return (sorted(seats), work) if work else ([], {})

    def _adoptions(self, seats: list[int]) -> dict[int, dict[str, list[dict[str, Any]]]]:
        """The plan of a round's deck work (deck_rounds.plan) when the work owed now is
        only adoptions, each owed by one of ``seats`` (a step that is not sealed), so each
        seat's entry of the step can do its own: {} otherwise."""
        if self.game.sealed(self.gstate):
            return {}
        from pbem.protocol.crypto import deck_rounds, mental_deck

        decks = self.mental_decks()
        if any(item["op"] != "adopt" for d in decks.values() for item in mental_deck.owed_now(d)):
            return {}  # (a shuffle pass still owed: plan gives {})
        plan = deck_rounds.plan(decks)
        return plan if plan and set(plan) <= set(seats) else {}

    def deck_duty(self) -> list[int]:
        """The seats owing secret-deck work, in seat order, when the game waits on it
        (``Game.waits_on_deck``): the engine asks them for it, each in an entry with no
        moves; [] otherwise, and while a proposal is open or queued."""
        if (not self.started or self.resigned >= 0 or self.stopped or self.proposal
                or self.queue or not self._deck_work_owed()
                or not self.game.waits_on_deck(self.gstate)):
            return []
        from pbem.protocol.crypto import mental_deck

        owing = {s for d in self.mental_decks().values() for s in mental_deck.owing(d)}
        return sorted(owing)

    def owes_deck_work(self, seat: int) -> bool:
        """Whether ``seat`` owes secret-deck work now on a deck the game waits on, proposals
        aside (one of :meth:`deck_duty`'s seats, were none open or queued)."""
        if (not self.started or self.resigned >= 0 or self.stopped or not self._deck_work_owed()
                or not self.game.waits_on_deck(self.gstate)):
            return False
        from pbem.protocol.crypto import mental_deck

        return any(seat in mental_deck.owing(d) for d in self.mental_decks().values())

    def deck_round(self) -> list[int]:
        """The seats of a round of secret-deck work (docs/protocol-rounds.md, "Rounds of
        secret-deck work"): those of :meth:`deck_duty`, two or more, when each one's work is
        independent of the others' (deck_rounds.plan), no chance is pending and no seat
        is played by the bot or dropped. Otherwise they sign one after another."""
        return sorted(self.deck_round_plan())

    def deck_round_plan(self) -> dict[int, dict[str, list[dict[str, Any]]]]:
        """seat -> deck -> the items each seat's entry in the round of deck work about to
        start must do (:meth:`deck_round`; {} when no such round starts)."""
        seats = self.deck_duty()
        if len(seats) < 2 or self.bots or self.dropped:
            return {}
        pending = self.gstate.get("pending")
        if pending and (not self.game.deck_round_resolves(self.gstate)
                        or not self.deck_round_drawers(seats, pending)):
            return {}
        from pbem.protocol.crypto import deck_rounds

        plan = deck_rounds.plan(self.mental_decks())
        return plan if sorted(plan) == seats else {}

    def deck_round_resolver(self) -> int:
        """The seat of the round of deck work under way (or about to start) whose entry
        resolves the chance pending when the round began, at its beginning, as a lone entry
        would (Game.deck_round_resolves): the first of the round's seats, in seat order,
        that queued none of it. The round's other entries resolve nothing. -1: none."""
        if self.round_first >= 0:
            if self.round_kind != "deck" or self.pair_draw:
                return -1
            seats = self.round_set
            pending = [r for r in self.gstate.get("pending", [])
                       if r.get("seq", self.round_first) < self.round_first]
        else:
            seats = self.deck_round()
            pending = self.gstate.get("pending", []) if seats else []
        if pending and self.game.deck_round_pair(self.gstate):
            return -1  # drawn from two of the round's links, by no one entry
        return self._resolver_of_all(seats, pending) if pending else -1

    def deck_round_drawers(self, seats: list[int], pending: list[dict[str, Any]]) -> list[int]:
        """The seats whose links in a round of deck work of ``seats`` draw the chance
        ``pending`` (Game.deck_round_resolves): the resolver (:meth:`deck_round_resolver`);
        where the game draws it from two links (Game.deck_round_pair), the seat that queued
        it, then the resolver, the queuing seat one of ``seats`` and the only one. []: no
        such round is formed."""
        resolver = self._resolver_of_all(seats, pending)
        if resolver < 0 or not self.game.deck_round_pair(self.gstate):
            return [] if resolver < 0 else [resolver]
        queuers = sorted(set(self._queuers(pending)))
        return [queuers[0], resolver] if len(queuers) == 1 and queuers[0] in seats else []

    def _resolver_of_all(self, seats: list[int], pending: list[dict[str, Any]]) -> int:
        """The first of ``seats`` that queued none of ``pending``, so its entry resolves
        all of it; -1 if every one of them queued some."""
        queuers = self._queuers(pending)
        return next((s for s in seats if s not in queuers), -1)

    def _queuers(self, pending: list[dict[str, Any]]) -> list[int]:
        """The seat whose entry queued each of ``pending`` (-1: not stamped yet)."""
        return [self.signers[r["seq"]] if 0 <= r.get("seq", -1) < len(self.signers)
                else -1 for r in pending]

    def deck_work_next(self) -> bool:
        """Whether the entries the game waits on are secret-deck work the engine asked
        for (:meth:`deck_duty`; a round of it under way or about to start)."""
        if self.round_first >= 0:
            return self.round_kind == "deck"
        return bool(self.deck_duty())

    def asks_deck_work(self, seat: int) -> bool:
        """Whether ``seat``'s next turn is one the engine asks for secret-deck work only
        (:meth:`deck_duty`; in a round of deck work, its slot): it takes no move."""
        if self.round_place(seat) is not None:
            return self.deck_work_next() and bool(self.work_in_round(seat))
        duty = self.duty()
        return duty is not None and duty.seat == seat and bool(self.deck_duty())

    def work_in_round(self, seat: int) -> dict[str, list[dict[str, Any]]] | None:
        """deck -> the items ``seat``'s entry in the round of deck work it signs in must
        do (fixed when the round began); None when it signs in no such round."""
        if self.round_first >= 0:
            if self.round_kind != "deck" and not self.round_work:
                return None
            out: dict[str, list[dict[str, Any]]] = {}
            for who, deck, item in self.round_work:
                if who == seat:
                    out.setdefault(str(deck), []).append(dict(item))
            return out
        return (self.deck_round_plan() or self.step_work()).get(seat)

    def late_commits(self) -> list[int]:
        """The seats of a sealed step still to act, played by people, that have not
        committed while others have (the proposal in a seat's slot refused, or void as it
        opened), in seat order: each commits, an ordinary entry, before anything is
        opened; else it would play its turn in the open having read the others' openings
        (docs/protocol-rounds.md)."""
        if self.round_first >= 0 or not self.commits or self.resigned >= 0 or self.stopped:
            return []
        gone = silent(self)
        return [s for s in sorted(self.game.simultaneous(self.gstate))
                if s not in gone and self.commitment(s) is None]

    def chance_before_round(self) -> list[int]:
        """The seats of a sealed step about to start (those played by people, in seat
        order) while chance is pending, [] otherwise. The chance is resolved before the
        step's round of commitments, by an entry of one of them that carries no moves
        (:meth:`chance_resolver`): resolved after the rounds, by the first entry in the
        order of play, its outcome would be known to that entry's signer, whose own next
        beacon link draws it, while it committed and the others could not know it."""
        if (self.round_first >= 0 or self.commits or not self.gstate.get("pending")
                or not self.started or self.resigned >= 0 or self.stopped or self.proposal
                or not self.game.sealed(self.gstate)):
            return []
        gone = silent(self)
        seats = [s for s in self.game.simultaneous(self.gstate) if s not in gone]
        return sorted(seats) if len(seats) > 1 and not self._deck_work_owed() else []

    def chance_resolver(self, seats: list[int]) -> int:
        """The first of ``seats`` whose entry resolves some of the chance pending: a
        request is resolved by another seat than the one whose entry queued it."""
        queuers = self._queuers(self.gstate.get("pending", []))
        return next((s for s in seats if any(q != s for q in queuers)), seats[0])

    def reveal_round(self) -> list[int]:
        """The seats whose final reveals form a round: every seat still to reveal, when two
        or more are and their reveals are independent (no chance pending, no bot,
        no dropped seat, no proposal open, no secret-deck work owed, each seat can read its
        own draws, no seat has a choice left), so a reveal in it carries no moves, does no
        deck work but the opens of its own held cards its reveal owes (Game.opens_at_reveal)
        and resolves nothing. A seat withholding its reveal is proposed absent in
        its slot, and the proposals are settled one after another once the round is
        complete (the queue, docs/protocol-rounds.md)."""
        if (len(self.seats) < 2 or not self.started or self.proposal or self.queue
                or self.bots or self.dropped or self.gstate.get("pending")):
            return []
        duty = self._play_duty()
        if duty is None or duty.kind != "reveal":
            return []
        waiting = self.waiting_reveals()
        if len(waiting) < 2 or self._deck_work_owed():
            return []
        if not all(self._can_read_draws(s) for s in waiting):
            return []
        if self.reveals_take_moves() and any(self.game.legal_moves(self.gstate, s)
                                             for s in waiting):
            return []
        return sorted(waiting)

    def step_kind(self) -> str:
        """What the round of a simultaneous step under way (or about to start) signs:
        "sealed" (each seat's commitment to its moves, where the game says the step is
        sealed), "opening" (the moves those commitments hide) or "" (moves in the open,
        or no such round)."""
        if self.round_first >= 0:
            return "" if self.round_kind == "deck" else self.round_kind
        if self.commits:
            return "opening"
        if self.step_round() and self.game.sealed(self.gstate):
            return "sealed"
        return ""

    def commitment(self, seat: int) -> tuple[int, str] | None:
        """(seq of the entry, commitment) of ``seat``'s sealed moves not opened yet."""
        for owner, seq, sealed in self.commits:
            if owner == seat:
                return int(seq), str(sealed)
        return None

    def mental_decks(self) -> dict[str, dict[str, Any]]:
        """The game's secret decks in mental mode, by name."""
        return {name: d for name, d in self.gstate.get("secret", {}).items()
                if d.get("mode") == "mental"}

    def _deck_work_owed(self) -> bool:
        decks = self.mental_decks()
        if not decks:
            return False
        from pbem.protocol.crypto import mental_deck

        return any(mental_deck.owing(d) for d in decks.values())

    def round_missing(self) -> list[int]:
        """The seats of the round the game waits on that have not signed in it yet."""
        return [s for s in self.round_seats() if s not in self.round_signed]

    def round_revealed(self, seat: int) -> bool:
        """Whether ``seat`` signed its own slot of the round under way (its slot may hold
        a proposal against it instead)."""
        if seat not in self.round_signed:
            return False
        return self.signers[self.round_first + self.round_signed.index(seat)] == seat

    def duty_for(self, seat: int | None) -> Duty | None:
        """:meth:`duty` as ``seat`` reads it: in a round, a seat still to sign in it acts
        now too (the duty names the first of them)."""
        duty = self.duty()
        if duty is not None and seat is not None and seat in self.round_missing():
            return Duty(seat, duty.kind)
        return duty

    def round_place(self, seat: int) -> tuple[int, int] | None:
        """(seq of the round's first entry, seq of ``seat``'s entry) if ``seat`` signs
        next in a round, else None."""
        if seat not in self.round_missing():
            return None
        first = self.round_first if self.round_first >= 0 else len(self.signers)
        return first, first + self.round_seats().index(seat)

    def settle_head(self, entry_digest: str) -> None:
        """After an entry with hash ``entry_digest`` was applied: the ``prev`` of the next
        entry. Within a round, still the entry before the round; once the round is
        complete, its digest (rounds.round_digest)."""
        if self.round_first < 0:
            self.head = entry_digest
            return
        self.round_digests[self.round_digests.index("")] = entry_digest  # engine._enter_round
        if self.round_missing():
            self.head = self.round_prev
            return
        from pbem.protocol.state.rounds import round_digest

        self.head = round_digest(self.round_digests)
        self.round_first, self.round_prev, self.round_latest = -1, "", ""
        self.round_digests, self.round_signed, self.round_set = [], [], []
        self.round_kind, self.round_work = "", []

    def over(self) -> bool:
        return self.started and (self.resigned >= 0 or self.stopped
                                 or self.game.to_act(self.gstate) is None)

    def reveals_take_moves(self) -> bool:
        """Whether a reveal may still carry moves (the choices the rules leave after their
        end, such as keeping a secret card drawn in the last turn): only when the rules
        ended the game. A resignation or the remedy ``end`` fixes the position the others
        are ranked by, so nobody moves after it, the resigning seat least of all."""
        return self.resigned < 0 and not self.stopped

    def reveal_order(self) -> list[int]:
        n = len(self.seats)
        if self.reveal_first >= 0:
            first = self.reveal_first
        else:
            first = (self.last_turn_seat + 1) % n if self.last_turn_seat >= 0 else 0
        return [(first + i) % n for i in range(n)]

    def duty(self) -> Duty | None:
        """Who signs next and what kind of entry; None once every seat has revealed."""
        joined = self.joined()
        if joined < len(self.seats):
            return Duty(self._first_unjoined(), "join" if joined else "create")
        if not self.started:
            return Duty(0, "start")
        if self.proposal and self.proposal["voters"]:
            return Duty(self.proposal["voters"][0], "vote")
        return self._play_duty()  # what waiting_duty would say, its checks made above

    def waiting_duty(self) -> Duty | None:
        """Whose turn or reveal the game waits for, votes left aside: the seat a proposal
        names answers it by signing this (PROTOCOL.md section 11). A proposal nobody
        votes on (it waits for its confirm) leaves the game waiting for that seat."""
        joined = self.joined()
        if joined < len(self.seats):
            return Duty(self._first_unjoined(), "join" if joined else "create")
        if not self.started:
            return Duty(0, "start")
        return self._play_duty()

    def _play_duty(self) -> Duty | None:
        """waiting_duty once every seat has joined and the game has started."""
        # Not over() (started, nobody resigned, not stopped, someone to act), asking the
        # game whose turn it is once.
        seat = None if self.resigned >= 0 or self.stopped else self.game.to_act(self.gstate)
        # Deck work the game waits on: the engine's to ask for, not the game's.
        owing = self.deck_duty() if seat is not None and self.round_first < 0 else []
        if owing:
            seat = self._next_worker(owing)
        elif seat is not None and self.round_kind == "deck" and self.round_missing():
            # (every slot may be signed while the round is applied: a proposal in the
            # last one asks for the duty before the round completes; the game's then)
            seat = self.round_missing()[0]
        if seat is not None:
            missing = self.round_missing() if self.round_first >= 0 else []
            if missing and (self.round_kind == "sealed" or seat not in missing):
                # Commitments leave the game's state (and to_act) as it was; a seat whose
                # slot holds a proposal plays once the round is complete: the round
                # waits for its empty slots, as a reveal round does.
                seat = missing[0]
            late = self.late_commits()
            if late:
                seat = late[0]
            ahead = self.chance_before_round()
            if ahead:
                seat = self.chance_resolver(ahead)
            if seat in self.bots:
                return Duty(bot_signer(self, seat), "turn")
            return Duty(seat, "turn")
        waiting = self.waiting_reveals()
        if not waiting:
            return None
        missing = [s for s in self.round_set if s not in self.round_signed] \
            if self.round_first >= 0 else []
        if missing:  # a reveal round under way waits for its empty slots, not its proposed
            return Duty(missing[0], "reveal")
        if self.reveal_first in waiting:
            return Duty(self.reveal_first, "reveal")
        # A seat still holding secret cards it drew but cannot read yet reveals after
        # the seats whose layers are on them have done their peels (their reveal
        # entries do owed work), so it can still make its last choice.
        for seat in waiting:
            if self._can_read_draws(seat):
                return Duty(seat, "reveal")
        return Duty(waiting[0], "reveal")

    def _next_worker(self, owing: list[int]) -> int:
        """Of the seats owing the deck work the game waits on, the one that signs next:
        the first of a round's, or the first after the last signer in seat order."""
        if self.deck_round():
            return owing[0]
        last = self.signers[-1] if self.signers else -1
        return min(owing, key=lambda s: (s - last - 1) % len(self.seats))

    def awaiting_reveals(self) -> list[int]:
        """The seats whose reveal the audit waits for, the next one first ([] unless the
        game is in its revealing phase)."""
        duty = self.duty()
        if duty is None or duty.kind != "reveal":
            return []
        return [duty.seat] + [s for s in self.waiting_reveals() if s != duty.seat]

    def waiting_reveals(self) -> list[int]:
        """Seats still to reveal, in reveal order (an absent seat never reveals)."""
        gone = silent(self)
        return [s for s in self.reveal_order() if not self.seats[s].seed and s not in gone]

    def _can_read_draws(self, seat: int) -> bool:
        decks = self.mental_decks()
        if not decks:
            return True
        from pbem.protocol.crypto import mental_deck

        return all(mental_deck.readable(d, seat) for d in decks.values())

    def phase(self) -> str:
        duty = self.duty()
        if duty is None:
            return "complete"
        return {"create": "joining", "join": "joining", "start": "starting",
                "turn": "playing", "vote": "voting", "reveal": "revealing"}[duty.kind]

    def seat_of(self, handle: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s.handle == handle:
                return i
        return None

    # ---- the archive's cache --------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": CACHE_FORMAT,
            "seats": [vars(s) for s in self.seats],
            "gstate": self.gstate,
            "signers": self.signers,
            "beacons": self.beacons,
            "head": self.head,
            "started": self.started,
            "last_turn_seat": self.last_turn_seat,
            "resigned": self.resigned,
            "reveal_first": self.reveal_first,
            "findings": self.findings,
            "bots": self.bots,
            "dropped": self.dropped,
            "stopped": self.stopped,
            "proposal": self.proposal,
            "since": self.since,
            "against": self.against,
            "away_until": self.away_until,
            "away_used": self.away_used,
            "round_first": self.round_first,
            "round_prev": self.round_prev,
            "round_digests": self.round_digests,
            "round_signed": self.round_signed,
            "round_set": self.round_set,
            "round_latest": self.round_latest,
            "round_kind": self.round_kind,
            "commits": self.commits,
            "queue": self.queue,
            "round_work": self.round_work,
            "pair_draw": self.pair_draw,
        }

    @classmethod
    def from_json(cls, header: dict[str, Any], data: dict[str, Any]) -> Table:
        if data.get("format") != CACHE_FORMAT:
            raise ValueError("a table cached by another version of pbem")
        return cls(
            header=header,
            seats=[SeatRecord(**s) for s in data["seats"]],
            gstate=data["gstate"],
            signers=list(data["signers"]),
            beacons=list(data["beacons"]),
            head=data["head"],
            started=data["started"],
            last_turn_seat=data["last_turn_seat"],
            resigned=data["resigned"],
            reveal_first=data["reveal_first"],
            findings=list(data.get("findings", [])),
            bots=[int(s) for s in data.get("bots", [])],
            dropped=[int(s) for s in data.get("dropped", [])],
            stopped=bool(data.get("stopped", False)),
            proposal=dict(data.get("proposal") or {}),
            # No default: a table cached before the game clock is not used (a replay).
            since=str(data["since"]),
            against=[str(t) for t in data["against"]],
            away_until=[str(t) for t in data["away_until"]],
            away_used=[int(u) for u in data["away_used"]],
            round_first=int(data["round_first"]),
            round_prev=str(data["round_prev"]),
            round_digests=[str(d) for d in data["round_digests"]],
            round_signed=[int(s) for s in data["round_signed"]],
            round_set=[int(s) for s in data["round_set"]],
            round_latest=str(data["round_latest"]),
            round_kind=str(data["round_kind"]),
            commits=[list(c) for c in data["commits"]],
            queue=[dict(p) for p in data["queue"]],
            round_work=[list(w) for w in data["round_work"]],
            pair_draw=dict(data["pair_draw"]),
        )


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


class Report(Record):
    """What verify found."""

    def __init__(self, table: Table, hashes: list[str], checked_from: int = 0) -> None:
        self.table = table
        self.hashes = hashes
        self.audit: str | list[str] = "pending"  # "clean", "pending" or violations
        self.unaudited: list[str] = []  # absent seats' secrets, unchecked
        # Cards held or drawn left closed under an absent seat's layer (audit.closed_cards).
        self.closed: list[dict[str, Any]] = []
        # The result as every command tells it (pbem.protocol.state.result.summary)
        self.result: dict[str, Any] = {}
        self.outcome: Outcome | None = None
        self.notes: list[str] = []
        self.checked_from = checked_from  # first entry the rules replay ran on (> 0: archive)
        self.final: State | None = None  # after the audit: the state with the cards opened
        # digest(header["components"]), when the replay worked it out (from entry 0)
        self.components_digest: str | None = None


def name_seats(table: Table, text: str) -> str:
    """'seat 2' -> 'seat 2 (cy)' in messages from the mental deck."""
    return re.sub(r"seat (\d+)", lambda m: f"{table.seats[int(m.group(1))].handle}"
                  if int(m.group(1)) < len(table.seats) else m.group(0), text)

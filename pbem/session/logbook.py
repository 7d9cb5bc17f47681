"""Finding saves and telling their history: a save named by path, game id or a prefix of
one (``find_save``), the games list (``games``), what each entry did (``note_of``,
``history``) and the view at an earlier entry (``view_at``).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, NamedTuple

from pbem import session
from pbem.errors import PbemError, UsageError
from pbem.game import copy_state
from pbem.home import gameindex, toldcache
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.table import Table
from pbem.protocol.timekeeping import absence
from pbem.record import Record
from pbem.session import holding


# ---- finding saves, history -------------------------------------------------------------
def find_save(home: Home | None, text: str, notes: list[str] | None = None) -> Path:
    """The save a command's SAVE argument names. A path that exists is that file; else a
    game's short id, or any unique start of its id, names the newest save this home has
    of that game (pbem.home.gameindex). Any other text is returned as a path (reading
    it says there is no such file). UsageError for an id that fits no game or several,
    or whose recorded file now holds another game. Where the id also starts an
    invitation this home has not joined, the game it has joined wins and ``notes`` gets
    a sentence saying so."""
    path = Path(text)
    prefix = text.lower()
    if home is None or path.exists() or not gameindex.ID_PREFIX.fullmatch(prefix):
        return path
    found = gameindex.GameIndex(home.path).matching(prefix)
    if not found:
        raise UsageError(f"There is no file {text}, and no game of this home has an id "
                         f"starting with {text}. 'pbem games' lists the games and their ids.")
    joined = [r for r in found if _has_signed(r)]
    if len(found) > 1 and len(joined) == 1:
        # An invitation can be made with any id, so one can be made to share the start of
        # a real game's: the game this home has signed in comes first.
        others = ", ".join(f"{r.title} {r.id}" for r in found if r is not joined[0])
        if notes is not None:
            notes.append(f"{text} also starts the id of {others}, which you have not "
                         f"joined; using {joined[0].title} {joined[0].id}, the game you "
                         "are in. Give more of the id for the other.")
        found = joined
    if len(found) > 1:
        width = _distinct_width([r.id for r in found])
        names = ", ".join(f"{r.id[:width]} ({r.title})" for r in found)
        raise UsageError(f"{text} starts the ids of {len(found)} games: {names}. Give more "
                         "of the id, or the save's path.")
    record = found[0]
    if not record.exists():
        from pbem.errors import SaveFileError

        raise SaveFileError(f"The newest save this home has of {record.title} "
                            f"{record.short_id} was {record.path}, which is missing (deleted "
                            "or moved). Give the path of a save of that game.")
    try:
        there = savefile.read(record.path).game_id
    except PbemError:
        there = ""
    if there != record.id:  # replaced since: never sign a turn in another game by mistake
        raise UsageError(f"{record.path}, the newest save this home had of {record.title} "
                         f"{record.short_id}, now holds "
                         + (f"another game ({there[:8]})" if there else "no readable save")
                         + ". Give the path of a save of that game; nothing was written.")
    return Path(record.path)


def _has_signed(record: gameindex.GameRecord) -> bool:
    """Whether this home's seat has signed an entry of the game (it has joined it)."""
    return any(a.get("handle") == record.you and a.get("seq") is not None
               for a in record.acted)


def _distinct_width(ids: list[str]) -> int:
    """How many leading characters tell these ids apart (at least a short id's 8)."""
    width = gameindex.SHORT_ID_LENGTH
    while width < 32 and len({i[:width] for i in ids}) < len(ids):
        width += 1
    return width


def games(home: Home) -> list[gameindex.GameRecord]:
    """The games this home is in, from its index (``pbem games``)."""
    return gameindex.GameIndex(home.path).games()


class EntryNote(NamedTuple):
    """One entry of a game's history: who signed what, when, and what it changed (the
    game's own words, Game.describe: draws, dice, refills, scores, not only the moves)."""

    seq: int
    kind: str
    seat: str
    time: datetime.datetime | None
    moves: list[str]
    changes: list[str]
    # An absent seat's turns the bot played inside this entry, before the signer's own
    # (PROTOCOL.md section 11): [{"seat", "moves"}], each listed like a person's turn.
    bot: list[dict[str, Any]] = []
    # The signer's table talk (the entry's ``note``), '' for none: signed, never played.
    note: str = ""

    def heading(self) -> str:
        """'  12  turn    bob          2025-06-02 10:00 UTC  mine 1; trade scrap:gold x2'
        (no time when the entry signed none), then a line for each bot turn in it and
        one for the signer's note."""
        when = f"{timing.shown(self.time)}  " if self.time else ""
        line = f"{self.seq:4d}  {self.kind:7} {self.seat:12} {when}{'; '.join(self.moves)}"
        return "\n".join([line.rstrip(), *(
            f"      bot     {t['seat']:12} {'; '.join(t['moves']) or '(nothing)'}  "
            f"(the bot's turn for absent {t['seat']}, signed by {self.seat})"
            for t in self.bot), *([f"        {savefile.said(self.seat, self.note)}"] if self.note else [])])

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "seat": self.seat,
                "time": timing.stamp(self.time), "moves": list(self.moves),
                "changes": list(self.changes), "bot": [dict(t) for t in self.bot],
                "note": self.note or None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryNote:
        return cls(int(data["seq"]), str(data["kind"]), str(data["seat"]),
                   timing.parse_stamp(data.get("time")), list(data["moves"]),
                   list(data["changes"]), [dict(t) for t in data.get("bot", [])],
                   str(data.get("note") or ""))


def note_of(before: Table, after: Table, entry: savefile.Entry) -> EntryNote:
    """What ``entry`` did, from the tables just before and just after it."""
    changes: list[str] = []
    # create and join change no game state; nor does an entry out of the order of play
    # (PROTOCOL.md section 5), and the game's words for it would only repeat what waits.
    moved = entry["kind"] not in absence.OUT_OF_TURN or before.gstate != after.gstate
    if entry["kind"] not in ("create", "join") and moved:
        seat = after.seat_of(entry["seat"])
        assert seat is not None
        changes = after.game.describe(before.gstate, after.gstate, seat)
    bot = [{"seat": str(t["seat"]), "moves": [str(m) for m in t["moves"]]}
           for t in entry.get("bot", [])]
    # What the entry changed includes the bot's turns: say whose they were first.
    told = [f"{t['seat']} (absent) played by the bot, signed by {entry['seat']}: "
            f"{'; '.join(t['moves']) or 'nothing'}." for t in bot]
    told += _leaving_words(entry, before)
    return EntryNote(int(entry["seq"]), str(entry["kind"]), str(entry["seat"]),
                     timing.signed_time(entry), list(entry["moves"]), told + changes, bot,
                     str(entry.get("note", "")))


def _leaving_words(entry: savefile.Entry, before: Table) -> list[str]:
    """What a resignation, an absence entry or a sealed commitment did, for the log (the
    game's state may not change at all: the engine's tables do)."""
    who, kind = entry["seat"], entry["kind"]
    if kind == "absent":
        return [f"{who} proposed that {entry['player']} is absent, remedy '{entry['remedy']}'."]
    if kind in ("vote", "confirm"):
        return [settling_words(entry, before) + "."]
    if kind == "resign":
        return [f"{who} resigned and ranks last."]
    if "sealed" in entry:  # a sealed step's commitment: its moves stay hidden until opened
        return [f"{who} sealed its moves; they are opened once every seat of the step has."]
    resolving = resolving_words(entry, before)
    return [resolving + "."] if resolving else []


def bot_turn_words(entry: savefile.Entry) -> str:
    """"ann's turn for the bot (forward 3)", one for each turn of an absent seat the
    entry played (PROTOCOL.md section 11), as a mail's history tells it; '' for none."""
    return ", ".join(f"{t['seat']}'s turn for the bot ({'; '.join(t['moves']) or 'nothing'})"
                     for t in entry.get("bot", []))


def resolving_words(entry: savefile.Entry, before: Table) -> str:
    """"ann resolved the chance pending before the sealed step (...)": a turn with no moves
    signed while chance is pending ahead of a sealed step (Table.chance_before_round),
    which resolves it and plays no turn of its signer's own; '' for any other entry."""
    if (entry["kind"] != "turn" or entry["moves"] or "round" in entry or "sealed" in entry
            or not before.chance_before_round()):
        return ""
    who = entry["seat"]
    return (f"{who} resolved the chance pending before the sealed step (no move: {who}'s "
            "own turn comes in the step's round)")


def settling_words(entry: savefile.Entry, before: Table) -> str:
    """"cy voted to accept bob's proposal that dee is absent (entry 7, remedy 'end')", and
    the votes it passed over: a vote or a confirm (``entry``) named with the proposal open
    on ``before`` it, as `log` and the history of a mail tell it."""
    who = entry["seat"]
    over = absence.passing_words(absence.passed_by(before, entry))
    if entry["kind"] == "vote":
        return f"{who} voted to {entry['vote']} {_open_proposal(before, True)}{over}"
    # A confirm: only the proposer confirms.
    return (f"{who} confirmed {_open_proposal(before, False)}"
            + (over or ", unanswered for a full patience"))


def _open_proposal(before: Table, by: bool) -> str:
    """"bob's proposal that cy is absent (entry 7, remedy 'end')" (``by``: naming the
    proposer, else "the proposal that ..."): the proposal open on ``before``, the one a
    vote or confirm signed on it settles (a round's queued proposals open in turn)."""
    proposal = before.proposal
    if not proposal:  # the engine refuses a vote or confirm with none open
        return "the proposal"
    whose = f"{before.seats[proposal['by']].handle}'s" if by else "the"
    return (f"{whose} proposal that {before.seats[proposal['player']].handle} is absent "
            f"(entry {proposal['seq']}, remedy '{proposal['remedy']}')")


class History(Record):
    """A verified save and what the replay told of the entries asked for."""

    def __init__(self, verified: session.Verified, notes: list[EntryNote],
                 tables: dict[int, Table] | None = None) -> None:
        self.verified = verified
        self.notes = notes
        self.tables = {} if tables is None else tables  # seq -> table after it


def history(path: str | Path, home: Home | None, wanted: Callable[[Save], range],
            keep: Collection[int] = ()) -> History:
    """Verify the save at ``path`` and, in the same replay, note the entries whose seq is
    in ``wanted(save)``; keep the tables after the entries in ``keep`` (``show --at``).
    ``wanted`` may raise UsageError for a save it cannot use.

    Notes this home made before come from its cache (pbem.home.toldcache): then the
    replay resumes from the archive's table as ``verify`` does, instead of starting
    early enough to tell those entries again."""
    save = savefile.read(path)
    seqs = wanted(save)
    cut = holding.here(save, home).upto  # entries not in effect here are told of apart
    seqs = range(min(seqs.start, cut), min(seqs.stop, cut))
    hashes = [told_key(save, place) for place in seqs]
    cache = toldcache.ToldCache(home.path, save.game_id) if home is not None else None
    known = cache.get(hashes) if cache is not None and not keep else None
    if known is not None:
        verified = session.verify(save, home, path=Path(path))
        return History(verified, [EntryNote.from_json(n) for n in known])
    notes: list[EntryNote] = []
    tables: dict[int, Table] = {}

    # An incomplete round may hold an entry at another place than its seq (a later seat's
    # entry before an earlier one's): ``seqs`` are places in the file.
    place_of = {int(e["seq"]): place for place, e in enumerate(save.entries)}

    def tell(before: Table, after: Table, entry: savefile.Entry) -> None:
        seq = int(entry["seq"])
        if place_of[seq] in seqs:
            notes.append(note_of(before, after, entry))
        if seq in keep:
            tables[seq] = after

    told_from = min([seqs.start if seqs else len(save.entries), *keep])
    verified = session.verify(save, home, path=Path(path), on_entry=tell, told_from=told_from)
    if cache is not None and home is not None and home.path.is_dir():
        with contextlib.suppress(OSError):
            cache.put([(h, n.to_json()) for h, n in zip(hashes, notes, strict=True)])
    return History(verified, notes, tables)


def told_key(save: Save, place: int) -> str:
    """The key of the note of the entry at ``place`` in the told cache: its hash, which
    chains to every entry before it; for an entry of a round, a digest of the hashes of
    the round's entries in this file up to it, as those are applied before it and its
    hash pins none of them (each follows the entry before the round, PROTOCOL.md 4)."""
    entry = save.entries[place]
    if "round" not in entry:
        return engine.entry_hash(entry)
    first = place
    while first > 0 and save.entries[first - 1].get("round") == entry["round"]:
        first -= 1
    return digest([engine.entry_hash(e) for e in save.entries[first:place + 1]])


def last_entry_of(save: Save, handle: str) -> int | None:
    """The seq of ``handle``'s newest entry in ``save``, None if it signed none."""
    mine = [int(e["seq"]) for e in save.entries if e["seat"] == handle]
    return mine[-1] if mine else None


own_handle = holding.own_handle  # this home's handle, '' without a (readable) identity


def view_at(home: Home | None, verified: session.Verified, table: Table
            ) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(seat handle or '', view, private part) of the position ``table`` (after an earlier
    entry of ``verified``) as this home's seat saw it then: its own secret cards as they
    stood at that entry, nothing later; the public view for a home with no seat here."""
    identity = home.load() if home is not None and home.has_identity() else None
    seat = table.seat_of(identity.handle) if identity else None
    current = verified.table
    if identity is None or seat is None or current.seats[seat].pubkey not in (
            "", identity.public_hex):
        return "", session.with_engine_to_act(table, table.game.view(copy_state(table.gstate),
                                                                     None)), {}
    secrets = signing.secrets_for(table, seat, identity)
    view = table.game.view(copy_state(table.gstate), seat, secrets)
    return identity.handle, session.with_engine_to_act(table, view), secrets

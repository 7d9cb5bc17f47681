"""The result of a game, worked out once (PROTOCOL.md section 7): how it ended (by the
rules, a resignation or an absence remedy, and who proposed, voted and confirmed), who
won (a rival that is not a seat, such as the solo game's automaton, included), every
score with its parts, which seats revealed, and what the audit checked and could not.

``summary`` builds it from a verified replay (the engine's Report and the save's
entries) as one JSON-like dict; ``verify`` (text and JSON), ``show``, ``games``, the
pictures and the mails all read it, so they cannot tell different stories. Its keys:

- ``over``: play has ended; ``complete``: nothing more is owed (every reveal in);
- ``ending``: ``{"how", "text", "short", "remedies"}``; ``how`` is ``playing``,
  ``rules``, ``resigned`` or ``absent`` (remedy ``end`` stopped it); ``text`` says it
  whole, ``short`` in a few words ("bob resigned", "" by the rules); ``remedies`` lists
  each remedy that took effect: ``{"player", "remedy", "seq", "by", "accepted",
  "confirmed", "withheld"}`` (``withheld``: an ``end`` for a withheld final reveal);
- ``audit``: ``pending``, ``clean`` (every seat revealed, every secret checked),
  ``partial`` (no violation, but some seat never revealed: ``unaudited`` says what was
  not checked) or ``failed`` (``problems``); ``closed``: each card a seat drew or holds
  left closed under such a seat's layer, ``{"deck", "slot", "holder", "status", "under",
  "text"}`` (its ``text`` is also a line of ``unaudited``);
- ``revealed`` / ``unrevealed``: handles;
- once scored: ``ranking`` (groups of names, best first, rivals included), ``scores``
  and ``parts`` by name, ``rivals`` (names that are not seats), ``winners``,
  ``winner`` (a sentence), ``notes`` (the rules' and the remedies' lines).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.protocol.saveformat.savefile import Entry

if TYPE_CHECKING:
    from pbem.protocol.state.table import Report, Table


def summary(report: Report, entries: Sequence[Entry]) -> dict[str, Any]:
    table = report.table
    handles = [s.handle for s in table.seats]
    revealed = [h for h in handles if any(e["kind"] == "reveal" and e["seat"] == h
                                          for e in entries)]
    over = table.over()
    out: dict[str, Any] = {
        "over": over, "complete": over and table.duty() is None,
        "ending": ending(table, entries),
        "audit": verdict(report), "problems": _problems(report),
        "unaudited": list(report.unaudited),
        "closed": [dict(card) for card in report.closed],
        "revealed": revealed, "unrevealed": [h for h in handles if h not in revealed],
        "ranking": None, "scores": None, "parts": {}, "rivals": [], "winners": [],
        "winner": "", "notes": [],
    }
    outcome = report.outcome
    if outcome is None:
        return out
    scores: dict[str, int] = {handles[s]: int(v) for s, v in outcome.scores.items()}
    parts = {handles[s]: {str(k): int(v) for k, v in p.items()}
             for s, p in outcome.breakdown.items()}
    for name, value in outcome.rivals.items():
        scores[name] = int(value)
        parts[name] = {str(k): int(v) for k, v in outcome.rival_breakdown.get(name, {}).items()}
    ranking = [[handles[s] if isinstance(s, int) else str(s) for s in group]
               for group in outcome.standing()]
    out.update(ranking=ranking, scores=scores, parts=parts, rivals=list(outcome.rivals),
               winners=list(ranking[0]) if ranking else [],
               notes=[str(n) for n in outcome.notes])
    out["winner"] = winner_words(out)
    return out


def verdict(report: Report) -> str:
    if isinstance(report.audit, list):
        return "failed"
    if report.audit == "pending":
        return "pending"
    return "partial" if report.unaudited else "clean"


def _problems(report: Report) -> list[str]:
    return [str(p) for p in report.audit] if isinstance(report.audit, list) else []


def ending(table: Table, entries: Sequence[Entry]) -> dict[str, Any]:
    """How the game ended, with every remedy that took effect and who brought it."""
    remedies = _remedies(table, entries)
    handles = [s.handle for s in table.seats]
    said = [_remedy_words(r) for r in remedies]
    if not table.over():
        how, text = "playing", "The game is still being played."
    elif table.resigned >= 0:
        who = handles[table.resigned]
        seq = next((int(e["seq"]) for e in entries if e["kind"] == "resign"), None)
        at = f" in entry {seq}" if seq is not None else ""
        how, text = "resigned", f"{who} resigned{at}: {who} ranks last."
    elif table.stopped:
        how, text = "absent", "The game was stopped by an absence remedy."
    else:
        how, text = "rules", "The game ended by the rules."
    text = " ".join([text, *said])
    short = [f"{handles[table.resigned]} resigned"] if how == "resigned" else []
    short += [f"{r['player']} played by the bot" if r["remedy"] == "bot" else
              f"{r['player']} declared absent" for r in remedies]
    return {"how": how, "text": text, "short": "; ".join(short), "remedies": remedies}


def _remedies(table: Table, entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """Each absence remedy in effect, from the proposal that brought it: who proposed it
    (entry seq), who accepted it, and the entry that confirmed it when nobody voted.
    Proposals signed in a reveal round's slots open one after another once the round is
    complete, their voters neither silent nor proposed in the round (absence.round_entered)."""
    in_effect = set(table.dropped) | set(table.bots)
    handles = [s.handle for s in table.seats]
    found: dict[str, dict[str, Any]] = {}
    walk = _Proposals(handles, found)
    for entry in entries:
        kind = entry["kind"]
        if walk.queue and entry.get("round") != walk.queue[0]["round"]:
            walk.round_done()  # the entry after the round: the queue opens
        if kind == "absent":
            walk.proposed(entry)
        elif kind == "vote" and walk.open_one is not None:
            walk.voted(str(entry["seat"]), entry.get("vote") == "accept")
        elif kind == "confirm" and walk.open_one is not None:
            walk.open_one["confirmed"] = int(entry["seq"])
            walk.open_one["confirmer"] = str(entry["seat"])
            walk.open_one["passed"] += walk.due
            walk.settled()
        else:
            walk.answered(str(entry["seat"]))
    stopper = handles[table.dropped[0]] if table.stopped and table.dropped else ""
    out = [{k: v for k, v in found[handles[s]].items() if k != "round"}
           for s in sorted(in_effect) if handles[s] in found]
    for remedy in out:
        remedy["withheld"] = remedy["remedy"] == "end" and remedy["player"] != stopper
    return out


class _Proposals:
    """The proposals of a save as the replay settles them (one open at a time; those of a
    reveal round's slots queued), for :func:`_remedies`. ``found``: each player's
    proposal, open, queued or in effect (a refused or answered one is dropped)."""

    def __init__(self, handles: list[str], found: dict[str, dict[str, Any]]) -> None:
        self.handles, self.found = handles, found
        self.open_one: dict[str, Any] | None = None
        self.due: list[str] = []  # the votes the open proposal waits for, in order
        self.queue: list[dict[str, Any]] = []
        self.withheld: set[str] = set()  # the players proposed in the round queued

    def proposed(self, entry: Entry) -> None:
        record: dict[str, Any] = {"player": str(entry["player"]), "remedy": str(entry["remedy"]),
                  "seq": int(entry["seq"]), "by": str(entry["seat"]), "accepted": [],
                  "passed": [], "confirmed": None, "confirmer": None}
        self.found[record["player"]] = record
        if "round" in entry:
            self.queue.append({**record, "round": entry["round"]})
            self.found[record["player"]] = self.queue[-1]
            self.withheld.add(record["player"])
            return
        self._open(record)

    def _open(self, record: dict[str, Any]) -> None:
        """The remedies found so far are in effect, open or queued: none of them votes."""
        self.open_one = record
        gone = {record["player"], *self.found, *self.withheld}
        at = self.handles.index(record["by"])
        self.due = [h for h in self.handles[at + 1:] + self.handles[:at] if h not in gone]

    def round_done(self) -> None:
        if self.open_one is None:
            self._open(self.queue.pop(0))

    def settled(self) -> None:
        self.open_one = None
        if self.queue:
            self._open(self.queue.pop(0))

    def voted(self, voter: str, accept: bool) -> None:
        assert self.open_one is not None
        # The votes due before this one were passed over (PROTOCOL.md section 11).
        if voter in self.due:
            self.open_one["passed"] += self.due[:self.due.index(voter)]
            self.due = self.due[self.due.index(voter) + 1:]
        if not accept:
            self.found.pop(self.open_one["player"], None)
            self.settled()
            return
        self.open_one["accepted"].append(voter)
        if not self.due:
            self.settled()

    def answered(self, seat: str) -> None:
        """An entry by a player proposed absent voids its own proposal."""
        if self.open_one is not None and seat == self.open_one["player"]:
            self.found.pop(seat, None)
            self.settled()
        elif any(q["player"] == seat for q in self.queue):
            self.found.pop(seat, None)
            self.queue = [q for q in self.queue if q["player"] != seat]


def _remedy_words(remedy: dict[str, Any]) -> str:
    who, by = remedy["player"], remedy["by"]
    accepted, passed = remedy["accepted"], remedy.get("passed", [])
    agreed = ", ".join(
        ([f"accepted by {', '.join(accepted)}"] if accepted else [])
        + ([f"the vote{'s' if len(passed) > 1 else ''} of {', '.join(passed)} passed over "
            "(not signed within a patience)"] if passed else [])
        + ([f"confirmed by {remedy['confirmer']} in entry {remedy['confirmed']}"]
           if remedy["confirmed"] is not None else []))
    agreed = agreed or "with nobody else to vote"
    what = (f"the bot played {who}'s turns from then on" if remedy["remedy"] == "bot" else
            f"{who} withheld the final reveal and ranks last" if remedy.get("withheld") else
            f"the game stopped and {who} ranks last")
    return (f"{who} was declared absent (proposed by {by} in entry {remedy['seq']}, remedy "
            f"'{remedy['remedy']}', {agreed}): {what}.")


def winner_words(result: Mapping[str, Any]) -> str:
    """'Winner: ann with 31 points', 'Shared win: ann and bob, 30 points each', and in a
    solo game the automaton too: 'Winner: Justin with 46 points'."""
    ranking = result.get("ranking") or []
    scores = result.get("scores") or {}
    if not ranking:
        return "No winner: the game ended without a ranking."
    best = ranking[0]
    points = scores.get(best[0], 0)
    if len(best) == 1:
        return f"Winner: {best[0]} with {points} points"
    return f"Shared win: {', '.join(best[:-1])} and {best[-1]}, {points} points each"


def audit_words(result: Mapping[str, Any]) -> list[str]:
    """The audit's verdict in sentences: 'clean' only when every seat revealed and every
    secret was checked; anything less says what was not checked and why."""
    audit = result.get("audit")
    if audit == "pending":
        return []
    if audit == "failed":
        return ["AUDIT FAILED: " + p for p in result.get("problems", [])] or ["AUDIT FAILED."]
    if audit == "clean":
        return ["Audit: clean (every seat revealed; every secret checked)."]
    who = ", ".join(result.get("unrevealed", []))
    return [f"Audit: partial. Every seat that revealed was checked and no violation was "
            f"found, but {who} never revealed, so not everything could be checked:",
            *[f"  Not audited: {line}" for line in result.get("unaudited", [])]]


def score_lines(result: Mapping[str, Any]) -> list[str]:
    """'1. Justin 46 (gold 7, crew 15, ...)' for every side, best first."""
    lines = []
    place = 1
    scores = result.get("scores") or {}
    parts = result.get("parts") or {}
    rivals = result.get("rivals") or []
    for group in result.get("ranking") or []:
        for name in group:
            made = ", ".join(f"{k} {v}" for k, v in parts.get(name, {}).items())
            shared = " (shared)" if len(group) > 1 else ""
            rival = " (not a seat)" if name in rivals else ""
            lines.append(f"{place}. {name}{rival} {scores.get(name, 0)}{shared}"
                         + (f" ({made})" if made else ""))
        place += len(group)
    return lines


def lines(result: Mapping[str, Any]) -> list[str]:
    """The whole result for people: how it ended, the winner, every score, the notes and
    the audit."""
    if not result.get("over"):
        return []
    out = [str(result["ending"]["text"])]
    if result.get("ranking"):
        out.append(str(result["winner"]) + ".")
        out += score_lines(result)
        out += [str(n) for n in result.get("notes", [])]
    out += audit_words(result)
    return out

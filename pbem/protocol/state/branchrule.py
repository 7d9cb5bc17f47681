"""Two branches of a game: which one is the game's (PROTOCOL.md section 11), a pure
function of the two entries after their common predecessor, so the archive, the views
and the verifier of a skip's evidence all apply the one rule."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import digest

# The entries of the absence procedure: a proposal, a vote on it, its confirm.
PROCEDURE = ("absent", "vote", "confirm")
# Entries signed out of turn that change nothing the game's moves depend on.
NOTES = ("away",)


# When an entry counts from for a home, where that is later than its signed time
# (pbem.protocol.timekeeping.holdback.counted); None: from its signed time.
Counted = Callable[[dict[str, Any]], datetime.datetime | None]


def branch_rule(one: dict[str, Any], other: dict[str, Any], counted: Counted | None = None
                ) -> tuple[dict[str, Any], str]:
    """Of two entries by different seats after the same entry (two branches), the one
    whose branch is the game's, and why in words; the other and everything built on it
    is void, for every verifier. This is the one place the rule lives:

    1. The in-order entry of the seat the game waits for (its turn, reveal or
       resignation: the seat a proposal names answering it) against an entry of the
       absence procedure (a proposal, a vote, a confirm): the answer is the game's if it
       is signed strictly earlier than that entry, else the procedure's entry is. A seat
       can always answer on top of the newest entry, so it only loses what came before
       its answer: a proposal dated ahead loses to an answer signed in real time.
    2. The in-order entry against an away note: the in-order entry (the note is signed
       again on it, and nothing else changes).
    3. Otherwise the entry signed earlier; on equal times (or none), the smaller hash.
    An entry without a signed time counts as signed after every entry that has one.
    ``counted`` (a home's own view, never a verifier's: pbem.protocol.timekeeping.holdback): in rule
    1 each entry counts from when it counts for that home, where that is later than its
    signed time (it came long after it, while the home was signing entries of the game)."""
    for first, second in ((one, other), (other, one)):
        if _in_order(first) and not _in_order(second):
            if second["kind"] in NOTES:
                return first, (f"{second['seat']}'s away note is signed again on "
                               f"{first['seat']}'s {first['kind']}")
            if counted is not None:
                shifted = _shifted(first, second, counted)
                if shifted is not None:
                    return shifted
            if _key(first) < _key(second):
                return first, (f"{first['seat']}'s {first['kind']} is signed earlier "
                               f"({_when(first)}) than {_what(second)} ({_when(second)}), "
                               "so it answers it")
            return second, (f"{_what(second)} is signed no later ({_when(second)}) than "
                            f"{first['seat']}'s {first['kind']} ({_when(first)}), which "
                            "came too late to answer it")
    ranked = sorted((one, other), key=lambda e: (_key(e), digest(e)))
    return ranked[0], (f"{_what(ranked[0])} is signed earlier ({_when(ranked[0])}) than "
                       f"{_what(ranked[1])} ({_when(ranked[1])})")


def _shifted(answer: dict[str, Any], entry: dict[str, Any], counted: Counted
             ) -> tuple[dict[str, Any], str] | None:
    """Rule 1 for a home that counts either entry from later than its signed time; None
    when it counts both from their signed times."""
    late_answer, late_entry = counted(answer), counted(entry)
    if late_answer is None and late_entry is None:
        return None
    one = late_answer or timing.signed_time(answer)
    two = late_entry or timing.signed_time(entry)
    if one is None or two is None:  # no signed time: rule 1 as every verifier applies it
        return None
    why = ("it counts here from when this home first had it, or the entries it counts a "
           "patience from, while this home was signing entries of this game")
    if one < two:
        return answer, (f"{answer['seat']}'s {answer['kind']} counts here from "
                        f"{timing.shown(one)}, before {_what(entry)} ({timing.shown(two)}; "
                        f"{why}), so it answers it")
    return entry, (f"{_what(entry)} counts here from {timing.shown(two)}, no later than "
                   f"{answer['seat']}'s {answer['kind']} ({timing.shown(one)}; {why}), "
                   "which came too late to answer it")


def _in_order(entry: dict[str, Any]) -> bool:
    return entry.get("kind") not in PROCEDURE + NOTES


def _key(entry: dict[str, Any]) -> tuple[int, str]:
    when = timing.signed_time(entry)
    return (0, timing.stamp(when) or "") if when is not None else (1, "")


def _when(entry: dict[str, Any]) -> str:
    when = timing.signed_time(entry)
    return timing.shown(when) if when is not None else "no signed time"


def _what(entry: dict[str, Any]) -> str:
    return f"{entry['seat']}'s {timing.kind_words(entry['kind']).split(' ', 1)[1]}"

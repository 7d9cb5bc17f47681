"""A home that was there (PROTOCOL.md section 11, pbem.protocol.timekeeping.holdback): for a home that
signed entries of a game after an entry's signed time but had that entry only much later,
the entry counts from when the home had it, wherever a patience counts from it.

The attack these tests repeat, the back-dated comeback: bob, silent for a month, signs on
day 30 a turn dated before any proposal, then a proposal that ann is absent a patience
after it, its confirm and his reveal, all dated in the past and signed in real minutes. By
signed times ann was silent for two patience periods she never had. Before, ann's own
'verify' named bob the winner."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.timekeeping import holdback
from tests.test_clock_attack import proposal_seq as last_seq
from tests.test_clock_attack import removed, verify_json
from tests.test_game_clock import T0, Players, at


def comeback(t: Players) -> tuple[str, str, str, str]:
    """(the save bob comes back on, bob's bundle, ann, bob): ann signs an away note on
    day 3 (she is playing), bob signs on day 30 his turn dated day 0 + 1 h, a proposal
    that ann is absent dated day 7 + 2 h, its confirm dated day 14 + 3 h and his reveal."""
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    bob = t.status(path)["to_act"]
    ann = t.other(bob)
    t.wrote(ann, "away", path, "--until", at(days=4), when=at(days=3))
    turn = t.wrote(bob, "play", path, "roll", when=at(hours=1))
    against = t.wrote(bob, "absent", turn, ann, "--remedy", "end", when=at(days=7, hours=2))
    confirmed = t.wrote(bob, "confirm", against, when=at(days=14, hours=3))
    bundle = t.wrote(bob, "play", confirmed, when=at(days=14, hours=4))
    return turn, bundle, ann, bob  # signed on day 30 in truth: they reach ann's home then


def test_S11_a_back_dated_removal_waits_in_a_home_that_was_playing(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    turn, bundle, ann, bob = comeback(t)
    day30 = at(days=30)
    data = verify_json(t, ann, bundle, day30)
    assert data["ok"] and data["over"] is False and not data["winners"]
    assert data["to_act"] == ann and data["next"] == "turn" and not data["absence"]
    assert [(w["kind"], w["seat"]) for w in data["waiting"]] == [
        ("absent", bob), ("confirm", bob), ("reveal", bob)]
    # The proposal counts its patience from bob's turn, which ann's home had on day 30:
    # signed day 7 + 2 h, plus the 29 days 23 hours bob's turn came late.
    assert data["waiting"][0]["in_effect_from"] == at(days=37, hours=1)
    assert any("takes effect only from 2025-07-09 11:00 UTC" in n for n in data["notes"])
    shown = t.run(ann, "show", bundle, when=day30)
    assert shown.exit_code == 0 and f"Next: turn by {ann}" in shown.output
    assert "winner" not in t.run(ann, "verify", bundle, when=day30).output.lower()
    filed = json.loads(t.run(ann, "inbox", bundle, "--json", when=day30).output)
    assert filed["games"][0]["command"].startswith("pbem play ")
    # ann answers on the file she got: her turn is built on bob's, before the proposal.
    answer = t.wrote(ann, "play", bundle, "roll", when=at(days=30, minutes=5))
    mine = savefile.read(answer)
    assert mine.entries[-1]["seat"] == ann and last_seq(answer) == last_seq(turn) + 1
    assert verify_json(t, ann, answer, at(days=30, minutes=6))["to_act"] == bob
    # Once ann's clock passes that time, bob's proposal is in effect in her home, and the
    # branch rule there compares it from then: her answer came first, bob's branch is void.
    later = at(days=38)
    assert verify_json(t, ann, answer, later)["void"] is None
    void = verify_json(t, ann, bundle, later)["void"]
    assert void and "The other branch is the game's" in void
    assert (f"{ann}'s turn counts here from 2025-07-02 10:05 UTC, before {bob}'s absent "
            "proposal (2025-07-09 11:00 UTC") in void


def test_S11_a_home_that_signed_nothing_meanwhile_goes_by_signed_times(
        tmp_path: Path) -> None:
    """The bound's other side: a home with no seat (or one that signed nothing between)
    cannot tell back-dating from slow mail, and goes by signed times as every verifier
    does; it shows each entry as late."""
    t = Players(tmp_path, "ann", "bob")
    _, bundle, ann, bob = comeback(t)
    third = verify_json(t, None, bundle, at(days=30))
    assert third["over"] is True and third["winners"] == [bob]


def test_S11_an_honest_removal_stands_in_the_removed_seats_home(tmp_path: Path) -> None:
    """bob really was away: he signed nothing after ann's turn. ann proposes him absent a
    patience later and confirms it a patience after that; bob's home, seeing it all on day
    30, holds nothing back and says ann won."""
    t = Players(tmp_path, "ann", "bob")
    _, won, bob, ann = removed(t)
    data = verify_json(t, bob, won, at(days=30))
    assert data["over"] is True and data["winners"] == [ann] and not data["waiting"]


def test_S11_a_back_dated_answer_does_not_void_a_removal_in_a_home_that_was_playing(
        tmp_path: Path) -> None:
    """ann removes bob (proposal day 8, confirm day 15, her reveal); on day 30 bob signs a
    turn dated day 7 + 23 h, before her proposal. By signed times it answers it and voids
    all she built; in ann's home, which signed her proposal on day 8 and had bob's turn
    only on day 30, it counts from day 30 and her removal stands."""
    t = Players(tmp_path, "ann", "bob")
    path, won, bob, ann = removed(t)
    answer = t.wrote(bob, "play", path, "roll", when=at(days=7, hours=23))
    data = verify_json(t, ann, answer, at(days=30))
    assert data["void"] and "The other branch is the game's" in data["void"]
    assert f"{bob}'s turn (2025-07-02 10:00 UTC" in data["void"]
    assert verify_json(t, ann, won, at(days=30, minutes=1))["void"] is None
    # A home with no seat goes by signed times: there the answer voids the removal.
    assert verify_json(t, None, won, at(days=30))["void"] is None
    assert verify_json(t, None, answer, at(days=30, minutes=1))["void"] is None


def sight(mine: tuple[int, ...], seen: dict[str, int], at_day: int) -> holdback.Sight:
    def day(n: float) -> datetime.datetime:
        return T0 + datetime.timedelta(days=n)

    return holdback.Sight(lambda h: day(seen[h]) if h in seen else None,
                          tuple(day(n) for n in mine), "ann", datetime.timedelta(days=1),
                          day(at_day))


def entry(kind: str, seat: str, days: float, seq: int) -> dict[str, Any]:
    return {"kind": kind, "seat": seat, "seq": seq,
            "time": timing.stamp(T0 + datetime.timedelta(days=days))}


def test_S11_holdback_counts_only_what_this_home_missed_while_playing() -> None:
    """The rule by itself: a delay counts only if this home signed between the entry's
    signed time and its first sight of it, the gap is over the limit, and the entry is
    another seat's."""
    turn, proposal = entry("turn", "bob", 0, 5), entry("absent", "bob", 7, 6)
    entries, hashes = [turn, proposal], ["t", "p"]
    # ann signed on day 3, had bob's entries on day 30: held until day 37.
    held = holdback.held(entries, hashes, sight((3,), {"t": 30, "p": 30}, 30))
    assert held == (1, T0 + datetime.timedelta(days=37))
    # She signed nothing in between: nothing held, nothing counted late.
    assert holdback.held(entries, hashes, sight((), {"t": 30, "p": 30}, 30)) == (2, None)
    # She had the turn within the day: nothing held.
    assert holdback.held(entries, hashes, sight((0.5,), {"t": 0.5, "p": 30}, 30))[1] is None
    # Her own entries are never counted late.
    own = [entry("turn", "ann", 0, 5), entry("absent", "ann", 7, 6)]
    assert holdback.held(own, hashes, sight((3,), {"t": 30, "p": 30}, 30)) == (2, None)
    # Past the time it is held until, it is in effect; the branch rule still counts it so.
    assert holdback.held(entries, hashes, sight((3,), {"t": 30, "p": 30}, 40)) == (2, None)
    assert holdback.counted(entries, hashes, 1, sight((3,), {"t": 30, "p": 30}, 40)) == \
        T0 + datetime.timedelta(days=37)
    assert holdback.counted(entries, hashes, 0, sight((3,), {"t": 30, "p": 30}, 40)) == \
        T0 + datetime.timedelta(days=30)


def test_S11_a_proposal_in_a_reveal_round_counts_from_the_entry_before_the_round() -> None:
    """cy reveals in a round and proposes dee absent in dee's slot: dee's patience counts
    from the turn before the round, so a home that signed while that turn was not with it
    holds the proposal, even when cy's reveal came in time."""
    turn, reveal = entry("turn", "bob", 0, 5), entry("reveal", "cy", 1, 6)
    proposal = entry("absent", "cy", 7, 7)
    reveal["round"] = proposal["round"] = 6
    entries, hashes = [turn, reveal, proposal], ["t", "r", "p"]
    seen = sight((3,), {"t": 30, "r": 1.5, "p": 30}, 30)
    assert holdback.held(entries, hashes, seen) == (2, T0 + datetime.timedelta(days=37))


def test_S11_a_proposal_after_a_round_counts_every_entry_of_that_round() -> None:
    """A sealed step: ann and cy commit on day 1, bob withholds his commitment until day 30
    and dates it day 0; the round's latest time (day 1) starts the clock of the opening
    round, and bob proposes ann absent in her slot of it, dated day 8. ann's home, which
    signed its commitment after bob's date and had his only on day 30, holds the proposal
    a patience after that, though bob's back-dated entry is not the round's last slot
    (cy's is, and came in time): before, only that last slot was counted."""
    start = entry("turn", "cy", 0, 4)
    commits = [entry("turn", h, d, 5 + i) for i, (h, d) in enumerate(
        [("ann", 1), ("bob", 0), ("cy", 1)])]
    proposal, opening = entry("absent", "bob", 8, 8), entry("turn", "bob", 1, 9)
    for e in commits:
        e["round"] = 5
    proposal["round"] = opening["round"] = 8
    entries, hashes = [start, *commits, proposal, opening], ["s", "a", "b", "c", "p", "o"]
    seen = sight((1,), {"s": 0, "a": 1, "b": 30, "c": 1, "p": 30, "o": 30}, 30)
    assert holdback.held(entries, hashes, seen) == (4, T0 + datetime.timedelta(days=38))


def test_S11_an_entry_is_dated_no_earlier_than_the_entries_it_follows() -> None:
    """dated_times: an entry counts as signed no earlier than the entries before it, except
    the other entries of its own round (they share its predecessor, it follows none of
    them); an unsigned entry has no time."""
    def day(n: float) -> datetime.datetime:
        return T0 + datetime.timedelta(days=n)

    turn = entry("turn", "ann", 5, 1)
    first, second = entry("reveal", "bob", 6, 2), entry("reveal", "cy", 4, 3)
    first["round"] = second["round"] = 2
    after, unsigned = entry("vote", "dee", 3, 4), {"kind": "away", "seat": "ann", "seq": 5}
    assert holdback.dated_times([turn, first, second, after, unsigned]) == [
        day(5), day(6), day(5), day(6), None]
    assert holdback.dated([turn, first, second], 2) == day(5)

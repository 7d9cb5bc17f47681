"""pbem.mental_deck: whole secret-draw flows without the engine, and every cheat caught.

A small harness plays the engine's part: the create entry, one join per seat, then turn
entries that end with whatever the seat owes (``perform`` + ``apply_chore``), with the
public state before each chore kept for the audit.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
import tomli_w

from pbem.errors import IllegalMoveError, IntegrityError
from pbem.protocol import mental, mental_deck, secretdeck

GAME_ID = "5eed00112233445566778899aabbccdd"
DECK = "bonus"
UIDS = [f"bonus-card-{i:02d}" for i in range(18)]

Tamper = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


class Table:
    """Seats 0..n-1 sharing one mental deck; seat 0 hosts."""

    def __init__(self, seats: int, uids: list[str] = UIDS) -> None:
        self.n = seats
        self.uids = uids
        self.seeds = {s: hashlib.sha256(b"seed of seat %d" % s).digest() for s in range(seats)}
        blank = mental_deck.blank(GAME_ID, DECK, uids, seats)
        d, chore = mental_deck.create(GAME_ID, DECK, uids, 0, self.seeds[0], seats)
        self.state: dict[str, Any] = {"secret": {DECK: d}}
        # (seat, public state before, chore) of every chore, and every saved snapshot.
        self.log: list[tuple[int, dict[str, Any], dict[str, Any]]] = [(0, blank, chore)]
        self.saved: list[str] = [json.dumps(d, sort_keys=True), json.dumps(chore)]
        for seat in range(1, seats):
            assert mental_deck.owed(self.d, seat) == [{"op": "shuffle"}]
            self.entry(seat)

    @property
    def d(self) -> dict[str, Any]:
        return self.state["secret"][DECK]

    def entry(self, seat: int, tamper: Tamper | None = None) -> dict[str, Any] | None:
        """End of one entry by ``seat``: publish and apply all the work it owes."""
        chore = mental_deck.perform(self.d, DECK, seat, self.seeds[seat])
        if chore is None:
            mental_deck.require_done(self.d, DECK, seat)
            return None
        if tamper is not None:
            chore = tamper(copy.deepcopy(chore), self.d)
        before = copy.deepcopy(self.d)
        mental_deck.apply_chore(self.d, seat, chore)
        self.log.append((seat, before, chore))
        self.saved += [json.dumps(self.d, sort_keys=True), json.dumps(chore)]
        return chore

    def others(self, seat: int, tamper: dict[int, Tamper] | None = None) -> None:
        """One entry by each other seat, in turn order after ``seat``."""
        for step in range(1, self.n):
            other = (seat + step) % self.n
            self.entry(other, (tamper or {}).get(other))

    def read(self, seat: int) -> dict[str, str]:
        return mental_deck.read(self.d, GAME_ID, DECK, seat, self.seeds[seat], self.uids)

    def audit(self) -> list[str]:
        out: list[str] = []
        for seat, before, chore in self.log:
            out += mental_deck.audit_chore(before, DECK, seat, chore, self.seeds[seat])
        return out

    def open_held(self) -> tuple[dict[str, str], list[str]]:
        return mental_deck.open_held(self.d, GAME_ID, DECK, self.seeds, self.uids)


def _draw(table: Table, seat: int, count: int, peel_tamper: dict[int, Tamper] | None = None) -> list[str]:
    """``seat`` reserves ``count`` from the top, ends its entry, the others peel."""
    slots = secretdeck.reserve_top(table.state, DECK, seat, count)
    table.entry(seat)
    table.others(seat, peel_tamper)
    return slots


def _play_flow(seats: int) -> tuple[Table, dict[str, str], dict[str, str], list[str]]:
    """Seat 0 draws 6, keeps 3, returns 3; the last seat then draws the rest of the pile."""
    table = Table(seats)
    assert all(set(s["layers"]) == {str(i) for i in range(seats)} for s in table.d["slots"].values())
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 6)
    assert table.entry(0) is None  # the drawer owes nothing: its layer stays on
    if seats > 1:
        assert not secretdeck.readable(table.state, DECK, 0)
        assert table.read(0) == {}  # nothing readable before the peels
    table.others(0)
    assert secretdeck.readable(table.state, DECK, 0)
    first = table.read(0)
    assert list(first) == drawn and len(set(first.values())) == 6
    assert set(first.values()) <= set(UIDS)

    keep, back = drawn[:3], [drawn[5], drawn[3], drawn[4]]  # a chosen order
    secretdeck.keep(table.state, DECK, 0, keep)
    secretdeck.return_bottom(table.state, DECK, 0, back)
    assert mental_deck.owed(table.d, 0)  # the returner's re-locks come first ...
    assert all(not mental_deck.owed(table.d, s) for s in range(1, seats))
    table.entry(0)
    if seats > 1:
        assert all(mental_deck.owed(table.d, s) for s in range(1, seats))  # ... then theirs
    table.others(0)
    new_ids = table.d["order"][-3:]
    assert [table.d["slots"][s]["from"] for s in new_ids] == back
    assert all(
        set(table.d["slots"][s]["layers"].values()) <= {f"slot:{i}" for i in range(100)}
        and len(table.d["slots"][s]["layers"]) == seats
        for s in new_ids
    )

    last = seats - 1
    pile = secretdeck.remaining(table.state, DECK)
    assert pile == 15
    second_slots = _draw(table, last, pile)
    if last != 0:
        table.entry(0)  # nothing left for seat 0 either
    second = table.read(last) if last != 0 else {s: table.read(0)[s] for s in second_slots}
    assert [second[s] for s in second_slots[-3:]] == [first[s] for s in back]
    held0 = {s: first[s] for s in keep}
    assert sorted(list(held0.values()) + [second[s] for s in second_slots]) == sorted(UIDS)
    secretdeck.keep(table.state, DECK, last, second_slots[:2])
    return table, held0, second, second_slots


@pytest.mark.parametrize("seats", [1, 2, 4, 6])
def test_full_flow_reads_right_cards_and_audits_clean(seats: int) -> None:
    table, held0, second, second_slots = _play_flow(seats)
    opened, violations = table.open_held()
    assert violations == []
    expected = dict(second)
    expected.update(held0)
    assert opened == expected
    assert table.audit() == []
    claims = {0: list(held0.values())}
    if seats > 1:
        claims[seats - 1] = [second[s] for s in second_slots[:2]]
    assert mental_deck.check_claims(table.d, opened, claims) == []
    assert secretdeck.counts(table.state, DECK) == ({0: 5} if seats == 1 else {0: 3, seats - 1: 2})


def _walk(value: Any, path: str = "$") -> None:
    """TOML-friendly: only str/int/bool/list/dict, str keys, no None or float."""
    assert not isinstance(value, float | tuple | set) and value is not None, path
    if isinstance(value, dict):
        for key, inner in value.items():
            assert isinstance(key, str), path
            _walk(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            _walk(inner, f"{path}[{i}]")
    else:
        assert isinstance(value, str | int | bool), path


@pytest.mark.parametrize("seats", [2, 4])
def test_no_secret_anywhere_in_states_or_chores(seats: int) -> None:
    table, held0, _, _ = _play_flow(seats)
    text = "\n".join(table.saved + [json.dumps(table.d, sort_keys=True)])
    secrets: list[str] = list(UIDS)
    for seed in table.seeds.values():
        secrets += [seed.hex(), repr(seed)]
        keys = [mental.deck_key(seed, DECK)] + [
            mental.slot_key(seed, DECK, i) for i in range(table.d["serial"])
        ]
        for key in keys:
            secrets += [f"{key:064x}", f"{key:x}", str(key), f"{pow(key, -1, mental.N):064x}"]
    # The plaintext points: a slot never shows a card point, not even its holder's.
    secrets += [mental.to_hex(x) for x in mental.card_points(GAME_ID, DECK, UIDS)]
    found = [s for s in secrets if s.lower() in text.lower()]
    assert found == []
    assert "bonus-card" not in text
    # Every snapshot and chore is TOML-friendly.
    for saved in table.saved:
        obj = json.loads(saved)
        _walk(obj)
        tomli_w.dumps({"x": obj})
    _walk(table.d)


def test_drawing_a_returned_card_before_its_locks_are_done() -> None:
    """Stages: the drawer of a not yet fully re-locked slot reads it once the locks
    (its own included) and then the peels are done."""
    table = Table(3, uids=UIDS[:6])
    drawn = _draw(table, 0, 2)
    cards = table.read(0)
    secretdeck.return_bottom(table.state, DECK, 0, drawn)
    table.entry(0)  # seat 0's re-locks; seats 1 and 2 still owe theirs
    slots = secretdeck.reserve_top(table.state, DECK, 1, 6)
    owed1 = mental_deck.owed(table.d, 1)
    assert {o["op"] for o in owed1} == {"lock"}
    assert not any(
        o["op"] == "peel" for s in (0, 2) for o in mental_deck.owed(table.d, s) if o["slot"] in slots[-2:]
    )
    table.entry(1)
    assert not secretdeck.readable(table.state, DECK, 1)
    chore2 = table.entry(2)  # seat 2 locks the returned slots, then peels everything
    assert chore2 is not None
    assert [i["op"] for i in chore2["items"] if i["slot"] == slots[-1]] == ["lock", "peel"]
    table.entry(0)
    assert secretdeck.readable(table.state, DECK, 1)
    read = table.read(1)
    assert [read[s] for s in slots[-2:]] == [cards[s] for s in drawn]
    assert sorted(read.values()) == sorted(UIDS[:6])
    assert table.audit() == []
    assert table.open_held()[1] == []


def test_returning_an_unread_card_relocks_every_layer() -> None:
    table = Table(3, uids=UIDS[:5])
    drawn = secretdeck.reserve_top(table.state, DECK, 2, 1)
    table.entry(2)
    table.entry(0)  # seat 0 peels; seat 1 has not yet
    secretdeck.return_bottom(table.state, DECK, 2, drawn)
    assert not any(o["op"] == "peel" for o in table.d["owed"])  # superseded by the locks
    table.entry(2)
    table.others(2)
    new = table.d["slots"][table.d["order"][-1]]
    assert sorted(new["layers"]) == ["0", "1", "2"]
    assert all(v.startswith("slot:") for v in new["layers"].values())
    assert table.audit() == [] and table.open_held()[1] == []


def test_owed_perform_and_bookkeeping() -> None:
    table = Table(2, uids=UIDS[:4])
    assert mental_deck.owed(table.d, 0) == [] and mental_deck.perform(table.d, DECK, 0, b"") is None
    blank = mental_deck.blank(GAME_ID, DECK, UIDS[:4], 3)
    state = {"secret": {DECK: blank}}
    with pytest.raises(IllegalMoveError, match="shuffled"):
        secretdeck.reserve_top(state, DECK, 0, 1)
    with pytest.raises(ValueError, match="same uid"):
        mental_deck.blank(GAME_ID, DECK, ["a", "a"], 2)
    before = copy.deepcopy(table.d)
    chore = mental_deck.perform(table.d, DECK, 0, table.seeds[0])
    assert chore is None and table.d == before  # perform never changes the state


# ---- cheats ------------------------------------------------------------------------------
def _wrong_first_peel(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    item = chore["items"][0]
    item["ct"] = mental.to_hex(mental.encrypt(12345, mental.from_hex(item["ct"])))
    return chore


def test_cheat_wrong_peel_is_caught_by_the_reader_and_the_audit() -> None:
    table = Table(4)
    drawn = _draw(table, 0, 6, peel_tamper={2: _wrong_first_peel})
    with pytest.raises(IntegrityError, match=rf"slot {drawn[0]} .*peeled it wrongly"):
        table.read(0)
    audit = table.audit()
    assert len(audit) == 1 and audit[0].startswith(f"seat 2 peeled slot {drawn[0]}")
    opened, violations = table.open_held()
    assert any(drawn[0] in v and "opens to no card" in v for v in violations)


def test_cheat_peel_that_copies_another_slot_is_refused() -> None:
    table = Table(2)
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 2)

    def copy_other(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        chore["items"][0]["ct"] = chore["items"][1]["ct"]
        return chore

    with pytest.raises(IntegrityError, match="duplicated"):
        table.entry(1, copy_other)
    assert drawn


def test_cheat_card_claimed_but_not_held() -> None:
    table, held0, second, second_slots = _play_flow(3)
    opened, _ = table.open_held()
    not_held = second[second_slots[-1]]  # seat 2 drew it but did not keep it
    returned = [u for u in UIDS if u not in held0.values()][0]
    violations = mental_deck.check_claims(table.d, opened, {0: [*held0.values(), returned], 2: [not_held]})
    assert len(violations) == 2
    assert f"seat 0 claimed to hold card {returned!r}" in violations[0]
    assert f"seat 2 claimed to hold card {not_held!r}" in violations[1]
    # Claiming the same held card twice is a claim too many.
    twice = [*held0.values()][:1] * 2
    assert len(mental_deck.check_claims(table.d, opened, {0: twice})) == 1


def test_cheat_returned_card_swapped_for_a_kept_one() -> None:
    table = Table(3)
    drawn = _draw(table, 0, 4)
    cards = table.read(0)
    secretdeck.keep(table.state, DECK, 0, drawn[:2])
    secretdeck.return_bottom(table.state, DECK, 0, drawn[2:])
    seed0 = table.seeds[0]

    def swap(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        # Seat 0 re-locks the card it keeps in drawn[0] in place of the returned one.
        item = chore["items"][0]
        kept = mental.from_hex(d["slots"][drawn[0]]["ct"])
        fresh = mental.slot_key(seed0, DECK, item["serial"])
        item["ct"] = mental.to_hex(mental.rekey(mental.deck_key(seed0, DECK), fresh, kept))
        return chore

    table.entry(0, swap)
    table.others(0)
    audit = table.audit()
    assert len(audit) == 1
    assert audit[0].startswith("seat 0 re-locked slot") and "swapped the returned card" in audit[0]
    # The last seat draws the pile: the "returned" slot shows the kept card.
    pile = _draw(table, 2, secretdeck.remaining(table.state, DECK))
    got = table.read(2)
    assert got[pile[-2]] == cards[drawn[0]] != cards[drawn[2]]
    _, violations = table.open_held()
    assert any("open to the same card" in v for v in violations)


def _returned_table() -> tuple[Table, list[str]]:
    table = Table(3)
    drawn = _draw(table, 0, 3)
    secretdeck.return_bottom(table.state, DECK, 0, drawn)
    table.entry(0)
    return table, table.d["order"][-3:]


def test_cheat_relock_with_the_deck_key() -> None:
    table, _ = _returned_table()
    g1 = mental.deck_key(table.seeds[1], DECK)

    def deck_key_lock(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][1]
        item["ct"] = mental.to_hex(mental.encrypt(g1, mental.from_hex(d["slots"][item["slot"]]["ct"])))
        return chore

    table.entry(1, deck_key_lock)
    table.entry(2)
    audit = table.audit()
    assert len(audit) == 1 and "seat 1 re-locked slot" in audit[0] and "deck key" in audit[0]


def test_cheat_relock_reusing_an_earlier_slot_key() -> None:
    table, _ = _returned_table()
    seed1 = table.seeds[1]

    def reuse(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        first, second = chore["items"][0], chore["items"][1]
        old_key = mental.slot_key(seed1, DECK, first["serial"])
        x = mental.from_hex(d["slots"][second["slot"]]["ct"])
        second["ct"] = mental.to_hex(mental.encrypt(old_key, x))
        return chore

    table.entry(1, reuse)
    table.entry(2)
    audit = table.audit()
    assert len(audit) == 1
    serial = table.log[-2][2]["items"][0]["serial"]
    assert f"re-using its slot key of serial {serial}" in audit[0]


def test_cheat_returner_relock_with_its_old_key_is_refused_at_once() -> None:
    table = Table(2)
    drawn = _draw(table, 0, 2)
    secretdeck.return_bottom(table.state, DECK, 0, drawn)

    def keep_deck_key(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        item["ct"] = d["slots"][item["slot"]]["ct"]
        return chore

    with pytest.raises(IntegrityError, match="unchanged"):
        table.entry(0, keep_deck_key)


def test_cheat_omitted_chore_is_refused() -> None:
    table = Table(3)
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 3)
    chore = mental_deck.perform(table.d, DECK, 1, table.seeds[1])
    assert chore is not None
    short = copy.deepcopy(chore)
    short["items"].pop(1)
    before = copy.deepcopy(table.d)
    with pytest.raises(IntegrityError, match=rf"seat 1's entry omits owed work: peel of slot {drawn[1]}"):
        mental_deck.apply_chore(table.d, 1, short)
    assert table.d == before  # all or nothing
    with pytest.raises(IntegrityError, match=rf"omits owed work: peel of slot {drawn[0]}"):
        mental_deck.require_done(table.d, DECK, 1)  # the entry carried no chore at all
    empty = {"deck": DECK, "op": "work", "items": []}
    with pytest.raises(IntegrityError, match="lists no work"):
        mental_deck.apply_chore(table.d, 1, empty)
    # Work not owed, or owed by someone else, is refused too.
    with pytest.raises(IntegrityError, match="does not owe now"):
        mental_deck.apply_chore(table.d, 0, chore)
    mental_deck.apply_chore(table.d, 1, chore)
    with pytest.raises(IntegrityError, match="does not owe now"):
        mental_deck.apply_chore(table.d, 1, chore)  # replayed twice


def test_malformed_chores_are_refused() -> None:
    table = Table(2)
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    good = mental_deck.perform(table.d, DECK, 1, table.seeds[1])
    assert good is not None
    not_a_point = "f" * 64
    bad_values = ["zz", good["items"][0]["ct"].upper(), not_a_point, 7]
    for value in bad_values:
        bad = copy.deepcopy(good)
        bad["items"][0]["ct"] = value
        with pytest.raises(IntegrityError):
            mental_deck.apply_chore(table.d, 1, bad)
    for bad_chore in (
        {"deck": DECK, "op": "steal"},
        {"deck": DECK},
        {"deck": DECK, "op": "work", "items": [{"op": "x"}]},
    ):
        with pytest.raises(IntegrityError):
            mental_deck.apply_chore(table.d, 1, bad_chore)
    with pytest.raises(IntegrityError, match="one too many"):
        mental_deck.apply_chore(table.d, 1, {"deck": DECK, "op": "shuffle", "cts": []})


def test_cheat_shuffle_passes_are_checked() -> None:
    blank = mental_deck.blank(GAME_ID, DECK, UIDS, 2)
    d, chore = mental_deck.create(GAME_ID, DECK, UIDS, 0, b"host seed" * 4, 2)
    seed1 = b"joiner seed" * 3
    honest = mental_deck.perform(d, DECK, 1, seed1)
    assert honest is not None and honest["op"] == "shuffle"
    dup = copy.deepcopy(honest)
    dup["cts"][1] = dup["cts"][0]
    with pytest.raises(IntegrityError, match="duplicated"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, dup)
    lazy = {"deck": DECK, "op": "shuffle", "cts": list(reversed([d["slots"][s]["ct"] for s in d["order"]]))}
    with pytest.raises(IntegrityError, match="did not add its layer"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, lazy)
    short = {"deck": DECK, "op": "shuffle", "cts": honest["cts"][:-1]}
    with pytest.raises(IntegrityError, match="18 ciphertexts"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, short)
    # Accepted at replay, caught by the audit: another order, or a card substituted.
    reordered = copy.deepcopy(honest)
    reordered["cts"][0], reordered["cts"][1] = reordered["cts"][1], reordered["cts"][0]
    mental_deck.apply_chore(copy.deepcopy(d), 1, reordered)
    assert mental_deck.audit_chore(d, DECK, 1, honest, seed1) == []
    assert "permutation" in mental_deck.audit_chore(d, DECK, 1, reordered, seed1)[0]
    swapped = copy.deepcopy(honest)
    swapped["cts"][3] = mental.to_hex(mental.encrypt(99, mental.from_hex(swapped["cts"][3])))
    found = mental_deck.audit_chore(d, DECK, 1, swapped, seed1)
    assert found and found[0].startswith("seat 1's shuffle pass") and "1 of its" in found[0]
    assert mental_deck.audit_chore(blank, DECK, 0, chore, b"host seed" * 4) == []
    assert mental_deck.audit_chore(blank, DECK, 0, chore, b"other seed" * 4) != []


def test_read_refuses_a_card_known_to_be_elsewhere() -> None:
    table = Table(2)
    drawn = _draw(table, 1, 2)
    cards = table.read(1)
    with pytest.raises(IntegrityError, match=rf"slot {drawn[0]}"):
        mental_deck.read(table.d, GAME_ID, DECK, 1, table.seeds[1], UIDS, elsewhere=[cards[drawn[0]]])
    with pytest.raises(IntegrityError):  # another seat's seed peels to garbage
        mental_deck.read(table.d, GAME_ID, DECK, 1, table.seeds[0], UIDS)


def test_open_held_reports_a_seat_that_never_revealed() -> None:
    table = Table(3)
    drawn = _draw(table, 0, 2)
    seeds = {0: table.seeds[0], 1: table.seeds[1]}
    opened, violations = mental_deck.open_held(table.d, GAME_ID, DECK, seeds, UIDS)
    assert set(opened) == set(drawn)  # only seat 0's layer is left on the drawn slots
    assert violations and all("seat 2 never revealed" in v for v in violations)
    assert len(violations) == 16  # every slot of the pile carries seat 2's layer

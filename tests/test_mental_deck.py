"""pbem.mental_deck: whole secret-deck flows without the engine, and every cheat caught.

A small harness plays the engine's part: the create entry, one join per seat, then turn
entries that end with whatever the seat owes (``perform`` + ``apply_chore``, proofs bound
to the entry's seq), with the public state before each chore kept for the audit.
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
from pbem.protocol.crypto import dleq, mental, mental_deck, mental_open, secretdeck, shuffle_proof

GAME_ID = "5eed00112233445566778899aabbccdd"
DECK = "bonus"
UIDS = [f"bonus-card-{i:02d}" for i in range(18)]

Tamper = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


def _public_dump(d: dict[str, Any]) -> str:
    """The deck state or a chore as text, less its list of every card (public component
    data, which the first shuffle pass names too)."""
    return json.dumps({k: v for k, v in d.items() if k != "cards"}, sort_keys=True)


class Table:
    """Seats 0..n-1 sharing one mental deck; seat 0 hosts."""

    def __init__(self, seats: int, uids: list[str] = UIDS) -> None:
        self.n = seats
        self.uids = uids
        self.seeds = {s: hashlib.sha256(b"seed of seat %d" % s).digest() for s in range(seats)}
        blank = mental_deck.blank(GAME_ID, DECK, uids, seats)
        d, chore = mental_deck.create(GAME_ID, DECK, uids, 0, self.seeds[0], seats)
        self.seq = 0
        self.state: dict[str, Any] = {"secret": {DECK: d}, "seats": [f"p{s}" for s in range(seats)]}
        # (seat, public state before, chore) of every chore, and every saved snapshot.
        self.log: list[tuple[int, dict[str, Any], dict[str, Any]]] = [(0, blank, chore)]
        self.saved: list[str] = [_public_dump(d), _public_dump(chore)]
        for seat in range(1, seats):
            assert mental_deck.owed(self.d, seat) == [{"op": "shuffle"}]
            self.entry(seat)

    @property
    def d(self) -> dict[str, Any]:
        return self.state["secret"][DECK]

    def entry(self, seat: int, tamper: Tamper | None = None) -> dict[str, Any] | None:
        """End of one entry by ``seat``: publish and apply all the work it owes."""
        self.seq += 1
        chore = mental_deck.perform(self.d, DECK, seat, self.seeds[seat], GAME_ID, self.seq)
        if chore is None:
            mental_deck.require_done(self.d, DECK, seat)
            return None
        if tamper is not None:
            chore = tamper(copy.deepcopy(chore), self.d)
        before = copy.deepcopy(self.d)
        mental_deck.apply_chore(self.d, seat, chore, GAME_ID, self.seq)
        self.log.append((seat, before, chore))
        self.saved += [_public_dump(self.d), _public_dump(chore)]
        return chore

    def others(self, seat: int, tamper: dict[int, Tamper] | None = None) -> None:
        """One entry by each other seat, in turn order after ``seat``."""
        for step in range(1, self.n):
            other = (seat + step) % self.n
            self.entry(other, (tamper or {}).get(other))

    def read(self, seat: int) -> dict[str, str]:
        return mental_open.read(self.d, GAME_ID, DECK, seat, self.seeds[seat], self.uids)

    def audit(self) -> list[str]:
        out: list[str] = []
        for seat, before, chore in self.log:
            out += mental_open.audit_chore(before, DECK, seat, chore, self.seeds[seat])
        return out

    def open_held(self) -> tuple[dict[str, str], list[str]]:
        return mental_open.open_held(self.d, GAME_ID, DECK, self.seeds, self.uids)


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
    new_ids = secretdeck.return_bottom(table.state, DECK, 0, back)
    assert new_ids == table.d["order"][-3:]
    assert not mental_deck.owed(table.d, 0)  # its layers are one key already: no re-key
    for step in range(1, seats):  # every other seat shuffles the batch in turn
        assert mental_deck.owing(table.d) == [step]
        chore = table.entry(step)
        assert chore is not None and [i["op"] for i in chore["items"]] == ["shuffle"]
    assert mental_deck.owing(table.d) == []
    assert all("from" not in table.d["slots"][s] for s in new_ids)  # no link to the old slot
    assert not set(new_ids) & set(drawn)
    records = {json.dumps([table.d["slots"][s]["layers"], table.d["slots"][s]["keys"]],
                          sort_keys=True) for s in new_ids}
    assert len(records) == 1  # one layer record for the batch: it says nothing of the order
    assert all(len(table.d["slots"][s]["layers"]) == seats for s in new_ids)

    last = seats - 1
    pile = secretdeck.remaining(table.state, DECK)
    assert pile == 15
    second_slots = _draw(table, last, pile)
    if last != 0:
        table.entry(0)  # nothing left for seat 0 either
    second = table.read(last) if last != 0 else {s: table.read(0)[s] for s in second_slots}
    assert sorted(second[s] for s in second_slots[-3:]) == sorted(first[s] for s in back)
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
    assert mental_open.check_claims(table.d, opened, claims) == []
    assert secretdeck.counts(table.state, DECK) == ({0: 5} if seats == 1 else {0: 3, seats - 1: 2})


@pytest.mark.parametrize("seats", [1, 2, 4])
def test_privately_held_says_what_drawn_and_held_say_for_any_seats(seats: int) -> None:
    """Posse asks it of every seat at once on each entry (one pass over the slots): the
    answer of drawn and held asked seat by seat, for every group of seats."""
    import itertools

    table = Table(seats)
    for step in range(4):
        if step:
            _draw(table, step % seats, 2)
        for size in range(seats + 1):
            for group in itertools.combinations(range(seats), size):
                assert secretdeck.privately_held(table.state, DECK, group) == any(
                    secretdeck.drawn(table.state, DECK, s) or secretdeck.held(table.state, DECK, s)
                    for s in group)
    secretdeck.keep(table.state, DECK, 1 % seats, secretdeck.drawn(table.state, DECK, 1 % seats))
    assert secretdeck.privately_held(table.state, DECK, [1 % seats])
    assert not secretdeck.privately_held(table.state, DECK, [])


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
    text = "\n".join(table.saved + [_public_dump(table.d)])
    secrets: list[str] = list(UIDS)
    for seed in table.seeds.values():
        secrets += [seed.hex(), repr(seed)]
        keys = [mental.deck_key(seed, DECK)] + [
            mental.slot_key(seed, DECK, i) for i in range(table.d["serial"])
        ]
        for key in keys:
            secrets += [f"{key:064x}", f"{key:x}", str(key), f"{pow(key, -1, mental.L):064x}",
                        mental.scalar_bytes(key).hex(), mental.to_text(mental.scalar_bytes(key))]
    # The plaintext points: a slot never shows a card point, not even its holder's.
    secrets += [mental.to_text(x) for x in mental.card_points(GAME_ID, DECK, UIDS)]
    found = [s for s in secrets if s.lower() in text.lower()]
    assert found == []
    assert "bonus-card" not in text
    # Every snapshot and chore is TOML-friendly.
    for saved in table.saved:
        obj = json.loads(saved)
        _walk(obj)
        tomli_w.dumps({"x": obj})
    _walk(table.d)


def test_drawing_a_returned_card_before_its_shuffles_are_done() -> None:
    """Stages: the drawer of a returned batch not yet shuffled by everyone reads it once
    the shuffles (its own included) and then the peels are done."""
    table = Table(3, uids=UIDS[:6])
    drawn = _draw(table, 0, 2)
    cards = table.read(0)
    fresh = secretdeck.return_bottom(table.state, DECK, 0, drawn)
    assert secretdeck.owing(table.state, DECK) == [1]  # seat 1 shuffles first, then seat 2
    slots = secretdeck.reserve_top(table.state, DECK, 1, 6)
    assert slots[-2:] == fresh
    owed1 = mental_deck.owed(table.d, 1)
    assert [o["op"] for o in owed1] == ["shuffle"]
    assert not any(
        o["op"] == "peel" for s in (0, 2) for o in mental_deck.owed(table.d, s) if o["slot"] in fresh
    )
    table.entry(1)
    assert not secretdeck.readable(table.state, DECK, 1)
    chore2 = table.entry(2)  # seat 2 shuffles the batch, then peels everything
    assert chore2 is not None
    assert [i["op"] for i in chore2["items"]][:1] == ["shuffle"]
    table.entry(0)
    assert secretdeck.readable(table.state, DECK, 1)
    read = table.read(1)
    assert sorted(read[s] for s in fresh) == sorted(cards[s] for s in drawn)
    assert sorted(read.values()) == sorted(UIDS[:6])
    assert table.audit() == []
    assert table.open_held()[1] == []


def test_returning_an_unread_card_is_refused() -> None:
    table = Table(3, uids=UIDS[:5])
    drawn = secretdeck.reserve_top(table.state, DECK, 2, 1)
    table.entry(2)
    table.entry(0)  # seat 0 peels; seat 1 has not yet
    with pytest.raises(IllegalMoveError, match="cannot be returned yet"):
        secretdeck.return_bottom(table.state, DECK, 2, drawn)


def test_a_returner_with_layers_of_several_keys_rekeys_them_to_one_first() -> None:
    """The last drawer of _play_flow holds slots of the first pass (its deck key) and of
    a returned batch (a slot key): returning them all, it first re-keys its layers to one
    fresh key, so the batch carries one layer record; then the others shuffle it."""
    table, _, _, second_slots = _play_flow(3)
    back = secretdeck.drawn(table.state, DECK, 2)
    assert len({table.d["slots"][s]["layers"]["2"] for s in back}) == 2
    fresh = secretdeck.return_bottom(table.state, DECK, 2, back)
    assert [o["op"] for o in mental_deck.owed(table.d, 2)] == ["rekey"]
    chore = table.entry(2)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["rekey"]
    assert len(chore["items"][0]["proofs"]) == len(back)
    table.entry(0)
    table.entry(1)
    records = {json.dumps([table.d["slots"][s]["layers"], table.d["slots"][s]["keys"]],
                          sort_keys=True) for s in fresh}
    assert len(records) == 1
    assert table.audit() == [] and table.open_held()[1] == []
    assert second_slots


def test_owed_perform_and_bookkeeping() -> None:
    table = Table(2, uids=UIDS[:4])
    assert mental_deck.owed(table.d, 0) == []
    assert mental_deck.perform(table.d, DECK, 0, b"", GAME_ID, 9) is None
    blank = mental_deck.blank(GAME_ID, DECK, UIDS[:4], 3)
    state = {"secret": {DECK: blank}, "seats": ["a", "b", "c"]}
    with pytest.raises(IllegalMoveError, match="shuffled"):
        secretdeck.reserve_top(state, DECK, 0, 1)
    with pytest.raises(ValueError, match="same uid"):
        mental_deck.blank(GAME_ID, DECK, ["a", "a"], 2)
    before = copy.deepcopy(table.d)
    chore = mental_deck.perform(table.d, DECK, 0, table.seeds[0], GAME_ID, 9)
    assert chore is None and table.d == before  # perform never changes the state
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    before = copy.deepcopy(table.d)
    assert mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, 9) is not None
    assert table.d == before


# ---- cheats: refused at replay, in the entry that makes them ----------------------------
def _wrong_first_peel(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    item = chore["items"][0]
    item["ct"] = mental.to_text(mental.encrypt(12345, mental.from_text(item["ct"])))
    return chore


def test_cheat_wrong_peel_is_refused_in_its_own_entry() -> None:
    """No need to wait for the end, nor for the cheater's reveal: the proof fails now."""
    table = Table(4)
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 6)
    table.entry(0)
    table.entry(1)
    before = copy.deepcopy(table.d)
    with pytest.raises(IntegrityError, match=rf"seat 2's chore, peel of slot {drawn[0]} fails its proof"):
        table.entry(2, _wrong_first_peel)
    assert table.d == before  # all or nothing


def test_cheat_wrong_peel_with_a_proof_for_another_key_is_refused() -> None:
    """The cheater peels with a key of its choice and proves that key honestly: the proof
    is for a key point it never published, so it fails against the published one."""
    table = Table(3)
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 2)
    table.entry(0)
    own = mental.deck_key(table.seeds[1], DECK)
    fake = 987654321

    def other_key(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        x = mental.from_text(d["slots"][item["slot"]]["ct"])
        y = mental.decrypt(fake, x)
        ctx = dleq.context(GAME_ID, DECK, table.seq, 1, "peel", item["slot"])
        item["ct"] = mental.to_text(y)
        item["proof"] = dleq.prove(fake, mental.BASE, mental.public_point(fake), y, x, ctx)
        return chore

    assert own != fake
    with pytest.raises(IntegrityError, match=rf"peel of slot {drawn[0]} fails its proof"):
        table.entry(1, other_key)


def test_cheat_proof_replayed_for_another_slot_or_entry_is_refused() -> None:
    table = Table(3)
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    table.entry(0)

    def swap_proofs(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        first, second = chore["items"]
        first["proof"], second["proof"] = second["proof"], first["proof"]
        return chore

    with pytest.raises(IntegrityError, match="fails its proof"):
        table.entry(1, swap_proofs)
    # The honest chore of this entry, replayed as if in a later entry: bound to its seq.
    honest = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, table.seq)
    assert honest is not None
    with pytest.raises(IntegrityError, match="fails its proof"):
        mental_deck.apply_chore(copy.deepcopy(table.d), 1, honest, GAME_ID, table.seq + 1)
    with pytest.raises(IntegrityError, match="fails its proof"):
        mental_deck.apply_chore(copy.deepcopy(table.d), 1, honest, "ff" * 16, table.seq)
    mental_deck.apply_chore(table.d, 1, honest, GAME_ID, table.seq)


def _small_order() -> str:
    from tests.test_mental import _torsion

    return mental.to_text(_torsion()[1])


def test_cheat_small_order_or_invalid_points_are_refused() -> None:
    table = Table(2)
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    good = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, table.seq + 1)
    assert good is not None
    from tests.test_mental import _off_subgroup

    identity = mental.to_text((1).to_bytes(32, "little"))
    for value in (_small_order(), identity, mental.to_text(_off_subgroup()), "_" * 42 + "w"):
        bad = copy.deepcopy(good)
        bad["items"][0]["ct"] = value
        with pytest.raises(IntegrityError, match="peel of slot .*not a valid point of the group"):
            mental_deck.apply_chore(table.d, 1, bad, GAME_ID, table.seq + 1)
    ct = good["items"][0]["ct"]
    for value in ("zz", 7, ct + "=", bytes.fromhex("00" * 32).hex(), " " + ct[1:],
                  ct.replace("-", "+").replace("_", "/") if "-" in ct or "_" in ct else "+" + ct[1:]):
        bad = copy.deepcopy(good)
        bad["items"][0]["ct"] = value
        with pytest.raises(IntegrityError, match="peel of slot .*not a point .*base64url"):
            mental_deck.apply_chore(table.d, 1, bad, GAME_ID, table.seq + 1)
    # A shuffle pass with a small-order ciphertext or key point, or the base point as key.
    d, _ = mental_deck.create(GAME_ID, DECK, UIDS, 0, b"host" * 8, 2)
    honest = mental_deck.perform(d, DECK, 1, b"joiner" * 6, GAME_ID, 1)
    assert honest is not None
    for field_name, value, message in (("key", _small_order(), "not a valid point"),
                                       ("key", mental.to_text(mental.BASE), "base point"),
                                       ("key", d["keys"]["0"], "another seat's")):
        bad = dict(honest, **{field_name: value})
        with pytest.raises(IntegrityError, match=message):
            mental_deck.apply_chore(copy.deepcopy(d), 1, bad, GAME_ID, 1)
    bad = copy.deepcopy(honest)
    bad["cts"][4] = _small_order()
    with pytest.raises(IntegrityError, match="position 5: .*not a valid point"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, bad, GAME_ID, 1)


def test_cheat_peel_that_copies_another_slot_is_refused() -> None:
    table = Table(2)
    secretdeck.reserve_top(table.state, DECK, 0, 2)

    def copy_other(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        chore["items"][0]["ct"] = chore["items"][1]["ct"]
        return chore

    with pytest.raises(IntegrityError, match="fails its proof"):
        table.entry(1, copy_other)


def test_cheat_card_claimed_but_not_held() -> None:
    table, held0, second, second_slots = _play_flow(3)
    opened, _ = table.open_held()
    not_held = second[second_slots[-1]]  # seat 2 drew it but did not keep it
    returned = [u for u in UIDS if u not in held0.values()][0]
    violations = mental_open.check_claims(table.d, opened, {0: [*held0.values(), returned], 2: [not_held]})
    assert len(violations) == 2
    assert f"seat 0 claimed to hold card {returned!r}" in violations[0]
    assert f"seat 2 claimed to hold card {not_held!r}" in violations[1]
    twice = [*held0.values()][:1] * 2
    assert len(mental_open.check_claims(table.d, opened, {0: twice})) == 1


def test_cheat_returned_card_swapped_for_a_kept_one_is_refused() -> None:
    """Seat 1 shuffles the returned batch but puts in one of the cards seat 0 kept (under
    the same fresh key, a good-looking ciphertext): the shuffle proof ties the batch's new
    ciphertexts to its old ones, so the swap fails at once."""
    table = Table(3)
    drawn = _draw(table, 0, 4)
    secretdeck.keep(table.state, DECK, 0, drawn[:2])
    secretdeck.return_bottom(table.state, DECK, 0, drawn[2:])
    seed1 = table.seeds[1]

    def swap(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        kept = mental.from_text(d["slots"][drawn[0]]["ct"])
        item["cts"][0] = mental.to_text(mental.encrypt(mental.slot_key(seed1, DECK, item["serial"]), kept))
        return chore

    with pytest.raises(IntegrityError, match=r"seat 1's chore, shuffled re-lock of the batch "
                                             r"s\d+ s\d+ fails its shuffle proof"):
        table.entry(1, swap)


def test_cheat_rekey_that_swaps_a_card_is_refused() -> None:
    table, _, _, _ = _play_flow(3)
    back = secretdeck.drawn(table.state, DECK, 2)
    secretdeck.return_bottom(table.state, DECK, 2, back)
    kept = mental.from_text(table.d["slots"][secretdeck.held(table.state, DECK, 2)[0]]["ct"])

    def swap(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        item["cts"][1] = mental.to_text(mental.encrypt(3, kept))
        return chore

    with pytest.raises(IntegrityError, match=r"seat 2's chore, re-lock to one key of the batch "
                                             r".* fails its proof at slot s\d+"):
        table.entry(2, swap)


def _returned_table() -> tuple[Table, list[str]]:
    table = Table(3)
    drawn = _draw(table, 0, 3)
    fresh = secretdeck.return_bottom(table.state, DECK, 0, drawn)
    return table, fresh


def _shuffle_with(key: int, seat: int, table: Table) -> Tamper:
    """The chore's batch shuffle done with ``key`` instead, proved honestly for that key."""

    def tamper(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        assert item["op"] == "shuffle" and str(seat) not in d["slots"][item["slots"][0]]["layers"]
        xs = [mental.from_text(d["slots"][sid]["ct"]) for sid in item["slots"]]
        ctx = mental_deck.batch_context(GAME_ID, DECK, table.seq, seat, item["serial"], item["slots"])
        point = mental.public_point(key)
        outputs, proof = shuffle_proof.prove(mental.BASE, point, key, xs, list(range(len(xs))),
                                             ctx, b"x" * 32)
        item.update(key=mental.to_text(point), cts=[mental.to_text(y) for y in outputs],
                    proof=mental_deck.pack_proof(proof))
        return chore

    return tamper


def test_cheat_shuffle_with_an_invalid_key_point_or_ciphertext_is_refused_as_such() -> None:
    """A batch shuffle's key point and new ciphertexts are points of the group, or it is
    refused saying which is not (the key point first), whatever the proof."""
    from tests.test_mental import _off_subgroup

    bad = [(_small_order(), "not a valid point of the group"),
           (mental.to_text(_off_subgroup()), "not a valid point of the group"),
           ("_" * 42 + "w", "not a valid point of the group"),
           ("zz", "not a point .*base64url"), (7, "not a point .*base64url"),
           (mental.to_text(_off_subgroup()) + "=", "not a point .*base64url")]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"key": v}, rf"batch s\d+ s\d+ s\d+, its key point: .*{m}") for v, m in bad]
    cases += [({"cts": [v]}, rf"batch s\d+ s\d+ s\d+, position 1: .*{m}") for v, m in bad]
    for fields, expected in cases:
        table, _ = _returned_table()

        def tamper(chore: dict[str, Any], d: dict[str, Any],
                   fields: dict[str, Any] = fields) -> dict[str, Any]:
            item = chore["items"][0]
            assert item["op"] == "shuffle"
            if "cts" in fields:
                item["cts"][0] = fields["cts"][0]
            else:
                item.update(fields)
            return chore

        with pytest.raises(IntegrityError, match=expected):
            table.entry(1, tamper)


def test_cheat_shuffle_with_the_deck_key_is_refused() -> None:
    table, _ = _returned_table()
    g1 = mental.deck_key(table.seeds[1], DECK)
    with pytest.raises(IntegrityError, match="re-uses a key it used before"):
        table.entry(1, _shuffle_with(g1, 1, table))


def test_cheat_shuffle_reusing_a_slot_key_still_in_use_is_refused() -> None:
    table, first = _returned_table()
    table.entry(1)
    table.entry(2)
    # Seat 1's key of the first batch is on those slots still.
    serial = int(table.d["slots"][first[0]]["layers"]["1"].removeprefix("slot:"))
    key = mental.slot_key(table.seeds[1], DECK, serial)
    drawn = _draw(table, 2, 2)
    secretdeck.return_bottom(table.state, DECK, 2, drawn)
    table.entry(0)
    with pytest.raises(IntegrityError, match="re-uses a key"):
        table.entry(1, _shuffle_with(key, 1, table))


def test_the_audit_finds_the_same_in_the_view_the_replay_keeps_as_in_the_whole_deck() -> None:
    """An audited replay keeps of each deck, before each chore, only what audit_chore
    reads (engine.audit_view), not a copy of the whole deck: the findings are the same,
    down to the earlier serial whose slot key a cheat re-uses (read from the deck before)."""
    from pbem.protocol.replay import engine

    table, _ = _returned_table()
    table.entry(1, _shuffle_with(mental.slot_key(table.seeds[1], DECK, 1), 1, table))
    table.entry(2)
    found = [mental_open.audit_chore(engine.audit_view(before), DECK, seat, chore,
                                     table.seeds[seat]) for seat, before, chore in table.log]
    assert found == [mental_open.audit_chore(before, DECK, seat, chore, table.seeds[seat])
                     for seat, before, chore in table.log]
    assert sum(found, []) == table.audit()
    assert len(table.audit()) == 1 and "re-uses its slot key of serial 1" in table.audit()[0]


def test_cheat_shuffle_with_a_key_the_seed_does_not_give_is_named_by_the_audit() -> None:
    """A batch shuffle with a key of the cheater's own choosing, proved consistently, is
    accepted at replay (the proof only ties the values to the published point); the audit
    checks the point against the revealed seed and names the seat, and opening the slots
    names it too, never their holder."""
    table, fresh = _returned_table()
    table.entry(1, _shuffle_with(424242, 1, table))
    table.entry(2)
    audit = table.audit()
    assert len(audit) == 1
    assert audit[0].startswith("seat 1's shuffled re-lock of the batch")
    assert "a key its seed does not give" in audit[0]
    _, found = table.open_held()
    assert len(found) == 3 and all("seat 1 published a key point" in f for f in found)
    assert all(any(s in f for s in fresh) for f in found)


def test_cheat_omitted_chore_is_refused() -> None:
    table = Table(3)
    drawn = secretdeck.reserve_top(table.state, DECK, 0, 3)
    chore = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, 5)
    assert chore is not None
    short = copy.deepcopy(chore)
    short["items"].pop(1)
    before = copy.deepcopy(table.d)
    with pytest.raises(IntegrityError, match=rf"seat 1's entry omits owed work: peel of slot {drawn[1]}"):
        mental_deck.apply_chore(table.d, 1, short, GAME_ID, 5)
    assert table.d == before  # all or nothing
    with pytest.raises(IntegrityError, match=rf"omits owed work: peel of slot {drawn[0]}"):
        mental_deck.require_done(table.d, DECK, 1)  # the entry carried no chore at all
    empty = {"deck": DECK, "op": "work", "items": []}
    with pytest.raises(IntegrityError, match="lists no work"):
        mental_deck.apply_chore(table.d, 1, empty, GAME_ID, 5)
    with pytest.raises(IntegrityError, match="does not owe now"):
        mental_deck.apply_chore(table.d, 0, chore, GAME_ID, 5)
    mental_deck.apply_chore(table.d, 1, chore, GAME_ID, 5)
    with pytest.raises(IntegrityError, match="does not owe now"):
        mental_deck.apply_chore(table.d, 1, chore, GAME_ID, 5)  # replayed twice


def test_malformed_chores_are_refused() -> None:
    table = Table(2)
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    good = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, 5)
    assert good is not None
    for key, value in (("proof", "00" * 64), ("proof", None), ("proof", 3), ("slot", "s999"),
                       ("slot", 4), ("op", "lock")):
        bad = copy.deepcopy(good)
        bad["items"][0][key] = value
        with pytest.raises(IntegrityError):
            mental_deck.apply_chore(table.d, 1, bad, GAME_ID, 5)
    for bad_chore in (
        {"deck": DECK, "op": "steal"},
        {"deck": DECK},
        {"deck": DECK, "op": "work", "items": [{"op": "x"}]},
        {"deck": DECK, "op": "work", "items": "peel"},
    ):
        with pytest.raises(IntegrityError):
            mental_deck.apply_chore(table.d, 1, bad_chore, GAME_ID, 5)
    with pytest.raises(IntegrityError, match="one too many"):
        mental_deck.apply_chore(table.d, 1, {"deck": DECK, "op": "shuffle", "cts": []}, GAME_ID, 5)


def test_cheat_shuffle_passes_are_checked() -> None:
    """A shuffle pass is refused at once unless its proof shows the slots under the deck
    key it published, in some order: a duplicated, substituted or unchanged card, another
    key, another order than the proof's, a proof bound to another entry or seat."""
    blank = mental_deck.blank(GAME_ID, DECK, UIDS, 2)
    d, chore = mental_deck.create(GAME_ID, DECK, UIDS, 0, b"host seed" * 4, 2)
    seed1 = b"joiner seed" * 3
    honest = mental_deck.perform(d, DECK, 1, seed1, GAME_ID, 1)
    assert honest is not None and honest["op"] == "shuffle"
    mental_deck.apply_chore(copy.deepcopy(d), 1, honest, GAME_ID, 1)
    dup = copy.deepcopy(honest)
    dup["cts"][1] = dup["cts"][0]
    with pytest.raises(IntegrityError, match="duplicated"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, dup, GAME_ID, 1)
    lazy = dict(honest, cts=list(reversed([d["slots"][s]["ct"] for s in d["order"]])))
    with pytest.raises(IntegrityError, match="did not add its layer"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, lazy, GAME_ID, 1)
    short = dict(honest, cts=honest["cts"][:-1])
    with pytest.raises(IntegrityError, match="18 ciphertexts"):
        mental_deck.apply_chore(copy.deepcopy(d), 1, short, GAME_ID, 1)
    reordered = copy.deepcopy(honest)
    reordered["cts"][0], reordered["cts"][1] = reordered["cts"][1], reordered["cts"][0]
    swapped = copy.deepcopy(honest)
    swapped["cts"][3] = mental.to_text(mental.encrypt(99, mental.from_text(swapped["cts"][3])))
    wrong_key = dict(honest, key=mental.to_text(mental.public_point(5)))
    for bad in (reordered, swapped, wrong_key):
        with pytest.raises(IntegrityError, match="seat 1's shuffle pass fails its shuffle proof"):
            mental_deck.apply_chore(copy.deepcopy(d), 1, bad, GAME_ID, 1)
    with pytest.raises(IntegrityError, match="fails its shuffle proof"):  # another entry
        mental_deck.apply_chore(copy.deepcopy(d), 1, honest, GAME_ID, 2)
    with pytest.raises(IntegrityError, match="fails its shuffle proof"):  # another game
        mental_deck.apply_chore(copy.deepcopy(d), 1, honest, "0" * 32, 1)
    # What no proof covers: the key point against the seed, at the audit.
    assert mental_open.audit_chore(d, DECK, 1, honest, seed1) == []
    assert "deck key point its seed does not give" in mental_open.audit_chore(d, DECK, 1, wrong_key, seed1)[0]
    assert mental_open.audit_chore(blank, DECK, 0, chore, b"host seed" * 4) == []
    assert mental_open.audit_chore(blank, DECK, 0, chore, b"other seed" * 4) != []


def test_a_substituted_card_is_refused_in_the_pass_that_makes_it() -> None:
    """Before shuffle proofs a joiner could swap a card for one from outside the deck and
    pass replay; now its pass is refused at once, naming it."""
    host, joiner = b"host seed" * 4, b"joiner seed" * 3
    d, _ = mental_deck.create(GAME_ID, DECK, UIDS[:4], 0, host, 2)
    honest = mental_deck.perform(d, DECK, 1, joiner, GAME_ID, 1)
    assert honest is not None
    g0, g1 = mental.deck_key(host, DECK), mental.deck_key(joiner, DECK)
    bad = copy.deepcopy(honest)
    outsider = mental.encrypt(g0 * g1 % mental.L, mental.card_point(GAME_ID, DECK, UIDS[9]))
    bad["cts"][2] = mental.to_text(outsider)
    with pytest.raises(IntegrityError, match="seat 1's shuffle pass fails its shuffle proof"):
        mental_deck.apply_chore(d, 1, bad, GAME_ID, 1)


def test_read_refuses_a_card_known_to_be_elsewhere() -> None:
    table = Table(2)
    drawn = _draw(table, 1, 2)
    cards = table.read(1)
    with pytest.raises(IntegrityError, match=rf"slot {drawn[0]}"):
        mental_open.read(table.d, GAME_ID, DECK, 1, table.seeds[1], UIDS, elsewhere=[cards[drawn[0]]])
    with pytest.raises(IntegrityError):  # another seat's seed peels to garbage
        mental_open.read(table.d, GAME_ID, DECK, 1, table.seeds[0], UIDS)


def test_open_held_reports_a_seat_that_never_revealed() -> None:
    table = Table(3)
    drawn = _draw(table, 0, 2)
    seeds = {0: table.seeds[0], 1: table.seeds[1]}
    opened, violations = mental_open.open_held(table.d, GAME_ID, DECK, seeds, UIDS)
    assert set(opened) == set(drawn)  # only seat 0's layer is left on the drawn slots
    assert violations and all("seat 2 never revealed" in v for v in violations)
    assert len(violations) == 16  # every slot of the pile carries seat 2's layer


# ---- deal, pass and open (a draft's operations) -------------------------------------------
def _dealt(seats: int = 3, hand: int = 3) -> tuple[Table, dict[int, list[str]]]:
    table = Table(seats)
    hands = secretdeck.deal(table.state, DECK, {s: hand for s in range(seats)})
    for seat in range(seats):
        table.entry(seat)
    return table, hands


def test_deal_gives_each_seat_a_hand_only_it_can_read() -> None:
    table, hands = _dealt(4, 3)
    assert [len(h) for h in hands.values()] == [3, 3, 3, 3]
    assert secretdeck.owing(table.state, DECK) == []
    seen: list[str] = []
    for seat, hand in hands.items():
        assert secretdeck.readable(table.state, DECK, seat)
        assert secretdeck.drawn(table.state, DECK, seat) == hand
        mine = table.read(seat)
        assert list(mine) == hand
        seen += mine.values()
        for other in range(4):
            if other != seat:  # another seat's key opens nothing of this hand
                with pytest.raises(IntegrityError):
                    mental_open.read(table.d, GAME_ID, DECK, seat, table.seeds[other], UIDS)
    assert len(set(seen)) == 12
    assert table.audit() == [] and table.open_held()[1] == []
    with pytest.raises(IllegalMoveError, match="the deal needs"):
        secretdeck.deal(table.state, DECK, {0: 7})
    with pytest.raises(IllegalMoveError, match="not at the table"):
        secretdeck.deal(table.state, DECK, {9: 1})


def test_deal_waits_for_every_peel_and_owes_work_to_the_right_seats() -> None:
    table = Table(3)
    hands = secretdeck.deal(table.state, DECK, {0: 2, 1: 2, 2: 2})
    assert secretdeck.owing(table.state, DECK) == [0, 1, 2]
    assert not any(secretdeck.settled(table.state, DECK, h) for h in hands.values())
    table.entry(0)  # seat 0 peels the hands of 1 and 2
    owed1 = mental_deck.owed(table.d, 1)
    assert {o["slot"] for o in owed1} == set(hands[0] + hands[2])
    table.entry(1)
    assert secretdeck.settled(table.state, DECK, hands[2])  # seats 0 and 1 have peeled it
    assert not secretdeck.readable(table.state, DECK, 0)
    table.entry(2)
    assert all(secretdeck.readable(table.state, DECK, s) for s in range(3))


def test_pass_moves_a_hand_so_that_only_the_receiver_reads_it() -> None:
    table, hands = _dealt(3, 3)
    before = table.read(0)
    secretdeck.keep(table.state, DECK, 0, hands[0][:1])
    rest = hands[0][1:]
    fresh = secretdeck.pass_slots(table.state, DECK, 0, 1, rest)
    assert not set(fresh) & set(table.d["slots"]) - set(fresh) and not set(fresh) & set(rest)
    assert not set(rest) & set(table.d["slots"])  # the old ids are gone
    assert [secretdeck.holder(table.state, DECK, s) for s in fresh] == [1, 1]
    assert secretdeck.owing(table.state, DECK) == [1]  # the receiver shuffles first ...
    assert table.entry(0) is None
    chore = table.entry(1)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["shuffle"]
    assert secretdeck.owing(table.state, DECK) == [0]  # ... then the giver peels
    assert not secretdeck.readable(table.state, DECK, 1)
    chore = table.entry(0)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["peel", "peel"]
    assert secretdeck.settled(table.state, DECK, fresh) and secretdeck.readable(table.state, DECK, 1)
    got = table.read(1)
    assert sorted(got[s] for s in fresh) == sorted(before[s] for s in rest)
    assert list(table.read(0)) == hands[0][:1]  # the giver keeps only its pick
    # Nobody else learned anything: seat 2's key opens neither the passed slots nor any other.
    with pytest.raises(IntegrityError):
        mental_open.read(table.d, GAME_ID, DECK, 1, table.seeds[2], UIDS)
    assert table.audit() == [] and table.open_held()[1] == []
    for slot in fresh:
        assert list(table.d["slots"][slot]["layers"]) == ["1"]


def test_pass_before_the_hand_is_settled_is_refused() -> None:
    table = Table(3)
    hand = secretdeck.reserve_top(table.state, DECK, 0, 2)
    table.entry(0)
    table.entry(1)  # seat 2 has not peeled yet
    with pytest.raises(IllegalMoveError, match="cannot be passed yet"):
        secretdeck.pass_slots(table.state, DECK, 0, 2, hand)


def test_cheat_pass_wrong_shuffle_or_wrong_peel_is_refused() -> None:
    table, hands = _dealt(3, 3)
    rest = hands[0][1:]
    fresh = secretdeck.pass_slots(table.state, DECK, 0, 1, rest)

    def bump(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        item = chore["items"][0]
        item["cts"][0] = mental.to_text(mental.encrypt(7, mental.from_text(item["cts"][0])))
        return chore

    with pytest.raises(IntegrityError, match=rf"seat 1's chore, shuffled re-lock of the batch "
                                             rf"{fresh[0]} {fresh[1]} fails its shuffle proof"):
        table.entry(1, bump)
    table.entry(1)
    with pytest.raises(IntegrityError, match=rf"seat 0's chore, peel of slot {fresh[1]} fails its proof"):
        table.entry(0, lambda c, d: _bump_ct(c, 1))
    # The giver peeling a slot it did not pass (its kept one) is work it does not owe.

    def peel_kept(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        chore["items"][0]["slot"] = hands[0][0]
        return chore

    with pytest.raises(IntegrityError, match=rf"peel of slot {hands[0][0]} that it does not owe"):
        table.entry(0, peel_kept)
    # At the rules level: a slot the holder does not hold cannot be passed.
    with pytest.raises(IllegalMoveError, match="not one of your private cards"):
        secretdeck.pass_slots(table.state, DECK, 0, 2, hands[1][:1])
    with pytest.raises(IllegalMoveError, match="cannot be passed"):
        secretdeck.pass_slots(table.state, DECK, 2, 2, hands[2][:1])
    with pytest.raises(IllegalMoveError, match="named twice"):
        secretdeck.pass_slots(table.state, DECK, 2, 0, hands[2][:1] * 2)


def _bump_ct(chore: dict[str, Any], index: int) -> dict[str, Any]:
    item = chore["items"][index]
    item["ct"] = mental.to_text(mental.encrypt(7, mental.from_text(item["ct"])))
    return chore


def test_open_shows_a_card_to_everyone_with_a_proof() -> None:
    table, hands = _dealt(3, 2)
    mine = table.read(2)
    secretdeck.keep(table.state, DECK, 2, hands[2][:1])
    secretdeck.open_slots(table.state, DECK, 2, hands[2])
    assert secretdeck.card(table.state, DECK, hands[2][0]) is None  # not until the chore
    assert secretdeck.owing(table.state, DECK) == [2]
    chore = table.entry(2)
    assert chore is not None and [i["op"] for i in chore["items"]] == ["open", "open"]
    assert all("ct" not in item for item in chore["items"])
    for slot in hands[2]:
        assert secretdeck.card(table.state, DECK, slot) == mine[slot]
        assert secretdeck.status(table.state, DECK, slot) == "open"
        assert table.d["slots"][slot]["layers"] == {}
    assert secretdeck.opened(table.state, DECK) == {s: mine[s] for s in hands[2]}
    opened, violations = table.open_held()
    assert violations == [] and all(opened[s] == mine[s] for s in hands[2])
    assert table.audit() == []
    # Others' reads skip cards everybody has seen.
    assert set(table.read(0).values()).isdisjoint(mine.values())


def test_open_waits_for_the_other_layers() -> None:
    table = Table(3)
    slots = secretdeck.reserve_top(table.state, DECK, 1, 1)
    secretdeck.open_slots(table.state, DECK, 1, slots)
    assert secretdeck.owing(table.state, DECK) == [0, 2]  # the peels first
    table.entry(1)
    table.entry(0)
    table.entry(2)
    assert secretdeck.card(table.state, DECK, slots[0]) is None
    table.entry(1)
    assert secretdeck.card(table.state, DECK, slots[0]) in UIDS


def test_cheat_false_public_open_is_refused() -> None:
    table, hands = _dealt(2, 2)
    mine = table.read(0)
    secretdeck.open_slots(table.state, DECK, 0, hands[0][:1])
    lie = next(u for u in UIDS if u not in mine.values())

    def claim_other(chore: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
        chore["items"][0]["card"] = lie
        return chore

    refusal = rf"open of slot {hands[0][0]} fails its proof: .*does not show {lie}"
    with pytest.raises(IntegrityError, match=refusal):
        table.entry(0, claim_other)
    for bad in ("joker", 3, None):
        with pytest.raises(IntegrityError, match="not a card of the deck"):
            table.entry(0, lambda c, d, bad=bad: {**c, "items": [{**c["items"][0], "card": bad}]})
    # Its own other card, which it may well hold, is still not what this slot holds.
    with pytest.raises(IntegrityError, match="fails its proof"):
        table.entry(0, lambda c, d: {**c, "items": [{**c["items"][0], "card": mine[hands[0][1]]}]})
    table.entry(0)
    assert secretdeck.card(table.state, DECK, hands[0][0]) == mine[hands[0][0]]


def test_plain_mode_runs_the_same_calls_at_once() -> None:
    state: dict[str, Any] = {"secret": {DECK: secretdeck.plain_deck(UIDS[:9])}, "seats": ["a", "b", "c"]}
    hands = secretdeck.deal(state, DECK, {0: 3, 1: 3, 2: 3})
    assert hands == {0: ["s0", "s1", "s2"], 1: ["s3", "s4", "s5"], 2: ["s6", "s7", "s8"]}
    assert all(secretdeck.readable(state, DECK, s) for s in range(3))
    assert secretdeck.settled(state, DECK) and secretdeck.owing(state, DECK) == []
    secretdeck.keep(state, DECK, 0, ["s0"])
    assert secretdeck.pass_slots(state, DECK, 0, 1, ["s1", "s2"]) == ["s9", "s10"]  # fresh ids
    assert secretdeck.drawn(state, DECK, 1) == ["s3", "s4", "s5", "s9", "s10"]
    assert secretdeck.readable_plain(state["secret"][DECK], 1)["s9"] == UIDS[1]
    assert secretdeck.card(state, DECK, "s0") is None
    secretdeck.open_slots(state, DECK, 0, ["s0"])
    assert secretdeck.card(state, DECK, "s0") == UIDS[0]
    assert secretdeck.opened(state, DECK) == {"s0": UIDS[0]}
    assert secretdeck.open_all_plain(state["secret"][DECK]) == {"s0": UIDS[0]}
    with pytest.raises(IllegalMoveError):
        secretdeck.open_slots(state, DECK, 0, ["s9"])  # passed away: no longer seat 0's


def test_no_trail_the_returner_cannot_name_the_cards_a_later_drawer_keeps() -> None:
    """Issue 22 finding 2: ann returned six cards, bob drew exactly those, and the order of
    her public ``bottom`` move gave the new slot ids, so ann named each card bob kept.
    Now the others shuffle the batch: the new ids in order no longer follow her order
    (bob's keep names ids whose cards ann cannot tell)."""
    table = Table(3, uids=UIDS[:6])
    drawn = _draw(table, 0, 6)
    ann = table.read(0)
    fresh = secretdeck.return_bottom(table.state, DECK, 0, drawn)
    table.entry(1)
    table.entry(2)
    bob = _draw(table, 1, 6)
    assert bob == fresh
    got = table.read(1)
    guess = {new: ann[old] for old, new in zip(drawn, fresh, strict=True)}  # ann's reading
    assert sorted(got.values()) == sorted(guess.values())
    assert got != guess


# ---- a verifier needs no game rule: the deck's start and its fresh ids are in the chores ----
def test_the_first_pass_names_the_starting_cards_and_only_it() -> None:
    table = Table(3)
    first = table.log[0][2]
    assert first["cards"] == UIDS
    assert all("cards" not in chore for _, _, chore in table.log[1:])
    blank = mental_deck.blank(GAME_ID, DECK, UIDS, 2)
    for wrong in (None, UIDS[::-1], UIDS[:-1]):
        chore = dict(first)
        if wrong is None:
            chore.pop("cards")
        else:
            chore["cards"] = wrong
        with pytest.raises(IntegrityError, match="must name the .* cards the deck starts with"):
            mental_deck.apply_chore(mental_deck.copy_deck(blank), 0, chore, GAME_ID, 0)
    second = Table(2).log[1][2]
    with pytest.raises(IntegrityError, match="only the first pass does"):
        d, _ = mental_deck.create(GAME_ID, DECK, UIDS, 0, Table(2).seeds[0], 2)
        mental_deck.apply_chore(d, 1, {**second, "cards": UIDS}, GAME_ID, 1)


def test_the_first_item_on_fresh_slots_names_the_slots_they_replace() -> None:
    """A return's fresh ids: the first re-lock names the old ids in order (``from``); a
    later item names none; a wrong or missing ``from`` is refused."""
    table = Table(3)
    drawn = _draw(table, 0, 3)
    fresh = secretdeck.return_bottom(table.state, DECK, 0, drawn)
    assert [table.d["slots"][s]["was"] for s in fresh] == drawn

    def wrong_from(chore: dict[str, Any], _d: dict[str, Any]) -> dict[str, Any]:
        chore["items"][0]["from"] = drawn[::-1]
        return chore

    def no_from(chore: dict[str, Any], _d: dict[str, Any]) -> dict[str, Any]:
        del chore["items"][0]["from"]
        return chore

    for tamper in (wrong_from, no_from):
        with pytest.raises(IntegrityError, match="must name the slot ids its fresh slots replace"):
            Table.entry(copy.deepcopy(table), 1, tamper)
    chore = table.entry(1)
    assert chore is not None
    [item] = chore["items"]
    assert (item["op"], item["slots"], item["from"]) == ("shuffle", fresh, drawn)
    later = table.entry(2)
    assert later is not None and "from" not in later["items"][0]
    assert all("was" not in s for s in table.d["slots"].values())


def test_a_pass_names_the_slots_it_replaces_in_its_receivers_relock() -> None:
    table = Table(2)
    hands = secretdeck.deal(table.state, DECK, {0: 3, 1: 3})
    table.entry(0)
    table.entry(1)
    table.entry(0)
    assert secretdeck.readable(table.state, DECK, 0)
    fresh = secretdeck.pass_slots(table.state, DECK, 0, 1, hands[0][1:])
    chore = table.entry(1)
    assert chore is not None
    assert chore["items"][0]["slots"] == fresh
    assert chore["items"][0]["from"] == hands[0][1:]


def test_alone_at_the_table_the_first_item_on_a_renamed_slot_is_an_open_naming_it() -> None:
    """With one seat nobody re-locks a returned batch: a slot returned, drawn and returned
    again keeps the id a chore last named, and the open that first names it says so."""
    table = Table(1, uids=UIDS[:3])
    first = secretdeck.reserve_top(table.state, DECK, 0, 3)
    assert table.entry(0) is None
    again = secretdeck.return_bottom(table.state, DECK, 0, first[:1])
    assert secretdeck.reserve_top(table.state, DECK, 0, 1) == again
    twice = secretdeck.return_bottom(table.state, DECK, 0, again)
    assert table.d["slots"][twice[0]]["was"] == first[0]
    [slot] = secretdeck.reserve_top(table.state, DECK, 0, 1)
    secretdeck.keep(table.state, DECK, 0, [slot])
    secretdeck.open_slots(table.state, DECK, 0, [slot])
    chore = table.entry(0)
    assert chore is not None
    [item] = chore["items"]
    assert (item["op"], item["slot"], item["from"]) == ("open", slot, first[0])


def test_cheat_claim_of_a_card_shown_face_up_is_refused() -> None:
    """A claim is of a card the seat still holds: one it showed face up before (an open
    slot, its own) backs no claim, or it could be played again from the hand."""
    table = Table(2)
    slots = _draw(table, 0, 2)
    secretdeck.keep(table.state, DECK, 0, slots)
    secretdeck.open_slots(table.state, DECK, 0, slots[:1])
    table.entry(0)
    assert table.d["slots"][slots[0]]["status"] == "open"
    shown = table.d["slots"][slots[0]]["card"]
    opened, _ = table.open_held()
    held = opened[slots[1]]
    assert mental_open.check_claims(table.d, opened, {0: [held]}) == []
    violations = mental_open.check_claims(table.d, opened, {0: [held, shown]})
    assert violations == [f"seat 0 claimed to hold card {shown!r}, but no slot it holds "
                          "opens to it."]

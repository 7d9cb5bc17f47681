"""Timings of the mental deck (PROTOCOL.md section 6): run ``python bench/bench_mental.py``.

Prints the median milliseconds of each operation over a few runs, on edwards25519
through libsodium. Also times a batched proof for the peels of one chore (one proof for
every slot peeled with the same key, by a random linear combination), which the deck does
not use, to show what batching would save. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import statistics
import time
from collections.abc import Callable

from pbem.protocol.crypto import dleq, mental, mental_deck, mental_open, secretdeck

GAME_ID = "00112233445566778899aabbccddeeff"
DECK = "bonus"


def median_ms(run: Callable[[], object], repeat: int, per: int = 1) -> float:
    """Median wall time of ``run`` in ms, divided by the ``per`` operations it does."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000 / per)
    return statistics.median(times)


def _weights(ctx: bytes, xs: list[bytes], ys: list[bytes]) -> list[int]:
    seed = hashlib.sha512(b"batch" + ctx + b"".join(xs) + b"".join(ys)).digest()
    return [int.from_bytes(hashlib.sha512(seed + i.to_bytes(4, "big")).digest(), "little") % mental.L or 1
            for i in range(len(xs))]


def _combine(weights: list[int], points: list[bytes]) -> bytes:
    total = mental.mul(weights[0], points[0])
    for w, p in zip(weights[1:], points[1:], strict=True):
        total = mental.add(total, mental.mul(w, p))
    return total


def batch_prove(k: int, key: bytes, xs: list[bytes], ys: list[bytes], ctx: bytes) -> str:
    """One proof that every ``x_i = k * y_i`` and ``key = k * B`` (peels with one key)."""
    w = _weights(ctx, xs, ys)
    return dleq.prove(k, mental.BASE, key, _combine(w, ys), _combine(w, xs), ctx)


def batch_verify(proof: str, key: bytes, xs: list[bytes], ys: list[bytes], ctx: bytes) -> bool:
    w = _weights(ctx, xs, ys)
    return dleq.verify(proof, mental.BASE, key, _combine(w, ys), _combine(w, xs), ctx)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=21, help="runs per figure (median taken)")
    parser.add_argument("--cards", type=int, default=18, help="cards in the deck")
    parser.add_argument("--seats", type=int, default=4, help="seats at the table")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    uids = [f"card-{i:02d}" for i in range(args.cards)]
    seeds = {s: hashlib.sha256(b"bench seat %d" % s).digest() for s in range(args.seats)}
    x = mental.card_point(GAME_ID, DECK, uids[0])
    g = mental.deck_key(seeds[0], DECK)
    key = mental.public_point(g)
    batch = 200
    counter = iter(range(10**9))

    rows: list[tuple[str, float]] = []
    rows.append(("hash to the group, one card",
                 median_ms(lambda: mental.card_point_counter(GAME_ID, DECK, str(next(counter))),
                           args.repeat * 10)))
    rows.append(("encryption (k * X)",
                 median_ms(lambda: [mental.encrypt(g, x) for _ in range(batch)], args.repeat, batch)))
    rows.append(("key point (k * B)",
                 median_ms(lambda: [mental.public_point(g) for _ in range(batch)], args.repeat, batch)))
    text = mental.to_text(mental.encrypt(g, x))
    rows.append(("point read from a save (validated)",
                 median_ms(lambda: [mental.from_text(text) for _ in range(batch)], args.repeat, batch)))
    y = mental.decrypt(g, x)
    ctx = dleq.context(GAME_ID, DECK, 9, 0, "peel", "s1")
    rows.append(("proof, make",
                 median_ms(lambda: dleq.prove(g, mental.BASE, key, y, x, ctx), args.repeat * 5)))
    proof = dleq.prove(g, mental.BASE, key, y, x, ctx)
    rows.append(("proof, check",
                 median_ms(lambda: dleq.verify(proof, mental.BASE, key, y, x, ctx), args.repeat * 5)))
    rows.append(("deck key derivation (HKDF, 48 bytes)",
                 median_ms(lambda: mental.deck_key(seeds[1], DECK), args.repeat * 10)))

    def create() -> object:
        mental.card_point.cache_clear()  # time the hash to the group of every card too
        return mental_deck.create(GAME_ID, DECK, uids, 0, seeds[0], args.seats)

    d, _ = mental_deck.create(GAME_ID, DECK, uids, 0, seeds[0], args.seats)
    rows.append((f"create ({args.cards} points + host pass)", median_ms(create, args.repeat)))
    rows.append((f"shuffle pass of {args.cards} cards (compute)",
                 median_ms(lambda: mental_deck.shuffle_pass(d, DECK, 1, seeds[1]), args.repeat)))
    chore = mental_deck.shuffle_pass(d, DECK, 1, seeds[1])
    rows.append((f"shuffle pass of {args.cards} cards (replay check)",
                 median_ms(lambda: mental_deck.apply_chore(copy.deepcopy(d), 1, chore, GAME_ID, 1),
                           args.repeat)))
    for seat in range(1, args.seats):
        step = mental_deck.perform(d, DECK, seat, seeds[seat], GAME_ID, seat)
        assert step is not None
        mental_deck.apply_chore(d, seat, step, GAME_ID, seat)

    state = {"secret": {DECK: d}, "seats": [f"p{s}" for s in range(args.seats)]}
    secretdeck.reserve_top(state, DECK, 0, 6)
    peel = mental_deck.perform(d, DECK, 1, seeds[1], GAME_ID, 9)
    assert peel is not None
    rows.append(("peel chore, 6 slots (compute, with proofs)",
                 median_ms(lambda: mental_deck.perform(d, DECK, 1, seeds[1], GAME_ID, 9), args.repeat)))
    rows.append(("peel chore, 6 slots (replay, proofs checked)",
                 median_ms(lambda: mental_deck.apply_chore(copy.deepcopy(d), 1, peel, GAME_ID, 9),
                           args.repeat)))
    # The same six peels under one batched proof (not used by the deck; for comparison).
    g1 = mental.deck_key(seeds[1], DECK)
    k1 = mental.public_point(g1)
    xs = [bytes.fromhex(d["slots"][item["slot"]]["ct"]) for item in peel["items"]]
    ys = [bytes.fromhex(item["ct"]) for item in peel["items"]]
    rows.append(("  6 peels, one batched proof, make",
                 median_ms(lambda: batch_prove(g1, k1, xs, ys, ctx), args.repeat)))
    batched = batch_prove(g1, k1, xs, ys, ctx)
    assert batch_verify(batched, k1, xs, ys, ctx)
    rows.append(("  6 peels, one batched proof, check",
                 median_ms(lambda: batch_verify(batched, k1, xs, ys, ctx), args.repeat)))
    rows.append(("  6 peels, six proofs, check",
                 median_ms(lambda: [dleq.verify(item["proof"], mental.BASE, k1, yy, xx, ctx)
                                    for item, xx, yy in zip(peel["items"], xs, ys, strict=True)],
                           args.repeat)))
    mental_deck.apply_chore(d, 1, peel, GAME_ID, 9)
    for seat in range(2, args.seats):
        step = mental_deck.perform(d, DECK, seat, seeds[seat], GAME_ID, 9 + seat)
        assert step is not None
        mental_deck.apply_chore(d, seat, step, GAME_ID, 9 + seat)
    rows.append(("read 6 drawn cards (card points cached)",
                 median_ms(lambda: mental_open.read(d, GAME_ID, DECK, 0, seeds[0], uids), args.repeat)))
    rows.append(("open_held, whole deck",
                 median_ms(lambda: mental_open.open_held(d, GAME_ID, DECK, seeds, uids), args.repeat)))

    width = max(len(name) for name, _ in rows)
    print(f"mental deck, edwards25519 (libsodium), {args.cards} cards, {args.seats} seats; "
          f"median of {args.repeat} runs")
    for name, ms in rows:
        print(f"  {name:<{width}}  {ms:8.3f} ms")


if __name__ == "__main__":
    main()

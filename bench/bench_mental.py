"""Timings of the mental deck (PROTOCOL.md section 6): run ``python bench/bench_mental.py``.

Prints the median milliseconds of each operation over a few runs. Not a test: nothing
here asserts a time.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import statistics
import time
from collections.abc import Callable

from pbem.protocol import mental, mental_deck, secretdeck

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=21, help="runs per figure (median taken)")
    parser.add_argument("--cards", type=int, default=18, help="cards in the deck")
    parser.add_argument("--seats", type=int, default=4, help="seats at the table")
    args = parser.parse_args()
    uids = [f"card-{i:02d}" for i in range(args.cards)]
    seeds = {s: hashlib.sha256(b"bench seat %d" % s).digest() for s in range(args.seats)}
    x = mental.card_point(GAME_ID, DECK, uids[0])
    g = mental.deck_key(seeds[0], DECK)
    batch = 200
    counter = iter(range(10**9))

    rows: list[tuple[str, float]] = []
    rows.append(
        (
            "hash-to-curve, one card",
            median_ms(lambda: mental.card_point(GAME_ID, DECK, str(next(counter))), args.repeat * 10),
        )
    )
    rows.append(
        (
            "encryption, same key (cached)",
            median_ms(lambda: [mental.encrypt(g, x) for _ in range(batch)], args.repeat, batch),
        )
    )
    fresh = iter(range(1, 10**9))
    rows.append(
        (
            "encryption, fresh key each time",
            median_ms(
                lambda: [mental.encrypt(next(fresh) * 7919, x) for _ in range(batch)], args.repeat, batch
            ),
        )
    )
    rows.append(
        (
            "deck key derivation (HKDF, 48 bytes)",
            median_ms(lambda: mental.deck_key(seeds[1], DECK), args.repeat * 10),
        )
    )

    def create() -> object:
        mental.card_point.cache_clear()  # time the hash-to-curve of every card too
        return mental_deck.create(GAME_ID, DECK, uids, 0, seeds[0], args.seats)

    d, _ = mental_deck.create(GAME_ID, DECK, uids, 0, seeds[0], args.seats)
    rows.append(
        (
            f"create ({args.cards} points + host pass)",
            median_ms(create, args.repeat),
        )
    )
    rows.append(
        (
            f"shuffle pass of {args.cards} cards (compute)",
            median_ms(lambda: mental_deck.shuffle_pass(d, DECK, 1, seeds[1]), args.repeat),
        )
    )
    chore = mental_deck.shuffle_pass(d, DECK, 1, seeds[1])
    rows.append(
        (
            f"shuffle pass of {args.cards} cards (replay check)",
            median_ms(lambda: mental_deck.apply_chore(copy.deepcopy(d), 1, chore), args.repeat),
        )
    )
    for seat in range(1, args.seats):
        step = mental_deck.perform(d, DECK, seat, seeds[seat])
        assert step is not None
        mental_deck.apply_chore(d, seat, step)

    state = {"secret": {DECK: d}}
    secretdeck.reserve_top(state, DECK, 0, 6)
    peel = mental_deck.perform(d, DECK, 1, seeds[1])
    rows.append(
        (
            "peel chore, 6 slots (compute)",
            median_ms(lambda: mental_deck.perform(d, DECK, 1, seeds[1]), args.repeat),
        )
    )
    for seat in range(1, args.seats):
        step = mental_deck.perform(d, DECK, seat, seeds[seat])
        assert step is not None
        mental_deck.apply_chore(d, seat, step)
    rows.append(
        (
            "read 6 drawn cards (card points cached)",
            median_ms(lambda: mental_deck.read(d, GAME_ID, DECK, 0, seeds[0], uids), args.repeat),
        )
    )
    rows.append(
        (
            "open_held, whole deck",
            median_ms(lambda: mental_deck.open_held(d, GAME_ID, DECK, seeds, uids), args.repeat),
        )
    )
    assert peel is not None

    width = max(len(name) for name, _ in rows)
    print(f"mental deck, P-256, {args.cards} cards, {args.seats} seats; median of {args.repeat} runs")
    for name, ms in rows:
        print(f"  {name:<{width}}  {ms:8.3f} ms")


if __name__ == "__main__":
    main()

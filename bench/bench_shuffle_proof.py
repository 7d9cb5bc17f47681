"""Timings of the shuffle proof (pbem.protocol.crypto.shuffle_proof): ``python bench/bench_shuffle_proof.py``.

For a shuffle pass of 18 and of 68 cards (g = B, as a deck's pass): the proof's bytes per
card, the median milliseconds to make and to check it, and its floor, the time of the n
multiplications any check of n re-keyed cards must at least do (one per output card),
with the number of libsodium calls a check makes (variable-base multiplications, base-point
multiplications, additions). CPU time, medians. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from common import machine_speed

from pbem.protocol.crypto import mental
from pbem.protocol.crypto import shuffle_proof as sp

GAME_ID = "00112233445566778899aabbccddeeff"
SECRET = hashlib.sha256(b"bench shuffle proof").digest()


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """Median CPU time of ``run`` in ms over ``repeat`` runs, after one warm-up (process
    time: on a shared machine it moves less with the load than wall time does)."""
    run()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def calls_of(run: Callable[[], object]) -> dict[str, int]:
    """How many times ``run`` calls each libsodium group function through shuffle_proof."""
    counts: dict[str, int] = {}
    real = sp.sodium

    def counted(name: str) -> Callable[..., Any]:
        fn = getattr(real, name)

        def call(*args: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return fn(*args)
        return call

    names = [n for n in dir(real) if n.startswith(("crypto_core_ed25519", "crypto_scalarmult_ed25519"))]
    sp.sodium = SimpleNamespace(**{n: counted(n) for n in names})  # type: ignore[assignment]
    try:
        run()
    finally:
        sp.sodium = real
    return counts


def row(n: int, x: int, h: bytes, repeat: int) -> str:
    """The figures of one shuffle pass of ``n`` cards."""
    inputs = [mental.card_point(GAME_ID, "bench", f"card-{i}") for i in range(n)]
    perm = mental.permutation(SECRET, "bench", 0, n)
    ctx = sp.context(GAME_ID, "bench", 1, 0, "shuffle")
    outputs, proof = sp.prove(mental.BASE, h, x, inputs, perm, ctx, SECRET)
    assert sp.verify(mental.BASE, h, inputs, outputs, proof, ctx)
    size = len(proof) // 2
    prove_ms = median_ms(lambda: sp.prove(mental.BASE, h, x, inputs, perm, ctx, SECRET), repeat)
    check_ms = median_ms(lambda: sp.verify(mental.BASE, h, inputs, outputs, proof, ctx), repeat)
    floor_ms = median_ms(lambda: [mental.mul(x, p) for p in inputs], repeat)
    calls = calls_of(lambda: sp.verify(mental.BASE, h, inputs, outputs, proof, ctx))
    counted = (calls.get("crypto_scalarmult_ed25519_noclamp", 0),
               calls.get("crypto_scalarmult_ed25519_base_noclamp", 0),
               calls.get("crypto_core_ed25519_add", 0) + calls.get("crypto_core_ed25519_sub", 0))
    return (f"  {n:>5}  {size:>6}  {size / n:>6.1f}  {prove_ms:>8.2f}  {check_ms:>8.2f}  "
            f"{floor_ms:>8.2f}  {check_ms / floor_ms:>11.1f}  {counted[0]}, {counted[1]}, {counted[2]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=21, help="runs per figure (median taken)")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    x = mental.deck_key(SECRET, "bench")
    h = mental.public_point(x)
    print(f"shuffle proof (Terelius-Wikstrom, common exponent), g = B; median of {args.repeat} runs")
    print(f"  {'cards':>5}  {'bytes':>6}  {'B/card':>6}  {'prove ms':>8}  {'check ms':>8}  "
          f"{'floor ms':>8}  {'check/floor':>11}  check calls (mult, base mult, add)")
    for n in (18, 68):
        print(row(n, x, h, args.repeat))
    one = mental.card_point(GAME_ID, "bench", "card-0")
    mult = median_ms(lambda: [mental.mul(x, one) for _ in range(200)], args.repeat) / 200
    base = median_ms(lambda: [mental.mul(x, mental.BASE) for _ in range(200)], args.repeat) / 200
    add = median_ms(lambda: [mental.add(one, one) for _ in range(200)], args.repeat) / 200
    print(f"  one multiplication {mult:.3f} ms, by the base point {base:.3f} ms, one addition {add:.3f} ms")
    print(f"  {machine_speed()}")


if __name__ == "__main__":
    main()

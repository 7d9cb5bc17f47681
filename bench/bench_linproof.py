"""Timings of the handoff and adopt proofs (pbem.protocol.crypto.linproof).

``python bench/bench_linproof.py``: the median milliseconds to make and to check each,
against one Chaum-Pedersen proof (pbem.protocol.crypto.dleq: a peel's) as the floor, and
the number of group operations a check makes (multiplications of a variable point, of the
base point, additions). CPU time, medians. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable

from bench_shuffle_proof import median_ms
from common import machine_speed

from pbem.protocol.crypto import dleq, mental
from pbem.protocol.crypto import linproof as lp

GAME_ID = "00112233445566778899aabbccddeeff"


def calls_of(run: Callable[[], object]) -> tuple[int, int, int]:
    """The group operations ``run`` makes through mental: (multiplications of a variable
    point, of the base point, additions and subtractions)."""
    counts = [0, 0, 0]
    real_mul, real_add, real_sub = mental.mul, mental.add, mental.sub

    def mul(k: int, point: bytes) -> bytes:
        counts[point == mental.BASE] += 1
        return real_mul(k, point)

    def add(first: bytes, second: bytes) -> bytes:
        counts[2] += 1
        return real_add(first, second)

    def sub(first: bytes, second: bytes) -> bytes:
        counts[2] += 1
        return real_sub(first, second)

    mental.mul, mental.add, mental.sub = mul, add, sub
    try:
        run()
    finally:
        mental.mul, mental.add, mental.sub = real_mul, real_add, real_sub
    return counts[0], counts[1], counts[2]


def key(name: str) -> int:
    return mental.scalar(hashlib.sha512(b"bench linproof " + name.encode()).digest())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20, help="runs per figure (median taken)")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    k, y, e, z = key("k"), key("y"), key("e"), key("z")
    card = mental.card_point(GAME_ID, "bench", "card-0")
    slot, big_k, receiver = mental.mul(k, card), mental.public_point(k), mental.public_point(y)
    ctx = dleq.context(GAME_ID, "bench", 1, 0, "handoff", "s0")
    hand = lp.handoff_prove(k, slot, receiver, e, ctx)
    adoption = lp.adopt_prove(y, z, hand.r, hand.c, ctx)
    peeled = mental.decrypt(k, slot)
    peel = dleq.prove(k, mental.BASE, big_k, peeled, slot, ctx)
    checks: dict[str, Callable[[], object]] = {
        "dleq (floor)": lambda: dleq.verify(peel, mental.BASE, big_k, peeled, slot, ctx),
        "handoff": lambda: lp.handoff_verify(hand.proof, big_k, slot, receiver, hand.r, hand.c, ctx),
        "adopt": lambda: lp.adopt_verify(adoption.proof, receiver, hand.r, hand.c, adoption.key,
                                         adoption.shared, adoption.point, ctx),
    }
    proves: dict[str, Callable[[], object]] = {
        "dleq (floor)": lambda: dleq.prove(k, mental.BASE, big_k, peeled, slot, ctx),
        "handoff": lambda: lp.handoff_prove(k, slot, receiver, e, ctx),
        "adopt": lambda: lp.adopt_prove(y, z, hand.r, hand.c, ctx),
    }
    assert all(check() is True for check in checks.values())
    print(f"handoff and adopt proofs against one Chaum-Pedersen proof; median of {args.repeat} runs")
    print(f"  {'proof':<12}  {'prove ms':>8}  {'check ms':>8}  {'prove/floor':>11}  {'check/floor':>11}"
          "  check ops (mult, base mult, add)")
    floor = (median_ms(proves["dleq (floor)"], args.repeat), median_ms(checks["dleq (floor)"], args.repeat))
    for name in proves:
        made = floor[0] if name == "dleq (floor)" else median_ms(proves[name], args.repeat)
        checked = floor[1] if name == "dleq (floor)" else median_ms(checks[name], args.repeat)
        calls = calls_of(checks[name])
        print(f"  {name:<12}  {made:>8.3f}  {checked:>8.3f}  {made / floor[0]:>11.1f}  "
              f"{checked / floor[1]:>11.1f}  {calls[0]}, {calls[1]}, {calls[2]}")
    print(f"  {machine_speed()}")


if __name__ == "__main__":
    main()

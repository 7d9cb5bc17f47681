"""Timings of the handoff and adopt proofs (pbem.protocol.crypto.linproof).

``python bench/bench_linproof.py``: the median milliseconds to make and to check each,
against one Chaum-Pedersen proof (pbem.protocol.crypto.dleq: a peel's) as the floor, and
the number of libsodium calls a check makes (variable-base multiplications, base-point
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

from pbem.protocol.crypto import dleq, mental
from pbem.protocol.crypto import linproof as lp

GAME_ID = "00112233445566778899aabbccddeeff"


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """Median CPU time of ``run`` in ms over ``repeat`` runs, after one warm-up."""
    run()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def calls_of(run: Callable[[], object]) -> tuple[int, int, int]:
    """libsodium calls ``run`` makes through mental: (multiplications, by the base point, additions)."""
    counts: dict[str, int] = {}
    real = mental.sodium

    def counted(name: str) -> Callable[..., Any]:
        fn = getattr(real, name)

        def call(*args: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return fn(*args)
        return call

    names = [n for n in dir(real) if n.startswith(("crypto_core_ed25519", "crypto_scalarmult_ed25519"))]
    mental.sodium = SimpleNamespace(**{n: counted(n) for n in names})  # type: ignore[assignment]
    try:
        run()
    finally:
        mental.sodium = real
    return (counts.get("crypto_scalarmult_ed25519_noclamp", 0),
            counts.get("crypto_scalarmult_ed25519_base_noclamp", 0),
            counts.get("crypto_core_ed25519_add", 0) + counts.get("crypto_core_ed25519_sub", 0))


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
          "  check calls (mult, base mult, add)")
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

"""STAND-IN for the verifiable shuffle of a common exponent (replaced by the real module).

The real module (a zero-knowledge shuffle proof) is written separately with exactly this
API; this stand-in lets the mental deck be built against it. It is SOUND but NOT
zero-knowledge: the proof lists the permutation in the clear and one Chaum-Pedersen proof
per output (``log_g(h) = log_{in[perm[i]]}(out[i])``), so it must never ship.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.protocol import dleq, mental
from pbem.protocol.dleq import verify as _dleq_verify  # not dleq.verify: tests count those
from pbem.protocol.mental import field, u32


def context(game_id: str, deck: str, seq: int, seat: int, op: str) -> bytes:
    return (b"pbem/1/shuffle" + field(game_id.encode()) + field(deck.encode()) + u32(seq)
            + u32(seat) + field(op.encode()))


def prove(g: bytes, h: bytes, x: int, inputs: Sequence[bytes], perm: Sequence[int],
          ctx: bytes, secret: bytes) -> tuple[list[bytes], str]:
    outputs = [mental.mul(x, inputs[j]) for j in perm]
    parts = [bytes.fromhex(dleq.prove(x, g, h, inputs[j], out, ctx + u32(i)))
             for i, (j, out) in enumerate(zip(perm, outputs, strict=True))]
    return outputs, (b"".join(j.to_bytes(2, "big") for j in perm) + b"".join(parts)).hex()


def verify(g: bytes, h: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
           proof: object, ctx: bytes) -> bool:
    n = len(inputs)
    if not isinstance(proof, str) or len(proof) != 132 * n or len(outputs) != n:
        return False
    try:
        raw = bytes.fromhex(proof)
    except ValueError:
        return False
    perm = [int.from_bytes(raw[2 * i:2 * i + 2], "big") for i in range(n)]
    if sorted(perm) != list(range(n)):
        return False
    parts = [raw[2 * n + 64 * i:2 * n + 64 * (i + 1)].hex() for i in range(n)]
    return all(_dleq_verify(parts[i], g, h, inputs[j], outputs[i], ctx + u32(i))
               for i, j in enumerate(perm))

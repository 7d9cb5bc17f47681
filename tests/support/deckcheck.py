"""An independent checker of a save's secret decks, written from the docs alone.

It reads only the save (header and entries) and follows docs/PROTOCOL.md sections 2, 3 and
6, docs/protocol-deck.md ("Replaying a deck from the save alone") and
docs/protocol-shuffle-proof.md ("Verification"): hashes by hashlib and hmac, the group by
libsodium through pbem.protocol.crypto.sodium (the group library, nothing of pbem's deck code).
It checks every shuffle pass, peel, open, re-key, batch shuffle, handoff and adopt (the
one-step pass, protocol-deck.md and docs/protocol-linproof.md) of every deck, and once
the seeds are revealed, the audit: each published key point against its seat's seed, and
every slot opened to a distinct card of the deck (or, where the rules open each seat's
cards at its reveal and no seed opens a slot, the cards those opens named, each once).
It never guesses: a slot it does not know, a field it needs and does not find, is a
failure, raised as ``Refused``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import string
from typing import Any

from pbem.protocol.crypto import sodium

L = 2**252 + 27742317777372353535851937790883648493
B = bytes.fromhex("58" + "66" * 31)
IDENTITY = bytes.fromhex("01" + "00" * 31)


class Refused(Exception):
    """A deck step the docs' rules do not accept (or cannot decide)."""


# ---- encodings (PROTOCOL.md section 2) --------------------------------------------------
def u32(i: int) -> bytes:
    return i.to_bytes(4, "big")


def field(b: bytes | str) -> bytes:
    raw = b.encode() if isinstance(b, str) else b
    return u32(len(raw)) + raw


def le(k: int) -> bytes:
    return k.to_bytes(32, "little")


# ---- the group, by libsodium ----------------------------------------------------------------
def valid(p: bytes) -> bool:
    return len(p) == 32 and sodium.crypto_core_ed25519_is_valid_point(p)


_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"


def binary(text: Any, size: int) -> bytes | None:
    """PROTOCOL.md section 2, "Binary values": the ``size`` bytes of unpadded base64url
    text, or None for anything else (padding, another alphabet, whitespace, a wrong
    length, unused bits set in the last character)."""
    if not isinstance(text, str) or len(text) != -(-4 * size // 3):
        return None
    if any(c not in _ALPHABET for c in text):
        return None
    unused = {0: 0, 1: 4, 2: 2}[size % 3]  # bits of the last character that carry nothing
    if text and _ALPHABET.index(text[-1]) % (1 << unused):
        return None
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(text: Any) -> bytes:
    p = binary(text, 32)
    if p is None:
        raise Refused(f"not a point: {text!r}")
    if not valid(p):
        raise Refused(f"not a valid point: {text}")
    return p


def add(p: bytes | None, q: bytes | None) -> bytes | None:
    """Sum; None is the identity (libsodium refuses to make it by multiplication)."""
    if p is None:
        return q
    if q is None:
        return p
    out = sodium.crypto_core_ed25519_add(p, q)
    return None if out == IDENTITY else out


def mul(k: int, p: bytes) -> bytes | None:
    k %= L
    if k == 0:
        return None
    return sodium.crypto_scalarmult_ed25519_noclamp(le(k), p)


def lin(pairs: list[tuple[int, bytes]]) -> bytes:
    """sum k_i * P_i, encoded (the identity as 0100..00)."""
    total: bytes | None = None
    for k, p in pairs:
        total = add(total, mul(k, p))
    return IDENTITY if total is None else total


def hash_to_group(data: bytes) -> bytes:
    d = hashlib.sha512(data).digest()
    out = add(sodium.crypto_core_ed25519_from_uniform(d[:32]),
              sodium.crypto_core_ed25519_from_uniform(d[32:]))
    return IDENTITY if out is None else out


def card_point(game_id: str, deck: str, uid: str) -> bytes:
    """PROTOCOL.md section 6, "Card points"."""
    counter = 0
    while True:
        p = hash_to_group(b"pbem/1/card" + field(game_id) + field(deck) + field(uid)
                          + u32(counter))
        if valid(p):
            return p
        counter += 1


# ---- keys from a seed (PROTOCOL.md section 3) ---------------------------------------------
def hkdf(ikm: bytes, info: bytes, n: int) -> bytes:
    prk = hmac.new(b"\0" * 32, ikm, hashlib.sha256).digest()
    out, block, i = b"", b"", 1
    while len(out) < n:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:n]


def scalar(okm: bytes) -> int:
    return 1 + int.from_bytes(okm, "big") % (L - 1)


def deck_key(seed: bytes, deck: str) -> int:
    return scalar(hkdf(seed, b"deck" + field(deck), 48))


def slot_key(seed: bytes, deck: str, serial: int) -> int:
    return scalar(hkdf(seed, b"slot" + field(deck) + u32(serial), 48))


# ---- proofs ---------------------------------------------------------------------------------
def dleq_ok(proof: Any, g: bytes, a: bytes, h: bytes, y: bytes, ctx: bytes) -> bool:
    """PROTOCOL.md section 6, the Chaum-Pedersen proof of log_G(A) = log_H(Y)."""
    raw = binary(proof, 64)
    if raw is None:
        return False
    c, z = int.from_bytes(raw[:32], "little"), int.from_bytes(raw[32:], "little")
    if not (0 < c < L and 0 < z < L):
        return False
    t1 = lin([(z, g), (L - c, a)])
    t2 = lin([(z, h), (L - c, y)])
    digest = hashlib.sha512(b"pbem/1/dleq" + field(ctx) + g + a + h + y + t1 + t2).digest()
    return int.from_bytes(digest, "little") % L == c


def dleq_context(game_id: str, deck: str, seq: int, seat: int, op: str, slot: str) -> bytes:
    return field(game_id) + field(deck) + u32(seq) + u32(seat) + field(op) + field(slot)


def shuffle_context(game_id: str, deck: str, seq: int, seat: int, op: str) -> bytes:
    return field(game_id) + field(deck) + u32(seq) + u32(seat) + field(op)


_GENERATORS: list[bytes] = []


def generator(i: int) -> bytes:
    while len(_GENERATORS) <= i:
        j, counter = len(_GENERATORS), 0
        while not valid(p := hash_to_group(b"pbem/1/shuffle-generator" + u32(j) + u32(counter))):
            counter += 1
        _GENERATORS.append(p)
    return _GENERATORS[i]


def shuffle_ok(g: bytes, h: bytes, xs: list[bytes], ys: list[bytes], pieces: Any,
               ctx: bytes) -> bool:
    """docs/protocol-shuffle-proof.md, "Verification"; the proof travels in pieces
    (protocol-deck.md), joined here."""
    if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
        return False
    proof = "".join(pieces)
    n = len(xs)
    raw = binary(proof, 128 * n + 160)
    if len(ys) != n or raw is None:
        return False
    com = [raw[32 * k:32 * k + 32] for k in range(n)]
    chain = [raw[32 * k:32 * k + 32] for k in range(n, 2 * n)]
    sc = [int.from_bytes(raw[32 * k:32 * k + 32], "little") for k in range(2 * n, 4 * n + 5)]
    if not all(valid(p) for p in com + chain) or any(k >= L for k in sc):
        return False
    e, s1, s2, s3, s4 = sc[:5]
    s_hat, s_prime = sc[5:5 + n], sc[5 + n:]
    gens = [generator(i) for i in range(n + 1)]
    stmt = field(ctx) + u32(n) + g + h + b"".join(xs) + b"".join(ys)
    stream = hashlib.shake_256(b"pbem/1/shuffle-u" + stmt + b"".join(com)).digest(64 * n)
    u = [int.from_bytes(stream[64 * i:64 * i + 64], "little") % L for i in range(n)]
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % L
    t1 = lin([(e, c) for c in com] + [(L - e, gh) for gh in gens[1:]] + [(s1, B)])
    t2 = lin([(e, chain[-1]), (-e * u_prod, gens[0]), (s2, B)])
    t3 = lin([(e * uj, c) for uj, c in zip(u, com, strict=True)] + [(s3, B)]
             + list(zip(s_prime, gens[1:], strict=True)))
    t4 = lin([(s4 * uj, xj) for uj, xj in zip(u, xs, strict=True)]
             + [(L - si, yi) for si, yi in zip(s_prime, ys, strict=True)])
    t5 = lin([(e, h), (s4, g)])
    links = [gens[0]] + chain[:-1]
    t_hat = [lin([(e, chain[i]), (s_hat[i], B), (s_prime[i], links[i])]) for i in range(n)]
    data = (b"pbem/1/shuffle-c" + stmt + b"".join(com) + b"".join(chain)
            + t1 + t2 + t3 + t4 + t5 + b"".join(t_hat))
    return int.from_bytes(hashlib.shake_256(data).digest(64), "little") % L == e


Term = tuple[int, bytes]  # (scalar index, base point)


def linproof_ok(proof: Any, n: int, equations: list[tuple[list[Term], bytes]],
                ctx: bytes) -> bool:
    """docs/protocol-linproof.md, "Verification"."""
    raw = binary(proof, 32 * (n + 1))
    if raw is None:
        return False
    c, *answers = (int.from_bytes(raw[32 * k:32 * k + 32], "little") for k in range(n + 1))
    if not all(0 < k < L for k in [c, *answers]):
        return False
    if not all(valid(b) for terms, public in equations for _, b in terms + [(0, public)]):
        return False
    stmt = field(ctx) + u32(n) + u32(len(equations))
    for terms, public in equations:
        stmt += u32(len(terms)) + b"".join(u32(i) + b for i, b in terms) + public
    commitments = [lin([(answers[i], b) for i, b in terms] + [(L - c, public)])
                   for terms, public in equations]
    digest = hashlib.sha512(b"pbem/2/linproof" + stmt + b"".join(commitments)).digest()
    return int.from_bytes(digest, "little") % L == c


def negated(p: bytes) -> bytes:
    """protocol-linproof.md, the adopt: the encoding with the sign bit flipped."""
    return p[:31] + bytes([p[31] ^ 0x80])


# ---- the deck, followed chore by chore (protocol-deck.md) ---------------------------------------
class Deck:
    """Slot id -> ciphertext and the layers on it: seat -> (point, serial or None)."""

    def __init__(self, game_id: str, name: str, cards: list[str]) -> None:
        self.game_id, self.name, self.cards = game_id, name, list(cards)
        self.points = {card_point(game_id, name, uid): uid for uid in cards}
        self.ct = {f"s{i}": card_point(game_id, name, uid) for i, uid in enumerate(cards)}
        self.layers: dict[str, dict[int, tuple[bytes, int | None]]] = {s: {} for s in self.ct}
        self.deck_keys: dict[int, bytes] = {}
        self.slot_keys: list[tuple[int, int, bytes]] = []  # (seat, serial, point)
        self.opened: dict[str, str] = {}
        self.pairs: dict[str, tuple[int, bytes]] = {}  # a handed-off slot: (receiver, R)
        self.steps = 0

    def _slot(self, sid: Any) -> bytes:
        if sid not in self.ct:
            raise Refused(f"deck {self.name}: slot {sid!r} is unknown here")
        return self.ct[sid]

    def shuffle_pass(self, seq: int, seat: int, chore: dict[str, Any]) -> None:
        ids = [f"s{i}" for i in range(len(self.cards))]
        key = point(chore["key"])
        ys = [point(c) for c in chore["cts"]]
        xs = [self._slot(s) for s in ids]
        ctx = shuffle_context(self.game_id, self.name, seq, seat, "shuffle")
        if not shuffle_ok(B, key, xs, ys, chore["proof"], ctx):
            raise Refused(f"entry {seq}: the shuffle pass of seat {seat} fails its proof")
        for sid, y in zip(ids, ys, strict=True):
            self.ct[sid] = y
            self.layers[sid][seat] = (key, None)
        self.deck_keys[seat] = key
        self.steps += 1

    def _rename(self, item: dict[str, Any]) -> None:
        if "from" not in item:
            return
        olds = item["from"] if isinstance(item["from"], list) else [item["from"]]
        news = item["slots"] if "slots" in item else [item["slot"]]
        if len(olds) != len(news):
            raise Refused(f"deck {self.name}: 'from' and the slots differ in length")
        for old, new in zip(olds, news, strict=True):
            self._slot(old)
            if new in self.ct:
                raise Refused(f"deck {self.name}: fresh slot {new} is not fresh")
            self.ct[new] = self.ct.pop(old)
            self.layers[new] = self.layers.pop(old)

    def work(self, seq: int, seat: int, item: dict[str, Any]) -> None:
        self._rename(item)
        op = item["op"]
        if op in ("peel", "open"):
            sid = item["slot"]
            x = self._slot(sid)
            if seat not in self.layers[sid]:
                raise Refused(f"entry {seq}: seat {seat} has no layer on {sid}")
            y = (card_point(self.game_id, self.name, item["card"]) if op == "open"
                 else point(item["ct"]))
            if op == "open" and (item["card"] not in self.cards or set(self.layers[sid]) != {seat}):
                raise Refused(f"entry {seq}: an open of {sid} that cannot be")
            ctx = dleq_context(self.game_id, self.name, seq, seat, op, sid)
            if not dleq_ok(item["proof"], B, self.layers[sid][seat][0], y, x, ctx):
                raise Refused(f"entry {seq}: seat {seat}'s {op} of {sid} fails its proof")
            self.ct[sid] = y
            del self.layers[sid][seat]
            if op == "open":
                self.opened[sid] = item["card"]
        elif op in ("rekey", "shuffle"):
            slots = item["slots"]
            xs = [self._slot(s) for s in slots]
            key = point(item["key"])
            ys = [point(c) for c in item["cts"]]
            if op == "rekey":
                for sid, x, y, proof in zip(slots, xs, ys, item["proofs"], strict=True):
                    ctx = dleq_context(self.game_id, self.name, seq, seat, "rekey", sid)
                    if not dleq_ok(proof, self.layers[sid][seat][0], key, x, y, ctx):
                        raise Refused(f"entry {seq}: seat {seat}'s rekey of {sid} fails")
            else:
                records = {tuple(sorted(self.layers[s].items())) for s in slots}
                if len(records) != 1:
                    raise Refused(f"entry {seq}: a batch whose layers differ")
                mine = self.layers[slots[0]].get(seat)
                g = B if mine is None else mine[0]
                op_name = f"relock:{item['serial']}:{','.join(slots)}"
                ctx = shuffle_context(self.game_id, self.name, seq, seat, op_name)
                if not shuffle_ok(g, key, xs, ys, item["proof"], ctx):
                    raise Refused(f"entry {seq}: seat {seat}'s batch shuffle fails its proof")
            for sid, y in zip(slots, ys, strict=True):
                self.ct[sid] = y
                self.layers[sid][seat] = (key, item["serial"])
            self.slot_keys.append((seat, item["serial"], key))
        elif op == "handoff":
            self._handoff(seq, seat, item)
        elif op == "adopt":
            self._adopt(seq, seat, item)
        else:
            raise Refused(f"entry {seq}: an item {op!r} the docs do not name")
        self.steps += 1

    def _handoff(self, seq: int, seat: int, item: dict[str, Any]) -> None:
        """protocol-deck.md, "The one-step pass": the giver's only layer off, each card
        encrypted to the receiver's deck key point."""
        to = item["to"]
        receiver = self.deck_keys[to]
        rs, cs = [point(r) for r in item["rs"]], [point(c) for c in item["cs"]]
        if len(set(rs)) != len(rs) or set(rs) & {r for _, r in self.pairs.values()}:
            raise Refused(f"entry {seq}: a handoff re-uses a random point")
        for i, sid in enumerate(item["slots"]):
            x = self._slot(sid)
            if set(self.layers[sid]) != {seat} or sid in self.pairs:
                raise Refused(f"entry {seq}: a handoff of {sid}, which carries other layers")
            key = self.layers[sid][seat][0]
            ctx = dleq_context(self.game_id, self.name, seq, seat, "handoff", sid)
            equations = [([(0, key)], B), ([(1, B)], rs[i]), ([(0, x), (1, receiver)], cs[i])]
            if not linproof_ok(item["proofs"][i], 2, equations, ctx):
                raise Refused(f"entry {seq}: seat {seat}'s handoff of {sid} fails its proof")
            self.ct[sid] = cs[i]
            self.layers[sid] = {to: (receiver, None)}
            self.pairs[sid] = (to, rs[i])

    def _adopt(self, seq: int, seat: int, item: dict[str, Any]) -> None:
        """protocol-deck.md, "The one-step pass": each pair under the key of ``serial``,
        then the batch re-locked to that of ``serial + 1`` in a secret order."""
        slots, serial = item["slots"], item["serial"]
        key, shared, relock = (point(item[f]) for f in ("key", "shared", "relock"))
        mids, ys = [point(m) for m in item["mids"]], [point(c) for c in item["cts"]]
        receiver = self.deck_keys[seat]
        for i, sid in enumerate(slots):
            if self.pairs.get(sid, (None, b""))[0] != seat:
                raise Refused(f"entry {seq}: an adopt of {sid}, which is no pair to seat {seat}")
            ctx = dleq_context(self.game_id, self.name, seq, seat, "adopt", sid)
            r = self.pairs[sid][1]
            equations = [([(0, B)], key), ([(0, receiver)], shared), ([(1, B)], shared),
                         ([(0, self._slot(sid)), (1, negated(r))], mids[i])]
            if not linproof_ok(item["proofs"][i], 2, equations, ctx):
                raise Refused(f"entry {seq}: seat {seat}'s adopt of {sid} fails its proof")
        ctx = shuffle_context(self.game_id, self.name, seq, seat,
                              f"relock:{serial + 1}:{','.join(slots)}")
        if not shuffle_ok(key, relock, mids, ys, item["proof"], ctx):
            raise Refused(f"entry {seq}: seat {seat}'s adopt fails its shuffle proof")
        for sid, y in zip(slots, ys, strict=True):
            del self.pairs[sid]
            self.ct[sid] = y
            self.layers[sid] = {seat: (relock, serial + 1)}
        self.slot_keys += [(seat, serial, key), (seat, serial + 1, relock)]

    def shown(self) -> dict[str, str]:
        """The audit where no seed opens a slot (PROTOCOL.md section 7): the cards the
        opens named, every one checked with its proof as it came, each once."""
        if len(set(self.opened.values())) != len(self.opened):
            raise Refused("two opens name the same card")
        return dict(self.opened)

    def audit(self, seeds: dict[int, bytes]) -> dict[str, str]:
        """Key points against the seeds, then every slot opened: slot -> card."""
        base = lambda k: sodium.crypto_scalarmult_ed25519_base_noclamp(le(k))  # noqa: E731
        for seat, key in self.deck_keys.items():
            if base(deck_key(seeds[seat], self.name)) != key:
                raise Refused(f"seat {seat}'s deck key point is not its seed's")
        for seat, serial, key in self.slot_keys:
            if base(slot_key(seeds[seat], self.name, serial)) != key:
                raise Refused(f"seat {seat}'s slot key {serial} is not its seed's")
        out: dict[str, str] = {}
        for sid, ct in self.ct.items():
            if sid in self.pairs:  # handed off, never adopted: the receiver's deck key opens it
                to, r = self.pairs[sid]
                plain = add(ct, mul(L - deck_key(seeds[to], self.name), r))
                if plain not in self.points:
                    raise Refused(f"slot {sid} opens to no card")
                out[sid] = self.points[plain]
                continue
            k = 1
            for seat, (_, serial) in self.layers[sid].items():
                layer = (deck_key(seeds[seat], self.name) if serial is None
                         else slot_key(seeds[seat], self.name, serial))
                k = k * layer % L
            plain = ct if k == 1 else mul(pow(k, -1, L), ct)
            if plain not in self.points:
                raise Refused(f"slot {sid} opens to no card")
            out[sid] = self.points[plain]
        if sorted(out.values()) != sorted(self.cards) or any(
                out[s] != c for s, c in self.opened.items()):
            raise Refused("the slots do not open to the deck's cards, each once")
        return out


def check_save(header: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Deck]:
    """Every deck step of the save, then the audit if every seat revealed."""
    game_id = header["id"]
    handles = [s["handle"] for s in header["seats"]]
    decks: dict[str, Deck] = {}
    seeds: dict[int, bytes] = {}
    for entry in entries:
        seq, seat = entry["seq"], handles.index(entry["seat"])
        if entry["kind"] == "reveal":
            seeds[seat] = bytes.fromhex(entry["seed"])
        for chore in entry["chores"]:
            name = chore["deck"]
            if chore["op"] == "shuffle":
                if "cards" in chore:
                    if name in decks:
                        raise Refused(f"entry {seq}: deck {name} starts twice")
                    decks[name] = Deck(game_id, name, chore["cards"])
                elif name not in decks:
                    raise Refused(f"entry {seq}: deck {name} has no starting cards")
                decks[name].shuffle_pass(seq, seat, chore)
                # the last pass of a deck dealt then: its seat's peels, after the pass
                for item in chore.get("items", []):
                    if item["op"] != "peel":
                        raise Refused(f"entry {seq}: a pass carries a {item['op']!r}")
                    decks[name].work(seq, seat, item)
            else:
                if name not in decks:
                    raise Refused(f"entry {seq}: deck {name} is unknown")
                for item in chore["items"]:
                    decks[name].work(seq, seat, item)
    if len(seeds) == len(handles):
        for deck in decks.values():
            if _opens_at_reveal(header):
                deck.shown()
            else:
                deck.audit(seeds)
    return decks


def _opens_at_reveal(header: dict[str, Any]) -> bool:
    """PROTOCOL.md section 3, "Deck seed": in Road Master from rules version 5 the deck's
    secrets come from a deck seed no entry publishes, so no seed opens a slot; each reveal
    opened its seat's held cards, with proofs (section 6, "Opened at the reveal")."""
    return header.get("game") == "road-master" and int(header.get("rules_version", 0)) >= 5

"""Known-answer vectors: canonical bytes, hashes, the beacon chain and the sampler.

Another implementation that reproduces these interoperates with pbem's saves. Each
vector is also checked against an independent computation where one exists."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.game import Fixed
from pbem.protocol.crypto import beacon, derive
from pbem.protocol.crypto.sampler import Sampler
from pbem.protocol.saveformat.canonical import (
    NotCanonicalError,
    _find_unsignable,
    _signable,
    canonical,
    check_signable,
    digest,
)

SEED = bytes.fromhex("11" * 32)


def test_canonical_json_sorts_keys_and_keeps_utf8() -> None:
    value = {"b": [1, True, "é"], "a": {"z": 1, "y": "x"}}
    assert canonical(value) == b'{"a":{"y":"x","z":1},"b":[1,true,"\xc3\xa9"]}'
    assert digest({"a": 1}) == hashlib.sha256(b'{"a":1}').hexdigest()


@pytest.mark.parametrize("bad", [1.5, None, (1, 2), {1: "x"}, {"a": [float("nan")]}])
def test_unsignable_values_are_refused(bad: object) -> None:
    with pytest.raises(NotCanonicalError):
        check_signable({"v": bad})


class _Text(str):
    pass


class _Number(int):
    pass


class _Items(list):  # type: ignore[type-arg]
    pass


# Subclasses of the JSON types too: a state's Fixed tables reach check_signable in views.
_leaves = st.one_of(st.text(max_size=4), st.integers(), st.booleans(), st.none(),
                    st.floats(allow_nan=False), st.text(max_size=4).map(_Text),
                    st.integers().map(_Number))
_keys = st.one_of(st.text(max_size=3), st.integers(), st.text(max_size=3).map(_Text))
_values = st.recursive(_leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(_Items),
    st.dictionaries(_keys, inner, max_size=3),
    st.dictionaries(_keys, inner, max_size=3).map(Fixed)), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_values, st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=100),
       st.integers(min_value=0, max_value=4))
def test_the_quick_check_and_the_one_that_names_the_path_agree(
        value: object, max_depth: int, max_int: int, max_string: int) -> None:
    """check_signable answers from a quick walk and names the offence from a second one;
    both must judge every value alike, bounds included (small bounds, so they are met)."""
    quick = _signable(value, max_int, max_depth, max_string)
    try:
        check_signable(value, max_int=max_int, max_depth=max_depth, max_string=max_string)
        named = True
    except NotCanonicalError:
        named = False
    try:
        _find_unsignable(value, "", max_int=max_int, max_depth=max_depth,
                         max_string=max_string)
        slow = True
    except NotCanonicalError:
        slow = False
    assert quick == slow == named


def test_hkdf_matches_rfc5869_shape() -> None:
    prk = hmac.new(b"\x00" * 32, SEED, hashlib.sha256).digest()
    t1 = hmac.new(prk, b"beacon" + b"\x01", hashlib.sha256).digest()
    assert derive.derive(SEED, b"beacon", 32) == t1


def test_beacon_chain_vectors() -> None:
    assert beacon.link(SEED, 0).hex() == (
        "1f2147c5fa3d30e011c5ae36a2410f742ef223aadea5674e4f50b0c5ca8a2ae9")
    anchor = beacon.published(SEED, 0)
    assert anchor.hex() == "e271d2e214aa46059545be7341b42708a6b8dbae7227f041d1f042be6fc798ce"
    first = beacon.published(SEED, 1)
    assert first.hex() == "3f6f21b5506c1b48a40149b68a6bef2f7341a31ea5c3d91441984f52f87de439"
    assert hashlib.sha256(first).digest() == anchor
    assert beacon.follows(first, anchor) and not beacon.follows(anchor, first)
    assert not beacon.follows(beacon.published(SEED, 2), anchor)  # no skips (pbem/2)


def test_the_audits_walk_to_the_anchor_gives_the_published_anchor() -> None:
    """The audit walks each revealed seed to its anchor without keeping the links; the
    anchor is the same as the kept chain's, walked or not walked before."""
    beacon.forget_chains()
    walked = beacon.anchor(SEED)
    assert walked.hex() == "e271d2e214aa46059545be7341b42708a6b8dbae7227f041d1f042be6fc798ce"
    assert SEED not in beacon._CHAINS
    assert beacon.anchor(bytes(32)) != walked
    assert beacon.published(SEED, 0) == walked and SEED in beacon._CHAINS
    assert beacon.anchor(SEED) == walked


def test_the_kept_chains_are_bounded_and_drop_the_oldest_first() -> None:
    beacon.forget_chains()
    seeds = [bytes([i]) * 32 for i in range(beacon._CHAINS_KEPT + 2)]
    for seed in seeds:
        beacon.link(seed, 0)
    assert list(beacon._CHAINS) == seeds[2:]
    assert beacon.link(seeds[0], 1) == hashlib.sha256(beacon.link(seeds[0], 0)).digest()


def test_the_chain_hash_is_sha256() -> None:
    """The walk hashes with Python's own SHA-256 (faster on 32 bytes); the digests are
    SHA-256's."""
    value = SEED
    for _ in range(64):
        assert beacon._link_sha256(value).digest() == hashlib.sha256(value).digest()
        value = beacon._link_sha256(value).digest()


def test_randomness_vector() -> None:
    r = beacon.randomness("00" * 16, 5, b"\x01" * 32, b"\x02" * 32)
    expected = hashlib.sha256(b"pbem/1/rand" + b"0" * 32 + (5).to_bytes(8, "big")
                              + b"\x01" * 32 + b"\x02" * 32).digest()
    assert r == expected
    assert r.hex() == "0d8ff6d8d7493d4cc0f4d6742417a8d5215f1cf5f890d156bdf006707778be30"


def test_bot_chance_is_keyed_by_the_entry_of_the_newest_link() -> None:
    """PROTOCOL.md section 5: a bot turn's chance, written out with hashlib. ``seq`` is the
    entry that published the newest link before the bot's entry (an entry out of the
    order of play moves neither it nor the link)."""
    ours = beacon.bot_sampler("00" * 16, 5, 1, b"\x01" * 32, b"\x02" * 32)
    theirs = Sampler(hashlib.sha256(b"pbem/1/bot-rand" + b"0" * 32 + (5).to_bytes(8, "big")
                                    + (1).to_bytes(4, "big") + b"\x01" * 32
                                    + b"\x02" * 32).digest())
    assert [ours.randbelow(1000) for _ in range(8)] == [theirs.randbelow(1000) for _ in range(8)]


def test_seed_commitment_vector() -> None:
    assert derive.seed_commitment(SEED) == hashlib.sha256(b"pbem/1/seed-commit" + SEED).hexdigest()


def test_sampler_stream_is_shake256() -> None:
    s = Sampler(b"abc")
    assert s.read(10) + s.read(500) == hashlib.shake_256(b"abc").digest(510)


def test_sampler_vectors() -> None:
    s = Sampler(bytes(range(32)))
    assert [s.randbelow(6) for _ in range(10)] == [1, 0, 4, 0, 0, 0, 2, 5, 3, 1]
    assert [s.randbelow(1000) for _ in range(5)] == [392, 61, 956, 152, 995]
    items = list(range(10))
    Sampler(b"pbem").shuffle(items)
    assert items == [5, 1, 7, 9, 4, 8, 6, 0, 2, 3]


def test_randbelow_rejects_instead_of_modulo() -> None:
    """With n = 6, three bits are read; values 6 and 7 must be rejected, not folded."""
    seed = next(bytes([i]) for i in range(256)
                if hashlib.shake_256(bytes([i])).digest(1)[0] & 7 >= 6)
    first_ok = next(b & 7 for b in hashlib.shake_256(seed).digest(64) if b & 7 < 6)
    assert Sampler(seed).randbelow(6) == first_ok


def test_randbelow_is_uniform_enough() -> None:
    s = Sampler(b"uniform")
    counts = [0] * 6
    for _ in range(6000):
        counts[s.randbelow(6)] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_randbelow_of_one_reads_nothing() -> None:
    s = Sampler(b"x")
    assert s.randbelow(1) == 0
    assert s.read(4) == hashlib.shake_256(b"x").digest(4)


def test_a_recent_store_keeps_the_newest_and_drops_the_oldest_first() -> None:
    from pbem import recent

    store: dict[str, int] = {}
    for n in range(5):
        recent.keep(store, f"k{n}", n, 3)
    assert store == {"k2": 2, "k3": 3, "k4": 4} and list(store) == ["k2", "k3", "k4"]
    # A key kept again is the newest, and nothing else is dropped for it.
    recent.keep(store, "k3", 30, 3)
    assert list(store.items()) == [("k2", 2), ("k4", 4), ("k3", 30)]

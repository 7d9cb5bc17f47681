"""Format pbem/2 carries the secret deck's points and proofs as unpadded base64url
(PROTOCOL.md section 2, "Binary values"), one text per byte string: padding, the other
alphabet, whitespace, an impossible length and loose bits in the last character are all
refused, by pbem and by the independent checker written from the docs. A cheater who
writes an honest value in a second text (which lenient decoders read as the same bytes)
could slip past checks that compare texts (a re-used key, a duplicated ciphertext)."""

from __future__ import annotations

import base64
import copy

import pytest

from pbem.errors import IntegrityError
from pbem.protocol.crypto import b64, dleq, mental, mental_deck, secretdeck
from tests.support import deckcheck
from tests.test_mental_deck import DECK, GAME_ID, Table

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def loose_tail(text: str) -> str:
    """The same bytes (for a lenient decoder) with an unused bit of the last character set."""
    return text[:-1] + ALPHABET[ALPHABET.index(text[-1]) | 1]


def other_texts(text: str) -> list[str]:
    """Texts of ``text``'s bytes (or near them) that are not the one canonical text."""
    padded = text + "=" * (-len(text) % 4)
    return [padded if padded != text else text + "==", loose_tail(text),
            base64.b64encode(base64.urlsafe_b64decode(padded)).decode(),  # with + / and =
            " " + text, text + "\n", text[:10] + " " + text[10:], text + "A", text[:-1]]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 31, 32, 33, 64, 544])
def test_encode_decode_round_trip_and_lengths(size: int) -> None:
    data = bytes(range(256)) * 3
    data = data[:size]
    text = b64.encode(data)
    assert len(text) == b64.length(size) and "=" not in text
    assert b64.decode(text, size) == data
    assert text == base64.urlsafe_b64encode(data).decode().rstrip("=")


def test_decode_refuses_every_other_text() -> None:
    point = mental.card_point(GAME_ID, DECK, "bonus-card-01")
    text = mental.to_text(point)
    assert len(text) == 43
    for bad in [*other_texts(text), text.replace(text[0], "+", 1), point.hex(), 7, None, "A" * 41]:
        with pytest.raises(ValueError):
            b64.decode(bad, 32)
        with pytest.raises(ValueError):
            mental.from_text(bad)
        assert deckcheck.binary(bad, 32) is None, bad  # the independent reading agrees
    assert deckcheck.binary(text, 32) == point == b64.decode(text, 32)
    with pytest.raises(ValueError, match="unused bits"):
        b64.decode(loose_tail(text))
    with pytest.raises(ValueError, match="of 32 bytes"):
        b64.decode(text + "AAAA", 32)


def test_a_dleq_proof_in_another_text_is_refused() -> None:
    g = mental.deck_key(b"s" * 32, DECK)
    x = mental.card_point(GAME_ID, DECK, "bonus-card-01")
    ctx = dleq.context(GAME_ID, DECK, 3, 1, "peel", "s1")
    args = (mental.BASE, mental.public_point(g), x, mental.encrypt(g, x), ctx)
    proof = dleq.prove(g, *args)
    assert len(proof) == 86 and dleq.verify(proof, *args)
    for bad in other_texts(proof):
        assert not dleq.verify(bad, *args), bad


def test_a_peel_whose_ciphertext_is_written_another_way_is_refused() -> None:
    """The honest peel's ciphertext, its bytes unchanged, in a second text: refused as not
    canonical, not accepted as the same point."""
    table = Table(2)
    secretdeck.reserve_top(table.state, DECK, 0, 2)
    good = mental_deck.perform(table.d, DECK, 1, table.seeds[1], GAME_ID, table.seq + 1)
    assert good is not None
    mental_deck.apply_chore(copy.deepcopy(table.d), 1, good, GAME_ID, table.seq + 1)
    for field_name in ("ct", "proof"):
        bad = copy.deepcopy(good)
        bad["items"][0][field_name] = loose_tail(good["items"][0][field_name])
        with pytest.raises(IntegrityError):
            mental_deck.apply_chore(copy.deepcopy(table.d), 1, bad, GAME_ID, table.seq + 1)

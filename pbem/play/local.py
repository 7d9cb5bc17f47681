"""A game played on one machine with no signatures: for rules tests, bots and benches.

Chance is resolved from a fixed seed (``Sampler(seed || seq)``), at the moment the
engine would: before the next turn of a different seat, or at once in a solo game.
Secret decks run in plain mode (slots hold card uids; see pbem.protocol.crypto.secretdeck).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pbem.game import Game, Outcome, State, check_options, copy_state
from pbem.hashing import sha256
from pbem.protocol.crypto import secretdeck
from pbem.protocol.crypto.sampler import Sampler
from pbem.protocol.state.turns import play_turn, resolve_pending, stamp_pending


class LocalTable:
    def __init__(
        self,
        game: Game,
        seats: Sequence[str],
        options: dict[str, Any] | None = None,
        *,
        seed: bytes = b"local",
        components: dict[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.seed = seed
        opts = {name: spec.default for name, spec in game.info.options.items()}
        opts.update(options or {})
        self.options = opts
        comps = components if components is not None else game.stock_components()
        game.validate_components(comps)
        check_options(game, opts, len(seats), comps)
        self.seq = 0  # seq of the entry being played (0 = set-up, then one per turn)
        self.signers: dict[int, int] = {0: 0}
        state = game.setup(list(seats), opts, comps)
        state["seats"] = list(seats)
        decks = game.secret_decks(comps, opts, len(seats))
        if decks:
            shuffler = Sampler(sha256(seed + b"/secret-decks"))
            state["secret"] = {}
            for name, uids in decks.items():
                order = list(uids)
                shuffler.shuffle(order)
                state["secret"][name] = secretdeck.plain_deck(order)
        stamp_pending(state, 0)
        self.state: State = state
        self.solo = len(seats) == 1
        self.history: list[tuple[int, list[str]]] = []
        self.revealed = False  # on_reveal has run
        # The start entry resolves set-up chance (by the host, after the joins).
        self._resolve_for(0 if self.solo else -1)

    def _rng(self, seq: int) -> Sampler:
        return Sampler(sha256(self.seed + seq.to_bytes(8, "big")))

    def _resolve_for(self, seat: int) -> None:
        resolve_pending(
            self.game,
            self.state,
            self._rng,
            signer=None if self.solo or seat < 0 else seat,
            signer_of=lambda seq: self.signers.get(seq, -1),
        )
        stamp_pending(self.state, self.seq)

    # ---- what the engine's `show`/`moves`/`play` do ------------------------------
    def to_act(self) -> int | None:
        return self.game.to_act(self.state)

    def prepare(self) -> None:
        """Resolve what the seat about to act may resolve (its beacon would)."""
        seat = self.to_act()
        if seat is not None:
            self._resolve_for(seat)

    def legal_moves(self) -> list[str]:
        self.prepare()
        seat = self.to_act()
        return [] if seat is None else self.game.legal_moves(self.state, seat)

    def play(self, moves: Iterable[str]) -> list[str]:
        """Play one whole turn for whoever is to act; return the canonical moves."""
        self.prepare()
        seat = self.to_act()
        if seat is None:
            from pbem.errors import TurnError

            raise TurnError("The game is over.")
        self.seq += 1
        self.signers[self.seq] = seat
        state, canonical = play_turn(self.game, self.state, seat, list(moves))
        stamp_pending(state, self.seq)
        self.state = state
        self.history.append((seat, canonical))
        if self.solo:
            self._resolve_for(seat)
        return canonical

    def finish(self) -> Outcome | None:
        """After the game is over: resolve the last pending chance, open secret decks."""
        self.prepare()  # chance still pending may be what ends the game
        if self.to_act() is not None:
            return None
        last = self.history[-1][0] if self.history else 0
        n = len(self.state["seats"])
        self._resolve_for((last + 1) % n if n > 1 else last)
        if "secret" in self.state and not self.revealed:
            opened = {name: secretdeck.open_all_plain(deck) for name, deck in self.state["secret"].items()}
            self.game.on_reveal(self.state, opened)
            self.revealed = True  # the table's, not a key of the game's state
        return self.game.outcome(self.state)

    def view(self, seat: int | None) -> dict[str, Any]:
        secrets = None
        if seat is not None and "secret" in self.state:
            secrets = {
                name: secretdeck.readable_plain(deck, seat) for name, deck in self.state["secret"].items()
            }
        return self.game.view(copy_state(self.state), seat, secrets)

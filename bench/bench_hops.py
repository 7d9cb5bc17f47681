"""Hops per game, save sizes and the largest turn mail: for every title at 2 players and
at its largest count, one whole game by greedy bots (fixed identities and entropy, the
same game on every run).

    python bench/bench_hops.py [--quick]

A hop is an entry signed by another seat than the entry before it: a mail from one player
to the next, in a game by mail a day. A hop waits for a decision when its signer had more
than one legal choice at the start of it (a turn with two or more options, ending the
turn counted as one); the others need no decision: forced turns (one option), joins, the
start, reveals, entries that only do deck work. A round (entries signed in parallel on
one predecessor, PROTOCOL.md section 4: the joins of a game of three or more without a
mental deck, the final reveals where they are independent) is one
hop; the set-up and end hops are printed with and without rounds.
The sizes: the save after the last entry
and the largest save of the game, and the turn mail of each (with the board, as
``pbem mail`` composes it), against the mail budget, with the board's part and the
save's part of the larger mail as encoded in it (the PNG in base64, the save in
quoted-printable, or gzip-compressed in base64 where the mail needs it).
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass, field
from email import policy
from pathlib import Path

from common import fixed_entropy

from pbem import registry
from pbem.mail import message
from pbem.play import bots
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers


@dataclass
class Played:
    """A whole game and, per entry, whether its signer had a decision to make."""
    save: Save
    decided: list[bool] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)


def _had_choice(table: object, seat: int, kind: str) -> bool:
    if kind != "turn":
        return False
    game, state = table.game, table.gstate  # type: ignore[attr-defined]
    options = len(game.legal_moves(state, seat)) + game.can_end_turn(state, seat)
    return options > 1


def play(ruleset: str, players: int, options: list[str], max_entries: int,
         rules: int | None = None) -> Played:
    """The game bench/common.build_fixed builds, with each entry's decision flag and the
    public state after it (to size the save at every entry); ``rules``, an older rules
    version of the game to play it under."""
    from tests.support.duty import fixed_identities

    label = f"hops/{ruleset}/{players}/{','.join(options)}"
    with fixed_entropy(label):
        game = registry.load(ruleset)
        game = game if rules is None else game.for_rules(rules)
        ids = fixed_identities(players)
        header = headers.new_header(game, [(i.handle, "") for i in ids],
                                    headers.parse_options(game, options))
        table = headers.empty_table(header)
        played = Played(Save(header, [], {}))
        while (duty := table.duty()) is not None and len(played.save.entries) < max_entries:
            missing = table.round_missing()  # a round's entries go in seat order
            seat = missing[0] if missing else duty.seat
            who = ids[seat]
            shown = signing.preview(table, who)
            kind = shown.duty().kind  # type: ignore[union-attr]
            played.decided.append(_had_choice(shown, seat, kind))
            moves = (bots.choose_turn(shown.game, shown.gstate, seat, "greedy",
                                      salt=str(len(played.save.entries)))
                     if kind == "turn" else [])
            entry, table = signing.sign_entry(table, who, kind, moves)
            played.save.entries.append(entry)
            played.states.append(engine.public_state(table))
        played.save.state = played.states[-1]
    return played


def hops(played: Played) -> tuple[int, int]:
    """All hops of the game and those that wait for a decision."""
    entries = played.save.entries
    found = [i for i in range(1, len(entries)) if _new_hop(entries, i)]
    return len(found), sum(1 for i in found if played.decided[i])


def _new_hop(entries: list[dict], i: int, rounds: bool = True) -> bool:
    """Whether entry ``i`` costs a hop: signed by another seat than the entry before it;
    with ``rounds``, an entry of a round is signed on the entry before the round, in
    parallel with the others (PROTOCOL.md section 4): the round costs one hop, counted at
    its first entry by another seat than that entry's (none if its signer alone signs in
    it, as a seat revealing right after its own last turn)."""
    entry = entries[i]
    if rounds and "round" in entry:
        first = entry["round"]  # a round's first entry stands at its seq
        base = entries[first - 1]["seat"]
        earlier = [e for e in entries[first:i] if e.get("round") == first and e["seat"] != base]
        return entry["seat"] != base and not earlier
    return entry["seat"] != entries[i - 1]["seat"]


def edge_hops(played: Played, rounds: bool = True) -> tuple[int, int]:
    """The hops of the set-up (the joins and the start) and of the end (the reveals);
    with ``rounds`` False, as if every entry were signed one after another (format
    pbem/2 before rounds)."""
    entries = played.save.entries
    start = next(i for i, e in enumerate(entries) if e["kind"] == "start")
    setup = sum(1 for i in range(1, start + 1) if _new_hop(entries, i, rounds))
    end = sum(1 for i in range(1, len(entries))
              if entries[i]["kind"] == "reveal" and _new_hop(entries, i, rounds))
    return setup, end


def draft_hops(played: Played) -> int:
    """Red Dog Junction's Posse draft: hops from the start entry (which deals) to the entry
    that shows the last pick (the first whose public view is past the draft), both in."""
    entries = played.save.entries
    start = next(i for i, e in enumerate(entries) if e["kind"] == "start")
    done = next(i for i in range(start, len(entries))
                if played.states[i]["view"].get("phase") not in ("setup", "draft"))
    return 1 + sum(1 for i in range(start + 1, done + 1) if _new_hop(entries, i))


def prefix(played: Played, n: int) -> Save:
    return Save(played.save.header, played.save.entries[:n], played.states[n - 1])


def mail_size(save: Save) -> tuple[int, int, int, str]:
    """Bytes of the turn mail that carries ``save``, composed as ``pbem mail`` does, as
    SMTP carries it (CRLF line ends); and of that, the board PNG's part and the save's
    part (each with its part headers, as encoded in the mail); and how the save went
    ("gzip" where it was packed to fit, else "")."""
    home = Home(Path(tempfile.mkdtemp(prefix="pbem-bench-hops-")))
    sent = message.compose(save, home, cc=False, to=["p@example.org"])
    parts = {part.get_content_type(): len(part.as_bytes(policy=policy.SMTP))
             for part in sent.walk() if not part.is_multipart()}
    packed = "application/gzip" in parts
    return (len(sent.as_bytes(policy=policy.SMTP)), parts.get("image/png", 0),
            parts.get("application/toml", 0) + parts.get("application/gzip", 0),
            "gzip" if packed else "")


def report(ruleset: str, players: int, options: list[str], max_entries: int) -> None:
    played = play(ruleset, players, options, max_entries)
    n = len(played.save.entries)
    sizes = [len(savefile.dumps(prefix(played, k)).encode("utf-8")) for k in range(1, n + 1)]
    largest = max(range(n), key=lambda k: sizes[k])
    mails = {mail_size(prefix(played, k + 1)) for k in {n - 1, largest}}
    mail, board, attached, how = max(mails)
    all_hops, decisions = hops(played)
    (setup, end), (setup_seq, end_seq) = edge_hops(played), edge_hops(played, rounds=False)
    name = f"{ruleset} {' '.join(options)} {players}p".replace("  ", " ")
    print(f"{name:<34} set-up {setup} hops ({setup_seq} one at a time), reveals {end} "
          f"({end_seq} one at a time): {setup + end} in all ({setup_seq + end_seq})")
    print(f"{name:<34} {n:5d} entries {all_hops:5d} hops, {decisions:4d} wait for a decision, "
          f"{all_hops - decisions:4d} not; save last {sizes[-1] / 1000:6.1f} KB, largest "
          f"{sizes[largest] / 1000:6.1f} KB; largest mail {mail / 1000:6.1f} KB "
          f"({'within' if mail <= message.MAIL_BUDGET else 'OVER'} the "
          f"{message.MAIL_BUDGET // 1000} KB budget: board {board / 1000:5.1f} KB, save "
          f"{attached / 1000:5.1f} KB{' ' + how if how else ''} as encoded in it)")
    if "variant=posse" in options:
        print(f"{name:<34} the draft: {draft_hops(played)} hops from the start entry to the "
              f"last pick shown (10 * players + 5 = {10 * players + 5} one at a time)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="games cut at 150 entries")
    args, _ = parser.parse_known_args()  # run_all passes every flag to every bench
    cap = 150 if args.quick else 3000
    for ruleset in ("red-dog-junction", "road-master", "station-to-station"):
        game = registry.load(ruleset)
        for players in sorted({2, game.info.max_players}):
            report(ruleset, players, [], cap)
    for players in (2, 3, 5):
        report("red-dog-junction", players, ["variant=posse"], cap)
    for players in range(2, 6):  # the draft alone, against rules version 4 (dealt at start)
        now, before = (draft_hops(play("red-dog-junction", players, ["variant=posse"], 150,
                                       rules)) for rules in (None, 4))
        print(f"red-dog-junction posse {players}p: the draft {now} hops (rules version 4: "
              f"{before})")


if __name__ == "__main__":
    main()

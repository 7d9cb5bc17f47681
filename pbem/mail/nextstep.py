"""What a turn mail tells its reader to do next (pbem.mail.message composes the rest)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.terminal import listed

if TYPE_CHECKING:
    from pbem.protocol.state.table import Table


def what_to_run(kind: str, handle: str, filename: str, *, addressed: bool, is_me: bool,
                 bystander: bool = False, proposed: bool = False, several: bool = False,
                 deck_work: bool = False) -> str:
    """What the reader is to do. ``bystander``: the mail is for one seat that does not
    act now, told who does (``several``: ``handle`` lists the seats still to sign in a
    round) and that it has nothing to do; unless it is ``proposed`` absent, when the
    lines on the proposal say how it answers. ``deck_work``: the entries owed now only
    do secret-deck work the engine asks for (no move to choose)."""
    you = "you" if addressed else handle
    word = shell_word(filename)
    if is_me:
        return f"The sender ({handle}) acts next; this copy is for your records."
    waits = (BYSTANDER_WAIT_EACH if several else BYSTANDER_WAITS)[kind]
    if bystander and proposed:
        return f"{handle} {waits}."
    if bystander:
        return (f"{handle} {waits}. There is nothing for you to do now; the "
                f"attached {filename} is the newest save of the game, keep it if you like.")
    if kind == "join":
        return (f"{handle} is invited: save the attached {filename} and join with\n"
                f"    pbem join {word}\n"
                f"(first time? make an identity with: pbem keygen --name {handle})")
    if kind == "start":
        return f"{handle} starts the game next:\n    pbem play {word}"
    if kind == "reveal":
        return (f"The game is over; {handle} reveals next, for the final audit:\n"
                f"    pbem play {word}")
    if kind == "vote":
        return (f"A player is proposed absent; {handle} votes next ('pbem show {word}' says "
                f"what the remedy means):\n    pbem vote {word} accept   (or refuse)")
    if deck_work:
        lead = f"It is your entry, {handle}" if addressed else f"It is {handle}'s entry"
        return (f"{lead}: secret-deck work, no move to choose. Save the attached {filename} "
                f"and run\n    pbem play {word}")
    lead = f"It is your move, {handle}" if addressed else f"It is {handle}'s move"
    return (f"{lead}: save the attached {filename} and run\n"
            f"    pbem play {word} MOVE ...\n"
            f"('pbem moves {word}' lists what {you} can play; 'pbem show {word}' shows "
            "the board.)")


def each_to_run(kind: str, handles: list[str], filename: str, deck_work: bool = False) -> str:
    """What to do, told to no reader in particular (addresses typed by hand, or copies
    to several seats): every seat still to sign in the round (``handles``) signs now,
    each on this same save, in parallel (``deck_work``: secret-deck work, no move)."""
    word, names = shell_word(filename), listed(handles)
    if deck_work:
        return (f"{names} each sign an entry now, in parallel: secret-deck work, no move to "
                f"choose. Save the attached {filename} and run\n    pbem play {word}")
    if kind == "join":
        keygen = " or ".join(f"'pbem keygen --name {shell_word(h)}'" for h in handles)
        return (f"{names} are invited and each join now, in parallel: save the attached "
                f"{filename} and join with\n    pbem join {word}\n(first time? make an "
                f"identity with {keygen}, whichever you are)")
    if kind == "reveal":
        return (f"The game is over; {names} each reveal now, in parallel, for the final "
                f"audit:\n    pbem play {word}")
    return (f"It is the move of each of {names}, in parallel: save the attached {filename} "
            f"and run\n    pbem play {word} MOVE ...\n('pbem moves {word}' lists what "
            f"you can play; 'pbem show {word}' shows the board.)")


BYSTANDER_WAITS = {"join": "is invited and joins next", "start": "starts the game next",
                   "reveal": "reveals next, for the final audit",
                   "vote": "votes next on a proposal that a player is absent",
                   "turn": "is to play next"}
# The same, for the seats still to sign in a round ("bob and cy each play next").
BYSTANDER_WAIT_EACH = {"join": "are invited and each join next",
                       "reveal": "each reveal next, for the final audit",
                       "turn": "each play next"}


def shell_word(path: str | Path) -> str:
    """``path`` as one word that a POSIX shell reads back exactly (shlex.quote), and that
    no command takes for an option: a name starting with '-' gets './' in front."""
    text = str(path)
    if text.startswith("-"):
        text = "./" + text
    return shlex.quote(text)


def chance_paragraph(table: Table, kind: str, last: int) -> str:
    """When the chance pending shows (:func:`chance_words`), from the save's state:
    ``kind`` the duty owed next, ``last`` the seq of the save's last entry."""
    from pbem.protocol.replay import pairdraw

    if pairdraw.waiting(table):
        return pair_words([table.seats[s].handle for s in table.pair_draw["seats"]],
                          [table.seats[s].handle for s in pairdraw.drawers(table)])
    ahead = pairdraw.ahead(table)  # before the round: neither of its two entries is in
    if ahead:
        both = [table.seats[s].handle for s in ahead["seats"]]
        return pair_words(both, both)
    drawer = table.deck_round_resolver()  # -1 (never missing): the next entry draws
    queued = sorted({int(r["seq"]) for r in table.gstate["pending"]
                     if isinstance(r.get("seq"), int)})
    return chance_words(table.seats[drawer].handle if drawer in table.round_missing() else "",
                        in_round=table.round_first >= 0, queued=queued, last=last,
                        vote=kind == "vote", solo=table.solo)


def chance_words(drawer: str, in_round: bool = False, queued: list[int] | None = None,
                 last: int = -1, vote: bool = False, solo: bool = False) -> str:
    """When the chance pending shows: with the next entry in the order of play by another
    seat than the one that queued it (whoever signs it: where the next player is played by
    the bot, the seat after it; in a solo game, the next entry); in a round of
    deck work one seat's entry of which draws it, when that seat (``drawer``) does (the
    others' previews show it pending: Table.deck_round_resolver); in any other round
    under way (``in_round``), only after it, since no other entry of a round resolves
    chance (docs/protocol-rounds.md): the next player may be another seat of the round.
    ``queued``: the seqs of the entries that queued it (``last``: the save's last entry);
    ``vote``: a vote is owed next, and a vote resolves nothing (PROTOCOL.md section 5);
    ``solo``: a solo game, whose own chain resolves it."""
    if drawer:
        return (f"Dice rolled and cards drawn are not shown yet: {drawer}'s entry of this "
                f"round draws them, and they appear when {drawer} opens the save.")
    if in_round:
        return ("Dice rolled and cards drawn in this round are not shown yet: they appear "
                "with the first entry in the order of play after the round (each with the "
                "first such entry by a seat other than the one that rolled or drew it).")
    made = _queued_in(queued or [], last)
    if solo:
        return f"Dice rolled and cards drawn {made} are not shown yet: the next entry draws them."
    return (f"Dice rolled and cards drawn {made} are not shown yet: they appear with the "
            "next entry in the order of play by another seat than the one that rolled or "
            "drew them" + (" (a vote resolves nothing)." if vote else "."))


def pair_words(both: list[str], missing: list[str]) -> str:
    """Chance drawn from two entries of a round of deck work (pbem.protocol.replay.
    pairdraw): ``both`` their seats, ``missing`` those whose entry is not in yet."""
    entries = " and ".join(f"{h}'s" for h in missing)
    return (f"Dice rolled and cards drawn are not shown yet: they are drawn from {both[0]}'s "
            f"and {both[1]}'s entries of the round of secret-deck work together, and appear "
            f"once {entries} "
            f"{'is' if len(missing) == 1 else 'are'} in the save.")


def _queued_in(queued: list[int], last: int) -> str:
    """'in the last entry', 'in entry 7', 'in entries 5 and 7'."""
    if not queued or queued == [last]:
        return "in the last entry"
    if len(queued) == 1:
        return f"in entry {queued[0]}"
    return f"in entries {listed([str(q) for q in queued])}"

"""Typing a turn: the prompt ``pbem play SAVE`` opens at a terminal when no moves are
given, and the hints ``play`` and ``moves`` give about how moves are typed.

At the prompt the player types moves one at a time. Each is tried on a working copy
(session.Owed) and its effect shown in the game's words (Game.describe); Tab completes a
move word by word from the list ``pbem moves`` prints. Nothing is signed here: ``done``
hands the typed moves back to ``play``, which signs them through session.sign_next as it
signs moves given on the command line, so what is signed is what ``verify`` accepts.
"""

from __future__ import annotations

import shlex
import shutil
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click

from pbem import session
from pbem.errors import AmbiguousMoveError, InvalidMoveError, MoveError, PbemError, TurnError
from pbem.game import State
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import signing
from pbem.protocol.state.turns import MOVE_SEPARATOR, split_moves
from pbem.session import steps
from pbem.terminal import printable

# Words the prompt takes itself. A move spelt the same (Road Master's 'back' for
# 'backward') is typed in another of its spellings; the prompt says so when it matters.
COMMANDS = ("done", "back", "moves", "?", "show", "help", "quit")
MAX_REGROUP_WORDS = 40  # guessing how unquoted words group is quadratic; typed turns are short


class Left(PbemError):
    """The player left the prompt without signing (quit, Ctrl-D)."""

    exit_code = 1


# ---- hints for moves given on the command line ------------------------------------------
def _shown(move: str) -> str:
    return f'"{move}"' if " " in move else move


def regroup(owed: session.Owed, words: list[str]) -> list[str] | None:
    """How words typed without quotes were probably meant: joined into moves, longest
    first, that all apply one after another; None when no such grouping exists."""
    if len(words) > MAX_REGROUP_WORDS:
        return None
    state, grouped, start = owed.state, [], 0
    while start < len(words):
        for end in range(len(words), start, -1):
            text = " ".join(words[start:end])
            try:
                state, _ = owed.step(state, text)
            except MoveError:
                continue
            grouped.append(text)
            start = end
            break
        else:
            return None
    return grouped


def quoting_hint(home: Home, path: str, command: str, moves: list[str], exc: MoveError) -> str:
    """A sentence to add when moves given as separate words do not parse (``play SAVE
    forward 2 left``): each move is one argument, quoted, or all in one with ';'. Only
    where two one-word arguments stand side by side: the mark of a move typed unquoted
    (``"dock junction 7" pass`` is quoted as it should be)."""
    single = [" " not in move for move in moves]
    if not isinstance(exc, InvalidMoveError | AmbiguousMoveError) or \
            not any(a and b for a, b in zip(single, single[1:], strict=False)):
        return ""
    try:
        owed = session.owed(home, path)
    except PbemError:
        return ""
    save = shlex.quote(path)
    grouped = regroup(owed, moves) if owed.takes_moves else None
    if grouped and grouped != moves:
        return (f"Each move is one argument; did you mean: pbem {command} {save} "
                f"{' '.join(_shown(m) for m in grouped)}?")
    example = next((m for m in owed.options(owed.state) if " " in m), "move words")
    return (f"Each move is one argument: quote a move of several words "
            f'(pbem {command} {save} "{example}" ...), or give all the moves in one, '
            f'separated by ";".')


def no_moves_hint(path: str) -> str:
    """For ``play SAVE`` with no moves, away from a terminal, when a turn is owed."""
    save = shlex.quote(path)
    return (f"No moves were given: 'pbem moves {save}' lists them; give them after the "
            f"save, or run 'pbem play {save}' in a terminal to type them at a prompt.")


# ---- the prompt ---------------------------------------------------------------------------
@dataclass
class Step:
    move: str  # canonical
    state: State  # after it


Reader = Callable[[str], str]
Writer = Callable[[str], None]


def _say(text: str = "") -> None:
    click.echo(printable(text))


class TurnPrompt:
    """The moves of one turn (or the choices left at a reveal), typed and tried one by one."""

    def __init__(self, owed: session.Owed, *, read: Reader = input, write: Writer = _say,
                 plain: bool = False, width: int | None = None) -> None:
        self.owed = owed
        self.read = read
        self.write = write
        self.plain = plain  # no line editing: a line ending in Tab lists what it could start
        self.width = width or shutil.get_terminal_size((80, 24)).columns
        self.steps: list[Step] = []
        self._legal: dict[tuple[str, ...], list[str]] = {}

    # ---- the working copy
    @property
    def moves(self) -> list[str]:
        return [step.move for step in self.steps]

    @property
    def state(self) -> State:
        return self.steps[-1].state if self.steps else self.owed.state

    def legal(self, moves: tuple[str, ...] | None = None) -> list[str]:
        """The legal next moves after ``moves`` (default: those typed), cached."""
        key = tuple(self.moves) if moves is None else moves
        if key not in self._legal:
            state = self.state if moves is None else self.owed.after(list(moves))[0]
            self._legal[key] = self.owed.options(state)
        return self._legal[key]

    # ---- completion
    def candidates(self, before: str) -> list[str]:
        """Completions of the word at the end of ``before`` (the line up to the cursor):
        the next word of each legal move that starts with the words already typed, with
        the space that follows it. After 'a; b;' the moves are those legal after a and b."""
        *earlier, current = before.split(MOVE_SEPARATOR)
        words = current.split()
        prefix = words.pop() if words and not current[-1:].isspace() else ""
        try:
            legal = self.legal(tuple(self.moves + split_moves(earlier)))
        except MoveError:
            return []
        pool = list(legal)
        if not earlier and not words:
            pool += [c for c in COMMANDS if c != "?"]
        typed = [w.lower() for w in words]
        out: list[str] = []
        for move in pool:
            parts = move.split()
            if (len(parts) > len(typed) and [p.lower() for p in parts[:len(typed)]] == typed
                    and parts[len(typed)].lower().startswith(prefix.lower())
                    and parts[len(typed)] + " " not in out):
                out.append(parts[len(typed)] + " ")
        return out

    def matching(self, start: str) -> list[str]:
        """Whole legal moves that start with ``start`` (the plain fallback's Tab)."""
        key = " ".join(start.lower().split())
        return [m for m in self.legal() if m.lower().startswith(key)]

    # ---- output
    def list_moves(self, start: str = "") -> None:
        legal = self.matching(start) if start else self.legal()
        if not legal:
            self.write(f"  (no legal move starts with '{start}')" if start else
                       "  (no moves left)")
            return
        column = max(len(m) for m in legal) + 2
        per_row = max(1, (self.width - 2) // column)
        for row in range(0, len(legal), per_row):
            self.write("  " + "".join(m.ljust(column) for m in legal[row:row + per_row]).rstrip())

    def status(self) -> None:
        owed = self.owed.unfinished(self.state)
        count = len(self.legal())
        more = f"{count} legal move{'s' if count != 1 else ''} ('?' lists them)"
        if self.owed.kind == "reveal":
            self.write(f"{more}; 'done' signs your reveal." if count else
                       "No choices left: 'done' signs your reveal.")
        elif owed is None:
            self.write(f"The turn may end here: 'done' signs it; {more}." if count else
                       "The turn may end here: 'done' signs it.")
        else:
            self.write(f"Still owed: {owed.rstrip('.')}. {more[0].upper()}{more[1:]}.")

    def duty_words(self) -> str:
        """What is owed, as the greeting's first line says it."""
        owed = self.owed
        if owed.kind != "turn":
            return "the game is over: choices left to you, then your reveal"
        committed = owed.table.commitment(owed.seat)
        if committed is None and signing.seals_now(owed.table, owed.seat):
            return ("your sealed turn: the moves you type are committed, hidden, and opened "
                    "once every seat of the step has committed")
        if committed is None:
            return "your turn"
        # This home lost the moves it sealed: only the same moves, typed again, open them.
        return (f"the opening of the moves you sealed in entry {committed[0]}; this home "
                "did not keep them, so type exactly those moves again: any others are "
                "refused before anything is signed")

    def greet(self) -> None:
        owed = self.owed
        table = owed.verified.table
        self.write(f"{owed.game.info.title}  game {table.game_id[:8]}  entry "
                   f"{len(table.signers)}: {self.duty_words()} ({owed.handle}).")
        for note in owed.verified.notes:
            self.write(note)
        for line in owed.arrival():
            self.write(f"  {line}")
        board = owed.game.render(owed.view(owed.state)).splitlines()
        if board:
            self.write(f"{board[0]}   ('show' prints the whole board)")
        self.instructions()

    def instructions(self) -> None:
        self.write("Legal moves:")
        self.list_moves()
        tab = ("end a line with Tab to list the moves it could start" if self.plain
               else "Tab completes")
        self.write(textwrap.fill(
            f"Type a move and Enter ({tab}; 'a; b' types two). 'back' takes the last one "
            "back, '?' lists the moves, 'show' the board, 'done' signs, 'quit' leaves "
            "without writing, 'help' says more.", max(40, self.width - 1)))

    def help(self) -> None:
        self.write("  MOVE     try a move on the working copy (several: a; b)")
        self.write("  back     take the last move back")
        self.write("  moves    list the legal moves ('?' too; 'moves WORD' those starting so)")
        self.write("  show     the board after the moves typed so far")
        self.write("  done     sign what was typed, when it may end here")
        self.write("  quit     leave without writing anything (Ctrl-D too)")

    # ---- commands
    def try_move(self, text: str) -> bool:
        """Apply one typed move to the working copy and say what it did."""
        try:
            after, move = self.owed.step(self.state, text)
        except MoveError as exc:
            reason = exc.message.rstrip(".")
            self.write(f"  Not taken: {reason}.")
            return False
        said = self.owed.game.describe(self.state, after, self.owed.seat)
        self.steps.append(Step(move, after))
        self.write(f"  {move}" + ("" if move == text.strip() else f"   (you typed '{text}')"))
        for line in said:
            self.write(f"    {line}")
        return True

    def back(self) -> None:
        if not self.steps:
            self.write("  Nothing to take back.")
            return
        step = self.steps.pop()
        self.write(f"  Took back {step.move}.{self._also_a_move('back')}")

    def _also_a_move(self, word: str) -> str:
        try:
            _, move = self.owed.step(self.state, word)
        except MoveError:
            return ""
        return f" (To play {move}, type it in full.)"

    def show(self) -> None:
        if self.steps:
            self.write(f"The board after {'; '.join(self.moves)} (not signed yet):")
        self.write(self.owed.game.render(self.owed.view(self.state)))

    def done(self) -> bool:
        owed = self.owed.unfinished(self.state)
        if owed is not None:
            self.write(f"  The turn cannot end yet: {owed.rstrip('.')}.")
            return False
        return True

    def handle(self, line: str) -> bool:
        """Act on one line; True when the player is done."""
        if "\t" in line:
            start = line.split("\t", 1)[0].split(MOVE_SEPARATOR)[-1]
            self.list_moves(start.strip())
            return False
        text = line.strip()
        word, _, rest = text.partition(" ")
        command = word.lower()
        if not text:
            return False
        if command in ("moves", "?"):
            self.list_moves(rest.strip())
        elif text.lower() == "back":
            self.back()
            self.status()
        elif text.lower() == "show":
            self.show()
        elif text.lower() == "help":
            self.help()
        elif text.lower() == "quit":
            raise Left("You left the turn; nothing was written.")
        elif text.lower() == "done":
            return self.done()
        else:
            for move in split_moves([text]):
                if not self.try_move(move):
                    break
            self.status()
        return False

    def run(self) -> list[str]:
        """The typed moves once the player says 'done'; Left when they leave."""
        self.greet()
        while True:
            try:
                line = self.read(printable(f"{self.owed.handle}> "))
            except EOFError:
                self.write("")
                raise Left("You left the turn; nothing was written.") from None
            except KeyboardInterrupt:
                self.write("")
                raise
            if self.handle(line):
                return self.moves


class OpeningPrompt(TurnPrompt):
    """The opening of a sealed step's moves this home kept (docs/protocol-rounds.md,
    "Sealed steps"): it carries exactly the moves sealed, so no other move is offered or
    taken; 'done' opens those not typed yet."""

    def __init__(self, owed: session.Owed, at: int, sealed: list[str], **kwargs: Any) -> None:
        super().__init__(owed, **kwargs)
        self.at = at  # the seq of the commitment
        self.sealed = sealed  # canonical

    def legal(self, moves: tuple[str, ...] | None = None) -> list[str]:
        typed = self.moves if moves is None else list(moves)
        try:
            return steps.opening_next(self.at, self.sealed, typed)
        except TurnError:  # strayed from them: no move opens them from there
            return []

    def shown_sealed(self) -> str:
        return f"'{'; '.join(self.sealed)}'" if self.sealed else "no moves"

    def duty_words(self) -> str:
        return f"the opening of the moves you sealed in entry {self.at}, {self.shown_sealed()}"

    def instructions(self) -> None:
        self.write(textwrap.fill(
            "An opening carries exactly the moves sealed, and no other: 'done' opens them "
            "(signs the opening), 'show' the board, 'quit' leaves without writing.",
            max(40, self.width - 1)))

    def help(self) -> None:
        self.write("  done     open the moves you sealed (sign the opening)")
        self.write("  show     the board after the moves typed so far")
        self.write("  quit     leave without writing anything (Ctrl-D too)")

    def try_move(self, text: str) -> bool:
        try:
            _, move = self.owed.step(self.state, text)
        except MoveError:
            move = text.strip()
        if move not in self.legal():
            self.write(f"  Not taken: you sealed {self.shown_sealed()} in entry {self.at}, "
                       "and an opening carries exactly those moves.")
            return False
        return super().try_move(text)

    def status(self) -> None:
        left = self.sealed[len(self.moves):]
        self.write(f"Still to open: {'; '.join(left)}; 'done' opens them." if left else
                   "Every sealed move is typed: 'done' opens them.")

    def done(self) -> bool:
        for move in self.sealed[len(self.moves):]:  # shown as they are opened
            if not super().try_move(move):
                return False
        return super().done()


@contextmanager
def line_editing(prompt: TurnPrompt) -> Iterator[bool]:
    """Tab completion through the stdlib readline while the prompt runs (GNU readline,
    or libedit as on macOS); False, and nothing changed, where there is none (Windows)."""
    try:
        import readline
    except ImportError:
        yield False
        return
    matches: list[str] = []

    def complete(text: str, index: int) -> str | None:
        if index == 0:
            matches[:] = prompt.candidates(readline.get_line_buffer()[:readline.get_endidx()])
        return matches[index] if index < len(matches) else None

    old_completer = readline.get_completer()
    old_delims = readline.get_completer_delims()
    readline.set_completer(complete)
    readline.set_completer_delims(" \t" + MOVE_SEPARATOR)
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    try:
        yield True
    finally:
        readline.set_completer(old_completer)
        readline.set_completer_delims(old_delims)


def type_turn(home: Home, path: str) -> list[str] | None:
    """The moves typed at the prompt for the turn (or reveal choices) this home owes;
    None when what it owes takes no moves (``play`` then signs it as before). Raises
    Left when the player leaves, and what ``play`` would raise when nothing is owed."""
    owed = session.owed(home, path)
    session.refuse_stale(owed.verified, home)
    if owed.kind != "turn" and not (owed.kind == "reveal" and owed.options(owed.state)):
        return None
    prompt = _prompt_for(home, owed)
    if prompt is None:
        return None
    with line_editing(prompt) as editing:
        prompt.plain = not editing
        return prompt.run()


def _prompt_for(home: Home, owed: session.Owed) -> TurnPrompt | None:
    """The prompt for what ``owed`` is: the opening of moves this home sealed, or any
    turn; None where the sealed moves kept are no legal turn now (``play`` says why)."""
    kept = steps.kept_opening(home.path, owed.table, owed.kind, owed.seat)
    if kept is None:
        return TurnPrompt(owed)
    try:
        sealed = owed.after(kept[1])[1]
    except MoveError:
        return None
    return OpeningPrompt(owed, kept[0], sealed)

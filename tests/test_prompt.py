"""Typing a turn at a prompt (issue 11): `pbem play SAVE` at a terminal with no moves.

The prompt is driven twice: in-process with scripted lines (every command, completion
against real games' move lists), and through a real pseudo-terminal, where a subprocess
runs `python -m tests.support.launch ... play SAVE` and the test types keystrokes,
Tab included, as a person would. Identities and game ids are fixed (tests/support/
fixed_game.py), so who acts and every legal move are the same on every run."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import PbemError
from pbem.prompt import COMMANDS, Left, TurnPrompt, type_turn
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem.protocol.state.turns import split_moves
from tests.support.fixed_game import started

ROOT = Path(__file__).resolve().parent.parent


def acting(homes: dict[str, Home], path: Path) -> Home:
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None
    return homes[table.seats[duty.seat].handle]


class Script:
    """Lines typed in order; what the prompt wrote, line by line."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.out: list[str] = []

    def read(self, prompt: str) -> str:
        self.out.append(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        self.out.append(line)
        return line

    def write(self, text: str) -> None:
        self.out.extend(text.splitlines() or [""])

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def prompt_for(homes: dict[str, Home], path: Path, script: Script, **kw: object) -> TurnPrompt:
    owed = session.owed(acting(homes, path), path)
    return TurnPrompt(owed, read=script.read, write=script.write, width=80, **kw)  # type: ignore[arg-type]


@pytest.fixture
def dice(tmp_path: Path) -> tuple[dict[str, Home], Path]:
    return started(tmp_path, "dice-race", ["ann", "bob"])


# ---- in-process: every command ------------------------------------------------------------
def test_split_moves_takes_the_form_play_echoes() -> None:
    assert split_moves(["undock; dock gas", "pass"]) == ["undock", "dock gas", "pass"]
    assert split_moves(["a;;b ; ", " "]) == ["a", "b"]


def test_moves_are_tried_shown_taken_back_and_signed_on_done(dice: tuple) -> None:
    homes, path = dice
    script = Script("done", "fly", "roll", "back", "back", "?", "pass", "show", "done")
    prompt = prompt_for(homes, path, script)
    assert prompt.run() == ["pass"]
    text = script.text
    assert "Legal moves:\n  roll  pass" in text
    assert "The turn cannot end yet: roll or pass first." in text  # done before a move
    assert "Not taken: 'fly' is not a move; say roll or pass." in text
    assert "  roll\n    a roll waits for the next player's entry" in text  # Game.describe
    assert "Took back roll." in text and "Nothing to take back." in text
    assert "The board after pass (not signed yet):\nscores: 0 0" in text


def test_quit_and_end_of_input_leave_without_writing(dice: tuple) -> None:
    homes, path = dice
    for lines in (("roll", "quit"), ("roll",)):  # the second ends with Ctrl-D (EOF)
        with pytest.raises(Left) as caught:
            prompt_for(homes, path, Script(*lines)).run()
        assert caught.value.exit_code == 1 and "nothing was written" in caught.value.message
    assert sorted(p.name for p in path.parent.iterdir())[-1] == path.name


def test_several_moves_on_one_line_stop_at_the_first_refused(tmp_path: Path) -> None:
    homes, path = started(tmp_path, "red-dog-junction", ["ann", "bob", "cy"])
    script = Script("undock; fly; pass", "quit")
    prompt = prompt_for(homes, path, script)
    with pytest.raises(Left):
        prompt.run()
    assert prompt.moves == ["undock"]
    assert "Not taken:" in script.text and "Still owed: 2 actions required" in script.text


def test_a_reveal_with_choices_opens_the_prompt_and_signs_the_choices(tmp_path: Path) -> None:
    """secret-draw, one round: ann drew in the last turn, so her reveal keeps a card."""
    homes, path = started(tmp_path, "secret-draw", ["ann", "bob"], {"rounds": 1})
    for handle in ("ann", "bob"):
        path = session.sign_next(homes[handle], path, None, ["draw"], None, None).path
    owed = session.owed(homes["ann"], path)
    assert owed.kind == "reveal" and owed.options(owed.state) == ["keep s0", "keep s1"]
    script = Script("show", "keep s1", "show", "bottom s0", "done")
    prompt = TurnPrompt(owed, read=script.read, write=script.write, width=80)
    moves = prompt.run()
    assert moves == ["keep s1", "bottom s0"]
    assert "choices left to you, then your reveal" in script.text
    assert "1 legal move ('?' lists them); 'done' signs your reveal." in script.text
    written = session.sign_next(homes["ann"], path, None, moves, None, None)
    assert written.entry["kind"] == "reveal" and written.entry["moves"] == moves
    session.load(written.path, None)  # what was signed verifies


def test_the_prompt_does_not_open_for_what_takes_no_moves(homes: dict[str, Home],
                                                          tmp_path: Path) -> None:
    """A join or a start is signed as before: play gets None and signs it."""
    made = session.new_game(homes["ann"], "dice-race", ["ann", "bob"], [], None,
                            folder=tmp_path)
    assert type_turn(homes["bob"], str(made.path)) is None  # bob owes a join
    joined = session.sign_next(homes["bob"], made.path, "join", [], None, None)
    assert type_turn(homes["ann"], str(joined.path)) is None  # ann owes the start


def test_a_stale_save_is_refused_before_the_prompt_opens(dice: tuple) -> None:
    homes, path = dice
    home = acting(homes, path)
    session.sign_next(home, path, None, ["pass"], None, None)
    with pytest.raises(PbemError, match="fork the game"):
        type_turn(home, str(path))


# ---- completion: the same list as `moves`, word by word ----------------------------------
def completions_cover_every_legal_move(prompt: TurnPrompt) -> None:
    """Typing each legal move word by word, each next word is offered; every offer
    continues some legal move; and nothing else is offered."""
    legal = prompt.legal()
    assert legal == prompt.owed.options(prompt.state)  # the `moves` list itself
    for move in legal:
        words = move.split()
        for n, word in enumerate(words):
            typed = " ".join(words[:n]) + (" " if n else "")
            offered = prompt.candidates(typed + word[:1])
            assert word + " " in offered, (move, typed, offered)
    for move in legal:
        first = move.split()[0][:1]
        for offer in prompt.candidates(first):
            assert any(m.split()[0] + " " == offer for m in legal) or \
                offer.strip() in COMMANDS


@pytest.mark.parametrize("game,players", [("road-master", 3), ("station-to-station", 3),
                                          ("red-dog-junction", 3)])
def test_completion_offers_each_next_word_of_the_legal_moves(tmp_path: Path, game: str,
                                                              players: int) -> None:
    homes, path = started(tmp_path, game, ["ann", "bob", "cy", "dee"][:players])
    prompt = prompt_for(homes, path, Script())
    completions_cover_every_legal_move(prompt)
    first = prompt.legal()[0]
    assert prompt.try_move(first)  # and again from the next state
    completions_cover_every_legal_move(prompt)


def test_completion_word_by_word_in_road_master(tmp_path: Path) -> None:
    homes, path = started(tmp_path, "road-master", ["ann", "bob", "cy"])
    prompt = prompt_for(homes, path, Script())
    assert prompt.candidates("pl") == ["place "]
    assert prompt.candidates("place ") == [f"{h} " for h in "ABCDEF"]
    assert prompt.candidates("PLACE c") == ["C "]  # case does not matter
    assert prompt.candidates("") == ["place "] + [f"{c} " for c in COMMANDS if c != "?"]
    assert prompt.candidates("fly ") == []
    # After 'place C;' the completion is from the state after place C.
    assert "contracts " in prompt.candidates("place C; con")
    assert prompt.candidates("place Q; con") == []
    assert prompt.try_move("place C")
    contracts = prompt.candidates("contracts ")
    assert "m1 " in contracts and "top " in contracts
    second = prompt.candidates("contracts m2 ")
    assert second and all(f"contracts m2 {w.strip()}" in " ".join(prompt.legal()) for w in second)


def test_back_says_how_to_type_a_move_spelt_like_it(tmp_path: Path) -> None:
    """Road Master reads 'back' as backward; at the prompt 'back' takes a move back, and
    says to type 'backward' in full when that move is legal."""
    homes, path = started(tmp_path, "road-master", ["ann", "bob", "cy"])
    script = Script("place C", "back", "place C", "forward 1", "contracts m1", "back", "quit")
    prompt = prompt_for(homes, path, script)
    with pytest.raises(Left):
        prompt.run()
    assert prompt.moves == ["place C", "forward 1 exit west"]
    assert "Took back place C.\n" in script.text  # backward is not legal before placing
    assert "Took back contracts m1. (To play backward, type it in full.)" in script.text


def test_plain_fallback_lists_what_a_line_ending_in_tab_could_start(dice: tuple) -> None:
    homes, path = dice
    script = Script("r\t", "\t", "roll", "done")
    prompt = prompt_for(homes, path, script, plain=True)
    assert prompt.run() == ["roll"]
    assert "end a line with Tab" in script.text
    lines = script.text.splitlines()
    assert lines[lines.index("r\t") + 1] == "  roll"
    assert lines[lines.index("\t") + 1] == "  roll  pass"


# ---- through a real pseudo-terminal --------------------------------------------------------
pty_only = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
TIMEOUT = 30.0
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r|\x07")


class Terminal:
    """`pbem ... play SAVE` in a subprocess whose terminal is a pseudo-terminal we type on."""

    def __init__(self, home: Home, save: Path, *, readline: bool = True) -> None:
        import fcntl
        import struct
        import termios

        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_", "COLUMNS"))}
        env.update(TERM="dumb", INPUTRC=os.devnull, PYTHONPATH=str(ROOT), LC_ALL="C.UTF-8")
        # The suite's fixed clock: an entry signed by this computer's clock would be dated
        # ahead of the tests' clock, not yet in effect there (PROTOCOL.md section 11).
        env["PBEM_CLOCK"] = "2025-06-02T10:00:00Z"
        if not readline:
            env["PBEM_TEST_NO_READLINE"] = "1"

        def as_a_terminal_program() -> None:
            # Ctrl-C must interrupt pbem as at a terminal, even when the test runner was
            # started as a background job (which ignores SIGINT, and Python then installs
            # no handler in a child that inherits that): the default disposition, and the
            # pseudo-terminal as the child's controlling terminal.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.launch", "--home", str(home.path), "play",
             str(save)],
            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env,
            start_new_session=True,  # its own session, with the pseudo-terminal as its terminal
            preexec_fn=as_a_terminal_program)
        os.close(slave)
        self.seen = ""  # everything read, escapes removed
        self.mark = 0  # how far expect() has consumed

    def _read(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.master, 4096)
        except OSError:  # the child closed the terminal
            return False
        if not data:
            return False
        self.seen += ESCAPES.sub("", data.decode("utf-8", "replace"))
        return True

    def expect(self, text: str) -> str:
        """Read until ``text`` appears; what came before it and it. Fails on a timeout."""
        deadline = time.monotonic() + TIMEOUT
        while text not in self.seen[self.mark:]:
            if time.monotonic() > deadline or not self._read(deadline):
                if text in self.seen[self.mark:]:
                    break
                pytest.fail(f"waited for {text!r}; the terminal showed:\n{self.seen}")
        end = self.seen.index(text, self.mark) + len(text)
        chunk, self.mark = self.seen[self.mark:end], end
        return chunk

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait_for_line_editor(self) -> None:
        """Wait until readline has put the terminal in its own (non-canonical) mode.

        The prompt's text is written before readline switches the terminal over; a
        control key typed in between meets the old mode (and readline's switch may flush
        it), so a test that types one must wait for the switch, or it flakes under load."""
        import termios

        deadline = time.monotonic() + TIMEOUT
        while termios.tcgetattr(self.master)[3] & termios.ICANON:
            if time.monotonic() > deadline:
                pytest.fail(f"readline never took the terminal; it showed:\n{self.seen}")
            time.sleep(0.01)

    def exits_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(min(deadline, time.monotonic() + 0.1))
        return self.process.poll() is not None

    def finish(self) -> int:
        deadline = time.monotonic() + TIMEOUT
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(min(deadline, time.monotonic() + 0.2))
        if self.process.poll() is None:
            pytest.fail(f"pbem did not exit; the terminal showed:\n{self.seen}")
        while self._read(time.monotonic() + 0.05):
            pass
        return self.process.returncode

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.close()


def has_readline() -> bool:
    try:
        import readline  # noqa: F401
    except ImportError:
        return False
    return True


def saves_in(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pty_only
@pytest.mark.skipif(not has_readline(), reason="no readline on this Python")
def test_a_turn_typed_at_a_terminal_with_tab_back_and_done(dice: tuple,
                                                           terminal: list[Terminal]) -> None:
    homes, path = dice
    home = acting(homes, path)
    handle = home.handle()
    term = Terminal(home, path)
    terminal.append(term)
    term.expect("Legal moves:")
    term.expect(f"{handle}> ")
    term.type("ro\t")
    term.expect("roll")  # Tab completed 'ro' to 'roll'
    term.type("\r")
    term.expect("a roll waits for the next player's entry")  # the move's effect
    term.expect(f"{handle}> ")
    term.type("back\r")
    term.expect("Took back roll.")
    term.type("pa\t\r")
    term.expect("The turn may end here")
    term.type("done\r")
    assert term.finish() == 0, term.seen
    assert "Wrote " in term.seen and f"turn by {handle}: pass" in term.seen
    written = Path(term.seen.split("Wrote ", 1)[1].split("\n", 1)[0])
    checked = session.load(written, None)  # verify accepts what the prompt signed
    assert checked.save.entries[-1]["moves"] == ["pass"]
    assert checked.save.entries[-1]["seat"] == handle


@pty_only
@pytest.mark.skipif(not has_readline(), reason="no readline on this Python")
def test_multi_word_moves_complete_word_by_word_at_a_terminal(tmp_path: Path,
                                                              terminal: list[Terminal]) -> None:
    homes, path = started(tmp_path, "station-to-station", ["ann", "bob", "cy"])
    home = acting(homes, path)
    term = Terminal(home, path)
    terminal.append(term)
    term.expect(f"{home.handle()}> ")
    term.type("rou\t")
    term.expect("route ")
    term.type("\t")  # 'keep' is the only next word
    term.expect("keep ")
    term.type("\t\t")  # two candidates: listed on the second Tab
    assert re.search(r"1 +2", term.expect(f"{home.handle()}> route keep "))
    term.type("1\r")
    term.expect("  route keep 1")
    term.expect("Still owed:")
    term.type("quit\r")
    assert term.finish() == 1
    assert "nothing was written" in term.seen
    assert saves_in(path)[-1] == path.name


@pty_only
@pytest.mark.parametrize("keys,code", [("\x04", 1), ("\x03", 130)], ids=["ctrl-d", "ctrl-c"])
def test_ctrl_d_and_ctrl_c_leave_without_writing(dice: tuple, terminal: list[Terminal],
                                                 keys: str, code: int) -> None:
    homes, path = dice
    home = acting(homes, path)
    before = saves_in(path)
    term = Terminal(home, path, readline=has_readline())
    terminal.append(term)
    term.expect(f"{home.handle()}> ")
    term.type("roll\r")
    term.expect("The turn may end here")
    term.expect(f"{home.handle()}> ")
    if has_readline():
        term.wait_for_line_editor()
    term.type(keys)
    if keys == "\x03" and not term.exits_within(3.0):
        # CPython's readline waits in select() and looks at signals only when select is
        # interrupted: a SIGINT that lands just before the select is acted on at the next
        # key. A person presses Ctrl-C again; so does the test (once).
        term.type(keys)
    assert term.finish() == code, term.seen
    assert "nothing was written" in term.seen
    assert saves_in(path) == before


@pty_only
def test_without_readline_the_plain_prompt_still_plays_a_turn(dice: tuple,
                                                              terminal: list[Terminal]) -> None:
    homes, path = dice
    home = acting(homes, path)
    term = Terminal(home, path, readline=False)
    terminal.append(term)
    term.expect("end a line with Tab")
    term.expect(f"{home.handle()}> ")
    term.type("r\t\r")
    term.expect("  roll")
    term.type("roll\r")
    term.expect("The turn may end here")
    term.type("done\r")
    assert term.finish() == 0, term.seen
    written = Path(term.seen.split("Wrote ", 1)[1].split("\n", 1)[0])
    assert savefile.read(written).entries[-1]["moves"] == ["roll"]

"""The parts every board has around its own places: boxes with a heading, the status
block, written notes, a player's card, empty slots, cards with a coloured band, and the
final result once the game is complete and audited."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.drawing.canvas import Canvas, fit, text_width, wrap
from pbem.drawing.colours import ALERT, DARK_INK, MUTED, ink_on
from pbem.outcome import Outcome

BOX_FILL = "#fbfbfd"
BOX_LINE = "#9aa3b5"
GOLD_RIM = "#b8860b"


def box(out: Canvas, x: int, y: int, w: int, h: int, heading: str, fill: str = BOX_FILL,
        ink: str = "#333") -> None:
    """A rounded box with a bold heading in its top left corner."""
    out.rect(x, y, w, h, fill, stroke=BOX_LINE, stroke_width=1, rx=6)
    out.text(x + 10, y + 20, heading, 14, font_weight="bold", fill=ink)


def write_lines(out: Canvas, x: int, y: int, width: int, lines: Sequence[str], size: int = 13,
                leading: int = 18, fill: str = DARK_INK, strong: tuple[str, ...] = (),
                alert: tuple[str, ...] = (), most: int | None = None) -> int:
    """Each line wrapped to ``width`` (at most ``most`` parts of each), ``leading`` pixels
    below the last; a line that starts with one of ``strong`` is bold, one of ``alert``
    bold and red. Returns the last baseline (``y`` when nothing is written)."""
    for line in lines:
        bold = line.startswith(strong) if strong else False
        red = line.startswith(alert) if alert else False
        for part in wrap(line, width, size)[:most]:
            y += leading
            out.text(x, y, part, size, font_weight="bold" if bold or red else "normal",
                     fill=ALERT if red else fill)
    return y


def status_block(out: Canvas, x: int, top: int, width: int, heading: str, lines: Sequence[str],
                 strong: tuple[str, ...] = (), alert: tuple[str, ...] = (),
                 badge: tuple[str, str] | None = None) -> int:
    """The game's name in capitals, an optional badge (words, colour) and the status
    lines, as the group "status"; returns the bottom."""
    out.open("g", id="status")
    out.text(x, top + 20, heading.upper(), 18, font_weight="bold")
    y = top + 22
    if badge is not None:
        words, colour = badge
        out.rect(x, y + 8, text_width(words, 13) + 20, 22, colour, rx=4)
        out.text(x + 8, y + 24, words, 13, font_weight="bold", fill=ink_on(colour))
        y += 30
    y = write_lines(out, x, y, width, lines, strong=strong, alert=alert)
    out.close()
    return y + 10


def notes_block(out: Canvas, ident: str, x: int, top: int, width: int, heading: str,
                lines: Sequence[str], most: int | None = None) -> int:
    """A heading and written lines (``most`` parts of each at most) as the group
    ``ident``; nothing when there are no lines. Returns the bottom."""
    if not lines:
        return top
    out.open("g", id=ident)
    out.text(x, top + 18, heading, 13, font_weight="bold")
    y = write_lines(out, x + 8, top + 18, width - 12, lines, size=12, leading=16, fill="#333",
                    most=most)
    out.close()
    return y + 6


def seat_marks(*, you: bool, to_act: bool, first: bool = False, place: int = 0) -> list[str]:
    """The words after a player's name: "you", "to act", "first player", "place 2"."""
    marks = [word for word, on in (("you", you), ("to act", to_act), ("first player", first))
             if on]
    return marks + ([f"place {place}"] if place else [])


def player_card(out: Canvas, x: int, top: int, width: int, height: int, colour: str, name: str,
                note: str, number: int | None = None) -> int:
    """A player's card: a frame and a stripe in the seat's colour, the name (after the
    seat's ``number`` on a chip, if given) and ``note`` at the right of the same line.
    Returns the x where the card's text starts."""
    out.rect(x, top, width, height, "#ffffff", stroke=colour, stroke_width=2, rx=6)
    out.rect(x, top, 8, height, colour, rx=3)
    left = x + 14
    if number is not None:
        out.rect(left, top + 7, 18, 16, colour, rx=3)
        out.text(left + 9, top + 20, str(number), 12, text_anchor="middle", font_weight="bold",
                 fill=ink_on(colour))
        left += 24
    head = fit(name, width // 2 - (left - x), 15)
    out.text(left, top + 20, head, 15, font_weight="bold", fill=colour)
    if note:
        room = x + width - left - text_width(head, 15) - 24
        out.text(x + width - 8, top + 20, fit(note, room, 12), 12, text_anchor="end", fill="#333",
                 class_="marks")
    return x + 14


def empty_slot(out: Canvas, x: int, y: int, w: int, h: int, words: str, rx: int = 4,
               **attrs: object) -> None:
    """A dashed outline where something could be, with grey italic words in its middle."""
    out.rect(x, y, w, h, "none", stroke="#aaa", stroke_dasharray="4 3", rx=rx, **attrs)
    out.text(x + w // 2, y + h // 2 + 4, words, 12, text_anchor="middle", fill=MUTED,
             font_style="italic")


def card_frame(out: Canvas, x: int, y: int, w: int, h: int, colour: str, band: int,
               heading: str = "", size: int = 13, fill: str = "#ffffff") -> None:
    """A card: a white face outlined in ``colour`` with a band of it ``band`` pixels deep
    along the top, and ``heading`` written on the band."""
    out.rect(x, y, w, h, fill, stroke=colour, stroke_width=2, rx=5)
    out.rect(x, y, w, band, colour, rx=5)
    if heading:
        out.text(x + 6, y + band * 3 // 4 + 1, fit(heading, w - 12, size), size,
                 font_weight="bold", fill=ink_on(colour))


# ---- the final result -----------------------------------------------------------------------
def result_section(outcome: Outcome, seats: Sequence[str], audit: str | Sequence[str],
                   told: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The final result as a view's ``result`` section (JSON-like), which every game's
    picture draws with ``result_panel``: the seats' handles, each seat's score and its
    parts, the ranking (groups of tied seats, best first), the outcome's notes, and the
    audit's verdict ("clean", or "failed" with its ``problems``). ``told`` is the
    engine's result (pbem.protocol.state.result.summary): with it the section also carries
    ``standing`` (names best first, a rival that is not a seat included), ``rivals``
    (name -> score), ``rival_parts``, ``ending`` (how the game ended), ``winner`` (a
    sentence), ``unaudited`` and ``verdict`` (the audit in sentences, as ``told`` gives
    them; "partial" when some seat never revealed)."""
    count = len(seats)
    extra: dict[str, Any] = {}
    if told:
        rivals = [str(r) for r in told.get("rivals", [])]
        extra = {
            "standing": [[str(n) for n in group] for group in told.get("ranking") or []],
            "rivals": {r: int(told["scores"].get(r, 0)) for r in rivals},
            "rival_parts": {r: {str(k): int(v) for k, v in told["parts"].get(r, {}).items()}
                            for r in rivals},
            "ending": str(told["ending"]["text"]), "winner": str(told.get("winner", "")),
            "unaudited": [str(u) for u in told.get("unaudited", [])],
            "verdict": [str(v) for v in told.get("verdict", [])],
        }
    base = {
        "seats": [str(s) for s in seats],
        "scores": [int(outcome.scores.get(i, 0)) for i in range(count)],
        "ranking": [[int(seat) for seat in group] for group in outcome.ranking],
        "breakdown": [{str(k): int(v) for k, v in outcome.breakdown.get(i, {}).items()}
                      for i in range(count)],
        "notes": [str(note) for note in outcome.notes],
        "audit": "clean" if audit == "clean" else "failed",
        "problems": [] if isinstance(audit, str) else [str(p) for p in audit],
    }
    if extra.get("unaudited") and base["audit"] == "clean":
        base["audit"] = "partial"  # no violation, but a seat never revealed
    return {**base, **extra}


def result_places(result: Mapping[str, Any] | None) -> dict[int, int]:
    """Seat -> place (1 for the winners) from a view's ``result``; {} without one."""
    if not result:
        return {}
    if "standing" in result:  # rivals that are not seats take places too
        seats = [str(s) for s in result.get("seats", [])]
        return {seats.index(name): place
                for place, group in enumerate(result["standing"], 1)
                for name in group if name in seats}
    return {int(seat): place for place, group in enumerate(result.get("ranking", []), 1)
            for seat in group}


def seat_name(seats: Sequence[object], seat: int) -> str:
    """A seat's handle from a list of handles (a view's or a result's ``seats``)."""
    return str(seats[seat]) if 0 <= seat < len(seats) else f"seat {seat}"


def _seat_name(result: Mapping[str, Any], seat: int) -> str:
    return seat_name(result.get("seats", []), seat)


def winner_words(result: Mapping[str, Any]) -> str:
    """"Winner: ann with 31 points", "Shared win: ann and bob, 30 points each", or for a
    solo game "ann scored 31" (its notes say whether that beat the automaton)."""
    if result.get("winner"):
        return str(result["winner"])
    ranking = result.get("ranking", [])
    if not ranking:
        return "No winner: the game ended without a ranking."
    scores = result.get("scores", [])
    best = [int(s) for s in ranking[0]]
    points = scores[best[0]] if 0 <= best[0] < len(scores) else 0
    names = [_seat_name(result, s) for s in best]
    if len(result.get("seats", [])) == 1:  # a solo game: the notes say how it went
        return f"{names[0]} scored {points}"
    if len(names) == 1:
        return f"Winner: {names[0]} with {points} points"
    return f"Shared win: {', '.join(names[:-1])} and {names[-1]}, {points} points each"


def result_lines(result: Mapping[str, Any]) -> list[str]:
    """Each seat's place, score and what it is made of, best first (a rival that is not
    a seat, such as a solo game's automaton, in its place too)."""
    scores = result.get("scores", [])
    breakdown = result.get("breakdown", [])
    if "standing" in result:
        return _standing_lines(result)
    lines = []
    for place, group in enumerate(result.get("ranking", []), 1):
        for seat in group:
            seat = int(seat)
            score = scores[seat] if 0 <= seat < len(scores) else 0
            parts = breakdown[seat] if 0 <= seat < len(breakdown) else {}
            made = ", ".join(f"{label} {value}" for label, value in parts.items())
            lines.append(f"{place}. {_seat_name(result, seat)} {score}"
                         + (f" ({made})" if made else ""))
    return lines


def _standing_lines(result: Mapping[str, Any]) -> list[str]:
    seats = [str(s) for s in result.get("seats", [])]
    scores = result.get("scores", [])
    breakdown = result.get("breakdown", [])
    rivals = result.get("rivals", {})
    rival_parts = result.get("rival_parts", {})
    lines = []
    place = 1
    for group in result.get("standing", []):
        for name in group:
            if name in rivals:
                score, parts = int(rivals[name]), rival_parts.get(name, {})
            else:
                seat = seats.index(name) if name in seats else -1
                score = int(scores[seat]) if 0 <= seat < len(scores) else 0
                parts = breakdown[seat] if 0 <= seat < len(breakdown) else {}
            made = ", ".join(f"{label} {value}" for label, value in parts.items())
            lines.append(f"{place}. {name} {score}" + (f" ({made})" if made else ""))
        place += len(group)
    return lines


def result_panel(out: Canvas, x: int, top: int, width: int, result: Mapping[str, Any],
                 most_notes: int = 8) -> int:
    """The final result, as the group "result": the winner, every seat's score with its
    parts, the outcome's notes and the audit's verdict. Returns the bottom."""
    problems = [str(p) for p in result.get("problems", [])]
    clean = result.get("audit") == "clean"
    lines = [winner_words(result)] + result_lines(result)
    notes = ([str(result["ending"])] if result.get("ending") else []) + [
        str(n) for n in result.get("notes", [])]
    shown_notes = notes[:most_notes] + ([f"(and {len(notes) - most_notes} more)"]
                                        if len(notes) > most_notes else [])
    if "verdict" in result:  # the engine's words: "clean" only when nothing went unchecked
        verdict = [str(v).strip() for v in result["verdict"]]
    else:
        verdict = ["Audit: clean (every seat revealed; every secret checked)."] if clean \
            else ["AUDIT FAILED: " + p for p in problems] or ["AUDIT FAILED."]
    sketch = Canvas()  # written once to learn the height, then framed and copied
    y = write_lines(sketch, x + 12, top + 26, width - 24, lines[:1], size=14, leading=20,
                    strong=("",))  # the winner line, in bold
    y = write_lines(sketch, x + 12, y, width - 24, lines[1:], size=12, leading=16)
    y = write_lines(sketch, x + 12, y + 4, width - 24, shown_notes, size=11, leading=14,
                    fill="#444")
    y = write_lines(sketch, x + 12, y + 4, width - 24, verdict, size=12, leading=16,
                    fill="#2e7d32", alert=("AUDIT FAILED",))
    bottom = y + 10
    out.open("g", id="result")
    out.rect(x, top, width, bottom - top, "#fffbea", stroke=GOLD_RIM, stroke_width=2, rx=6)
    out.text(x + 12, top + 20, "FINAL RESULT", 15, font_weight="bold", fill=GOLD_RIM)
    out.parts += sketch.parts
    out.close()
    return bottom

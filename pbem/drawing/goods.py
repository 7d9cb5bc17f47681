"""Goods (cubes, cargo, coal and oil...) drawn so that they are told apart without colour.

Each good of a game has a fill and a shape of its own: the first good of the game's
order is a square, the next a circle, then a triangle, a diamond, and so on. A player who
cannot tell ruby from oxygen by colour tells a square from a hexagon, and the key
(``legend``) names each shape and colour. Every piece carries the class "cube" and its
fill, so tests and stylesheets find them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.drawing.canvas import Canvas, fit, text_width
from pbem.drawing.colours import LINE, by_name

SHAPES = ("square", "circle", "triangle", "diamond", "flag", "hexagon", "cross", "house")

Point = tuple[int, int]


# Each shape's corners in the unit square, in steps of 1/12 (integers keep the output exact).
CORNERS: dict[str, tuple[tuple[int, int], ...]] = {
    "square": ((0, 0), (12, 0), (12, 12), (0, 12)),
    "triangle": ((6, 0), (12, 12), (0, 12)),
    "diamond": ((6, 0), (12, 6), (6, 12), (0, 6)),
    "flag": ((0, 0), (12, 0), (6, 12)),  # a triangle standing on its point
    "hexagon": ((3, 0), (9, 0), (12, 6), (9, 12), (3, 12), (0, 6)),
    "cross": ((4, 0), (8, 0), (8, 4), (12, 4), (12, 8), (8, 8), (8, 12), (4, 12), (4, 8),
              (0, 8), (0, 4), (4, 4)),
    "house": ((6, 0), (12, 5), (12, 12), (0, 12), (0, 5)),
}


def outline(shape: str, x: int, y: int, size: int) -> list[Point]:
    """The corners of ``shape`` drawn in the ``size`` square at (x, y) (not for circles)."""
    corners = CORNERS.get(shape, CORNERS["square"])
    return [(x + cx * size // 12, y + cy * size // 12) for cx, cy in corners]


class Goods:
    """How one game's goods look: ``order`` is the game's list of goods (their shapes go
    by it), ``named`` their fills; goods outside either get spare fills and shapes."""

    def __init__(self, order: Sequence[str], named: Mapping[str, str]) -> None:
        self.order = list(order)
        self.named = dict(named)

    def fill(self, good: str) -> str:
        return by_name(good, self.named, self.order)

    def shape(self, good: str) -> str:
        index = self.order.index(good) if good in self.order else len(self.order)
        return SHAPES[index % len(SHAPES)]

    def cube(self, out: Canvas, x: int, y: int, size: int, good: str, **attrs: object) -> None:
        """One good in the ``size`` square at (x, y): its shape in its fill."""
        shape, fill = self.shape(good), self.fill(good)
        style: dict[str, object] = {"stroke": LINE, "stroke_width": 1, "class_": "cube", **attrs}
        if shape == "circle":
            out.circle(x + size // 2, y + size // 2, size // 2, fill, **style)
        elif shape == "square":
            out.rect(x, y, size, size, fill, **style)
        else:
            out.polygon(outline(shape, x, y, size), fill, stroke_linejoin="round", **style)

    def row(self, out: Canvas, goods: Sequence[str], x: int, y: int, size: int,
            per_row: int = 12, gap: int = 2) -> None:
        """One piece per good listed, ``per_row`` to a row."""
        for i, good in enumerate(goods):
            self.cube(out, x + (i % per_row) * (size + gap), y + (i // per_row) * (size + gap),
                      size, good)

    def counted(self, out: Canvas, goods: Sequence[tuple[str, int]], x: int, y: int,
                column: int, columns: int, size: int = 11, ink: str = "#111") -> int:
        """Goods as a piece and "good n" each, in ``columns`` columns of ``column`` pixels,
        rows 15 pixels apart from the baseline ``y``; returns the rows used."""
        for i, (good, count) in enumerate(goods):
            gx = x + (i % columns) * column
            gy = y + (i // columns) * 15
            self.cube(out, gx, gy - 9, 10, good)
            out.text(gx + 14, gy, fit(f"{good} {count}", column - 16, size), size, fill=ink)
        return (len(goods) + columns - 1) // columns

    def legend(self, out: Canvas, x: int, y: int, heading: str = "Goods",
               goods: Sequence[str] | None = None, size: int = 11) -> int:
        """The key on the baseline ``y``: the heading, then each good's piece and name;
        returns the x where the key ends."""
        out.text(x, y, heading, size + 1, font_weight="bold")
        x += text_width(heading, size + 1) + 12
        for good in self.order if goods is None else goods:
            self.cube(out, x, y - size + 1, size, good)
            out.text(x + size + 4, y, good, size)
            x += size + 14 + text_width(good, size)
        return x

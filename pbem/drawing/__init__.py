"""Pictures of the board for people.

page    the SVG a game draws, an HTML page around it, atomic picture writes
"""

from pbem._imports import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "svg_of": "page", "html_page": "page", "write_picture": "page",
})

"""Pictures of the Zwick games: SVG of any Zwicker, Zwikken or Zwicken position (from above or from
one seat's view) and self-contained HTML pages that step through a game.

An output layer above :mod:`zwick_ai.games`: it reads positions through the games' and engines'
public API and changes nothing.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games.seeded_deals import deal
>>> svg = state_svg(deal(pyspiel.load_game("zwikken(variant=parlett,players=3)"), 4), seat=1)
>>> svg.count('class="card back"') >= 6
True
"""

from zwick_ai.render.game_page import capture_cards, game_page, views
from zwick_ai.render.html import MoveValue, Page, PageMove, page_html, write_page
from zwick_ai.render.svg import save_svg, state_svg

__all__ = [
    "MoveValue",
    "Page",
    "PageMove",
    "capture_cards",
    "game_page",
    "page_html",
    "save_svg",
    "state_svg",
    "views",
    "write_page",
]

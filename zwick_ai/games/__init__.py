"""OpenSpiel wrappers, one module per game. ``import zwick_ai.games`` registers ``zwicker``,
``zwikken`` and ``zwicken`` with OpenSpiel (each module registers itself at import).

:func:`view` is what the player to move may know of a state, and nothing more
(:mod:`zwick_ai.games.seat_view`); the state itself is the full truth, every hidden card included.
"""

from zwick_ai.games import zwicken, zwicker, zwikken  # noqa: F401
from zwick_ai.games.seat_view import view

GAME_NAMES = ("zwicker", "zwikken", "zwicken")

__all__ = ["GAME_NAMES", "view"]

"""OpenSpiel wrappers, one module per game. ``import zwick_ai.games`` registers ``zwicker``,
``zwikken`` and ``zwicken`` with OpenSpiel (each module registers itself at import)."""

from zwick_ai.games import zwicken, zwicker, zwikken  # noqa: F401

GAME_NAMES = ("zwicker", "zwikken", "zwicken")

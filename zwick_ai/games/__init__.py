"""OpenSpiel wrappers. ``import zwick_ai.games`` registers every Zwick game with OpenSpiel."""

import importlib

# One module per game; each registers itself with pyspiel at import.
GAME_MODULES = ("zwicker", "zwikken", "zwicken")

for _name in GAME_MODULES:
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as error:  # a game still being written is simply not registered
        if error.name != f"{__name__}.{_name}":
            raise

"""One way to name a game: OpenSpiel game strings, and the command line's ``--game``,
``--variant``, ``--players`` and ``-o name=value``, which mean the same parameters.

Every command loads its game with :func:`load`. ``game`` is a game name (``zwicker``) or a whole
game string (``zwicker(variant=classic,players=2)``); ``variant``, ``players`` and ``options``
add parameters to it (a parameter given twice with different values is refused). Values may be
text; each takes the type of the parameter's default (``"false"`` -> ``False``, ``"3"`` -> ``3``)
through :mod:`zwick_ai.options`, so a command line, a TOML file and a game string name the same
game. ``str(game)`` of every loaded game loads the same game again with ``pyspiel.load_game``.

>>> game_params("zwicker", {"variant": "classic", "players": "2", "magger": "false"})
{'magger': False, 'players': 2, 'variant': 'classic'}
>>> game_params("zwicker", {"forced_capture": "false"})  # written as text the game string keeps
{'forced_capture': 'off'}
>>> split_game_string("zwikken(players=3,variant=parlett)")
('zwikken', {'players': '3', 'variant': 'parlett'})
>>> split_game_string("nosuch(players=3)")
Traceback (most recent call last):
...
ValueError: unknown game 'nosuch'; valid games: zwicker, zwikken, zwicken
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyspiel

from zwick_ai.games import GAME_NAMES
from zwick_ai.options import parse_bool, parse_int

#: text parameters that also take a boolean, with the words they mean (true, false): OpenSpiel's
#: game-string parser reads ``true``/``false`` as booleans, so these are written as the words
#: instead and ``str(game)`` loads the same game again
BOOLEAN_WORDS = {"forced_capture": ("on", "off")}


def parameter_defaults(game: str) -> dict[str, Any]:
    """The OpenSpiel parameters of one of our games with their defaults (which fix their types)."""
    if game not in GAME_NAMES:
        raise ValueError(f"unknown game {game!r}; valid games: {', '.join(GAME_NAMES)}")
    for game_type in pyspiel.registered_games():
        if game_type.short_name == game:
            return dict(game_type.parameter_specification)
    raise ValueError(f"game {game!r} is not registered with OpenSpiel (import zwick_ai.games)")


def split_game_string(text: str) -> tuple[str, dict[str, str]]:
    """The game name and parameters (as text) of ``name`` or ``name(key=value,...)``, OpenSpiel's
    syntax; ``ValueError`` for an unknown game or text that is not a game string. The values stay
    text (:func:`game_params` types them), so ``jokers=15+25`` reads as it does after ``-o``."""
    text = text.strip()
    name, _, rest = text.partition("(")
    name = name.strip()
    if name not in GAME_NAMES:
        raise ValueError(f"unknown game {name!r}; valid games: {', '.join(GAME_NAMES)}")
    if not _:
        return name, {}
    example = f"write {name}(key=value,...), e.g. {name}(players=3)"
    if not rest.endswith(")") or "(" in rest[:-1] or ")" in rest[:-1]:
        raise ValueError(f"cannot read the game string {text!r}: {example}")
    params: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest[:-1].split(","))):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise ValueError(f"cannot read {item!r} in the game string {text!r}: {example}")
        if key in params:
            raise ValueError(f"{key} is given twice in the game string {text!r}")
        params[key] = value
    return name, params


def game_params(game: str, given: dict[str, Any]) -> dict[str, Any]:
    """Check the parameter names of ``game`` and give each value its parameter's type (see the
    module docstring); sorted by name."""
    defaults = parameter_defaults(game)
    out: dict[str, Any] = {}
    for name, value in given.items():
        if name not in defaults:
            raise ValueError(f"unknown option {name!r} for {game}; valid options: {', '.join(sorted(defaults))}")
        default = defaults[name]
        if isinstance(default, bool):
            out[name] = parse_bool(name, value)
        elif isinstance(default, int):
            out[name] = parse_int(name, value)
        elif isinstance(default, float):
            try:
                out[name] = float(value)
            except ValueError:
                raise ValueError(f"invalid {name}={value!r}; expected a number") from None
        elif isinstance(value, list | tuple):  # a TOML list, e.g. jokers = [15, 25]
            out[name] = "_".join(map(str, value))
        elif name in BOOLEAN_WORDS and str(value).strip().lower() in ("true", "false"):
            out[name] = BOOLEAN_WORDS[name][str(value).strip().lower() == "false"]
        else:
            out[name] = value if isinstance(value, str) else str(value)
    return dict(sorted(out.items()))


def game_spec(
    game: str,
    variant: str | None = None,
    players: int | None = None,
    options: Iterable[tuple[str, Any]] = (),
) -> tuple[str, dict[str, Any]]:
    """The game name and typed parameters named by a game string or name plus ``variant``,
    ``players`` and ``options`` (see :func:`load`)."""
    name, params = split_game_string(game)
    extra: list[tuple[str, Any]] = list(options)
    if variant is not None:
        if name == "zwicken":
            raise ValueError(
                "zwicken has no variants; variants exist for zwikken (historic, parlett, modern) and zwicker"
            )
        extra.append(("variant", variant))
    if players is not None:
        if isinstance(players, bool) or not isinstance(players, int) or players < 1:
            raise ValueError(f"--players must be a whole number of at least 1, not {players!r}")
        extra.append(("players", players))
    keys = [key for key, _ in extra]
    for key in keys:
        if keys.count(key) > 1:
            raise ValueError(f"{key} is given more than once")
    typed = game_params(name, params)
    for key, value in game_params(name, dict(extra)).items():
        if key in typed and typed[key] != value:
            raise ValueError(f"{key} is given twice: {typed[key]!r} in the game string and {value!r}")
        typed[key] = value
    return name, dict(sorted(typed.items()))


def load(
    game: str,
    variant: str | None = None,
    players: int | None = None,
    options: Iterable[tuple[str, Any]] = (),
) -> pyspiel.Game:
    """The OpenSpiel game named by ``game`` (a name or a game string) with ``variant``,
    ``players`` and ``options`` added; ``ValueError`` saying what is valid for anything wrong."""
    name, params = game_spec(game, variant, players, options)
    try:
        return pyspiel.load_game(name, params)
    except pyspiel.SpielError as error:  # OpenSpiel's own checks (the game's are ValueErrors)
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"{name}: {first}") from None


def training_game_string(
    game: str, variant: str | None = None, players: int | None = None, options: Iterable[tuple[str, Any]] = ()
) -> str:
    """The game string to train on: one of our games (a name or a game string, with ``variant``,
    ``players`` and ``options``) in its full form, or any other OpenSpiel game string as given;
    ``ValueError`` saying what is valid for anything wrong."""
    name = game.split("(", 1)[0].strip()
    options = list(options)
    if name in GAME_NAMES:
        return str(load(game, variant, players, options))
    if variant is not None or players is not None or options:
        raise ValueError(f"--variant, --players and -o are for {', '.join(GAME_NAMES)}; write {name}'s in --game")
    if name not in pyspiel.registered_names():
        raise ValueError(
            f"unknown game {name!r}; valid: {', '.join(GAME_NAMES)} or any OpenSpiel game "
            "(python -c 'import pyspiel; print(pyspiel.registered_names())')"
        )
    try:
        pyspiel.load_game(game)
    except (pyspiel.SpielError, RuntimeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"cannot load {game!r}: {first}") from None
    return game


__all__ = ["game_params", "game_spec", "load", "parameter_defaults", "split_game_string", "training_game_string"]

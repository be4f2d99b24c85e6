"""The game arguments every ``zwick`` command shares: ``--game`` (a name or a whole OpenSpiel game
string), ``--variant``, ``--players`` and ``-o name=value`` (repeatable), read by
:func:`zwick_ai.games.game_strings.load`.

>>> parse_option("jokers=15+25")
('jokers', '15+25')
"""

from __future__ import annotations

import argparse

import pyspiel

GAME_HELP = (
    'a game name (zwicker, zwikken, zwicken) or a whole game string such as "zwicker(variant=classic,players=2)"'
)


def parse_option(text: str) -> tuple[str, str]:
    """``name=value`` of ``-o``; the value stays text (the game's parameter types read it)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"options are name=value, not {text!r}")
    name, raw = (t.strip() for t in text.split("=", 1))
    if not name:
        raise argparse.ArgumentTypeError(f"options are name=value, not {text!r}")
    return name, raw


def add_game_args(p: argparse.ArgumentParser, default_game: str | None = "zwicker", games: str = "") -> None:
    """Add ``--game``, ``--variant``, ``--players`` and ``-o``."""
    default = f" (default: {default_game})" if default_game else ""
    p.add_argument("--game", default=default_game, help=(games or GAME_HELP) + default)
    p.add_argument("--variant", help="zwicker: dithmarschen (default), classic, ...; zwikken: parlett (default), ...")
    p.add_argument("--players", type=int, help="number of players (default: the variant's)")
    p.add_argument(
        "-o", "--option", type=parse_option, action="append", metavar="NAME=VALUE",
        help="a game parameter, repeatable (zwicker: see `zwick variants`; e.g. -o jokers=15+25 -o magger=false)",
    )  # fmt: skip


def load_game(args: argparse.Namespace) -> pyspiel.Game:
    """The game of a command's ``--game``, ``--variant``, ``--players`` and ``-o``."""
    from zwick_ai.games.game_strings import load

    return load(args.game, args.variant, args.players, args.option or [])


def game_name(args: argparse.Namespace) -> str:
    """The game's short name (``zwicker`` of ``zwicker(variant=classic)``)."""
    from zwick_ai.games.game_strings import split_game_string

    return split_game_string(args.game)[0]


__all__ = ["GAME_HELP", "add_game_args", "game_name", "load_game", "parse_option"]

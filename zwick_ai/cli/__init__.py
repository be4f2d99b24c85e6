"""The ``zwick`` command. Each subcommand lives in a module of this package that defines
``register(subparsers)``; :data:`COMMANDS` lists them in the order ``zwick --help`` shows them.

Run ``zwick --help`` or ``zwick COMMAND --help``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

import zwick_ai

EPILOG = """examples:
  zwick tournament                                ismcts, greedy and random on 24 duplicate dithmarschen deals
  zwick tournament --variant classic --players 2 --agents "ismcts:iters=500;greedy;random" --deals 200
  zwick run experiments/headline.toml             the README's agents-by-variants table
  zwick variants                                  the variants and their options
  zwick selfplay --variant dithmarschen --games 20000
  zwick selfplay --variant grupp --players 3 -o joker_capture=joker_only --policies greedy,random,random
  zwick play --game zwicker --variant dithmarschen --seat 0 --agents greedy,random,greedy
  zwick replay games.jsonl --game-index 0
  zwick replay games.jsonl --game-index 0 --html game.html       the game as a page to step through
  zwick analyze games.jsonl --game-index 0 --seat 0 --out analysis/   every move's value, the mistakes
  zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 --out runs/parlett
  zwick exploitability --agents "random;greedy;ismcts:iters=100"   each agent's nash_conv on a micro game
"""

#: modules of ``zwick_ai.cli`` with a ``register(subparsers)`` function, in help order
COMMANDS = [
    "tournament",
    "run",
    "leaderboard",
    "agents_cmd",
    "zwicker_cmds",
    "play",
    "replay",
    "analyze",
    "joker_study",
    "exploitability",
    "train",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwick",
        description="zwick_ai: strategy search for the Zwick card games (Zwicker, Zwikken, Zwicken).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"zwick_ai {zwick_ai.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"zwick_ai.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except (ValueError, OSError) as error:  # bad input or a path that cannot be used: one line, no traceback
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"zwick: error: {first}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""``zwick play``: a person plays one deal of any game and variant in the terminal against agents.

The other seats are agents given by spec strings, in seat order (the person's seat skipped):
repeat ``--agent SPEC`` once per other seat, or list them in one ``--agents`` separated by ``;``
(as ``zwick tournament`` takes them) or by commas (:func:`zwick_ai.cli.agent_lists.split_agents`).
One spec alone plays every other seat. The game itself: :mod:`zwick_ai.eval.human`.

At each of your turns the table is shown with your legal whole moves numbered; answer with the
number or the move's text (a unique beginning is enough; ``?`` repeats the table, ``q`` quits).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from zwick_ai.cli.agent_lists import split_agents
from zwick_ai.cli.game_args import add_game_args, load_game
from zwick_ai.cli.paths import check_new_file, check_record_file


def __getattr__(name: str) -> Any:
    """``HumanPlayer``, ``play_human``, ``Quit`` ... of :mod:`zwick_ai.eval.human`, imported when first
    used (it loads the agents, which ``zwick play --help`` does not need)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from zwick_ai.eval import human

    try:
        return getattr(human, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def cmd_play(args: argparse.Namespace, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    from zwick_ai.eval.human import Quit, play_human
    from zwick_ai.eval.records import write_records

    if args.record:
        check_record_file(args.record)  # before the game: a game played to the end is never lost
    if args.html:
        check_new_file(args.html, "--html")  # a page is never written over
    game = load_game(args)
    specs = [s for text in (args.agents or []) for s in split_agents(text)] + list(args.agent or [])
    try:
        rec = play_human(game, args.seat, specs, args.seed, inp or sys.stdin, out or sys.stdout, args.html)
    except Quit:
        print("\ngame abandoned; nothing recorded", file=out or sys.stdout)
        return 1
    if args.record:
        write_records(args.record, [rec], append=True, what="--record")  # OSError (a full disk): not added
        print(f"game added to {args.record} (replay it with: zwick replay {args.record})", file=out or sys.stdout)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``play`` to the ``zwick`` command."""
    p = sub.add_parser(
        "play",
        help="play a deal yourself in the terminal against agents",
        description="Play one deal of zwicker, zwikken or zwicken against agents. At your turn the "
        "table and your numbered legal moves are shown; type a number or the move's text.",
        epilog="agents: repeat --agent SPEC per other seat (seat order, yours skipped), or give "
        "--agents with commas; key=value pieces continue the previous spec, e.g. "
        "--agents greedy,ismcts:iters=2000,c=0.7,random. One spec plays every other seat; none: random.",
    )
    add_game_args(p)
    p.add_argument("--seat", type=int, default=0, help="your seat (default: %(default)s)")
    p.add_argument("--agent", action="append", metavar="SPEC", help="the agent at the next other seat, repeatable")
    p.add_argument(
        "--agents", action="append", metavar="SPECS", help="agent specs for the other seats, separated by ';' or commas"
    )
    p.add_argument("--seed", type=int, default=0, help="deal seed; another seed, another deal (default: %(default)s)")
    p.add_argument("--record", metavar="FILE", help="add the finished game to this JSONL file")
    p.add_argument("--html", metavar="FILE.html", help="also draw the table in this new HTML page after every move")
    p.set_defaults(func=cmd_play)

"""``zwick train METHOD``: one subcommand per training method, each in its own module with only its
own options (``zwick train METHOD --help``):

- ``cfr``, ``mccfr`` (:mod:`.cfr`): CFR-family policies with checkpoints and a convergence plot;
- ``value`` (:mod:`.value`): the Zwicker value and move models of ``net`` and ``expert:leaf=value``;
- ``stage`` (:mod:`.stage`): the Zwicker stage values of ``resolve``;
- ``net`` (:mod:`.net`): the ``net`` after model in generations of compiled self-play;
- ``ppo`` (:mod:`.ppo`): PPO with action masks on batched compiled games;
- ``deep-cfr``, ``nfsp``, ``dqn`` (:mod:`.openspiel`): OpenSpiel's own PyTorch algorithms on our games.

Building the parser imports no numpy, torch or numba: each method imports its trainer when it runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from zwick_ai.cli.train import cfr, net, openspiel, ppo, stage, value

EXAMPLES = """examples:
  zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 --out runs/parlett --eval-every 10000
  zwick train cfr --game kuhn_poker --iterations 1000 --out runs/kuhn
  zwick train value --variant dithmarschen --out runs/value-dithmarschen
  zwick train net --variant classic --players 2 --hours 0.02 --hands 200 --out runs/net-classic-tiny
  zwick train mccfr --help          the options of one method"""

#: the methods' modules, in the order ``zwick train --help`` lists them
METHODS = (cfr, value, stage, net, ppo, openspiel)


#: the file by which these methods refuse a folder that holds a run (continued with --resume only)
RUN_MARKS = {"cfr": "checkpoint.json", "mccfr": "checkpoint.json", "deep-cfr": "config.json", "nfsp": "config.json",
             "dqn": "config.json"}  # fmt: skip


def resume_hint(args: argparse.Namespace) -> str:
    """What the one line of an interrupted ``zwick train METHOD`` adds: how to continue it (with
    ``--resume`` where the method refuses a folder that holds a run without it)."""
    mark = RUN_MARKS.get(args.method)
    if mark is not None and not args.resume and args.out and (Path(args.out) / mark).is_file():
        return "; the same command with --resume continues it"
    return "; the same command resumes"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` and its methods to the ``zwick`` command."""
    p = sub.add_parser(
        "train",
        help="train CFR / MCCFR policies, the Zwicker value and net models, PPO, or OpenSpiel's Deep CFR / NFSP",
        description="Train a policy or model, with a progress bar, checkpoints (an interrupted run resumes) "
        "and its curves as CSV and PNG in --out. Each method has its own options: zwick train METHOD --help.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    methods = p.add_subparsers(dest="method", metavar="METHOD", required=True)
    for module in METHODS:
        module.register(methods)


__all__ = ["METHODS", "RUN_MARKS", "register", "resume_hint"]

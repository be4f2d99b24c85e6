"""``zwick train net``: train the ``net`` after model in generations of compiled self-play with
PyTorch, with a progress bar, a checkpoint per generation (the same command resumes), a held-out
loss curve and a strength curve; see :mod:`zwick_ai.learn.net_train`. The options become a
:class:`zwick_ai.learn.requests.NetRequest`, checked and run there.

Example::

    zwick train net --variant dithmarschen --hours 1 --generations 23 --hands 12000 --eps 0.05 --epochs 2 \
        --window 2 --batch 1024 --lam 0.3 --average 8 --hidden 128,64 --strength-deals 200 --workers 2 \
        --out runs/net-dithmarschen
    zwick train net --variant classic --players 2 --hours 0.02 --hands 200 --out runs/net-classic-tiny
    zwick train net --variant dithmarschen --hours 1 --teacher peek --teacher-iters 200 --hands 1500 \
        --init zwick_ai/agents/weights/dithmarschen-4p-after.npz --hidden 128,64 --out runs/net-dithmarschen-peek
    zwick train net --variant dithmarschen --hours 2 --teacher ismcts --teacher-iters 1000 --hands 300 --window 8 \
        --init zwick_ai/agents/weights/dithmarschen-4p-after.npz --hidden 128,64 --workers 2 --out runs/net-dithmarschen-ismcts
"""

from __future__ import annotations

import argparse

from zwick_ai.cli.game_args import parse_option
from zwick_ai.cli.train.common import add_backend_args, add_zwicker_variant, check_out, hold_out, method_parser

EXAMPLES = """
  zwick train net --variant dithmarschen --hours 1 --generations 23 --hands 12000 --eps 0.05 --epochs 2 --window 2 --batch 1024 --lam 0.3 --average 8 --hidden 128,64 --strength-deals 200 --workers 2 --out runs/net-dithmarschen
  zwick train net --variant classic --players 2 --hours 0.02 --hands 200 --out runs/net-classic-tiny
  zwick train net --variant dithmarschen --hours 1 --teacher peek --teacher-iters 200 --hands 1500 --init zwick_ai/agents/weights/dithmarschen-4p-after.npz --hidden 128,64 --out runs/net-dithmarschen-peek
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train net``."""
    p = method_parser(
        sub, "net", "the `net` after model in generations of compiled self-play (PyTorch)",
        "Train the `net` after model in generations of compiled self-play with PyTorch, with a progress bar, "
        "a checkpoint per generation (the same command resumes), a held-out loss curve and a strength curve.",
        EXAMPLES,
    )  # fmt: skip
    add_zwicker_variant(p)
    p.add_argument(
        "-o", "--option", type=parse_option, action="append", metavar="NAME=VALUE",
        help="a game parameter, repeatable (see `zwick variants`; e.g. -o magger=false)",
    )  # fmt: skip
    add_args(p)
    p.set_defaults(func=cmd_train_net)


def add_args(p: argparse.ArgumentParser) -> None:
    """The options of ``zwick train net``."""
    p.add_argument("--hands", type=int, default=None, help="self-play hands a generation (2000)")
    p.add_argument("--eps", type=float, default=None, help="probability of a random move in self-play (0.1)")
    p.add_argument("--epochs", type=int, default=None, help="passes over the window's positions per fit (4)")
    p.add_argument("--hidden", default=None, help="the two hidden layer sizes (256,256)")
    p.add_argument(
        "--teacher", choices=("peek", "ismcts", "expert"), default=None,
        help="peek (a peek-uct search on the true hands values every card move), ismcts or expert (the search "
        "on the mover's view plays the hands and values every card move); default: the hands' own returns",
    )  # fmt: skip
    p.add_argument("--teacher-iters", type=int, default=None, help="the teacher's iterations per decision (200)")
    p.add_argument(
        "--workers", type=int, default=1,
        help="local processes (or, with --backend ray, Ray CPUs) playing the self-play (default: %(default)s)",
    )  # fmt: skip
    add_backend_args(p)
    p.add_argument("--hours", type=float, default=None, help="wall-time budget, a decimal such as 0.02")
    p.add_argument("--generations", type=int, default=None, help="stop after this many generations")
    p.add_argument("--window", type=int, default=None, help="generations of shards each fit reads (3)")
    p.add_argument(
        "--lam",
        type=float,
        default=None,
        help="TD(lambda) of the targets over a player's afterstates (1: Monte-Carlo returns; default 1)",
    )
    p.add_argument("--no-cards", action="store_true", help="without the card-level view (only the hand-made features)")
    p.add_argument("--batch", type=int, default=None, help="minibatch size of the fit (512)")
    p.add_argument(
        "--average",
        type=int,
        default=0,
        help="also export the average of the last K generations' weights (avgK-GGG.npz) and its strength curve (0: off)",
    )
    p.add_argument("--lr", type=float, default=None, help="Adam's learning rate of the fit (0.001)")
    p.add_argument(
        "--teacher-visits",
        type=int,
        default=None,
        help="--teacher peek|ismcts|expert: root visits a move needs to be a record (4)",
    )
    p.add_argument(
        "--teacher-rollout",
        choices=("random", "greedy"),
        default=None,
        help="--teacher peek: the teacher search's play-outs (random)",
    )
    p.add_argument(
        "--teacher-options",
        default=None,
        help="--teacher expert: further expert parameters of the teacher, e.g. leaf=after,prior=8 (none)",
    )
    p.add_argument(
        "--init", default=None, help="an after model (.npz) that plays generation 0 and starts the first fit"
    )
    p.add_argument(
        "--strength-deals",
        type=int,
        default=None,
        help="duplicate deals against greedy per generation (30)",
    )
    p.add_argument(
        "--ismcts-deals",
        type=int,
        default=None,
        help="duplicate deals against ismcts:iters=2000 per generation (0)",
    )


def cmd_train_net(args: argparse.Namespace) -> int:
    """Check the request, then train with a progress bar per generation and say what was written."""
    from tqdm import tqdm

    from zwick_ai.eval.orchestrate import duel
    from zwick_ai.learn.requests import NetRequest

    request = NetRequest.of(vars(args))
    request.check()
    check_out(args)
    cfg = request.config()  # before the progress bar: a refusal is one line
    bar = tqdm(total=args.generations, unit="generation")

    def progress(generation: int, stage: str) -> None:
        bar.update(generation - bar.n)
        bar.set_description(f"generation {generation}: {stage}")
        bar.refresh()

    try:
        with hold_out(args):
            done = request.run(cfg, progress, duel)
        bar.update(done - bar.n)
    finally:
        bar.close()
    print(request.summary(done))
    return 0


__all__ = ["add_args", "cmd_train_net", "register"]

"""``zwick train deep-cfr``, ``zwick train nfsp`` and ``zwick train dqn``: OpenSpiel's own PyTorch
Deep CFR, NFSP and DQN (independent learners, one a seat) on one of our games
(:mod:`zwick_ai.learn.openspiel_nets`), with model snapshots every ``--eval-every`` iterations that
``openspiel-net:model=OUT/model-N`` plays, and ``--resume``.

Example::

    zwick train deep-cfr --game "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)" --iterations 60 --eval-every 10 --out runs/deep-cfr
    zwick train nfsp --game "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)" --iterations 20000 --eval-every 5000 --out runs/nfsp
    zwick train dqn --game "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)" --iterations 20000 --eval-every 5000 --out runs/dqn
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from zwick_ai.cli.train.common import add_game, check_out, game_string, hold_out, method_parser

if TYPE_CHECKING:
    from zwick_ai.learn.openspiel_nets import NetTraining

#: the defaults of the options (``NetTraining``'s)
DEFAULTS = {"hidden": "64,64", "lr": 0.001, "batch": 256, "traversals": 100, "train_steps": 200, "memory": 100_000}
MICRO = '"zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)"'
EXAMPLES = {
    "deep-cfr": f"  zwick train deep-cfr --game {MICRO} --iterations 60 --eval-every 10 --out runs/deep-cfr",
    "nfsp": f"  zwick train nfsp --game {MICRO} --iterations 20000 --eval-every 5000 --out runs/nfsp",
    "dqn": f"  zwick train dqn --game {MICRO} --iterations 20000 --eval-every 5000 --out runs/dqn",
}
#: what each command runs, and what its snapshots hold
WHAT = {
    "deep-cfr": ("Deep CFR", "its average-policy network"),
    "nfsp": ("NFSP", "each seat's average-policy network"),
    "dqn": ("DQN", "each seat's Q-network, played greedily (independent learners, one a seat)"),
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train deep-cfr``, ``zwick train nfsp`` and ``zwick train dqn``."""
    for method, (what, held) in WHAT.items():
        p = method_parser(
            sub, method, f"OpenSpiel's own PyTorch {what}, played by openspiel-net:model=OUT/model-N",
            f"OpenSpiel's own PyTorch {what} on one of our games, with model snapshots ({held}) every "
            "--eval-every iterations that openspiel-net:model=OUT/model-N plays, and --resume.",
            EXAMPLES[method],
        )  # fmt: skip
        add_game(p)
        add_args(p, method)
        p.set_defaults(func=cmd_train_openspiel)


def add_args(p: argparse.ArgumentParser, method: str) -> None:
    """The options of ``zwick train deep-cfr``, ``nfsp`` or ``dqn``."""
    unit = "CFR iterations" if method == "deep-cfr" else "episodes"
    p.add_argument("--iterations", type=int, default=None, help=f"total {unit} (with --resume: the new total)")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument("--eval-every", type=int, default=0, help=f"{unit} between snapshots (default: 0, at the end)")
    p.add_argument("--hidden", default=None, help=f"the hidden layer sizes ({DEFAULTS['hidden']})")
    p.add_argument("--lr", type=float, default=None, help=f"the learning rate ({DEFAULTS['lr']})")
    p.add_argument("--batch", type=int, default=None, help=f"minibatch size ({DEFAULTS['batch']})")
    if method == "deep-cfr":
        p.add_argument(
            "--traversals", type=int, default=None,
            help=f"traversals a player per iteration ({DEFAULTS['traversals']})",
        )  # fmt: skip
        p.add_argument(
            "--train-steps", type=int, default=None,
            help=f"network fitting steps an iteration and a snapshot ({DEFAULTS['train_steps']})",
        )  # fmt: skip
    p.add_argument("--memory", type=int, default=None, help=f"capacity of each memory ({DEFAULTS['memory']})")


def config(args: argparse.Namespace, game: str) -> NetTraining:
    """The run's :class:`~zwick_ai.learn.openspiel_nets.NetTraining` from the options."""
    from zwick_ai.learn.openspiel_nets import NetTraining

    if args.iterations is None:
        raise ValueError(
            f"zwick train {args.method} needs --iterations (deep-cfr: CFR iterations; nfsp, dqn: episodes)"
        )

    def given(name: str) -> str:
        value = getattr(args, name, None)
        return str(DEFAULTS[name] if value is None else value)

    text = given("hidden")
    try:
        hidden = tuple(int(x) for x in text.split(","))
    except ValueError:
        hidden = ()
    if not hidden or min(hidden) < 1:
        raise ValueError(f"--hidden takes positive layer sizes like 64,64, not {text!r}")
    every = args.eval_every or args.iterations
    return NetTraining(
        game, args.method, args.iterations, every, hidden, float(given("lr")), int(given("batch")),
        int(given("traversals")), int(given("train_steps")), int(given("memory")), args.seed,
    )  # fmt: skip


def cmd_train_openspiel(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from zwick_ai.learn.openspiel_nets import train_net

    if args.game is None:
        raise ValueError('give the game with --game, e.g. --game "zwicker(variant=dithmarschen,players=2)"')
    check_out(args)
    cfg = config(args, game_string(args))
    cfg.check()  # before the folder is made: a refusal is one line
    bars: list[tqdm] = []

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, initial=done - 1, unit="it", desc=f"{args.method} {cfg.game}"[:60]))
        bars[0].update(done - bars[0].n)

    try:
        with hold_out(args):
            last = train_net(cfg, args.out, resume=args.resume, say=tqdm.write, progress=progress)
    finally:
        for bar in bars:
            bar.close()
    print(f"wrote {args.out}/model-*.npz/.json (last: {last}), progress.csv, checkpoint.pt")
    print(f"play it: openspiel-net:model={last}")
    return 0


__all__ = ["DEFAULTS", "add_args", "cmd_train_openspiel", "config", "register"]

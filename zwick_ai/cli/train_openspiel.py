"""``zwick train deep-cfr`` and ``zwick train nfsp``: OpenSpiel's own PyTorch Deep CFR and NFSP on
one of our games (:mod:`zwick_ai.learn.openspiel_nets`), with model snapshots every ``--eval-every``
iterations that ``openspiel-net:model=OUT/model-N`` plays, and ``--resume``.

Example::

    zwick train deep-cfr --game "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)" --iterations 60 --eval-every 10 --out runs/deep-cfr
    zwick train nfsp --game "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)" --iterations 20000 --eval-every 5000 --out runs/nfsp
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zwick_ai.learn.openspiel_nets import NetTraining

#: the defaults of the options (``NetTraining``'s)
DEFAULTS = {"hidden": "64,64", "lr": 0.001, "batch": 256, "traversals": 100, "train_steps": 200, "memory": 100_000}


def add_args(p: argparse.ArgumentParser) -> None:
    """The options only ``zwick train deep-cfr``/``nfsp`` take (they share --iterations,
    --eval-every, --hidden, --lr, --batch, --seed and --resume)."""
    g = p.add_argument_group("deep-cfr, nfsp (OpenSpiel's own PyTorch algorithms)")
    g.add_argument(
        "--traversals", type=int, default=None,
        help=f"deep-cfr: traversals a player per iteration ({DEFAULTS['traversals']})",
    )  # fmt: skip
    g.add_argument(
        "--train-steps", type=int, default=None,
        help=f"deep-cfr: network fitting steps an iteration and a snapshot ({DEFAULTS['train_steps']})",
    )  # fmt: skip
    g.add_argument(
        "--memory", type=int, default=None,
        help=f"deep-cfr, nfsp: capacity of each memory ({DEFAULTS['memory']})",
    )  # fmt: skip


def config(args: argparse.Namespace, game: str) -> NetTraining:
    """The run's :class:`~zwick_ai.learn.openspiel_nets.NetTraining` from the options."""
    from zwick_ai.learn.openspiel_nets import NetTraining

    if args.iterations is None:
        raise ValueError(f"zwick train {args.method} needs --iterations (deep-cfr: CFR iterations; nfsp: episodes)")

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

    from zwick_ai.cli.train import game_string, hold_out
    from zwick_ai.learn.openspiel_nets import train_net

    if args.game is None:
        raise ValueError('give the game with --game, e.g. --game "zwicker(variant=dithmarschen,players=2)"')
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

"""``zwick train ppo``: PPO with action masks on batched compiled games (PyTorch), with a
checkpoint at every strength point (``--resume`` continues it) and a strength curve against greedy;
see :mod:`zwick_ai.learn.ppo`.

Example::

    zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo
    zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo --resume
"""

from __future__ import annotations

import argparse
import math

from zwick_ai.cli.train.common import add_game, check_out, game_string, hold_out, method_parser

EXAMPLES = """
  zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo
  zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo --resume
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train ppo``."""
    p = method_parser(
        sub, "ppo", "PPO with action masks on batched compiled Zwicker games (PyTorch)",
        "PPO with action masks on batched compiled games (VectorGame, PyTorch), with a checkpoint at every "
        "strength point (--resume continues it) and a strength curve against greedy.",
        EXAMPLES,
    )  # fmt: skip
    add_game(p, games="zwicker or a Zwicker game string (default: zwicker)")
    add_args(p)
    p.set_defaults(func=cmd_train_ppo)


def add_args(p: argparse.ArgumentParser) -> None:
    """The options of ``zwick train ppo``."""
    p.add_argument("--iterations", type=int, default=None, help="total iterations (with --resume: the new total)")
    p.add_argument("--hours", type=float, default=None, help="wall-time budget, a decimal such as 0.5")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument("--eval-every", type=int, default=0, help="iterations between strength points (default: 10)")
    p.add_argument("--strength-deals", type=int, default=None, help="duplicate deals per strength point (500)")
    p.add_argument("--epochs", type=int, default=None, help="passes over an iteration's steps (2)")
    p.add_argument("--batch", type=int, default=None, help="minibatch size (8192)")
    p.add_argument("--lr", type=float, default=None, help="Adam's learning rate (0.001)")
    p.add_argument("--hidden", default=None, help="the two hidden layer sizes (128,128)")
    p.add_argument("--games", type=int, default=None, help="games stepped at once (1024)")
    p.add_argument("--steps", type=int, default=None, help="steps of every game per iteration (64)")
    p.add_argument(
        "--opponent", choices=("greedy", "self"), default=None,
        help="greedy (the learner at every seat against compiled greedy, the default) or self (self-play)",
    )  # fmt: skip
    p.add_argument("--threads", type=int, default=None, help="torch threads (1)")


def cmd_train_ppo(args: argparse.Namespace) -> int:
    from zwick_ai.learn.ppo import PPOConfig, train_ppo
    from zwick_ai.learn.requests import parse_hidden

    if args.game is not None and args.game.split("(")[0].strip() != "zwicker":
        raise ValueError(f"zwick train ppo plays Zwicker games on VectorGame; --game {args.game} is not zwicker")
    check_out(args)
    if args.hours is not None and not (math.isfinite(args.hours) and args.hours > 0):
        raise ValueError(f"--hours must be a positive number such as 0.5, not {args.hours}")
    if args.iterations is None and args.hours is None:
        raise ValueError("zwick train ppo needs a budget: --hours H or --iterations N (the total)")
    if args.iterations is not None and args.iterations < 1:
        raise ValueError(f"--iterations must be at least 1, not {args.iterations}")
    threads = 1 if args.threads is None else args.threads
    if threads < 1:
        raise ValueError(f"--threads must be at least 1, not {threads}")
    if args.game is None:
        args.game = "zwicker"
    given: dict[str, object] = {"game": game_string(args), "seed": args.seed}
    for key in ("games", "steps", "opponent", "epochs", "batch", "lr"):
        if getattr(args, key) is not None:
            given[key] = getattr(args, key)
    if args.hidden is not None:
        given["hidden"] = parse_hidden(args.hidden, "128,128")
    if args.eval_every:
        given["eval_every"] = args.eval_every
    if args.strength_deals is not None:
        given["eval_deals"] = args.strength_deals
    cfg = PPOConfig(**given)  # type: ignore[arg-type]
    cfg.check()  # before the folder is made: a refusal is one line
    with hold_out(args):
        state = train_ppo(
            cfg, args.out, iterations=args.iterations, hours=args.hours, resume=args.resume, threads=threads,
            progress=print,
        )  # fmt: skip
    print(
        f"{state['iteration']} iterations, {state['steps']:,} steps, {state['seconds']:.0f} s in {args.out}: "
        "checkpoint.pt/.json, policy.npz (numpy: zwick_ai.mlp.PolicyNet), train.csv, strength.csv/png"
    )
    return 0


__all__ = ["add_args", "cmd_train_ppo", "register"]

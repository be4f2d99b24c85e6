"""``zwick train ppo``: PPO with action masks on batched compiled games (PyTorch), with a
checkpoint at every strength point (``--resume`` continues it) and a strength curve against greedy;
see :mod:`zwick_ai.learn.ppo`.

Example::

    zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo
    zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo --resume
"""

from __future__ import annotations

import argparse


def add_args(p: argparse.ArgumentParser) -> None:
    """The options only ``zwick train ppo`` takes (it shares --iterations, --hours, --epochs,
    --batch, --lr, --hidden, --eval-every, --strength-deals and --resume)."""
    g = p.add_argument_group("ppo (zwick train ppo --variant V --hours H)")
    g.add_argument("--games", type=int, default=None, help="ppo: games stepped at once (1024)")
    g.add_argument("--steps", type=int, default=None, help="ppo: steps of every game per iteration (64)")
    g.add_argument(
        "--opponent", choices=("greedy", "self"), default=None,
        help="ppo: greedy (the learner at every seat against compiled greedy, the default) or self (self-play)",
    )  # fmt: skip
    g.add_argument("--threads", type=int, default=None, help="ppo: torch threads (1)")


def cmd_train_ppo(args: argparse.Namespace) -> int:
    from zwick_ai.cli.train import game_string, hold_out
    from zwick_ai.cli.train_value import parse_hidden
    from zwick_ai.learn.ppo import PPOConfig, train_ppo

    if args.game is not None and args.game.split("(")[0].strip() != "zwicker":
        raise ValueError(f"zwick train ppo plays Zwicker games on VectorGame; --game {args.game} is not zwicker")
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


__all__ = ["add_args", "cmd_train_ppo"]

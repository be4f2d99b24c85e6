"""``zwick train value``: train the Zwicker value model of the ``net`` agent (scikit-learn) with a
progress bar, checkpoints (the same command resumes) and a held-out loss curve
(``OUT/loss.csv``, ``OUT/loss.png``); see :mod:`zwick_ai.learn.value_train`.

Example::

    zwick train value --variant dithmarschen --out runs/value-dithmarschen
    zwick train value --variant classic --players 2 --out runs/value-classic --install
    zwick train value --variant dithmarschen --teacher ismcts --teacher-iters 2000 --hands 600 --workers 2 --out runs/distil-dithmarschen
    zwick train value --variant dithmarschen --teacher expert --teacher-iters 2000 --hands 260 --workers 2 --out runs/distil-expert-dithmarschen
"""

from __future__ import annotations

import argparse

from zwick_ai.cli.train.common import (
    add_backend_args,
    add_zwicker_variant,
    check_out,
    hold_out,
    method_parser,
)

EXAMPLES = """
  zwick train value --variant dithmarschen --out runs/value-dithmarschen
  zwick train value --variant classic --players 2 --out runs/value-classic --install
  zwick train value --variant dithmarschen --teacher ismcts --teacher-iters 2000 --hands 600 --workers 2 --out runs/distil-dithmarschen
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train value``."""
    p = method_parser(
        sub, "value", "the Zwicker value and move models of `net` and `expert:leaf=value` (scikit-learn)",
        "Train the Zwicker value and move models of `net` and `expert:leaf=value` from self-play "
        "(scikit-learn: pip install -e '.[train]'), with a progress bar, checkpoints (the same command "
        "resumes) and a held-out loss curve (loss.csv, loss.png).",
        EXAMPLES,
    )  # fmt: skip
    add_zwicker_variant(p)
    add_args(p)
    p.set_defaults(func=cmd_train_value)


def add_args(p: argparse.ArgumentParser) -> None:
    """The options of ``zwick train value``."""
    # defaults None: ValueConfig's (importing it here would load the agents for every zwick command)
    p.add_argument("--hands", type=int, default=None, help="self-play hands (default 10000)")
    p.add_argument("--record", type=float, default=None, help="share of decisions whose moves are played out (0.3)")
    p.add_argument("--epochs", type=int, default=None, help="passes over the positions per model (8)")
    p.add_argument("--hidden", default=None, help="the two hidden layer sizes (32,16)")
    p.add_argument("--eps", type=float, default=None, help="probability of a random move in self-play (0.05)")
    p.add_argument(
        "--teacher",
        choices=("greedy", "ismcts", "expert"),
        default=None,
        help="where the candidates' targets come from: one greedy play-out each (greedy, the default) "
        "or the mean reward of a search playing the hands (ismcts, or expert with its exact endgame; distils the search)",
    )
    p.add_argument(
        "--teacher-iters",
        type=int,
        default=None,
        help="the teacher's ISMCTS iterations per decision (2000)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local processes (or, with --backend ray, Ray CPUs) generating the positions (default: %(default)s)",
    )
    p.add_argument("--install", action="store_true", help="also copy the models into the package (never overwritten)")
    add_backend_args(p)


def cmd_train_value(args: argparse.Namespace) -> int:
    from zwick_ai.agents import value_model
    from zwick_ai.learn import model_files
    from zwick_ai.learn.requests import DEFAULT_PLAYERS, parse_hidden
    from zwick_ai.learn.value_train import HELDOUT_EVERY, ValueConfig, check_config, train_value
    from zwick_ai.zwicker.rules import VARIANTS

    if args.eps is not None and not 0 <= args.eps <= 1:
        raise ValueError(f"--eps is a probability from 0 to 1, not {args.eps}")
    if args.variant not in VARIANTS:
        raise ValueError(f"zwick train value needs --variant, one of {', '.join(VARIANTS)} (got {args.variant!r})")
    given: dict[str, object] = {
        k: getattr(args, k)
        for k in ("hands", "record", "epochs", "eps", "teacher", "teacher_iters")
        if getattr(args, k) is not None
    }
    if args.hidden is not None:
        given["hidden"] = parse_hidden(args.hidden, "64,32")
    if args.hands is not None and args.hands < HELDOUT_EVERY:
        raise ValueError(
            f"--hands must be at least {HELDOUT_EVERY} (every {HELDOUT_EVERY}th hand is held out), not {args.hands}"
        )
    if args.epochs is not None and args.epochs < 1:
        raise ValueError(f"--epochs must be at least 1, not {args.epochs}")
    if args.record is not None and not 0 < args.record <= 1:
        raise ValueError(f"--record is a share above 0 and at most 1, not {args.record}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1 (got {args.workers})")
    players = args.players or DEFAULT_PLAYERS[args.variant]
    check_out(args)
    installed = {kind: value_model.shipped_model_path(args.variant, players, kind) for kind in value_model.KINDS}
    if args.install:
        for path in installed.values():
            if path.exists():
                raise ValueError(f"{path} exists; shipped weights are never overwritten (remove it first)")
    cfg = ValueConfig(args.variant, players, seed=args.seed, **given)  # type: ignore[arg-type]
    check_config(cfg)  # before the progress bar: a refusal is one line
    from tqdm import tqdm

    bar = tqdm(total=1, unit="step")
    current = [""]  # the stage the bar shows

    def progress(stage: str, done: int, total: int, info: dict[str, float]) -> None:
        if current[0] != stage:
            current[0] = stage
            bar.reset(total=total)
            bar.set_description(stage)
        bar.update(done - bar.n)
        bar.set_postfix({k: f"{v:.4g}" for k, v in info.items()})
        bar.refresh()

    try:
        with hold_out(args):
            models = train_value(cfg, args.out, progress, args.workers, args.backend, args.address)
    finally:
        bar.close()
    for kind, model in models.items():
        meta = model.meta
        print(
            f"{kind} model, {args.variant} {players} players, {cfg.hands} hands: held-out MSE "
            f"{meta['heldout_mse']:.2f} points² at epoch {meta['epoch']} (variance {meta['heldout_var']:.2f})"
        )
    print(f"wrote {args.out}/move.npz, value.npz, loss.csv, loss.png")
    if args.install:
        for kind, path in installed.items():
            model_files.save_model(models[kind], path)
            print(f"wrote {path}")
    return 0


__all__ = ["add_args", "cmd_train_value", "register"]

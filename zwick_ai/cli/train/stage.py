"""``zwick train stage``: fit a Zwicker board's stage values, what a stage's start is worth to each
side from its public state alone, the leaf values of ``resolve`` (:mod:`zwick_ai.learn.stage_values`).

Example::

    zwick train stage --variant classic --players 4 --hands 60000 --out runs/stage-classic4
    zwick train stage --variant christiansen --hands 60000 --out runs/stage-christiansen --install
"""

from __future__ import annotations

import argparse
import shlex
import sys

from zwick_ai.cli.train.common import add_zwicker_variant, check_out, hold_out, method_parser

EXAMPLES = """
  zwick train stage --variant classic --players 4 --hands 60000 --out runs/stage-classic4
  zwick train stage --variant christiansen --hands 60000 --out runs/stage-christiansen --install
  resolve:time=0.1,model=runs/stage-classic4/stage.npz     the agent reading it
"""

#: the weights file in ``--out``
STAGE_FILE = "stage.npz"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train stage``."""
    p = method_parser(
        sub, "stage", "the stage values of `resolve`: a stage start's worth to each side from public features",
        "Fit what a Zwicker stage's start is worth to each side, from its public state alone (scikit-learn: "
        "pip install -e '.[train]'), on greedy self-play hands labelled with their final returns, a tenth held "
        "out; writes OUT/stage.npz with its command and held-out error (the leaf values of resolve, leaf=model).",
        EXAMPLES,
    )  # fmt: skip
    add_zwicker_variant(p)
    p.add_argument("--hands", type=int, default=60000, help="self-play hands (default: %(default)s)")
    p.add_argument("--install", action="store_true", help="also write it into the package (never overwritten)")
    p.set_defaults(func=cmd_train_stage)


def cmd_train_stage(args: argparse.Namespace) -> int:
    from pathlib import Path

    from zwick_ai.agents.cfr.resolve import shipped_stage_path
    from zwick_ai.learn.requests import DEFAULT_PLAYERS
    from zwick_ai.learn.stage_values import REPORT_KEYS, train_stage
    from zwick_ai.zwicker.rules import VARIANTS

    if args.variant not in VARIANTS:
        raise ValueError(f"zwick train stage needs --variant, one of {', '.join(VARIANTS)} (got {args.variant!r})")
    players = args.players or DEFAULT_PLAYERS[args.variant]
    check_out(args)
    out = Path(args.out) / STAGE_FILE
    installed = shipped_stage_path(args.variant, players)
    if args.install and installed.exists():
        raise ValueError(f"{installed} exists; shipped weights are never overwritten (remove it first)")
    command = shlex.join(["zwick", *sys.argv[1:]])
    print(f"playing {args.hands:,} greedy hands and fitting (compiles the engine the first time) ...", flush=True)
    with hold_out(args):
        meta = train_stage(args.variant, players, args.hands, args.seed, out, [], command)
    report = {k: meta[k] for k in REPORT_KEYS if k in meta}
    print(
        f"{args.variant} {players} players, {args.hands:,} hands: held-out MAE {report['held_out_mae']:.2f} points "
        f"over {report['held_out_boundaries']:,} stage starts (the mean's {report['baseline_mae']:.2f})"
    )
    print(f"wrote {out}")
    if args.install:
        with open(installed, "xb") as f:  # exclusive: never over a file that appeared meanwhile
            f.write(out.read_bytes())
        print(f"wrote {installed}")
    return 0


__all__ = ["STAGE_FILE", "cmd_train_stage", "register"]

"""``zwick train {cfr,mccfr,value}``: train a CFR-family policy (or the Zwicker value model) with a progress bar, checkpoints and a
convergence log and plot (see :func:`zwick_ai.agents.cfr.train`).

Example::

    zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 \\
        --out runs/parlett --eval-every 10000
    zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 200000 --seed 1 \\
        --out runs/parlett --eval-every 10000 --resume
    zwick train value --variant dithmarschen --out runs/value-dithmarschen   (see zwick_ai/cli/train_value.py)
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from tqdm import tqdm

from zwick_ai.cli.train_value import add_args as add_value_args


def plot_curve(csv_path: Path, png_path: Path, title: str) -> None:
    """Draw ``convergence.csv`` (value against iterations; log scale for nash_conv) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    xs = [int(r["iteration"]) for r in rows]
    ys = [float(r["value"]) for r in rows]
    metric = rows[-1]["metric"] if rows else "value"
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, ys, marker="o")
    if metric == "nash_conv" and all(y > 0 for y in ys):
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel(metric)
    ax.set_title(title, fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def cmd_train(args: argparse.Namespace) -> int:
    if args.method == "value":
        from zwick_ai.cli.train_value import cmd_train_value

        return cmd_train_value(args)
    if args.game is None or args.iterations is None:
        raise ValueError(f"zwick train {args.method} needs --game and --iterations")
    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.agents.cfr.train import train

    bar = tqdm(total=args.iterations, unit="it", desc=f"{args.method} {args.game}"[:60])

    def progress(done: int, total: int, metric: str | None, value: float | None) -> None:
        bar.n = done
        if metric is not None:
            bar.set_postfix({metric: f"{value:.4g}"})
        bar.refresh()

    try:
        result = train(
            args.game,
            args.method,
            args.iterations,
            seed=args.seed,
            out=args.out,
            resume=args.resume,
            eval_every=args.eval_every,
            variant=args.variant,
            abstraction=args.abstraction,
            eval_deals=args.eval_deals,
            progress=progress,
        )
    finally:
        bar.close()
    out = Path(args.out)
    plot_curve(out / "convergence.csv", out / "convergence.png", f"{args.method} {args.variant or ''} {args.game}")
    last = result.curve[-1]
    print(f"{last[0]} iterations, {last[1]:.1f} s training; {last[2]} {last[3]:.6g}")
    print(f"wrote {out}/checkpoint.npz/.json, policy.npz/.json, convergence.csv, convergence.png")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train CFR / CFR+ / MCCFR policies with checkpoints",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "method",
        choices=["cfr", "mccfr", "value"],
        help="cfr: exact on the extracted tree; mccfr: Monte Carlo; value: the Zwicker value model of `net`",
    )
    p.add_argument("--game", help='cfr/mccfr: OpenSpiel game string, e.g. "zwikken(players=3,variant=parlett)"')
    p.add_argument("--iterations", type=int, help="cfr/mccfr: total iterations (with --resume: the new total)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument(
        "--eval-every", type=int, default=0, help="evaluate and checkpoint every K iterations (0: at the end)"
    )
    p.add_argument(
        "--variant",
        default=None,
        help="cfr: cfr, cfr+ (default), dcfr; mccfr: outcome (default), external; value: the Zwicker variant",
    )
    p.add_argument(
        "--abstraction",
        default="none",
        help="tree games: none or observation (imperfect recall); trick games (MCCFR): none, suits or buckets",
    )
    p.add_argument("--eval-deals", type=int, default=2000, help="deals per seat for value_vs_random")
    add_value_args(p)
    p.set_defaults(func=cmd_train)

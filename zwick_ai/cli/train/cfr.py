"""``zwick train cfr`` and ``zwick train mccfr``: a CFR-family policy with a progress bar,
checkpoints (``--resume`` continues them) and a convergence log and plot; the options become a
:class:`zwick_ai.learn.requests.CFRRequest`, checked and run there."""

from __future__ import annotations

import argparse

from zwick_ai.cli.train.common import add_backend_args, add_game, check_out, hold_out, method_parser

CFR_EXAMPLES = """
  zwick train cfr --game kuhn_poker --iterations 1000 --out runs/kuhn
  zwick train cfr --game zwicker --variant dithmarschen --players 2 -o ranks=A23 -o suits=CD -o jokers=15 -o hand_size=2 -o table_size=1 -o stages=1 --iterations 400 --out runs/micro
"""
MCCFR_EXAMPLES = """
  zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 --out runs/parlett --eval-every 10000
  zwick train mccfr --game zwikken --variant parlett --players 3 --iterations 200000 --seed 1 --out runs/parlett --eval-every 10000 --resume
  zwick train mccfr --game "zwicker(variant=classic,players=2)" --abstraction buckets --iterations 2000000 --eval-every 200000 --eval-deals 1000 --out runs/mccfr-classic
  zwick train mccfr --game "zwicker(variant=grossenwiehe)" --abstraction stakes --averaging linear --iterations 300000 --eval-every 50000 --eval-deals 300 --workers 2 --out runs/mccfr-grossenwiehe
  zwick train mccfr --game "zwicker(variant=dithmarschen)" --abstraction coarse --iterations 640000 --workers 64 --sync 1000 --backend ray --address auto --out /mnt/nfs/runs/mccfr-dithmarschen
  (the same command with --resume continues a run; without, an existing run is never overwritten)
"""


def _add_common(p: argparse.ArgumentParser) -> None:
    add_game(p)
    p.add_argument("--iterations", type=int, required=True, help="total iterations (with --resume: the new total)")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument(
        "--eval-every", type=int, default=0,
        help="evaluate and checkpoint every K iterations (default: 0, only at the end)",
    )  # fmt: skip
    p.add_argument(
        "--eval-deals", type=int, default=2000,
        help="deals per seat of the value_vs_random evaluation; Zwicker: deals of the strength curve against "
        "greedy (default: %(default)s)",
    )  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``zwick train cfr`` and ``zwick train mccfr``."""
    p = method_parser(
        sub, "cfr", "exact CFR / CFR+ / DCFR on the extracted game tree (micro games)",
        "Exact CFR on the game's extracted tree, with a progress bar, checkpoints and a convergence log "
        "(convergence.csv, nash_conv) and plot (convergence.png) in --out.",
        CFR_EXAMPLES,
    )  # fmt: skip
    _add_common(p)
    p.add_argument("--algorithm", default=None, choices=["cfr", "cfr+", "dcfr"], help="(default: cfr+)")
    p.add_argument(
        "--abstraction", default="none", choices=["none", "observation"],
        help="none, or observation (imperfect recall: sets keyed by the observation) (default: %(default)s)",
    )  # fmt: skip
    p.set_defaults(func=cmd_train)

    p = method_parser(
        sub, "mccfr", "Monte Carlo CFR on any game, with abstractions for the full games",
        "Monte Carlo CFR with a progress bar, checkpoints, a convergence log (convergence.csv) and plot, "
        "and on the full Zwicker games a strength curve against greedy and random (strength.csv/png).",
        MCCFR_EXAMPLES,
    )  # fmt: skip
    _add_common(p)
    p.add_argument(
        "--algorithm", default=None,
        help="outcome (default) or external sampling; full Zwicker games (--abstraction stakes/buckets/coarse): "
        "probe (default), probe-unbiased (probe with the reach correction of CFR's estimator) or outcome",
    )  # fmt: skip
    p.add_argument(
        "--abstraction", default="none",
        help="trick games: none, suits or buckets; full Zwicker games: stakes (scaled to the variant), stakes-lite "
        "(the same with 18 abstract actions instead of 40), buckets or coarse (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--averaging", choices=["uniform", "linear", "discounted"], default=None,  # updates.AVERAGINGS
        help="how iteration t's regrets and average strategy are weighted: uniform (1, 1), linear (t, t: Linear "
        "CFR) or discounted (t, t^2: Discounted CFR, gamma 2); default: linear on the full Zwicker games, "
        "uniform elsewhere (with --resume: the checkpoint's)",
    )  # fmt: skip
    p.add_argument(
        "--field", choices=["self", "greedy"], default="self",  # mccfr.FIELDS
        help="who the other seats are in training: self (self-play CFR, default) or greedy (the other sides play "
        "the greedy heuristic: not CFR, a best response within the abstraction to a greedy field)",
    )  # fmt: skip
    p.add_argument(
        "--greedy-prior", type=float, default=0.0, metavar="W",
        help="full Zwicker games, probe sampling, one worker: a new set starts with regret and average mass W on "
        "greedy's action, so a few noisy probes cannot flip it (default: 0, none; --resume: the same W)",
    )  # fmt: skip
    p.add_argument(
        "--workers", type=int, default=1,
        help="threads (or Ray tasks) running the traversals, their tables merged every --sync iterations each "
        "(default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--sync", type=int, default=None,
        help="with --workers 2 or more: iterations each worker runs between merges of the tables (default: "
        "1000); --iterations and --eval-every are then multiples of workers x sync",
    )  # fmt: skip
    add_backend_args(p, local="threads")
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    """``zwick train cfr`` and ``zwick train mccfr``: check the request, then train with a progress
    bar and print what the run reached and wrote."""
    from tqdm import tqdm

    from zwick_ai.learn.requests import CFRRequest

    request = CFRRequest.of(vars(args))
    request.check()
    check_out(args)
    bars: list[tqdm] = []  # made at the first report, so a refused run shows no bar

    def progress(done: int, total: int, metric: str | None, value: float | None) -> None:
        if not bars:  # a resumed run's bar starts at its checkpoint, so the rate counts new iterations only
            desc = f"{args.method} {request.game_string()}"[:60]
            bars.append(tqdm(total=total, initial=done, unit="it", desc=desc))
        bars[0].update(done - bars[0].n)
        if metric is not None:
            bars[0].set_postfix({metric: f"{value:.4g}"})
        bars[0].refresh()

    try:
        with hold_out(args):
            result = request.run(progress)
    finally:
        for bar in bars:
            bar.close()
    for line in request.finish(result):
        print(line)
    return 0


__all__ = ["cmd_train", "register"]

"""``zwick train {cfr,mccfr,value,net,ppo}``: train a CFR-family policy with a progress bar, checkpoints and a
convergence log and plot (see :func:`zwick_ai.learn.cfr.train`), the Zwicker value and move models
of ``net`` and ``expert:leaf=value`` (see :mod:`zwick_ai.cli.train_value`), the ``net`` after model
(:mod:`zwick_ai.cli.train_net`) or a PPO policy on batched games (:mod:`zwick_ai.cli.train_ppo`)."""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
from pathlib import Path

from tqdm import tqdm

from zwick_ai.cli.game_args import add_game_args
from zwick_ai.cli.paths import check_out_folder
from zwick_ai.cli.train_net import add_args as add_net_args
from zwick_ai.cli.train_openspiel import add_args as add_openspiel_args
from zwick_ai.cli.train_ppo import add_args as add_ppo_args
from zwick_ai.cli.train_value import add_args as add_value_args

EXAMPLES = """examples:
  zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 --out runs/parlett --eval-every 10000
  zwick train mccfr --game zwikken --variant parlett --players 3 --iterations 200000 --seed 1 --out runs/parlett --eval-every 10000 --resume
  zwick train cfr --game zwicker --variant dithmarschen --players 2 -o ranks=A23 -o suits=CD -o jokers=15 -o hand_size=2 -o table_size=1 -o stages=1 --iterations 400 --out runs/micro
  zwick train cfr --game kuhn_poker --iterations 1000 --out runs/kuhn
  zwick train mccfr --game "zwicker(variant=classic,players=2)" --abstraction buckets --iterations 2000000 --eval-every 200000 --eval-deals 1000 --out runs/mccfr-classic
  zwick train mccfr --game "zwicker(variant=dithmarschen)" --abstraction coarse --iterations 100000 --eval-every 20000 --workers 2 --out runs/mccfr-dithmarschen
  zwick train mccfr --game "zwicker(variant=grossenwiehe)" --abstraction stakes --averaging linear --iterations 300000 --eval-every 50000 --eval-deals 300 --workers 2 --out runs/mccfr-grossenwiehe
  zwick train mccfr --game "zwicker(variant=dithmarschen)" --abstraction coarse --iterations 640000 --workers 64 --sync 1000 --backend ray --address auto --out /mnt/nfs/runs/mccfr-dithmarschen
  (the same command with --resume continues it; without, an existing run is never overwritten)
  zwick train value --variant dithmarschen --out runs/value-dithmarschen
  zwick train net --variant dithmarschen --hours 1 --generations 23 --hands 12000 --eps 0.05 --epochs 2 --window 2 --batch 1024 --lam 0.3 --average 8 --hidden 128,64 --strength-deals 200 --workers 2 --out runs/net-dithmarschen
  zwick train ppo --variant dithmarschen --players 2 -o ranks=9TJQKA --hours 0.5 --seed 0 --out runs/ppo  (--resume continues it)
  zwick train deep-cfr --game zwicker --variant dithmarschen --players 2 -o ranks=A23 -o suits=CD -o jokers=none -o hand_size=1 -o table_size=2 -o stages=2 --iterations 60 --eval-every 10 --out runs/deep-cfr
  zwick train nfsp --game zwicker --variant dithmarschen --players 2 -o ranks=A23 -o suits=CD -o jokers=none -o hand_size=1 -o table_size=2 -o stages=2 --iterations 20000 --eval-every 5000 --out runs/nfsp"""


def plot_curve(csv_path: Path, png_path: Path, title: str) -> None:
    """Draw ``convergence.csv`` (value against iterations; log scale for nash_conv) as a PNG."""
    from zwick_ai.eval import report  # here: building the parser imports no numpy
    from zwick_ai.plots import save_png

    pyplot = report.pyplot()

    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    xs = [int(r["iteration"]) for r in rows]
    ys = [float(r["value"]) for r in rows]
    metric = rows[-1]["metric"] if rows else "value"
    fig, ax = pyplot.subplots(figsize=(6, 4))
    ax.plot(xs, ys, marker="o")
    if metric == "nash_conv" and all(y > 0 for y in ys):
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel(metric)
    ax.set_title(title, fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_png(fig, png_path, dpi=100)
    pyplot.close(fig)


def plot_strength(csv_path: Path, png_path: Path, title: str) -> None:
    """Draw ``strength.csv`` (points per deal against greedy minus greedy's own and against random
    minus random's own, with 95% CIs, against training seconds) as a PNG."""
    from zwick_ai.eval import report  # here: building the parser imports no numpy
    from zwick_ai.plots import save_png

    pyplot = report.pyplot()

    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = pyplot.subplots(figsize=(6, 4))
    for diff, ci, label in (
        ("diff", "ci95", "greedy field, minus greedy's"),
        ("random_diff", "random_ci95", "random field, minus random's"),
    ):
        have = [r for r in rows if r.get(diff)]
        if have:
            ax.errorbar(
                [float(r["seconds"]) for r in have], [float(r[diff]) for r in have],
                yerr=[float(r[ci]) for r in have], marker="o", capsize=3, label=label,
            )  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("training seconds")
    ax.set_ylabel("points/deal minus the field's own agent")
    ax.legend(fontsize=7)
    deals = rows[-1]["deals"] if rows else "?"
    ax.set_title(f"{title}\n({deals} deals per point, every seat, 95% CI)", fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_png(fig, png_path, dpi=100)
    pyplot.close(fig)


def short_game(game: str) -> str:
    """A game string short enough for a figure's title: the name, variant and players.

    >>> short_game("zwicker(after_zwick=next_trails,players=4,variant=dithmarschen)")
    'zwicker dithmarschen 4p'
    """
    params = dict(p.split("=", 1) for p in game.partition("(")[2].rstrip(")").split(",") if "=" in p)
    parts = [game.partition("(")[0], params.get("variant", "")]
    if params.get("players", "0") != "0":
        parts.append(f"{params['players']}p")
    return " ".join(p for p in parts if p)


def game_string(args: argparse.Namespace) -> str:
    """The game string to train on: one of our games (a name or a game string, with
    ``--variant``/``--players``/``-o``) in its full form, or any other OpenSpiel game string."""
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.games import GAME_NAMES
    from zwick_ai.games.game_strings import load

    name = args.game.split("(", 1)[0].strip()
    if name in GAME_NAMES:
        return str(load(args.game, args.variant, args.players, args.option or []))
    if args.variant is not None or args.players is not None or args.option:
        raise ValueError(f"--variant, --players and -o are for {', '.join(GAME_NAMES)}; write {name}'s in --game")
    if name not in pyspiel.registered_names():
        raise ValueError(
            f"unknown game {name!r}; valid: {', '.join(GAME_NAMES)} or any OpenSpiel game "
            "(python -c 'import pyspiel; print(pyspiel.registered_names())')"
        )
    try:
        pyspiel.load_game(args.game)
    except (pyspiel.SpielError, RuntimeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"cannot load {args.game!r}: {first}") from None
    return args.game


#: the options of ``zwick train`` and their defaults (a value other than the default is "given")
DEFAULTS: dict[str, object] = {
    "game": None, "variant": None, "players": None, "option": None, "iterations": None, "resume": False,
    "eval_every": 0, "algorithm": None, "abstraction": "none", "eval_deals": 2000, "hands": None, "record": None,
    "epochs": None, "hidden": None, "eps": None, "teacher": None, "teacher_iters": None, "workers": 1,
    "install": False, "hours": None, "generations": None, "window": None, "strength_deals": None,
    "ismcts_deals": None, "teacher_visits": None, "teacher_rollout": None, "teacher_options": None, "init": None,
    "lam": None, "batch": None, "lr": None, "average": 0, "no_cards": False, "sync": None,
    "backend": "local", "address": None, "games": None, "steps": None, "opponent": None, "threads": None,
    "averaging": None, "traversals": None, "train_steps": None, "memory": None,
}  # fmt: skip
#: the most iterations a cfr/mccfr run takes, and deals its value against random is measured on
MAX_ITERATIONS = 10**10
MAX_EVAL_DEALS = 1_000_000
#: the options each method reads (``--seed`` and ``--out`` are everyone's)
USED = {
    "cfr": {"game", "variant", "players", "option", "iterations", "resume", "eval_every", "algorithm", "abstraction",
            "eval_deals"},
    "value": {"game", "variant", "players", "hands", "record", "epochs", "hidden", "eps", "teacher", "teacher_iters",
              "workers", "install", "backend", "address"},
    "net": {"game", "variant", "players", "option", "hands", "epochs", "hidden", "eps", "hours", "generations", "window",
            "strength_deals", "ismcts_deals", "teacher", "teacher_iters", "teacher_visits", "teacher_rollout", "teacher_options",
            "init", "workers", "lam", "batch", "lr", "average", "no_cards", "backend", "address"},
}  # fmt: skip
USED["mccfr"] = USED["cfr"] | {"workers", "sync", "backend", "address", "averaging"}
USED["deep-cfr"] = {"game", "variant", "players", "option", "iterations", "resume", "eval_every", "hidden", "lr", "batch",
                    "traversals", "train_steps", "memory"}  # fmt: skip
USED["nfsp"] = USED["deep-cfr"] - {"traversals", "train_steps"}
USED["ppo"] = {"game", "variant", "players", "option", "iterations", "resume", "eval_every", "hours", "epochs", "batch",
               "lr", "hidden", "strength_deals", "games", "steps", "opponent", "threads"}  # fmt: skip


def refuse_ignored(args: argparse.Namespace) -> None:
    """Every option that ``args.method`` would not read is refused, and the Zwicker-only methods
    refuse another game."""
    given = [k for k, default in DEFAULTS.items() if getattr(args, k, default) != default]
    ignored = [k for k in given if k not in USED[args.method]]
    if ignored:
        names = ", ".join("-o" if k == "option" else "--" + k.replace("_", "-") for k in ignored)
        raise ValueError(
            f"{names}: not used by zwick train {args.method}; leave {'them' if len(ignored) > 1 else 'it'} out"
        )
    if args.method in ("value", "net") and args.game is not None and args.game.split("(")[0].strip() != "zwicker":
        raise ValueError(f"zwick train {args.method} trains Zwicker models; --game {args.game} is not zwicker")
    if args.method in ("value", "net") and args.game is not None and "(" in args.game:
        raise ValueError(f"zwick train {args.method} takes the variant as --variant V, not a game string")
    if args.hours is not None and not (math.isfinite(args.hours) and args.hours > 0):
        raise ValueError(f"--hours must be a positive number such as 0.5, not {args.hours}")
    if args.eps is not None and not 0 <= args.eps <= 1:
        raise ValueError(f"--eps is a probability from 0 to 1, not {args.eps}")
    if args.record is not None and not 0 <= args.record <= 1:
        raise ValueError(f"--record is a share from 0 to 1, not {args.record}")


def made_before_marks(out: Path) -> bool:
    """A training folder made before folders were marked: its run's config or checkpoint."""
    return any((out / name).is_file() for name in ("config.json", "checkpoint.json", "convergence.csv"))


def hold_out(args: argparse.Namespace) -> contextlib.AbstractContextManager[Path]:
    """Hold ``--out`` for the training (:func:`zwick_ai.eval.folder_lock.hold_results_folder`)."""
    from zwick_ai.eval.folder_lock import hold_results_folder

    return hold_results_folder(args.out, f"zwick train {args.method}", legacy=made_before_marks)


def cmd_train(args: argparse.Namespace) -> int:
    from zwick_ai.eval.folder_lock import check_results_folder

    refuse_ignored(args)
    if args.out is not None:
        check_out_folder(args.out)
        check_results_folder(args.out, f"zwick train {args.method}", legacy=made_before_marks)
    if args.method == "value":
        from zwick_ai.cli.train_value import cmd_train_value

        return cmd_train_value(args)
    if args.method == "net":
        from zwick_ai.cli.train_net import cmd_train_net

        return cmd_train_net(args)
    if args.method == "ppo":
        from zwick_ai.cli.train_ppo import cmd_train_ppo

        return cmd_train_ppo(args)
    if args.method in ("deep-cfr", "nfsp"):
        from zwick_ai.cli.train_openspiel import cmd_train_openspiel

        return cmd_train_openspiel(args)
    from zwick_ai.learn.cfr.train import train

    if args.iterations is None:
        raise ValueError(f"zwick train {args.method} needs --iterations")
    if args.game is None:
        raise ValueError(
            'give the game with --game, e.g. --game "zwikken(players=3,variant=parlett)" or --game kuhn_poker'
        )
    if not 1 <= args.iterations <= MAX_ITERATIONS:
        raise ValueError(f"--iterations must be from 1 to {MAX_ITERATIONS}, not {args.iterations}")
    if args.eval_deals is not None and not 1 <= args.eval_deals <= MAX_EVAL_DEALS:
        raise ValueError(f"--eval-deals must be from 1 to {MAX_EVAL_DEALS}, not {args.eval_deals}")
    if args.eval_every < 0:
        raise ValueError(f"--eval-every must be at least 0, not {args.eval_every}")
    if args.workers < 1 or (args.sync is not None and args.sync < 1):
        raise ValueError(f"--workers and --sync must be at least 1, not {args.workers} and {args.sync}")
    if args.sync is not None and args.workers == 1:
        raise ValueError("--sync: used with --workers 2 or more; leave it out")
    game = game_string(args)
    bars: list[tqdm] = []  # made at the first report, so a refused run shows no bar

    def progress(done: int, total: int, metric: str | None, value: float | None) -> None:
        if not bars:  # a resumed run's bar starts at its checkpoint, so the rate counts new iterations only
            bars.append(tqdm(total=total, initial=done, unit="it", desc=f"{args.method} {game}"[:60]))
        bar = bars[0]
        bar.update(done - bar.n)
        if metric is not None:
            bar.set_postfix({metric: f"{value:.4g}"})
        bar.refresh()

    try:
        with hold_out(args):
            result = train(
                game,
                args.method,
                args.iterations,
                seed=args.seed,
                out=args.out,
                resume=args.resume,
                eval_every=args.eval_every,
                variant=args.algorithm,
                abstraction=args.abstraction,
                eval_deals=args.eval_deals,
                progress=progress,
                workers=args.workers,
                **({} if args.sync is None else {"sync": args.sync}),
                averaging=args.averaging,
                backend=args.backend,
                address=args.address,
            )
    finally:
        for bar in bars:
            bar.close()
    out = Path(args.out)
    plot_curve(out / "convergence.csv", out / "convergence.png", f"{args.method} {args.algorithm or ''} {game}")
    last = result.curve[-1]
    print(f"{last[0]} iterations, {last[1]:.1f} s training; {last[2]} {last[3]:.6g}")
    extra = ""
    if (out / "strength.csv").exists():
        plot_strength(out / "strength.csv", out / "strength.png", f"mccfr {args.abstraction} {short_game(game)}")
        extra = ", strength.csv, strength.png"
    print(f"wrote {out}/checkpoint.npz/.json, policy.npz/.json, convergence.csv, convergence.png{extra}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` to the ``zwick`` command."""
    p = sub.add_parser(
        "train",
        help="train CFR / CFR+ / MCCFR policies or the Zwicker value model, with checkpoints",
        description="Train a CFR-family policy with a progress bar, checkpoints, and a convergence log "
        "(convergence.csv) and plot (convergence.png) in --out. The game is one of ours (a name or a "
        "game string, with --variant/--players/-o) or any OpenSpiel game string. `zwick train value "
        "--variant V --out DIR` trains the Zwicker value and move models of `net` and `expert:leaf=value` "
        "from self-play (scikit-learn: pip install -e '.[train]'), with a held-out loss curve (loss.csv, loss.png).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "method",
        choices=["cfr", "mccfr", "value", "net", "ppo", "deep-cfr", "nfsp"],
        help="cfr: exact, on the extracted game tree; mccfr: Monte Carlo; value: the Zwicker value model of `net`; "
        "net: the `net` move model in generations of self-play (PyTorch); ppo: PPO with action masks on "
        "batched compiled games (PyTorch); deep-cfr, nfsp: OpenSpiel's own PyTorch Deep CFR and NFSP, played by "
        "openspiel-net:model=OUT/model",
    )
    add_game_args(p, default_game=None, games='the game: zwicker, zwikken, zwicken, a game string such as '
                  '"zwikken(players=3,variant=parlett)", or any OpenSpiel game string (kuhn_poker)')  # fmt: skip
    p.add_argument("--iterations", type=int, help="cfr/mccfr/ppo: total iterations (with --resume: the new total)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampling (default: %(default)s)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument(
        "--eval-every", type=int, default=0,
        help="evaluate and checkpoint every K iterations (default: 0, only at the end; ppo: 10)",
    )  # fmt: skip
    p.add_argument(
        "--algorithm", default=None,
        help="cfr: cfr, cfr+ (default) or dcfr; mccfr: outcome (default) or external sampling; full Zwicker games "
        "(--abstraction stakes/buckets/coarse): probe (default), probe-unbiased (probe with the reach "
        "correction of CFR's estimator) or outcome",
    )  # fmt: skip
    p.add_argument(
        "--averaging", choices=["uniform", "linear", "discounted"], default=None,  # core.AVERAGINGS
        help="mccfr: how iteration t's regrets and average strategy are weighted: uniform (1, 1), linear "
        "(t, t: Linear CFR) or discounted (t, t^2: Discounted CFR, gamma 2); default: linear on the full "
        "Zwicker games, uniform elsewhere (with --resume: the checkpoint's)",
    )  # fmt: skip
    p.add_argument(
        "--abstraction", default="none",
        help="tree games: none or observation (imperfect recall); trick games (mccfr): none, suits or "
        "buckets; full Zwicker games (mccfr): stakes (scaled to the variant), buckets or coarse (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--eval-deals", type=int, default=2000,
        help="deals per seat of the value_vs_random evaluation; Zwicker: deals of the strength curve against "
        "greedy (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--sync", type=int, default=None,
        help="mccfr with --workers 2 or more: iterations each worker runs between merges of the tables "
        "(default: 1000, the solver's DEFAULT_SYNC); --iterations and --eval-every are then multiples of "
        "workers x sync",
    )  # fmt: skip
    p.add_argument(
        "--backend", choices=["local", "ray"], default="local",
        help="mccfr, net, value: the --workers as threads or processes here (local) or as Ray tasks on a "
        "cluster (pip install 'zwick_ai[ray]'; docs/cluster.md); the same results either way (default: %(default)s)",
    )  # fmt: skip
    p.add_argument("--address", default=None, help="--backend ray: the cluster (e.g. auto); default: start a local one")
    add_value_args(p)
    add_net_args(p)
    add_ppo_args(p)
    add_openspiel_args(p)
    p.set_defaults(func=cmd_train)

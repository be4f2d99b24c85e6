"""``zwick joker-study``: the joker study of one Zwicker variant (:mod:`zwick_ai.analysis.joker`; what
the command asks of it: :mod:`zwick_ai.analysis.joker.runs`).

Writes ``report.md``, PNG figures and ``results.json`` to
``results/joker-study/<variant>[-option-value...]/``, or to ``--out`` (the committed results:
``--out experiments/results/joker-study/<variant>``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from zwick_ai.cli.game_args import add_game_args
from zwick_ai.cli.paths import check_out_folder

#: where a study goes without --out: beside the tournaments' results, never into the committed
#: experiments/results (write there by naming it with --out)
DEFAULT_OUT = Path("results/joker-study")
QUICK_DEALS = 300


def cmd_joker_study(args: argparse.Namespace) -> int:
    from zwick_ai.analysis.joker import runs
    from zwick_ai.backends import BackendRequest

    given = vars(args)
    runs.refuse_ignored(given)
    if args.out:
        check_out_folder(args.out)
    root = Path(args.out) if args.out else DEFAULT_OUT
    if args.micro_cfr:
        print(runs.micro_run(root, args.out, args.quick, lambda games: tqdm(games, disable=args.no_progress,
                                                                             desc="micro CFR")))  # fmt: skip
        return 0
    if args.summary:
        print(runs.summary_run(root))
        return 0
    if args.variant is None and args.game is None:
        raise ValueError("give --variant (dithmarschen, grossenwiehe, christiansen or grupp) or --summary")
    rules = runs.study_rules(args.game, args.variant, args.players, args.option or [])
    pool = BackendRequest(args.backend, args.workers, args.address)
    if args.strong_play:
        strong = runs.strong_config(rules, given)
        slug = runs.strong_slug(strong)
        command = runs.strong_command(given, rules.variant, strong.options, strong.deals)
        out = Path(args.out) if args.out else DEFAULT_OUT / slug
        lines = runs.strong_run(strong, out, command, pool, lambda: tqdm(total=strong.deals, unit="deal",
                                disable=args.no_progress, desc=f"{slug} {args.strong_play}"))  # fmt: skip
    else:
        cfg = runs.study_config(rules, given, QUICK_DEALS)
        command = runs.study_command(given, cfg.variant, cfg.options)
        out = Path(args.out) if args.out else DEFAULT_OUT / cfg.slug()
        lines = runs.greedy_run(cfg, out, command, pool, progress=not args.no_progress)
    print("\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "joker-study",
        help="the joker study of one Zwicker variant: report, figures, numbers",
        description=(
            "Value of holding each joker (joker-swap replays and conditioning), joker policies in "
            "duplicate tournaments and where the strongest agent plays its jokers, and what the joker "
            "rules do (joker counts, Grupp's table-joker options). Runtime at the defaults, measured on 2 cores "
            "at load average 6-9 (Python 3.11, numba 0.68): in one process about 7 minutes for dithmarschen and grupp and 10-25 "
            "minutes for christiansen and grossenwiehe; --workers 2 runs the parts in parallel (christiansen: "
            "226 s instead of 381 s); --quick 2-4 minutes, mostly compiling."
        ),
    )
    add_game_args(p, default_game=None, games='zwicker or a zwicker game string such as "zwicker(variant=grupp)"')
    p.add_argument("--deals", type=int, default=None, help="compiled deals per measurement (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="seed of every deal (default 0)")
    p.add_argument(
        "--strong",
        default="auto",
        help="agent spec of the strong agent (default auto: ismcts:iters=500,rollout=greedy when registered)",
    )
    p.add_argument("--strong-deals", type=int, default=None, help="OpenSpiel deals of the strong agent (default 20)")
    p.add_argument(
        "--out", default=None,
        help="output directory (default results/joker-study/<variant>; the committed results are "
        "experiments/results/joker-study/<variant>)",
    )  # fmt: skip
    p.add_argument("--backend", default="local", help="where the parts run: local (default) or ray")
    p.add_argument("--workers", type=int, default=1, help="parallel worker processes for the study's parts (default 1)")
    p.add_argument("--address", default=None, help="Ray cluster address (ray backend only)")
    p.add_argument(
        "--contrast", action="append", default=None, metavar="A,B",
        help="part 2: also report the paired difference A − B of two policies on the same deals "
        "(repeatable; early,hold is always reported), e.g. --contrast min_points:k=6,greedy",
    )  # fmt: skip
    p.add_argument("--quick", action="store_true", help=f"small budget: {QUICK_DEALS} deals, 2 strong-agent deals")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--micro-cfr",
        action="store_true",
        help="part 4 instead: solve the micro games with CFR+ (is holding the joker optimal?), about 4 minutes",
    )
    p.add_argument(
        "--strong-play",
        default=None,
        metavar="SPEC",
        help="the study with a strong agent at every seat instead: net (compiled, default 2000 deals) or "
        "expert:time=0,iters=N,... (default 200 deals); joker rules on its own choice, joker values, joker use; "
        "resumes from its JSONL in the output folder",
    )
    p.add_argument(
        "--cv-samples",
        type=int,
        default=None,
        help="strong play: stock orders drawn per chance event for the control variate (default 8; 0 = none)",
    )
    p.add_argument(
        "--cv-model",
        choices=("value", "after"),
        default=None,
        help="strong play: the control variate's model, the shipped value model (default) or the after network "
        "of zwick train net",
    )
    p.add_argument(
        "--summary", action="store_true", help="write README.md with one table over the studies under --out instead"
    )
    p.set_defaults(func=cmd_joker_study)

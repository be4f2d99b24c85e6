"""``zwick joker-study``: the joker study of one Zwicker variant (:mod:`zwick_ai.analysis.joker`; what
the command asks of it: :mod:`zwick_ai.analysis.joker.runs`).

Writes ``report.md``, PNG figures and ``results.json`` to
``results/joker-study/<variant>[-option-value...]/``, or to ``--out`` (the committed results:
``--out experiments/results/joker-study/<variant>``).
"""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from zwick_ai.cli.game_args import add_game_args
from zwick_ai.cli.paths import check_out_folder

if TYPE_CHECKING:
    from zwick_ai.zwicker.rules import Rules

#: where a study goes without --out: beside the tournaments' results, never into the committed
#: experiments/results (write there by naming it with --out)
DEFAULT_OUT = Path("results/joker-study")
QUICK_DEALS = 300


def command_text(args: argparse.Namespace, variant: str, options: dict[str, object]) -> str:
    """The command line that reproduces this run (every option given, progress flags left out)."""
    from zwick_ai.analysis.joker.runs import command_words

    words = command_words(variant, options)
    for flag in ("deals", "seed", "strong", "strong_deals", "out", "backend", "workers", "address"):
        value = getattr(args, flag)
        default = {"seed": 0, "strong": "auto", "backend": "local", "workers": 1}.get(flag)
        if value is not None and value != default:
            words += ["--" + flag.replace("_", "-"), str(value)]
    for pair in args.contrast or []:
        words += ["--contrast", pair]
    if args.quick:
        words.append("--quick")
    return " ".join(shlex.quote(w) for w in words)


def strong_command(args: argparse.Namespace, variant: str, options: dict[str, object], deals: int) -> str:
    """The command line that reproduces (or continues) a strong-play run."""
    from zwick_ai.analysis.joker.runs import command_words

    words = command_words(variant, options) + ["--strong-play", args.strong_play, "--deals", str(deals)]
    for flag, value in (("seed", args.seed or None), ("cv-samples", args.cv_samples), ("cv-model", args.cv_model),
                        ("out", args.out)):  # fmt: skip
        if value is not None:
            words += ["--" + flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def refuse_ignored(args: argparse.Namespace) -> None:
    """Options the chosen kind of run would ignore are refused, naming the kind."""
    game = [x for x in ("variant", "game", "players", "option") if getattr(args, x) is not None]
    study = [x for x in ("deals", "strong_deals", "contrast") if getattr(args, x) is not None]
    study += [x for x, default in (("seed", 0), ("strong", "auto")) if getattr(args, x) != default]
    runs = [
        x for x, default in (("backend", "local"), ("workers", 1), ("address", None)) if getattr(args, x) != default
    ]
    kinds = [flag for flag, on in (("--micro-cfr", args.micro_cfr), ("--summary", args.summary)) if on]
    if len(kinds) > 1:
        raise ValueError("give --micro-cfr or --summary, not both")
    ignored: list[str] = []
    if kinds:
        ignored = game + study + runs + (["strong_play"] if args.strong_play else [])
        ignored += [x for x in ("cv_samples", "cv_model") if getattr(args, x) is not None]
        ignored += ["quick"] if args.summary and args.quick else []
    elif args.strong_play:
        ignored = [x for x in ("strong", "strong_deals", "contrast") if x in study]
    else:
        ignored = [x for x in ("cv_samples", "cv_model") if getattr(args, x) is not None]
    if ignored:
        kind = kinds[0] if kinds else ("--strong-play" if args.strong_play else "the greedy study")
        names = ", ".join("--" + x.replace("_", "-") for x in ignored)
        raise ValueError(f"{names}: not used by {kind}; leave {'them' if len(ignored) > 1 else 'it'} out")


def cmd_joker_study(args: argparse.Namespace) -> int:
    from zwick_ai.analysis.joker import runs
    from zwick_ai.analysis.joker.report import called_best, write_study
    from zwick_ai.analysis.joker.study import StudyConfig, run_study
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder
    from zwick_ai.eval.report import ci_text

    refuse_ignored(args)
    if args.out:
        check_out_folder(args.out)
    if args.micro_cfr:
        out = (Path(args.out) if args.out else DEFAULT_OUT) / "micro-cfr"
        command = runs.MICRO_COMMAND + (f" --out {shlex.quote(args.out)}" if args.out else "")
        command += " --quick" if args.quick else ""
        with hold_results_folder(out, runs.MICRO_COMMAND):
            print(runs.write_micro(out, args.quick, command, lambda games: tqdm(games, disable=args.no_progress,
                                                                                desc="micro CFR")))  # fmt: skip
        return 0
    if args.summary:
        root = Path(args.out) if args.out else DEFAULT_OUT
        if not root.is_dir():
            raise ValueError(f"{root} does not exist: there are no studies to summarise")
        with hold_results_folder(root, runs.SUMMARY_COMMAND):
            print(runs.write_summary(root))
        return 0
    if args.variant is None and args.game is None:
        raise ValueError("give --variant (dithmarschen, grossenwiehe, christiansen or grupp) or --summary")

    rules = runs.study_rules(args.game, args.variant, args.players, args.option or [])
    if args.strong_play:
        return cmd_strong_play(args, rules)
    cfg = StudyConfig(
        variant=rules.variant,
        options=dict(rules.options),  # typed, checked
        deals=args.deals if args.deals is not None else (QUICK_DEALS if args.quick else 10000),
        seed=args.seed,
        strong=args.strong,
        strong_deals=args.strong_deals if args.strong_deals is not None else (2 if args.quick else 20),
        contrasts=runs.contrast_pairs(args.contrast or []),
    )
    cfg.rules()  # bad variants and options fail here, before anything runs
    out = Path(args.out) if args.out else DEFAULT_OUT / cfg.slug()
    check_results_folder(out, runs.COMMAND)
    with hold_results_folder(out, runs.COMMAND):
        start = time.perf_counter()
        res = run_study(
            cfg, progress=not args.no_progress, backend=args.backend, workers=args.workers, address=args.address
        )
        res["config"]["total_seconds"] = time.perf_counter() - start
        files = write_study(res, out, command_text(args, cfg.variant, cfg.options))
    p2 = res["part2"]
    lead = p2["best_vs_second"]
    if called_best(p2) is None:
        print(f"{cfg.slug()}: no best joker policy: {', '.join(p2['tied'])} tie "
              f"(lead of {p2['best']} over {lead['second']} {ci_text(lead['lead'], 3)} points per deal)")  # fmt: skip
    else:
        print(f"{cfg.slug()}: best joker policy {p2['best']} "
              f"(lead over {lead['second']} {ci_text(lead['lead'], 3)} points per deal)")  # fmt: skip
    print(f"wrote {len(files)} files to {out} in {res['config']['total_seconds']:.0f} s")
    return 0


def cmd_strong_play(args: argparse.Namespace, rules: Rules) -> int:
    """``--strong-play SPEC``: the joker study with ``net`` or ``expert`` at every seat
    (:mod:`zwick_ai.analysis.joker.strong_play`), resumable, into the same folder as the greedy study."""
    from zwick_ai.analysis.joker import runs, strong_play
    from zwick_ai.analysis.joker.report import strong_best_text
    from zwick_ai.backends import BackendRequest
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder

    strong_play.check_outside(args.strong_play, rules)  # someone else's agent: first in a process of its own
    deals = runs.strong_deals(args.strong_play, args.deals, args.quick)
    cfg = strong_play.StrongConfig(
        variant=rules.variant,
        options=dict(rules.options),
        agent=args.strong_play,
        deals=deals,
        seed=args.seed,
        cv_samples=strong_play.DEFAULT_CV_SAMPLES if args.cv_samples is None else args.cv_samples,
        cv_model=args.cv_model or "value",
    )
    cfg.rules()  # bad specs fail here, before anything runs
    slug = "-".join([rules.variant] + [f"{k}-{v}" for k, v in sorted(cfg.options.items())])
    out = Path(args.out) if args.out else DEFAULT_OUT / slug
    check_results_folder(out, runs.COMMAND)
    with hold_results_folder(out, runs.COMMAND):
        bar = tqdm(total=deals, unit="deal", disable=args.no_progress, desc=f"{slug} {args.strong_play}")
        command = strong_command(args, rules.variant, cfg.options, deals)
        pool = BackendRequest(args.backend, args.workers, args.address)

        def tick(n: int) -> None:
            bar.update(n)

        path, summary, files = runs.strong_study(cfg, out, command, pool, progress=tick)
        bar.close()
    use = strong_best_text(summary["best_policy"]).replace("`", "")
    print(f"{slug} {args.strong_play}: {summary['deals']} deals; best joker use {use}")
    print(f"wrote {', '.join(str(f) for f in files)} ({path} holds the deals)")
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

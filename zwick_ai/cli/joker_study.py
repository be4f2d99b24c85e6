"""``zwick joker-study``: the joker study of one Zwicker variant (:mod:`zwick_ai.analysis.joker_study`).

Writes ``report.md``, PNG figures and ``results.json`` to
``results/joker-study/<variant>[-option-value...]/``, or to ``--out`` (the committed results:
``--out experiments/results/joker-study/<variant>``).
"""

from __future__ import annotations

import argparse
import json
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
    from zwick_ai.options import format_value
    from zwick_ai.zwicker.rules import format_jokers

    words = ["zwick", "joker-study", "--variant", variant]
    for name, value in sorted(options.items()):
        text = format_jokers(value) if name == "jokers" else format_value(value)  # type: ignore[arg-type]
        words += ["-o", f"{name}={text}"]
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


def contrast_pairs(texts: list[str]) -> list[list[str]]:
    """The part-2 contrasts: ``early − hold`` always, then each ``--contrast A,B`` not yet in.

    >>> contrast_pairs(["min_points:k=6,greedy", "early,hold"])
    [['early', 'hold'], ['min_points:k=6', 'greedy']]
    """
    from zwick_ai.analysis.joker.measure import DEFAULT_CONTRASTS

    out = [list(c) for c in DEFAULT_CONTRASTS]
    for text in texts:
        parts = [x.strip() for x in text.split(",")] if text.count(",") == 1 else []
        if len(parts) != 2 or not all(parts):
            raise ValueError(
                f"--contrast {text!r}: give two policies separated by one comma, e.g. --contrast early,hold"
            )
        if parts not in out:
            out.append(parts)
    return out


def study_rules(args: argparse.Namespace) -> Rules:
    """The Zwicker rules of ``--game``/``--variant``/``-o`` (the study plays a variant's own player
    count, so ``--players`` must be that or absent)."""
    from zwick_ai import cards
    from zwick_ai.games.game_strings import game_spec
    from zwick_ai.games.zwicker_params import rules_from_params
    from zwick_ai.options import format_value
    from zwick_ai.zwicker.rules import format_jokers

    name, params = game_spec(args.game or "zwicker", args.variant, args.players, args.option or [])
    if name != "zwicker":
        raise ValueError(f"the joker study is about Zwicker, not {name}")
    from zwick_ai.analysis.joker.deals import STUDY_VARIANTS

    rules, _ = rules_from_params(params)
    if rules.variant not in STUDY_VARIANTS:
        raise ValueError(f"the joker study covers {', '.join(STUDY_VARIANTS)}, not {rules.variant!r}")
    default = rules_from_params({"variant": rules.variant})[0].players
    if rules.players != default:
        raise ValueError(f"the joker study plays {rules.variant} with its own {default} players, not {rules.players}")
    if not any(cards.is_valued_joker(card) or cards.is_wild_joker(card) for card in rules.deck):
        given = " ".join(f"-o {key}={format_jokers(value) if key == 'jokers' else format_value(value)}"  # type: ignore[arg-type]
                         for key, value in rules.options)  # fmt: skip
        raise ValueError(
            f"{' '.join([rules.variant, given]).strip()} has no joker in its deck: there is no joker to study"
        )
    return rules


#: the commands named in the marks of the study's folders (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick joker-study"
MICRO_COMMAND = "zwick joker-study --micro-cfr"
SUMMARY_COMMAND = "zwick joker-study --summary"


def _study_made_before_marks(out: Path) -> bool:
    """A study folder made before folders were marked: its results.json or a strong-play JSONL."""
    return (out / "results.json").is_file() or any(out.glob("*.jsonl"))


def _root_made_before_marks(root: Path) -> bool:
    """A folder of studies made before folders were marked: a study in a subfolder."""
    return any((sub / "results.json").is_file() for sub in root.iterdir())


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
    from zwick_ai.analysis.joker.report import write_study
    from zwick_ai.analysis.joker.study import StudyConfig, run_study
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder

    refuse_ignored(args)
    if args.out:
        check_out_folder(args.out)
    if args.micro_cfr:
        out = (Path(args.out) if args.out else DEFAULT_OUT) / "micro-cfr"
        with hold_results_folder(out, MICRO_COMMAND, legacy=_study_made_before_marks):
            return _micro(args, out)
    if args.summary:
        root = Path(args.out) if args.out else DEFAULT_OUT
        if not root.is_dir():
            raise ValueError(f"{root} does not exist: there are no studies to summarise")
        with hold_results_folder(root, SUMMARY_COMMAND, legacy=_root_made_before_marks):
            return _summary(root)
    if args.variant is None and args.game is None:
        raise ValueError("give --variant (dithmarschen, grossenwiehe, christiansen or grupp) or --summary")

    rules = study_rules(args)
    if args.strong_play:
        return cmd_strong_play(args, rules)
    cfg = StudyConfig(
        variant=rules.variant,
        options=dict(rules.options),  # typed, checked
        deals=args.deals if args.deals is not None else (QUICK_DEALS if args.quick else 10000),
        seed=args.seed,
        strong=args.strong,
        strong_deals=args.strong_deals if args.strong_deals is not None else (2 if args.quick else 20),
        contrasts=contrast_pairs(args.contrast or []),
    )
    cfg.rules()  # bad variants and options fail here, before anything runs
    out = Path(args.out) if args.out else DEFAULT_OUT / cfg.slug()
    check_results_folder(out, COMMAND, legacy=_study_made_before_marks)
    with hold_results_folder(out, COMMAND, legacy=_study_made_before_marks):
        start = time.perf_counter()
        res = run_study(
            cfg, progress=not args.no_progress, backend=args.backend, workers=args.workers, address=args.address
        )
        res["config"]["total_seconds"] = time.perf_counter() - start
        command = command_text(args, cfg.variant, cfg.options)
        files = write_study(res, out, command)
    p2 = res["part2"]
    from zwick_ai.analysis.joker.report import called_best
    from zwick_ai.eval.report import ci_text

    lead = p2["best_vs_second"]
    if called_best(p2) is None:
        print(f"{cfg.slug()}: no best joker policy: {', '.join(p2['tied'])} tie "
              f"(lead of {p2['best']} over {lead['second']} {ci_text(lead['lead'], 3)} points per deal)")  # fmt: skip
    else:
        print(f"{cfg.slug()}: best joker policy {p2['best']} "
              f"(lead over {lead['second']} {ci_text(lead['lead'], 3)} points per deal)")  # fmt: skip
    print(f"wrote {len(files)} files to {out} in {res['config']['total_seconds']:.0f} s")
    return 0


def _micro(args: argparse.Namespace, out: Path) -> int:
    """``--micro-cfr``: part 4 into ``out``."""
    from zwick_ai.analysis.micro_cfr import MICRO_GAMES, micro_cfr, micro_markdown

    iterations = 50 if args.quick else 400
    results = [micro_cfr(g, iterations) for g in tqdm(MICRO_GAMES, disable=args.no_progress, desc="micro CFR")]
    command = "zwick joker-study --micro-cfr" + (f" --out {shlex.quote(args.out)}" if args.out else "")
    command += " --quick" if args.quick else ""
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "report.md").write_text(micro_markdown(results, command))
    print(micro_markdown(results, command))
    return 0


def _summary(root: Path) -> int:
    """``--summary``: ``README.md`` over the studies under ``root``."""
    from zwick_ai.analysis.joker.report import summary_markdown

    text = summary_markdown(root)
    if (root / "micro-cfr" / "report.md").exists():
        text += "\n\nPart 4, exact answers on micro variants (CFR+): [micro-cfr/report.md](micro-cfr/report.md)."
    (root / "README.md").write_text(
        "# Joker study: summary\n\nWritten by `zwick joker-study --summary` from every `*/results.json` "
        "below; each study's report has its command, its deal counts and its figures.\n\n" + text + "\n"
    )
    print(text)
    return 0


def strong_command(args: argparse.Namespace, variant: str, options: dict[str, object], deals: int) -> str:
    """The command line that reproduces (or continues) a strong-play run."""
    from zwick_ai.options import format_value
    from zwick_ai.zwicker.rules import format_jokers

    words = ["zwick", "joker-study", "--variant", variant]
    for name, value in sorted(options.items()):
        text = format_jokers(value) if name == "jokers" else format_value(value)  # type: ignore[arg-type]
        words += ["-o", f"{name}={text}"]
    words += ["--strong-play", args.strong_play, "--deals", str(deals)]
    if args.seed:
        words += ["--seed", str(args.seed)]
    if args.cv_samples is not None:
        words += ["--cv-samples", str(args.cv_samples)]
    if args.cv_model is not None:
        words += ["--cv-model", args.cv_model]
    if args.out:
        words += ["--out", args.out]
    return " ".join(shlex.quote(w) for w in words)


def cmd_strong_play(args: argparse.Namespace, rules: Rules) -> int:
    """``--strong-play SPEC``: the joker study with ``net`` or ``expert`` at every seat
    (:mod:`zwick_ai.analysis.joker.strong_play`), resumable, into the same folder as the greedy study."""
    from zwick_ai.agents.base import agent_params
    from zwick_ai.analysis.joker import strong_play, strong_report, strong_stats
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder

    strong_play.check_outside(args.strong_play, rules)  # someone else's agent: first in a process of its own
    kind = agent_params(args.strong_play)[0].name
    quick = {"net": 60, "expert": 3}
    deals = args.deals if args.deals is not None else (quick if args.quick else strong_play.DEFAULT_DEALS).get(kind, 2)
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
    check_results_folder(out, COMMAND, legacy=_study_made_before_marks)
    with hold_results_folder(out, COMMAND, legacy=_study_made_before_marks):
        bar = tqdm(total=deals, unit="deal", disable=args.no_progress, desc=f"{slug} {args.strong_play}")
        start = time.perf_counter()

        def tick(n: int) -> None:
            bar.update(n)

        path, lines = strong_play.run_strong(cfg, out, args.backend, args.workers, args.address, progress=tick)
        bar.close()
        summary = strong_stats.summarize(cfg, lines, path.name)
        summary["wall_seconds_this_call"] = time.perf_counter() - start
        files = strong_report.write_strong(out, cfg, summary, strong_command(args, rules.variant, cfg.options, deals))
    from zwick_ai.analysis.joker.report import strong_best_text

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

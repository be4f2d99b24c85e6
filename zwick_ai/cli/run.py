"""``zwick run FILE.toml``: run the tournaments an experiment file describes (``experiments/``).

An experiment is one game, a list of agent specs and one tournament per variant, with the same
deals and seed; the results go to ``out/<variant>/`` (each an ordinary ``zwick tournament``
folder, resumable) and a table of ratings, agents by variants, to ``out/table.md``. The file's keys
are checked in :mod:`zwick_ai.eval.experiment_files` (its table of keys; ``experiments/README.md``
has a commented example); the tournaments run through :func:`zwick_ai.eval.orchestrate.run_experiment`.
"""

from __future__ import annotations

import argparse
import sys

from zwick_ai.cli.run_options import add_agent_rule_args, add_run_args, agent_rules, default_workers


def cmd_run(args: argparse.Namespace) -> int:
    from zwick_ai.eval.agent_failures import EXIT_AGENT_FAILED
    from zwick_ai.eval.experiment_files import load_experiment
    from zwick_ai.eval.orchestrate import TournamentRequest, run_experiment
    from zwick_ai.interrupts import reclaim

    spec = load_experiment(args.file)
    workers = next(w for w in (args.workers, spec.workers, default_workers()) if w is not None)
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    where = TournamentRequest(
        spec.game, None, None, [], spec.agents, spec.deals,
        rules=spec.rules | agent_rules(args),  # the command line's options override the file's keys
        workers=workers, backend=args.backend or spec.backend, address=args.address or spec.address, quiet=args.quiet,
    )  # fmt: skip
    summaries = run_experiment(spec, str(args.file), where, reclaim)
    if summaries is None:
        return 130
    forfeited = {label: s for label, s in summaries.items() if s.get("forfeits")}
    for label, summary in forfeited.items():
        print(
            f"{label}: {len(summary['forfeits'])} games forfeited by failing agents (forfeits.jsonl)", file=sys.stderr
        )
    return EXIT_AGENT_FAILED if forfeited else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run`` to the ``zwick`` command."""
    p = sub.add_parser(
        "run",
        help="run the tournaments of an experiment file (experiments/*.toml)",
        description="Run one tournament per variant of an experiment TOML file (keys: see "
        "experiments/README.md) into out/<variant>/, then write out/table.md: ratings of agents by "
        "variants. Resumable like zwick tournament.",
        epilog="examples:\n  zwick run experiments/smoke.toml\n  zwick run experiments/headline.toml --workers 2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="experiment TOML file")
    add_run_args(p, from_file=True)
    add_agent_rule_args(p, from_file=True)
    p.set_defaults(func=cmd_run)

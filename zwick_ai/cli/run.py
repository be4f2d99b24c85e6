"""``zwick run FILE.toml``: run the tournaments an experiment file describes (``experiments/``).

An experiment is one game, a list of agent specs and one tournament per variant, with the same
deals and seed; the results go to ``out/<variant>/`` (each an ordinary ``zwick tournament``
folder, resumable) and a table of ratings, agents by variants, to ``out/table.md``. Keys
(``experiments/README.md`` has a commented example):

=============  ==================================================================================
key            meaning
=============  ==================================================================================
description    one line shown in ``table.md`` (optional)
game           ``zwicker`` (default), ``zwikken`` or ``zwicken``
variants       list of variants (or ``variant`` for one); none for ``zwicken``
players        number of players (default: each variant's), or a table by variant: {classic = 2}
options        table of rule options (``-o`` of ``zwick tournament``)
agents         list of agent specs (required, at least two)
deals          duplicate deals per variant (required)
seed           seed of the deals and agents (default 0)
out            results folder (default ``results/<file name>``)
workers        worker processes (default: as ``zwick tournament``; ``--workers`` overrides)
backend        ``local`` (default) or ``ray``; ``address`` for an existing Ray cluster
move_time_limit, start_time_limit, on_agent_error
               the rules of agents from outside the package, as ``zwick tournament``'s options
               (default 60, 120, ``"stop"``; the same command-line options override them)
=============  ==================================================================================

>>> spec = parse_experiment({"agents": ["greedy", "random"], "deals": 4, "variants": ["classic"]}, "x")
>>> spec["variants"], spec["out"], spec["seed"]
(['classic'], 'results/x', 0)
>>> parse_experiment({"agents": ["greedy"], "deals": 4, "colour": "red"}, "x")
Traceback (most recent call last):
...
ValueError: x: unknown key 'colour'; valid keys: address, agents, backend, deals, description, game, options, out, players, seed, variant, variants, workers, move_time_limit, start_time_limit, on_agent_error
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from zwick_ai.cli.defaults import AGENT_RULE_KEYS, MAX_DEALS, MAX_WORKERS
from zwick_ai.cli.paths import check_out_folder, read_toml, whole_number
from zwick_ai.cli.tournament import (
    add_agent_rule_args,
    add_run_args,
    agent_rules,
    default_workers,
    prepare,
    run_prepared,
)

#: the command named in the mark of an experiment's folder (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick run"
KEYS = (
    "address",
    "agents",
    "backend",
    "deals",
    "description",
    "game",
    "options",
    "out",
    "players",
    "seed",
    "variant",
    "variants",
    "workers",
    *AGENT_RULE_KEYS,
)


def parse_experiment(data: dict[str, Any], name: str) -> dict[str, Any]:
    """Check an experiment's keys and types; fill in the defaults (``name``: the file's stem)."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"{name}: unknown key {unknown[0]!r}; valid keys: {', '.join(KEYS)}")
    for key in ("agents", "deals"):
        if key not in data:
            raise ValueError(f"{name}: the key {key!r} is required")
    agents = data["agents"]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ValueError(f'{name}: agents must be a list of spec strings, e.g. ["ismcts:iters=200", "random"]')
    if "variant" in data and "variants" in data:
        raise ValueError(f"{name}: give variant or variants, not both")
    variants = data.get("variants", [data["variant"]] if "variant" in data else [None])
    if not isinstance(variants, list) or not variants:
        raise ValueError(f"{name}: variants must be a non-empty list of variant names")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"{name}: options must be a table of name = value")
    players = data.get("players")
    if isinstance(players, dict):
        extra = sorted(set(players) - {str(v) for v in variants})
        if extra:
            raise ValueError(f"{name}: players names {extra[0]!r}, which is not one of the variants {variants}")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in players.values()):
            raise ValueError(f"{name}: players per variant must be whole numbers")
    elif players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise ValueError(f"{name}: players must be a whole number or a table by variant, not {players!r}")
    for key, low, high in (("deals", 1, MAX_DEALS), ("seed", 0, 2**32 - 1), ("workers", 1, MAX_WORKERS)):
        if key in data:
            whole_number(data[key], f"{name}: {key}", low, high)
    if data.get("backend", "local") not in ("local", "ray"):
        raise ValueError(f"{name}: backend must be local or ray, not {data['backend']!r}")
    from zwick_ai.eval.agent_failures import checked_rules

    rules = checked_rules({k: data[k] for k in AGENT_RULE_KEYS if k in data}, name)
    return {
        "description": str(data.get("description", "")),
        "game": str(data.get("game", "zwicker")),
        "variants": variants,
        "players": players if isinstance(players, dict) else {str(v): players for v in variants},
        "options": options,
        "agents": agents,
        "deals": data["deals"],
        "seed": data.get("seed", 0),
        "out": str(data.get("out", f"results/{name}")),
        "workers": data.get("workers", default_workers()),
        "backend": str(data.get("backend", "local")),
        "address": data.get("address"),
        "rules": rules,
    }


def load_experiment(path: str | Path) -> dict[str, Any]:
    """Read and check an experiment TOML file."""
    p = Path(path)
    return parse_experiment(read_toml(p, "experiment"), p.stem)


def ratings_table(spec: dict[str, Any], summaries: dict[str, dict[str, Any]]) -> str:
    """Markdown: agents (rows) by variants (columns), in each cell the points rating with its 95%
    CI (what the tables rank by) and the Bradley–Terry rating on deals won beside it."""
    from zwick_ai.eval.report import markdown_table

    cols = list(summaries)
    rows = []
    for agent in spec["agents"]:
        cells = []
        for v in cols:
            points = summaries[v].get("points_ratings") or []
            p = next((x for x in points if x["agent"] == agent), None)
            r = next(x for x in summaries[v]["ratings"] if x["agent"] == agent)
            lo, hi = r["ci95"]
            wins = f"{r['rating']:.0f}" + (f" [{lo:.0f}, {hi:.0f}]" if lo is not None and hi is not None else "")
            if p is None:
                cells.append(wins)
                continue
            plo, phi = p["ci95"]
            ci = f" [{plo:+.2f}, {phi:+.2f}]" if plo is not None and phi is not None else ""
            cells.append(f"{p['rating']:+.2f}{ci}; wins {wins}")
        rows.append([f"`{agent}`", *cells])
    return "\n".join(markdown_table(["agent", *cols], rows))


def verdict_section(summaries: dict[str, dict[str, Any]]) -> list[str]:
    """Every variant's verdicts in words (:func:`zwick_ai.eval.tournament.verdict_lines`), points
    and wins together, with the disagreements first."""
    from zwick_ai.eval.verdict import disagreement_lines

    out = ["## Verdicts", ""]
    for v, summary in summaries.items():
        verdicts = [p["verdict"] for p in summary["pairs"]]
        out += [f"**{v}**", "", *disagreement_lines(verdicts), *(f"- {x['text']}" for x in verdicts), ""]
    return out


def cmd_run(args: argparse.Namespace) -> int:
    spec = load_experiment(args.file)
    workers = args.workers if args.workers is not None else spec["workers"]
    backend = args.backend or spec["backend"]
    address = args.address or spec["address"]
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    rules = spec["rules"] | agent_rules(args)  # the command line's options override the file's keys
    # Every variant's tournament (variant, players, options, agents) and folder is checked before
    # the first game: a mistake in the last variant must not wait for the first variant's games.
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder

    check_out_folder(spec["out"], f"{args.file}: out")
    check_results_folder(spec["out"], COMMAND, legacy=made_before_marks, what="out")
    prepared = {}
    for variant in spec["variants"]:
        label = variant or spec["game"]
        if label in prepared:
            raise ValueError(f"{args.file}: the variant {label!r} is listed twice")
        try:
            prepared[label] = prepare(
                spec["game"],
                variant,
                spec["players"].get(str(variant)),
                list(spec["options"].items()),
                spec["agents"],
                spec["deals"],
                spec["seed"],
                str(Path(spec["out"]) / label),
                rules=rules,
            )
        except ValueError as error:
            raise ValueError(f"{args.file}: {label}: {error}") from None
    with hold_results_folder(spec["out"], COMMAND, legacy=made_before_marks, what="out"):
        return run_all(args, spec, prepared, workers, backend, address)


def made_before_marks(out: Path) -> bool:
    """An experiment's folder made before folders were marked: a variant's tournament in it."""
    return any((sub / "config.json").is_file() for sub in out.iterdir())


def run_all(
    args: argparse.Namespace,
    spec: dict[str, Any],
    prepared: dict[str, tuple[Any, str]],
    workers: int,
    backend: str,
    address: str | None,
) -> int:
    """Run the checked tournaments of an experiment one after the other, then write ``table.md``."""
    summaries: dict[str, dict[str, Any]] = {}
    for label, (t, folder) in prepared.items():
        summary = run_prepared(t, folder, workers, backend, address, args.quiet)
        if summary is None:
            return 130
        summaries[label] = summary
    deals = spec["deals"]
    text = [
        f"# {Path(args.file).stem}",
        "",
        spec["description"],
        "",
        f"Ranked by points a deal: each agent's points rating (least squares on the pairs' mean per-deal "
        "differences, mean 0 per column) with its 95% bootstrap CI; then Bradley–Terry on deals won (Elo scale, "
        f"mean 0) with its CI. {spec['game']}, {deals} duplicate deals per variant, seed {spec['seed']}.",
        "",
        ratings_table(spec, summaries),
        "",
        *verdict_section(summaries),
        f"Command: `zwick run {args.file}`; per-variant reports: "
        + ", ".join(f"[{v}]({v}/report.md)" for v in summaries),
    ]
    out = Path(spec["out"]) / "table.md"
    out.write_text("\n".join(text) + "\n")
    print("\n".join(text[6:7]))
    print(f"\nwrote {out}")
    forfeited = {label: s for label, s in summaries.items() if s.get("forfeits")}
    for label, summary in forfeited.items():
        print(
            f"{label}: {len(summary['forfeits'])} games forfeited by failing agents (forfeits.jsonl)", file=sys.stderr
        )
    return 3 if forfeited else 0  # zwick_ai.eval.agent_failures.EXIT_AGENT_FAILED, as zwick tournament


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

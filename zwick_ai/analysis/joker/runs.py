"""The study's runs as ``zwick joker-study`` asks for them: the rules of a game spec checked (a
Zwicker variant with jokers, at its own player count), the part-2 contrasts, the words of the
command line that reproduces a run, and the two runs that are not a variant's study (part 4's
micro games solved with CFR+, the summary over the studies).

>>> contrast_pairs(["min_points:k=6,greedy", "early,hold"])
[['early', 'hold'], ['min_points:k=6', 'greedy']]
>>> command_words("grupp", {"jokers": (15,), "forced_capture": False})
['zwick', 'joker-study', '--variant', 'grupp', '-o', 'forced_capture=false', '-o', 'jokers=x15']
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zwick_ai.backends import ONE_LOCAL_WORKER, BackendRequest

if TYPE_CHECKING:
    from zwick_ai.analysis.joker.strong_play import Progress, StrongConfig
    from zwick_ai.zwicker.rules import Rules

#: the commands named in the marks of the study's folders (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick joker-study"
MICRO_COMMAND = "zwick joker-study --micro-cfr"
SUMMARY_COMMAND = "zwick joker-study --summary"
#: CFR+ iterations of each micro game, and of a quick run
MICRO_ITERATIONS = 400
QUICK_MICRO_ITERATIONS = 50
#: a quick strong-play run's deals, by agent kind
QUICK_STRONG_DEALS = {"net": 60, "expert": 3}


def study_rules(
    game_string: str | None, variant: str | None, players: int | None, options: Iterable[tuple[str, Any]]
) -> Rules:
    """The Zwicker rules of a game spec (``--game``/``--variant``/``--players``/``-o``); the study
    plays a variant's own player count, so ``players`` must be that or None, and its deck must hold
    a joker."""
    from zwick_ai import cards
    from zwick_ai.analysis.joker.deals import STUDY_VARIANTS
    from zwick_ai.games.game_strings import game_spec
    from zwick_ai.games.zwicker_params import rules_from_params
    from zwick_ai.options import format_value
    from zwick_ai.zwicker.rules import format_jokers

    name, params = game_spec(game_string or "zwicker", variant, players, options)
    if name != "zwicker":
        raise ValueError(f"the joker study is about Zwicker, not {name}")
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


def contrast_pairs(texts: Iterable[str]) -> list[list[str]]:
    """The part-2 contrasts: ``early − hold`` always, then each ``A,B`` of ``texts`` not yet in."""
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


def command_words(variant: str, options: Mapping[str, object]) -> list[str]:
    """The start of the command line of a variant's study: ``zwick joker-study --variant V`` and
    its options (``-o name=value``, sorted by name)."""
    from zwick_ai.options import format_value
    from zwick_ai.zwicker.rules import format_jokers

    words = ["zwick", "joker-study", "--variant", variant]
    for name, value in sorted(options.items()):
        text = format_jokers(value) if name == "jokers" else format_value(value)  # type: ignore[arg-type]
        words += ["-o", f"{name}={text}"]
    return words


def write_micro(out: Path, quick: bool, command: str, each: Callable[[Iterable[Any]], Iterable[Any]] = iter) -> str:
    """Part 4 into ``out``: every micro game solved with CFR+ (fewer iterations when ``quick``;
    ``each`` wraps the games, e.g. in a progress bar), ``results.json`` and ``report.md``;
    returns the report."""
    from zwick_ai.analysis.micro_cfr import MICRO_GAMES, micro_cfr, micro_markdown

    iterations = QUICK_MICRO_ITERATIONS if quick else MICRO_ITERATIONS
    results = [micro_cfr(g, iterations) for g in each(MICRO_GAMES)]
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    text = micro_markdown(results, command)
    (out / "report.md").write_text(text)
    return text


def write_summary(root: Path) -> str:
    """``README.md`` over the studies under ``root``; returns its table and pointers."""
    from zwick_ai.analysis.joker.report import summary_markdown

    text = summary_markdown(root)
    if (root / "micro-cfr" / "report.md").exists():
        text += "\n\nPart 4, exact answers on micro variants (CFR+): [micro-cfr/report.md](micro-cfr/report.md)."
    (root / "README.md").write_text(
        "# Joker study: summary\n\nWritten by `zwick joker-study --summary` from every `*/results.json` "
        "below; each study's report has its command, its deal counts and its figures.\n\n" + text + "\n"
    )
    return text


def strong_deals(spec: str, deals: int | None, quick: bool) -> int:
    """The deals of a strong-play run of agent ``spec``: ``deals`` if given, else its kind's default
    (:data:`~zwick_ai.analysis.joker.strong_play.DEFAULT_DEALS`) or, ``quick``, a few."""
    from zwick_ai.agents.base import agent_params
    from zwick_ai.analysis.joker.strong_play import DEFAULT_DEALS

    kind = agent_params(spec)[0].name
    return deals if deals is not None else (QUICK_STRONG_DEALS if quick else DEFAULT_DEALS).get(kind, 2)


def strong_study(
    cfg: StrongConfig,
    out: Path,
    command: str,
    pool: BackendRequest = ONE_LOCAL_WORKER,
    progress: Progress | None = None,
) -> tuple[Path, dict[str, Any], list[Path]]:
    """The study with ``cfg``'s agent at every seat into ``out``: the deals not yet played, on
    ``pool`` (:func:`~zwick_ai.analysis.joker.strong_play.run_strong`), then its summary and files
    (``command`` reproduces it). Returns the deals' JSONL file, the summary and the files written."""
    from zwick_ai.analysis.joker import strong_play, strong_report, strong_stats

    start = time.perf_counter()
    path, lines = strong_play.run_strong(cfg, out, pool.name, pool.workers, pool.address, progress=progress)
    summary = strong_stats.summarize(cfg, lines, path.name)
    summary["wall_seconds_this_call"] = time.perf_counter() - start
    return path, summary, strong_report.write_strong(out, cfg, summary, command)


__all__ = [
    "COMMAND",
    "MICRO_COMMAND",
    "SUMMARY_COMMAND",
    "command_words",
    "contrast_pairs",
    "strong_deals",
    "strong_study",
    "study_rules",
    "write_micro",
    "write_summary",
]

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
import shlex
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager as ContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zwick_ai.backends import ONE_LOCAL_WORKER, BackendRequest

if TYPE_CHECKING:
    from zwick_ai.analysis.joker.strong_play import Progress, StrongConfig
    from zwick_ai.analysis.joker.study import StudyConfig
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


# ------------------------------------------------------------------------------------------------
# What ``zwick joker-study`` was given (its options by name, ``vars`` of the parsed arguments)
# ------------------------------------------------------------------------------------------------
#: the options whose default a command line leaves out
_FLAG_DEFAULTS: dict[str, object] = {"seed": 0, "strong": "auto", "backend": "local", "workers": 1}


def refuse_ignored(given: Mapping[str, Any]) -> None:
    """Options the chosen kind of run would ignore are refused, naming the kind."""
    game = [x for x in ("variant", "game", "players", "option") if given[x] is not None]
    study = [x for x in ("deals", "strong_deals", "contrast") if given[x] is not None]
    study += [x for x, default in (("seed", 0), ("strong", "auto")) if given[x] != default]
    pool = [x for x, default in (("backend", "local"), ("workers", 1), ("address", None)) if given[x] != default]
    kinds = [flag for flag, on in (("--micro-cfr", given["micro_cfr"]), ("--summary", given["summary"])) if on]
    if len(kinds) > 1:
        raise ValueError("give --micro-cfr or --summary, not both")
    ignored: list[str] = []
    if kinds:
        ignored = game + study + pool + (["strong_play"] if given["strong_play"] else [])
        ignored += [x for x in ("cv_samples", "cv_model") if given[x] is not None]
        ignored += ["quick"] if given["summary"] and given["quick"] else []
    elif given["strong_play"]:
        ignored = [x for x in ("strong", "strong_deals", "contrast") if x in study]
    else:
        ignored = [x for x in ("cv_samples", "cv_model") if given[x] is not None]
    if ignored:
        kind = kinds[0] if kinds else ("--strong-play" if given["strong_play"] else "the greedy study")
        names = ", ".join("--" + x.replace("_", "-") for x in ignored)
        raise ValueError(f"{names}: not used by {kind}; leave {'them' if len(ignored) > 1 else 'it'} out")


def study_command(given: Mapping[str, Any], variant: str, options: Mapping[str, object]) -> str:
    """The command line that reproduces a variant's study (every option given, progress flags left out)."""
    words = command_words(variant, options)
    for flag in ("deals", "seed", "strong", "strong_deals", "out", "backend", "workers", "address"):
        value = given[flag]
        if value is not None and value != _FLAG_DEFAULTS.get(flag):
            words += ["--" + flag.replace("_", "-"), str(value)]
    for pair in given["contrast"] or []:
        words += ["--contrast", pair]
    if given["quick"]:
        words.append("--quick")
    return " ".join(shlex.quote(w) for w in words)


def strong_command(given: Mapping[str, Any], variant: str, options: Mapping[str, object], deals: int) -> str:
    """The command line that reproduces (or continues) a strong-play run."""
    words = command_words(variant, options) + ["--strong-play", given["strong_play"], "--deals", str(deals)]
    for flag, value in (("seed", given["seed"] or None), ("cv-samples", given["cv_samples"]),
                        ("cv-model", given["cv_model"]), ("out", given["out"])):  # fmt: skip
        if value is not None:
            words += ["--" + flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def micro_run(root: Path, given_out: str | None, quick: bool, each: Callable[[Iterable[Any]], Iterable[Any]]) -> str:
    """``--micro-cfr``: part 4 into ``root/micro-cfr`` (held and marked as that command's folder);
    returns the report."""
    from zwick_ai.eval.folder_lock import hold_results_folder

    command = MICRO_COMMAND + (f" --out {shlex.quote(given_out)}" if given_out else "") + (" --quick" if quick else "")
    with hold_results_folder(root / "micro-cfr", MICRO_COMMAND) as out:
        return write_micro(out, quick, command, each)


def summary_run(root: Path) -> str:
    """``--summary``: ``README.md`` over the studies under ``root``, held as that command's folder: a
    folder it marked, or one that holds only studies' folders (and the summary's README.md)."""
    from zwick_ai.eval.folder_lock import hold_results_folder, made_by, mark_folder

    if not root.is_dir():
        raise ValueError(f"{root} does not exist: there are no studies to summarise")
    # the studies' own folder (made when the first study went into a subfolder): the summary's now
    studies = [e for e in root.iterdir() if not e.name.startswith(".zwick") and e.name != "README.md"]
    if made_by(root) is None and studies and all(made_by(e) in (COMMAND, MICRO_COMMAND) for e in studies):
        mark_folder(root, SUMMARY_COMMAND)
    with hold_results_folder(root, SUMMARY_COMMAND):
        return write_summary(root)


def study_config(rules: Rules, given: Mapping[str, Any], quick_deals: int) -> StudyConfig:
    """The greedy study of ``rules`` as the options ask for it (checked before anything runs)."""
    from zwick_ai.analysis.joker.study import StudyConfig

    quick = given["quick"]
    cfg = StudyConfig(
        variant=rules.variant,
        options=dict(rules.options),  # typed, checked
        deals=given["deals"] if given["deals"] is not None else (quick_deals if quick else 10000),
        seed=given["seed"],
        strong=given["strong"],
        strong_deals=given["strong_deals"] if given["strong_deals"] is not None else (2 if quick else 20),
        contrasts=contrast_pairs(given["contrast"] or []),
    )
    cfg.rules()  # bad variants and options fail here, before anything runs
    return cfg


def greedy_run(cfg: StudyConfig, out: Path, command: str, pool: BackendRequest, progress: bool) -> list[str]:
    """The greedy study ``cfg`` into ``out`` (``command`` reproduces it) with its parts on
    ``pool``; returns the lines the command prints."""
    from zwick_ai.analysis.joker.report import called_best, write_study
    from zwick_ai.analysis.joker.study import run_study
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder
    from zwick_ai.eval.report import ci_text

    check_results_folder(out, COMMAND)
    with hold_results_folder(out, COMMAND):
        start = time.perf_counter()
        res = run_study(cfg, progress=progress, backend=pool.name, workers=pool.workers, address=pool.address)
        res["config"]["total_seconds"] = time.perf_counter() - start
        files = write_study(res, out, command)
    p2 = res["part2"]
    lead = p2["best_vs_second"]
    lead_text = f"{lead['second']} {ci_text(lead['lead'], 3)} points per deal"
    if called_best(p2) is None:
        first = (
            f"{cfg.slug()}: no best joker policy: {', '.join(p2['tied'])} tie (lead of {p2['best']} over {lead_text})"
        )
    else:
        first = f"{cfg.slug()}: best joker policy {p2['best']} (lead over {lead_text})"
    return [first, f"wrote {len(files)} files to {out} in {res['config']['total_seconds']:.0f} s"]


def strong_config(rules: Rules, given: Mapping[str, Any]) -> StrongConfig:
    """The strong-play run of ``given["strong_play"]`` on ``rules`` as the options ask for it
    (someone else's agent first checked in a process of its own; bad specs refused here)."""
    from zwick_ai.analysis.joker import strong_play

    strong_play.check_outside(given["strong_play"], rules)
    cfg = strong_play.StrongConfig(
        variant=rules.variant,
        options=dict(rules.options),
        agent=given["strong_play"],
        deals=strong_deals(given["strong_play"], given["deals"], given["quick"]),
        seed=given["seed"],
        cv_samples=strong_play.DEFAULT_CV_SAMPLES if given["cv_samples"] is None else given["cv_samples"],
        cv_model=given["cv_model"] or "value",
    )
    cfg.rules()  # bad specs fail here, before anything runs
    return cfg


def strong_slug(cfg: StrongConfig) -> str:
    """The name of a strong-play run's variant and options (its folder's without ``--out``)."""
    return "-".join([cfg.variant] + [f"{k}-{v}" for k, v in sorted(cfg.options.items())])


def strong_run(
    cfg: StrongConfig, out: Path, command: str, pool: BackendRequest, bar: Callable[[], ContextManager[Any]]
) -> list[str]:
    """:func:`strong_study` in ``out``, held as the study's folder, with the progress bar ``bar()``
    (made once the folder is held: a refused run shows none; ``update(n)`` gets the deals done);
    returns the lines the command prints."""
    from zwick_ai.analysis.joker.report import strong_best_text
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder

    check_results_folder(out, COMMAND)
    with hold_results_folder(out, COMMAND), bar() as shown:
        path, summary, files = strong_study(cfg, out, command, pool, progress=shown.update)
    use = strong_best_text(summary["best_policy"]).replace("`", "")
    return [
        f"{strong_slug(cfg)} {cfg.agent}: {summary['deals']} deals; best joker use {use}",
        f"wrote {', '.join(str(f) for f in files)} ({path} holds the deals)",
    ]


__all__ = [
    "COMMAND",
    "MICRO_COMMAND",
    "SUMMARY_COMMAND",
    "command_words",
    "contrast_pairs",
    "greedy_run",
    "micro_run",
    "refuse_ignored",
    "strong_command",
    "strong_config",
    "strong_run",
    "strong_slug",
    "study_command",
    "study_config",
    "summary_run",
    "strong_deals",
    "strong_study",
    "study_rules",
    "write_micro",
    "write_summary",
]

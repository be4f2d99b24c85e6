"""Running the joker study of one variant: its configuration, its independent parts and where
they run (one process or a backend of :mod:`zwick_ai.backends`).

>>> cfg = StudyConfig("dithmarschen", deals=40, strong="greedy", strong_deals=1)
>>> res = run_study(cfg, progress=False)
>>> sorted(res)[:4], res["part1"]["greedy"][0]["joker"]
(['config', 'part1', 'part2', 'part3'], 'X15')
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from tqdm import tqdm

from zwick_ai import zwicker
from zwick_ai.agents.base import registered
from zwick_ai.analysis.joker.deals import STUDY_POLICIES, STUDY_VARIANTS, option_text, study_jokers
from zwick_ai.analysis.joker.measure import (
    DEFAULT_CONTRASTS,
    Progress,
    holding_values,
    policy_study,
    rule_sets,
    rules_study,
    strong_agent_games,
)
from zwick_ai.backends import make_backend
from zwick_ai.eval.selfplay import hand_seeds
from zwick_ai.machine import describe
from zwick_ai.zwicker.rules import Rules

#: the strong agent when ``ismcts`` is registered (``strong="auto"``)
AUTO_STRONG = "ismcts:iters=500,rollout=greedy"


@dataclass
class StudyConfig:
    """What one study run plays: the variant and rule options, compiled deals per measurement,
    the seed every deal derives from, and the strong agent with its (OpenSpiel) deal count."""

    variant: str = "dithmarschen"
    options: dict = field(default_factory=dict)
    deals: int = 10000
    seed: int = 0
    strong: str = "auto"
    strong_deals: int = 16
    #: the paired contrasts of part 2 (``a − b`` on the same deals), ``early − hold`` by default
    contrasts: list = field(default_factory=lambda: [list(c) for c in DEFAULT_CONTRASTS])

    def rules(self) -> Rules:
        if self.variant not in STUDY_VARIANTS:
            raise ValueError(f"the joker study covers {', '.join(STUDY_VARIANTS)}, not {self.variant!r}")
        if self.deals < 2:
            raise ValueError("deals must be at least 2")
        if self.strong_deals < 0:
            raise ValueError("strong_deals must be at least 0")
        valid = ("greedy", *STUDY_POLICIES)
        for pair in self.contrasts:
            if len(pair) != 2 or pair[0] == pair[1] or any(x not in valid for x in pair):
                raise ValueError(f"a contrast is two different policies of {', '.join(valid)}, not {pair!r}")
        return zwicker.rules(self.variant, **self.options)

    def strong_spec(self) -> str:
        if self.strong != "auto":
            return self.strong
        return AUTO_STRONG if any(i.name == "ismcts" for i in registered()) else "greedy"

    def slug(self) -> str:
        """Directory name: the variant plus any options (``grupp-joker_capture-never``)."""
        parts = [self.variant] + [f"{k}-{option_text(v)}" for k, v in sorted(self.options.items())]
        return "-".join(parts)


# ------------------------------------------------------------------------------------------------
# The whole study
# ------------------------------------------------------------------------------------------------
def planned_hands(cfg: StudyConfig) -> int:
    """Compiled hands the study plays (for the progress bar)."""
    r = cfg.rules()
    part1 = 2 * cfg.deals * (1 + len(study_jokers(r)))
    part2 = cfg.deals * r.num_sides * (1 + len(STUDY_POLICIES))
    part3 = cfg.deals * (1 + r.num_sides) * len(rule_sets(r))
    return part1 + part2 + part3


#: the study's independent tasks (a backend may run them in parallel)
PARTS = ("part1:greedy", "part1:random", "part2", "part2:strong", "part3")


def study_part(task: tuple[StudyConfig, str], progress: Progress | None = None) -> tuple[object, float]:
    """Run one part of the study (an item of :data:`PARTS`); returns (its result, seconds). Every
    seed comes from the config, so the result does not depend on where the task runs."""
    cfg, part = task
    rules = cfg.rules()
    seeds = hand_seeds(cfg.seed, cfg.deals)
    t0 = time.perf_counter()
    if part.startswith("part1:"):
        out: object = holding_values(rules, seeds, part.split(":")[1], cfg.seed, progress)
    elif part == "part2":
        out = policy_study(rules, seeds, "greedy", seeds[:0], progress, [tuple(c) for c in cfg.contrasts])
    elif part == "part2:strong":
        out = strong_agent_games(
            rules, cfg.strong_spec(), hand_seeds(cfg.seed + 1, cfg.strong_deals), progress=progress
        )
    elif part == "part3":
        out = rules_study(rules, seeds, progress)
    else:
        raise ValueError(f"unknown study part {part!r}; valid: {', '.join(PARTS)}")
    return out, time.perf_counter() - t0


def run_study(
    cfg: StudyConfig, progress: bool = True, backend: str = "local", workers: int = 1, address: str | None = None
) -> dict:
    """Run all parts; returns every number (JSON-ready). With ``workers`` > 1 (or ``backend="ray"``)
    the parts run in parallel on :mod:`zwick_ai.backends`; the numbers are the same."""
    rules = cfg.rules()
    strong = cfg.strong_spec()
    parts = [p for p in PARTS if p != "part2:strong" or (strong != "greedy" and cfg.strong_deals > 0)]
    tasks = [(cfg, p) for p in parts]
    done: dict[str, tuple[object, float]] = {}
    start = time.perf_counter()
    if backend == "local" and workers == 1:
        bar = tqdm(total=planned_hands(cfg), unit="hand", disable=not progress, desc=cfg.slug())

        def tick(label: str, n: int) -> None:
            if label == "part 2 strong agent":
                bar.set_postfix_str(f"strong agent deal done ({strong})")
                return
            bar.set_description(f"{cfg.slug()} {label}")
            bar.update(n)

        for task in tasks:
            done[task[1]] = study_part(task, tick)
        bar.close()
    else:
        with make_backend(backend, workers, address) as runner:
            results = runner.map_unordered(study_part, tasks, chunksize=1)
            for task, result in tqdm(results, total=len(tasks), unit="part", disable=not progress, desc=cfg.slug()):
                done[task[1]] = result
    part2 = done["part2"][0]
    if "part2:strong" in done:
        part2["strong"] = done["part2:strong"][0]  # type: ignore[index]
    times = {
        "part1": done["part1:greedy"][1] + done["part1:random"][1],
        "part2": done["part2"][1] + done.get("part2:strong", (None, 0.0))[1],
        "part3": done["part3"][1],
    }
    config = asdict(cfg) | {
        "strong": strong,
        "rules": rules.describe(),
        "options": {k: option_text(v) for k, v in cfg.options.items()},
        "seconds": times,
        "wall_seconds": time.perf_counter() - start,
        "backend": f"{backend} ({workers} worker{'s' if workers != 1 else ''})",
        "machine": describe(),
    }
    part1 = {p: done[f"part1:{p}"][0] for p in ("greedy", "random")}
    return {"config": config, "part1": part1, "part2": part2, "part3": done["part3"][0]}

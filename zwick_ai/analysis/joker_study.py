"""The joker study: what a joker is worth, how to play it, and what the joker rules do.

One :func:`run_study` per Zwicker variant answers three questions with numbers, 95% confidence
intervals (:mod:`zwick_ai.eval.stats`) and PNG figures, and writes ``report.md``, the figures and
``results.json`` to one directory:

1. **Value of holding each joker.** Every seeded deal in which joker J is dealt to a hand is
   replayed with J *swapped* with a random point-less, non-joker card dealt to an opponent in the
   same stage (:func:`swap_joker`: the deck order differs in exactly those two positions; the
   playout seeds are the same). The paired difference of the original holder's points is the value
   of holding J. Conditioning on who was dealt J in the unchanged deals (holder's points minus the
   other sides' mean) estimates the same quantity; both are reported, with the share of J's points
   that its holder's side and the opponents end up capturing. Greedy play and random play.
2. **When and how to use a joker.** Each joker policy of :mod:`zwick_ai.agents.joker_policies`
   plays a duplicate tournament against the plain greedy policy: on every deal, once with each side
   playing the policy and the others greedy (compiled, same deals and playout seeds); its margin is
   its side's points minus the others' mean. The best policy is named with its margin and the CI of
   its lead over the runner-up (paired over deals). Where each joker is played (stage, last stage
   or not, capture/build/trail, points taken, table size) is read from the playouts, and for the
   strongest agent available (``ismcts`` with a small budget) from OpenSpiel game records.
3. **What the joker rules do to the game.** For rule sets with 0, 3, 4 and 6 jokers (valued
   variants) or 0, 3, 4, 6 wild jokers and the four table-joker options (Grupp): the forehand
   side's advantage, the spread of the score difference, and the skill gap (greedy side against
   random sides, duplicate), also per point in play and per standard deviation.

>>> cfg = StudyConfig("dithmarschen", deals=40, strong="greedy", strong_deals=1)
>>> res = run_study(cfg, progress=False)
>>> sorted(res)[:4], res["part1"]["greedy"][0]["joker"]
(['config', 'part1', 'part2', 'part3'], 'X15')
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from zwick_ai import cards as C  # noqa: E402
from zwick_ai import zwicker  # noqa: E402
from zwick_ai.agents import joker_policies as JP  # noqa: E402
from zwick_ai.agents.base import make_agent, registered  # noqa: E402
from zwick_ai.eval.backends import make_backend  # noqa: E402
from zwick_ai.eval.match import play_game  # noqa: E402
from zwick_ai.eval.records import replay, zwicker_game  # noqa: E402
from zwick_ai.eval.selfplay import hand_seeds  # noqa: E402
from zwick_ai.eval.stats import Estimate, mean_ci, paired_diff_ci, proportion_ci  # noqa: E402
from zwick_ai.games import convert  # noqa: E402
from zwick_ai.zwicker.layout import KIND_ASK, KIND_BUILD, KIND_CAPTURE, KIND_TRAIL  # noqa: E402
from zwick_ai.zwicker.rules import Rules  # noqa: E402

#: the variants with jokers (classic has none)
STUDY_VARIANTS = ("dithmarschen", "grossenwiehe", "christiansen", "grupp")
#: policies of part 2 (``greedy`` is the opponent every policy is measured against)
STUDY_POLICIES = ("early", "hold", "min_points:k=1", "min_points:k=3", "min_points:k=6", "build", "last_stage")
#: the strong agent when ``ismcts`` is registered (``strong="auto"``)
AUTO_STRONG = "ismcts:iters=500,rollout=greedy"
KIND_NAMES = {KIND_CAPTURE: "capture", KIND_BUILD: "build", KIND_TRAIL: "trail"}

Progress = Callable[[str, int], None]


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

    def rules(self) -> Rules:
        if self.variant not in STUDY_VARIANTS:
            raise ValueError(f"the joker study covers {', '.join(STUDY_VARIANTS)}, not {self.variant!r}")
        if self.deals < 2:
            raise ValueError("deals must be at least 2")
        if self.strong_deals < 0:
            raise ValueError("strong_deals must be at least 0")
        return zwicker.rules(self.variant, **self.options)

    def strong_spec(self) -> str:
        if self.strong != "auto":
            return self.strong
        return AUTO_STRONG if any(i.name == "ismcts" for i in registered()) else "greedy"

    def slug(self) -> str:
        """Directory name: the variant plus any options (``grupp-joker_capture-never``)."""
        parts = [self.variant] + [f"{k}-{_text(v)}" for k, v in sorted(self.options.items())]
        return "-".join(parts)


def machine() -> str:
    """The machine a run's times were measured on, as facts: cores, load, Python and versions."""
    import platform

    import numba
    import pyspiel

    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"{os.cpu_count()} cores{load}, Python {platform.python_version()}, numba {numba.__version__}, "
        f"numpy {np.__version__}, OpenSpiel {getattr(pyspiel, '__version__', 'unknown')}"
    )


def _text(value: object) -> str:
    if isinstance(value, tuple | list):
        return "_".join(map(str, value)) or "none"
    return str(value).lower()


# ------------------------------------------------------------------------------------------------
# Shared helpers
# ------------------------------------------------------------------------------------------------
def side_of_seats(rules: Rules) -> np.ndarray:
    return np.array([rules.side_of(p) for p in range(rules.players)])


def margins(scores: np.ndarray) -> np.ndarray:
    """Per deal and side: the side's points minus the mean of the other sides' points."""
    ns = scores.shape[1]
    total = scores.sum(axis=1, keepdims=True)
    return scores - (total - scores) / (ns - 1)


def joker_name(card: int) -> str:
    return C.format_card(card)


def study_jokers(rules: Rules) -> list[int]:
    """One card per distinct joker: every valued joker, and one copy of the (identical) wild jokers."""
    out, seen_wild = [], False
    for c in JP.joker_cards(rules):
        if C.is_wild_joker(c):
            if seen_wild:
                continue
            seen_wild = True
        out.append(c)
    return out


def deal_maps(rules: Rules, orders: np.ndarray, dealers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(seat[N, NC], stage[N, NC]) of every card of every deal (see ``joker_policies.deal_map``)."""
    R = rules.array()
    seats = np.empty((len(orders), C.NUM_CARDS), np.int64)
    stages = np.empty_like(seats)
    for h in range(len(orders)):
        seats[h], stages[h] = JP.deal_map(R, orders[h], dealers[h])
    return seats, stages


def swap_joker(
    rules: Rules,
    orders: np.ndarray,
    seats: np.ndarray,
    stages: np.ndarray,
    joker: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Move ``joker`` to an opponent: in every deal where it is dealt to a hand, swap it with a
    random non-joker, point-less card dealt to a seat of another side in the same stage.

    Returns (swapped orders, mask of the deals swapped, the card it was swapped with or -1)."""
    side = side_of_seats(rules)
    points = np.zeros(C.NUM_CARDS, np.int64)
    for c, p in rules.points:
        points[c] = p
    is_joker = np.zeros(C.NUM_CARDS, bool)
    is_joker[JP.joker_cards(rules)] = True
    rng = np.random.default_rng([seed, joker])
    out = orders.copy()
    mask = np.zeros(len(orders), bool)
    partner = np.full(len(orders), -1, np.int64)
    for h in range(len(orders)):
        sj = seats[h, joker]
        if sj < 0:
            continue
        cards = orders[h]
        s = seats[h, cards]
        ok = (s >= 0) & (side[np.maximum(s, 0)] != side[sj]) & (stages[h, cards] == stages[h, joker])
        ok &= ~is_joker[cards] & (points[cards] == 0)
        idx = np.flatnonzero(ok)
        if idx.size == 0:
            continue
        i = int(idx[rng.integers(idx.size)])
        j = int(np.flatnonzero(cards == joker)[0])
        out[h, i], out[h, j] = cards[j], cards[i]
        mask[h] = True
        partner[h] = cards[i]
    return out, mask, partner


def _est(e: Estimate) -> dict:
    return e.as_dict()


# ------------------------------------------------------------------------------------------------
# Part 1: the value of holding each joker
# ------------------------------------------------------------------------------------------------
def holding_values(
    rules: Rules, seeds: np.ndarray, policy: str, swap_seed: int, progress: Progress | None = None
) -> list[dict]:
    """Part 1 for one policy at every seat: per joker, the swap and conditioning estimates of the
    holder's gain and the shares of the joker won by its holder's side and by the opponents."""
    R = rules.array()
    orders, dealers = JP.deal_orders(R, seeds)
    play = JP.play_seed_of(seeds)
    seats, stages = deal_maps(rules, orders, dealers)
    side = side_of_seats(rules)
    base = JP.play_orders(rules, orders, dealers, play, [policy])
    if progress:
        progress(f"part 1 {policy}", len(seeds))
    base_margin = margins(base.scores)
    out = []
    for j in study_jokers(rules):
        swapped, mask, _ = swap_joker(rules, orders, seats, stages, j, swap_seed)
        idx = np.flatnonzero(mask)
        holder = side[seats[idx, j]]
        sw = JP.play_orders(rules, swapped[idx], dealers[idx], play[idx], [policy])
        if progress:
            progress(f"part 1 {policy}", len(idx))
        orig_pts = base.scores[idx, holder]
        swap_pts = sw.scores[np.arange(len(idx)), holder]
        orig_m = base_margin[idx, holder]
        swap_m = margins(sw.scores)[np.arange(len(idx)), holder]
        in_hand = np.flatnonzero(seats[:, j] >= 0)
        hside = side[seats[in_hand, j]]
        won = base.won_side[in_hand, j]
        kept = int(np.sum(won == hside))
        lost = int(np.sum((won >= 0) & (won != hside)))
        out.append(
            {
                "joker": joker_name(j),
                "points": rules.card_points(j),
                "deals": len(seeds),
                "dealt_to_hand": len(in_hand),
                "swapped": len(idx),
                "gain_swap": _est(paired_diff_ci(orig_pts, swap_pts)),
                "margin_gain_swap": _est(paired_diff_ci(orig_m, swap_m)),
                "gain_conditioning": _est(mean_ci(base_margin[in_hand, hside])),
                "won_by_holder": _est(proportion_ci(kept, len(in_hand))),
                "won_by_opponents": _est(proportion_ci(lost, len(in_hand))),
            }
        )
    return out


# ------------------------------------------------------------------------------------------------
# Part 2: joker policies in duplicate tournaments, and where jokers are played
# ------------------------------------------------------------------------------------------------
def duplicate_margins(
    rules: Rules, orders: np.ndarray, dealers: np.ndarray, play: np.ndarray, policy: str, opponent: str
) -> tuple[np.ndarray, list[tuple[JP.Deals, np.ndarray]]]:
    """Per deal, ``policy``'s side margin against ``opponent`` averaged over the seatings in which
    each side plays ``policy`` (the duplicate), and every seating's playouts with its policy seats."""
    side = side_of_seats(rules)
    per_side = []
    runs = []
    for s in range(rules.num_sides):
        specs = [policy if side[p] == s else opponent for p in range(rules.players)]
        d = JP.play_orders(rules, orders, dealers, play, specs)
        per_side.append(margins(d.scores)[:, s])
        runs.append((d, np.flatnonzero(side == s)))
    return np.mean(per_side, axis=0), runs


def joker_behaviour(rules: Rules, plays: list[tuple[int, np.ndarray]]) -> list[dict]:
    """Summarise joker plays ``[(joker card, J_FIELDS row), ...]`` per joker: how often in each
    stage and in the last stage, as capture/build/trail, points taken and table size."""
    out = []
    for j in study_jokers(rules):
        rows = np.array([r for c, r in plays if c == j or (C.is_wild_joker(c) and C.is_wild_joker(j))])
        n = len(rows)
        item: dict = {"joker": joker_name(j), "plays": n}
        if n:
            caps = rows[rows[:, JP.J_KIND] == KIND_CAPTURE]
            item |= {
                "stage_counts": np.bincount(rows[:, JP.J_STAGE], minlength=1).tolist(),
                "last_stage": _est(proportion_ci(int(rows[:, JP.J_LAST].sum()), n)),
                "kinds": {KIND_NAMES[k]: int(np.sum(rows[:, JP.J_KIND] == k)) for k in KIND_NAMES},
                "points_taken_when_capturing": _est(mean_ci(caps[:, JP.J_TAKEN])) if len(caps) > 1 else None,
                "table_units": float(rows[:, JP.J_UNITS].mean()),
                "hand_cards": float(rows[:, JP.J_HAND].mean()),
                "hand_counts": np.bincount(rows[:, JP.J_HAND]).tolist(),
                "as_last_card": _est(proportion_ci(int(np.sum(rows[:, JP.J_HAND] == 1)), n)),
            }
        out.append(item)
    return out


def compiled_plays(runs: list[tuple[JP.Deals, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
    """Joker plays made by the policy seats of each seating."""
    plays = []
    for d, seats in runs:
        played = d.jplays[:, :, JP.J_PLAYED] == 1
        for h, c in zip(*np.nonzero(played), strict=True):
            if d.jplays[h, c, JP.J_SEAT] in seats:
                plays.append((int(c), d.jplays[h, c]))
    return plays


def record_joker_plays(rules: Rules, records: Sequence, seats_of: Sequence[set[int]]) -> list[tuple[int, np.ndarray]]:
    """Joker plays in OpenSpiel game records by the seats ``seats_of[i]`` of record i, with the
    situation read off the replayed position before the move (``joker_play_info``)."""
    R = rules.array()
    plays = []
    for rec, who in zip(records, seats_of, strict=True):
        steps = replay(rec)
        for k, (seat, _, actions) in enumerate(rec.moves):
            if seat not in who:
                continue
            before = steps[k].state
            rows = before.candidate_rows()
            jrows = [r for r in rows if r[0] != KIND_ASK and JP.is_joker(R, int(r[1]))]
            for r in jrows:
                if convert.move_actions(before, r) == list(actions):
                    info = np.zeros(JP.J_FIELDS, np.int64)
                    JP.joker_play_info(R, before.engine_state().arr, r, info)
                    plays.append((int(r[1]), info))
                    break
    return plays


def strong_agent_games(
    rules: Rules, spec: str, seeds: np.ndarray, opponent: str = "greedy", progress: Progress | None = None
) -> dict:
    """The strong agent against ``opponent`` in OpenSpiel duplicate games (each side plays the
    agent once per deal): its margin and where it plays each joker."""
    game = zwicker_game(rules)
    side = side_of_seats(rules)
    per_deal, records, who = [], [], []
    seconds = 0.0
    for seed in seeds:
        m = []
        for s in range(rules.num_sides):
            agents = [
                make_agent(spec if side[p] == s else opponent, game, seed=int(seed) * 16 + p)
                for p in range(rules.players)
            ]
            rec = play_game(game, agents, deal_seed=int(seed), labels=False)
            seconds += sum(rec.seconds[p] for p in range(rules.players) if side[p] == s)
            m.append(margins(np.array([rec.points]))[0, s])
            records.append(rec)
            who.append({p for p in range(rules.players) if side[p] == s})
        per_deal.append(float(np.mean(m)))
        if progress:
            progress("part 2 strong agent", 1)
    plays = record_joker_plays(rules, records, who)
    return {
        "spec": spec,
        "opponent": opponent,
        "deals": len(seeds),
        "games": len(records),
        "margin": _est(mean_ci(per_deal)) if len(per_deal) > 1 else None,
        "seconds_per_game": seconds / max(1, len(records)),
        "behaviour": joker_behaviour(rules, plays),
    }


def policy_study(rules: Rules, seeds: np.ndarray, strong: str, strong_seeds: np.ndarray, progress=None) -> dict:
    """Part 2: every policy of :data:`STUDY_POLICIES` against greedy, the best one, joker behaviour
    of greedy and the best policy, and the strong agent's games."""
    R = rules.array()
    orders, dealers = JP.deal_orders(R, seeds)
    play = JP.play_seed_of(seeds)
    results, per_deal, plays = {}, {}, {}
    for pol in ("greedy", *STUDY_POLICIES):
        m, runs = duplicate_margins(rules, orders, dealers, play, pol, "greedy")
        per_deal[pol] = m
        plays[pol] = compiled_plays(runs)
        results[pol] = {"margin": _est(mean_ci(m)), "deals": len(seeds)}
        if progress:
            progress("part 2 policies", len(seeds) * rules.num_sides)
    # greedy is a contestant too: its margin against itself is exactly 0 on every deal.
    ranked = sorted(per_deal, key=lambda p: -per_deal[p].mean())
    best, second = ranked[0], ranked[1]
    best_policy = next(p for p in ranked if p != "greedy")
    out = {
        "opponent": "greedy",
        "policies": results,
        "ranking": ranked,
        "best": best,
        "best_margin": results[best]["margin"],
        "best_vs_second": {"second": second, "lead": _est(paired_diff_ci(per_deal[best], per_deal[second]))},
        "behaviour": {p: joker_behaviour(rules, plays[p]) for p in ("greedy", best_policy)},
    }
    if strong != "greedy" and len(strong_seeds):
        out["strong"] = strong_agent_games(rules, strong, strong_seeds, progress=progress)
    return out


# ------------------------------------------------------------------------------------------------
# Part 3: what the joker rules do
# ------------------------------------------------------------------------------------------------
def rule_sets(rules: Rules) -> list[tuple[str, dict]]:
    """(label, options) of the rule sets part 3 compares, starting from ``rules``' own options."""
    base = dict(rules.options)
    if rules.variant == "grupp":
        sets = [(f"{n} wild", base | {"wild_jokers": n}) for n in (0, 3, 4, 6)]
        for jc in ("joker_only", "lone_joker_only", "never"):
            sets.append((f"6 wild, joker_capture={jc}", base | {"wild_jokers": 6, "joker_capture": jc}))
        sets.append(("6 wild, sweep with joker no Zwick", base | {"wild_jokers": 6, "joker_sweep_is_zwick": False}))
        return sets
    jokers = {0: (), 3: (15, 20, 25), 4: (15, 20, 25, 30), 6: (15, 17, 20, 22, 25, 30)}
    sets = [(f"{n} jokers", base | {"jokers": v}) for n, v in jokers.items()]
    sets.append(("default jokers, no joker sum captures", base | {"joker_sum_capture": False}))
    return sets


def rules_effects(rules: Rules, seeds: np.ndarray) -> dict:
    """Forehand advantage and score spread under greedy self-play, and the skill gap (greedy side
    against random sides, duplicate)."""
    R = rules.array()
    orders, dealers = JP.deal_orders(R, seeds)
    play = JP.play_seed_of(seeds)
    side = side_of_seats(rules)
    g = JP.play_orders(rules, orders, dealers, play, ["greedy"])
    m = margins(g.scores)
    fh_side = side[(dealers + 1) % rules.players]
    fh = m[np.arange(len(seeds)), fh_side]
    skill, _ = duplicate_margins(rules, orders, dealers, play, "greedy", "random")
    total = rules.card_total
    sd = float(np.std(m[:, 0], ddof=1))
    gap = mean_ci(skill)
    return {
        "deals": len(seeds),
        "points_in_play": total,
        "jokers": len(JP.joker_cards(rules)),
        "forehand_margin": _est(mean_ci(fh)),
        "margin_sd": sd,
        "skill_gap": _est(gap),
        "skill_gap_per_point": gap.mean / total,
        "skill_gap_per_sd": gap.mean / sd if sd > 0 else float("nan"),
    }


def rules_study(rules: Rules, seeds: np.ndarray, progress: Progress | None = None) -> list[dict]:
    out = []
    for label, opts in rule_sets(rules):
        r = zwicker.rules(rules.variant, rules.players, **opts)
        item = {"label": label, "options": {k: _text(v) for k, v in opts.items()}} | rules_effects(r, seeds)
        out.append(item)
        if progress:
            progress("part 3 rule sets", len(seeds) * (1 + r.num_sides))
    return out


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
        out = policy_study(rules, seeds, "greedy", seeds[:0], progress)
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
    the parts run in parallel on :mod:`zwick_ai.eval.backends`; the numbers are the same."""
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
        "options": {k: _text(v) for k, v in cfg.options.items()},
        "seconds": times,
        "wall_seconds": time.perf_counter() - start,
        "backend": f"{backend} ({workers} worker{'s' if workers != 1 else ''})",
        "machine": machine(),
    }
    part1 = {p: done[f"part1:{p}"][0] for p in ("greedy", "random")}
    return {"config": config, "part1": part1, "part2": part2, "part3": done["part3"][0]}


# ------------------------------------------------------------------------------------------------
# Figures and report
# ------------------------------------------------------------------------------------------------
def _bar_ci(ax, x, ests: list[dict], width: float, label: str) -> None:
    means = np.array([e["mean"] for e in ests])
    lo = means - np.array([e["ci95"][0] for e in ests])
    hi = np.array([e["ci95"][1] for e in ests]) - means
    ax.bar(x, means, width, yerr=[lo, hi], capsize=3, label=label)


def figures(res: dict, out: Path) -> list[str]:
    """Write the study's PNG figures to ``out``; returns their file names."""
    names = []
    p1 = res["part1"]
    jokers = [d["joker"] for d in p1["greedy"]]
    x = np.arange(len(jokers))
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (pol, key) in enumerate([(p, k) for p in ("greedy", "random") for k in ("gain_swap", "gain_conditioning")]):
        _bar_ci(ax, x + (i - 1.5) * 0.2, [d[key] for d in p1[pol]], 0.2, f"{pol}, {key.split('_')[1]}")
    ax.set_xticks(x, jokers)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylabel("points gained by the holder's side")
    ax.set_title(f"Value of holding a joker ({p1['greedy'][0]['deals']} deals each)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "part1_holding_value.png", dpi=110)
    plt.close(fig)
    names.append("part1_holding_value.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, pol in enumerate(("greedy", "random")):
        kept = np.array([d["won_by_holder"]["mean"] for d in p1[pol]])
        lost = np.array([d["won_by_opponents"]["mean"] for d in p1[pol]])
        xs = x + (i - 0.5) * 0.4
        ax.bar(xs, kept, 0.38, label=f"{pol}: holder's side", color=("C0", "C2")[i])
        ax.bar(xs, lost, 0.38, bottom=kept, label=f"{pol}: opponents", color=("C1", "C3")[i], alpha=0.7)
    ax.set_xticks(x, jokers)
    ax.set_ylabel("share of deals dealt to a hand")
    ax.set_title("Who captures the joker (its points)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "part1_capture_share.png", dpi=110)
    plt.close(fig)
    names.append("part1_capture_share.png")

    p2 = res["part2"]
    pols = ["greedy", *STUDY_POLICIES]
    fig, ax = plt.subplots(figsize=(7, 4))
    ests = [p2["policies"][p]["margin"] for p in pols]
    means = np.array([e["mean"] for e in ests])
    err = [means - np.array([e["ci95"][0] for e in ests]), np.array([e["ci95"][1] for e in ests]) - means]
    ax.barh(np.arange(len(pols)), means, xerr=err, capsize=3)
    ax.set_yticks(np.arange(len(pols)), pols)
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("margin per deal against greedy (points)")
    ax.set_title(f"Joker policies, duplicate vs greedy ({p2['policies']['greedy']['deals']} deals)")
    fig.tight_layout()
    fig.savefig(out / "part2_policies.png", dpi=110)
    plt.close(fig)
    names.append("part2_policies.png")

    who = [(p if p == "greedy" else f"best joker rule: {p}", beh) for p, beh in p2["behaviour"].items()]
    if "strong" in p2:
        who.append((p2["strong"]["spec"], p2["strong"]["behaviour"]))
    # A hand is played out before the next deal, so a joker is played in the stage it was dealt;
    # holding it means keeping it to the last cards of that hand.
    groups = [(1, 1, "last card"), (2, 2, "2 cards left"), (3, 3, "3"), (4, 99, "4 or more")]
    fig, axes = plt.subplots(1, len(who), figsize=(4 * len(who), 3.6), squeeze=False)
    for ax, (title, beh) in zip(axes[0], who, strict=True):
        bottom = np.zeros(len(beh))
        for lo, hi, label in groups:
            share = np.array([sum(b["hand_counts"][lo : hi + 1]) / b["plays"] if b["plays"] else 0.0 for b in beh])
            ax.bar(np.arange(len(beh)), share, bottom=bottom, label=label)
            bottom += share
        ax.set_xticks(np.arange(len(beh)), [f"{b['joker']}\n({b['plays']})" for b in beh], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("share of the joker's plays")
    axes[0][-1].legend(fontsize=6, title="cards in hand", title_fontsize=6)
    fig.suptitle("Cards in the player's hand when it plays the joker (number of plays in brackets)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "part2_when_played.png", dpi=110)
    plt.close(fig)
    names.append("part2_when_played.png")

    p3 = res["part3"]
    labels = [d["label"] for d in p3]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, key, title in (
        (axes[0], "forehand_margin", "forehand side's margin (greedy)"),
        (axes[2], "skill_gap", "skill gap: greedy side vs random"),
    ):
        ests = [d[key] for d in p3]
        means = np.array([e["mean"] for e in ests])
        err = [means - np.array([e["ci95"][0] for e in ests]), np.array([e["ci95"][1] for e in ests]) - means]
        ax.barh(np.arange(len(p3)), means, xerr=err, capsize=3)
        ax.set_yticks(np.arange(len(p3)), labels if ax is axes[0] else [""] * len(p3), fontsize=8)
        ax.axvline(0, color="k", lw=0.5)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("points per deal")
    axes[1].barh(np.arange(len(p3)), [d["margin_sd"] for d in p3])
    axes[1].set_yticks(np.arange(len(p3)), [""] * len(p3))
    axes[1].set_title("sd of the score difference (greedy)", fontsize=9)
    axes[1].set_xlabel("points")
    fig.suptitle(f"Rule sets ({p3[0]['deals']} deals each)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "part3_rule_sets.png", dpi=110)
    plt.close(fig)
    names.append("part3_rule_sets.png")
    return names


def _ci(e: dict | None, digits: int = 2) -> str:
    if e is None:
        return "–"
    m, lo, hi = (round(x, digits) + 0.0 for x in (e["mean"], *e["ci95"]))  # + 0.0: no "-0.000"
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _pct(e: dict) -> str:
    return f"{100 * e['mean']:.1f}% [{100 * e['ci95'][0]:.1f}, {100 * e['ci95'][1]:.1f}]"


def _behaviour_table(beh: list[dict]) -> list[str]:
    lines = [
        "| joker | plays | in last stage | as last card of the hand | cards in hand | capture / build / trail "
        "| points taken by a capture | table units |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for b in beh:
        if not b["plays"]:
            lines.append(f"| {b['joker']} | 0 | – | – | – | – | – | – |")
            continue
        k = b["kinds"]
        lines.append(
            f"| {b['joker']} | {b['plays']} | {_pct(b['last_stage'])} | {_pct(b['as_last_card'])} "
            f"| {b['hand_cards']:.2f} | {k['capture']} / {k['build']} / {k['trail']} "
            f"| {_ci(b['points_taken_when_capturing'])} | {b['table_units']:.1f} |"
        )
    return lines


def report_markdown(res: dict, command: str, figure_names: Sequence[str]) -> str:
    cfg, p1, p2, p3 = res["config"], res["part1"], res["part2"], res["part3"]
    secs = cfg["seconds"]
    n = cfg["deals"]
    lines = [
        f"# Joker study: {cfg['rules']}",
        "",
        f"Command: `{command}`",
        "",
        f"Seed {cfg['seed']}; {n} seeded deals per measurement (compiled playouts); strong agent "
        f"`{cfg['strong']}` on {cfg['strong_deals'] if 'strong' in p2 else 0} deals (OpenSpiel). Runtime: part 1 "
        f"{secs['part1']:.0f} s, part 2 {secs['part2']:.0f} s, part 3 {secs['part3']:.0f} s"
        + (f" ({cfg['wall_seconds']:.0f} s in all on {cfg['backend']})" if "wall_seconds" in cfg else " (one process)")
        + (f" on {cfg['machine']}" if "machine" in cfg else "")
        + ". All intervals are 95% confidence intervals. Numbers: `results.json`.",
        "",
        "## 1. The value of holding each joker",
        "",
        "![holding value](part1_holding_value.png) ![capture share](part1_capture_share.png)",
        "",
        f"Every deal ({n}) in which the joker is dealt to a hand is replayed with the joker swapped with a "
        "random point-less non-joker card of an opponent from the same stage (nothing else changes, same "
        "playout seeds). *Swap*: mean paired change of the original holder's points (and of its margin over "
        "the other sides' mean). *Conditioning*: holder's points minus the other sides' mean in the unchanged "
        "deals. *Kept / lost*: share of those deals in which the holder's side / an opponent captured the joker.",
        "",
    ]
    for pol in ("greedy", "random"):
        lines += [
            f"**{pol} play at every seat**",
            "",
            "| joker | its points | dealt to a hand | gain (swap) | margin gain (swap) | gain (conditioning) "
            "| kept by holder's side | won by opponents |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for d in p1[pol]:
            lines.append(
                f"| {d['joker']} | {d['points']} | {d['dealt_to_hand']} | {_ci(d['gain_swap'])} "
                f"| {_ci(d['margin_gain_swap'])} | {_ci(d['gain_conditioning'])} | {_pct(d['won_by_holder'])} "
                f"| {_pct(d['won_by_opponents'])} |"
            )
        lines.append("")
    ests = [d for pol in ("greedy", "random") for d in p1[pol]]
    width = np.mean([d["gain_conditioning"]["ci95"][1] - d["gain_conditioning"]["ci95"][0] for d in ests])
    width_swap = np.mean([d["gain_swap"]["ci95"][1] - d["gain_swap"]["ci95"][0] for d in ests])
    inside = sum(
        d["gain_conditioning"]["ci95"][0] <= d["gain_swap"]["mean"] <= d["gain_conditioning"]["ci95"][1] for d in ests
    )
    lines += [
        f"Swap against conditioning: the swap's intervals are on average {width / width_swap:.1f}× narrower "
        f"(the same precision from about {(width / width_swap) ** 2:.0f}× fewer deals); the swap estimate lies "
        f"inside the conditioning interval for {inside} of {len(ests)} jokers and policies. The swap also hands "
        "the holder a point-less card in exchange, so it measures the joker against an ordinary card.",
        "",
    ]
    best = p2["best"]
    lead = p2["best_vs_second"]
    lines += [
        "## 2. When and how to use a joker",
        "",
        "![policies](part2_policies.png) ![when played](part2_when_played.png)",
        "",
        f"Each policy plays every deal ({n}) once per side against greedy opponents (duplicate; margin = its "
        "side's points minus the others' mean, averaged over the seatings). Policies: `early` captures with a "
        "joker at the first chance, `hold` plays a joker only when forced (every legal move plays one), "
        "`min_points:k=K` uses a joker only to capture at least K table points, `build` only to build, "
        "`last_stage` plays no joker before the last stage unless forced, then plays greedy; `greedy` is the "
        "baseline (it captures with a joker whenever that is its best immediate gain).",
        "",
        "| policy | margin vs greedy |",
        "|---|---|",
    ]
    for pol in p2["ranking"]:
        lines.append(f"| {pol} | {_ci(p2['policies'][pol]['margin'], 3)} |")
    lines += [
        "",
        f"**Best policy: `{best}`**"
        + (
            " (the plain greedy baseline: no joker rule beats it)"
            if best == "greedy"
            else f", margin {_ci(p2['best_margin'], 3)} points per deal against greedy"
        )
        + f"; lead over the runner-up `{lead['second']}`: {_ci(lead['lead'], 3)} points per deal (paired over "
        "the same deals).",
        "",
        "Where jokers are played (compiled playouts, seats of the policy named; `plays` counts the plays from a "
        "hand, `cards in hand` the player's cards before the play, joker included, `table units` the units on the "
        "table before it). A hand is played out before the next deal, so a joker is played in the stage it was "
        "dealt in: holding a joker means keeping it to the last cards of that hand.",
        "",
    ]
    for pol, beh in p2["behaviour"].items():
        lines += [f"**{pol}**", "", *_behaviour_table(beh), ""]
    if "strong" in p2:
        s = p2["strong"]
        lines += [
            f"**Strong agent `{s['spec']}`** against {s['opponent']} on {s['deals']} deals ({s['games']} games, "
            f"{s['seconds_per_game']:.1f} s of its thinking per game): margin {_ci(s['margin'])}.",
            "",
            *_behaviour_table(s["behaviour"]),
            "",
        ]
    lines += [
        "## 3. What the joker rules do",
        "",
        "![rule sets](part3_rule_sets.png)",
        "",
        f"Each rule set on {n} deals: the forehand side's margin under greedy self-play (first-player "
        "advantage), the standard deviation of the score difference, and the skill gap: the greedy side's "
        "margin against random sides (duplicate), also per point in play and per standard deviation.",
        "",
        "| rule set | jokers | points in play | forehand margin | sd | skill gap | gap / points | gap / sd |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in p3:
        lines.append(
            f"| {d['label']} | {d['jokers']} | {d['points_in_play']} | {_ci(d['forehand_margin'])} "
            f"| {d['margin_sd']:.2f} | {_ci(d['skill_gap'])} | {d['skill_gap_per_point']:.3f} "
            f"| {d['skill_gap_per_sd']:.2f} |"
        )
    most = max(p3, key=lambda d: d["skill_gap_per_sd"])
    lines += [
        "",
        f"Most skill per unit of luck: **{most['label']}** (skill gap {most['skill_gap_per_sd']:.2f} sd).",
        "",
        "Figures: " + ", ".join(figure_names) + ".",
        "",
    ]
    return "\n".join(lines)


def write_study(res: dict, out: str | Path, command: str) -> list[Path]:
    """Write ``results.json``, the figures and ``report.md`` to ``out``; returns the files."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    res["config"]["command"] = command
    old = out / "results.json"
    if old.is_file():  # the strong-play runs' objects (zwick_ai.analysis.strong_joker) stay
        kept = {k: v for k, v in json.loads(old.read_text()).items() if k.startswith("strong_play")}
        res = res | {k: v for k, v in kept.items() if k not in res}
    (out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    names = figures(res, out)
    text = report_markdown(res, command, names)
    if (out / "strong_play.md").is_file():
        text += "\n<!-- strong play -->\n## Strong play\n\nThe same questions asked of the strong agents: [strong_play.md](strong_play.md).\n"
    (out / "report.md").write_text(text)
    return [out / "results.json", out / "report.md", *(out / n for n in names)]


def summary_markdown(root: str | Path) -> str:
    """One table over every study under ``root`` (each ``*/results.json``): the value of holding
    each joker, the best joker policy, what holding costs, and the rules' skill and forehand figures."""
    rows: list[str] = []
    strong_rows: list[str] = []
    for path in sorted(Path(root).glob("*/results.json")):
        res = json.loads(path.read_text())
        if not isinstance(res, dict) or "part1" not in res:
            continue  # e.g. micro-cfr/results.json
        cfg, p1, p2, p3 = res["config"], res["part1"], res["part2"], res["part3"]
        rules = zwicker.rules(cfg["variant"], **cfg["options"])  # the rules read option text themselves
        n = len(JP.joker_cards(rules))
        own = next(d for d in p3 if d["label"] == f"{n} {'wild' if rules.wild else 'jokers'}")
        none = p3[0]
        value = ", ".join(f"{d['joker']} {d['gain_swap']['mean']:+.1f}" for d in p1["greedy"])
        lead = p2["best_vs_second"]
        rows.append(
            f"| [{path.parent.name}]({path.parent.name}/report.md) | {cfg['deals']} | {value} "
            f"| `{p2['best']}` (lead over `{lead['second']}` {_ci(lead['lead'])}) "
            f"| {_ci(p2['policies']['hold']['margin'])} | {_ci(own['forehand_margin'])} "
            f"| {own['skill_gap_per_sd']:.2f} ({none['label']}: {none['skill_gap_per_sd']:.2f}) "
            f"| {_ci(p2['strong']['margin']) + ' (' + str(p2['strong']['deals']) + ' deals)' if 'strong' in p2 else '–'} |"
        )
        for key in ("strong_play", "strong_play_expert"):
            if key in res:
                sp = res[key]
                vals = ", ".join(f"{v['joker']} {v['mean_diff']:+.1f}" for v in sp["joker_value"])
                hold = next((p for p in sp["policies"] if p["policy"] == "hold"), None)
                best = sp["best_policy"]
                strong_rows.append(
                    f"| [{path.parent.name}]({path.parent.name}/strong_play.md) | `{sp['agent']}` | {sp['deals']} | {vals} "
                    f"| `{best['policy']}` (best rule {_ci({'mean': best['margin']['mean_diff'], 'ci95': best['margin']['ci95']})}) "
                    f"| {_ci({'mean': hold['mean_diff'], 'ci95': hold['ci95']}) if hold else '–'} "
                    f"| {_ci(sp['vs_greedy'] and {'mean': sp['vs_greedy']['mean_diff'], 'ci95': sp['vs_greedy']['ci95']})} |"
                )
    return "\n".join(
        [
            "| study | deals | points a joker gains its holder's side (greedy, swap) | best joker policy "
            "| `hold` vs greedy | forehand margin | skill gap / sd: these rules (no jokers) | strong agent vs greedy |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            *(
                [
                    "",
                    "Strong play (`zwick joker-study --strong-play`; every seat the strong agent, joker rules on its own "
                    "choice against the unrestricted agent, points per deal, 95% CI):",
                    "",
                    "| study | agent | deals | points a joker gains its holder's side (swap) | best joker use | `hold` vs unrestricted "
                    "| agent vs greedy |",
                    "|---|---|---|---|---|---|---|",
                    *strong_rows,
                ]
                if strong_rows
                else []
            ),
        ]
    )


# ------------------------------------------------------------------------------------------------
# Part 4: exact answers on micro variants (CFR)
# ------------------------------------------------------------------------------------------------
#: micro games small enough for the whole tree (7 cards, two cards per hand, one stage)
MICRO_GAMES = (
    "zwicker(variant=dithmarschen,players=2,ranks=A34,suits=CD,jokers=x15,hand_size=2,table_size=2,stages=1)",
    "zwicker(variant=grupp,players=2,ranks=A34,suits=CD,wild_jokers=1,hand_size=2,table_size=2,stages=1)",
)


def micro_cfr(game_string: str, iterations: int = 400) -> dict:
    """Solve a micro Zwicker game with CFR+ and ask whether holding the joker is optimal: at every
    turn where the mover holds a joker and another card, the equilibrium's probability of playing
    the joker now (weighted by how often the turn is reached); and what the two pure joker rules
    cost against the equilibrium opponent: never play the joker while another card is left (hold)
    and always play it first (early).

    >>> r = micro_cfr("zwicker(variant=dithmarschen,players=2,ranks=A4,suits=CD,jokers=x15,hand_size=2,"
    ...               "table_size=1,stages=1)", iterations=50)
    >>> r["joker_turns"] > 0, r["value_hold"][0] < r["value_equilibrium"][0]
    (True, True)
    """
    import pyspiel

    from zwick_ai.agents.cfr.exact import ExactSolver, average_policy, nash_conv, policy_values
    from zwick_ai.agents.cfr.keys import infoset_key
    from zwick_ai.agents.cfr.tree import extract

    game = pyspiel.load_game(game_string)
    t0 = time.perf_counter()
    tree = extract(game)
    solver = ExactSolver(tree, "cfr+")
    solver.run(iterations)
    pol = average_policy(tree, solver.cum)
    by_key = {int(tree.iset_key[i]): i for i in range(tree.num_infosets)}
    turns: dict[int, tuple[int, int, float]] = {}  # iset -> (player, edge of the joker, reach)
    stack = [(game.new_initial_state(), 1.0)]
    while stack:
        state, reach = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend((state.child(a), reach * p) for a, p in state.chance_outcomes())
            continue
        p = state.current_player()
        i = by_key[infoset_key(state, p)]
        o, n = int(tree.iset_off[i]), int(tree.iset_n[i])
        if not state.move_prefix():
            hand = zwicker.hand(state.engine_state(), p)
            if len(hand) < 2:
                continue  # the last card: nothing to hold any more
            if any(c.startswith("X") for c in hand):
                edges = [o + k for k in range(n) if state.action_to_string(p, int(tree.actions[o + k])).startswith("X")]
                if edges and len(edges) < n:
                    prev = turns.get(i, (p, edges[0], 0.0))
                    turns[i] = (p, edges[0], prev[2] + reach)
        stack.extend((state.child(int(tree.actions[o + k])), reach * pol[o + k]) for k in range(n))
    eq = policy_values(tree, pol)

    def restricted(play_joker: bool) -> np.ndarray:
        """Each player's value when only that player follows the joker rule (the rest equilibrium)."""
        out = np.zeros(tree.num_players)
        for who in range(tree.num_players):
            q = pol.copy()
            for i, (p, edge, _) in turns.items():
                if p != who:
                    continue
                o, n = int(tree.iset_off[i]), int(tree.iset_n[i])
                if play_joker:
                    q[o : o + n] = 0.0
                    q[edge] = 1.0
                else:  # the equilibrium's other choices, renormalised (uniform if it had none)
                    q[edge] = 0.0
                    total = q[o : o + n].sum()
                    q[o : o + n] = (
                        q[o : o + n] / total if total > 0 else np.where(np.arange(o, o + n) == edge, 0, 1 / (n - 1))
                    )
            out[who] = policy_values(tree, q)[who]
        return out

    hold, early = restricted(False), restricted(True)
    turn_reach = np.array([r for _, _, r in turns.values()])
    p_joker = np.array([pol[e] for _, e, _ in turns.values()])
    return {
        "game": game_string,
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "iterations": iterations,
        "nash_conv": nash_conv(tree, pol),
        "joker_turns": len(turns),
        "p_play_joker_now": float((turn_reach * p_joker).sum() / turn_reach.sum()) if len(turns) else float("nan"),
        "turns_mostly_joker": int(np.sum(p_joker > 0.5)),
        "value_equilibrium": eq.tolist(),
        "value_hold": hold.tolist(),
        "value_early": early.tolist(),
        "seconds": time.perf_counter() - t0,
    }


def micro_markdown(results: Sequence[dict], command: str) -> str:
    lines = [
        "# Joker study, part 4: exact answers on micro variants (CFR+)",
        "",
        f"Command: `{command}`",
        "",
        "Each micro game is solved whole with CFR+ (`zwick_ai.agents.cfr`). A *joker turn* starts a move "
        "while the mover holds a joker and at least one other card (the first sub-action picks the card). "
        "*Play now*: the equilibrium's probability of playing the joker at such a turn, weighted by how "
        "often the turn is reached. *Hold* / *early*: a player's value when it alone never plays the joker "
        "while another card is left (the equilibrium's other choices, renormalised) / always plays it first, against the "
        "equilibrium (values per player; the equilibrium's own values for comparison, nash_conv says how "
        "close to equilibrium the average policy is).",
        "",
        "| game | nodes | nash_conv | joker turns (mostly joker) | play now | value: equilibrium | hold | early |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:

        def fmt(v):
            return " / ".join(f"{x:+.3f}" for x in v)

        lines.append(
            f"| `{r['game']}` | {r['nodes']:,} | {r['nash_conv']:.4f} | {r['joker_turns']} ({r['turns_mostly_joker']}) "
            f"| {100 * r['p_play_joker_now']:.1f}% | {fmt(r['value_equilibrium'])} | {fmt(r['value_hold'])} "
            f"| {fmt(r['value_early'])} |"
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "STUDY_POLICIES",
    "STUDY_VARIANTS",
    "PARTS",
    "StudyConfig",
    "deal_maps",
    "duplicate_margins",
    "holding_values",
    "joker_behaviour",
    "margins",
    "micro_cfr",
    "micro_markdown",
    "policy_study",
    "record_joker_plays",
    "rule_sets",
    "rules_effects",
    "run_study",
    "strong_agent_games",
    "study_part",
    "summary_markdown",
    "swap_joker",
    "write_study",
]

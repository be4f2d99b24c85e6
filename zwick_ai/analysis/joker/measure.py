"""The joker study's measurements in compiled play (parts 1 to 3 of :mod:`zwick_ai.analysis.joker`)
and the strong agent's OpenSpiel games of part 2: each returns its numbers with 95% confidence
intervals (:mod:`zwick_ai.stats`) as JSON-ready dicts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from zwick_ai import cards, zwicker
from zwick_ai.agents import joker_policies
from zwick_ai.agents.base import make_agent
from zwick_ai.analysis.joker.deals import (
    KIND_NAMES,
    STUDY_POLICIES,
    deal_maps,
    joker_name,
    margins,
    option_text,
    side_of_seats,
    study_jokers,
    swap_joker,
)
from zwick_ai.eval.match import play_game
from zwick_ai.eval.records import replay, zwicker_game
from zwick_ai.games import zwicker_bridge
from zwick_ai.stats import best_or_tie, mean_ci, paired_diff_ci, proportion_ci
from zwick_ai.zwicker import arrays, layout
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker.rules import Rules

Progress = Callable[[str, int], None]


# ------------------------------------------------------------------------------------------------
# Part 1: the value of holding each joker
# ------------------------------------------------------------------------------------------------
def holding_values(
    rules: Rules, seeds: np.ndarray, policy: str, swap_seed: int, progress: Progress | None = None
) -> list[dict]:
    """Part 1 for one policy at every seat: per joker, the swap and conditioning estimates of the
    holder's gain and the shares of the joker won by its holder's side and by the opponents."""
    R = rules.array()
    orders, dealers = zwicker_deals.deal_orders(R, seeds)
    play = joker_policies.play_seed_of(seeds)
    seats, stages = deal_maps(rules, orders, dealers)
    side = side_of_seats(rules)
    base = joker_policies.play_orders(rules, orders, dealers, play, [policy])
    if progress:
        progress(f"part 1 {policy}", len(seeds))
    base_margin = margins(base.scores)
    out = []
    for j in study_jokers(rules):
        swapped, mask, _ = swap_joker(rules, orders, seats, stages, j, swap_seed)
        idx = np.flatnonzero(mask)
        holder = side[seats[idx, j]]
        sw = joker_policies.play_orders(rules, swapped[idx], dealers[idx], play[idx], [policy])
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
                "gain_swap": paired_diff_ci(orig_pts, swap_pts).as_dict(),
                "margin_gain_swap": paired_diff_ci(orig_m, swap_m).as_dict(),
                "gain_conditioning": mean_ci(base_margin[in_hand, hside]).as_dict(),
                "won_by_holder": proportion_ci(kept, len(in_hand)).as_dict(),
                "won_by_opponents": proportion_ci(lost, len(in_hand)).as_dict(),
            }
        )
    return out


# ------------------------------------------------------------------------------------------------
# Part 2: joker policies in duplicate tournaments, and where jokers are played
# ------------------------------------------------------------------------------------------------
def duplicate_margins(
    rules: Rules, orders: np.ndarray, dealers: np.ndarray, play: np.ndarray, policy: str, opponent: str
) -> tuple[np.ndarray, list[tuple[joker_policies.Deals, np.ndarray]]]:
    """Per deal, ``policy``'s side margin against ``opponent`` averaged over the seatings in which
    each side plays ``policy`` (the duplicate), and every seating's playouts with its policy seats."""
    side = side_of_seats(rules)
    per_side = []
    runs = []
    for s in range(rules.num_sides):
        specs = [policy if side[p] == s else opponent for p in range(rules.players)]
        d = joker_policies.play_orders(rules, orders, dealers, play, specs)
        per_side.append(margins(d.scores)[:, s])
        runs.append((d, np.flatnonzero(side == s)))
    return np.mean(per_side, axis=0), runs


def joker_behaviour(rules: Rules, plays: list[tuple[int, np.ndarray]]) -> list[dict]:
    """Summarise joker plays ``[(joker card, J_FIELDS row), ...]`` per joker: how often in each
    stage and in the last stage, as capture/build/trail, points taken and table size."""
    out = []
    for j in study_jokers(rules):
        rows = np.array([r for c, r in plays if c == j or (cards.is_wild_joker(c) and cards.is_wild_joker(j))])
        n = len(rows)
        item: dict = {"joker": joker_name(j), "plays": n}
        if n:
            caps = rows[rows[:, joker_policies.J_KIND] == layout.KIND_CAPTURE]
            item |= {
                "stage_counts": np.bincount(rows[:, joker_policies.J_STAGE], minlength=1).tolist(),
                "last_stage": proportion_ci(int(rows[:, joker_policies.J_LAST].sum()), n).as_dict(),
                "kinds": {KIND_NAMES[k]: int(np.sum(rows[:, joker_policies.J_KIND] == k)) for k in KIND_NAMES},
                "points_taken_when_capturing": mean_ci(caps[:, joker_policies.J_TAKEN]).as_dict()
                if len(caps) > 1
                else None,
                "table_units": float(rows[:, joker_policies.J_UNITS].mean()),
                "hand_cards": float(rows[:, joker_policies.J_HAND].mean()),
                "hand_counts": np.bincount(rows[:, joker_policies.J_HAND]).tolist(),
                "as_last_card": proportion_ci(int(np.sum(rows[:, joker_policies.J_HAND] == 1)), n).as_dict(),
            }
        out.append(item)
    return out


def compiled_plays(runs: list[tuple[joker_policies.Deals, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
    """Joker plays made by the policy seats of each seating."""
    plays = []
    for d, seats in runs:
        played = d.jplays[:, :, joker_policies.J_PLAYED] == 1
        for h, c in zip(*np.nonzero(played), strict=True):
            if d.jplays[h, c, joker_policies.J_SEAT] in seats:
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
            decision = before.decision()
            rows = decision.candidates
            jrows = [r for r in rows if r[0] != layout.KIND_ASK and arrays.is_joker(R, int(r[1]))]
            for r in jrows:
                if zwicker_bridge.move_actions(before, r) == list(actions):
                    info = np.zeros(joker_policies.J_FIELDS, np.int64)
                    joker_policies.joker_play_info(R, decision.position, r, info)
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
        "margin": mean_ci(per_deal).as_dict() if len(per_deal) > 1 else None,
        "seconds_per_game": seconds / max(1, len(records)),
        "behaviour": joker_behaviour(rules, plays),
    }


#: the paired contrasts part 2 always reports: the study's question "play a joker at once or hold it?"
DEFAULT_CONTRASTS = (("early", "hold"),)


def contrast(per_deal: dict[str, np.ndarray], a: str, b: str) -> dict:
    """The paired contrast ``a − b`` of two policies measured on the same deals (their margins
    against the same opponent, deal by deal), with its 95% CI."""
    for name in (a, b):
        if name not in per_deal:
            raise ValueError(f"no policy {name!r} in part 2; valid: {', '.join(per_deal)}")
    return {"a": a, "b": b, "deals": len(per_deal[a])} | paired_diff_ci(per_deal[a], per_deal[b]).as_dict()


def policy_study(
    rules: Rules,
    seeds: np.ndarray,
    strong: str,
    strong_seeds: np.ndarray,
    progress=None,
    contrasts: Sequence[tuple[str, str]] = DEFAULT_CONTRASTS,
) -> dict:
    """Part 2: every policy of :data:`STUDY_POLICIES` against greedy, the best one, joker behaviour
    of greedy and the best policy, the strong agent's games, and the paired ``contrasts`` between
    two rules (each ``a − b`` deal by deal; the top two are always contrasted, as the lead)."""
    R = rules.array()
    orders, dealers = zwicker_deals.deal_orders(R, seeds)
    play = joker_policies.play_seed_of(seeds)
    results, per_deal, plays = {}, {}, {}
    for pol in ("greedy", *STUDY_POLICIES):
        m, runs = duplicate_margins(rules, orders, dealers, play, pol, "greedy")
        per_deal[pol] = m
        plays[pol] = compiled_plays(runs)
        results[pol] = {"margin": mean_ci(m).as_dict(), "deals": len(seeds)}
        if progress:
            progress("part 2 policies", len(seeds) * rules.num_sides)
    # greedy is a contestant too: its margin against itself is exactly 0 on every deal.
    verdict = best_or_tie(per_deal)
    ranked = verdict["ranking"]
    best, second = ranked[0], ranked[1]
    best_policy = next(p for p in ranked if p != "greedy")
    out = {
        "opponent": "greedy",
        "policies": results,
        "ranking": ranked,
        "best": best,
        "best_margin": results[best]["margin"],
        "best_vs_second": {"second": second, "lead": paired_diff_ci(per_deal[best], per_deal[second]).as_dict()},
        # the top is called best only when its lead over the runner-up excludes zero
        "called_best": verdict["best"],
        "tied": verdict["tied"],
        "behaviour": {p: joker_behaviour(rules, plays[p]) for p in ("greedy", best_policy)},
        "contrasts": [contrast(per_deal, a, b) for a, b in contrasts],
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
    orders, dealers = zwicker_deals.deal_orders(R, seeds)
    play = joker_policies.play_seed_of(seeds)
    side = side_of_seats(rules)
    g = joker_policies.play_orders(rules, orders, dealers, play, ["greedy"])
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
        "jokers": len(joker_policies.joker_cards(rules)),
        "forehand_margin": mean_ci(fh).as_dict(),
        "margin_sd": sd,
        "skill_gap": gap.as_dict(),
        "skill_gap_per_point": gap.mean / total,
        "skill_gap_per_sd": gap.mean / sd if sd > 0 else float("nan"),
    }


def rules_study(rules: Rules, seeds: np.ndarray, progress: Progress | None = None) -> list[dict]:
    out = []
    for label, opts in rule_sets(rules):
        r = zwicker.rules(rules.variant, rules.players, **opts)
        item = {"label": label, "options": {k: option_text(v) for k, v in opts.items()}} | rules_effects(r, seeds)
        out.append(item)
        if progress:
            progress("part 3 rule sets", len(seeds) * (1 + r.num_sides))
    return out

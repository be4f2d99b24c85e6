"""The joker study answers its question directly: the paired ``early − hold`` contrast against the
two policies' own duplicate margins, its line in the report and its bar in the figure, and the
"too few deals to tell" label on a strong run whose intervals are wider than its table's effects."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zwick_ai import zwicker
from zwick_ai.agents import joker_policies
from zwick_ai.analysis.joker import measure, report, strong_report, study
from zwick_ai.cli import main
from zwick_ai.eval.selfplay import hand_seeds
from zwick_ai.stats import paired_diff_ci
from zwick_ai.zwicker import deals as zwicker_deals


def test_the_contrast_is_the_paired_difference_of_the_two_policies_margins():
    rules = zwicker.rules("dithmarschen")
    seeds = hand_seeds(3, 60)
    p2 = measure.policy_study(rules, seeds, "greedy", seeds[:0], contrasts=[("early", "hold"), ("hold", "greedy")])
    orders, dealers = zwicker_deals.deal_orders(rules.array(), seeds)
    play = joker_policies.play_seed_of(seeds)
    early, _ = measure.duplicate_margins(rules, orders, dealers, play, "early", "greedy")
    hold, _ = measure.duplicate_margins(rules, orders, dealers, play, "hold", "greedy")
    want = paired_diff_ci(early, hold)
    first, second = p2["contrasts"]
    assert (first["a"], first["b"], first["deals"]) == ("early", "hold", 60)
    assert first["mean"] == pytest.approx(want.mean) and first["ci95"] == pytest.approx(list(want.ci95))
    # against greedy the contrast is the policy's own margin (greedy's is 0 on every deal)
    assert second["mean"] == pytest.approx(p2["policies"]["hold"]["margin"]["mean"])
    with pytest.raises(ValueError, match="no policy 'nobody'"):
        measure.contrast({"early": early}, "early", "nobody")


def test_the_report_and_the_figure_carry_the_contrast(tmp_path):
    cfg = study.StudyConfig("dithmarschen", deals=60, strong="greedy", strong_deals=0)
    res = study.run_study(cfg, progress=False)
    report.write_study(res, tmp_path, "zwick joker-study --variant dithmarschen --deals 60")
    text = (tmp_path / "report.md").read_text()
    c = json.loads((tmp_path / "results.json").read_text())["part2"]["contrasts"][0]
    assert f"**`early` − `hold`**: {report.ci_text(c, 3)} points per deal, paired over the same 60 deals" in text
    drawn = report.policies_figure(res["part2"], tmp_path / "again.png")["bars"]
    bar = next(b for b in drawn if b["name"] == "early − hold")
    assert bar["mean"] == pytest.approx(c["mean"]) and bar["ci95"] == c["ci95"]
    for b in drawn:  # grey exactly where the interval reaches zero
        assert (b["kind"] == "level") == (b["ci95"][0] <= 0 <= b["ci95"][1])
    greedy = next(b for b in drawn if b["name"] == "greedy")
    assert greedy["kind"] == "level" and greedy["mean"] == 0.0


def test_a_contrast_must_name_two_policies_of_the_study(capsys):
    with pytest.raises(ValueError, match="a contrast is two different policies"):
        study.StudyConfig("dithmarschen", contrasts=[["early", "early"]]).rules()
    assert main(["joker-study", "--variant", "dithmarschen", "--contrast", "early"]) == 2
    assert "give two policies separated by one comma" in capsys.readouterr().err


def strong_run(deals: int, half: float) -> dict:
    """A strong run's results object with rules whose intervals are ``half`` wide each way."""
    means = {"hold": -2.6, "early": 0.0, "min_points:k=6": 1.1}
    policies = [
        {"policy": p, "vs": "x", "deals": deals, "mean_diff": m, "ci95": [m - half, m + half],
         "cv": {"mean_diff": m, "ci95": [m - half, m + half]}, "variance_ratio": 1.0}
        for p, m in means.items()
    ]  # fmt: skip
    lead = {"mean_diff": 1.1, "ci95": [1.1 - half * 1.4, 1.1 + half * 1.4]}
    return {
        "agent": "expert:time=0,iters=30", "deals": deals, "seed": 0, "weights": {}, "seconds_per_deal": 1.0,
        "file": "x.jsonl", "replayed_seatings": 0, "policies": policies, "joker_value": [], "behaviour": [], "vs_greedy": None,
        "best_policy": {"policy": "tie", "top": "min_points:k=6", "second": "unrestricted", "lead": lead,
                        "tied": ["min_points:k=6", "unrestricted"], "margin": policies[2]},
    }  # fmt: skip


def test_a_small_strong_run_is_labelled_too_few_deals_to_tell():
    small = strong_report.strong_markdown({"strong_play_expert": strong_run(4, 11.8)}, "Dithmarschen")
    assert small.count("too few deals to tell") == 4  # three rules and the verdict
    line = next(x for x in small.splitlines() if x.startswith("| `early` |"))
    assert line.endswith("| too few deals to tell (about 32 for ±2.60) |")
    large = strong_report.strong_markdown({"strong_play_expert": strong_run(200, 0.9)}, "Dithmarschen")
    assert "too few deals to tell" not in large
    assert np.all(["| yes |" in x for x in large.splitlines() if x.startswith("| `")][:3])

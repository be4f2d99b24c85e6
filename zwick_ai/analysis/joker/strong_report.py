"""The strong-play report: the run's object in ``results.json``, its figure, ``strong_play.md``
with the table of greedy-play findings under strong play, and a pointer in ``report.md``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.agents import joker_policies
from zwick_ai.agents.base import agent_params
from zwick_ai.analysis.joker.report import called_best, per_joker_table, strong_best_text
from zwick_ai.analysis.joker.strong_play import STRONG_POLICIES, StrongConfig
from zwick_ai.eval.report import ci_text, error_bars, markdown_table
from zwick_ai.eval.verdict import too_few_deals, too_few_text
from zwick_ai.machine import describe
from zwick_ai.plots import pyplot, save_png


def _one_game_text(runs: list[tuple[str, dict]]) -> list[str]:
    """The control variate on one game's margin, unpaired, per run that recorded it."""
    rows = [(s["agent"], s["one_game"]) for _, s in runs if s.get("one_game")]
    if not rows:
        return []
    text = "; ".join(f"`{a}` {o['variance_ratio']:.3f} ({o['deals']} games)" for a, o in rows)
    return [
        "On one game's margin, unpaired (the reference game of each deal, every seat the unrestricted agent, "
        f"the first side's margin), the variance ratio is: {text}: the part of one game's variance that the "
        "model sees in the later stage deals. The comparisons above pair games of the same deal, which share "
        "those deals' cards, and so most of their corrections too.",
        "",
    ]


def result_key(agent: str) -> str:
    """The key of a run's object in ``results.json``: ``strong_play`` for ``net`` (the object
    DESIGN.md names), ``strong_play_<agent>`` for the others (``strong_play_expert``)."""
    name = agent_params(agent)[0].name
    return "strong_play" if name == "net" else "strong_play_" + re.sub(r"[^\w.-]", "_", name)  # my_agent:X: a file name


def _verdict(greedy: dict | None, strong: dict | None) -> str:
    """Whether a greedy-play sign finding holds under strong play (by the CIs)."""
    if not greedy or not strong:
        return "–"
    g_lo, g_hi = greedy["ci95"]
    s_lo, s_hi = strong["ci95"]
    g = 1 if g_lo > 0 else (-1 if g_hi < 0 else 0)
    s = 1 if s_lo > 0 else (-1 if s_hi < 0 else 0)
    if g == 0:
        return "greedy: no effect; strong: " + {1: "positive", -1: "negative", 0: "no effect either"}[s]
    if s == g:
        return "**held**"
    return "**reversed**" if s == -g else "not confirmed (CI includes 0)"


def findings_rows(res: dict) -> list[str]:
    """The table of greedy-play findings against strong play (``results.json`` of one variant)."""
    p1 = res.get("part1", {}).get("greedy", [])
    p2 = res.get("part2", {})
    strong = [(k, res[k]) for k in ("strong_play", "strong_play_expert") if k in res]
    head = ["finding (greedy play)", "greedy", *(f"`{s['agent']}`" for _, s in strong)]
    head += [f"held under `{s['agent']}`?" for _, s in strong]
    rows: list[list[str]] = []

    def row(label: str, g: dict | None, ss: list[dict | None], text: str | None = None) -> None:
        rows.append([label, text or ci_text(g), *(ci_text(x) for x in ss), *(_verdict(g, x) for x in ss)])

    for d in p1:
        ss = [next((v for v in s["joker_value"] if v["joker"] == d["joker"]), None) for _, s in strong]
        row(f"holding {d['joker']} gains its side points (swap)", d["gain_swap"], ss)
    pols = {p: p2["policies"][p]["margin"] for p in p2.get("policies", {})}
    for label in [joker_policies.policy_label(*joker_policies.parse_policy(s)) for s in STRONG_POLICIES]:
        if label not in pols:
            continue
        ss = [next((p for p in s["policies"] if p["policy"] == label), None) for _, s in strong]
        row(f"`{label}` vs unrestricted play (margin)", pols[label], ss)
    if p2:
        greedy_best = called_best(p2)
        if greedy_best is None:
            text = f"tie (`{p2['best']}`, `{p2['best_vs_second']['second']}`: lead {ci_text(p2['best_vs_second']['lead'])})"
        else:
            text = f"`{greedy_best}`" if greedy_best != "greedy" else "unrestricted (`greedy`)"
        cells = [strong_best_text(s["best_policy"]) for _, s in strong]
        same = {"greedy": "unrestricted", None: "tie"}.get(greedy_best, greedy_best)
        verdicts = ["**held**" if s["best_policy"]["policy"] == same else "no" for _, s in strong]
        rows.append(["best joker use", text, *cells, *verdicts])
    return markdown_table(head, rows)


def strong_verdict(b: dict, deals: int, effects: list[float] | None = None) -> str:
    """The best joker use in one sentence: called best only when its lead over the runner-up
    excludes zero, otherwise the tie; labelled "too few deals to tell" when the lead's CI is wider
    than every effect of the rules' table (``effects``)."""
    if not b.get("lead"):  # written before ties were called: no rule's CI lay above 0
        return (
            f"**Best use:** `{b['policy']}` (the best rule's margin {ci_text(b['margin'])}; written before ties "
            "were called, the lead over the runner-up is not recorded)."
        )
    lead = (
        f"lead of `{b['top']}` over the runner-up `{b['second']}` {ci_text(b['lead'])} points per deal "
        f"(paired over the same {deals} deals)"
    )
    flag = too_few_deals(b["lead"], effects or [], deals)
    few = f" **{too_few_text(flag)}.**" if flag else ""
    if b["policy"] == "tie":
        tied = ", ".join(f"`{t}`" for t in b["tied"])
        return f"**No joker use is best: {tied} tie** (CIs of their paired differences include 0); {lead}.{few}"
    return f"**Best use:** `{b['policy']}`; {lead}.{few}"


def figure(res_key: str, s: dict, out: Path) -> str:
    """The strong agent's joker use (stage, cards in hand, table points taken, who captured it)."""
    plt = pyplot()
    beh = [b for b in s["behaviour"] if b["plays"]]
    name = f"{res_key}_joker_use.png"
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    x = np.arange(len(beh))
    labels = [f"{b['joker']}\n({b['plays']})" for b in beh]
    stages = max((len(b["stage_counts"]) for b in beh), default=1)
    bottom = np.zeros(len(beh))
    for t in range(stages):
        share = np.array([(b["stage_counts"][t] if t < len(b["stage_counts"]) else 0) / b["plays"] for b in beh])
        axes[0].bar(x, share, bottom=bottom, label=f"stage {t + 1}")
        bottom += share
    axes[0].set_title("stage of the hand it is played in", fontsize=9)
    axes[0].legend(fontsize=6)
    bottom = np.zeros(len(beh))
    for lo, hi, lab in ((1, 1, "last card"), (2, 2, "2 cards"), (3, 3, "3 cards"), (4, 99, "4 or more")):
        share = np.array([sum(b["hand_counts"][lo : hi + 1]) / b["plays"] for b in beh])
        axes[1].bar(x, share, bottom=bottom, label=lab)
        bottom += share
    axes[1].set_title("cards in the hand when played (joker included)", fontsize=9)
    axes[1].legend(fontsize=6)
    pts = [b["points_taken_when_capturing"] for b in beh]
    means, err = error_bars(pts)
    axes[2].bar(x, means, yerr=err, capsize=3)
    axes[2].set_title("table points its captures take", fontsize=9)
    bottom = np.zeros(len(beh))
    for who in ("holder", "opponents", "nobody"):
        share = np.array([b["captured_by"][who] / b["plays"] for b in beh])
        axes[3].bar(x, share, bottom=bottom, label={"holder": "holder's side"}.get(who, who))
        bottom += share
    axes[3].set_title("who has captured it at the end", fontsize=9)
    axes[3].legend(fontsize=6)
    for ax in axes:
        ax.set_xticks(x, labels, fontsize=7)
    fig.suptitle(f"How `{s['agent']}` uses each joker ({s['deals']} deals, every seat; plays in brackets)", fontsize=10)
    fig.tight_layout()
    save_png(fig, out / name, dpi=110)
    plt.close(fig)
    return name


def _enough(p: dict, effects: list[float]) -> str:
    """A rule's row: "yes", or "too few deals to tell" with the deals that would resolve the
    table's largest effect."""
    flag = too_few_deals(p, effects, p["deals"])
    if not flag:
        return "yes"
    return f"too few deals to tell (about {flag['need']['width']:,} for ±{flag['largest']:.2f})"


def strong_markdown(res: dict, variant_label: str) -> str:
    """``strong_play.md``: every strong run of ``results.json``, its commands, the control variate
    and the findings table."""
    lines = [f"# Joker study with strong play: {variant_label}", ""]
    runs = [(k, res[k]) for k in ("strong_play", "strong_play_expert") if k in res]
    for key, s in runs:
        cmd = s.get("command", "")
        effects = [p["mean_diff"] for p in s["policies"]]
        lines += [
            f"## `{s['agent']}` (`{key}` in results.json)",
            "",
            f"Command: `{cmd}`" if cmd else "",
            "",
            f"{s['deals']} duplicate deals (seed {s['seed']}), every seat `{s['agent']}`; weights: "
            + ", ".join(f"`{n}` (sha256 {h[:12]})" for n, h in s["weights"].items())
            + f"; {s['seconds_per_deal']:.3f} s per deal (all comparisons of the deal) on {s.get('machine', '?')}; "
            f"lines in `{s['file']}`."
            + (
                f" Seatings replayed with a rule because it changed a choice: {s['replayed_seatings']} "
                "(the others are the unrestricted game itself)."
                if key != "strong_play"
                else ""
            ),
            "",
            (
                f"Strength: `{s['agent']}` − `greedy` {ci_text(s['vs_greedy'])} points per deal ({s['vs_greedy']['deals']} "
                "duplicate deals, seats swapped; "
                + (
                    f"tournament `{s['vs_greedy']['source']}`"
                    if "source" in s["vs_greedy"]
                    else "compiled play, the same deals"
                )
                + ")."
                if s.get("vs_greedy")
                else f"Strength: {s['strength']}"
                if s.get("strength")
                else ""
            ),
            "",
            f"![joker use]({key}_joker_use.png)",
            "",
            "**Joker rules on the agent's own choice**, against the unrestricted agent (margin of the restricted "
            "side per deal, mean over the seatings; the control variate's estimate on the same deals and the ratio "
            "of the variances):",
            "",
            *markdown_table(
                ["rule", "deals", "margin", "95% CI", "with control variate", "variance ratio", "enough deals?"],
                (
                    [
                        f"`{p['policy']}`",
                        p["deals"],
                        f"{p['mean_diff']:+.2f}",
                        f"[{p['ci95'][0]:+.2f}, {p['ci95'][1]:+.2f}]",
                        ci_text(p["cv"]),
                        f"{p['variance_ratio']:.3f}",
                        _enough(p, effects),
                    ]
                    for p in sorted(s["policies"], key=lambda p: -p["mean_diff"])
                ),
            ),
        ]
        b = s["best_policy"]
        lines += ["", strong_verdict(b, s["deals"], effects)]
        table = per_joker_table({p["policy"]: p for p in s["policies"]}, "the unrestricted agent", s["deals"])
        lines += ["", *table[:-1]] if table else []
        lines += [
            "",
            "**What a joker is worth** (the same deals with the joker swapped to an opponent, every seat the "
            "unrestricted agent): change of the holder's points, and of its margin, plain and with the control variate "
            "(only the stages dealt after the joker's):",
            "",
            *markdown_table(
                ["joker", "deals", "points", "margin", "margin with control variate", "variance ratio"],
                (
                    [
                        v["joker"],
                        v["deals"],
                        ci_text(v),
                        ci_text(v["margin"]),
                        ci_text(v["margin_cv"]),
                        f"{v['variance_ratio']:.3f}",
                    ]
                    for v in s["joker_value"]
                ),
            ),
            "",
            "**How it plays each joker** (reference games, every seat):",
            "",
        ]
        rows = []
        for b in s["behaviour"]:
            if not b["plays"]:
                rows.append([b["joker"], 0] + ["–"] * 5)
                continue
            k, w, n = b["kinds"], b["captured_by"], b["plays"]
            rows.append(
                [
                    b["joker"],
                    n,
                    f"{100 * b['last_stage_share']:.0f}%",
                    f"{100 * (b['hand_counts'][1] if len(b['hand_counts']) > 1 else 0) / n:.0f}%",
                    f"{k['capture']} / {k['build']} / {k['trail']}",
                    ci_text(b["points_taken_when_capturing"]),
                    f"{100 * w['holder'] / n:.0f}% / {100 * w['opponents'] / n:.0f}% / {100 * w['nobody'] / n:.0f}%",
                ]
            )
        head = ["joker", "plays", "in last stage", "as last card", "capture / build / trail", "table points taken"]
        lines += [*markdown_table(head + ["captured by holder's side / opponents / nobody"], rows), ""]
    lines += [
        "## Greedy-play findings under strong play",
        "",
        "Greedy: this folder's greedy study (`report.md`; its own deal count). *Held*: the strong agent's CI "
        "is on the same side of zero; *not confirmed*: its CI includes zero.",
        "",
        *findings_rows(res),
        "",
        "## The control variate",
        "",
        "At each stage deal the learned model's value of every side after the actual cards (the value model's, "
        "or with `--cv-model after` the after network's, `zwick train net`, read as each side's afterstate), minus its "
        "expectation over the stock's orders (exact up to 720 orders, else the mean of independent uniform "
        "permutations), centred over the sides, is subtracted from the margins (`zwick_ai/analysis/joker/net_play.py`). "
        "Its expectation is zero, so the estimate stays unbiased (tested by exact enumeration on a micro game, "
        "`tests/analysis/test_joker_net_play.py`). The variance ratio is Var(corrected)/Var(plain) on the same deals: below 1 "
        "the control variate saves deals (a ratio r gives the same CI from r times the deals).",
        "",
        *_one_game_text(runs),
    ]
    return "\n".join(lines)


STRONG_MARK = "<!-- strong play -->"


def strength_folder(agent: str) -> str:
    """Where a tournament of ``agent`` against greedy on this variant is expected (its strength
    for the report when the run does not measure it itself): ``strength-<agent>``."""
    return "strength-" + re.sub(r"[^A-Za-z0-9=.]+", "_", agent).strip("_")


def strength_from_tournament(folder: Path, agent: str) -> dict[str, Any] | None:
    """``agent`` − ``greedy`` from a ``zwick tournament`` summary in ``folder``, if there is one."""
    path = folder / "summary.json"
    if not path.is_file():
        return None
    summary = json.loads(path.read_text())
    for pair in summary.get("pairs", []):
        if {pair["a"], pair["b"]} == {agent, "greedy"}:
            sign = 1 if pair["a"] == agent else -1
            lo, hi = sorted(sign * x for x in pair["ci95"])
            return {
                "deals": pair["deals"],
                "mean_diff": sign * pair["mean_diff"],
                "ci95": [lo, hi],
                "source": f"{folder.name}/summary.json ({summary.get('command', 'zwick tournament')})",
            }
    return None


def write_strong(out: Path, cfg: StrongConfig, summary: dict, command: str) -> list[Path]:
    """Put the run's object into ``out/results.json`` (the other keys kept), and write the figure,
    ``strong_play.md`` and a pointer section at the end of ``report.md``."""
    rules = cfg.rules()
    path = out / "results.json"
    res = json.loads(path.read_text()) if path.is_file() else {}
    key = result_key(cfg.agent)
    summary = dict(summary, command=command, machine=describe())
    if summary.get("vs_greedy") is None:
        summary["vs_greedy"] = strength_from_tournament(out / strength_folder(cfg.agent), cfg.agent)
    res[key] = summary
    path.write_text(json.dumps(res, indent=1) + "\n")
    fig = figure(key, summary, out)
    (out / "strong_play.md").write_text(strong_markdown(res, rules.describe()))
    report = out / "report.md"
    text = report.read_text() if report.is_file() else ""
    text = text.split(STRONG_MARK)[0].rstrip("\n")
    text += f"\n\n{STRONG_MARK}\n## Strong play\n\nThe same questions asked of the strong agents "
    text += "(`" + "`, `".join(res[k]["agent"] for k in ("strong_play", "strong_play_expert") if k in res) + "`): "
    text += "[strong_play.md](strong_play.md) (rules on the agent's choice, joker values, joker use, which greedy findings held).\n"
    report.write_text(text.lstrip("\n"))
    return [path, out / fig, out / "strong_play.md", report]

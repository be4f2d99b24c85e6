"""The joker study's report: ``results.json``, the PNG figures, ``report.md``, and the summary
table over every study in a folder."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from zwick_ai import zwicker
from zwick_ai.agents import joker_policies
from zwick_ai.analysis.joker.deals import STUDY_POLICIES
from zwick_ai.eval.pictures import LEVEL_GREY, level_colour
from zwick_ai.eval.report import bar_ci, ci_text, error_bars, markdown_table, percent_text
from zwick_ai.eval.verdict import too_few_deals, too_few_text
from zwick_ai.plots import pyplot, save_png


def figures(res: dict, out: Path) -> list[str]:
    """Write the study's PNG figures to ``out``; returns their file names."""
    plt = pyplot()
    names = []
    p1 = res["part1"]
    jokers = [d["joker"] for d in p1["greedy"]]
    x = np.arange(len(jokers))
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (pol, key) in enumerate([(p, k) for p in ("greedy", "random") for k in ("gain_swap", "gain_conditioning")]):
        bar_ci(ax, x + (i - 1.5) * 0.2, [d[key] for d in p1[pol]], 0.2, f"{pol}, {key.split('_')[1]}")
    ax.set_xticks(x, jokers)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylabel("points gained by the holder's side")
    ax.set_title(f"Value of holding a joker ({p1['greedy'][0]['deals']} deals each)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, out / "part1_holding_value.png", dpi=110)
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
    save_png(fig, out / "part1_capture_share.png", dpi=110)
    plt.close(fig)
    names.append("part1_capture_share.png")

    p2 = res["part2"]
    policies_figure(p2, out / "part2_policies.png")
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
    save_png(fig, out / "part2_when_played.png", dpi=110)
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
        means, err = error_bars(ests)
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
    save_png(fig, out / "part3_rule_sets.png", dpi=110)
    plt.close(fig)
    names.append("part3_rule_sets.png")
    return names


def policies_figure(p2: dict, path: Path) -> dict:
    """``part2_policies.png``: each policy's margin against greedy with its 95% CI (grey where the
    CI reaches zero: level with greedy) and, beside it, the paired contrasts (``early − hold``).
    Returns the drawn values and colour classes."""
    plt = pyplot()
    pols = [p for p in ("greedy", *STUDY_POLICIES) if p in p2["policies"]]  # older results: fewer rules
    contrasts = p2.get("contrasts", [])
    fig, axes = plt.subplots(1, 2 if contrasts else 1, figsize=(10 if contrasts else 7, 4.4), squeeze=False,
                             gridspec_kw={"width_ratios": [2.2, 1.0] if contrasts else [1.0]})  # fmt: skip
    rows = [(p, p2["policies"][p]["margin"]) for p in pols]
    rows += [(f"{c['a']} − {c['b']}", c) for c in contrasts]
    drawn = []
    for ax, part in zip(axes[0], (rows[: len(pols)], rows[len(pols) :]), strict=False):
        names = [name for name, _ in part]
        ests = [e for _, e in part]
        means, err = error_bars(ests)
        kinds = [level_colour({"ci95": e["ci95"]}) for e in ests]
        colours = [LEVEL_GREY if k == "level" else "tab:blue" for k in kinds]
        ax.barh(np.arange(len(names)), means, 0.6, xerr=err, capsize=3, color=colours, edgecolor="#555555", lw=0.5)
        ax.set_yticks(np.arange(len(names)), names, fontsize=8)
        ax.axvline(0, color="k", lw=0.5)
        ax.set_ylim(max(len(names), 4) - 0.5, -0.5)  # first on top; a lone contrast stays a thin bar
        drawn += [{"name": n, "mean": float(m), "ci95": list(e["ci95"]), "kind": k}
                  for n, m, e, k in zip(names, means, ests, kinds, strict=True)]  # fmt: skip
    deals = p2["policies"]["greedy"]["deals"]
    axes[0][0].set_xlabel("margin per deal against greedy (points), 95% CI")
    axes[0][0].set_title(f"Joker policies, duplicate vs greedy ({deals} deals); grey: level", fontsize=9)
    if contrasts:
        axes[0][1].set_xlabel("a − b, points per deal, 95% CI")
        axes[0][1].set_title("contrasts on the same deals", fontsize=9)
    fig.tight_layout()
    save_png(fig, path, dpi=110)
    plt.close(fig)
    return {"bars": drawn}


def contrast_lines(p2: dict, digits: int = 3) -> list[str]:
    """Part 2's paired contrasts in words (``a − b`` deal by deal on the same deals), ending with a
    blank line; none for results written before contrasts were measured."""
    out = []
    for c in p2.get("contrasts", []):
        lo, hi = c["ci95"]
        said = (
            f"`{c['a']}` scores more"
            if lo > 0
            else (f"`{c['b']}` scores more" if hi < 0 else "level (the CI includes 0)")
        )
        out.append(
            f"**`{c['a']}` − `{c['b']}`**: {ci_text(c, digits)} points per deal, paired over the same {c['deals']} deals: {said}."
        )
    return out + [""] if out else []


def _behaviour_table(beh: list[dict]) -> list[str]:
    rows = []
    for b in beh:
        if not b["plays"]:
            rows.append([b["joker"], 0] + ["–"] * 6)
            continue
        k = b["kinds"]
        rows.append(
            [
                b["joker"],
                b["plays"],
                percent_text(b["last_stage"]),
                percent_text(b["as_last_card"]),
                f"{b['hand_cards']:.2f}",
                f"{k['capture']} / {k['build']} / {k['trail']}",
                ci_text(b["points_taken_when_capturing"]),
                f"{b['table_units']:.1f}",
            ]
        )
    head = ["joker", "plays", "in last stage", "as last card of the hand", "cards in hand", "capture / build / trail"]
    return markdown_table(head + ["points taken by a capture", "table units"], rows)


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
        rows = [
            [d["joker"], d["points"], d["dealt_to_hand"]]
            + [ci_text(d[k]) for k in ("gain_swap", "margin_gain_swap", "gain_conditioning")]
            + [percent_text(d["won_by_holder"]), percent_text(d["won_by_opponents"])]
            for d in p1[pol]
        ]
        head = ["joker", "its points", "dealt to a hand", "gain (swap)", "margin gain (swap)", "gain (conditioning)"]
        head += ["kept by holder's side", "won by opponents"]
        lines += [f"**{pol} play at every seat**", "", *markdown_table(head, rows), ""]
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
        *markdown_table(
            ["policy", "margin vs greedy"], ([pol, ci_text(p2["policies"][pol]["margin"], 3)] for pol in p2["ranking"])
        ),
        "",
        verdict_text(p2, 3),
        "",
        *contrast_lines(p2),
        *per_joker_table({pol: p2["policies"][pol]["margin"] for pol in p2["ranking"]}, "greedy", n, 3),
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
        flag = too_few_deals(s["margin"], [p2["policies"][p]["margin"]["mean"] for p in p2["ranking"]], s["deals"])
        lines += [
            f"**Strong agent `{s['spec']}`** against {s['opponent']} on {s['deals']} deals ({s['games']} games, "
            f"{s['seconds_per_game']:.1f} s of its thinking per game): margin {ci_text(s['margin'])}"
            + (f": **{too_few_text(flag)}** (the policies' margins above)." if flag else "."),
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
        *markdown_table(
            ["rule set", "jokers", "points in play", "forehand margin", "sd", "skill gap", "gap / points", "gap / sd"],
            (
                [
                    d["label"],
                    d["jokers"],
                    d["points_in_play"],
                    ci_text(d["forehand_margin"]),
                    f"{d['margin_sd']:.2f}",
                    ci_text(d["skill_gap"]),
                    f"{d['skill_gap_per_point']:.3f}",
                    f"{d['skill_gap_per_sd']:.2f}",
                ]
                for d in p3
            ),
        ),
    ]
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
    if old.is_file():  # the strong-play runs' objects (zwick_ai.analysis.joker.strong_report) stay
        kept = {k: v for k, v in json.loads(old.read_text()).items() if k.startswith("strong_play")}
        res = res | {k: v for k, v in kept.items() if k not in res}
    (out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    names = figures(res, out)
    text = report_markdown(res, command, names)
    if (out / "strong_play.md").is_file():
        text += "\n<!-- strong play -->\n## Strong play\n\nThe same questions asked of the strong agents: [strong_play.md](strong_play.md).\n"
    (out / "report.md").write_text(text)
    return [out / "results.json", out / "report.md", *(out / n for n in names)]


def strong_best_text(best: dict) -> str:
    """A strong run's best joker use in a table cell: the rule (or ``unrestricted``) with its lead
    over the runner-up, or the tie."""
    if not best.get("lead"):  # written before ties were called: no rule's CI lay above 0
        return f"`{best['policy']}` (best rule {ci_text(best['margin'])}; lead over the runner-up not recorded)"
    lead = f"lead over `{best['second']}` {ci_text(best['lead'])}"
    if best["policy"] == "tie":
        return f"tie: `{best['top']}`, `{best['second']}` ({lead})"
    return f"`{best['policy']}` ({lead})"


def per_joker_table(margins: dict[str, dict], baseline: str, deals: int, digits: int = 2) -> list[str]:
    """Markdown: each rule that also acts on one joker, on every joker, on the highest only and on
    the others only (margins with CIs against ``baseline``): when to play the highest joker, and
    whether the others follow the same rule. Empty when no per-joker rule was measured."""
    rules = [r for r in margins if "@" not in r and f"{r}@high" in margins]
    if not rules:
        return []
    rows = [[f"`{r}`", *(ci_text(margins.get(x), digits) for x in (r, f"{r}@high", f"{r}@rest"))] for r in rules]
    return [
        f"**Per joker** (margin against {baseline}, points per deal, 95% CI, {deals} deals; `@high`: the rule acts "
        "on the deck's highest joker only, `@rest` on the others only, the remaining jokers played as "
        f"{baseline} plays them):",
        "",
        *markdown_table(["rule", "on every joker", "on the highest joker only", "on the other jokers only"], rows),
        "",
    ]


def called_best(p2: dict) -> str | None:
    """The policy part 2 calls best (its lead over the runner-up excludes zero), else None; a
    results file written before ties were called: the top policy when its lead's CI lies above 0."""
    if "called_best" in p2:
        return p2["called_best"]
    return p2["best"] if p2["best_vs_second"]["lead"]["ci95"][0] > 0 else None


def verdict_text(p2: dict, digits: int = 2) -> str:
    """Part 2's answer in one sentence: the best policy with its lead over the runner-up, or the tie."""
    top, lead = p2["best"], p2["best_vs_second"]
    tail = (
        f"lead of `{top}` over the runner-up `{lead['second']}`: {ci_text(lead['lead'], digits)} points per deal "
        f"(paired over the same {p2['policies'][top]['deals']} deals)"
    )
    if called_best(p2) is None:
        tied = p2.get("tied") or [top, lead["second"]]
        return f"**No policy is best: {', '.join(f'`{t}`' for t in tied)} tie** (CIs of their paired differences include 0); {tail}."
    margin = "" if top == "greedy" else f", margin {ci_text(p2['best_margin'], digits)} against greedy"
    return f"**Best policy: `{top}`**{margin}; {tail}."


def strong_cell(p2: dict) -> str:
    """Part 2's strong agent against greedy in a table cell, labelled when its deals cannot tell
    anything the policies' margins are about."""
    s = p2["strong"]
    flag = too_few_deals(s["margin"], [p2["policies"][p]["margin"]["mean"] for p in p2["ranking"]], s["deals"])
    return f"{ci_text(s['margin'])} ({s['deals']} deals{'; too few to tell' if flag else ''})"


def summary_markdown(root: str | Path) -> str:
    """One table over every study under ``root`` (each ``*/results.json``): the value of holding
    each joker, the best joker policy, what holding costs, and the rules' skill and forehand figures."""
    rows: list[list[str]] = []
    strong_rows: list[list[str]] = []
    for path in sorted(Path(root).glob("*/results.json")):
        res = json.loads(path.read_text())
        if not isinstance(res, dict) or "part1" not in res:
            continue  # e.g. micro-cfr/results.json
        cfg, p1, p2, p3 = res["config"], res["part1"], res["part2"], res["part3"]
        rules = zwicker.rules(cfg["variant"], **cfg["options"])  # the rules read option text themselves
        n = len(joker_policies.joker_cards(rules))
        own = next(d for d in p3 if d["label"] == f"{n} {'wild' if rules.wild else 'jokers'}")
        none = p3[0]
        value = ", ".join(f"{d['joker']} {d['gain_swap']['mean']:+.1f}" for d in p1["greedy"])
        lead = p2["best_vs_second"]
        early_hold = next((c for c in p2.get("contrasts", []) if (c["a"], c["b"]) == ("early", "hold")), None)
        rows.append(
            [
                f"[{path.parent.name}]({path.parent.name}/report.md)",
                str(cfg["deals"]),
                value,
                (f"`{p2['best']}`" if called_best(p2) else f"tie: `{p2['best']}`, `{lead['second']}`")
                + f" (lead {ci_text(lead['lead'], 3)})",
                ci_text(p2["policies"]["hold"]["margin"]),
                ci_text(early_hold),
                ci_text(own["forehand_margin"]),
                f"{own['skill_gap_per_sd']:.2f} ({none['label']}: {none['skill_gap_per_sd']:.2f})",
                strong_cell(p2) if "strong" in p2 else "–",
            ]
        )
        for key in ("strong_play", "strong_play_expert"):
            if key in res:
                sp = res[key]
                vals = ", ".join(f"{v['joker']} {v['mean_diff']:+.1f}" for v in sp["joker_value"])
                hold = next((p for p in sp["policies"] if p["policy"] == "hold"), None)
                best = sp["best_policy"]
                strong_rows.append(
                    [
                        f"[{path.parent.name}]({path.parent.name}/strong_play.md)",
                        f"`{sp['agent']}`",
                        str(sp["deals"]),
                        vals,
                        strong_best_text(best),
                        ci_text(hold) if hold else "–",
                        ci_text(sp["vs_greedy"]),
                    ]
                )
    head = [
        "study",
        "deals",
        "points a joker gains its holder's side (greedy, swap)",
        "best joker policy (lead over runner-up)",
    ]
    head += ["`hold` vs greedy", "`early` − `hold`", "forehand margin", "skill gap / sd: these rules (no jokers)"]
    head += ["strong agent vs greedy"]
    lines = markdown_table(head, rows)
    if strong_rows:
        head = ["study", "agent", "deals", "points a joker gains its holder's side (swap)", "best joker use"]
        head += ["`hold` vs unrestricted", "agent vs greedy"]
        lines += [
            "",
            "Strong play (`zwick joker-study --strong-play`; every seat the strong agent, joker rules on its own "
            "choice against the unrestricted agent, points per deal, 95% CI):",
            "",
            *markdown_table(head, strong_rows),
        ]
    return "\n".join(lines)

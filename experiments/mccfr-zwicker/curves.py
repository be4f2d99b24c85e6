"""One panel per Zwicker board: the `stakes-lite --field greedy` tables against a greedy field,
points a deal minus greedy's own in the same seats (95% CI), against training iterations, from
the committed rows: the table's own play (``fallback=uniform``, sampled and argmax; 300 deals,
seed 20261207, ``greedy-field/eval.jsonl``) with and without the greedy prior (W = 200), the
share of decisions found in the table beside each prior point, and the prior runs' training curve
(greedy's fallback, seed 12345, ``greedy-field/curves.csv``).

    python experiments/mccfr-zwicker/curves.py --results experiments/results/mccfr-zwicker/greedy-field
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

#: (board run prefix, title)
BOARDS = (
    ("dithmarschen4", "Dithmarschen 4p"),
    ("christiansen3", "Christiansen 3p"),
    ("grossenwiehe4", "Großenwiehe 4p"),
    ("classic4", "classic 4p"),
    ("grupp4", "Grupp 4p"),
)
PRIOR = "stakes-lite-greedy-prior200"
NO_PRIOR = "stakes-lite-greedy"
#: (run suffix, play, label, style)
SERIES = (
    (PRIOR, "sample", "prior 200, own table, sampled", {"color": "C0", "marker": "o"}),
    (PRIOR, "argmax", "prior 200, own table, argmax", {"color": "C1", "marker": "s"}),
    (NO_PRIOR, "sample", "no prior, own table, sampled", {"color": "grey", "marker": "^", "alpha": 0.6}),
)


def eval_rows(path: Path) -> list[dict]:
    """The rows against the greedy field with the table's own play (fallback=uniform)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["opponent"] == "greedy" and r["fallback"] == "random" and r["deals"] == 300]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="experiments/results/mccfr-zwicker/greedy-field")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(args.results)
    rows = eval_rows(root / "eval.jsonl")
    with (root / "curves.csv").open() as f:
        train_rows = list(csv.DictReader(f))
    boards = [(b, t) for b, t in BOARDS if any(r["run"] == f"{b}-{PRIOR}" for r in rows)]
    fig, axes = plt.subplots(1, len(boards), figsize=(max(7.0, 3.4 * len(boards)), 4.2), squeeze=False)
    for ax, (board, title) in zip(axes[0], boards, strict=True):
        for suffix, play, label, style in SERIES:
            pts = sorted(
                (r["iterations"], r["diff"], r["ci95"], r["table_share"])
                for r in rows
                if r["run"] == f"{board}-{suffix}" and r.get("play", "sample") == play
            )
            if not pts:
                continue
            ax.errorbar(
                [p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts],
                capsize=3, ms=4, lw=1, label=label, **style,
            )  # fmt: skip
            if suffix == PRIOR and play == "sample":
                for it, diff, _, share in pts:
                    ax.annotate(f"{share:.1%}", (it, diff), textcoords="offset points", xytext=(-22, -4), fontsize=6)
        curve = sorted(
            (int(r["iteration"]), float(r["diff"]), float(r["ci95"]))
            for r in train_rows
            if r["run"] == f"{board}-{PRIOR}"
        )
        if curve:
            ax.errorbar(
                [c[0] for c in curve], [c[1] for c in curve], yerr=[c[2] for c in curve],
                color="C2", ls="--", lw=1, capsize=2, ms=3, marker=".", label="prior 200, greedy's fallback (training curve)",
            )  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.axhline(0.0, color="black", lw=0.8)
        ax.set_xlabel("training iterations")
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("points a deal minus greedy's")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=2)
    fig.suptitle(
        "MCCFR stakes-lite, greedy field, probe sampling, one worker: against greedy, 300 deals, every seat,\n"
        "95% CI (% beside a point: decisions found in the table)",
        fontsize=8,
    )
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    fig.savefig(root / "curves.png", dpi=80)
    plt.close(fig)
    print("wrote", root / "curves.png")


if __name__ == "__main__":
    main()

"""One figure per Zwicker board: the MCCFR strength curves before (``coarse``, uniform averaging,
the committed ``<board>-coarse-probe/strength.csv``) and after (``stakes``, linear averaging: the
equal-budget runs' ``strength.csv``, and ``greedy-start/`` for ``stakes`` since its key holds the
classes present and its training starts from greedy), points a deal against a greedy field minus
greedy's own (left) and against a random field minus random's own (right), against training
iterations, with 95% CIs (greedy's fallback at unseen sets, as ``zwick train`` measures).

    python experiments/mccfr-zwicker/figures.py --results experiments/results/mccfr-zwicker
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

BOARDS = ("classic2", "classic4", "grupp4", "dithmarschen4", "grossenwiehe4", "christiansen3")
#: (label, folder under the results, file)
CURVES = (
    ("before: coarse, uniform averaging", "{board}-coarse-probe"),
    ("stakes as first built (features-only key, uniform start), linear", "equal-budget/{board}-stakes"),
    ("after: stakes, classes present in the key, greedy start, linear", "greedy-start/{board}-stakes"),
    ("coarse, linear averaging", "equal-budget/{board}-coarse-linear"),
    ("coarse, uniform averaging (equal budget)", "equal-budget/{board}-coarse-uniform"),
)


def read(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="experiments/results/mccfr-zwicker")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(args.results)
    for board in BOARDS:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        drawn = False
        for label, folder in CURVES:
            rows = read(root / folder.format(board=board) / "strength.csv")
            if not rows:
                continue
            drawn = True
            x = [int(r["iteration"]) for r in rows]
            for ax, diff, ci in ((axes[0], "diff", "ci95"), (axes[1], "random_diff", "random_ci95")):
                have = [(xi, r) for xi, r in zip(x, rows, strict=True) if r.get(diff)]
                ax.errorbar(
                    [xi for xi, _ in have], [float(r[diff]) for _, r in have],
                    yerr=[float(r[ci]) for _, r in have], marker="o", capsize=3, label=label,
                )  # fmt: skip
        if not drawn:
            plt.close(fig)
            continue
        for ax, title in ((axes[0], "greedy field, minus greedy's"), (axes[1], "random field, minus random's")):
            if ax.has_data():  # classic 2p's curve has no random field: an empty axis cannot be log-scaled
                ax.set_xscale("log")
            ax.axhline(0.0, color="grey", lw=0.8)
            ax.set_xlabel("training iterations")
            ax.set_ylabel("points a deal")
            ax.set_title(f"{board}: {title}", fontsize=9)
            ax.grid(True, alpha=0.3)
        axes[0].legend(fontsize=7)
        fig.suptitle("MCCFR on Zwicker, probe sampling, 300 deals a point, every seat, 95% CI", fontsize=9)
        fig.tight_layout()
        fig.savefig(root / "equal-budget" / f"{board}.png", dpi=100)
        plt.close(fig)
        print("wrote", root / "equal-budget" / f"{board}.png")


if __name__ == "__main__":
    main()

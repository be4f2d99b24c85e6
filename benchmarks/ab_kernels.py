"""A/B timing of two versions of ``zwick_ai/zwicker/kernels.py`` in one process.

This host changes speed for minutes at a time, so two versions are compared in alternating
batches of whole random hands (``play_hands``) and the minimum and median per version are
printed. Example, the committed kernels against an older commit::

    git show c66a8ca:zwick_ai/zwicker/kernels.py > /tmp/kernels_old.py
    python benchmarks/ab_kernels.py /tmp/kernels_old.py zwick_ai/zwicker/kernels.py --variant dithmarschen

Both files are compiled without numba's cache (about a minute each).
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

import numpy as np

from zwick_ai.zwicker.rules import VARIANTS, rules


def load_kernels(path: str, name: str):
    """Import a copy of a kernels file under ``name``, compiled without the on-disk cache."""
    source = Path(path).read_text().replace("cache=True", "cache=False")
    copy = Path(tempfile.mkdtemp()) / f"{name}.py"
    copy.write_text(source)
    spec = importlib.util.spec_from_file_location(name, copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="first kernels.py")
    parser.add_argument("b", help="second kernels.py")
    parser.add_argument("--variant", choices=VARIANTS, default="dithmarschen")
    parser.add_argument("--hands", type=int, default=1000, help="hands per batch")
    parser.add_argument("--rounds", type=int, default=20, help="batches per version")
    args = parser.parse_args()
    R = rules(args.variant).array()
    versions = [load_kernels(args.a, "kernels_a"), load_kernels(args.b, "kernels_b")]
    policies = np.zeros(8, np.int64)
    seeds = np.arange(args.hands, dtype=np.int64)
    for k in versions:
        k.play_hands(R, seeds[:3], policies)  # compile
    times: list[list[float]] = [[], []]
    for _ in range(args.rounds):
        for i, k in enumerate(versions):
            t = time.perf_counter()
            k.play_hands(R, seeds, policies)
            times[i].append((time.perf_counter() - t) / args.hands * 1e6)
    a, b = np.array(times[0]), np.array(times[1])
    print(f"{args.variant}, random hands, µs per hand over {args.rounds} alternating batches of {args.hands}:")
    print(f"  A {args.a}: min {a.min():.1f}, median {np.median(a):.1f}")
    print(f"  B {args.b}: min {b.min():.1f}, median {np.median(b):.1f}")
    print(f"  A/B: {a.min() / b.min():.2f} (minima), {np.median(a / b):.2f} (median of paired ratios)")


if __name__ == "__main__":
    main()

"""A/B timing of two versions of ``zwick_ai/zwicker/kernels.py`` in one process.

This host changes speed for minutes at a time, so two versions are compared in alternating
batches of whole random hands (``play_hands``) and the minimum and median per version are
printed. Example, the committed kernels against an older commit::

    git show c66a8ca:zwick_ai/zwicker/kernels.py > /tmp/kernels_old.py
    python benchmarks/ab_kernels.py /tmp/kernels_old.py zwick_ai/zwicker/kernels.py --variant dithmarschen

Both files are compiled without numba's cache (about a minute each).
"""

from __future__ import annotations

import numpy as np
from ab_timing import ab_parser, alternate, load_copy, print_ab  # type: ignore[import-not-found]

from zwick_ai.zwicker.rules import rules


def main() -> None:
    args = ab_parser(__doc__, "kernels.py", "hands", 1000, 20).parse_args()
    R = rules(args.variant).array()
    versions = [load_copy(args.a, "kernels_a"), load_copy(args.b, "kernels_b")]
    policies = np.zeros(8, np.int64)
    seeds = np.arange(args.hands, dtype=np.int64)
    for k in versions:
        k.play_hands(R, seeds[:3], policies)  # compile
    a, b = (t / args.hands * 1e6 for t in alternate(versions, lambda k: k.play_hands(R, seeds, policies), args.rounds))
    title = f"{args.variant}, random hands, µs per hand over {args.rounds} alternating batches of {args.hands}:"
    print_ab(title, (args.a, args.b), a, b, 1)


if __name__ == "__main__":
    main()

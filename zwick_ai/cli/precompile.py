"""``zwick precompile``: compile the kernels that first runs need, once, up front.

Each group (:func:`groups`) runs a small real workload of one part of the package (a game of each
agent, a few environment or ``VectorGame`` steps, a few MCCFR iterations; each layer offers its
own), which compiles its kernels for the argument types of their real calls into the on-disk cache
(:mod:`zwick_ai._jit_cache`); a first tournament, environment or training run afterwards loads
them in seconds. A second ``zwick precompile`` finds everything cached and says so (:mod:`zwick_ai.precompile`).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zwick_ai.precompile import Group

EXAMPLES = """examples:
  zwick precompile            the kernels of tournaments, environments, VectorGame, nets, OpenSpiel bots and MCCFR
  zwick precompile --all      also the rarer agents (cfr-search, resolve, br-ismcts, cheat-uct, peek-uct, joker)
  NUMBA_CACHE_DIR=/tmp/zwick-cache zwick precompile    into that folder (where the package folder is read-only)
"""


def groups() -> list[Group]:
    """What ``zwick precompile`` compiles, in order (``rare`` groups with ``--all`` only), each
    offered by its own layer; imported when asked, so that ``zwick --help`` imports nothing of the
    package below the command line."""
    from zwick_ai.envs.warm_up import ENVIRONMENTS_GROUP, VECTOR_GROUP
    from zwick_ai.eval.warm_up import NETWORKS_GROUP, OPENSPIEL_GROUP, RARE_GROUP, TRICKS_GROUP, ZWICKER_GROUP
    from zwick_ai.learn.warm_up import MCCFR_GROUP

    return [
        ZWICKER_GROUP, TRICKS_GROUP, ENVIRONMENTS_GROUP, VECTOR_GROUP, NETWORKS_GROUP, OPENSPIEL_GROUP, MCCFR_GROUP,
        RARE_GROUP,
    ]  # fmt: skip


def cmd_precompile(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from zwick_ai import _jit_cache
    from zwick_ai.precompile import chosen, notice_silenced, run_group, summary

    todo = chosen(groups(), args.all)
    print(
        f"zwick precompile: compiling the kernels of {len(todo)} groups for this machine "
        f"into {_jit_cache.cache_location()}; on an empty cache this takes about ten minutes of CPU, "
        "once per install or engine change; what is cached already only loads:",
        file=sys.stderr,
    )
    for g in todo:
        print(f"  {g.name}: {g.what}", file=sys.stderr)
    began, done = time.perf_counter(), []
    with notice_silenced(), tqdm(total=len(todo), unit="group", disable=args.no_progress) as bar:
        for group in todo:
            bar.set_description(group.name)
            done.append(run_group(group))
            bar.update()
    print(summary(done), file=sys.stderr)
    print(f"zwick precompile: done in {time.perf_counter() - began:.1f} s")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "precompile",
        help="compile the kernels up front, so that first runs start in seconds",
        description="Compile the kernels that first runs need, once, up front: each group runs a small real "
        "workload of one part of the package (a game of each agent, a few environment or VectorGame steps, a few "
        "MCCFR iterations), which compiles its kernels into the on-disk cache; a first tournament, environment or "
        "training run afterwards loads them in seconds. Run again, it finds everything cached and says so.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--all", action="store_true", help="also the rarer agents")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_precompile)

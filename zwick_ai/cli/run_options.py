"""The options ``zwick tournament``, ``zwick run`` and ``zwick leaderboard`` share: where the
games run (``--workers``, ``--backend``, ``--address``, ``--quiet``: never what they give) and the
rules of agents from outside the package (their clocks, and what their failure does). A parser
table: no imports beyond the standard library, so ``--help`` stays light.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

__all__ = ["add_agent_rule_args", "add_run_args", "agent_rules", "default_workers"]


def default_workers() -> int:
    """Two worker processes where there are two cores (the default tournament is sized for that)."""
    return max(1, min(2, os.cpu_count() or 1))


def agent_rules(args: argparse.Namespace) -> dict[str, Any]:
    """The ``Tournament`` keywords of ``--move-time-limit``, ``--start-time-limit`` and ``--on-agent-error``."""
    names = ("move_time_limit", "start_time_limit", "on_agent_error")
    return {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}


def add_agent_rule_args(p: argparse.ArgumentParser, from_file: bool = False) -> None:
    """The options for agents from outside the package: their clocks, and what their failure does.
    ``from_file``: a file's keys of the same names are the defaults (the options override them)."""
    from zwick_ai.cli.defaults import MOVE_TIME_LIMIT, START_TIME_LIMIT

    mine = "the file's, else " if from_file else ""
    p.add_argument(
        "--move-time-limit", type=float, metavar="S",
        help=f"seconds an agent from outside the package may take for one decision (default: {mine}{MOVE_TIME_LIMIT:g}); "
        "an agent over it is interrupted, and its process ended 5 s later",
    )  # fmt: skip
    p.add_argument(
        "--start-time-limit", type=float, metavar="S",
        help=f"seconds such an agent may take to be imported and built (default: {mine}{START_TIME_LIMIT:g})",
    )  # fmt: skip
    p.add_argument(
        "--on-agent-error", choices=("stop", "forfeit"),
        help="when such an agent fails (raises, exits, crashes its worker, overruns): stop the run naming it "
        "(exit status 3), or forfeit: the agent loses that deal, the run goes on, the game is listed in "
        f"forfeits.jsonl (default: {mine}stop; the traceback goes to agent-errors.log in the results folder)",
    )  # fmt: skip


def add_run_args(p: argparse.ArgumentParser, from_file: bool = False) -> None:
    """``--workers``, ``--backend``, ``--address`` (where games run, never what they give) and
    ``--quiet``. ``from_file``: the defaults come from an experiment file."""
    default = " (default: the file's, else %(default)s)" if from_file else " (default: %(default)s)"
    p.add_argument(
        "--workers", type=int, default=None if from_file else default_workers(),
        help="worker processes (local) or CPUs of a local Ray instance"
        + (" (default: the file's, else " + str(default_workers()) + ")" if from_file else default),
    )  # fmt: skip
    p.add_argument(
        "--backend", choices=("local", "ray"), default=None if from_file else "local",
        help="local processes, or Ray (pip install 'zwick_ai[ray]')" + (" (default: the file's, else local)" if from_file else default),
    )  # fmt: skip
    p.add_argument("--address", help="ray: address of an existing cluster (e.g. auto); default: start a local one")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

"""``zwick agents``: the registered agents, their spec parameters and the games they play."""

from __future__ import annotations

import argparse


def cmd_agents(args: argparse.Namespace) -> int:
    from zwick_ai.agents import registered

    print("| agent | games | parameters (default) | what it does |")
    print("|---|---|---|---|")
    for info in registered():
        params = "<br>".join(f"`{p.name}={p.default!s}`: {p.help}" for p in info.params) or "–"
        print(f"| `{info.name}` | {', '.join(info.games)} | {params} | {info.summary} |")
    print("\nA spec is `name` or `name:key=value,key=value`, e.g. `ismcts:iters=2000,rollout=greedy`.")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``agents`` to the ``zwick`` command."""
    p = sub.add_parser("agents", help="list the agents, their spec parameters and games")
    p.set_defaults(func=cmd_agents)

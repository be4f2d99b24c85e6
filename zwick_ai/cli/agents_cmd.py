"""``zwick agents``: the registered agents (the package's and those installed packages register
under the entry-point group ``zwick_ai.agents``), their spec parameters and the games they play."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def listed() -> list[Any]:
    """Every registered agent and every agent of an installed package's entry point (one that
    cannot be loaded is named on stderr, in one line)."""
    from zwick_ai.agents import agent_info, registered
    from zwick_ai.agents.outside import entry_points

    infos = {info.name: info for info in registered()}
    for name in entry_points():
        if name not in infos:
            try:
                infos[name] = agent_info(name)
            except ValueError as error:
                print(f"zwick: warning: {error}", file=sys.stderr)
    return [infos[k] for k in sorted(infos)]


def cmd_agents(args: argparse.Namespace) -> int:
    registered = listed
    if args.markdown:
        from zwick_ai.eval.report import markdown_table

        rows = [
            [
                f"`{info.name}`",
                ", ".join(info.games),
                "<br>".join(f"`{p.name}={p.default!s}`: {p.help}" for p in info.params) or "–",
                info.summary,
            ]
            for info in registered()
        ]
        print("\n".join(markdown_table(["agent", "games", "parameters (default)", "what it does"], rows)))
        print(
            "\nA spec is `name` or `name:key=value,key=value`, e.g. `ismcts:iters=2000,rollout=greedy`; "
            "an agent of your own is `module:Class` (docs/agents.md)."
        )
        return 0
    for info in registered():
        print(f"{info.name}  ({', '.join(info.games)})")
        print(f"  {info.summary}")
        width = max((len(f"{p.name}={p.default!s}") for p in info.params), default=0)
        for p in info.params:
            print(f"    {f'{p.name}={p.default!s}':<{width}}  {p.help}")
        print()
    print("A spec is name or name:key=value,key=value (defaults shown), e.g. ismcts:iters=2000,rollout=greedy.")
    print("An agent of your own: module:Class or module:Class,key=value (imported from the current directory).")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``agents`` to the ``zwick`` command."""
    p = sub.add_parser(
        "agents",
        help="list the agents, their spec parameters and games",
        description="Every registered agent: the games it plays, what it does, and the parameters of "
        "its spec string with their defaults (use them in --agents of tournament, play and run).",
    )
    p.add_argument("--markdown", action="store_true", help="print one Markdown table instead")
    p.set_defaults(func=cmd_agents)

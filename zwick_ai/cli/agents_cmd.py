"""``zwick agents``: the registered agents, their spec parameters and the games they play."""

from __future__ import annotations

import argparse


def cmd_agents(args: argparse.Namespace) -> int:
    from zwick_ai.agents import registered

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
        print("\nA spec is `name` or `name:key=value,key=value`, e.g. `ismcts:iters=2000,rollout=greedy`.")
        return 0
    for info in registered():
        print(f"{info.name}  ({', '.join(info.games)})")
        print(f"  {info.summary}")
        width = max((len(f"{p.name}={p.default!s}") for p in info.params), default=0)
        for p in info.params:
            print(f"    {f'{p.name}={p.default!s}':<{width}}  {p.help}")
        print()
    print("A spec is name or name:key=value,key=value (defaults shown), e.g. ismcts:iters=2000,rollout=greedy.")
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

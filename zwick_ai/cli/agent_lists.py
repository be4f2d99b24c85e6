"""Lists of agent specs on the command line: ``;``-separated, or with commas where a piece
``key=value`` without a ``:`` continues the spec before it (specs contain commas themselves:
``ismcts:iters=2000,c=0.7``). ``zwick tournament --agents`` and ``zwick play --agents`` read them
the same way.

>>> split_agents("greedy,ismcts:iters=2000,c=0.7,random")
['greedy', 'ismcts:iters=2000,c=0.7', 'random']
"""

from __future__ import annotations


def split_agents(text: str) -> list[str]:
    """Split a list of agent specs separated by ``;`` or by commas (see the module docstring).

    >>> split_agents("greedy;ismcts:iters=20,c=0.7;random")
    ['greedy', 'ismcts:iters=20,c=0.7', 'random']
    """
    specs: list[str] = []
    for part in text.split(";"):
        specs += _split_commas(part)
    return specs


def _split_commas(text: str) -> list[str]:
    """Split a comma-separated list of agent specs: a ``key=value`` piece continues the spec before it."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


__all__ = ["split_agents"]

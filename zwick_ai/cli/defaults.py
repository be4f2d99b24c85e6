"""What ``zwick tournament`` plays without arguments, named once: its agents, its deals and the one
line that describes them in ``zwick --help``, ``zwick tournament --help`` and the documents
(``tests/cli/test_hard_use.py`` checks that they agree). No imports: ``--help`` stays light.

>>> DEFAULT_SUMMARY
'expert (1,000 iterations) against greedy on 60 duplicate Dithmarschen deals'
"""

from __future__ import annotations

#: the agents of ``zwick tournament`` without ``--agents``: a small Dithmarschen tournament that
#: finishes in a few minutes on two cores (the expert at a small, reproducible iteration budget)
DEFAULT_AGENTS = ("expert:time=0,iters=1000,worlds=8", "greedy")
DEFAULT_DEALS = 60
#: the expert's iterations a move in the default tournament
DEFAULT_ITERS = int(DEFAULT_AGENTS[0].split("iters=")[1].split(",")[0])
DEFAULT_SUMMARY = (
    f"expert ({DEFAULT_ITERS:,} iterations) against greedy on {DEFAULT_DEALS} duplicate Dithmarschen deals"
)

#: the seconds an outside agent may take for a decision, and to be imported and built, unless told
#: (the same numbers as :data:`zwick_ai.agents.guard.MOVE_TIME_LIMIT` and ``START_TIME_LIMIT``,
#: which ``tests/cli/test_hard_use.py`` compares; named here so that ``--help`` imports nothing)
MOVE_TIME_LIMIT = 60.0
START_TIME_LIMIT = 120.0

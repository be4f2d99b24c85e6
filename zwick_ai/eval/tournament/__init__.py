"""Tournaments of agent specs on one game: duplicate deals, seat rotation, paired statistics,
Bradley–Terry ratings, resumable plain-file output.

**Design.** One seeded set of deals is shared by every pairing. For every pair of agents
``(a, b)`` and every deal, the deal is replayed with every *seating* of the pair, so luck of the
cards and of the seat cancels:

* Sides are the scoring units: Zwicker's sides (partners share one; a team game has two), every
  seat in the trick games. An agent plays every seat of the sides given to it.
* Two sides (2-player games, team games): ``a`` against ``b``, then sides swapped: 2 games.
* ``S >= 3`` sides: ``a`` alone at each side against ``b`` everywhere else, and the same with the
  roles swapped: ``2 S`` games; each agent sits at every seat equally often. With 3 sides these are
  all six assignments of the two agents in which both play.
* ``seating="rotate"`` (cheaper with ``S >= 3`` sides): deal ``i`` is played only with the lone
  agent at side ``i mod S``, ``a`` then ``b``: 2 games a deal, still duplicate (both agents meet the
  same cards in the same role), each side taken alone equally often over every ``S`` deals. Its
  games are games of the full design (same seating numbers, same seeds), so a ``rotate`` run's
  deals stay comparable with a full run's.

A seat's **score** is its side's card points in Zwicker (``GameRecord.points``) and its chip
result in the trick games (``returns``). A seating's difference is the mean score of ``a``'s seats
minus that of ``b``'s; a deal's difference is the mean over its seatings. Per pair the summary
gives the mean per-deal difference with a 95 % t-interval paired over deals, and ``win_rate_a``:
the share of deals with a positive difference, draws counted half. Ratings: Bradley–Terry on
those per-deal wins, draws and losses (:mod:`zwick_ai.eval.ratings`), Elo scale, with 95 %
bootstrap intervals over deals.

**Clock.** ``clock="cpu"`` makes the searches' time budgets (``time=`` in a spec) count the CPU
time of the searching thread instead of wall time (:mod:`zwick_ai.agents.clock`), so agents at
equal time can be compared on a loaded machine.

**Seeds.** Deal ``i`` of tournament seed ``s`` has the seed ``SeedSequence([s, i])`` (the same in
every run, whatever the number of deals), and the agents at seating ``k`` of deal ``i`` are reset
with seeds from ``SeedSequence([s, i, k, 1])``; fresh agents are built for every game, so a game's
result does not depend on which worker plays it, or after what.

**Output** (``DIR``): ``config.json`` (what defines the tournament), ``games.jsonl`` (one line per
finished game, flushed at once), and when every game is done ``summary.json``, ``summary.csv``
(pairs), ``ratings.csv``, ``ratings.png``, ``pairs.png`` and ``report.md``. Running the same
tournament again skips finished games; a damaged line is reported and its game replayed; a
different tournament in the same folder is refused. Only the number of deals may change (deal ``i``
is the same in every run), so a finished tournament can be extended; a run with fewer deals
summarises its deals and keeps the games of the others in ``games.jsonl``. Lines that are not
finished games of the tournament are moved to ``games.rejected.jsonl``, never deleted. A folder
whose games are stored compressed (``games.jsonl.gz`` only) resumes too: its games are first
copied to ``games.jsonl`` (the ``.gz`` stays; ``gzip -f games.jsonl`` stores the longer file
compressed again).

**Modules**, one job each, in the order a run uses them:

* :mod:`~zwick_ai.eval.tournament.definition`: what a tournament is (:class:`Tournament`, its
  identity, seatings and seeds);
* :mod:`~zwick_ai.eval.tournament.games`: its games as tasks, played in any process into
  ``games.jsonl`` lines, and a line checked when read back;
* :mod:`~zwick_ai.eval.tournament.folder`: the output folder (``config.json``, reading
  ``games.jsonl`` back);
* :mod:`~zwick_ai.eval.tournament.run`: :func:`run_tournament`, which plays the unfinished games;
* :mod:`~zwick_ai.eval.tournament.summary`: the numbers of ``summary.json`` from the games;
* :mod:`~zwick_ai.eval.tournament.report`: the files written from the summary (CSV, plots,
  ``report.md``).

This package gives the names most callers need (:class:`Tournament`, :func:`run_tournament`, ...);
the rest are imported from their module.
"""

from __future__ import annotations

from zwick_ai.eval.tournament.definition import SEATING_MODES, Tournament, agent_seeds, deal_seed, seatings, side_seats
from zwick_ai.eval.tournament.folder import default_out
from zwick_ai.eval.tournament.games import iter_tasks, play_task, seat_scores, tasks
from zwick_ai.eval.tournament.run import run_tournament
from zwick_ai.eval.tournament.summary import deal_differences, summarize

__all__ = [
    "SEATING_MODES",
    "Tournament",
    "agent_seeds",
    "deal_differences",
    "deal_seed",
    "default_out",
    "iter_tasks",
    "play_task",
    "run_tournament",
    "seat_scores",
    "seatings",
    "side_seats",
    "summarize",
    "tasks",
]

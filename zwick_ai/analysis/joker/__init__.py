"""The joker study: what a joker is worth, how to play it, and what the joker rules do.

One :func:`zwick_ai.analysis.joker.study.run_study` per Zwicker variant answers three questions with numbers, 95% confidence
intervals (:mod:`zwick_ai.stats`) and PNG figures, and writes ``report.md``, the figures and
``results.json`` to one directory:

1. **Value of holding each joker.** Every seeded deal in which joker J is dealt to a hand is
   replayed with J *swapped* with a random point-less, non-joker card dealt to an opponent in the
   same stage (:func:`swap_joker`: the deck order differs in exactly those two positions; the
   playout seeds are the same). The paired difference of the original holder's points is the value
   of holding J. Conditioning on who was dealt J in the unchanged deals (holder's points minus the
   other sides' mean) estimates the same quantity; both are reported, with the share of J's points
   that its holder's side and the opponents end up capturing. Greedy play and random play.
2. **When and how to use a joker.** Each joker policy of :mod:`zwick_ai.agents.joker_policies`
   plays a duplicate tournament against the plain greedy policy: on every deal, once with each side
   playing the policy and the others greedy (compiled, same deals and playout seeds); its margin is
   its side's points minus the others' mean. The best policy is named with its margin and the CI of
   its lead over the runner-up (paired over deals). Where each joker is played (stage, last stage
   or not, capture/build/trail, points taken, table size) is read from the playouts, and for the
   strongest agent available (``ismcts`` with a small budget) from OpenSpiel game records.
3. **What the joker rules do to the game.** For rule sets with 0, 3, 4 and 6 jokers (valued
   variants) or 0, 3, 4, 6 wild jokers and the four table-joker options (Grupp): the forehand
   side's advantage, the spread of the score difference, and the skill gap (greedy side against
   random sides, duplicate), also per point in play and per standard deviation.

The modules, by job:

- :mod:`~zwick_ai.analysis.joker.deals`: what every part shares (the jokers, the deals, a swapped deal, margins);
- :mod:`~zwick_ai.analysis.joker.measure`: parts 1 to 3 measured (compiled play, and the strong agent's games);
- :mod:`~zwick_ai.analysis.joker.study`: the configuration, the parts as tasks, where they run;
- :mod:`~zwick_ai.analysis.joker.report`: ``results.json``, figures, ``report.md``, the summary over studies;
- with strong play at every seat (``zwick joker-study --strong-play``):
  :mod:`~zwick_ai.analysis.joker.net_play` (the ``net`` agent's compiled play with the control variate),
  :mod:`~zwick_ai.analysis.joker.strong_play` (the run: resumable JSONL, tasks),
  :mod:`~zwick_ai.analysis.joker.strong_stats` (the lines summarised),
  :mod:`~zwick_ai.analysis.joker.strong_report` (its report).

Exact answers on micro variants (CFR+) are :mod:`zwick_ai.analysis.micro_cfr`.
"""

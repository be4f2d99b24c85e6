"""The training group of ``zwick precompile`` (:mod:`zwick_ai.precompile`): a few MCCFR iterations
on the micro games whose whole tree its evaluation extracts, on a full trick game (evaluated on
deals) and on a full Zwicker board through its bucket abstraction.

Importing this module loads nothing heavy: the workload imports the solvers when it runs.
"""

from __future__ import annotations

import tempfile

from zwick_ai.precompile import ZWICKER_2P, Group

#: the two-card micro Zwicker of ``zwick exploitability`` and a micro Zwikken (MCCFR's evaluation
#: extracts their whole tree)
MICRO_ZWICKER = (
    "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
)
MICRO_ZWIKKEN = "zwikken(variant=parlett,players=3,tricks=1,ranks=AKQ,suits=CD,max_bid_levels=1)"
#: a full trick game of ``zwick train mccfr``'s examples
FULL_ZWIKKEN = "zwikken(players=3,variant=parlett)"
#: iterations, and deals of each evaluation: the workload compiles, it need not converge
ITERATIONS = 20
EVAL_DEALS = 4


def _mccfr() -> None:
    from zwick_ai.learn.cfr.train import TrainOptions, train

    with tempfile.TemporaryDirectory() as out:
        for game_string in (MICRO_ZWICKER, MICRO_ZWIKKEN):  # the whole tree: exact evaluation
            whole_tree = TrainOptions(out=f"{out}/{len(game_string)}", eval_deals=EVAL_DEALS)
            train(game_string, "mccfr", ITERATIONS, whole_tree)
        on_deals = TrainOptions(out=f"{out}/zwikken", eval_deals=EVAL_DEALS)
        train(FULL_ZWIKKEN, "mccfr", ITERATIONS, on_deals)
        buckets = TrainOptions(out=f"{out}/zwicker", abstraction="buckets", eval_deals=EVAL_DEALS)
        train(ZWICKER_2P, "mccfr", ITERATIONS, buckets)


MCCFR_GROUP = Group("MCCFR", "MCCFR training and its evaluation on micro games and a full board", _mccfr)

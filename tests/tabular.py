"""Our per-edge policies as OpenSpiel tabular policies, for the tests that compare with OpenSpiel."""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as os_policy

from zwick_ai.agents.cfr.keys import infoset_key


def tabular(game, tree, pol: np.ndarray) -> os_policy.TabularPolicy:
    """Our per-edge policy as an OpenSpiel TabularPolicy (by walking the tree's states)."""
    out = os_policy.TabularPolicy(game)
    by_key = {int(tree.iset_key[i]): i for i in range(tree.num_infosets)}
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        if not s.is_chance_node():
            p = s.current_player()
            i = by_key[infoset_key(s, p)]
            o, n = tree.iset_off[i], tree.iset_n[i]
            probs = out.policy_for_key(s.information_state_string(p))
            probs[:] = 0
            probs[tree.actions[o : o + n]] = pol[o : o + n]
        stack.extend(s.child(a) for a in s.legal_actions())
    return out

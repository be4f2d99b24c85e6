"""Exact answers on micro Zwicker variants: is holding the joker optimal? Each micro game is solved
whole with CFR+ (:mod:`zwick_ai.agents.cfr`); ``zwick joker-study --micro-cfr`` writes the table."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from zwick_ai import zwicker
from zwick_ai.eval.report import markdown_table

# Part 4: exact answers on micro variants (CFR)
# ------------------------------------------------------------------------------------------------
#: micro games small enough for the whole tree (7 cards, two cards per hand, one stage)
MICRO_GAMES = (
    "zwicker(variant=dithmarschen,players=2,ranks=A34,suits=CD,jokers=x15,hand_size=2,table_size=2,stages=1)",
    "zwicker(variant=grupp,players=2,ranks=A34,suits=CD,wild_jokers=1,hand_size=2,table_size=2,stages=1)",
)


def micro_cfr(game_string: str, iterations: int = 400) -> dict:
    """Solve a micro Zwicker game with CFR+ and ask whether holding the joker is optimal: at every
    turn where the mover holds a joker and another card, the equilibrium's probability of playing
    the joker now (weighted by how often the turn is reached); and what the two pure joker rules
    cost against the equilibrium opponent: never play the joker while another card is left (hold)
    and always play it first (early).

    >>> r = micro_cfr("zwicker(variant=dithmarschen,players=2,ranks=A4,suits=CD,jokers=x15,hand_size=2,"
    ...               "table_size=1,stages=1)", iterations=50)
    >>> r["joker_turns"] > 0, r["value_hold"][0] < r["value_equilibrium"][0]
    (True, True)
    """
    import pyspiel

    from zwick_ai.agents.cfr.keys import infoset_key
    from zwick_ai.learn.cfr.exact import ExactSolver, average_policy, nash_conv, policy_values
    from zwick_ai.learn.cfr.tree import extract

    game = pyspiel.load_game(game_string)
    t0 = time.perf_counter()
    tree = extract(game)
    solver = ExactSolver(tree, "cfr+")
    solver.run(iterations)
    pol = average_policy(tree, solver.cum)
    by_key = {int(tree.iset_key[i]): i for i in range(tree.num_infosets)}
    turns: dict[int, tuple[int, int, float]] = {}  # iset -> (player, edge of the joker, reach)
    stack = [(game.new_initial_state(), 1.0)]
    while stack:
        state, reach = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend((state.child(a), reach * p) for a, p in state.chance_outcomes())
            continue
        p = state.current_player()
        i = by_key[infoset_key(state, p)]
        o, n = int(tree.iset_off[i]), int(tree.iset_n[i])
        if not state.move_prefix():
            hand = zwicker.hand(state.engine_state(), p)
            if len(hand) < 2:
                continue  # the last card: nothing to hold any more
            if any(c.startswith("X") for c in hand):
                edges = [o + k for k in range(n) if state.action_to_string(p, int(tree.actions[o + k])).startswith("X")]
                if edges and len(edges) < n:
                    prev = turns.get(i, (p, edges[0], 0.0))
                    turns[i] = (p, edges[0], prev[2] + reach)
        stack.extend((state.child(int(tree.actions[o + k])), reach * pol[o + k]) for k in range(n))
    eq = policy_values(tree, pol)

    def restricted(play_joker: bool) -> np.ndarray:
        """Each player's value when only that player follows the joker rule (the rest equilibrium)."""
        out = np.zeros(tree.num_players)
        for who in range(tree.num_players):
            q = pol.copy()
            for i, (p, edge, _) in turns.items():
                if p != who:
                    continue
                o, n = int(tree.iset_off[i]), int(tree.iset_n[i])
                if play_joker:
                    q[o : o + n] = 0.0
                    q[edge] = 1.0
                else:  # the equilibrium's other choices, renormalised (uniform if it had none)
                    q[edge] = 0.0
                    total = q[o : o + n].sum()
                    q[o : o + n] = (
                        q[o : o + n] / total if total > 0 else np.where(np.arange(o, o + n) == edge, 0, 1 / (n - 1))
                    )
            out[who] = policy_values(tree, q)[who]
        return out

    hold, early = restricted(False), restricted(True)
    turn_reach = np.array([r for _, _, r in turns.values()])
    p_joker = np.array([pol[e] for _, e, _ in turns.values()])
    return {
        "game": game_string,
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "iterations": iterations,
        "nash_conv": nash_conv(tree, pol),
        "joker_turns": len(turns),
        "p_play_joker_now": float((turn_reach * p_joker).sum() / turn_reach.sum()) if len(turns) else float("nan"),
        "turns_mostly_joker": int(np.sum(p_joker > 0.5)),
        "value_equilibrium": eq.tolist(),
        "value_hold": hold.tolist(),
        "value_early": early.tolist(),
        "seconds": time.perf_counter() - t0,
    }


def micro_markdown(results: Sequence[dict], command: str) -> str:
    lines = [
        "# Joker study, part 4: exact answers on micro variants (CFR+)",
        "",
        f"Command: `{command}`",
        "",
        "Each micro game is solved whole with CFR+ (`zwick_ai.agents.cfr`). A *joker turn* starts a move "
        "while the mover holds a joker and at least one other card (the first sub-action picks the card). "
        "*Play now*: the equilibrium's probability of playing the joker at such a turn, weighted by how "
        "often the turn is reached. *Hold* / *early*: a player's value when it alone never plays the joker "
        "while another card is left (the equilibrium's other choices, renormalised) / always plays it first, against the "
        "equilibrium (values per player; the equilibrium's own values for comparison, nash_conv says how "
        "close to equilibrium the average policy is).",
        "",
        *markdown_table(
            [
                "game",
                "nodes",
                "nash_conv",
                "joker turns (mostly joker)",
                "play now",
                "value: equilibrium",
                "hold",
                "early",
            ],
            (
                [
                    f"`{r['game']}`",
                    f"{r['nodes']:,}",
                    f"{r['nash_conv']:.4f}",
                    f"{r['joker_turns']} ({r['turns_mostly_joker']})",
                    f"{100 * r['p_play_joker_now']:.1f}%",
                    *(
                        " / ".join(f"{x:+.3f}" for x in r[k])
                        for k in ("value_equilibrium", "value_hold", "value_early")
                    ),
                ]
                for r in results
            ),
        ),
    ]
    return "\n".join(lines) + "\n"

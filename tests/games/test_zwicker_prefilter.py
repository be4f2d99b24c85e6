"""The Zwicker resampler's cheap pre-filter on its own (``_setup_ok`` over the constraints of
``_constraints``): it must never reject a world that replays consistently (it is only a necessary
condition), and it must reject every world in which a hidden seat cannot hold the values of the
builds it owns now (checked against a plain-Python statement of the owner's duty). Switched
off, the exact replay would still reject those worlds, only slower, so only this test sees it."""

from __future__ import annotations

import itertools

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from tests.random_play import at_turn_start, random_states
from zwick_ai import zwicker
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import worlds as zwicker_worlds
from zwick_ai.zwicker.layout import NC, RULES_SIZE

SPECS = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=christiansen,players=3)",
    "zwicker(variant=dithmarschen,players=2)",
]
DRAWS = 60  # random assignments of the hidden cards per state


def holds_owned_values(rules: zwicker.Rules, hand: list[int], values: list[int]) -> bool:
    """The owner's duty: distinct cards of ``hand`` carrying each of the distinct ``values``."""
    if len(values) > len(hand):
        return False
    return any(
        all(v in rules.card_values(c) for v, c in zip(values, cards, strict=True))
        for cards in itertools.permutations(hand, len(values))
    )


def owned_values(state: pyspiel.State) -> dict[int, list[int]]:
    """Seat -> the distinct values of the builds it owns on the table now."""
    out: dict[int, set[int]] = {}
    for unit in zwicker.snapshot(zwicker_bridge.engine_state(state)).table:
        if unit.build and unit.owner >= 0:
            out.setdefault(unit.owner, set()).add(unit.value)
    return {q: sorted(v) for q, v in out.items()}


@pytest.mark.parametrize("spec", SPECS)
def test_prefilter_is_necessary_and_rejects_owners_without_their_values(spec):
    game = pyspiel.load_game(spec)
    t = game.tables
    R = t.game_table[:RULES_SIZE]
    rules = game.rules
    rng = np.random.default_rng(0)
    buf = np.empty(NC + 8, np.int64)
    counts = {"states": 0, "consistent": 0, "owner_lacks": 0, "rejected": 0}
    for s in random_states(game, 400, seed=1, keep=0.5, accept=at_turn_start):
        p = s.current_player()
        owners = owned_values(s)
        setup = zwicker_worlds.resample_setup(t.game_table, s.array, p, t.workspace)
        hidden, need, truth = setup.hidden, setup.need, setup.truth
        if not set(owners) & set(hidden.tolist()):
            continue  # no hidden seat owns a build: nothing for the owner's duty to say
        counts["states"] += 1
        assert zwicker_worlds._setup_ok(R, setup, truth.copy(), buf), "the true deal was rejected"
        S0w = setup.S0.copy()
        for _ in range(DRAWS):
            cards = rng.permutation(truth)
            passed = zwicker_worlds._setup_ok(R, setup, cards, buf)
            consistent = (
                zwicker_worlds.resample_world(t.game_table, s.array, p, setup, cards, S0w, t.workspace).shape[0] > 0
            )
            starts = np.concatenate([[0], np.cumsum(need)])
            lacks = any(
                not holds_owned_values(rules, cards[starts[h] : starts[h + 1]].tolist(), owners.get(int(q), []))
                for h, q in enumerate(hidden)
            )
            assert passed or not consistent, "the pre-filter rejected a consistent world"
            if lacks:
                assert not consistent  # the oracle agrees with the exact replay ...
                assert not passed, "the pre-filter let through an owner without the value of its build"
            counts["consistent"] += consistent
            counts["owner_lacks"] += lacks
            counts["rejected"] += not passed
        if counts["states"] >= 12:
            break
    # the cases above were all met (a pre-filter switched off would reject nothing)
    assert counts["states"] >= 5 and counts["consistent"] > 0 and counts["owner_lacks"] > 0, counts
    assert counts["rejected"] >= counts["owner_lacks"], counts

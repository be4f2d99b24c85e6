"""Property tests: chips conserved over thousands of random deals per rule set; the numba kernels
agree with the plain-Python reference on legal actions and next positions."""

import numpy as np
import pytest

from zwick_ai import tricks as T
from zwick_ai.tricks import kernels as K
from zwick_ai.tricks import layout as L
from zwick_ai.tricks import reference as R

RULE_SETS = [
    ("zwikken", dict(variant="historic")),
    ("zwikken", dict(variant="historic", players=3)),
    ("zwikken", dict(variant="historic", players=6, forced_rounds=True)),
    ("zwikken", dict(variant="historic", players=3, pack="piquet", zwik="suit", upcard_pair=True)),
    ("zwikken", dict(variant="parlett")),
    ("zwikken", dict(variant="parlett", players=4, part_pot_bids=True, three_trumps=True)),
    ("zwikken", dict(variant="parlett", players=5, max_bid_levels=2)),
    ("zwikken", dict(variant="modern")),
    ("zwikken", dict(variant="modern", players=4, lubbers=True)),
    ("zwikken", dict(variant="modern", players=5, part_pot_bids=True, three_trumps=True)),
    ("zwicken", dict()),
    ("zwicken", dict(players=2)),
    ("zwicken", dict(players=5, seven_jump="next_but_one")),
    ("zwicken", dict(players=3, anbieten=True, hupf=False)),
    ("zwikken", dict(variant="parlett", tricks=1, ranks="AKQ", suits="CD")),
    ("zwicken", dict(players=2, tricks=2, hupf=False, ranks="AK7", suits="DH")),
    ("zwicken", dict(players=2, ranks="KQJT98", suits="CH")),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for g, o in RULE_SETS]


@pytest.mark.parametrize(("game", "opts"), RULE_SETS, ids=IDS)
def test_chips_conserved_over_random_deals(game, opts):
    r = T.rules(game, **opts)
    out = K.random_deals(r.cfg, 3000, 11)
    assert np.all(out[:, 0] + out[:, 1 : 1 + L.NP].sum(axis=1) == 0)  # players' net + pot change = 0
    assert np.all(out[:, 1 + r.players : 1 + L.NP] == 0)  # empty seats never pay
    assert np.all(out[:, 1 + L.NP] > 0)  # every deal ends with a result


@pytest.mark.parametrize(("game", "opts"), RULE_SETS, ids=IDS)
def test_kernels_agree_with_reference(game, opts):
    r = T.rules(game, **opts)
    rng = np.random.default_rng(5)
    steps = 0
    for _ in range(25):
        s = T.new(r)
        while not T.is_over(s):
            pos = R.decode(s)
            assert K.check_invariants(s.arr, r.cfg) == 0
            if T.is_chance(s):
                outcomes = T.chance_outcomes(s)
                assert [c for c, _ in outcomes] == R.chance_support(pos)
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                a = outcomes[rng.integers(len(outcomes))][0]
            else:
                legal = T.legal_actions(s)
                assert legal == sorted(R.legal(pos)), T.render(s)
                a = legal[rng.integers(len(legal))]
            nxt = T.apply(s, a)
            assert R.project(R.decode(nxt)) == R.project(R.apply(pos, a)), (T.render(s), a)
            s = nxt
            steps += 1
    assert steps > 100


def test_sorted_deal_is_uniform_over_hands():
    """Dealing a hand as an increasing run gives every 3-card set the same probability."""
    r = T.rules("zwicken", players=2, hupf=False)
    s = T.new(r)
    probs = {}

    def walk(state, p, cards):
        if len(cards) == 3:
            probs[tuple(cards)] = p
            return
        for c, q in T.chance_outcomes(state):
            walk(T.apply(state, c), p * q, cards + [c])

    walk(s, 1.0, [])
    assert len(probs) == 4960  # C(32, 3)
    assert np.allclose(list(probs.values()), 1 / 4960)

"""The rule-set registry: defaults, validation messages, parameters round trip, the public API."""

import pytest

from zwick_ai import tricks as T


def test_defaults_per_rule_set():
    assert T.rules("zwikken").variant == "parlett"
    assert (T.rules("zwikken", variant="historic").players, T.rules("zwikken", variant="historic").pot) == (4, 3)
    assert (T.rules("zwikken", variant="modern", players=5).pot, T.rules("zwicken").players) == (5, 4)
    assert T.rules("zwikken", variant="parlett").dealer == 2  # seat 0 is forehand


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(game="skat"), "valid games: zwikken, zwicken"),
        (dict(variant="modern", forced_rounds=True), "applies only to zwikken variant historic"),
        (dict(variant="historic", three_trumps=True), "applies only to zwikken variant parlett, modern"),
        (dict(variant="parlett", part_pot_bids=True, max_bid_levels=3), "exactly 4 levels"),
        (dict(variant="parlett", max_bid_levels=5), "max_bid_levels=5"),
        (dict(ranks="987"), "must contain a letter"),
        (dict(suits="CX"), "distinct letters from CDHS"),
        (dict(tricks=4), "valid values: 1, 2, 3"),
        (dict(pot=-2), "pot=-2"),
        (dict(dealer=3), "not a seat"),
        (dict(zwik="colour", variant="historic"), "valid values: rank, suit"),
        (dict(forced_rounds="maybe", variant="historic"), "valid values: true, false"),
    ],
)
def test_invalid_options_name_what_is_valid(kwargs, message):
    with pytest.raises(ValueError, match=message):
        T.rules(**kwargs)


def test_reduced_packs_and_params_round_trip():
    r = T.rules("zwikken", variant="parlett", ranks="kqa", suits="hc", tricks=1)
    assert r.deck_string() == "QC KC AC QH KH AH"
    assert T.rules("zwikken", **r.params()) == r
    assert "ranks=AKQ" not in str(r) and "ranks=QKA" in str(r)  # stored in engine order
    z = T.rules("zwicken", players=3, anbieten=True)
    assert T.rules("zwicken", **z.params()) == z and z.with_(pot=9).pot == 9


def test_seeded_deal_is_reproducible_and_scripted_checks_cards():
    r = T.rules("zwicken")
    assert T.deal(r, seed=5) == T.deal(r, seed=5)
    assert any(T.deal(r, seed=5) != T.deal(r, seed=k) for k in range(6, 9))
    with pytest.raises(ValueError, match="seed"):
        T.deal(r, seed=-1)
    with pytest.raises(ValueError, match="twice"):
        T.scripted(T.rules("zwikken", variant="parlett"), [["AC", "KC", "QC"], ["AC", "KD", "QD"], ["TC", "JC", "TD"]])
    with pytest.raises(ValueError, match="illegal action 'bid 9'; legal: pass; bid 1"):
        T.apply(
            T.scripted(T.rules("zwikken"), [["AC", "KC", "QC"], ["AD", "KD", "QD"], ["TC", "JC", "TD"]], "AH"), "bid 9"
        )


def test_run_session_carries_the_pot_and_passes_the_deal():
    r = T.rules("zwikken", variant="historic", players=3, dealer=0)
    seen = []

    def play_deal(rules, d):
        seen.append((rules.pot, rules.dealer))
        st = T.deal(rules, seed=d)
        while not T.is_over(st):
            st = T.apply(st, T.legal_actions(st)[-1])
        return st

    out = T.run_session(r, play_deal, 6, start_pot=2)
    assert [dealer for _, dealer in seen] == [0, 1, 2, 0, 1, 2]
    assert [pot for pot, _ in seen] == [carried + 3 for carried in [2, *out.pots[:-1]]]  # the dealer antes 3
    assert sum(out.chips) + out.final_pot - 2 == 0 and len(out.results) == 6


def test_play_session_rotates_the_deal_and_charges_antes():
    r = T.rules("zwikken", variant="historic", players=3)
    out = T.play_session(r, [T.random_policy(p) for p in range(3)], deals=12, seed=2)
    assert sum(out.chips) + out.final_pot == 0 and len(out.results) == 12
    assert T.ante(r, 0, 1) == [0, 3, 0]
    assert T.ante(T.rules("zwikken", variant="parlett"), 7, 0) == [1, 1, 1]
    assert T.ante(T.rules("zwikken", variant="modern"), 7, 0) == [0, 0, 0]
    assert T.ante(T.rules("zwikken", variant="modern"), 0, 0) == [1, 1, 1]

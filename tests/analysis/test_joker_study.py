"""Small-budget tests of the joker study: the policies do what they say (against a plain-Python
re-statement of each rule), the compiled playout loop agrees with the engine's, the joker-swap
deals differ from the originals only in the swapped cards, and every part writes its report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zwick_ai import cards, zwicker
from zwick_ai.agents import joker_policies
from zwick_ai.analysis import micro_cfr
from zwick_ai.analysis.joker import deals, measure, report, study
from zwick_ai.cli import main
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker import kernels, policy_codes
from zwick_ai.zwicker.layout import KIND_ASK, KIND_BUILD, KIND_CAPTURE, M_CARD, M_KIND, M_MASK, M_ZWICK, S_STAGE

VARIANTS = ["dithmarschen", "grossenwiehe", "christiansen", "grupp"]


# ------------------------------------------------------------------------------------------------
# The policies, position by position, against a slow re-statement
# ------------------------------------------------------------------------------------------------
def ref_value(rules, state, row, policy: str, k: int) -> float:
    """The policy's score written out in Python from the module docstring."""
    R, S = rules.array(), state.arr
    if row[M_KIND] == KIND_ASK:
        return -1e9
    base = float(kernels.greedy_value(R, S, row))
    card = int(row[M_CARD])
    if policy == "greedy" or not (cards.is_valued_joker(card) or cards.is_wild_joker(card)):
        return base
    units = zwicker.engine._units(state)
    taken = sum(rules.card_points(c) for i, u in enumerate(units) if int(row[M_MASK]) >> i & 1 for c in u.cards)
    taken += int(row[M_ZWICK]) * rules.zwick_points
    last = zwicker.stock(state) == [] or state.arr[S_STAGE] + 1 >= rules.plan.max_stages
    capture, build = row[M_KIND] == KIND_CAPTURE, row[M_KIND] == KIND_BUILD
    up, down = base + 1000, base - 1000
    return {
        "early": up if capture else base,
        "hold": down,
        "min_points": base if capture and taken >= k else down,
        "build": up if build else down,
        "last_stage": base if last else down,
    }[policy]


def walk(rules, seeds, policy, k=3):
    """Yield (state, legal rows, chosen index) along hands played by ``policy`` at every seat,
    checking the compiled scores against :func:`ref_value` at every position."""
    code = joker_policies.POLICIES.index(policy)
    R = rules.array()
    for seed in seeds:
        state = zwicker.deal(rules, int(seed))
        rng = np.random.default_rng(int(seed))
        while not zwicker.is_over(state):
            rows = zwicker.legal_rows(state)
            got = joker_policies.policy_values(R, state.arr, rows, code, k)
            want = np.array([ref_value(rules, state, r, policy, k) for r in rows])
            np.testing.assert_allclose(got, want)
            best = np.flatnonzero(got >= got.max() - 1e-9)
            i = int(best[rng.integers(len(best))])
            yield state, rows, i
            zwicker.apply_row(state, rows[i])


def is_joker_row(row) -> bool:
    return row[M_KIND] != KIND_ASK and (
        cards.is_valued_joker(int(row[M_CARD])) or cards.is_wild_joker(int(row[M_CARD]))
    )


def forced(rows) -> bool:
    """Every move that plays a card plays a joker (asking the partner is no alternative: the
    policies never ask)."""
    return all(is_joker_row(r) for r in rows if r[M_KIND] != KIND_ASK)


@pytest.mark.parametrize("variant", VARIANTS)
def test_hold_plays_a_joker_only_when_forced(variant):
    rules = zwicker.rules(variant)
    joker_plays = 0
    for _, rows, i in walk(rules, range(6), "hold"):
        if is_joker_row(rows[i]):
            joker_plays += 1
            assert forced(rows), "hold played a joker while it had another move"
    assert joker_plays > 0  # jokers do get played, at the end


@pytest.mark.parametrize("variant", ["dithmarschen", "grupp"])
def test_last_stage_and_min_points_and_early_and_build(variant):
    """Each rule is checked where it bites, and each walk must meet such positions (a walk that
    never met one would pass having checked nothing)."""
    rules = zwicker.rules(variant)
    held_back = last_stage_plays = 0
    for state, rows, i in walk(rules, range(4), "last_stage"):
        last = zwicker.stock(state) == []
        if not last and any(is_joker_row(r) for r in rows) and not forced(rows):
            held_back += 1
            assert not is_joker_row(rows[i]), "last_stage played a joker before the last stage"
        last_stage_plays += last and is_joker_row(rows[i])
    assert held_back > 0 and last_stage_plays > 0, (held_back, last_stage_plays)
    free_joker_plays = 0
    for _, rows, i in walk(rules, range(4), "min_points", k=4):
        if is_joker_row(rows[i]) and not forced(rows):
            free_joker_plays += 1
            assert rows[i][M_KIND] == KIND_CAPTURE
    assert free_joker_plays > 0
    seen = 0
    for _, rows, i in walk(rules, range(4), "early"):
        if any(is_joker_row(r) and r[M_KIND] == KIND_CAPTURE for r in rows):
            seen += 1
            assert is_joker_row(rows[i]) and rows[i][M_KIND] == KIND_CAPTURE
    assert seen > 0
    builds = 0
    for _, rows, i in walk(rules, range(20), "build"):  # joker builds are rare: 6 positions in these 20 hands
        if any(is_joker_row(r) and r[M_KIND] == KIND_BUILD for r in rows):
            builds += 1
            assert is_joker_row(rows[i]) and rows[i][M_KIND] == KIND_BUILD
    if rules.wild and rules.forced_capture:
        assert builds == 0  # a wild joker can always capture, and capturing is forced: it never builds
    else:
        assert builds > 0


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_compiled_loop_matches_engine_playouts(variant, policy):
    """Joker policies ``random``/``greedy`` replay ``kernels.play_hands`` exactly (same seeds)."""
    rules = zwicker.rules(variant)
    seeds = np.arange(30, dtype=np.int64) * 7 + 1
    mine = joker_policies.play_seeds(rules, seeds, [policy])
    code = policy_codes.POLICY_RANDOM if policy == "random" else policy_codes.POLICY_GREEDY
    scores, zwicks, won, dealt, _ = kernels.play_hands(rules.array(), seeds, np.full(rules.players, code, np.int64))
    np.testing.assert_array_equal(mine.scores, scores)
    np.testing.assert_array_equal(mine.won_side, won)
    np.testing.assert_array_equal(mine.dealt_to, dealt)


def test_joker_play_records_cover_every_joker_dealt_to_a_hand():
    rules = zwicker.rules("grossenwiehe")
    d = joker_policies.play_seeds(rules, np.arange(40), ["hold", "early", "min_points:k=2", "greedy"])
    for c in joker_policies.joker_cards(rules):
        in_hand = d.dealt_to[:, c] >= 0
        played = d.jplays[:, c, joker_policies.J_PLAYED] == 1
        np.testing.assert_array_equal(in_hand, played)  # a joker dealt to a hand leaves it by being played
        assert np.all(d.jplays[played, c, joker_policies.J_SEAT] == d.dealt_to[played, c])
        assert np.all(d.jplays[played, c, joker_policies.J_HAND] >= 1)


def test_bad_policies_are_refused():
    with pytest.raises(ValueError, match="valid: random, greedy"):
        joker_policies.parse_policy("sometimes")
    with pytest.raises(ValueError, match="whole number"):
        joker_policies.parse_policy("min_points:k=x")
    with pytest.raises(ValueError, match="one per seat"):
        joker_policies.play_seeds(zwicker.rules("dithmarschen"), np.arange(2), ["hold", "early"])


# ------------------------------------------------------------------------------------------------
# Part 1: deal maps and joker swaps
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_map_agrees_with_the_real_deal(variant):
    rules = zwicker.rules(variant)
    seeds = np.arange(20, dtype=np.int64)
    orders, dealers = zwicker_deals.deal_orders(rules.array(), seeds)
    seats, stages = deals.deal_maps(rules, orders, dealers)
    played = joker_policies.play_orders(rules, orders, dealers, joker_policies.play_seed_of(seeds), ["random"])
    np.testing.assert_array_equal(seats, played.dealt_to.astype(np.int64))  # every stage of a played hand
    for h in range(len(seeds)):
        state = zwicker.deal(rules, int(seeds[h]))
        for p in range(rules.players):
            first = set(zwicker.engine._hand_ids(state, p))
            assert first == {c for c in rules.deck if seats[h, c] == p and stages[h, c] == 0}


@pytest.mark.parametrize("variant", VARIANTS)
def test_swapped_deals_differ_only_in_the_swapped_cards(variant):
    rules = zwicker.rules(variant)
    seeds = np.arange(60, dtype=np.int64)
    orders, dealers = zwicker_deals.deal_orders(rules.array(), seeds)
    seats, stages = deals.deal_maps(rules, orders, dealers)
    side = deals.side_of_seats(rules)
    joker = deals.study_jokers(rules)[-1]
    swapped, mask, partner = deals.swap_joker(rules, orders, seats, stages, joker, seed=5)
    assert mask.sum() > 40 and np.all(mask <= (seats[:, joker] >= 0))
    for h in range(len(seeds)):
        diff = np.flatnonzero(swapped[h] != orders[h])
        if not mask[h]:
            assert diff.size == 0
            continue
        x = partner[h]
        assert sorted(orders[h][diff].tolist()) == sorted([joker, x])
        assert rules.card_points(x) == 0 and not (cards.is_valued_joker(x) or cards.is_wild_joker(x))
        assert side[seats[h, x]] != side[seats[h, joker]] and stages[h, x] == stages[h, joker]
        s2, t2 = zwicker_deals.deal_map(rules.array(), swapped[h], dealers[h])
        assert s2[joker] == seats[h, x] and s2[x] == seats[h, joker]  # the two cards changed hands...
        others = np.setdiff1d(np.array(rules.deck), [joker, x])
        np.testing.assert_array_equal(s2[others], seats[h, others])  # ...and nothing else moved
        np.testing.assert_array_equal(t2[list(rules.deck)], stages[h, list(rules.deck)])


def test_holding_values_are_consistent():
    rules = zwicker.rules("dithmarschen")
    out = measure.holding_values(rules, np.arange(300, dtype=np.int64), "greedy", swap_seed=1)
    assert [d["joker"] for d in out] == ["X15", "X20", "X25"]
    for d in out:
        assert d["swapped"] <= d["dealt_to_hand"] <= d["deals"] == 300
        assert d["won_by_holder"]["mean"] + d["won_by_opponents"]["mean"] <= 1 + 1e-9
        assert d["gain_swap"]["n"] == d["swapped"]
    # A joker is worth points to its holder: X25 (7 points) on 300 deals is clearly positive.
    assert out[-1]["gain_swap"]["ci95"][0] > 0


# ------------------------------------------------------------------------------------------------
# Parts 2 and 3, the report, the command
# ------------------------------------------------------------------------------------------------
def test_duplicate_margin_of_greedy_against_itself_is_zero_and_skill_shows():
    rules = zwicker.rules("christiansen")
    seeds = np.arange(100, dtype=np.int64)
    orders, dealers = zwicker_deals.deal_orders(rules.array(), seeds)
    play = joker_policies.play_seed_of(seeds)
    same, _ = measure.duplicate_margins(rules, orders, dealers, play, "greedy", "greedy")
    assert abs(same.mean()) < 1e-9  # three seatings of one policy: margins cancel per deal
    eff = measure.rules_effects(rules, seeds)
    assert eff["skill_gap"]["ci95"][0] > 0 and eff["deals"] == 100


def test_rule_sets_cover_joker_counts_and_grupp_options():
    labels = [lab for lab, _ in measure.rule_sets(zwicker.rules("grossenwiehe"))]
    assert labels[:4] == ["0 jokers", "3 jokers", "4 jokers", "6 jokers"]
    grupp = dict(measure.rule_sets(zwicker.rules("grupp")))
    assert grupp["6 wild, joker_capture=never"]["joker_capture"] == "never"
    assert [zwicker.rules("grupp", **o).deck_size for o in list(grupp.values())[:4]] == [52, 55, 56, 58]


def test_strong_agent_records_find_its_joker_plays():
    rules = zwicker.rules("dithmarschen")
    res = measure.strong_agent_games(rules, "joker:policy=early", np.array([3, 4]))
    assert res["games"] == 4 and res["margin"] is not None
    plays = sum(b["plays"] for b in res["behaviour"])
    dealt = 0
    for seed in (3, 4):
        order, dealer = kernels.deal_order(rules.array(), seed)
        seat, _ = zwicker_deals.deal_map(rules.array(), order, dealer)
        dealt += sum(1 for c in joker_policies.joker_cards(rules) if seat[c] >= 0)  # each side plays every seat once
    assert plays == dealt


def test_study_writes_its_report(tmp_path):
    cfg = study.StudyConfig("grupp", options={"joker_capture": "joker_only"}, deals=40, strong="greedy")
    res = study.run_study(cfg, progress=False)
    files = report.write_study(res, tmp_path, "zwick joker-study --variant grupp")
    assert {f.name for f in files} >= {"report.md", "results.json", "part1_holding_value.png", "part3_rule_sets.png"}
    for f in files:
        if f.suffix == ".png":
            assert f.read_bytes()[:4] == b"\x89PNG"
    text = (tmp_path / "report.md").read_text()
    assert "zwick joker-study --variant grupp" in text and "joker_capture=joker_only" in text
    data = json.loads((tmp_path / "results.json").read_text())
    p2 = data["part2"]  # best only when its lead over the runner-up excludes zero, else the tie
    assert (p2["called_best"] is not None) == (p2["best_vs_second"]["lead"]["ci95"][0] > 0)
    assert ("Best policy" in text) == (p2["called_best"] is not None) != ("No policy is best" in text)
    assert data["part2"]["best"] in ("greedy", *deals.STUDY_POLICIES) and len(data["part3"]) == 8
    assert cfg.slug() == "grupp-joker_capture-joker_only"
    for b in data["part2"]["behaviour"]["greedy"]:
        assert sum(b["hand_counts"]) == b["plays"] > 0 and b["hand_counts"][0] == 0  # a play needs a card
        assert b["as_last_card"]["mean"] == b["hand_counts"][1] / b["plays"]
    assert "as last card of the hand" in text


def test_cli_runs_and_refuses_bad_input(tmp_path, capsys):
    assert main(["joker-study", "--variant", "classic", "--deals", "10"]) == 2
    assert "the joker study covers" in capsys.readouterr().err
    assert main(["joker-study", "--variant", "dithmarschen", "-o", "colour=red"]) == 2
    out = tmp_path / "d"
    args = ["joker-study", "--variant", "dithmarschen", "--deals", "30", "--strong", "greedy", "--no-progress"]
    assert main([*args, "--out", str(out)]) == 0
    assert "best joker policy" in capsys.readouterr().out
    assert "--deals 30 --strong greedy" in (out / "report.md").read_text()
    assert main(["joker-study", "--summary", "--out", str(tmp_path)]) == 0
    summary = (tmp_path / "README.md").read_text()
    assert "[d](d/report.md) | 30 | X15" in summary
    assert main(["joker-study"]) == 2 and "give --variant" in capsys.readouterr().err


def test_micro_cfr_answers_with_consistent_values():
    game = "zwicker(variant=dithmarschen,players=2,ranks=A4,suits=CD,jokers=x15,hand_size=2,table_size=1,stages=1)"
    r = micro_cfr.micro_cfr(game, iterations=100)
    assert r["joker_turns"] > 0 and 0 <= r["p_play_joker_now"] <= 1 and r["nash_conv"] < 0.05
    for p in range(2):
        # A one-sided deviation cannot gain more than the average policy's nash_conv.
        assert r["value_hold"][p] <= r["value_equilibrium"][p] + r["nash_conv"] + 1e-9
        assert r["value_early"][p] <= r["value_equilibrium"][p] + r["nash_conv"] + 1e-9
    assert abs(sum(r["value_equilibrium"])) < 1e-9  # points utility: zero-sum between the two players
    text = micro_cfr.micro_markdown([r], "zwick joker-study --micro-cfr")
    assert "| `zwicker(variant=dithmarschen" in text


def test_parallel_parts_give_the_same_numbers():
    cfg = study.StudyConfig("dithmarschen", deals=20, strong="joker:policy=hold", strong_deals=1)
    one = study.run_study(cfg, progress=False)
    two = study.run_study(cfg, progress=False, workers=2)
    for res in (one, two):
        res["part2"]["strong"].pop("seconds_per_game")  # thinking time: the one thing that may differ
    for part in ("part1", "part2", "part3"):  # as JSON text: NaN (an n=1 interval) equals NaN there
        assert json.dumps(one[part], sort_keys=True) == json.dumps(two[part], sort_keys=True)
    assert two["config"]["backend"] == "local (2 workers)" and "strong" in two["part2"]


# ------------------------------------------------------------------------------------------------
# Rules on one joker
# ------------------------------------------------------------------------------------------------
def test_a_rule_on_the_highest_joker_leaves_the_others_to_greedy():
    """``hold@high`` holds the deck's highest joker (X25 in Dithmarschen) to the end and scores
    every other move, other jokers included, exactly as greedy does."""
    rules = zwicker.rules("dithmarschen")
    R = rules.array()
    high = cards.joker_id(25)
    code, word = joker_policies.POLICIES.index("hold"), joker_policies.parse_policy("hold@high")[1]
    greedy = joker_policies.POLICIES.index("greedy")
    high_moves = other_joker_moves = 0
    for seed in range(8):
        state = zwicker.deal(rules, seed)
        while not zwicker.is_over(state):
            rows = zwicker.legal_rows(state)
            got = joker_policies.policy_values(R, state.arr, rows, code, word)
            plain = joker_policies.policy_values(R, state.arr, rows, greedy, 0)
            is_high = np.array([r[M_KIND] != KIND_ASK and int(r[M_CARD]) == high for r in rows])
            np.testing.assert_allclose(got[~is_high], plain[~is_high])
            np.testing.assert_allclose(got[is_high], plain[is_high] - joker_policies.BONUS)
            high_moves += int(is_high.any())
            other_joker_moves += sum(is_joker_row(r) and not h for r, h in zip(rows, is_high, strict=True))
            zwicker.apply_row(state, rows[int(np.argmax(got))])
    assert high_moves > 0 and other_joker_moves > 0


@pytest.mark.parametrize(
    ("variant", "scope", "covered"),
    [
        ("dithmarschen", "high", [25]),
        ("dithmarschen", "rest", [15, 20]),
        ("christiansen", "high", [30]),
        ("christiansen", "X20", [20]),
        ("grossenwiehe", "rest", [15, 17, 20, 22, 25]),
    ],
)
def test_joker_scopes_name_the_jokers_of_the_deck(variant, scope, covered):
    rules = zwicker.rules(variant)
    word = joker_policies.parse_policy(f"hold@{scope}")[1]
    on = [
        cards.JOKER_VALUES[c - cards.VALUED_JOKER_BASE]
        for c in joker_policies.joker_cards(rules)
        if joker_policies.in_scope(rules.array(), c, word)
    ]
    assert on == covered


def test_per_joker_rules_are_refused_when_meaningless():
    with pytest.raises(ValueError, match="unknown joker scope 'top'"):
        joker_policies.parse_policy("hold@top")
    with pytest.raises(ValueError, match="greedy has no rule"):
        joker_policies.parse_policy("greedy@high")
    assert joker_policies.rule_param(*joker_policies.parse_policy("min_points:k=6@X25")) == "min_points=6@X25"


def test_a_tie_is_called_a_tie():
    """Two policies that play every deal alike are not ranked: the report says they tie."""
    same = np.array([0.0, 1.0, -1.0, 2.0])
    p2 = {
        "best": "greedy",
        "best_vs_second": {"second": "early", "lead": {"mean": 0.0, "ci95": [0.0, 0.0]}},
        "called_best": None,
        "tied": ["greedy", "early"],
        "policies": {"greedy": {"deals": 4}},
    }
    assert report.verdict_text(p2).startswith("**No policy is best: `greedy`, `early` tie**")
    from zwick_ai.stats import best_or_tie

    verdict = best_or_tie({"greedy": same * 0, "early": same * 0, "hold": same - 3})
    assert verdict["best"] is None and verdict["tied"] == ["greedy", "early"]

"""The joker study with strong play (zwick_ai.analysis.joker.strong_play) and its command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai import zwicker
from zwick_ai.agents import joker_policies
from zwick_ai.analysis.joker import deals, report, strong_play, strong_report, strong_stats, study
from zwick_ai.cli import main
from zwick_ai.eval.records import zwicker_game
from zwick_ai.eval.selfplay import hand_seeds
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker import policy_codes

#: a tiny expert budget for the tests (the study's is in the report)
TINY_EXPERT = "expert:time=0,iters=4,worlds=2,endgame=4"


def test_config_refuses_bad_agents_and_time_budgets():
    with pytest.raises(ValueError, match="net or expert"):
        strong_play.StrongConfig(agent="greedy").rules()
    with pytest.raises(ValueError, match="time=0"):
        strong_play.StrongConfig(agent="expert").rules()
    with pytest.raises(ValueError, match="unrestricted"):
        strong_play.StrongConfig(agent="net:joker=hold").rules()
    with pytest.raises(ValueError, match="unknown joker policy"):
        strong_play.with_rule("net", "late")
    assert strong_play.with_rule("expert:iters=3", "min_points:k=6") == "expert:iters=3,joker=min_points=6"
    assert strong_play.with_rule("net", "hold") == "net:joker=hold"


def test_deal_jokers_swap_each_joker_with_an_opponents_pointless_card_of_its_stage():
    rules = zwicker.rules("grossenwiehe")
    R = rules.array()
    side = deals.side_of_seats(rules)
    seeds = hand_seeds(0, 20)
    orders, dealers = zwicker_deals.deal_orders(R, seeds)
    found = 0
    for h in range(len(seeds)):
        seat, stage = zwicker_deals.deal_map(R, orders[h], dealers[h])
        for jk in strong_play.deal_jokers(rules, orders[h], int(dealers[h]), int(seeds[h])):
            diff = np.flatnonzero(jk["order"] != orders[h])
            assert len(diff) == 2
            j = jk["card"]
            seat2, stage2 = zwicker_deals.deal_map(R, jk["order"], dealers[h])
            assert side[seat2[j]] != jk["side"] == side[seat[j]] and stage2[j] == stage[j] == jk["stage"]
            found += 1
            # the same deal's swap never depends on the other deals
            again = strong_play.deal_jokers(rules, orders[h], int(dealers[h]), int(seeds[h]))
            assert any((a["order"] == jk["order"]).all() for a in again)
    assert found > 20


@pytest.mark.slow
def test_net_run_resumes_appends_only_and_skips_a_torn_line(tmp_path, monkeypatch):
    monkeypatch.setattr(strong_play, "NET_BLOCK", 3)
    cfg = strong_play.StrongConfig("dithmarschen", agent="net", deals=5, cv_samples=2)
    path, lines = strong_play.run_strong(cfg, tmp_path)
    assert sorted(lines) == [0, 1, 2, 3, 4]
    first = path.read_text()
    with path.open("a") as fh:
        fh.write('{"deal": 5, "run": "torn')  # an interrupted write
    cfg.deals = 7
    path2, lines2 = strong_play.run_strong(cfg, tmp_path)
    assert path2 == path and sorted(lines2) == list(range(7))
    text = path.read_text()
    assert text.startswith(first)  # nothing rewritten
    assert all(lines2[d] == lines[d] for d in range(5))
    again = strong_play.run_strong(cfg, tmp_path)[1]
    assert path.read_text() == text and again == lines2
    # the same deals played in other blocks give the same lines (seeds are per deal)
    other = strong_play.net_block(cfg, [4, 6])
    for line in other:
        ref = lines2[line["deal"]]
        assert line["policies"] == ref["policies"] and line["joker_value"] == ref["joker_value"]
    s = strong_stats.summarize(cfg, lines2, path.name)
    assert s["agent"] == "net" and s["deals"] == 7
    assert {p["policy"] for p in s["policies"]} == {
        joker_policies.policy_label(*joker_policies.parse_policy(p)) for p in strong_play.STRONG_POLICIES
    }
    for p in s["policies"]:
        assert set(p) >= {"policy", "vs", "deals", "mean_diff", "ci95"} and p["vs"] == "net"
    assert {v["joker"] for v in s["joker_value"]} <= {"X15", "X20", "X25"}
    assert set(s["weights"]) == {"dithmarschen-4p-move.npz", "dithmarschen-4p-value.npz"}
    assert s["cv_model"] == "value" and s["one_game"]["deals"] == 7
    ratio = strong_stats.variance_ratio(
        np.array([lines2[d]["ref_margin"][0] for d in range(7)]),
        np.array([lines2[d]["ref_margin_cv"][0] for d in range(7)]),
    )
    assert s["one_game"]["variance_ratio"] == pytest.approx(ratio) and ratio != pytest.approx(1.0)


def test_other_weights_or_samples_start_another_run(tmp_path, monkeypatch):
    cfg = strong_play.StrongConfig("dithmarschen", agent="net", deals=2, cv_samples=2)
    a = strong_play.StrongConfig("dithmarschen", agent="net", deals=2, cv_samples=3)
    assert cfg.run_key() != a.run_key() and cfg.file_name() == a.file_name()
    before = cfg.file_name()
    monkeypatch.setattr(strong_play.StrongConfig, "weights", lambda self: {"dithmarschen-4p-move.npz": "0" * 64})
    assert cfg.file_name() != before  # new weights: a new file, the old one kept


def test_the_after_network_as_the_control_variates_model_is_another_run(tmp_path):
    """``cv_model="after"`` reads the after network: its weights name the file, the key says it,
    and the plain margins (the play) are those of the value model's run; only the corrections move."""
    value = strong_play.StrongConfig("dithmarschen", agent="net", deals=3, cv_samples=2)
    after = strong_play.StrongConfig("dithmarschen", agent="net", deals=3, cv_samples=2, cv_model="after")
    assert set(after.weights()) == {"dithmarschen-4p-move.npz", "dithmarschen-4p-after.npz"}
    assert after.file_name() != value.file_name() and after.run_key() == value.run_key().replace(
        "cv=2|" + value.tag(), "cv=2,after|" + after.tag()
    )
    a = strong_play.net_block(after, [0, 1, 2])
    v = strong_play.net_block(value, [0, 1, 2])
    for la, lv in zip(a, v, strict=True):
        assert la["ref_margin"] == lv["ref_margin"]
        assert {k: x["plain"] for k, x in la["policies"].items()} == {k: x["plain"] for k, x in lv["policies"].items()}
    assert any(la["ref_margin_cv"] != lv["ref_margin_cv"] for la, lv in zip(a, v, strict=True))
    with pytest.raises(ValueError, match="cv model 'net' is not valid"):
        strong_play.StrongConfig("dithmarschen", agent="net", deals=3, cv_model="net").rules()


def test_the_expert_run_key_names_every_parameter():
    """Two specs of the same expert search share a run; another value of any parameter, a
    default included, is another run."""
    from zwick_ai.agents.base import agent_params

    short = strong_play.StrongConfig("dithmarschen", agent="expert:time=0,iters=50", deals=2)
    _, params = agent_params(short.agent)
    spelled = ",".join(f"{k}={v}" for k, v in params.items())
    assert strong_play.StrongConfig("dithmarschen", agent=f"expert:{spelled}", deals=2).run_key() == short.run_key()
    assert f"pool={params['pool']}" in short.run_key() and f"leaf={params['leaf']}" in short.run_key()
    other = strong_play.StrongConfig("dithmarschen", agent="expert:time=0,iters=50,c=0.5", deals=2)
    assert other.run_key() != short.run_key()
    assert strong_play.StrongConfig("dithmarschen", agent="net", deals=2).run_key().split("|")[1] == "net"


def test_expert_seatings_that_the_rule_never_binds_are_the_unrestricted_game():
    rules = zwicker.rules("dithmarschen")
    game = zwicker_game(rules)
    seed = int(hand_seeds(0, 1)[0])
    orders, dealers = zwicker_deals.deal_orders(rules.array(), np.array([seed]))
    state = zwicker_bridge.state_from_seed(game, seed)
    mine = game.new_initial_state()
    for a in zwicker_bridge.deal_actions(game, list(orders[0]), int(dealers[0])):
        mine.apply_action(a)
    assert zwicker_bridge.same_position(mine, state.engine_state())
    value = strong_play._shipped(rules, "value")
    agent_seeds = [1, 2, 3, 4]
    watch = [(policy_codes.POLICY_HOLD, 0), (policy_codes.POLICY_EARLY, 0)]

    def play(specs, watched):  # the deal from its start to the end, corrections from 2 samples
        return strong_play.play_on(
            strong_play.start_game(game, specs, orders[0], int(dealers[0]), agent_seeds, 5), value, 2, watched
        )

    ref = play([TINY_EXPERT] * 4, watch)
    again = play([TINY_EXPERT] * 4, watch)
    assert (ref.scores == again.scores).all() and np.allclose(ref.corr, again.corr)  # deterministic
    side = deals.side_of_seats(rules)
    for w, spec in enumerate(("hold", "early")):
        for s in range(2):
            specs = [strong_play.with_rule(TINY_EXPERT, spec) if side[p] == s else TINY_EXPERT for p in range(4)]
            g = play(specs, [watch[w]])
            assert not g.binds[0, s]  # the restricted side keeps its rule
            if not ref.binds[w, s]:
                assert (g.scores == ref.scores).all()


def test_expert_deal_line_has_every_comparison():
    cfg = strong_play.StrongConfig("dithmarschen", agent=TINY_EXPERT, deals=2, cv_samples=2)
    line = strong_play.expert_deal(cfg, 0)
    assert set(line["policies"]) == {
        joker_policies.policy_label(*joker_policies.parse_policy(p)) for p in strong_play.STRONG_POLICIES
    }
    assert line["joker_value"] and all(
        set(v) == {"stage", "points", "margin", "margin_cv"} for v in line["joker_value"].values()
    )
    assert 0 <= line["replayed_seatings"] <= 2 * len(strong_play.STRONG_POLICIES)


@pytest.mark.parametrize(
    "variant,deal", [("dithmarschen", 0), ("dithmarschen", 3), pytest.param("christiansen", 1, marks=pytest.mark.slow)]
)
def test_restricted_games_continued_from_the_fork_equal_games_played_from_the_deal(variant, deal):
    # the fast line (each restricted game continues the unrestricted one from the side's first
    # choice the rule changes) against the slow one (every restricted game from the deal)
    cfg = strong_play.StrongConfig(variant, agent="expert:time=0,iters=30,worlds=2,endgame=6", deals=4, cv_samples=2)
    fast = strong_play.expert_deal(cfg, deal)
    slow = strong_play.expert_deal(cfg, deal, share_prefix=False)
    for line in (fast, slow):
        line.pop("seconds")
    assert fast["replayed_seatings"] > 0  # some rule binds, so the forks are exercised
    assert fast == slow


def test_a_forked_agent_decides_as_the_original_and_leaves_it_alone():
    game = zwicker_game(zwicker.rules("dithmarschen"))
    state = zwicker_bridge.state_from_seed(game, 11)
    agent = zwick_ai.agents.make_agent("expert:time=0,iters=40,worlds=2,endgame=6", game, seed=3)
    agent.reset(3)
    twin = agent.fork()
    assert twin.game is agent.game and twin.rng is not agent.rng
    first = twin.act(state)
    assert agent.act(state) == first  # the twin's decision did not move the original's stream
    assert twin.act(state) == agent.act(state)  # and both streams advanced alike


def test_cli_writes_strong_play_into_results_json_and_report(tmp_path, capsys):
    out = tmp_path / "dith"
    out.mkdir()
    # a study's folder (its results.json carries the mark a committed study keeps)
    (out / "results.json").write_text(json.dumps({"config": {"kept": 1}, "made_by": "zwick joker-study"}))
    (out / "report.md").write_text("# greedy report\n")
    args = [
        "joker-study",
        "--variant",
        "dithmarschen",
        "--strong-play",
        "net",
        "--deals",
        "4",
        "--out",
        str(out),
        "--no-progress",
        "--cv-samples",
        "2",
    ]
    assert main(args) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["config"] == {"kept": 1}
    sp = res["strong_play"]
    assert sp["agent"] == "net" and sp["deals"] == 4 and len(sp["policies"]) == len(strong_play.STRONG_POLICIES)
    assert "--strong-play net --deals 4" in sp["command"]
    assert (out / "strong_play_joker_use.png").stat().st_size > 1000
    assert "strong_play.md" in (out / "report.md").read_text()
    assert main(args) == 0  # again: the report's strong section is replaced, not repeated
    assert (out / "report.md").read_text().count(strong_report.STRONG_MARK) == 1


def test_cli_cv_model_after_reads_the_after_network_and_says_so(tmp_path, capsys):
    out = tmp_path / "dith"
    args = ["joker-study", "--variant", "dithmarschen", "--strong-play", "net", "--deals", "4", "--out", str(out)]
    assert main([*args, "--no-progress", "--cv-samples", "2", "--cv-model", "after"]) == 0
    sp = json.loads((out / "results.json").read_text())["strong_play"]
    assert sp["cv_model"] == "after" and "dithmarschen-4p-after.npz" in sp["weights"]
    assert "--cv-model after" in sp["command"] and sp["one_game"]["deals"] == 4
    assert "the variance ratio is: `net`" in (out / "strong_play.md").read_text()


def test_cli_refuses_a_time_budget_in_one_line(capsys):
    assert main(["joker-study", "--variant", "dithmarschen", "--strong-play", "expert", "--out", "/nonexistent/x"]) != 0
    err = capsys.readouterr().err
    assert "time=0" in err and "Traceback" not in err


def test_a_rerun_of_the_greedy_study_keeps_the_strong_play_objects(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"strong_play": {"agent": "net"}, "part1": "old"}))
    (tmp_path / "strong_play.md").write_text("# strong\n")
    res = study.run_study(study.StudyConfig("dithmarschen", deals=40, strong="greedy", strong_deals=0), progress=False)
    report.write_study(res, tmp_path, "zwick joker-study --variant dithmarschen --deals 40")
    new = json.loads((tmp_path / "results.json").read_text())
    assert new["strong_play"] == {"agent": "net"} and new["part1"] != "old"
    assert "strong_play.md" in (tmp_path / "report.md").read_text()


def test_rules_added_later_are_supplemented_not_replayed(tmp_path):
    """A deal finished before a rule joined the study gets a supplement line with that rule's
    margin; the reader merges it into the deal's line and a second supplement changes nothing."""
    path = tmp_path / "run.jsonl"
    first = {"run": "k", "deal": 0, "policies": {"hold": {"plain": 1.0, "cv": 1.0}}, "joker_value": {}}
    extra = {"run": "k", "deal": 0, "supplement": True, "policies": {"hold@high": {"plain": 2.0, "cv": 2.0}}}
    again = {"run": "k", "deal": 0, "supplement": True, "policies": {"hold@high": {"plain": 9.0, "cv": 9.0}}}
    orphan = {"run": "k", "deal": 1, "supplement": True, "policies": {"hold": {"plain": 0.0, "cv": 0.0}}}
    path.write_text("".join(json.dumps(x) + "\n" for x in (first, extra, again, orphan)))
    lines = strong_play.read_lines(path, "k")
    assert list(lines) == [0]
    assert lines[0]["policies"] == {"hold": {"plain": 1.0, "cv": 1.0}, "hold@high": {"plain": 2.0, "cv": 2.0}}
    assert "hold@high" not in strong_play.missing_rules(lines[0]) and "hold" not in strong_play.missing_rules(lines[0])
    assert "early" in strong_play.missing_rules(lines[0])

"""Tournaments end to end: files and the summary contract, duplicate seatings, resuming after an
interrupted or damaged run, the same results with 1 and 2 workers and on Ray, and the CLI."""

import importlib.util
import json
import sys
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from zwick_ai.backends import import_ray, make_backend
from zwick_ai.cli import main
from zwick_ai.eval import tournament as T
from zwick_ai.eval.folder_lock import OLDER_FORMATS_VERSION
from zwick_ai.eval.records import record_from_dict, replay
from zwick_ai.eval.tournament.definition import FORMAT, RESOLVED
from zwick_ai.eval.tournament.games import task_key
from zwick_ai.eval.tournament.summary import finished_differences

# classic with 2 players: fast games, two seatings per deal
PARAMS = {"variant": "classic", "players": 2}
AGENTS = ["greedy", "random"]
DEALS = 3


def tiny(deals: int = DEALS, **kw) -> T.Tournament:
    return T.Tournament(list(kw.pop("agents", AGENTS)), game="zwicker", params=PARAMS, deals=deals, seed=7, **kw)


def lines(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines() if x.strip()]


def by_key(records: list[dict]) -> dict:
    """Records keyed by game, without the timing (the only fields that may differ between runs)."""
    return {task_key(r): {k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")} for r in records}


def stable(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("timing", "machine")}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One uninterrupted tiny tournament, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("tour") / "full"
    summary = T.run_tournament(tiny(), out, progress=False)
    return out, summary


# ------------------------------------------------------------------------------------------------
# Seatings and seeds
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sides", [2, 3, 4, 6])
def test_seatings_put_each_agent_at_every_side_equally_often(sides):
    plans = T.seatings(sides)
    assert len(plans) == (2 if sides == 2 else 2 * sides)
    assert len(set(plans)) == len(plans)
    for s in range(sides):
        assert sum(p[s] == 0 for p in plans) == sum(p[s] == 1 for p in plans) == len(plans) // 2
    assert all(0 in p and 1 in p for p in plans)


def test_three_sides_are_every_assignment_of_two_agents():
    assert set(T.seatings(3)) == {p for p in product((0, 1), repeat=3) if 0 in p and 1 in p}


def test_deal_seeds_do_not_depend_on_the_number_of_deals():
    t3, t5 = tiny(3), tiny(5)
    assert [x for x in T.tasks(t5) if x["deal"] < 3] == T.tasks(t3)
    assert len({T.deal_seed(7, d) for d in range(100)}) == 100


def test_team_game_seats_partners_together():
    t = T.Tournament(["greedy", "random"], params={"variant": "dithmarschen"}, deals=1)
    seats = [x["seats"] for x in T.tasks(t)]
    assert seats == [["greedy", "random", "greedy", "random"], ["random", "greedy", "random", "greedy"]]


def test_bad_tournaments_are_refused():
    with pytest.raises(ValueError, match="at least two agents"):
        tiny(agents=["greedy"])
    with pytest.raises(ValueError, match="unknown agent"):
        tiny(agents=["greedy", "nobody"])
    with pytest.raises(ValueError, match="same agent"):
        tiny(agents=["ismcts", "ismcts:iters=0"])  # 0 is the default (1,000 without a time budget): one agent
    with pytest.raises(ValueError, match="plays zwicker"):
        T.Tournament(["joker", "random"], game="zwikken", deals=1)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        T.Tournament(AGENTS, params={"colour": "red"})
    with pytest.raises(ValueError, match="unknown game"):
        T.Tournament(AGENTS, game="chess")


# ------------------------------------------------------------------------------------------------
# A finished tournament
# ------------------------------------------------------------------------------------------------
def test_files_and_summary_contract(finished):
    out, summary = finished
    for name in ("config.json", "games.jsonl", "summary.json", "summary.csv", "ratings.csv", "report.md"):
        assert (out / name).stat().st_size > 0, name
    for name in ("ratings.png", "pairs.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    assert on_disk["game"] == "zwicker" and on_disk["params"] == PARAMS
    assert on_disk["seed"] == 7 and on_disk["deals"] == DEALS and on_disk["agents"] == AGENTS
    (pair,) = on_disk["pairs"]
    assert set(pair) >= {"a", "b", "deals", "mean_diff", "ci95", "win_rate_a"}
    assert (pair["a"], pair["b"], pair["deals"]) == ("greedy", "random", DEALS)
    lo, hi = pair["ci95"]
    assert lo <= pair["mean_diff"] <= hi and lo < hi
    assert 0.0 <= pair["win_rate_a"] <= 1.0
    assert {r["agent"] for r in on_disk["ratings"]} == set(AGENTS)
    for r in on_disk["ratings"]:
        assert set(r) >= {"agent", "rating", "ci95"} and len(r["ci95"]) == 2
    assert len(lines(out)) == on_disk["games"] == DEALS * 2
    report = (out / "report.md").read_text()
    assert "| `greedy` | `random` |" in report and "ratings.png" in report
    assert (
        (out / "summary.csv").read_text().splitlines()[0].startswith("a,b,deals,mean_diff,ci95_lo,ci95_hi,win_rate_a")
    )


def test_summary_equals_a_direct_recount_of_the_games(finished):
    """The slow, obvious version: per deal, a's side points minus b's in both seatings."""
    out, summary = finished
    diffs = {}
    for r in lines(out):
        a_seat = r["seats"].index("greedy")
        d = r["points"][a_seat] - r["points"][1 - a_seat]
        diffs.setdefault(r["deal"], []).append(d)
    per_deal = [np.mean(diffs[d]) for d in range(DEALS)]
    assert all(len(v) == 2 for v in diffs.values())
    (pair,) = summary["pairs"]
    assert pair["mean_diff"] == pytest.approx(np.mean(per_deal))
    assert pair["win_rate_a"] == pytest.approx(np.mean([1.0 if x > 0 else 0.5 if x == 0 else 0.0 for x in per_deal]))


def test_game_lines_are_records_that_replay(finished):
    out, _ = finished
    recs = lines(out)
    assert {(r["deal"], r["seating"]) for r in recs} == set(product(range(DEALS), range(2)))
    for line in recs[:2]:
        assert set(line) >= {"deal", "deal_seed", "seats", "agents", "moves", "returns", "points"}
        rec = record_from_dict(line)
        steps = replay(rec)  # the recorded actions replay on the real game to the same result
        assert steps[-1].state.returns() == line["returns"]


def test_rerun_skips_finished_games(finished, tmp_path):
    out, summary = finished
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("config.json", "games.jsonl", ".zwick-folder"):
        (copy / name).write_bytes((out / name).read_bytes())
    before = (copy / "games.jsonl").read_bytes()
    again = T.run_tournament(tiny(), copy, progress=False)
    assert (copy / "games.jsonl").read_bytes() == before  # nothing replayed
    assert stable(again) == stable(summary)


def test_the_cli_resumes_a_folder_of_the_same_game_given_differently(finished, tmp_path, capsys):
    """The API's two parameters and the command line's full parameter set are the same game."""
    out, _ = finished
    copy = tmp_path / "same"
    copy.mkdir()
    for name in ("config.json", "games.jsonl", ".zwick-folder"):
        (copy / name).write_bytes((out / name).read_bytes())
    before = (copy / "games.jsonl").read_bytes()
    args = ["tournament", "--variant", "classic", "--players", "2", "--agents", "greedy,random"]
    assert main([*args, "--deals", str(DEALS), "--seed", "7", "--workers", "1", "--quiet", "--out", str(copy)]) == 0
    assert (copy / "games.jsonl").read_bytes() == before
    capsys.readouterr()


def test_a_different_tournament_is_refused(finished):
    out, _ = finished
    with pytest.raises(ValueError, match="different tournament.*seed"):
        T.run_tournament(T.Tournament(AGENTS, params=PARAMS, deals=DEALS, seed=8), out, progress=False)
    with pytest.raises(ValueError, match="different tournament.*agents"):
        T.run_tournament(tiny(agents=["random", "greedy"]), out, progress=False)


def test_a_folder_of_an_older_format_is_refused_naming_it_and_its_command(finished, tmp_path):
    """A folder whose config has another tournament format was made by an older zwick_ai: one line
    names its format and the command that made it (to remake it), and nothing is played there."""
    import re

    out, _ = finished
    old = tmp_path / "old"
    old.mkdir()
    config = json.loads((out / "config.json").read_text())
    config["identity"]["format"] = FORMAT - 1
    config["command"] = "zwick tournament --agents greedy,random --deals 3 --seed 7 --out old"  # as the CLI writes
    (old / "config.json").write_text(json.dumps(config))
    (old / ".zwick-folder").write_bytes((out / ".zwick-folder").read_bytes())
    (old / "games.jsonl").write_bytes((out / "games.jsonl").read_bytes())
    before = (old / "games.jsonl").read_bytes()
    want = f"earlier zwick_ai (tournament format {FORMAT - 1}; this one reads {FORMAT}); this version does not "
    want += "resume it: remake it in a new folder: "
    with pytest.raises(ValueError, match=re.escape(want + config["command"]) + "$"):
        T.run_tournament(tiny(), old, progress=False)
    assert (old / "games.jsonl").read_bytes() == before


def test_a_changed_default_is_a_different_tournament(tmp_path, monkeypatch):
    """The same spec text with another default behind it must not resume the folder."""
    from dataclasses import replace

    from zwick_ai.agents import base

    agents = ["cheat-uct:iters=20", "random"]
    out = tmp_path / "defaults"
    T.run_tournament(tiny(1, agents=agents), out, progress=False)
    info = base._REGISTRY["cheat-uct"]
    params = tuple(replace(p, default=0.5) if p.name == "c" else p for p in info.params)
    monkeypatch.setitem(base._REGISTRY, "cheat-uct", replace(info, params=params))
    with pytest.raises(ValueError, match=r"resolve differently: cheat-uct c=0\.7 there, 0\.5 now"):
        T.run_tournament(tiny(1, agents=agents), out, progress=False)


def test_a_parameter_added_later_at_its_default_keeps_the_folder(tmp_path, monkeypatch):
    """An agent that gains a parameter whose default plays as before resumes its old folders; set
    to another value, it is another tournament."""
    from dataclasses import replace

    from zwick_ai.agents import base

    out = tmp_path / "grown"
    T.run_tournament(tiny(1, agents=["cheat-uct:iters=20", "random"]), out, progress=False)
    info = base._REGISTRY["cheat-uct"]
    grown = replace(info, params=(*info.params, base.Param("new_knob", int, 0, "a knob added later")))
    monkeypatch.setitem(base._REGISTRY, "cheat-uct", grown)
    assert T.run_tournament(tiny(2, agents=["cheat-uct:iters=20", "random"]), out, progress=False) is not None
    with pytest.raises(ValueError, match=r"resolve differently: cheat-uct new_knob=None there, 1 now"):
        T.run_tournament(tiny(2, agents=["cheat-uct:iters=20,new_knob=1", "random"]), out, progress=False)


def test_a_folder_of_an_earlier_version_is_refused_in_one_line(finished, tmp_path):
    """A config.json without the agents' resolved identities (zwick_ai 0.3.0 and before): refused,
    naming the version that reads it and the command that remakes it; nothing is written."""
    out, _ = finished
    old = tmp_path / "old"
    old.mkdir()
    config = json.loads((out / "config.json").read_text())
    del config["identity"][RESOLVED]
    config["command"] = "zwick tournament --deals 3"
    (old / "config.json").write_text(json.dumps(config))
    (old / ".zwick-folder").write_text('{"made_by": "zwick tournament"}')
    (old / "games.jsonl").write_bytes((out / "games.jsonl").read_bytes())
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    with pytest.raises(ValueError) as error:
        T.run_tournament(tiny(), old, progress=False)
    message = str(error.value)
    assert "\n" not in message
    assert "does not record what the agents resolve to" in message
    assert f"zwick_ai {OLDER_FORMATS_VERSION}" in message
    assert message.endswith("remake it in a new folder: zwick tournament --deals 3")
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before  # nothing changed


def test_an_unmarked_folder_of_an_earlier_version_is_refused(finished, tmp_path):
    """A tournament folder without the mark (written before folders were marked) is not resumed."""
    out, _ = finished
    old = tmp_path / "unmarked"
    old.mkdir()
    config = json.loads((out / "config.json").read_text())
    del config["made_by"]  # as configs were before they carried the mark
    (old / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (old / "games.jsonl").write_bytes((out / "games.jsonl").read_bytes())
    with pytest.raises(ValueError, match=f"an earlier zwick_ai's \\(read them with zwick_ai {OLDER_FORMATS_VERSION}"):
        T.run_tournament(tiny(), old, progress=False)
    assert sorted(p.name for p in old.iterdir()) == ["config.json", "games.jsonl"]


def test_a_folder_without_file_digests_is_refused(tmp_path):
    """An agent with files (``mccfr``: its policy) recorded before identities held the files'
    digests: its games may come from another policy, so the folder is refused, never resumed."""
    policy = Path(__file__).parents[2] / "experiments/results/mccfr-zwicker/classic2-coarse-probe/policy-min3000"
    agents = [f"mccfr:policy={policy},fallback=greedy", "random"]
    out = tmp_path / "undigested"
    T.run_tournament(tiny(1, agents=agents), out, progress=False)
    config = json.loads((out / "config.json").read_text())
    assert config["identity"][RESOLVED][0]["files"]  # today's identity digests the policy
    del config["identity"][RESOLVED][0]["files"]
    (out / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="does not record the digests of mccfr's files.*remake it in a new folder"):
        T.run_tournament(tiny(1, agents=agents), out, progress=False)
    assert len(lines(out)) == 2  # nothing added


# ------------------------------------------------------------------------------------------------
# Interrupted and damaged runs
# ------------------------------------------------------------------------------------------------
def test_resume_after_kill_and_damage_gives_the_same_summary(finished, tmp_path):
    _, summary = finished
    out = tmp_path / "resumed"
    assert T.run_tournament(tiny(), out, progress=False, stop_after=4) is None  # "killed" after 4 games
    assert not (out / "summary.json").exists()
    text = (out / "games.jsonl").read_text().splitlines()
    assert len(text) == 4
    damaged = text[0][:40] + "#" + text[0][41:]  # a damaged byte in the first line
    half = text[3][: len(text[3]) // 2]  # the last line cut in the middle of writing
    (out / "games.jsonl").write_text("\n".join([damaged, text[1], text[2], half]))
    warnings: list[str] = []
    resumed = T.run_tournament(tiny(), out, progress=False, warn=warnings.append)
    assert len(warnings) == 2 and "line 1" in warnings[0] and "line 4" in warnings[1]
    assert stable(resumed) == stable(summary)
    assert by_key(lines(out)) == by_key(lines(finished[0]))


def test_extending_a_finished_tournament_keeps_its_games(finished, tmp_path):
    out, _ = finished
    copy = tmp_path / "more"
    copy.mkdir()
    for name in ("config.json", "games.jsonl", ".zwick-folder"):
        (copy / name).write_bytes((out / name).read_bytes())
    first = by_key(lines(copy))
    bigger = T.run_tournament(tiny(DEALS + 1), copy, progress=False)
    assert bigger["deals"] == DEALS + 1 and len(lines(copy)) == 2 * (DEALS + 1)
    assert {k: v for k, v in by_key(lines(copy)).items() if k in first} == first


# ------------------------------------------------------------------------------------------------
# Backends
# ------------------------------------------------------------------------------------------------
def test_one_and_two_workers_give_the_same_games(finished, tmp_path):
    out, summary = finished
    with make_backend("local", workers=2) as backend:
        two = T.run_tournament(tiny(), tmp_path / "two", backend=backend, progress=False)
    assert stable(two) == stable(summary)
    assert by_key(lines(tmp_path / "two")) == by_key(lines(out))


def test_ray_missing_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ValueError, match=r"pip install 'zwick_ai\[ray\]'"):
        import_ray()
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend("dask")


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")
def test_ray_gives_the_same_games(finished, tmp_path):
    out, summary = finished
    with make_backend("ray", workers=2) as backend:
        on_ray = T.run_tournament(tiny(), tmp_path / "ray", backend=backend, progress=False)
    assert stable(on_ray) == stable(summary)
    assert by_key(lines(tmp_path / "ray")) == by_key(lines(out))


# ------------------------------------------------------------------------------------------------
# Trick games: every seat its own side
# ------------------------------------------------------------------------------------------------
def test_three_player_trick_game_tournament(tmp_path):
    t = T.Tournament(["ismcts:iters=5", "random"], game="zwikken", params={"players": 3}, deals=2, seed=1)
    summary = T.run_tournament(t, tmp_path, progress=False, plots=False)
    assert summary["seatings_per_deal"] == 6 and summary["games"] == 12
    recs = lines(tmp_path)
    assert summary["measure"] == "chips won" and all(r["points"] is None for r in recs)
    # recount: per seating the mean chips of a's seats minus b's, averaged over the 6 seatings
    per_deal = []
    for d in range(2):
        diffs = []
        for r in (x for x in recs if x["deal"] == d):
            mine = [x for x, s in zip(r["returns"], r["seats"], strict=True) if s == "ismcts:iters=5"]
            theirs = [x for x, s in zip(r["returns"], r["seats"], strict=True) if s == "random"]
            diffs.append(np.mean(mine) - np.mean(theirs))
        assert len(diffs) == 6
        per_deal.append(np.mean(diffs))
    assert summary["pairs"][0]["mean_diff"] == pytest.approx(np.mean(per_deal))


def test_rotating_seatings_play_two_games_a_deal_that_the_full_design_plays_too(tmp_path):
    """``seating="rotate"`` with 3 sides: deal d is played with the lone agent at side d mod 3, a then
    b; the games are the full design's (same seating numbers, seeds, moves), and the summary is the
    recount of those two games a deal."""
    kw = dict(game="zwikken", params={"players": 3}, deals=4, seed=3)
    full = T.Tournament(["greedy", "random"], **kw)
    rot = T.Tournament(["greedy", "random"], seating="rotate", **kw)
    assert [rot.deal_seatings(d) for d in range(4)] == [[0, 3], [1, 4], [2, 5], [0, 3]]
    assert rot.games == 8 and full.games == 24 and rot.identity() != full.identity()
    two_sides = T.Tournament(AGENTS, game="zwicker", params=PARAMS, deals=3, seed=7, seating="rotate")
    assert two_sides.games == tiny().games == 6  # with two sides both designs are every seating
    summary = T.run_tournament(rot, tmp_path / "rot", progress=False, plots=False)
    assert summary["seatings_per_deal"] == 2 and summary["games"] == 8 and summary["seating"] == "rotate"
    recs = lines(tmp_path / "rot")
    full_tasks = {task_key(x): x for x in T.tasks(full)}
    for r in recs:  # every rotating game is the full design's game of the same key, seeds included
        task = full_tasks[task_key(r)]
        assert r["seats"] == task["seats"] and r["agent_seeds"] == task["agent_seeds"]
        alone = [p for p in range(3) if r["seats"].count(r["seats"][p]) == 1]
        assert alone == [r["deal"] % 3]
    per_deal = []
    for d in range(4):
        diffs = [
            np.mean([x for x, s in zip(r["returns"], r["seats"], strict=True) if s == "greedy"])
            - np.mean([x for x, s in zip(r["returns"], r["seats"], strict=True) if s == "random"])
            for r in recs
            if r["deal"] == d
        ]
        assert len(diffs) == 2
        per_deal.append(np.mean(diffs))
    assert summary["pairs"][0]["mean_diff"] == pytest.approx(np.mean(per_deal))
    with pytest.raises(ValueError, match="seating must be one of all, rotate"):
        T.Tournament(["greedy", "random"], seating="some", **kw)


# ------------------------------------------------------------------------------------------------
# The command line
# ------------------------------------------------------------------------------------------------
def test_cli_tournament_and_its_errors(tmp_path, capsys):
    args = ["tournament", "--variant", "classic", "--players", "2", "--deals", "2", "--seed", "7"]
    args += ["--agents", "greedy;random", "--workers", "1", "--quiet", "--out", str(tmp_path / "cli")]
    assert main(args) == 0
    shown = capsys.readouterr().out
    assert "| `greedy` | `random` | 2 |" in shown and "wrote" in shown
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert summary["agents"] == AGENTS and summary["deals"] == 2
    assert "--agents 'greedy;random' --deals 2 --seed 7" in summary["command"]
    assert main([*args[:-2], "--out", str(tmp_path / "cli"), "--seed", "8"]) == 2
    assert "different tournament" in capsys.readouterr().err
    assert main(["tournament", "--agents", "greedy,nobody", "--deals", "1", "--out", str(tmp_path / "x")]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_cli_run_experiment_file(tmp_path, capsys):
    root = Path(__file__).resolve().parents[2]
    text = (root / "experiments" / "smoke.toml").read_text()
    out = tmp_path / "smoke"
    (tmp_path / "smoke.toml").write_text(text.replace('out = "results/smoke"', f'out = "{out}"'))
    assert main(["run", str(tmp_path / "smoke.toml"), "--quiet"]) == 0
    table = (out / "table.md").read_text()
    assert "| agent | dithmarschen | classic |" in table and "| `greedy` |" in table
    for variant in ("dithmarschen", "classic"):
        assert json.loads((out / variant / "summary.json").read_text())["params"]["variant"] == variant
    (tmp_path / "bad.toml").write_text('agents = ["greedy", "random"]\ndeals = 2\ncolour = "red"\n')
    assert main(["run", str(tmp_path / "bad.toml")]) == 2
    assert "unknown key 'colour'" in capsys.readouterr().err


def test_finished_differences_only_reads_the_folder(finished, tmp_path):
    """The per-deal differences of a finished folder are its summary's; asked with another
    tournament (here another game), it finds no finished games and leaves the folder as it was."""
    out, summary = finished
    diffs = finished_differences(tiny(), out)
    assert diffs is not None and diffs.shape == (DEALS, 1)
    assert diffs[:, 0].mean() == pytest.approx(summary["pairs"][0]["mean_diff"])
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "games.jsonl").write_bytes((out / "games.jsonl").read_bytes())
    before = (copy / "games.jsonl").read_bytes()
    other = T.Tournament(AGENTS, game="zwicker", params={"variant": "classic", "players": 3}, deals=DEALS, seed=7)
    assert finished_differences(other, copy) is None
    assert (copy / "games.jsonl").read_bytes() == before
    assert sorted(p.name for p in copy.iterdir()) == ["games.jsonl"]

"""Fingerprints of fixed-seed play, to show that a refactoring changed no behaviour.

Each entry is the SHA-256 of what one seeded computation produces (move sequences, scores,
records without timings, report lines). Run it before and after a change and compare::

    PYTHONPATH=$PWD python benchmarks/fingerprints.py --out before.json
    PYTHONPATH=$PWD python benchmarks/fingerprints.py --out after.json --compare before.json

``--compare`` prints every entry that differs and exits 1 if any does. ``--skip-slow`` leaves out
the joker studies (the ``--quick`` greedy study and a small expert strong-play run: a few minutes).
What is hashed:

* ``play_hands``: the compiled playouts of every Zwicker variant (greedy and random seats), all outputs;
* ``play_game``: whole-decision move sequences, returns and points of OpenSpiel games on every
  Zwicker variant and both trick games (random, greedy and expert agents);
* ``tournament``: a small tournament's ``games.jsonl`` per game, without the ``seconds`` timings;
* ``expert``: expert decisions at fixed seeds and iterations, Zwicker and the trick games;
* ``selfplay``, ``value_teacher``, ``move_values``, ``envs``, ``render``: the other places that play;
* ``joker_study`` / ``strong_expert``: the report numbers (``results.json`` without timings and
  machine) and the strong run's JSONL lines without ``seconds``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

TIMING_KEYS = {"seconds", "machine", "command", "hands_per_second", "elapsed", "time", "date", "runtime", "wall"}


def digest(obj: Any) -> str:
    """SHA-256 of a JSON-able or numpy object."""
    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, np.ndarray):
            h.update(str((x.dtype.str, x.shape)).encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            for y in x:
                feed(y)
            h.update(b"]")
        elif isinstance(x, dict):
            h.update(b"{")
            for k in sorted(x, key=str):
                h.update(str(k).encode())
                feed(x[k])
            h.update(b"}")
        else:
            h.update(repr(x).encode())

    feed(obj)
    return h.hexdigest()[:16]


def strip(obj: Any) -> Any:
    """``obj`` without timing and machine fields (any depth)."""
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in TIMING_KEYS and "second" not in str(k)}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def fp_play_hands() -> dict[str, str]:
    from zwick_ai import zwicker
    from zwick_ai.zwicker import kernels, policy_codes

    out = {}
    for variant in zwicker.VARIANTS:
        rules = zwicker.rules(variant)
        for name, codes in (("greedy", policy_codes.POLICY_GREEDY), ("mixed", None)):
            if codes is None:
                pol = np.array([policy_codes.POLICY_GREEDY, policy_codes.POLICY_RANDOM] * 4, np.int64)[: rules.players]
            else:
                pol = np.full(rules.players, codes, np.int64)
            res = kernels.play_hands(rules.array(), np.arange(40, dtype=np.int64) * 7 + 1, pol)
            out[f"play_hands/{variant}/{name}"] = digest(list(res))
    return out


def _games() -> list[tuple[str, str]]:
    from zwick_ai import zwicker

    games = [(f"zwicker/{v}", f"zwicker(variant={v})") for v in zwicker.VARIANTS]
    games += [
        ("zwikken/parlett", "zwikken(variant=parlett,players=3)"),
        ("zwikken/modern", "zwikken(variant=modern,players=4)"),
        ("zwicken", "zwicken(players=3)"),
    ]
    return games


def fp_play_game() -> dict[str, str]:
    import pyspiel

    import zwick_ai.agents  # noqa: F401
    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent
    from zwick_ai.eval.match import play_game

    out = {}
    for key, gs in _games():
        game = pyspiel.load_game(gs)
        n = game.num_players()
        search = "expert:time=0,iters=30" if key.startswith("zwicker") else "ismcts:iters=30"
        for name, lineup in (("greedy", ["greedy", "random"]), ("search", [search, "greedy"])):
            agents = [make_agent(lineup[p % 2], game) for p in range(n)]
            recs = [play_game(game, agents, deal_seed=seed).as_dict() for seed in (3, 11)]
            out[f"play_game/{key}/{name}"] = digest(strip(recs))
    return out


def fp_tournament(tmp: Path) -> dict[str, str]:
    out = {}
    for key, gs in (("zwicker", "zwicker(variant=dithmarschen)"), ("zwikken", "zwikken(variant=parlett,players=3)")):
        folder = tmp / f"tour-{key}"
        cmd = [sys.executable, "-m", "zwick_ai.cli", "tournament", "--game", gs, "--deals", "3", "--seed", "5"]
        cmd += ["--agents", "greedy;random;ismcts:iters=40", "--out", str(folder), "--quiet"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        files = sorted(folder.rglob("games.jsonl*"))
        lines = []
        for f in files:
            import gzip

            text = gzip.open(f, "rt").read() if f.suffix == ".gz" else f.read_text()
            lines += [strip(json.loads(x)) for x in text.splitlines() if x.strip()]
        lines.sort(key=lambda d: json.dumps(d, sort_keys=True))
        out[f"tournament/{key}"] = digest(lines)
        out[f"tournament/{key}/count"] = str(len(lines))
    return out


def fp_expert() -> dict[str, str]:
    import pyspiel

    import zwick_ai.agents  # noqa: F401
    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent
    from zwick_ai.eval.match import deal
    from zwick_ai.games.decisions import apply_decision

    out = {}
    for key, gs in _games():
        game = pyspiel.load_game(gs)
        expert = make_agent("expert:time=0,iters=60" if key.startswith("zwicker") else "ismcts:iters=60", game)
        greedy = make_agent("greedy", game)
        decisions = []
        for seed in (1, 2):
            state = deal(game, seed)
            expert.reset(seed)
            greedy.reset(seed)
            for _ in range(6):
                while state.is_chance_node():
                    state.apply_action(state.legal_actions()[0])
                if state.is_terminal():
                    break
                decisions.append(expert.act(state))
                apply_decision(state, greedy.act(state))
        out[f"expert/{key}"] = digest(decisions)
    return out


def fp_selfplay() -> dict[str, str]:
    from zwick_ai.eval import selfplay

    out = {}
    from zwick_ai import zwicker

    res = selfplay.run_selfplay(zwicker.rules("dithmarschen"), 200, "greedy,random,greedy,random", seed=4)
    out["selfplay/dithmarschen"] = digest(strip(res.as_dict()))
    recs = selfplay.hand_records(zwicker.rules("classic", players=2), 3, "greedy,random", seed=4)
    out["selfplay/hand_records"] = digest([strip(r.as_dict()) for r in recs])
    return out


def fp_value_teacher() -> dict[str, str]:
    from zwick_ai.learn import value_train

    out = {}
    for teacher in ("ismcts", "expert"):
        cfg = value_train.ValueConfig("dithmarschen", 4, teacher=teacher, teacher_iters=20, seed=3)
        out[f"value_teacher/{teacher}"] = digest(list(value_train.teacher_positions(cfg, np.array([5, 6]))))
    return out


def fp_move_values() -> dict[str, str]:
    import pyspiel

    import zwick_ai.agents  # noqa: F401
    import zwick_ai.games  # noqa: F401
    from zwick_ai.analysis import move_values
    from zwick_ai.eval.match import deal

    out = {}
    for key, gs in (("zwicker", "zwicker(variant=dithmarschen)"), ("zwikken", "zwikken(variant=parlett,players=3)")):
        game = pyspiel.load_game(gs)
        state = deal(game, 9)
        dv = move_values.decision_values(state, worlds=6, seed=2)
        out[f"move_values/{key}/rollout"] = digest([dv.labels, dv.actions, dv.values])
        dv = move_values.decision_values(state, worlds=3, seed=2, agent="greedy")
        out[f"move_values/{key}/agent"] = digest([dv.labels, dv.actions, dv.values])
    return out


def fp_envs_render(tmp: Path) -> dict[str, str]:
    import pyspiel

    import zwick_ai.agents  # noqa: F401
    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent
    from zwick_ai.eval.match import deal, play_game
    from zwick_ai.games.decisions import apply_decision
    from zwick_ai.render import svg

    out = {}
    try:
        from zwick_ai.envs import single_agent_env

        for key, gs in (
            ("zwicker", "zwicker(variant=dithmarschen)"),
            ("zwikken", "zwikken(variant=parlett,players=3)"),
        ):
            env = single_agent_env(gs, opponents=None)
            rng = np.random.default_rng(0)
            trace: list = []
            for seed in (3, 4):
                obs, info = env.reset(seed=seed)
                done = False
                while not done:
                    legal = np.flatnonzero(info["action_mask"])
                    obs, reward, term, trunc, info = env.step(int(rng.choice(legal)))
                    trace.append([float(reward), obs.tolist()])
                    done = term or trunc
            out[f"envs/single/{key}"] = digest(trace)
    except ImportError as e:
        out["envs/single"] = f"skipped {e}"
    pictures = []
    for _key, gs in _games():
        game = pyspiel.load_game(gs)
        agent = make_agent("greedy", game)
        agent.reset(1)
        state = deal(game, 4)
        for _ in range(5):
            while state.is_chance_node():
                state.apply_action(state.legal_actions()[0])
            if state.is_terminal():
                break
            apply_decision(state, agent.act(state))
        pictures.append(svg.state_svg(state))
    out["render/svg"] = digest(pictures)
    game = pyspiel.load_game("zwicker(variant=dithmarschen)")
    rec = play_game(game, [make_agent("greedy", game) for _ in range(game.num_players())], deal_seed=2)
    path = tmp / "one.jsonl"
    rec.seconds = [0.0] * len(rec.seconds)  # the page shows the thinking times: not part of the play
    path.write_text(json.dumps(rec.as_dict()) + "\n")
    cmd = [
        sys.executable,
        "-m",
        "zwick_ai.cli",
        "replay",
        str(path),
        "--game-index",
        "0",
        "--html",
        str(tmp / "g.html"),
    ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    # the page names its record by path: the temporary folder differs from run to run
    out["render/html"] = digest((tmp / "g.html").read_text().replace(str(tmp), "TMP"))
    return out


def fp_joker_study(tmp: Path) -> dict[str, str]:
    out = {}
    folder = tmp / "joker"
    cmd = [sys.executable, "-m", "zwick_ai.cli", "joker-study", "--variant", "dithmarschen", "--quick"]
    subprocess.run(cmd + ["--out", str(folder), "--no-progress"], check=True, stdout=subprocess.DEVNULL)
    res = json.loads((folder / "results.json").read_text())
    for part, value in sorted(strip(res).items()):
        out[f"joker_study/{part}"] = digest(value)
    report = [line for line in (folder / "report.md").read_text().splitlines() if "|" in line]
    out["joker_study/report_tables"] = digest(report)
    cmd = [sys.executable, "-m", "zwick_ai.cli", "joker-study", "--variant", "dithmarschen"]
    cmd += ["--strong-play", "expert:time=0,iters=12", "--deals", "2", "--out", str(folder), "--no-progress"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    for f in sorted(folder.glob("strong-*.jsonl")):
        lines = [strip(json.loads(x)) for x in f.read_text().splitlines() if x.strip()]
        out[f"strong_expert/{f.name}"] = digest(lines)
    res = json.loads((folder / "results.json").read_text())
    out["strong_expert/summary"] = digest(strip(res.get("strong_play")))
    cmd = [sys.executable, "-m", "zwick_ai.cli", "joker-study", "--micro-cfr"]
    cmd += ["--quick", "--out", str(tmp / "micro"), "--no-progress"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode == 0:
        files = sorted((tmp / "micro").rglob("*.json"))
        out["micro_cfr"] = digest([strip(json.loads(f.read_text())) for f in files])
    else:
        out["micro_cfr"] = "error " + done.stderr.strip().splitlines()[-1][:80]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="JSON file of the fingerprints")
    ap.add_argument("--compare", help="fingerprints to compare with (exit 1 on any difference)")
    ap.add_argument("--skip-slow", action="store_true", help="leave out the joker studies")
    ap.add_argument("--only", default="", help="comma-separated parts (default: all)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        parts: dict[str, Callable[[], dict[str, str]]] = {
            "play_hands": fp_play_hands,
            "play_game": fp_play_game,
            "expert": fp_expert,
            "selfplay": fp_selfplay,
            "value_teacher": fp_value_teacher,
            "move_values": fp_move_values,
            "envs_render": lambda: fp_envs_render(tmp),
            "tournament": lambda: fp_tournament(tmp),
        }
        if not args.skip_slow:
            parts["joker_study"] = lambda: fp_joker_study(tmp)
        only = set(filter(None, args.only.split(",")))
        result: dict[str, str] = {}
        for name, fn in parts.items():
            if only and name not in only:
                continue
            try:
                result.update(fn())
            except Exception as e:  # noqa: BLE001  (a part that fails is a fingerprint too)
                result[name] = f"error {type(e).__name__}: {e}"[:200]
            print(f"{name}: done", file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        keys = sorted(set(before) | set(result))
        if only:
            keys = [k for k in keys if k.split("/")[0] in only or k in result]
        diff = [k for k in keys if before.get(k) != result.get(k)]
        for k in diff:
            print(f"DIFFERS {k}: {before.get(k)} -> {result.get(k)}")
        print(f"{len(keys) - len(diff)} of {len(keys)} fingerprints identical")
        return 1 if diff else 0
    print(f"{len(result)} fingerprints in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

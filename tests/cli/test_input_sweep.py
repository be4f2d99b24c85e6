"""A property sweep of careless command lines: whatever a user types, ``zwick`` answers with exit
code 0 (it ran) or 2 (a one-line refusal), never a traceback. Each example is a small valid
command with one to three of its options replaced by careless values (negative, zero, not a
number, nan, inf, empty, unknown names, a file where a folder belongs, ...); budgets stay tiny, so
whatever runs finishes in moments."""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zwick_ai.cli import main

CARELESS = ["-1", "0", "nan", "inf", "-inf", "", " ", "x", "1e99", "3.5", "ü", "greedy;", ";", ",", "=", "a=b",
            "none", "--", "-o", "999999999999999999999"]  # fmt: skip
SMALL = ["1", "2"]  # values that keep a run short where a bigger one would be a long (valid) run
NAMES = ["classic", "dithmarschen", "grupp", "nosuch", "zwikken", "zwicken", "kuhn_poker", "zwicker(variant=x)",
         "greedy", "random", "ismcts:iters=5", "ismcts:iters=nan", "ismcts:time=-1", "expert:time=inf",
         "rollouts:worlds=2", "rollouts:worlds=-3", "greedy;random", "greedy,random", "ismcts:iters=5;searches=2",
         "ismcts:iters=5;worlds=2"]  # fmt: skip


def _base(folder: Path) -> dict[str, list[str]]:
    """Small valid command lines (name -> argv), each quick to run."""
    records = folder / "games.jsonl"
    toml = folder / "e.toml"
    toml.write_text(f'agents = ["greedy", "random"]\ndeals = 1\nvariant = "classic"\nout = "{folder / "exp"}"\n')
    return {
        "tournament": ["tournament", "--variant", "classic", "--players", "2", "--agents", "greedy;random",
                       "--deals", "1", "--workers", "1", "--quiet", "--out", str(folder / "t")],
        "selfplay": ["selfplay", "--variant", "classic", "--players", "2", "--games", "2", "--quiet",
                     "--out", str(folder / "s"), "--records", str(records)],
        "replay": ["replay", str(records), "--game-index", "0", "--all"],
        "analyze": ["analyze", str(records), "--seat", "0", "--agent", "rollouts:worlds=2", "--out",
                    str(folder / "a")],
        "run": ["run", str(toml), "--workers", "1", "--quiet"],
        "variants": ["variants"],
        "agents": ["agents"],
        "train": ["train", "cfr", "--game", "kuhn_poker", "--iterations", "2", "--out", str(folder / "cfr")],
        "play": ["play", "--variant", "classic", "--players", "2", "--seat", "0", "--agents", "greedy"],
    }  # fmt: skip


#: options whose values are budgets: careless values only from SMALL or invalid ones, never huge
BUDGETS = {"--deals", "--games", "--iterations", "--players"}


def _careless(base: list[str], data: st.DataObject, folder: Path) -> list[str]:
    argv = list(base)
    options = [i for i, word in enumerate(argv) if word.startswith("-") and i + 1 < len(argv)]
    options = [i for i in options if not argv[i + 1].startswith("-")]
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["value", "drop", "extra", "positional"]))
        if kind == "value" and options:
            i = data.draw(st.sampled_from(options))
            pool = CARELESS + NAMES + [str(folder / "games.jsonl"), str(folder), str(folder / "no" / "such")]
            if argv[i] in BUDGETS:
                pool = [x for x in pool if x not in ("1e99", "999999999999999999999", "inf")] + SMALL
            argv[i + 1] = data.draw(st.sampled_from(pool))
        elif kind == "drop" and options:
            i = data.draw(st.sampled_from(options))
            del argv[i : i + 2]
            options = [j if j < i else j - 2 for j in options if j != i and j != i + 1 and j + 1 < len(argv)]
        elif kind == "extra":
            flag = data.draw(st.sampled_from(["--seed", "-o", "--variant", "--workers", "--seat", "--agent",
                                              "--record-hands", "--game", "--backend", "--quiet", "--nosuch"]))  # fmt: skip
            value = data.draw(st.sampled_from(CARELESS + NAMES[:8] + SMALL))
            argv += [flag] if flag == "--quiet" else [flag, value]
        elif kind == "positional" and len(argv) > 1:
            argv.insert(1, data.draw(st.sampled_from(CARELESS + NAMES)))
    return argv


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_careless_command_lines_exit_0_or_2_without_a_traceback(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        bases = _base(folder)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(bases["selfplay"][:-2] + ["--records", str(folder / "games.jsonl")]) == 0
        command = data.draw(st.sampled_from(sorted(bases)))
        argv = _careless(bases[command], data, folder)
        err = io.StringIO()
        stdin = sys.stdin
        sys.stdin = io.StringIO("")  # ``play``: the input ends at once
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as stop:  # argparse: --help (0) or a usage error (2)
                    code = stop.code if isinstance(stop.code, int) else 2
        finally:
            sys.stdin = stdin
        text = err.getvalue()
        assert code in (0, 2), (argv, code, text[-2000:])
        assert "Traceback" not in text, (argv, text[-2000:])

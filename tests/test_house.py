"""House counts that may only go down: the spellings of the numba decorator, functions of many
parameters, and compiled data read by tuple position (``shard[5]``) instead of by name.

Count by hand: ``python tests/test_house.py`` (``-v`` lists the places).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The one decorator (zwick_ai.jit.kernel) and its documented variant for inlined readers
# (zwick_ai.jit.reader). ``numba.vectorize``/``guvectorize`` etc. are not used.
ALLOWED_DECORATORS = {"kernel", "reader"}
# Functions of at least this many parameters are "many".
MANY = 10
# Functions of many parameters today: the ceiling may only go down. Kept, and why:
# - command entry points whose parameters are the command's options, named at every call and most
#   with defaults (a bundle would repeat the same names): cli/tournament.py prepare, command_line,
#   run; eval/leaderboard.py play_pair, run_board; learn/cfr/train.py train; zwicker/engine.py
#   position (keyword arguments of a position written by hand);
# - analysis/joker: net_play.play_net_deals and strong_play.play_game_from, the joker study's
#   per-seat arrays and models;
# - agents/tricks_search.py search (the trick ISMCTS: a tree bundle like zwicker_search's would
#   serve), zwicker/resample.py _world and _prefilter (the determinizer's setup arrays), and
#   agents/cfr/subgame.py's builder and solver (its table and tree tuples would serve as
#   TableArrays and named tree bundles): not yet.
MANY_CEILING = 17
# Tuple-indexed reads of compiled data bundles (``shard[3]``, ``shard[17:25]``).
BUNDLE_NAMES = {"shard"}
BUNDLE_CEILING = 0


def python_files(root: Path = ROOT) -> list[Path]:
    return sorted((root / "zwick_ai").rglob("*.py"))


def decorator_spelling(node: ast.expr) -> str | None:
    """The name a numba decorator is spelled with (``njit``, ``numba.njit``, ``kernel``,
    ``kernels.hot``), or None for a decorator that is no compile decorator."""
    if isinstance(node, ast.Call):
        node = node.func
    name = ast.unparse(node)
    last = name.rsplit(".", 1)[-1]
    if last in {"njit", "jit", "kernel", "hot", "reader", "generated_jit", "vectorize", "guvectorize"}:
        return name
    return None


def decorator_spellings(root: Path = ROOT) -> dict[str, list[str]]:
    """Each spelling of a compile decorator -> the functions (``file:line``) decorated with it."""
    found: dict[str, list[str]] = {}
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for dec in node.decorator_list:
                    spelling = decorator_spelling(dec)
                    if spelling is not None:
                        found.setdefault(spelling, []).append(f"{rel}:{node.lineno}")
    return found


def many_parameter_functions(root: Path = ROOT) -> list[str]:
    """Functions (``file:line name(n)``) of at least :data:`MANY` parameters (``self``/``cls``
    not counted)."""
    found = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
                n = len(params) - (1 if params and params[0].arg in {"self", "cls"} else 0)
                if n >= MANY:
                    found.append(f"{rel}:{node.lineno} {node.name}({n})")
    return found


def positional_bundle_reads(root: Path = ROOT) -> list[str]:
    """Reads of a compiled bundle by constant position (``shard[3]``, ``shard[17:25]``)."""
    found = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in BUNDLE_NAMES:
                s = node.slice
                if isinstance(s, ast.Constant) or (
                    isinstance(s, ast.Slice)
                    and all(x is None or isinstance(x, ast.Constant) for x in (s.lower, s.upper, s.step))
                ):
                    found.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
    return found


def test_one_decorator_spelling():
    spellings = decorator_spellings()
    assert set(spellings) <= ALLOWED_DECORATORS, {k: v[:3] for k, v in spellings.items() if k not in ALLOWED_DECORATORS}


def test_many_parameter_functions_do_not_grow():
    found = many_parameter_functions()
    assert len(found) <= MANY_CEILING, found


def test_positional_bundle_reads_do_not_grow():
    found = positional_bundle_reads()
    assert len(found) <= BUNDLE_CEILING, found


if __name__ == "__main__":
    verbose = "-v" in sys.argv
    spellings = decorator_spellings()
    print("decorator spellings:", dict(Counter({k: len(v) for k, v in spellings.items()}).most_common()))
    many = many_parameter_functions()
    print(f"functions of >= {MANY} parameters: {len(many)}")
    if verbose:
        print("\n".join("  " + f for f in many))
    reads = positional_bundle_reads()
    print(f"positional bundle reads: {len(reads)}")
    if verbose:
        print("\n".join("  " + f for f in reads))

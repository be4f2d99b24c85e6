"""House counts that may only go down: the spellings of the numba decorator, functions of many
parameters, bundles of data handled by position instead of by name, and the command line's long
files.

A *bundle* is several values that travel together (a model's arrays, a shard of records, a
search's context). Read by position, ``rec[3]`` says nothing and breaks silently when a field is
added; a NamedTuple (or a dataclass) says ``rec.final``. The test cannot know types, so it
recognises a bundle by how code handles it (:func:`positional_bundle_uses`):

- *read by position*: one function subscripts the same name (or attribute) by integer constants or
  constant ranges (``m[2:4]``) at :data:`READ_POSITIONS` or more distinct positions (``m[0]``, ``m[1]``,
  ``m[2]``), or subscripts a name of :data:`BUNDLE_NAMES` by a constant at all; every such read
  counts;
- *taken apart by position*: a tuple of :data:`WIDE` or more names assigned from one value
  (``a, b, c, d, e = ctx``), or a ``for`` loop's target as wide; or a tuple of :data:`HELD` or
  more names assigned from a name or an attribute (``prior, reach, group = roots``,
  ``count, first, stride = share.iterations``): a bundle kept and handed on, not the several
  results of a call (``buf, X, n = gen_moves(...)`` is Python's way to return more than one);
- *made by position*: a tuple display of :data:`WIDE` or more items returned (``return a, b, c, d, e``).

How it looks named instead: ``roots.prior``, ``ctx.bufs``, ``choice.chances``, ``layer.weights``;
the producer returns the record (``return MoveChances(rows, index, chances)``) and the consumer
reads its fields; a kernel takes the record whole (numba compiles a ``typing.NamedTuple`` of arrays
and numbers as one argument, ``memo.h1``). A row a file stores as a JSON list (a board's
``[mean, lo, hi]``) is named where it is read, by the record that says its layout
(``MeanInterval(*row).lo``); what files hold stays the same.

What is not a bundle, so not counted:

- ``.shape`` (numpy's own tuple) and array slots named by layout constants
  (``a[layout.S_ASK_Q]``): the constant is the name;
- a sequence's head or tail (``xs[0]``, ``xs[-1]``, ``xs[1:]``) and one or two constant positions
  of an array (``x[0]``, ``x[1]``);
- the several results of a call (``buf, X, n = gen_moves(...)``) and ``f(*row)`` (the positions
  are given to named parameters);
- the functions of :data:`NOT_BUNDLES`, each with why: an outside API's tuple taken apart where
  it is called (Gymnasium's step, matplotlib's error bar lines, numpy's random state), arrays
  indexed by design, and the one function that checks a file format's row against its layout.

Count by hand: ``python tests/test_house.py`` (``-v`` lists the places).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The one decorator (zwick_ai.jit.kernel) and its documented variant for inlined readers
# (zwick_ai.jit.reader). ``numba.vectorize``/``guvectorize`` etc. are not used.
ALLOWED_DECORATORS = {"kernel", "reader"}
# Functions of at least this many parameters are "many".
MANY = 10
# Functions of many parameters today: the ceiling may only go down. Kept, and why: entry points
# whose parameters are options, named at every call and most with defaults (a record would repeat
# the same names): MCCFRSolver.__init__; zwicker/engine.py position (keyword arguments of a
# position written by hand). The compiled searches and traversals take their arrays as records
# instead (subgame.Build, resolve_tree.Build, mccfr.TrickWalk, zwicker_mccfr.Episodes), a CFR
# training run its options (learn/cfr/train.py TrainOptions) and a leaderboard board how its pairs
# are played (eval/leaderboard.py PairPlay).
MANY_CEILING = 2
# A name read at this many distinct constant positions in one function is a bundle read by position.
READ_POSITIONS = 3
# Names that always hold a bundle: any constant subscript of them counts.
BUNDLE_NAMES = {"shard"}
# Tuples of this many names or items, unpacked or returned, are bundles handled by position.
WIDE = 5
# Tuples of this many names taken from a name or an attribute (a bundle held) are read by position.
HELD = 3
# ``file::function`` whose constant positions are not a bundle's, and why.
NOT_BUNDLES = {
    "zwick_ai/envs/single.py::step": "Gymnasium's step returns (obs, reward, terminated, truncated, info)",
    "zwick_ai/envs/vector.py::step": "Gymnasium's vector step returns (obs, reward, terminated, truncated, info)",
    "zwick_ai/envs/vector.py::step_wait": "unpacks Gymnasium's step of each sub-environment",
    "zwick_ai/envs/warm_up.py::_environments": "steps Gymnasium environments: (obs, reward, terminated, truncated, info)",
    "zwick_ai/eval/pictures.py::drawn_bars": "matplotlib's ErrorbarContainer.lines is (data_line, caplines, barlinecols)",
    "zwick_ai/eval/records.py::_is_move": "checks a records file's move, the JSON list [seat, label, [actions]] of its format",
    "zwick_ai/analysis/joker/report.py::figures": "a matplotlib figure's array of axes",
    "zwick_ai/analysis/joker/strong_report.py::figure": "a matplotlib figure's array of axes",
    "zwick_ai/seeded_choice.py::seeded_uniform": "the seed sequence's eight 32-bit state words, an array",
    "zwick_ai/seeded_choice.py::pairwise_sum": "an array's eight lanes summed pairwise",
    "zwick_ai/tricks/kernels.py::combo_value": "a three-card hand's cards and ranks, arrays",
    "zwick_ai/tricks/reference.py::_combo": "a three-card hand's ranks, a list",
    "zwick_ai/tricks/reference.py::project": "a position's comparison key: compared whole with ==, never read",
    "zwick_ai/zwicker/codec.py::encode_row": "the move's token array, written token by token",
    "zwick_ai/envs/parallel.py::step": "PettingZoo's parallel step returns (obs, rewards, terminations, truncations, infos)",
    "zwick_ai/learn/openspiel_nets.py::state": "numpy's RandomState.get_state() tuple, read to save it",
    "zwick_ai/learn/openspiel_nets.py::_rng_state": "numpy's RandomState.get_state() tuple, unpacked to save it",
}
# Bundles handled by position today (``-v`` lists them): none; the ceiling may only go down.
BUNDLE_CEILING = 0
# The command line only parses, calls the layer below and prints (``zwick_ai/cli/``): files over
# CLI_LINES lines, and the longest file's lines, may only go down. None is over today: what a
# command does lives below it (precompile's workloads in each layer's warm_up module, play's
# terminal player in eval/human.py and its table in render/text.py, the train commands' checks and
# results in learn/requests.py), the entry module included.
CLI_LINES = 150
CLI_LONG_CEILING = 0
CLI_LONGEST_CEILING = 150


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


def _constant_position(node: ast.expr) -> str | None:
    """The constant position of a subscript (``3``, ``17:25``), or None for a computed one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return str(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return ast.unparse(node)
    if (  # a field range (``17:25``); an open end (``1:``) is a sequence's tail, not a field
        isinstance(node, ast.Slice)
        and node.lower is not None
        and node.upper is not None
        and all(x is None or _constant_position(x) is not None for x in (node.lower, node.upper, node.step))
    ):
        return ast.unparse(node)
    return None


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of ``function``'s body, without those of the functions defined inside it."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _function_uses(nodes: list[ast.AST]) -> list[tuple[int, str]]:
    """(line, what) of one function's positional bundle uses (module docstring)."""
    uses: list[tuple[int, str]] = []
    reads: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):
            subject = ast.unparse(node.value)
            position = _constant_position(node.slice)
            if position is not None and not subject.endswith("shape"):
                reads[subject].append((node.lineno, position, ast.unparse(node)))
        targets: list[ast.expr] = []
        wide = WIDE
        if isinstance(node, ast.Assign) and not isinstance(node.value, ast.Tuple | ast.List):
            targets = list(node.targets)
            if isinstance(node.value, ast.Name | ast.Attribute):
                wide = HELD
        elif isinstance(node, ast.For | ast.comprehension):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Tuple) and len(target.elts) >= wide:
                uses.append((target.lineno, f"unpacks {len(target.elts)}: {ast.unparse(target)}"))
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) >= WIDE:
            uses.append((node.lineno, f"returns a tuple of {len(node.value.elts)}"))
    for subject, found in reads.items():
        if subject.rsplit(".", 1)[-1] in BUNDLE_NAMES or len({p for _, p, _ in found}) >= READ_POSITIONS:
            uses += [(line, f"reads {text}") for line, _, text in found]
    return uses


def positional_bundle_uses(root: Path = ROOT) -> list[str]:
    """Bundles read, taken apart or made by position (``file:line function: what``; module
    docstring), in the functions not listed in :data:`NOT_BUNDLES`."""
    found: list[tuple[str, int, str]] = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and f"{rel}::{node.name}" not in NOT_BUNDLES:
                found += [(rel, line, f"{node.name}: {what}") for line, what in _function_uses(_own_nodes(node))]
    return [f"{rel}:{line} {what}" for rel, line, what in sorted(found)]


def test_one_decorator_spelling():
    spellings = decorator_spellings()
    assert set(spellings) <= ALLOWED_DECORATORS, {k: v[:3] for k, v in spellings.items() if k not in ALLOWED_DECORATORS}


def test_many_parameter_functions_do_not_grow():
    found = many_parameter_functions()
    assert len(found) <= MANY_CEILING, found


def cli_file_lines(root: Path = ROOT) -> dict[str, int]:
    """Each file of ``zwick_ai/cli/`` and its number of lines."""
    return {
        path.relative_to(root).as_posix(): len(path.read_text().splitlines())
        for path in sorted((root / "zwick_ai" / "cli").rglob("*.py"))
    }


def test_command_line_files_do_not_grow():
    lines = cli_file_lines()
    long = {name: n for name, n in lines.items() if n > CLI_LINES}
    assert len(long) <= CLI_LONG_CEILING, long
    assert max(lines.values()) <= CLI_LONGEST_CEILING, long


def test_positional_bundle_uses_do_not_grow():
    found = positional_bundle_uses()
    assert len(found) <= BUNDLE_CEILING, found


def test_every_function_said_to_hold_no_bundle_exists():
    defined = {
        f"{path.relative_to(ROOT).as_posix()}::{node.name}"
        for path in python_files()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert set(NOT_BUNDLES) <= defined, set(NOT_BUNDLES) - defined


def test_the_bundle_counter_sees_each_form_and_not_the_others(tmp_path: Path):
    """Each form of the module docstring counts once per use; arrays read at one or two constant
    positions, ``.shape``, computed positions, narrow tuples and nested functions do not."""
    pkg = tmp_path / "zwick_ai"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "def reads(m, x, i):\n"
        "    return m[0] + m[1] * m[2:4] + x[0] + x[-1] + x[i] + x.shape[0] + x.shape[1] + x.shape[2]\n"
        "def named(shard):\n"
        "    return shard[5]\n"
        "def unpacks(ctx, rows, share):\n"
        "    a, b, c, d, e = ctx\n"
        "    f, g = ctx\n"
        "    u, v, w = share.iterations\n"
        "    x, y, z = make(ctx)\n"
        "    for p, q, r, s, t in rows:\n"
        "        pass\n"
        "    rows = [h for h, i, j, k, l in rows]\n"
        "    return a, b, c, d, e\n"
        "def outer(m):\n"
        "    def inner():\n"
        "        return m[0], m[1]\n"
        "    return m[2], m[3:], inner\n"
        "def step(o):\n"
        "    return o[0], o[1], o[2], o[3], o[4]\n"
        "def named(row, a, layout):\n"
        "    return Interval(*row).lo, a[layout.S_ASK_Q], a[layout.S_ASK_N], a[layout.S_ASK_ANS]\n"
    )
    found = positional_bundle_uses(tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == [
        "reads m[0]",
        "reads m[1]",
        "reads m[2:4]",
        "reads shard[5]",
        "unpacks 5: (a, b, c, d, e)",
        "unpacks 3: (u, v, w)",
        "unpacks 5: (p, q, r, s, t)",
        "unpacks 5: (h, i, j, k, l)",
        "returns a tuple of 5",
        "reads o[0]",
        "reads o[1]",
        "reads o[2]",
        "reads o[3]",
        "reads o[4]",
        "returns a tuple of 5",
    ], found


if __name__ == "__main__":
    verbose = "-v" in sys.argv
    spellings = decorator_spellings()
    print("decorator spellings:", dict(Counter({k: len(v) for k, v in spellings.items()}).most_common()))
    many = many_parameter_functions()
    print(f"functions of >= {MANY} parameters: {len(many)}")
    if verbose:
        print("\n".join("  " + f for f in many))
    uses = positional_bundle_uses()
    print(f"bundles handled by position: {len(uses)}")
    if verbose:
        print("\n".join("  " + f for f in uses))
    long = {name: n for name, n in cli_file_lines().items() if n > CLI_LINES}
    print(f"command-line files over {CLI_LINES} lines: {len(long)}")
    if verbose:
        print("\n".join(f"  {name} {n}" for name, n in sorted(long.items(), key=lambda x: -x[1])))

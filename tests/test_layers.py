"""The package's layers, held by a test: every import in every module, functions' local imports
included, goes to the module's own package or to a lower layer. The layers, lowest first:

0. the foundation modules at the top of the package (cards, seeded choices, statistics with 95%
   confidence intervals, the numba decorator, its cache and the up-front compile's steps, the
   perceptron's forward pass, option parsing, the machine's description, safe file writing,
   figures as PNG files, worker processes and stop signals, how a command stops, the backends
   every pool runs on); these may import one another;
1. the engines ``zwicker`` and ``tricks``;
2. the OpenSpiel games ``games``;
3. ``agents`` (what plays) and ``vector`` (batched games), independent of each other;
4. ``envs`` (RL environments) and ``render`` (pictures and pages);
5. ``eval`` (matches, tournaments, ratings, records) and ``learn`` (training and solving),
   independent of each other: training is handed what it measures with (a callable), not eval;
6. ``analysis`` (the joker study, move values);
7. ``cli`` (the ``zwick`` command).

No exception is kept: :data:`EXCEPTIONS` is empty, and a new one must be written there with its reason.
README.md, CONTRIBUTING.md and docs/api/index.md quote the one drawing of these layers, :func:`drawing`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "zwick_ai"
FOUNDATION = 0
LAYERS = {
    **dict.fromkeys(
        (
            "cards",
            "chance_runs",
            "seeded_choice",
            "stats",
            "options",
            "jit",
            "_jit_cache",
            "mlp",
            "machine",
            "deferred_signals",
            "interrupts",
            "files",
            "plots",
            "processes",
            "backends",
            "precompile",
        ),
        FOUNDATION,
    ),
    "zwicker": 1,
    "tricks": 1,
    "games": 2,
    "agents": 3,
    "vector": 3,
    "envs": 4,
    "render": 4,
    "eval": 5,
    "learn": 5,
    "analysis": 6,
    "cli": 7,
}
#: (importing module, imported module) pairs allowed against the layers, each with its reason
EXCEPTIONS: dict[tuple[str, str], str] = {}
#: the documents that quote :func:`drawing` word for word
QUOTED_IN = ("README.md", "CONTRIBUTING.md", "docs/api/index.md")


def drawing() -> str:
    """The layers in one line, lowest first: packages of one layer separated by commas (neither
    imports the other), the foundation modules as ``foundation``."""
    ranks: dict[int, list[str]] = {}
    for name, rank in LAYERS.items():
        ranks.setdefault(rank, []).append(name)
    return " → ".join("foundation" if rank == FOUNDATION else ", ".join(ranks[rank]) for rank in sorted(ranks))


def _part(module: str) -> str | None:
    """The layer name of a ``zwick_ai.X...`` module (``None`` for the package itself or outsiders)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "zwick_ai" and len(parts) > 1 else None


def upward_imports(path: Path, package: Path = PACKAGE) -> list[str]:
    """The imports of ``path`` (a module of ``package``) that break the layers, one line each."""
    rel = path.relative_to(package.parent).with_suffix("")
    module = ".".join(rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts)
    mine = _part(module)
    if mine is None:
        return []
    if mine not in LAYERS:
        return [f"{module}: in no layer (add it to LAYERS in tests/test_layers.py)"]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            targets = ["zwick_ai.<relative import>"]
        else:
            continue
        for target in targets:
            theirs = _part(target)
            if theirs is None or theirs == mine or (module, target) in EXCEPTIONS:
                continue
            rank, mine_rank = LAYERS.get(theirs), LAYERS[mine]
            if rank is None or rank > mine_rank or (rank == mine_rank and rank != FOUNDATION):
                found.append(f"{module} (line {node.lineno}) imports {target}")
    return found


def test_every_import_goes_down_the_layers():
    broken = [line for path in sorted(PACKAGE.rglob("*.py")) for line in upward_imports(path)]
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("document", QUOTED_IN)
def test_the_documents_quote_the_one_drawing(document):
    text = (PACKAGE.parent / document).read_text()
    assert f"`{drawing()}`" in text, f"{document} does not quote the layers as drawn here: `{drawing()}`"


@pytest.mark.parametrize(
    "where, source",
    [
        ("agents/planted.py", "from zwick_ai.eval import tournament\n"),
        ("zwicker/planted.py", "def f():\n    import zwick_ai.games.zwicker_bridge\n"),
        ("agents/planted.py", "from zwick_ai import vector\n"),
        ("learn/planted.py", "def f():\n    from zwick_ai.eval.tournament import run_tournament\n"),
        ("games/planted.py", "from zwick_ai.cli import main\n"),
        ("eval/planted.py", "from . import tournament\n"),
    ],
)
def test_a_planted_upward_import_is_caught(tmp_path, where, source):
    """An upward import, a local one in a function, one between the two packages of layer 3 or of
    layer 5, and a relative one are each caught; the same file importing downward is not."""
    package = tmp_path / "zwick_ai"
    path = package / where
    path.parent.mkdir(parents=True)
    path.write_text(source)
    assert upward_imports(path, package)
    path.write_text("import numpy\nfrom zwick_ai import cards\nfrom zwick_ai.mlp import mlp_forward\n")
    assert not upward_imports(path, package)

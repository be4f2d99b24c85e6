"""How many of the engine's raw array offsets (``zwick_ai/zwicker/layout.py``) code outside the
engine names. Searches and learners should take what they need from the engine's API
(:mod:`zwick_ai.zwicker.decision`, :mod:`zwick_ai.zwicker.arrays`, :mod:`zwick_ai.zwicker.engine`)
instead; the goal is at most 20 distinct names. The ceiling below is today's count: it may only go down.

Count by hand: ``python tests/test_layout_imports.py`` (``-v`` lists the files per name).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CEILING = 18
GOAL = 20


def layout_names(root: Path = ROOT) -> dict[str, set[str]]:
    """Each layout name used outside ``zwick_ai/zwicker/`` -> the files that use it (imported by
    name, or read as ``layout.NAME`` from an imported layout module)."""
    names: dict[str, set[str]] = defaultdict(set)
    for path in sorted((root / "zwick_ai").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("zwick_ai/zwicker/"):
            continue
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("zwicker.layout"):
                for a in node.names:
                    names[a.name].add(rel)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("zwicker"):
                modules |= {a.asname or a.name for a in node.names if a.name == "layout"}
            elif isinstance(node, ast.Import):
                modules |= {a.asname or a.name for a in node.names if a.name.endswith("zwicker.layout")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
                names[node.attr].add(rel)
    return dict(names)


def test_layout_names_outside_the_engine_do_not_grow():
    names = layout_names()
    assert len(names) <= CEILING, (
        f"{len(names)} layout names outside zwick_ai/zwicker/ (ceiling {CEILING}, goal {GOAL})"
    )


if __name__ == "__main__":
    found = layout_names()
    print(f"{len(found)} distinct layout names outside zwick_ai/zwicker/ (goal {GOAL})")
    if "-v" in sys.argv:
        for name in sorted(found):
            print(f"  {name}: {', '.join(sorted(found[name]))}")

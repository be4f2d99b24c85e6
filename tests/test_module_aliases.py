"""Module aliases in ``zwick_ai/`` are spelled out: none shorter than four letters, except the
universal ``import numpy as np`` (CONTRIBUTING.md, "Style"). Doctest lines count too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {("numpy", "np")}
DOCTEST_IMPORT = re.compile(r"^\s*(?:>>>|\.\.\.)\s+(?P<code>(?:from\s+\S+\s+)?import\s+.+)$")


def short_aliases(source: str) -> list[str]:
    """``module as alias`` for every alias shorter than four letters in code and doctest imports."""
    trees = [ast.parse(source)]
    for line in source.splitlines():
        m = DOCTEST_IMPORT.match(line)
        if m:
            try:
                trees.append(ast.parse(m["code"].strip()))
            except SyntaxError:
                continue
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for a in node.names:
                    if a.asname is not None and len(a.asname) < 4 and (a.name, a.asname) not in ALLOWED:
                        found.append(f"{a.name} as {a.asname}")
    return found


def test_the_scan_finds_short_aliases():
    assert short_aliases("import numpy as np\nfrom zwick_ai import cards\n") == []
    assert short_aliases("from zwick_ai.zwicker import kernels as K\n") == ["kernels as K"]
    assert short_aliases('"""\n>>> from zwick_ai import tricks as T\n"""\n') == ["tricks as T"]
    assert short_aliases("from a import (\n    b as bb,\n    c as long_name,\n)\n") == ["b as bb"]


def test_no_short_module_aliases():
    bad = {}
    for path in sorted((ROOT / "zwick_ai").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found = short_aliases(path.read_text())
        if found:
            bad[rel] = found
    assert not bad, f"spell these module aliases out (four letters or more): {bad}"

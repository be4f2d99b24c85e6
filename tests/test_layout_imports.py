"""How many names of each engine's raw array layouts code outside that engine uses: the Zwicker
position layout (``zwick_ai/zwicker/layout.py``), the Zwicker hand history
(``zwick_ai/zwicker/history.py``) and the trick engine's layout (``zwick_ai/tricks/layout.py``).
Searches, learners and renderers should take what they need from the engines' readers
(:mod:`zwick_ai.zwicker.arrays`, :mod:`zwick_ai.tricks.arrays`) and APIs instead; the goal is at
most 20 distinct names per layout. Each ceiling below is today's count: it may only go down.

A layout name is an upper-case name (an offset, size or code) taken from the layout module or
from the engine's reader module that re-exports the public ones, imported by name or read as
``module.NAME`` from the imported module; functions these modules define are their API and do not
count.

Count by hand: ``python tests/test_layout_imports.py`` (``-v`` lists the files per name).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOAL = 20


class Ratchet(NamedTuple):
    modules: tuple[str, ...]  # the layout module and the module re-exporting its public names, dotted
    home: str  # the engine's folder: code inside it may use the layout freely
    ceiling: int


RATCHETS = (
    # 21: the re-solver's STATE_SIZE, the stakes abstraction's R_MAX_BUILD and the search plan's MAX_PLAYERS came since
    Ratchet(("zwick_ai.zwicker.layout",), "zwick_ai/zwicker/", 21),
    Ratchet(("zwick_ai.zwicker.history",), "zwick_ai/zwicker/", 18),
    Ratchet(("zwick_ai.tricks.layout", "zwick_ai.tricks.arrays"), "zwick_ai/tricks/", 18),
)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module name of a (possibly relative) ``from ... import``."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def layout_names(modules: tuple[str, ...], home: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Each upper-case name of ``modules`` used outside ``home`` -> the files that use it
    (imported by name, or read as ``alias.NAME`` from an imported module)."""
    split = {tuple(m.rsplit(".", 1)) for m in modules}
    names: dict[str, set[str]] = defaultdict(set)
    for path in sorted((root / "zwick_ai").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(home):
            continue
        tree = ast.parse(path.read_text())
        package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node, package)
                if source in modules:
                    for a in node.names:
                        if a.name.isupper():
                            names[a.name].add(rel)
                else:
                    aliases |= {a.asname or a.name for a in node.names if (source, a.name) in split}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname for a in node.names if a.name in modules and a.asname}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.isupper()
            ):
                names[node.attr].add(rel)
    return dict(names)


@pytest.mark.parametrize("ratchet", RATCHETS, ids=lambda r: r.modules[0])
def test_layout_names_outside_the_engine_do_not_grow(ratchet: Ratchet):
    names = layout_names(ratchet.modules, ratchet.home)
    assert len(names) <= ratchet.ceiling, (
        f"{len(names)} names of {ratchet.modules[0]} outside {ratchet.home} (ceiling {ratchet.ceiling}, goal {GOAL}): "
        f"{', '.join(sorted(names))}"
    )


def test_the_counter_sees_every_import_form(tmp_path: Path):
    pkg = tmp_path / "zwick_ai" / "games"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text(
        "from zwick_ai.tricks import layout as L\nfrom zwick_ai.tricks.layout import NC, helper\n"
        "import zwick_ai.tricks.layout as TL\nfrom ..tricks import layout\n"
        "from zwick_ai.tricks import arrays\nfrom zwick_ai.tricks.arrays import A_PLAY, hand\n"
        "x = L.S_CUR + TL.S_POT + layout.S_TRUMP + NC + arrays.NP + arrays.trump(x)\n"
    )
    (tmp_path / "zwick_ai" / "tricks").mkdir()
    (tmp_path / "zwick_ai" / "tricks" / "b.py").write_text("from zwick_ai.tricks.layout import S_HIST\n")
    found = layout_names(("zwick_ai.tricks.layout", "zwick_ai.tricks.arrays"), "zwick_ai/tricks/", tmp_path)
    assert sorted(found) == ["A_PLAY", "NC", "NP", "S_CUR", "S_POT", "S_TRUMP"]


if __name__ == "__main__":
    for r in RATCHETS:
        found = layout_names(r.modules, r.home)
        print(
            f"{len(found)} distinct names of {' + '.join(r.modules)} outside {r.home} (ceiling {r.ceiling}, goal {GOAL})"
        )
        if "-v" in sys.argv:
            for name in sorted(found):
                print(f"  {name}: {', '.join(sorted(found[name]))}")

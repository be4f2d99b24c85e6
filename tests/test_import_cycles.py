"""No import circle in the house: no two modules of ``zwick_ai`` import each other, directly or
through others, counting every import that runs (at module level or inside a function), not those
under ``if TYPE_CHECKING:`` (read only by the type checker). A circle means two modules share one
job or a lower one reaches up; it is broken by moving what both need down, not by deferring an import."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "zwick_ai"


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for f in root.rglob("*.py"):
        parts = f.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _runtime_imports(tree: ast.AST, package: str, known: dict[str, Path]) -> set[str]:
    """The ``zwick_ai`` modules a module imports when it runs (TYPE_CHECKING blocks skipped)."""
    found: set[str] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
        todo.extend(ast.iter_child_nodes(node))
    return {m for m in found if m in known}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    known = _modules(root)
    graph = {}
    for name, f in known.items():
        package = name if f.name == "__init__.py" else name.rsplit(".", 1)[0]
        graph[name] = _runtime_imports(ast.parse(f.read_text()), package, known) - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        group.append(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))
    return out


def test_no_import_circle_in_the_package():
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle_through_a_function_level_import(tmp_path):
    pkg = tmp_path / "zwick_ai"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "low.py").write_text("from zwick_ai.sub.high import X\n")
    (pkg / "sub" / "high.py").write_text("def f():\n    from . import low\nX = 1\n")
    (pkg / "sub" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from zwick_ai.sub import low\nimport zwick_ai.sub.high\n"
    )
    assert circles(import_graph(pkg)) == [["zwick_ai.sub.high", "zwick_ai.sub.low"]]
    (pkg / "sub" / "high.py").write_text("X = 1\n")
    assert circles(import_graph(pkg)) == []

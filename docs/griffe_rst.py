"""A griffe extension: render zwick_ai's reStructuredText-flavoured docstrings as Markdown.

The package docstrings use Sphinx roles (:func:`make_agent`), doctest examples (``>>>``), literal
blocks introduced by ``::`` and RST simple tables (rows between ``====`` lines). Markdown would
turn ``>>>`` into nested quotes and the tables into run-on text, so this rewrites them before
mkdocstrings renders: roles become code spans, doctests ``pycon`` fences, literal blocks and
simple tables ``text`` fences. The docstrings themselves stay as they are (pytest runs them).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|obj|exc|const|py:\w+):`~?([^`]+)`")
_TABLE_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _fence(lines: list[str], lang: str) -> list[str]:
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [f"```{lang}", *(x[indent:] for x in lines), "```"]


def to_markdown(text: str) -> str:
    """The Markdown form of one docstring."""
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["", *_fence(block, "pycon"), ""]
            continue
        if _TABLE_BORDER.match(line):
            block = [line]
            i += 1
            # a simple table ends at a border line followed by a blank line (or the end)
            while i < len(lines):
                block.append(lines[i])
                i += 1
                if _TABLE_BORDER.match(block[-1]) and (i == len(lines) or not lines[i].strip()):
                    break
            out += ["", *_fence(block, "text"), ""]
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            out.append(line[: line.rstrip().rfind("::")].rstrip() + (":" if stripped != "::" else ""))
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            base = len(line) - len(line.lstrip())
            block = []
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > base):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", *_fence(block, "text"), ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring with :func:`to_markdown` once the tree is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)

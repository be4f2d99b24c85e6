"""The example of docs/vector.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "vector.md"


@pytest.mark.slow  # about a minute: the page trains a small network
def test_docs_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert blocks
    for block in blocks:
        if "import torch" in block or "zwick_ai.learn" in block:
            pytest.importorskip("torch")
        exec(compile(block, str(PAGE), "exec"), {})

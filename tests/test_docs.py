"""The documentation: nothing in the package or README points outside the repository, every
module the API reference lists exists and every module of the package is on one page of it, the
docstring rewriting for the site is right, and the README's leaderboard is the committed one, and
the documents and results stay within the sizes a reader can take in."""

import importlib.util
import json
import pkgutil
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_griffe_rst():
    spec = importlib.util.spec_from_file_location("griffe_rst", ROOT / "docs" / "griffe_rst.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_file_in_the_package_or_readme_refers_outside_the_repository():
    files = [ROOT / "README.md", *(p for p in (ROOT / "zwick_ai").rglob("*") if p.suffix in (".py", ".md", ".toml"))]
    offenders = [
        str(p.relative_to(ROOT)) for p in files if re.search(r"\.\./shared|OPENSPIEL_NOTES|RULES\.md", p.read_text())
    ]
    assert offenders == []


def test_every_module_of_the_api_reference_exists():
    listed = [
        m
        for page in (ROOT / "docs" / "api").glob("*.md")
        for m in re.findall(r"^::: ([\w.]+)$", page.read_text(), re.M)
    ]
    assert len(listed) > 30
    missing = []
    for module in listed:
        base = ROOT.joinpath(*module.split("."))
        if not (base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()):
            missing.append(module)
    assert missing == []


#: the API page of the foundation modules at the top of the package (``zwick_ai.stats``, ...)
FOUNDATION_PAGE = "cards"
#: modules of the package on no API page, each with its reason; besides these, a private module
#: (a part of its name starts with ``_``: ``zwick_ai._jit_cache``, ``zwick_ai.cli.__main__``) is on none
NOT_ON_A_PAGE = {
    "zwick_ai": "the package itself defines nothing public but __version__; its docstring's layers are "
    "drawn on docs/api/index.md",
}


def _package_modules(folder: Path, name: str) -> set[str]:
    """Every module under ``folder`` (the package ``name``), read from the folders by pkgutil:
    nothing is imported, so no numba, torch or OpenSpiel."""
    found = {name}
    for info in pkgutil.iter_modules([str(folder)]):
        if info.ispkg:
            found |= _package_modules(folder / info.name, f"{name}.{info.name}")
        else:
            found.add(f"{name}.{info.name}")
    return found


def _home_page(module: str) -> str:
    """The API page a module belongs on: its top-level package's, the foundation's for a module at the
    top of the package. A CLI command module is on ``cli.md`` like any other module: its docstring is
    what the command does, which ``zwick COMMAND --help`` does not say as fully."""
    top = module.split(".")[1]
    return top if (ROOT / "zwick_ai" / top / "__init__.py").is_file() else FOUNDATION_PAGE


def test_the_module_walk_finds_packages_foundation_modules_and_private_ones():
    modules = _package_modules(ROOT / "zwick_ai", "zwick_ai")
    assert {"zwick_ai", "zwick_ai.stats", "zwick_ai._jit_cache", "zwick_ai.eval.tournament.run"} <= modules
    assert "zwick_ai.cli.train.ppo" in modules and len(modules) > 150
    assert _home_page("zwick_ai.stats") == "cards" and _home_page("zwick_ai.eval.tournament.run") == "eval"


def test_every_module_of_the_package_is_on_exactly_one_api_page_its_packages():
    """Each module is one ``::: module`` line of ``docs/api/<package>.md`` (the foundation's on
    ``cards.md``), unless it is private or in :data:`NOT_ON_A_PAGE`; a module on two pages, on
    another package's page, or on none fails with its name."""
    pages: dict[str, list[str]] = {}
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for module in re.findall(r"^::: ([\w.]+)$", page.read_text(), re.M):
            pages.setdefault(module, []).append(page.stem)
    modules = {
        m
        for m in _package_modules(ROOT / "zwick_ai", "zwick_ai")
        if not any(part.startswith("_") for part in m.split(".")) and m not in NOT_ON_A_PAGE
    }
    assert set(NOT_ON_A_PAGE) <= _package_modules(ROOT / "zwick_ai", "zwick_ai"), "an exception names no module"
    absent = sorted(m for m in modules if m not in pages)
    twice = {m: where for m, where in pages.items() if len(where) > 1}
    astray = {m: where[0] for m, where in pages.items() if m in modules and where[0] != _home_page(m)}
    assert not absent, f"on no page of docs/api/ (add a '::: module' line to its package's page): {absent}"
    assert not twice, f"on more than one page: {twice}"
    assert not astray, f"on another package's page: {astray}"


def test_rst_docstrings_become_markdown():
    pytest.importorskip("griffe", reason='the docs extra is not installed: pip install -e ".[docs]"')
    to_markdown = _load_griffe_rst().to_markdown
    text = "Use :func:`make_agent` and :class:`~zwick_ai.agents.Agent`:\n\n>>> 1 + 1\n2\n\nThen::\n\n    literal\n\nend"
    assert to_markdown(text) == (
        "Use `make_agent` and `zwick_ai.agents.Agent`:\n\n\n```pycon\n>>> 1 + 1\n2\n```\n\n\n"
        "Then:\n\n```text\nliteral\n```\n\nend"
    )
    table = "====  ====\na     b\n====  ====\nx     y\n====  ====\n\nafter"
    assert to_markdown(table).split("\n")[1] == "```text" and "after" in to_markdown(table).split("```")[-1]


def test_the_readme_headline_is_the_committed_leaderboard():
    """README.md's leaderboard tables are ``headline.md``, which is the committed results' headline."""
    from zwick_ai.eval.leaderboard import headline

    out = ROOT / "experiments" / "results" / "leaderboard"
    lines = headline(json.loads((out / "leaderboard.json").read_text()))
    assert (out / "headline.md").read_text() == "\n".join(lines) + "\n"
    readme = (ROOT / "README.md").read_text()
    missing = [line for line in lines if line and line not in readme.splitlines()]
    assert not missing, missing


@pytest.mark.slow
def test_the_openspiel_nash_conv_example_runs_and_gives_its_numbers():
    """docs/openspiel.md's nash_conv block, run as written: the figures in its comments hold."""
    text = (ROOT / "docs" / "openspiel.md").read_text()
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    code = textwrap.dedent(block)
    lines = [line for line in code.splitlines() if "nash_conv(" in line and "#" in line]
    names = {}
    for k, line in enumerate(lines):  # keep each nash_conv call's value
        call = line.split("#")[0].strip()
        code = code.replace(call, f"value_{k} = {call}", 1)
        names[f"value_{k}"] = float(line.split("#")[1].split(",")[0])
    scope: dict = {}
    exec(compile(code, "docs/openspiel.md", "exec"), scope)
    for name, shown in names.items():
        assert round(scope[name], 2) == round(shown, 2), (name, scope[name], shown)


README_MAX_LINES = 250
BENCHMARKS_MAX_LINES = 300
BENCHMARKS_MAX_LINE = 300
CHANGELOG_MAX_LINE = 300
RESULTS_MAX_FILES = 600
RESULTS_MAX_BYTES = 33_000_000  # the MCCFR blueprints the leaderboard plays live there too (6.6 MB)


def test_the_readme_and_the_benchmarks_page_stay_short_and_the_changelog_lines_readable():
    readme = (ROOT / "README.md").read_text().splitlines()
    benchmarks = (ROOT / "benchmarks" / "README.md").read_text().splitlines()
    assert len(readme) <= README_MAX_LINES, f"README.md has {len(readme)} lines"
    assert len(benchmarks) <= BENCHMARKS_MAX_LINES, f"benchmarks/README.md has {len(benchmarks)} lines"
    wide = [i + 1 for i, line in enumerate(benchmarks) if len(line) > BENCHMARKS_MAX_LINE]
    assert not wide, f"benchmarks/README.md lines over {BENCHMARKS_MAX_LINE} characters: {wide}"
    long = [
        i + 1
        for i, line in enumerate((ROOT / "CHANGELOG.md").read_text().splitlines())
        if len(line) > CHANGELOG_MAX_LINE
    ]
    assert not long, f"CHANGELOG.md lines over {CHANGELOG_MAX_LINE} characters: {long}"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the git checkout")
def test_the_committed_results_stay_within_33_mb_and_600_files():
    listed = subprocess.run(
        ["git", "ls-files", "-z", "experiments/results"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    files = [ROOT / name.decode() for name in listed if name]
    size = sum(f.stat().st_size for f in files if f.exists())
    assert len(files) <= RESULTS_MAX_FILES, f"{len(files)} files committed under experiments/results"
    assert size <= RESULTS_MAX_BYTES, f"{size / 1e6:.1f} MB committed under experiments/results"


#: the documents where each measured figure has one home (CHANGELOG.md keeps replaced figures by version)
FIGURE_HOMES = ("README.md", "benchmarks/README.md", "experiments/README.md", "docs/*.md")
_NUMBER = r"[+−-]?\d[\d,]*(?:\.\d+)?"
#: a figure with its interval, "+3.07 [+2.06, +4.09]", "−0.158 ± 0.111", "0.19 chips [−0.11, +0.16]",
#: or a measured ratio, "63.5×", "132×" (not a round factor such as "2×")
_FIGURE = re.compile(
    rf"({_NUMBER})(?: chips| points)? \[({_NUMBER}), ({_NUMBER})\]|({_NUMBER}) ± (\d+(?:\.\d+)?)"
    r"|\b(\d+\.\d+×|\d{2,}×)"
)


def _figures(text: str) -> set[tuple[str, ...]]:
    """The figures with an interval and the measured ratios in ``text``, signs and minus signs made alike."""
    found = set()
    for match in _FIGURE.finditer(text):
        parts = [p for p in match.groups() if p is not None]
        found.add(tuple(p.replace("−", "-").lstrip("+") for p in parts))
    return found


def test_the_figure_finder_reads_intervals_and_half_widths():
    text = "ISMCTS +3.07 [+2.06, +4.09] over 200 deals; MCCFR −0.158 ± 0.111; level +0.03 chips [−0.11, +0.16]"
    assert _figures(text) == {("3.07", "2.06", "4.09"), ("-0.158", "0.111"), ("0.03", "-0.11", "0.16")}
    assert _figures("at 63.5× the agent steps, 132× the traversals, 2× the load") == {("63.5×",), ("132×",)}
    assert _figures("the same figure written −1.91 [−3.09, −0.72] and -1.91 [-3.09, -0.72]") == {
        ("-1.91", "-3.09", "-0.72")
    }


def test_each_measured_figure_lives_in_one_document():
    """A measured figure is written once, where its command and date are; other documents link there."""
    pages = sorted({p for pattern in FIGURE_HOMES for p in ROOT.glob(pattern)})
    assert len(pages) > 10
    homes: dict[tuple[str, ...], list[str]] = {}
    for page in pages:
        for figure in _figures(page.read_text()):
            homes.setdefault(figure, []).append(str(page.relative_to(ROOT)))
    repeated = {" ".join(figure): where for figure, where in homes.items() if len(where) > 1}
    assert not repeated, repeated


def test_every_experiment_file_names_the_command_it_takes():
    """A TOML with boards is a leaderboard (`zwick leaderboard`), any other a tournament per variant
    (`zwick run`): its first comment and experiments/README.md's table give that command."""
    import tomllib

    listed = (ROOT / "experiments" / "README.md").read_text()
    files = sorted((ROOT / "experiments").glob("*.toml"))
    assert len(files) >= 5
    for path in files:
        command = "zwick leaderboard" if "board" in tomllib.loads(path.read_text()) else "zwick run"
        comment = "".join(line for line in path.read_text().splitlines(keepends=True) if line.startswith("#"))
        assert f"{command} experiments/{path.name}" in comment, (path.name, command)
        assert f"`{command} experiments/{path.name}" in listed, (path.name, command)

"""``zwick replay --html`` and ``zwick play --html``: one self-contained page per game, checked in
a real headless Chromium (the page's script runs, the move list has one entry per recorded move,
stepping forward changes the table, the seat selector hides the other hands, a screenshot is not
blank) for Zwicker variants and both trick games."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from tests.render.browser import chromium
from zwick_ai.agents import make_agent
from zwick_ai.cli import main
from zwick_ai.eval.match import play_game
from zwick_ai.eval.records import read_records, write_records

GAMES = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grossenwiehe,players=6)",
    "zwicker(variant=grupp,players=3)",
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=historic,players=3)",
    "zwicken(players=4)",
]


@pytest.fixture(scope="module")
def driver():
    """One headless Chromium for the module's tests (skips with the reason where there is none)."""
    with chromium() as d:
        yield d


@pytest.fixture(scope="module")
def records_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One greedy-vs-random game of every game above, as ``zwick`` writes records."""
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    recs = []
    for i, g in enumerate(GAMES):
        game = pyspiel.load_game(g)
        agents = [make_agent("greedy" if p % 2 == 0 else "random", game, seed=p) for p in range(game.num_players())]
        recs.append(play_game(game, agents, deal_seed=10 + i))
    write_records(path, recs)
    return path


def _page(records_file: Path, index: int, out: Path) -> str:
    assert main(["replay", str(records_file), "--game-index", str(index), "--html", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("index", range(len(GAMES)), ids=[g.split(",")[0] + ")" for g in GAMES])
def test_page_is_self_contained(records_file: Path, tmp_path: Path, index: int) -> None:
    html = _page(records_file, index, tmp_path / "g.html")
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing fetched from anywhere
    rec = read_records(records_file)[0][index]
    assert html.count("data-move-index=") == len(rec.moves)
    assert _frame_count(html) == (len(rec.moves) + 1) * (len(rec.seats) + 1)  # every position, every view


def _frame_count(html: str) -> int:
    """The pictures in a page's data, each rebuilt from its pieces and checked to be one SVG."""
    data = json.loads(re.search(r'id="zwick-data">(.*?)</script>', html, re.S).group(1).replace("<\\/", "</"))
    pictures = ["".join(data["pool"][k] for k in f[view]) for f in data["frames"] for view in f]
    assert all(p.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and p.endswith("</svg>") for p in pictures)
    return len(pictures)


def test_refuses_to_overwrite(records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.html"
    out.write_text("finished work")
    assert main(["replay", str(records_file), "--html", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err and out.read_text() == "finished work"


def _open(driver, url: str) -> None:
    """Load ``url`` and wait (a loaded machine can be slow) until the page's script has run."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.getAttribute('data-step')"))


def _board(driver) -> str:
    return driver.execute_script("return document.getElementById('board').innerHTML")


def _not_blank(png: bytes) -> bool:
    import matplotlib.image as mpimg

    img = mpimg.imread(io.BytesIO(png), format="png")
    flat = img[..., :3].reshape(-1, 3)
    colours = np.unique((flat * 255).astype(np.uint8), axis=0)
    return img.shape[0] > 100 and len(colours) > 20 and float(flat.std()) > 0.05


IN_BROWSER = {0, 4, 6}  # dithmarschen, zwikken parlett, zwicken by default; the others with -m slow


@pytest.mark.parametrize(
    "index",
    [pytest.param(i, marks=() if i in IN_BROWSER else pytest.mark.slow) for i in range(len(GAMES))],
    ids=[g.split(",")[0] + ")" for g in GAMES],
)
def test_page_in_chromium(driver, records_file: Path, tmp_path: Path, index: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    rec = read_records(records_file)[0][index]
    out = tmp_path / "g.html"
    _page(records_file, index, out)
    _open(driver, out.resolve().as_uri())
    items = driver.find_elements(By.CSS_SELECTOR, "#moves li[data-move-index]")
    assert [int(li.get_attribute("data-move-index")) for li in items] == list(range(len(rec.moves)))
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-step") == "0"  # the script ran
    start = _board(driver)
    assert start.startswith("<svg")
    # stepping forward (arrow key, then button) changes the table and marks the move
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-step") == "1"
    after = _board(driver)
    assert after != start
    assert "current" in items[0].get_attribute("class")
    driver.find_element(By.ID, "next").click()
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-step") == "2"
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert _board(driver) == after
    # every hand open: no face-down hand cards; seat 0's view: the others' hands face down
    assert 'class="card back" data-zone="hand-' not in after
    Select(driver.find_element(By.ID, "view")).select_by_value("0")
    seat_view = _board(driver)
    assert 'class="card back" data-zone="hand-1"' in seat_view or 'data-zone="hand-1"' not in after
    ET.fromstring(seat_view)  # the drawn picture is well-formed SVG
    # the last position shows the final scores; the last capture is marked
    driver.find_element(By.ID, "end").click()
    assert driver.find_element(By.ID, "final").is_displayed()
    assert f"{rec.returns[0]:+g}" in driver.find_element(By.ID, "final").text
    captures = driver.find_elements(By.CSS_SELECTOR, "#moves li.last-capture")
    assert len(captures) <= 1
    if rec.game.startswith("zwicker"):
        assert len(captures) == 1 and "takes" in captures[0].text
    assert _not_blank(driver.get_screenshot_as_png())


def test_page_opens_at_a_linked_step(driver, records_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.html"
    _page(records_file, 4, out)
    _open(driver, out.resolve().as_uri() + "#step=3&view=1")
    assert driver.execute_script("return document.body.getAttribute('data-step')") == "3"
    assert driver.execute_script("return document.getElementById('view').value") == "1"


def test_play_html_follows_the_game(driver, tmp_path: Path) -> None:
    """``zwick play --html``: the page is rewritten after every move and shows the person's view."""
    from zwick_ai.cli.play import play_human

    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    out = tmp_path / "live.html"
    moves = io.StringIO("1\n" * 40)
    rec = play_human(game, 0, ["greedy"], 4, moves, io.StringIO(), html=str(out))
    html = out.read_text(encoding="utf-8")
    assert html.count("data-move-index=") == len(rec.moves)
    assert 'http-equiv="refresh"' not in html  # the game is over: no more refreshing
    _open(driver, out.resolve().as_uri())
    step = driver.execute_script("return document.body.getAttribute('data-step')")
    assert step == str(len(rec.moves))  # opens at the newest position
    assert driver.execute_script("return document.getElementById('view').value") == "0"
    assert _not_blank(driver.get_screenshot_as_png())


MICRO = "-o ranks=A2345 -o suits=CD -o jokers=15+25 -o hand_size=2 -o table_size=2 -o stages=1"


@pytest.mark.parametrize(
    "argv",
    [
        "--variant grupp --players 3 -o joker_capture=joker_only --policies greedy,random,random".split(),
        f"--variant dithmarschen --players 2 {MICRO} --policies greedy,random".split(),
    ],
)
def test_selfplay_records_make_pages(tmp_path: Path, argv: list[str]) -> None:
    """Records of compiled self-play (other variants and rule options) become pages too."""
    records = tmp_path / "sp.jsonl"
    cmd = [
        "selfplay",
        *argv,
        "--games",
        "4",
        "--seed",
        "3",
        "--quiet",
        "--records",
        str(records),
        "--record-hands",
        "2",
    ]
    assert main(cmd) == 0
    for index, rec in enumerate(read_records(records)[0]):
        html = _page(records, index, tmp_path / f"sp{index}.html")
        assert html.count("data-move-index=") == len(rec.moves) > 0
        assert _frame_count(html) == (len(rec.moves) + 1) * (len(rec.seats) + 1)  # every position, every view


#: a committed game of four seats with long agent specs (``expert:time=0,iters=2000``)
COMMITTED = Path("experiments/results/joker-study/dithmarschen/strength-expert_time=0_iters=2000/games.jsonl.gz")

#: every pair of page blocks, and every text of the picture against every card, that overlap
OVERLAPS = r"""
const box = e => e.getBoundingClientRect();
const meet = (a, b) => a.width > 0 && b.width > 0 && a.left < b.right - 1 && b.left < a.right - 1
  && a.top < b.bottom - 1 && b.top < a.bottom - 1;
const out = [];
const blocks = ['h1', '.sub', '.bar', '#board', '.side'].map(q => document.querySelector(q)).filter(e => e);
for (let i = 0; i < blocks.length; i++) for (let j = i + 1; j < blocks.length; j++)
  if (meet(box(blocks[i]), box(blocks[j]))) out.push(blocks[i].className || blocks[i].tagName, blocks[j].id);
const texts = Array.from(document.querySelectorAll('#board text'));
const cards = Array.from(document.querySelectorAll('#board g.card'));
for (const t of texts) for (const c of cards) if (meet(box(t), box(c))) out.push(t.textContent + ' / ' + c.getAttribute('data-card'));
const page = document.documentElement;
if (page.scrollWidth > window.innerWidth + 1) out.push('page wider than the window: ' + page.scrollWidth);
return out;
"""


def test_committed_game_page_is_light_and_nothing_overlaps(driver, tmp_path: Path) -> None:
    """The page of a committed game is under 1 MB; at a desktop's 1280x800 and a phone's 390 px
    width no block of the page overlaps another and no text of the picture overlaps a card
    (seat labels with long agent specs included), at every step; screenshots of both are kept."""
    out = tmp_path / "committed.html"
    assert main(["replay", str(COMMITTED), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert out.stat().st_size < 1_000_000, out.stat().st_size
    assert html.count("<symbol ") < 120 and "<details" in html  # each card drawn once; the game string folded
    rec = read_records(COMMITTED)[0][0]
    try:
        for width, height in ((1280, 800), (390, 844)):
            driver.set_window_size(width, height)
            for step in (0, len(rec.moves) // 2, len(rec.moves)):
                _open(driver, out.resolve().as_uri() + f"#step={step}&view=all")
                driver.refresh()
                _open(driver, out.resolve().as_uri() + f"#step={step}&view=all")
                assert driver.execute_script("return document.body.getAttribute('data-step')") == str(step)
                assert driver.execute_script(OVERLAPS) == [], (width, step)
            png = driver.get_screenshot_as_png()
            (tmp_path / f"committed-{width}.png").write_bytes(png)
            assert _not_blank(png)
    finally:
        driver.set_window_size(1400, 1000)

"""One self-contained HTML page that steps through a game: the pictures of every position (SVG,
inline), the move list, a seat selector and the final scores. No network, no external script,
style or font: the page is one file that works offline.

The page's data is one JSON object in ``<script type="application/json" id="zwick-data">``:
``frames[i][view]`` is the SVG after ``i`` moves (``i`` = 0: after the deal) for ``view`` ``all``
(every hand open) or a seat number, as the indices of its pieces in ``pool`` (:func:`svg_pieces`;
joined they are the SVG); ``moves[k]`` is ``{"seat", "label", "capture", "values"?}``. Each card
is drawn once, as a ``<symbol>`` in a hidden ``<svg>`` at the top of the page, and placed in the
pictures with ``<use>``. A long subtitle (the game string with every rule option) is folded.

Controls: the buttons, the arrow keys (left/right one move, Home/End), a click on a move, the seat
selector. The address may name where the page opens: ``#step=N`` the position after N moves
(0: after the deal), ``view=V`` the view (``all`` or a seat number), e.g. ``game.html#step=12&view=2``. Each move is an
``<li data-move-index="k">`` (k from 0); the entry of the move that led to the shown position has
class ``current``, the latest capture up to it class ``last-capture``. With move values (``zwick
analyze``) the panel beside the picture lists every legal move of the decision at the shown
position with its mean and 95% CI, the move played and the best marked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape

from zwick_ai.render.svg import symbol_defs

#: a picture's use of a card symbol (the page draws each symbol used once)
SYMBOL_USE = re.compile(r'<use href="#(\w+)"')


@dataclass
class MoveValue:
    """One legal move of an analysed decision: its value for the mover and the 95% CI; its loss
    against the best move with the paired 95% CI, and the verdict (``best``, ``mistake``, ``level``)."""

    move: str
    mean: float
    lo: float
    hi: float
    loss: float | None = None
    loss_lo: float | None = None
    loss_hi: float | None = None
    verdict: str = ""


@dataclass
class PageMove:
    """One recorded decision as the page lists it."""

    seat: int
    label: str
    capture: bool = False  # a capture (Zwicker) or the last card of a trick (trick games)
    values: list[MoveValue] | None = None  # analysed: every legal move's value
    loss: float | None = None  # analysed: best mean minus the played move's mean


@dataclass
class Page:
    """What a replay page shows. ``frames[i]`` maps each view (``all`` or a seat number as a
    string) to the SVG after ``i`` moves; ``len(frames) == len(moves) + 1``."""

    title: str
    subtitle: str
    seat_names: list[str]
    frames: list[Mapping[str, str]]
    moves: list[PageMove]
    result: list[str]
    unit: str = "points"
    note: str = ""
    default_view: str = "all"
    start_step: int = 0  # the position shown when the page opens (without ``#step=``)
    refresh_seconds: int = 0  # reload the page this often (a game being played); 0: never
    extra: dict[str, object] = field(default_factory=dict)

    def check(self) -> None:
        if len(self.frames) != len(self.moves) + 1:
            raise ValueError(f"{len(self.frames)} frames for {len(self.moves)} moves: one more frame than moves")


STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 12px; background: #fafafa; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px 0; overflow-wrap: anywhere; }
.sub { color: #555; margin-bottom: 8px; font-size: 13px; overflow-wrap: anywhere; }
details.sub summary { cursor: pointer; }
svg.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
.bar { display: flex; gap: 6px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.bar button { font-size: 15px; padding: 3px 10px; }
.bar select { max-width: 100%; }
.bar label { max-width: 100%; }
#where { font-weight: bold; }
.main { display: flex; gap: 14px; align-items: flex-start; flex-wrap: wrap; }
#board { width: 902px; max-width: 100%; min-width: 0; }
#board svg { display: block; border: 1px solid #bbb; border-radius: 6px; width: 100%; height: auto; box-sizing: border-box; }
.side { flex: 1 1 300px; min-width: 0; max-width: 430px; }
#values { overflow-x: auto; }
#moves { max-height: 420px; overflow-y: auto; margin: 0; padding-left: 34px; font-size: 13px; border: 1px solid #ccc;
         background: white; }
#moves li { padding: 2px 4px; cursor: pointer; }
#moves li.current { background: #ffe08a; font-weight: bold; }
#moves li.last-capture { outline: 2px solid #ff9800; }
#moves li .loss { color: #b00020; font-size: 11px; margin-left: 6px; }
#values { margin-bottom: 8px; font-size: 13px; }
#values table { border-collapse: collapse; font-size: 12px; background: white; margin-top: 4px; }
#values td, #values th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
#values td.m { text-align: left; }
#values tr.played { background: #ffe08a; }
#values tr.best td.m::after { content: " ★"; color: #1a7f37; }
#values tr.mistake td:last-child { color: #b00020; font-weight: bold; }
#final { margin-top: 10px; font-size: 14px; }
.note { color: #555; font-size: 12px; margin-top: 6px; max-width: 900px; }
"""

SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('zwick-data').textContent);
  const board = document.getElementById('board');
  const where = document.getElementById('where');
  const view = document.getElementById('view');
  const items = Array.from(document.querySelectorAll('#moves li[data-move-index]'));
  const values = document.getElementById('values');
  const last = data.frames.length - 1;
  let step = 0;
  function fmt(x) { return (x >= 0 ? '+' : '') + x.toFixed(2); }
  function showValues() {
    values.innerHTML = '';
    const m = data.moves[step];
    if (!m || !m.values) return;
    const head = document.createElement('div');
    head.textContent = 'seat ' + m.seat + ' to move: value of each move (' + data.unit + ' per deal, 95% CI)';
    values.appendChild(head);
    const t = document.createElement('table');
    const paired = m.values.length > 0 && m.values[0].loss !== undefined;
    t.innerHTML = '<tr><th>move</th><th>mean</th><th>95% CI</th>'
      + (paired ? '<th>loss [paired 95% CI]</th><th>verdict</th>' : '') + '</tr>';
    const best = Math.max.apply(null, m.values.map(v => v.mean));
    for (const v of m.values) {  // best first, as in analysis.md
      const tr = document.createElement('tr');
      if (v.move === m.label) tr.className = 'played';
      if (v.mean === best) tr.className += ' best';
      if (v.verdict === 'mistake') tr.className += ' mistake';
      const cells = [v.move, fmt(v.mean), '[' + fmt(v.lo) + ', ' + fmt(v.hi) + ']'];
      if (paired) cells.push(v.loss.toFixed(2) + ' [' + fmt(v.llo) + ', ' + fmt(v.lhi) + ']', v.verdict);
      cells.forEach((c, i) => { const td = document.createElement('td'); td.textContent = c;
        if (i === 0) td.className = 'm'; tr.appendChild(td); });
      t.appendChild(tr);
    }
    values.appendChild(t);
  }
  function show(i) {
    step = Math.max(0, Math.min(last, i));
    const f = data.frames[step][view.value] || data.frames[step]['all'];
    board.innerHTML = f.map(k => data.pool[k]).join('');
    let cap = -1;
    items.forEach((li, k) => {
      li.classList.toggle('current', k === step - 1);
      if (k < step && data.moves[k].capture) cap = k;
    });
    items.forEach((li, k) => li.classList.toggle('last-capture', k === cap));
    const cur = items[step - 1];
    if (cur) cur.scrollIntoView({block: 'nearest'});
    where.textContent = step === 0 ? 'after the deal (' + (last) + ' moves follow)'
      : 'move ' + step + '/' + last + ': seat ' + data.moves[step - 1].seat + ': ' + data.moves[step - 1].label;
    document.getElementById('final').style.display = step === last ? 'block' : 'none';
    showValues();
    document.body.setAttribute('data-step', String(step));
  }
  document.getElementById('first').onclick = () => show(0);
  document.getElementById('prev').onclick = () => show(step - 1);
  document.getElementById('next').onclick = () => show(step + 1);
  document.getElementById('end').onclick = () => show(last);
  view.onchange = () => show(step);
  items.forEach((li, k) => { li.onclick = () => show(k + 1); });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight') { show(step + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { show(step - 1); e.preventDefault(); }
    else if (e.key === 'Home') { show(0); e.preventDefault(); }
    else if (e.key === 'End') { show(last); e.preventDefault(); }
  });
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('view') && Array.from(view.options).some(o => o.value === h.get('view'))) view.value = h.get('view');
  show(h.has('step') ? parseInt(h.get('step'), 10) || 0 : data.start);
})();
"""


def _json_for_script(obj: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` can end it early)."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")


#: longer subtitles (a game string with every rule option) are folded: the first line shown, the rest
#: opened on a click
SUB_FOLD = 160


def subtitle_html(text: str) -> str:
    """The subtitle; a long one (the full game string) folded in a ``<details>`` element."""
    if len(text) <= SUB_FOLD:
        return f'<div class="sub">{escape(text)}</div>'
    head = text[:SUB_FOLD].rsplit(",", 1)[0] if "," in text[:SUB_FOLD] else text[:SUB_FOLD]
    return f'<details class="sub"><summary>{escape(head)}, …</summary>{escape(text)}</details>'


#: where a picture is cut into pieces: before every element but a card's ``<use>`` and the closing tags,
#: so each piece is one card, text or shape, and the same card in the same place is one piece
PIECE = re.compile(r"(?=<(?!/|use)[a-z])")


def svg_pieces(svg: str) -> list[str]:
    """``svg`` cut into the pieces of :data:`PIECE` (joined they are ``svg`` again). The page keeps
    each distinct piece once and every picture as the list of its pieces (most cards lie in the
    same place from one position and view to the next), so a game of a hundred positions in five
    views stays a few hundred kilobytes."""
    return [x for x in PIECE.split(svg) if x]


def value_json(v: MoveValue) -> dict[str, object]:
    """A move's value as the page's script reads it (loss and verdict when analysed)."""
    out: dict[str, object] = {"move": v.move, "mean": v.mean, "lo": v.lo, "hi": v.hi}
    if v.loss is not None:
        out |= {"loss": v.loss, "llo": v.loss_lo, "lhi": v.loss_hi, "verdict": v.verdict}
    return out


def page_html(page: Page) -> str:
    """The page as one HTML document (see the module docstring)."""
    page.check()
    pool: dict[str, int] = {}
    frames = [
        {view: [pool.setdefault(x, len(pool)) for x in svg_pieces(svg)] for view, svg in f.items()} for f in page.frames
    ]
    data = {
        "pool": list(pool),
        "frames": frames,
        "moves": [
            {
                "seat": m.seat,
                "label": m.label,
                "capture": m.capture,
                **(
                    {"values": [value_json(v) for v in sorted(m.values, key=lambda v: -v.mean)]}
                    if m.values is not None
                    else {}
                ),
            }
            for m in page.moves
        ],
        "unit": page.unit,
        "start": page.start_step,
        **page.extra,
    }
    options = [f'<option value="all"{" selected" if page.default_view == "all" else ""}>every hand open</option>']
    for p, name in enumerate(page.seat_names):
        sel = " selected" if page.default_view == str(p) else ""
        options.append(f'<option value="{p}"{sel}>seat {p} ({escape(name)}) only</option>')
    lis = []
    for k, m in enumerate(page.moves):
        loss = f'<span class="loss">−{m.loss:.2f}</span>' if m.loss is not None and m.loss > 0.005 else ""
        lis.append(f'<li data-move-index="{k}" data-seat="{m.seat}">seat {m.seat}: {escape(m.label)}{loss}</li>')
    ids = sorted({sid for f in page.frames for svg in f.values() for sid in SYMBOL_USE.findall(svg)})
    defs = (
        f'<svg class="defs" width="0" height="0" aria-hidden="true"><defs>{symbol_defs(ids)}</defs></svg>'
        if ids
        else ""
    )
    result = "".join(f"<div>{escape(line)}</div>" for line in page.result)
    note = f'<div class="note">{escape(page.note)}</div>' if page.note else ""
    refresh = f'<meta http-equiv="refresh" content="{page.refresh_seconds}">' if page.refresh_seconds > 0 else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">{refresh}<title>{escape(page.title)}</title>
<style>{STYLE}</style></head>
<body>
{defs}<h1>{escape(page.title)}</h1>
{subtitle_html(page.subtitle)}
<div class="bar">
<button id="first" title="first (Home)">|◀</button><button id="prev" title="left arrow">◀</button>
<button id="next" title="right arrow">▶</button><button id="end" title="last (End)">▶|</button>
<label>view <select id="view">{"".join(options)}</select></label>
<span id="where"></span>
</div>
<div class="main">
<div id="board"></div>
<div class="side"><div id="values"></div><ol id="moves" start="1">{"".join(lis)}</ol></div>
</div>
<div id="final"><b>final result</b>{result}</div>
{note}
<script type="application/json" id="zwick-data">{_json_for_script(data)}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_page(page: Page, path: str) -> None:
    """Write :func:`page_html` of ``page`` to ``path``."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(page_html(page))

"""The three writers of a neutral table model (HTML, Markdown, LaTeX) and their escaping.

:mod:`rankframe.display` decides *what* a results table shows (cells, bold, markers, caption) as a :class:`Model`;
this module only writes a model in a format, so a fourth format or an escaping fix lands in one place. No jinja2
or tabulate: the formats are small enough to write here, and their escaping is tested against real renderers.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass
class Cell:
    """One cell: its text and how to show it."""

    text: str
    bold: bool = False
    stars: str = ""  # significance marker after the text
    tone: str = ""  # "up" / "down": a significant win / loss (HTML colours it)
    numeric: bool = False


@dataclass
class Model:
    """A table ready to write: header, rows of cells, caption lines."""

    header: list[str]
    numeric: list[bool]
    rows: list[list[Cell]] = field(default_factory=list)
    caption: list[str] = field(default_factory=list)
    #: per column: hidden on a phone-width screen (HTML), so that the columns that matter stay in view
    minor: list[bool] = field(default_factory=list)


_CSS = (
    "table.rankframe{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:0.5em 0}"
    "table.rankframe caption{caption-side:top;text-align:left;font-size:0.9em;color:inherit;opacity:0.8;"
    "padding:0.2em 0}"
    "table.rankframe th,table.rankframe td{padding:0.2em 0.6em;border-bottom:1px solid #8884;white-space:nowrap}"
    "table.rankframe th{border-bottom:2px solid #888;text-align:left}"
    "table.rankframe td.num,table.rankframe th.num{text-align:right}"
    "table.rankframe td:not(.num),table.rankframe th:not(.num){text-align:left}"
    "table.rankframe td:not(.num){white-space:normal;min-width:6em;max-width:16em}"
    "table.rankframe td.up{background:#e3f4e1;color:#1b5e20}"
    "table.rankframe td.down{background:#fbe3e3;color:#8e1b1b}"
    "table.rankframe sup{font-size:0.75em}"
    "div.rankframe-scroll{overflow-x:auto;max-width:100%}"
    "@media (max-width:600px){table.rankframe .minor{display:none}"
    "table.rankframe td,table.rankframe th{white-space:normal;padding:0.2em 0.3em}"
    "table.rankframe td.num{white-space:nowrap}}"
)


def write_html(m: Model) -> str:
    """The model as an HTML table with its own CSS (Jupyter's rich display, the report)."""
    e = html.escape
    out = [f"<style>{_CSS}</style>", '<div class="rankframe-scroll"><table class="rankframe">']
    if m.caption:
        out.append("<caption>" + "<br>".join(e(c) for c in m.caption) + "</caption>")
    minor = list(m.minor) + [False] * (len(m.header) - len(m.minor))
    head = []
    for h, num, small in zip(m.header, m.numeric, minor):
        classes = " ".join(x for x in ("num" if num else "", "minor" if small else "") if x)
        head.append(f'<th class="{classes}">{e(h)}</th>' if classes else f"<th>{e(h)}</th>")
    out.append("<thead><tr>" + "".join(head) + "</tr></thead><tbody>")
    for row in m.rows:
        cells = []
        for c, small in zip(row, minor):
            classes = " ".join(x for x in ("num" if c.numeric else "", c.tone, "minor" if small else "") if x)
            text = e(c.text)
            if c.bold:
                text = f"<strong>{text}</strong>"
            if c.stars:
                text += f"<sup>{e(c.stars)}</sup>"
            cells.append(f'<td class="{classes}">{text}</td>' if classes else f"<td>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


#: Markdown: characters escaped wherever they stand (``$`` too: GitHub reads ``$...$`` as math)
_MD_ALWAYS = set("\\`*~|$")
#: Markdown: characters written as HTML entities (a name such as ``<b>`` would otherwise vanish as a tag)
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_TOKEN = re.compile(r"_+|\r\n|[\r\n]|[\]&<>\\`*~|$]")


def md_escape(text: str) -> str:
    r"""Text written so that a Markdown (CommonMark / GitHub) renderer shows it as given, inside a table cell or not.

    ``\ ` * ~ | $`` get a backslash; ``&``, ``<``, ``>`` become entities; a newline becomes ``<br>``; ``_`` gets a
    backslash unless it stands between two letters or digits (``p_value`` stays readable: CommonMark never reads
    such an underscore as emphasis); ``]`` gets one before ``(`` or ``[`` (no link or image can form).

    >>> print(md_escape("a|b <i>x</i> _y_ p_value $\\foo$ [t](u)"))
    a\|b &lt;i&gt;x&lt;/i&gt; \_y\_ p_value \$\\foo\$ [t\](u)
    """

    def one(m: re.Match) -> str:
        tok = m.group()
        if tok[0] == "_":
            start, end = m.span()
            inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
            return tok if inside else "\\_" * len(tok)
        if tok in ("\r\n", "\r", "\n"):
            return "<br>"
        if tok in _MD_ENTITIES:
            return _MD_ENTITIES[tok]
        if tok == "]":
            return "\\]" if text[m.end() : m.end() + 1] in ("(", "[") else "]"
        return "\\" + tok

    return _MD_TOKEN.sub(one, text)


def write_markdown(m: Model) -> str:
    """The one Markdown writer: ``to_markdown``, ``Table`` and the command's ``--format markdown``."""

    def cell(c: Cell) -> str:
        text = md_escape(c.text)
        if c.bold and text:
            text = f"**{text}**"
        return text + md_escape(c.stars)

    lines = [f"{md_escape(c)}  " for c in m.caption]
    if lines:
        lines[-1] = lines[-1].rstrip()
        lines.append("")
    lines.append("| " + " | ".join(md_escape(h) for h in m.header) + " |")
    lines.append("|" + "|".join("---:" if n else "---" for n in m.numeric) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in m.rows]
    return "\n".join(lines)


def markdown_table(
    frame: pd.DataFrame, formatters: dict[Any, Callable[[Any], str]] | None = None, caption: Sequence[str] = ()
) -> str:
    """Any frame as a Markdown table under its caption lines, escaped as :func:`to_markdown` (the command's output).

    ``formatters`` maps a column to the function writing its cells (default ``str``); numeric columns are
    right-aligned.
    """
    formatters = formatters or {}
    numeric = [
        bool(pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))
        for c in frame.columns
    ]
    out = Model([str(c) for c in frame.columns], numeric, caption=list(caption))
    writers = [formatters.get(c, str) for c in frame.columns]
    for values in frame.itertuples(index=False, name=None):
        out.rows.append([Cell(w(v), numeric=n) for w, v, n in zip(writers, values, numeric)])
    return write_markdown(out)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # <, > and | are not specials, but the default OT1 font encoding prints them as ¡, ¿ and an em dash
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\r": " ",  # a blank line would end the cell's paragraph (an error inside a tabular)
    "\n": " ",
}


def tex_escape(text: str) -> str:
    r"""Text for LaTeX (no package beyond booktabs needed, any font encoding): specials and ``<>|`` as commands.

    >>> print(tex_escape("R&D_1 <50%> a|b"))
    R\&D\_1 \textless{}50\%\textgreater{} a\textbar{}b
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


#: a fitted LaTeX table wraps a text column holding a cell longer than this, in a column this wide
WRAP_TEX, WRAP_TEX_WIDTH = 16, "7em"
#: what a fitted LaTeX table needs in the preamble
LATEX_PACKAGES = r"\usepackage{booktabs,graphicx}"


def write_latex(m: Model, fit: bool = True) -> str:
    r"""The model as a booktabs ``table`` environment.

    ``fit=True`` (the default): ``\small`` type, ``\tabcolsep`` 4pt, a text column holding a cell longer than
    :data:`WRAP_TEX` characters wrapped (ragged right) in a :data:`WRAP_TEX_WIDTH` column, and the tabular shrunk
    to ``\linewidth`` when it is still wider (``\resizebox`` of graphicx, never enlarged):
    needs ``\usepackage{booktabs,graphicx}``. ``fit=False``: the plain tabular at its natural width (booktabs only).
    """

    def cell(c: Cell) -> str:
        text = tex_escape(c.text)
        if c.bold and text:
            text = rf"\textbf{{{text}}}"
        return text + (rf"$^{{{c.stars}}}$" if c.stars else "")

    # fitted: a text column with a cell longer than WRAP_TEX characters wraps in a ragged-right p column
    wrap = [
        fit and not n and max((len(c.text) for c in col), default=0) > WRAP_TEX
        for n, col in zip(m.numeric, zip([Cell(h) for h in m.header], *m.rows))
    ]
    spec = "".join(rf"p{{{WRAP_TEX_WIDTH}}}" if w else "r" if n else "l" for n, w in zip(m.numeric, wrap))
    end = r" \tabularnewline" if any(wrap) else r" \\"  # \\ would end a \raggedright cell's line, not the row

    def row_text(cells: list[str]) -> str:
        return " & ".join(rf"\raggedright {c}" if w else c for c, w in zip(cells, wrap)) + end

    lines = [r"\begin{table}", r"\centering"]
    if fit:
        lines += [r"\small", r"\setlength{\tabcolsep}{4pt}"]
    if m.caption:
        lines.append(r"\caption{" + tex_escape(". ".join(c.rstrip(".") for c in m.caption)) + ".}")
    if fit:  # \width is the tabular's natural width inside \resizebox's arguments
        lines.append(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%")
    lines += [
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        row_text([tex_escape(h) for h in m.header]),
        r"\midrule",
    ]
    lines += [row_text([cell(c) for c in row]) for row in m.rows]
    lines += [r"\bottomrule", r"\end{tabular}" + ("}" if fit else ""), r"\end{table}"]
    return "\n".join(lines)


WRITERS: dict[str, Callable[[Model], str]] = {"html": write_html, "markdown": write_markdown, "latex": write_latex}

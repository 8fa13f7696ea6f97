"""One self-contained HTML report of a comparison: tables per segment and the plots, for a review.

``rankframe.report(df, ["nDCG@10", "AP"], baseline="bm25", by="length", path="report.html")`` and
``rankframe report RUN... --qrels QRELS -m nDCG@10 -m AP -o report.html`` write the same file: the means per
system (with intervals), the comparison with the baseline over all queries and per segment (styled tables of
:mod:`rankframe.display`: markers, the better mean bold, the test and correction named), and the plots of
:mod:`rankframe.plot` as PNG images inlined as ``data:`` URIs. No script, no external URL, font or stylesheet:
the file opens offline and can be attached to a review as it is. Needs the plot extra (matplotlib).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import display
from ._version import __version__
from .beyond import arguments as beyond_arguments
from .compare import checked_call, compare, compare_values
from .core.columns import Columns, column_list
from .core.errors import ParameterError, parameter_error
from .evaluate import evaluate
from .measures.better import of_labels, verdicts
from .measures.names import parse
from .stats.aggregate import mean_per_segment
from .stats.randomization import N_RESAMPLES
from .tables import inputs

if TYPE_CHECKING:
    from .comparing.rules import CorrectionChoice, Test
    from .stats.align import Missing

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1600px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:0.2em} h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ccc}
h3{font-size:1.05em;margin-top:1.2em} p.meta{color:#555;margin-top:0}
div.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:1em;align-items:start}
figure{margin:0;min-width:0} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:0.85em;color:#555}
div.rankframe-scroll table.rankframe caption{position:sticky;left:0;max-width:calc(100vw - 3em);box-sizing:border-box}
@media (max-width:600px){body{margin:0.5em auto;padding:0 0.5em} table.rankframe{font-size:0.82em}}
"""
_GENERATED = re.compile(r'<span class="generated">[^<]*</span>')


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(draw: Any, alt: str, caption: str, figsize: tuple[float, float] = (7.2, 4.0)) -> str:
    """Draw on a new figure (outside pyplot's state), return the <figure> with the PNG inlined."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    draw(ax)
    data = _png(fig)
    return (
        f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _text(v: object) -> str:
    return "(null)" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v)


def report(
    df: pd.DataFrame,
    metrics: str | Iterable[str],
    *,
    baseline: object = None,
    by: str | Sequence[str] | None = None,
    system: str | None = None,
    title: str = "rankframe report",
    path: str | Path | None = None,
    test: Test | None = None,
    ci: float = 0.95,
    correction: CorrectionChoice | None = "holm",
    n_resamples: int = N_RESAMPLES,
    seed: int | None = None,
    missing: Missing = "error",
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> str:
    """Write (and return) a self-contained HTML report comparing the systems of a long ranking table.

    Parameters
    ----------
    df : DataFrame
        The long table with a system column (``read_trec`` of several runs writes one), as for
        :func:`rankframe.compare`.
    metrics : str or list of str
        The metrics compared, e.g. ``["nDCG@10", "AP"]``.
    baseline, by, system, test, ci, correction, n_resamples, seed, missing, columns, qrels, **options
        As in :func:`rankframe.compare` (``by`` gives one comparison table per segment value).
    title : str
        The report's heading and HTML title.
    path : str or Path, optional
        Where to write the file (UTF-8); the text is returned either way.

    Returns
    -------
    str
        The HTML document. Two calls on the same input differ only in the ``generated`` time stamp.
    """
    from .plot import at_k, differences, distribution, forest, pr_curve
    from .plot._common import pyplot

    pyplot()  # the plot extra, before any work
    if not isinstance(title, str):
        raise parameter_error("report", "title", "a str", title)
    if path is not None and not isinstance(path, (str, Path)):
        raise parameter_error("report", "path", "a file path (str or Path) or None", path)
    if path is not None and not Path(path).parent.is_dir():
        where = str(Path(path).parent)
        raise ParameterError(
            f"report: cannot write {str(path)!r}: its directory {where!r} does not exist",
            owner="report",
            parameter="path",
            got=path,
        )
    columns = Columns.coerce(columns)
    system = columns.system if system is None else system
    columns = columns.with_(system=system) if isinstance(system, str) else columns
    by_cols = column_list(by, "report")
    if isinstance(df, pd.DataFrame) and isinstance(system, str) and system not in df.columns and baseline is None:
        # no system column: one system's report, its metrics per segment (nothing to compare)
        text = _segment_report(
            df, metrics, by_cols, title, ci, columns, qrels, {**options, "n_resamples": n_resamples, "seed": seed}
        )
        return _write(text, path)
    call = checked_call(
        df,
        metrics,
        system=system,
        baseline=baseline,
        by=by_cols,
        test=test,
        ci=ci,
        correction=correction,
        n_resamples=n_resamples,
        seed=seed,
        missing=missing,
        columns=columns,
        qrels=qrels,
        **options,
    )
    names, baseline = call.names, call.baseline
    if isinstance(baseline, list):  # the report's tables and plots are read against one system
        raise ParameterError(
            f"report compares every system with one baseline; got several ({baseline}): make one report per "
            "baseline, or use rankframe.compare(..., baseline=[...]) for the table",
            owner="report",
            parameter="baseline",
        )
    # set-level metrics (Coverage, Gini, ...): no per-query values; their rows are compare's paired bootstrap and
    # evaluate's bootstrap interval, and the per-query plots are drawn for the other metrics (issue 33)
    sets = [n for n in names if beyond_arguments.is_set_level(parse(n))]
    listed = [n for n in names if n not in sets]
    # one evaluation for every number and plot: the compared metrics, the @k curve's cutoffs and the P-R levels
    base = (listed or ["nDCG"])[0].split("@")[0]
    curve = [str(parse(f"{base}@{k}")) for k in range(1, 21)] if listed else []
    from .plot.pr_curve import RECALL_LEVELS  # here: rankframe.plot is not loaded by import rankframe

    levels = {str(parse(f"IPrec(rel=1)@{r}")): r for r in RECALL_LEVELS} if listed else {}
    wanted = list(dict.fromkeys([*listed, *curve, *levels]))
    common: dict[str, Any] = dict(columns=columns, qrels=call.qrels, **options)
    if listed:
        per_all = per = evaluate(call.df, wanted, by=[*by_cols, system], per_query=True, **common)
        if by_cols and not _one_segment_per_query(per, system, columns.query, by_cols):
            # a segment column varies within a query: the units over all queries are other units, evaluated again
            per_all = evaluate(call.df, wanted, by=[system], per_query=True, **common)
        per_all = per_all.drop(columns=by_cols) if per_all is per else per_all
        asked = per_all["metric"].isin(listed)
        per = per[per["metric"].isin(listed)].reset_index(drop=True)
    if sets:  # compare's own table: one correction over both kinds of rows, the set-level ones bootstrapped
        again = dict(baseline=baseline, system=system, test=test, ci=ci, correction=correction, seed=call.p["seed"])
        again.update(n_resamples=n_resamples, missing=missing, columns=columns, qrels=qrels, **options)
        overall = compare(call.df, names, **again)
        segmented = compare(call.df, names, by=by_cols, **again) if by_cols else None
        means = evaluate(
            call.df, sets, by=[system], ci=float(ci), n_resamples=n_resamples, seed=call.p["seed"], **common
        )
        if listed:
            means = pd.concat([mean_per_segment(per_all[asked], [system], listed, ci=float(ci)), means])
        means = means.sort_values("metric", key=lambda m: m.map({n: i for i, n in enumerate(names)}), kind="stable")
        means = means.reset_index(drop=True)
        means.attrs["ci"] = ci
    else:
        overall = compare_values(per_all[asked].reset_index(drop=True), call, by=[])
        segmented = compare_values(per, call) if by_cols else None
        means = mean_per_segment(per_all[asked], [system], names, ci=float(ci))
    if listed:
        at_means = mean_per_segment(per_all[per_all["metric"].isin(curve)], [system], curve, ci=float(ci))
        at_means.attrs["ci"] = ci
        points = per_all[per_all["metric"].isin(levels)].sort_values(system, kind="stable", na_position="last")
        points = points.drop(columns=["metric", "value"]).assign(
            recall=points["metric"].map(levels).to_numpy(dtype=float), precision=points["value"].to_numpy(dtype=float)
        )
    systems = [baseline] + [s for s in dict.fromkeys(overall["system"]) if s != baseline]
    order = {s: i for i, s in enumerate(systems)}
    means = means.sort_values(system, key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    n_queries = (per if listed else inputs.to_pandas(call.df, owner="report", columns=columns))[columns.query].nunique()

    parts = [
        *_head(
            title,
            f"{len(systems)} systems ({', '.join(map(_text, systems))}), baseline {_text(baseline)}; "
            f"{n_queries} queries; metrics {', '.join(names)}"
            + (f"; segments by {', '.join(by_cols)}" if by_cols else ""),
        ),
        '<section id="summary"><h2>Summary</h2>',
        _summary(overall, segmented, by_cols, baseline),
        "</section>",
        '<section id="tables"><h2>Means per system</h2>',
        display.to_html(means),
        '<h2>Comparison with the baseline, all queries</h2><div id="overall">',
        display.to_html(overall),
        "</div>",
    ]
    if segmented is not None:
        parts.append(f"<h2>Comparison per segment ({html.escape(', '.join(by_cols))})</h2>")
        keys = segmented[by_cols].drop_duplicates()
        for key in keys.itertuples(index=False, name=None):
            mask = pd.Series(True, index=segmented.index)
            for c, v in zip(by_cols, key):
                mask &= segmented[c].isna() if _text(v) == "(null)" else segmented[c] == v
            sub = segmented[mask].reset_index(drop=True)
            sub.attrs = dict(segmented.attrs)
            label = ", ".join(f"{c} = {_text(v)}" for c, v in zip(by_cols, key))
            parts += [f"<h3>{html.escape(label)}</h3>", display.to_html(sub)]

    parts += ["</section>", *_PLOTS]
    for metric in names:
        frame = segmented if segmented is not None else overall
        n_rows = int((frame["metric"] == metric).sum())
        parts.append(
            _figure(
                lambda ax, m=metric, f=frame: forest(f, m, order=systems, ax=ax),
                f"forest plot of {metric}",
                f"{metric}: difference with {_text(baseline)} and its interval, "
                + ("per segment and system" if segmented is not None else "per system")
                + ", sorted by effect; filled diamonds: p < 0.05 by the unadjusted test that made the bars "
                "(the tables give the corrected p-values).",
                figsize=(6.4, max(2.6, 0.35 * n_rows + 1.4)),
            )
        )
        if metric in sets:
            continue  # one value per system: no distribution over queries
        parts.append(
            _figure(
                lambda ax, m=metric: distribution(per, m, by=system, order=systems, ax=ax),
                f"distribution of per-query {metric}",
                f"{metric} per query, per system: box = quartiles and median, diamond = mean.",
            )
        )
    if not listed:
        parts.append(_END)
        return _write("\n".join(parts) + "\n", path)
    first = listed[0]
    for other in systems[1:]:
        parts.append(
            _figure(
                lambda ax, s=other: differences(per, first, system=s, baseline=baseline, ax=ax, columns=columns),
                f"per-query differences of {first}, {_text(other)} against {_text(baseline)}",
                f"{first} per query: {_text(other)} − {_text(baseline)}, sorted; green: {_text(other)} better.",
            )
        )
    parts.append(
        _figure(
            lambda ax: at_k(at_means, base, order=systems, ax=ax),
            f"{base}@k curves",
            f"{base} at cutoffs 1 to 20 per system; shade: the {ci * 100:.6g}% t interval of the mean.",
        )
    )
    parts.append(
        _figure(
            lambda ax: pr_curve(points, order=systems, ax=ax, columns=columns),
            "interpolated precision-recall curves",
            "11-point interpolated precision at recall 0.0 to 1.0 (trec_eval's iprec_at_recall), mean over queries.",
            figsize=(7.2, 4.4),
        )
    )
    parts.append(_END)
    return _write("\n".join(parts) + "\n", path)


#: the plots: a grid of figures (two columns on a wide screen, one on a phone), closed by _END
_PLOTS = ('<section id="plots"><h2>Plots</h2>', '<div class="grid">')
_END = "</div></section>\n</body></html>"


def _summary(overall: pd.DataFrame, segmented: pd.DataFrame | None, by_cols: list[str], baseline: object) -> str:
    """The headline of each segment and metric: the best mean, its delta and p adj., how many systems beat the baseline.

    One row per (all queries, then each segment) x metric: the system with the best mean in the metric's direction
    (:func:`rankframe.direction`: the lowest ARP; the baseline when no system beats it), its mean, its delta against
    the baseline with the marker of the tables and its p adj., and the systems significantly better / worse than the
    baseline (p adj. < 0.05) / not significant. A metric without a direction names no best system.
    """
    from .display.writers import Cell, Model, write_html

    frames = [overall.assign(rf__segment="all queries")]
    if segmented is not None:
        labels = [
            ", ".join(f"{c} = {_text(v)}" for c, v in zip(by_cols, key))
            for key in segmented[by_cols].itertuples(index=False, name=None)
        ]
        frames.append(segmented.assign(rf__segment=labels))
    rows = pd.concat(
        [f[["rf__segment", "metric", "system", "mean", "baseline_mean", "delta", "p_adjusted"]] for f in frames],
        ignore_index=True,
    )
    m = Model(
        ["segment", "metric", "best system", "mean", "delta", "p adj.", "better / worse / n.s."],
        [False, False, False, True, True, True, True],
        minor=[False, False, False, True, False, False, True],
    )
    way = of_labels(rows["metric"])  # which way is better (rankframe.direction)
    verdict = verdicts(rows["delta"], rows["p_adjusted"], way)
    rows = rows.assign(better=verdict > 0, worse=verdict < 0, rf__way=way)
    for (segment, metric), g in rows.groupby(["rf__segment", "metric"], sort=False):
        sign = int(g["rf__way"].iloc[0])
        if sign == 0:  # a metric without a direction (a count): no best system, nobody better or worse
            m.rows.append(
                [Cell(str(segment)), Cell(str(metric)), Cell("— (no direction)"), Cell("", numeric=True)]
                + [Cell("", numeric=True), Cell("", numeric=True), Cell(f"– / – / {len(g)}", numeric=True)]
            )
            continue
        oriented = g["mean"] * sign
        best = g.loc[oriented.idxmax()] if oriented.notna().any() else g.iloc[0]
        ahead = bool(sign * (best["mean"] - best["baseline_mean"]) > 0)
        better, worse = int(g["better"].sum()), int(g["worse"].sum())
        stars = display.marker(best["p_adjusted"]) if ahead else ""
        m.rows.append(
            [
                Cell(str(segment)),
                Cell(str(metric) + (" (lower is better)" if sign < 0 else "")),
                Cell(_text(best["system"] if ahead else baseline), bold=bool(stars)),
                Cell(display._num(best["mean"] if ahead else best["baseline_mean"], 4), numeric=True),
                Cell(
                    display._num(best["delta"], 4) if ahead else "baseline",
                    stars=stars,
                    tone="up" if stars else "",
                    numeric=True,
                ),
                Cell(display._p(best["p_adjusted"], 4) if ahead else "", numeric=True),
                Cell(f"{better} / {worse} / {len(g) - better - worse}", numeric=True),
            ]
        )
    m.caption.append(
        f"per segment and metric: the system with the best mean (the highest; the lowest where lower is better), its "
        f"delta against {_text(baseline)} and p adj. "
        "(the test and correction of the tables below; * < 0.05, ** < 0.01, *** < 0.001; bold: significant); "
        f"better / worse / n.s.: how many systems are significantly better / worse than {_text(baseline)} "
        "(p adj. < 0.05) or not significantly different"
    )
    return write_html(m)


def _write(text: str, path: str | Path | None) -> str:
    if path is not None:
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as e:
            raise ParameterError(
                f"report: cannot write {str(path)!r}: {e.strerror or e}", owner="report", parameter="path", got=path
            ) from None
    return text


def _head(title: str, meta: str) -> list[str]:
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        '<p class="meta">'
        + html.escape(meta + "; ")
        + f'<span class="generated">generated {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M:%S} UTC by '
        f"rankframe {__version__}</span></p>",
    ]


def _segment_report(
    df: pd.DataFrame,
    metrics: str | Iterable[str],
    by_cols: list[str],
    title: str,
    ci: float,
    columns: Columns,
    qrels: pd.DataFrame | None,
    options: dict,
) -> str:
    """One system's report (a table without a system column): the means per segment and the plots, no comparison."""
    from .plot import at_k, distribution, forest, pr_curve

    names = [str(parse(m)) for m in ([metrics] if isinstance(metrics, str) else list(metrics))]
    if not names:
        raise ParameterError(
            "report: name at least one metric, e.g. metrics=['nDCG@10']", owner="report", parameter="metrics"
        )
    sets = [n for n in names if beyond_arguments.is_set_level(parse(n))]  # one value per segment: evaluate's ci=
    listed = [n for n in names if n not in sets]
    base = (listed or ["nDCG"])[0].split("@")[0]
    curve = [str(parse(f"{base}@{k}")) for k in range(1, 21)] if listed else []
    from .plot.pr_curve import RECALL_LEVELS  # here: rankframe.plot is not loaded by import rankframe

    levels = {str(parse(f"IPrec(rel=1)@{r}")): r for r in RECALL_LEVELS} if listed else {}
    wanted = list(dict.fromkeys([*listed, *curve, *levels]))
    frames = []
    if listed:
        per = evaluate(df, wanted, by=by_cols or None, per_query=True, columns=columns, qrels=qrels, **options)
        frames.append(mean_per_segment(per[per["metric"].isin(listed)], by_cols, listed, ci=float(ci)))
        at_means = mean_per_segment(per[per["metric"].isin(curve)], by_cols, curve, ci=float(ci))
        at_means.attrs["ci"] = ci
        points = per[per["metric"].isin(levels)]
        points = points.drop(columns=["metric", "value"]).assign(
            recall=points["metric"].map(levels).to_numpy(dtype=float), precision=points["value"].to_numpy(dtype=float)
        )
    if sets:
        frames.append(evaluate(df, sets, by=by_cols or None, ci=float(ci), columns=columns, qrels=qrels, **options))
    means = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if by_cols:
        means = means.sort_values(by_cols, kind="stable", na_position="last").reset_index(drop=True)
    means.attrs["ci"] = ci
    n_queries = (per if listed else inputs.to_pandas(df, owner="report", columns=columns))[columns.query].nunique()
    segments = f"; segments by {', '.join(by_cols)}" if by_cols else ""
    parts = _head(title, f"one system (no {columns.system!r} column); {n_queries} queries; metrics "
                  f"{', '.join(names)}{segments}")  # fmt: skip
    parts += [f'<section id="summary"><h2>Means{" per segment" if by_cols else ""}</h2>', display.to_html(means)]
    parts += ["</section>", *_PLOTS]
    for metric in names:
        parts.append(
            _figure(
                lambda ax, m=metric: forest(means, m, ax=ax),
                f"means of {metric}",
                f"{metric}: mean per segment and its {ci * 100:.6g}% t interval, sorted.",
                figsize=(7.2, max(2.6, 0.42 * len(means) / len(names) + 1.4)),
            )
        )
        if metric in sets:
            continue  # one value per segment: no distribution over queries
        parts.append(
            _figure(
                lambda ax, m=metric: distribution(per, m, by=by_cols or None, ax=ax),
                f"distribution of per-query {metric}",
                f"{metric} per query{', per segment' if by_cols else ''}: box = quartiles and median, diamond = mean.",
            )
        )
    if not listed:
        parts.append(_END)
        return "\n".join(parts) + "\n"
    parts.append(
        _figure(
            lambda ax: at_k(at_means, base, ax=ax),
            f"{base}@k curves",
            f"{base} at cutoffs 1 to 20; shade: the {ci * 100:.6g}% t interval of the mean.",
        )
    )
    parts.append(
        _figure(
            lambda ax: pr_curve(points, by=by_cols or None, ax=ax, columns=columns),
            "interpolated precision-recall curves",
            "11-point interpolated precision at recall 0.0 to 1.0 (trec_eval's iprec_at_recall), mean over queries.",
            figsize=(7.2, 4.4),
        )
    )
    parts.append(_END)
    return "\n".join(parts) + "\n"


def _one_segment_per_query(per: pd.DataFrame, system: str, query: str, by: list[str]) -> bool:
    """Whether each (system, query) lies in one segment: its unit per segment is then its unit over all queries."""
    units = per[[system, query, *by]].drop_duplicates()
    return not units.duplicated([system, query]).any()


def without_timestamp(text: str) -> str:
    """The report with its ``generated`` time stamp blanked: what two runs on the same input share."""
    return _GENERATED.sub('<span class="generated"></span>', text)

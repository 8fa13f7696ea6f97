"""The commands' output: evaluate's and compare's results as text, Markdown, CSV or JSON.

An aligned text table, Markdown (through :func:`rankframe.display.markdown_table`, the one Markdown writer), CSV or
JSON records, printed to stdout.
"""

from __future__ import annotations

import math
import sys

import pandas as pd

from ..display import compare_caption, markdown_table, silent_columns


def _wide(result: pd.DataFrame, keys: list[str], metric_order: list[str]) -> pd.DataFrame:
    if not keys:
        wide = result.set_index("metric")["value"].to_frame().T
        wide = wide[[m for m in metric_order if m in wide.columns]]
        return wide.reset_index(drop=True)
    wide = result.pivot(index=keys, columns="metric", values="value")
    wide = wide[[m for m in metric_order if m in wide.columns]]
    wide.columns.name = None
    return wide.reset_index()


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def _fmt_p(v) -> str:
    """A p-value: 4 decimals, or 2 significant digits below 0.0001 (never a bare 0.0000 for 3e-9)."""
    if isinstance(v, float) and 0 < v < 1e-4:
        return f"{v:.1e}"
    return _fmt(v)


def _fmt_df(v) -> str:
    """Degrees of freedom: an integer as one (``15``), any other value as 4 decimals, NaN as an empty cell."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return _fmt(v)


def _formatters(frame: pd.DataFrame, special: dict | None = None) -> dict:
    """Column -> formatter: the given ones, 4 decimals for other float columns, '' for None in text columns."""
    special = special or {}
    fmts = {c: special.get(c, _fmt) for c in frame.columns if pd.api.types.is_float_dtype(frame[c]) or c in special}
    fmts.update({c: _fmt for c in frame.columns if frame[c].dtype == object and c not in fmts})
    return fmts


def _table(frame: pd.DataFrame, fmt: str, special: dict | None = None, caption: str | None = None) -> str:
    """A frame as an aligned text table (``table``) or a Markdown table (``display``'s writer), numbers rounded."""
    if fmt == "markdown":
        return markdown_table(frame, _formatters(frame, special), [caption] if caption else [])
    text = frame.to_string(index=False, formatters=_formatters(frame, special))
    return text if caption is None else caption + "\n" + text


def _records(frame: pd.DataFrame, fmt: str, *, exact: bool = False) -> str:
    """Every column: csv (shortest round-trip floats; NaN and None as empty cells) or json records (null).

    pandas' json keeps 15 decimal places (fast, fine for metric values in [0, 1]); ``exact`` writes every float
    as Python's shortest round-trip repr instead (a p-value of 3e-12 keeps its digits), infinities as null.
    """
    if fmt == "csv":
        return frame.to_csv(index=False).rstrip("\n")
    if not exact:
        return frame.to_json(orient="records", double_precision=15)
    import json

    def native(v):
        if v is None or (isinstance(v, float) and not math.isfinite(v)) or v is pd.NA or v is pd.NaT:
            return None
        return v

    cols = {str(c): [native(v) for v in frame[c].tolist()] for c in frame.columns}
    rows = [dict(zip(cols, values)) for values in zip(*cols.values())]
    return json.dumps(rows, separators=(",", ":"), allow_nan=False, default=str)


#: the columns ``evaluate --ci`` adds to each mean
CI_COLUMNS = ("std_err", "ci_low", "ci_high")


def _render(
    result: pd.DataFrame, fmt: str, keys: list[str], metric_order: list[str], *, per_query: bool, ci: float | None
) -> str:
    """Format evaluate's result.

    Tidy ``[*keys, metric, value, n (, std_err, ci_low, ci_high)]`` for csv/json and for every format with
    --ci (per query: ``[*keys, metric, value]``); otherwise table and markdown are wide (one column per metric).
    """
    cols = [*keys, "metric", "value"]
    if not per_query:
        cols += ["n", *(CI_COLUMNS if ci is not None else ())]
    result = result[cols]  # the command's output columns, whatever else evaluate adds
    if fmt in ("csv", "json"):
        return _records(result, fmt)
    if ci is not None:
        caption = (
            f"value: the mean over n queries; [ci_low, ci_high]: its {ci * 100:.6g}% t interval "
            "(std_err = sd / sqrt(n))"
        )
        if "seed" in result.attrs:  # set-level metrics (Coverage, Gini, ...): a bootstrap over queries
            caption += (
                f"; a set-level metric's value is over all n queries' lists, std_err the sd of its bootstrap over "
                f"queries and [ci_low, ci_high] value -/+ z * std_err ({result.attrs['n_resamples']} resamples, "
                f"seed {result.attrs['seed']})"
            )
        return _table(result.reset_index(drop=True), fmt, caption=caption)
    return _table(_wide(result[[*keys, "metric", "value"]], keys, metric_order), fmt)


def _render_compare(out: pd.DataFrame, fmt: str) -> str:
    """Format compare's result: every column at full precision (csv, json), or rounded under a caption line."""
    if fmt in ("csv", "json"):
        return _records(out, fmt, exact=True)
    shown = out.drop(columns=silent_columns(out))
    caption = compare_caption(out.attrs)
    return _table(shown, fmt, {"p_value": _fmt_p, "p_adjusted": _fmt_p, "df": _fmt_df}, caption=caption)


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

"""The paired t-test per segment as one plain SELECT: ``rankframe.sql.render_compare`` (``docs/warehouse.md``).

Warehouses have no t distribution (no CDF, and most cannot define one), so the statement returns the test's
sufficient statistics — n, the two means, the mean difference, the sd of the differences, t and its degrees of
freedom — with ``rankframe.compare``'s column names, and the p-value is a one-line finish where the numbers land
(``scipy.stats.t.sf``; docs/warehouse.md). Decision: a series for the t CDF in SQL (the incomplete beta function
by continued fraction, as sql/compare.sql does with DuckDB lambdas) needs a recursion or a fixed unrolled loop in
every dialect, and would be the one part of the statement no warehouse can check against its own functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.columns import Columns, column_list
from ..core.errors import ParameterError, parameter_error
from ..measures.arguments import check_output_names
from ..measures.names import Measure
from .render import check_dialect, finish, quote_name, statement_body, string_literal
from .terms import FLOAT

if TYPE_CHECKING:
    from .render import TestedDialect

OWNER = "render_compare"
#: the columns of the statement after the ``by`` columns: rankframe.compare's names, in its order
COLUMNS = ("metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "sd_diff", "statistic", "df")


def render_compare(
    metrics: str | Measure | Sequence[str | Measure],
    *,
    baseline: str,
    system: str = "system",
    dialect: TestedDialect | str = "postgres",
    table: str | Sequence[str] = "runs",
    by: str | Sequence[str] | None = None,
    columns: Columns | dict | None = None,
    order_by: str = "rank",
    **policies: str,
) -> str:
    """One plain SQL SELECT: every system against ``baseline``, paired by query, per segment and metric.

    The per-query values are :func:`rankframe.sql.render`'s (the same metrics, policies and order); each row of
    the result is one (segment, metric, system) with ``n`` (the queries both systems have a value for), ``mean``,
    ``baseline_mean``, ``delta`` (mean of the differences), ``sd_diff`` (their sample sd), ``statistic`` (the
    paired t, delta / (sd_diff / sqrt(n))) and ``df`` (n - 1) — ``rankframe.compare(..., test="t")``'s columns of
    the same names. The two-sided p-value is ``2 * scipy.stats.t.sf(abs(statistic), df)``.

    Differences from ``rankframe.compare``: a query one of the two systems lacks (or whose value is NaN) is left
    out of that pair (compare's ``missing="drop"``; compare's default is an error: validate the table first); a
    pair with ``sd_diff = 0`` or one query has a NULL ``statistic`` (compare gives inf/NaN and a note).

    Parameters
    ----------
    metrics, dialect, table, columns, order_by, **policies
        As :func:`rankframe.sql.render`.
    baseline : str
        The system every other system is compared with (a value of the ``system`` column, compared as text).
    system : str, default "system"
        The column naming the systems.
    by : str or list of str, optional
        Segment columns (not the system column).

    Examples
    --------
    >>> import duckdb, pandas as pd, rankframe.sql
    >>> runs = pd.DataFrame({"system": ["a", "a", "b", "b"] * 2, "query": [1, 1, 1, 1, 2, 2, 2, 2],
    ...                      "item": ["x", "y"] * 4, "rank": [1, 2, 2, 1] * 2, "relevance": [1, 0] * 4})
    >>> sql = rankframe.sql.render_compare("P@1", baseline="a", dialect="duckdb", table="runs")
    >>> duckdb.sql(sql).fetchall()  # a puts x (relevant) first in both queries, b puts y: P@1 1 vs 0
    [('P@1', 'b', 'a', 2, 0.0, 1.0, -1.0, 0.0, None, 1)]
    """
    target = check_dialect(dialect)
    cols = Columns.coerce(columns, function=OWNER)
    if not isinstance(system, str) or not system:
        raise parameter_error(OWNER, "system", "a column name (str)", system)
    if not isinstance(baseline, str) or not baseline:
        raise parameter_error(OWNER, "baseline", "one system (a str)", baseline)
    segments = column_list(by, OWNER)
    if system in segments:
        raise ParameterError(
            f"The 'by' parameter of {OWNER} contains the system column {system!r}: systems are compared within "
            "each segment, never a segment themselves.",
            owner=OWNER,
            parameter="by",
            got=by,
        )
    if system == cols.query:
        raise ParameterError(
            f"The 'system' parameter of {OWNER} names the query column {system!r}.",
            owner=OWNER,
            parameter="system",
            got=system,
        )
    check_output_names(segments, cols, per_query=False)
    clash = [s for s in segments if s in COLUMNS]
    if clash:
        raise ParameterError(
            f"the segment column {clash[0]!r} has the name of an output column of {OWNER} {list(COLUMNS)}; rename it "
            "in a view first",
            owner=OWNER,
            parameter="by",
            got=clash[0],
        )
    # the system is the first segment key (rf__s0) of the per-query values; the user's segments follow
    b = statement_body(metrics, target, table, [system, *segments], cols, order_by, policies)
    sys_key, seg_keys = b.keys[0], b.keys[1:]
    same_segment = "".join(f" AND o.{k} IS NOT DISTINCT FROM r.{k}" for k in seg_keys)
    base = string_literal(baseline)
    per_query = (
        f"SELECT {', '.join([*b.keys, 'rf__q'])}, rf__i, rf__metric, {b.number} AS rf__num "
        "FROM rf__long WHERE rf__state IN (0, 1)"
    )
    pairs = (
        f"SELECT {''.join(f'o.{k}, ' for k in seg_keys)}o.rf__i, o.rf__metric, CAST(o.{sys_key} AS TEXT) AS rf__sys, "
        "o.rf__num AS rf__x, r.rf__num AS rf__y, o.rf__num - r.rf__num AS rf__d "
        f"FROM rf__pq AS o JOIN rf__pq AS r ON CAST(r.{sys_key} AS TEXT) = {base} "
        f"AND CAST(o.{sys_key} AS TEXT) <> {base} AND o.rf__q = r.rf__q AND o.rf__i = r.rf__i{same_segment}"
    )
    n = "COUNT(*)"
    sd = "STDDEV_SAMP(rf__d)"
    out_keys = "".join(f"{k} AS {quote_name(s)}, " for s, k in zip(segments, seg_keys))
    group = ", ".join([*seg_keys, "rf__i", "rf__metric", "rf__sys"])
    final = (
        f"SELECT {out_keys}rf__metric AS {quote_name('metric')}, rf__sys AS {quote_name('system')}, "
        f"{base} AS {quote_name('baseline')}, {n} AS {quote_name('n')}, AVG(rf__x) AS {quote_name('mean')}, "
        f"AVG(rf__y) AS {quote_name('baseline_mean')}, AVG(rf__d) AS {quote_name('delta')}, "
        f"{sd} AS {quote_name('sd_diff')}, "
        f"AVG(rf__d) / (NULLIF({sd}, 0) / SQRT(CAST({n} AS {FLOAT}))) AS {quote_name('statistic')}, "
        f"{n} - 1 AS {quote_name('df')} "
        f"FROM rf__pairs GROUP BY {group} "
        f"ORDER BY {''.join(f'{k} NULLS LAST, ' for k in seg_keys)}rf__i, rf__sys"
    )
    return finish(f"{b.ctes}, rf__pq AS ({per_query}), rf__pairs AS ({pairs}) {final}", target)

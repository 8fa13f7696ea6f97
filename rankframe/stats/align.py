"""Query alignment: put per-query values into one (query, metric, system) array and make the query sets agree.

Rows (queries) are grouped by segment (``offsets``, as in the segmented paired layout). A system is *present* in
a segment when it has at least one query there. Within a segment, for one metric, a query is

- *compared* when every present system has a value for it,
- *unused* when no present system has one (e.g. a metric that is NaN for every system under
  ``no_relevant="nan"``): it takes part in no comparison,
- *misaligned* otherwise (some present systems have a value, others have none: a missing row or a NaN).

Misaligned queries are resolved by the ``missing`` policy: ``"error"`` leaves them for the caller to report,
``"zero"`` fills the missing values with 0 (the query counts as a failure for the system that lacks it, like
``trec_eval -c``), ``"drop"`` removes the query from every comparison of that segment and metric. Pairs that
involve a system absent from a segment have no compared query there (``n = 0``).

The policy is declared here once: its values (:data:`MISSING`), what they do (:data:`MISSING_MEANING`,
:data:`MISSING_FILL`, :func:`misaligned_queries`, :func:`missing_values`) and the error's words
(:func:`misaligned_rule`). numpy (:func:`align`) and Spark (:mod:`rankframe.spark.compare`) apply them to their own
arrays or columns; ``rf_compare`` (SQL, error only) writes the words again, held to :data:`MISALIGNED` by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from ..core.errors import keyword
from ._segments import check_offsets, segment_of_row, segment_sum

#: what ``missing=`` does with a query one system lacks (the type of every public ``missing=``)
Missing = Literal["error", "zero", "drop"]
MISSING: tuple[Missing, ...] = get_args(Missing)
#: what ``"zero"`` and ``"drop"`` do with a misaligned query, in the words of every face's error (rf_compare's too)
MISSING_MEANING = {
    "zero": "count such a query as 0 for the system that lacks it (like trec_eval -c)",
    "drop": "leave it out of that segment's comparisons",
}
#: the values each policy replaces, and by what: ``"holes"`` the missing values of a misaligned query (the
#: systems without one), ``"partial"`` every value of it; numpy (:func:`align`) and Spark apply this one table
MISSING_FILL = {"zero": ("holes", 0.0), "drop": ("partial", float("nan"))}
#: the rule of aligned queries (``count``: the misaligned (segment, query) units); every face's error starts with it
MISALIGNED = (
    "systems must be compared on the same queries within a segment, but {count} (segment, query) unit(s) have a "
    "value for some systems and none (no row, or NULL/NaN) for others"
)


def misaligned_rule(count: int) -> str:
    """The rule broken by ``count`` misaligned (segment, query) units, and the ``missing=`` values that resolve it."""
    remedies = ", or ".join(f"{keyword('missing', name)} to {meaning}" for name, meaning in MISSING_MEANING.items())
    return f"{MISALIGNED.format(count=count)}. Pass {remedies}"


def misaligned_queries(count: Any, n_present: Any) -> Any:
    """Misaligned (row, metric): ``count`` of the present systems have a value, more than none and fewer than all.

    Written with ``>``, ``<`` and ``&`` only, so that it reads numpy arrays and Spark columns alike.
    """
    return (count > 0) & (count < n_present)


def missing_values(misaligned: Any, have: Any, present: Any) -> Any:
    """The holes of misaligned queries: a present system without a value (numpy arrays or Spark columns)."""
    return misaligned & ~have & present


def pivot(
    unit: np.ndarray, metric: np.ndarray, system: np.ndarray, value: np.ndarray, shape: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Scatter long-form values into ``values[unit, metric, system]`` (NaN where absent).

    Returns ``(values, exists)`` where ``exists[unit, system]`` says that the system has a row for the query
    (whatever its value). Each (unit, metric, system) must appear at most once.
    """
    n_units, n_metrics, n_systems = shape
    flat = (np.asarray(unit, np.int64) * n_metrics + metric) * n_systems + system
    seen = np.zeros(n_units * n_metrics * n_systems, dtype=bool)
    seen[flat] = True
    if np.count_nonzero(seen) != flat.size:
        raise ValueError("a (query, metric, system) appears more than once in the per-query values")
    values = np.full(n_units * n_metrics * n_systems, np.nan)
    values[flat] = value
    exists = np.zeros(n_units * n_systems, dtype=bool)
    exists[np.asarray(unit, np.int64) * n_systems + system] = True
    return values.reshape(shape), exists.reshape(n_units, n_systems)


@dataclass(frozen=True)
class Alignment:
    """Aligned values and what the alignment did.

    ``values``: (n_rows, n_metrics, n_systems), NaN where a system takes no part; ``present``: (n_segments,
    n_systems); ``misaligned``: the (row, metric, system) indices of the values that were missing before the
    policy applied (empty when the query sets agreed); ``n_filled`` / ``n_dropped``: values set to 0 by
    ``"zero"``, (row, metric) queries removed by ``"drop"``.
    """

    values: np.ndarray
    present: np.ndarray
    misaligned: tuple[np.ndarray, ...]
    n_filled: int
    n_dropped: int
    filled: np.ndarray  # (n_rows, n_metrics, n_systems): the values "zero" set to 0
    dropped: np.ndarray  # (n_rows, n_metrics): the queries "drop" removed

    def pair_counts(self, offsets: np.ndarray, pair_idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per (segment, metric x pair): ``n_filled`` and ``n_dropped`` of compare's rows.

        ``n_filled``: the compared queries with a value filled for the system or the baseline; ``n_dropped``: the
        queries dropped from the segment's comparisons of that metric.
        """
        n_rows = self.dropped.shape[0]
        either = self.filled[:, :, pair_idx[:, 0]] | self.filled[:, :, pair_idx[:, 1]]
        filled = segment_sum(either.reshape(n_rows, -1).astype(np.int64), offsets)
        dropped = segment_sum(self.dropped.astype(np.int64), offsets)
        return filled, np.repeat(dropped, len(pair_idx), axis=1)


def align(values: np.ndarray, exists: np.ndarray, offsets: np.ndarray, missing: str = "error") -> Alignment:
    """Apply the alignment rules of the module docstring; ``values`` is not modified.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[[0.5, 0.25]], [[1.0, np.nan]]])     # 2 queries, 1 metric, 2 systems; query 1 lacks system 1
    >>> e = np.array([[True, True], [True, False]])
    >>> a = align(v, e, np.array([0, 2]), "zero")
    >>> a.values[1, 0].tolist(), a.n_filled
    ([1.0, 0.0], 1)
    >>> a = align(v, e, np.array([0, 2]), "drop")
    >>> a.values[1, 0].tolist(), a.n_dropped
    ([nan, nan], 1)
    """
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}, got {missing!r}")
    offsets = check_offsets(offsets, values.shape[0])
    seg = segment_of_row(offsets)
    present = segment_sum(exists, offsets) > 0
    present_row = present[seg]  # (rows, systems)
    have = ~np.isnan(values) & present_row[:, None, :]
    partial = misaligned_queries(have.sum(axis=2), present_row.sum(axis=1)[:, None])  # (rows, metrics)
    holes = missing_values(partial[:, :, None], have, present_row[:, None, :])
    misaligned = np.nonzero(holes)
    out = values.copy()
    filled = np.zeros(holes.shape, dtype=bool)
    dropped = np.zeros(partial.shape, dtype=bool)
    if missing != "error":
        cells, fill = MISSING_FILL[missing]
        out[holes if cells == "holes" else partial] = fill
        if missing == "zero":
            filled = holes
        else:
            dropped = partial
    return Alignment(
        values=out,
        present=present,
        misaligned=misaligned,
        n_filled=int(filled.sum()),
        n_dropped=int(dropped.sum()),
        filled=filled,
        dropped=dropped,
    )

"""The pandas/numpy engine: one preparation, one short kernel per metric, policies applied in one place."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..measures.names import Measure
from ..measures.registry import KERNELS
from ..tables.prepare import Prepared, prepare


def evaluate(
    table: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    per_query: bool,
    policies: dict[str, str],
) -> pd.DataFrame:
    """Per-query values as a tidy frame ``[*by, query, metric, value]`` (see ``docs/metrics.md``)."""
    prep = prepare(table, columns, by)
    frames = []
    for m in measures:
        kw = m.kw
        # judged_only=True: the kernel sees the lists without their unjudged items; the policies see the table
        lists = prep.judged_only() if kw.pop("judged_only", False) else prep  # (declare.ENGINE_PARAMS)
        values, nothing_relevant = KERNELS[m.spec.name](lists, **kw)
        values, keep = apply_policies(
            prep, values, nothing_relevant if m.spec.needs_relevant else None, policies, count=m.spec.count
        )
        units = prep.units.iloc[keep]
        frames.append(units.assign(metric=str(m), value=values[keep]))
    if not frames:
        return pd.DataFrame(columns=[*by, columns.query, "metric", "value"])
    return pd.concat(frames, ignore_index=True)


def apply_policies(
    prep: Prepared,
    values: np.ndarray,
    nothing_relevant: np.ndarray | None,
    policies: dict[str, str],
    count: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply the query-set policies; return the values and the indices of the units that are kept.

    A ``count`` (NumRel, ...) is defined on an empty list: ``no_retrieved="zero"`` keeps its value (trec_eval -c
    prints ``num_rel`` 77 for a judged query the run did not retrieve), ``"nan"`` and ``"skip"`` apply as usual.
    """
    values = values.astype(np.float64, copy=True)
    keep = np.ones(prep.n, dtype=bool)
    no_judged = prep.n_judged == 0
    no_retrieved = ~no_judged & (prep.n_retrieved == 0)
    cases = [(no_judged, policies["no_judged"]), (no_retrieved, policies["no_retrieved"])]
    if nothing_relevant is not None:
        cases.append((~no_judged & ~no_retrieved & nothing_relevant, policies["no_relevant"]))
    for mask, policy in cases:
        if policy == "zero":
            if not (count and mask is no_retrieved):
                values[mask] = 0.0
        elif policy == "nan":
            values[mask] = np.nan
        else:
            keep &= ~mask
    return values, np.flatnonzero(keep)

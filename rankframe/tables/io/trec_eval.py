r"""trec_eval's names, its order and its output lines (``rankframe evaluate --format trec``).

:func:`trec_name` maps a measure to trec_eval's name (``nDCG@10`` -> ``ndcg_cut_10``) when trec_eval has it
with these parameters; :func:`trec_lines` prints per-query values as trec_eval does, line for line
(``%-22s\t%s\t%.4f``, counts as integers, ``all`` lines summed or averaged).
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["TREC_COUNTS", "TREC_ORDER", "trec_line", "trec_lines", "trec_name"]

#: trec_eval's measure families, in the order trec_eval prints them (``-m all_trec``); a declared trec_eval name
#: missing here is printed after these
TREC_ORDER = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
)


def trec_name(measure) -> tuple[str, tuple[int, int]] | None:
    """trec_eval's name of a measure and its sort key, or None when trec_eval has no such measure.

    >>> from rankframe.names import parse
    >>> trec_name(parse("nDCG@10"))[0], trec_name(parse("AP"))[0], trec_name(parse("IPrec@0.5"))[0]
    ('ndcg_cut_10', 'map', 'iprec_at_recall_0.50')
    """
    spec, kw = measure.spec, measure.kw
    defaults = {p.name: p.default for p in spec.params}
    at = spec.at  # the parameter after @: the cutoff k, or IPrec's recall level
    if any(v != defaults[n] for n, v in kw.items() if n != at):
        return None  # trec_eval measures use default parameters (rel >= 1, linear gain, judged ideal)
    value = kw.get(at)
    name = spec.trec_eval_cut if value is not None else spec.trec_eval  # declared in rankframe/metrics/<name>.py
    if name is None:
        return None
    order = TREC_ORDER.index(name) if name in TREC_ORDER else len(TREC_ORDER)
    return (spec.trec_cut_name(value) if value is not None else name), (order, value or 0)


#: the summary lines trec_eval prints before its measures (``runid``, then these, summed over queries)
TREC_COUNTS = ("NumQ", "NumRet", "NumRel", "NumRelRet")


def trec_lines(result: pd.DataFrame, measures: list, per_query: bool, query_col: str, agg: str = "mean") -> list[str]:
    r"""trec_eval's output from per-query values: ``%-22s\t%s\t%.4f`` lines, per query (sorted) then ``all``.

    Counts (NumQ, NumRet, ...) print as integers and their ``all`` line is the sum, as trec_eval's ``num_*`` lines
    (``num_q`` has no per-query line); other measures' ``all`` line is the mean, or with ``agg="gmean"`` the
    geometric mean named ``gm_<name>`` (trec_eval's ``gm_map``), or the median / sum.
    """
    import numpy as np

    from ...stats.aggregate import GMEAN_EPSILON

    names = {}
    specs = {}
    for m in measures:
        t = trec_name(m)
        names[str(m)] = t if t is not None else (str(m), (len(TREC_ORDER), measures.index(m)))
        specs[str(m)] = m.spec
    order = sorted(names, key=lambda s: names[s][1])
    lines: list[str] = []
    systems = result["system"].drop_duplicates().tolist() if "system" in result.columns else [None]
    for system in systems:
        part = result if system is None else result[result["system"] == system]
        pq = part.dropna(subset=["value"])
        if per_query:
            by_q = {q: g for q, g in pq.groupby(query_col, sort=False)}
            for q in sorted(by_q, key=str):
                vals = dict(zip(by_q[q]["metric"], by_q[q]["value"]))
                lines += [
                    trec_line(names[m][0], q, vals[m], specs[m].count)
                    for m in order
                    if m in vals and specs[m].name != "num_q"
                ]
        grouped = pq.groupby("metric", sort=False)["value"]
        sums, means = grouped.sum().to_dict(), grouped.mean().to_dict()
        if agg == "gmean":
            means = pq.assign(value=np.log(np.maximum(pq["value"], GMEAN_EPSILON))).groupby("metric")["value"].mean()
            means = np.exp(means).to_dict()
        elif agg in ("median", "sum"):
            means = getattr(grouped, agg)().to_dict()
        if system is not None:
            lines.append(f"{'runid':<22}\tall\t{system}")
        for m in order:
            if specs[m].count and m in sums:
                lines.append(trec_line(names[m][0], "all", sums[m], True))
            elif m in means and not _isnan(means[m]):
                name = names[m][0] if agg != "gmean" else f"gm_{names[m][0]}"
                lines.append(trec_line(name, "all", means[m]))
    return lines


def _isnan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def trec_line(name: str, qid, value: float, count: bool = False) -> str:
    """One line of trec_eval's output: the name padded to 22, the query id, the value (a count as an integer)."""
    return f"{name:<22}\t{qid}\t{int(round(value))}" if count else f"{name:<22}\t{qid}\t{value:.4f}"

"""A deliberately simple, independent reference implementation of docs/metrics.md.

Pure Python, one query at a time, plain loops and ``sorted()``: no numpy, no vectorisation and nothing from
rankframe except :func:`rankframe.names.parse` (metric-string grammar and parameter defaults). It is checked
against pytrec_eval (trec_eval) in ``tests/rung2_oracles/test_oracle_vs_trec.py`` before the other tests trust it.

``evaluate(df, metrics, by=..., per_query=..., no_relevant=..., no_retrieved=..., no_judged=...)`` returns the
same tidy frame as ``rankframe.evaluate``: ``[*by, <query> (per_query only), "metric", "value"]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rankframe.measures.names import parse

__all__ = ["QueryData", "evaluate", "metric_value", "query_value", "compare_frames"]


def _isnull(v: Any) -> bool:
    if v is None:
        return True
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


@dataclass
class QueryData:
    """One query's data: the grades of its ranked list (``None`` = unjudged) and of all judged rows."""

    ranked: list = field(default_factory=list)  # grade (float) or None, in rank order
    judged: list = field(default_factory=list)  # grades of every judged row, retrieved or not
    scores: list | None = None  # the score of each ranked item when ordered by score (ties="average")

    @property
    def n(self) -> int:
        return len(self.ranked)


def build_queries(
    df: pd.DataFrame, *, by=(), query="query", item="item", rank="rank", relevance="relevance", score="score"
) -> dict:
    """Group the long table into ``{(*by values, query): QueryData}`` with plain Python."""
    by = list(by or [])
    has_rank = rank in df.columns
    has_score = score in df.columns
    if not has_rank and not has_score:
        raise ValueError("need a rank or a score column")
    groups: dict = {}
    for rec in df.to_dict("records"):
        key = tuple(rec[c] for c in by) + (rec[query],)
        groups.setdefault(key, []).append(rec)
    out = {}
    for key, recs in groups.items():
        qd = QueryData()
        retrieved = []
        for r in recs:
            g = None if _isnull(r[relevance]) else float(r[relevance])
            if g is not None:
                qd.judged.append(g)
            if has_rank:
                if not _isnull(r[rank]):
                    retrieved.append(((float(r[rank]),), g))
            elif not _isnull(r[score]):
                # trec_eval order: score descending, then item id descending as a string
                retrieved.append(((float(r[score]), str(r[item])), g))
        if has_rank:
            retrieved.sort(key=lambda t: t[0])
        else:
            retrieved.sort(key=lambda t: t[0], reverse=True)
        qd.ranked = [g for _, g in retrieved]
        qd.scores = None if has_rank else [s[0] for s, _ in retrieved]
        out[key] = qd
    return out


# ----------------------------------------------------------------------------------------------- helpers


def _hits(qd: QueryData, rel: float) -> list[int]:
    return [1 if (g is not None and g >= rel) else 0 for g in qd.ranked]


def _num_rel(qd: QueryData, rel: float) -> int:
    return sum(1 for g in qd.judged if g >= rel)


def _top(n: int, k: int | None) -> int:
    """Number of positions a sum "over i <= k" runs over: min(K, n)."""
    return n if k is None else min(k, n)


def _gain(g, rel, gain, gains=None) -> float:
    if g is None:
        return 0.0
    if rel is not None and g < rel:
        return 0.0
    if gains:  # gains={grade: gain}: listed grades take their gain, the others keep their value
        g = dict(gains).get(g, g)
    g = max(g, 0.0)
    if gain == "binary":  # binary relevance: 1 for a positive (mapped) grade
        return 1.0 if g > 0 else 0.0
    return g if gain == "linear" else 2.0**g - 1.0


def _dcg(gains: list[float], k: int | None, log_base: float = 2.0) -> float:
    total = 0.0
    for i in range(_top(len(gains), k)):
        total += gains[i] / math.log(i + 2, log_base)
    return total


def _ideal_grades(qd: QueryData, ideal: str) -> list:
    return list(qd.judged) if ideal in ("judged", "full") else [g for g in qd.ranked if g is not None]


def _err(grades: list, k: int | None, max_grade: int) -> float:
    total = 0.0
    not_yet = 1.0
    for i in range(_top(len(grades), k)):
        g = grades[i]
        g = 0.0 if g is None else max(g, 0.0)
        if g > max_grade:
            raise ValueError(f"grade {g} above max_grade {max_grade}")
        pr = (2.0**g - 1.0) / 2.0**max_grade
        total += not_yet * pr / (i + 1)
        not_yet *= 1.0 - pr
    return total


def _precision(qd, k, rel, denominator="k"):
    n = qd.n
    if n == 0:
        return 0.0
    hits = sum(_hits(qd, rel)[: _top(n, k)])
    if k is None:
        d = n
    else:
        d = k if denominator == "k" else min(k, n)
    return hits / d


def _recall(qd, k, rel, denominator="relevant"):
    nrel = _num_rel(qd, rel)
    kk = qd.n if k is None else k
    d = nrel if denominator == "relevant" else min(kk, nrel)
    if d == 0:
        return 0.0
    return sum(_hits(qd, rel)[: _top(qd.n, k)]) / d


# ----------------------------------------------------------------------------------------------- metrics


def metric_value(name: str, kw: dict, qd: QueryData) -> float:
    """The formula of docs/metrics.md for one query (no query-set policy applied)."""
    if kw.get("judged_only"):  # trec_eval -J: the unjudged items (null or negative grade) leave the list, the ones
        keep = [i for i, g in enumerate(qd.ranked) if g is not None and g >= 0]  # below move up
        scores = None if qd.scores is None else [qd.scores[i] for i in keep]
        qd = QueryData(ranked=[qd.ranked[i] for i in keep], judged=qd.judged, scores=scores)
    k = kw.get("k")
    rel = kw.get("rel")
    n = qd.n
    top = _top(n, k)
    if name == "precision":
        return _precision(qd, k, rel, kw["denominator"])
    if name == "recall":
        return _recall(qd, k, rel, kw["denominator"])
    if name == "ap":
        hits = _hits(qd, rel)
        total = 0.0
        found = 0
        for i in range(top):
            if hits[i]:
                found += 1
                total += found / (i + 1)
        den = kw["denominator"]
        kk = n if k is None else k
        if den == "relevant":
            d = _num_rel(qd, rel)
        elif den == "min_k":
            d = min(_num_rel(qd, rel), kk)
        else:
            d = found
        return 0.0 if d == 0 else total / d
    if name == "rr":
        hits = _hits(qd, rel)
        for i in range(top):
            if hits[i]:
                return 1.0 / (i + 1)
        return 0.0
    if name in ("cg", "dcg", "idcg", "ndcg"):
        gain = kw["gain"]
        if name == "cg":
            return sum(_gain(g, rel, gain) for g in qd.ranked[:top])
        gains, base = kw["gains"], kw["log_base"]
        ranked_gains = [_gain(g, rel, gain, gains) for g in qd.ranked]
        if kw.get("ties") == "average" and qd.scores is not None:  # each item: the mean gain of its equal scores
            ranked_gains = [
                sum(x for x, t in zip(ranked_gains, qd.scores) if t == s) / qd.scores.count(s) for s in qd.scores
            ]
        dcg = _dcg(ranked_gains, k, base)
        if name == "dcg":
            return dcg
        ideal = sorted((_gain(g, rel, gain, gains) for g in _ideal_grades(qd, kw["ideal"])), reverse=True)
        if kw["ideal"] == "full":  # the positive gains, filled to k positions with copies of the last one
            ideal = [x for x in ideal if x > 0]
            if k is not None and 0 < len(ideal) < k:
                ideal += [ideal[-1]] * (k - len(ideal))
        idcg = _dcg(ideal, k, base)
        if name == "idcg":
            return idcg
        return 0.0 if idcg == 0 else dcg / idcg
    if name == "err":
        return _err(qd.ranked, k, kw["max_grade"])
    if name == "nerr":
        err = _err(qd.ranked, k, kw["max_grade"])
        ideal = sorted((max(g, 0.0) for g in _ideal_grades(qd, kw["ideal"])), reverse=True)
        ierr = _err(ideal, k, kw["max_grade"])
        return 0.0 if ierr == 0 else err / ierr
    if name == "r_precision":  # with k: of the list cut at k (trec_eval -M k)
        nrel = _num_rel(qd, rel)
        if nrel == 0:
            return 0.0
        return sum(_hits(qd, rel)[: min(nrel, top)]) / nrel
    if name == "hit_rate":
        return 1.0 if sum(_hits(qd, rel)[:top]) > 0 else 0.0
    if name == "f1":
        p = _precision(qd, k, rel, "k")
        r = _recall(qd, k, rel, "relevant")
        beta = kw["beta"]
        return 0.0 if beta * p + r == 0 else (beta + 1) * p * r / (beta * p + r)
    if name == "bpref":
        nrel = _num_rel(qd, rel)
        if nrel == 0:
            return 0.0
        big_n = sum(1 for g in qd.judged if 0 <= g < rel)
        total = 0.0
        nonrel_above = 0
        for g in qd.ranked[:top]:  # with k: the list cut at k (trec_eval -M k)
            if g is None:
                continue
            if g >= rel:
                if nonrel_above == 0:
                    total += 1.0
                else:
                    total += 1.0 - min(nonrel_above, nrel) / min(nrel, big_n)
            elif g >= 0:
                nonrel_above += 1
        return total / nrel
    if name == "rbp" and kw.get("residual"):
        # the residual (docs/metrics.md "RBP"), one loop over the list down to the convention's depth
        p, tail = kw["p"], kw["tail"]
        depth = k if k is not None else (n if tail == "trec_eval" else 1000)
        shown = qd.ranked[:depth]
        # 0-based positions of the unknown items: null grades (and negative ones under trec_eval's reading)
        unjudged = [i for i, g in enumerate(shown) if g is None or (tail == "trec_eval" and g < 0)]
        mass = sum(p**i for i in unjudged)
        if tail == "trec_eval":
            return p ** len(shown) + (1 - p) * mass if unjudged else 0.0
        if tail == "cwl":
            return ((1 - p) * mass + p ** len(shown) - p**depth) / (1 - p**depth)
        return (1 - p) * mass + p**depth
    if name == "rbp":
        p = kw["p"]
        hits = _hits(qd, rel)
        return (1 - p) * sum(hits[i] * p**i for i in range(top))
    if name == "judged":
        if top == 0:
            return 0.0
        return sum(1 for g in qd.ranked[:top] if g is not None) / top
    if name == "iprec":
        # trec_eval's loop (m_iprec_at_recall.c, 9.x cut): walk the list bottom-up keeping the best precision
        # seen; at the cut-th relevant item that best value is the answer
        hits = _hits(qd, rel)
        cut = math.floor(kw["recall"] * _num_rel(qd, rel) + 0.9)
        found = sum(hits)
        if cut > found:
            return 0.0
        best = 0.0
        for i in range(n, 0, -1):
            if found == 0:
                break
            best = max(best, found / i)
            if hits[i - 1]:
                if found == cut:
                    return best
                found -= 1
        return best
    if name in ("set_p", "set_r", "set_f", "set_ap"):
        rel_ret, n_rel = sum(_hits(qd, rel)), _num_rel(qd, rel)
        p = rel_ret / n if n else 0.0
        r = rel_ret / n_rel if n_rel else 0.0
        if name == "set_p":
            return p
        if name == "set_r":
            return r
        if name == "set_ap":
            return p * r
        beta = kw["beta"]
        return 0.0 if beta * p + r == 0 else (beta + 1) * p * r / (beta * p + r)
    if name == "infap":
        # trec_eval's loop (m_infap.c); a negative grade = pooled but not judged, None = not in the pool
        eps = 0.00001
        total, rel_so_far, nonrel_so_far, pooled_so_far = 0.0, 0, 0, 0
        for j, g in enumerate(qd.ranked):
            if g is None:
                continue
            if g < 0:
                pooled_so_far += 1
            elif g < rel:
                nonrel_so_far += 1
            else:
                rel_so_far += 1
                if j == 0:
                    total += 1.0
                else:
                    fj = float(j)
                    total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                        (rel_so_far - 1 + nonrel_so_far + pooled_so_far) / fj
                    ) * ((rel_so_far - 1 + eps) / (rel_so_far - 1 + nonrel_so_far + 2 * eps))
        n_rel = _num_rel(qd, rel)
        return total / n_rel if n_rel else 0.0
    # counts (by hand: ranx hits@k, trec_eval num_q / num_ret / num_rel / num_rel_ret)
    if name in ("hits", "num_rel_ret"):
        return float(sum(_hits(qd, rel)[:top]))
    if name == "num_q":
        return 1.0
    if name == "num_ret":
        return float(top)
    if name == "num_rel":
        return float(_num_rel(qd, rel))
    raise KeyError(name)


def nothing_relevant(name: str, kw: dict, qd: QueryData) -> bool:
    """The "nothing relevant" test of the no_relevant policy (docs: Query-set policies)."""
    if name == "ndcg":
        return not any(_gain(g, kw["rel"], kw["gain"], kw["gains"]) > 0 for g in _ideal_grades(qd, kw["ideal"]))
    if name == "nerr":
        return not any(g > 0 for g in _ideal_grades(qd, kw["ideal"]))
    return _num_rel(qd, kw["rel"]) == 0


SKIP = object()


def _policy(choice: str):
    return {"zero": 0.0, "nan": math.nan, "skip": SKIP}[choice]


def query_value(measure, qd: QueryData, *, no_relevant="zero", no_retrieved="zero", no_judged="skip"):
    """One query's value with the query-set policies applied; ``SKIP`` when the query is dropped."""
    m = parse(measure)
    name, kw = m.spec.name, m.kw
    if not qd.judged:
        return _policy(no_judged)
    if qd.n == 0 and not (m.spec.count and no_retrieved == "zero"):  # a count keeps its value (trec_eval -c)
        return _policy(no_retrieved)
    if m.spec.needs_relevant and nothing_relevant(name, kw, qd):
        return _policy(no_relevant)
    return metric_value(name, kw, qd)


def evaluate(
    df: pd.DataFrame,
    metrics,
    *,
    by=None,
    per_query=False,
    no_relevant="zero",
    no_retrieved="zero",
    no_judged="skip",
    query="query",
    item="item",
    rank="rank",
    relevance="relevance",
    score="score",
) -> pd.DataFrame:
    """Reference ``rankframe.evaluate``: tidy frame ``[*by, query?, metric, value]`` (means also have ``n``)."""
    if isinstance(metrics, str):
        metrics = [metrics]
    by = [by] if isinstance(by, str) else list(by or [])
    queries = build_queries(df, by=by, query=query, item=item, rank=rank, relevance=relevance, score=score)
    rows = []
    for metric in metrics:
        m = parse(metric)
        label = str(m)
        per_seg: dict = {}
        for key, qd in queries.items():
            v = query_value(m, qd, no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged)
            if v is SKIP:
                continue
            if per_query:
                rows.append((*key, label, v))
            else:
                per_seg.setdefault(key[:-1], []).append(v)
        if not per_query:
            for seg, vals in per_seg.items():
                good = [v for v in vals if not math.isnan(v)]
                rows.append((*seg, label, sum(good) / len(good) if good else math.nan, len(good)))
    cols = [*by, *([query] if per_query else []), "metric", "value", *([] if per_query else ["n"])]
    return pd.DataFrame(rows, columns=cols)


def compare_frames(
    got: pd.DataFrame,
    expected: pd.DataFrame,
    keys: list[str],
    *,
    rel: float = 1e-12,
    abs_: float = 1e-12,
    context: str = "",
    missing_is_nan: bool = True,
) -> None:
    """Assert two tidy result frames agree row for row (matched on ``keys``; key values compared as str).

    With ``missing_is_nan`` a missing row in one frame equals a NaN row in the other (an aggregate over a
    segment whose queries were all skipped); pass False for per-query frames, where "nan" keeps a row and
    "skip" drops it.
    """
    with_n = "n" in expected.columns  # means: the number of queries averaged is part of the answer
    if not with_n:
        got = got.drop(columns=["n"], errors="ignore")
    wanted = [*keys, "value", *(["n"] if with_n else [])]
    assert list(got.columns) == wanted, f"{context}: columns {list(got.columns)} != {wanted}"

    def index(frame, column="value"):
        out = {}
        for rec in frame.to_dict("records"):
            key = tuple(str(rec[c]) for c in keys)
            assert key not in out, f"{context}: duplicate result row {key}"
            out[key] = rec[column]
        return out

    if with_n:
        gn, en = index(got, "n"), index(expected, "n")
        wrong = [
            f"{k}: n = {gn.get(k, 0)}, expected {en.get(k, 0)}"
            for k in sorted(set(gn) | set(en))
            if gn.get(k, 0) != en.get(k, 0)
        ]
        assert not wrong, f"{context}: {len(wrong)} wrong n:\n" + "\n".join(wrong[:20])
    g, e = index(got), index(expected)
    problems = []
    for key in sorted(set(g) | set(e)):
        a, b = g.get(key, math.nan), e.get(key, math.nan)
        if not missing_is_nan and (key not in g or key not in e):
            problems.append(
                f"{key}: {'missing from result' if key not in g else 'unexpected row'} (expected {b!r}, got {a!r})"
            )
        elif key not in g and not _isnull(b):
            problems.append(f"{key}: missing from result, expected {b!r}")
        elif key not in e and not _isnull(a):
            problems.append(f"{key}: unexpected row {a!r}")
        elif _isnull(a) != _isnull(b):
            problems.append(f"{key}: got {a!r}, expected {b!r}")
        elif not _isnull(a) and not math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_):
            problems.append(f"{key}: got {a!r}, expected {b!r}")
    assert not problems, f"{context}: {len(problems)} mismatch(es):\n" + "\n".join(problems[:20])

"""Hypothesis strategies for random long-format ranking tables, and a converter to pytrec_eval dicts.

A table has columns ``query``, ``item``, ``relevance`` and either ``rank`` (unique positive ints per query,
possibly with gaps; null = judged but not retrieved), ``score`` (ties on purpose; null = not retrieved), or both
(``rank`` wins and ``score`` is noise). With ``segments=True`` it has a ``seg`` column and the same query id can
appear in two segments (two independent rankings). Grades include 0, negatives and large values, null
relevance (unjudged retrieved rows), and queries with nothing relevant, nothing retrieved or no judgments.
Ids are strings (``"007"``, ``"7"``, ``"10"``, ``"9"``: string order differs from numeric order, which the
score tie-break exercises) or integers. Rows come in random order.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from hypothesis import strategies as st

STR_ITEMS = ["007", "7", "10", "9", "1", "100", "a", "B", "b", "x1", "x10", "x2", "d-3", "zz", "Z", "0"]
INT_ITEMS = [0, 1, 2, 3, 7, 9, 10, 11, 19, 20, 99, 100, 101, 1000]
STR_QUERIES = ["q1", "007", "7", "10", "9", "Q", "a b", "31_1"]
INT_QUERIES = [1, 2, 7, 9, 10, 42, 301]
SEGMENTS = ["A", "B"]

# mostly the usual 0..4 scale, sometimes negatives (judged, not relevant, no gain) and large labels
GRADES = st.one_of(st.integers(0, 4), st.integers(0, 4), st.sampled_from([-2, -1, 0, 5, 10, 50]))
SMALL_GRADES = st.integers(-1, 4)

UNIT_KINDS = ["normal", "normal", "normal", "nothing_relevant", "nothing_retrieved", "no_judgments"]


@st.composite
def _unit(draw, items, mode, grades, kinds):
    """Rows (dicts without query/seg) of one ranking unit."""
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(1, min(len(items), 10)))
    chosen = draw(st.permutations(items))[:n]
    rows = []
    for it in chosen:
        retrieved = draw(st.booleans()) if kind not in ("nothing_retrieved",) else False
        judged = draw(st.integers(0, 3)) > 0 if kind != "no_judgments" else False
        if kind == "nothing_retrieved":
            judged = True
        if kind == "no_judgments":
            retrieved = True
        grade = draw(grades) if judged else None
        if kind == "nothing_relevant" and grade is not None:
            grade = min(grade, 0)
        rows.append({"item": it, "_ret": retrieved, "relevance": grade})
    if not any(r["_ret"] or r["relevance"] is not None for r in rows):
        rows[0]["_ret"] = True
    retrieved_rows = [r for r in rows if r["_ret"]]
    if mode in ("rank", "both"):
        ranks = sorted(
            draw(
                st.lists(
                    st.integers(1, 3 * len(rows) + 2),
                    min_size=len(retrieved_rows),
                    max_size=len(retrieved_rows),
                    unique=True,
                )
            )
        )
        for r, rk in zip(retrieved_rows, draw(st.permutations(ranks))):
            r["rank"] = rk
        for r in rows:
            r.setdefault("rank", None)
    if mode in ("score", "both"):
        tie_scores = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 2.5])
        for r in rows:
            if r["_ret"] or mode == "both":
                r["score"] = draw(st.one_of(tie_scores, tie_scores, st.integers(-500, 500).map(lambda v: v / 100)))
                r["score"] += 0.0  # no -0.0
            else:
                r["score"] = None
    # a row with neither rank nor relevance: allowed, carries no information
    if draw(st.integers(0, 9)) == 0 and kind == "normal":
        spare = [it for it in items if it not in chosen]
        if spare:
            extra = {"item": spare[0], "_ret": False, "relevance": None}
            if mode in ("rank", "both"):
                extra["rank"] = None
            if mode in ("score", "both"):
                extra["score"] = None
            rows.append(extra)
    for r in rows:
        del r["_ret"]
    return rows


@st.composite
def tables(
    draw,
    mode: str | None = None,
    segments: bool | None = None,
    id_kind: str | None = None,
    max_queries: int = 5,
    grades=GRADES,
    kinds=UNIT_KINDS,
    dtypes: bool = True,
) -> pd.DataFrame:
    """A random long table (see the module docstring). ``mode`` in {"rank", "score", "both"}."""
    mode = mode or draw(st.sampled_from(["rank", "rank", "score", "both"]))
    segments = draw(st.booleans()) if segments is None else segments
    id_kind = id_kind or draw(st.sampled_from(["str", "str", "int"]))
    items = STR_ITEMS if id_kind == "str" else INT_ITEMS
    qpool = STR_QUERIES if id_kind == "str" else INT_QUERIES
    nq = draw(st.integers(1, max_queries))
    queries = draw(st.lists(st.sampled_from(qpool), min_size=nq, max_size=nq, unique=True))
    units = []
    for q in queries:
        segs = [None]
        if segments:
            segs = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=2, unique=True))
        for s in segs:
            units.append((s, q))
    rows = []
    for s, q in units:
        for r in draw(_unit(items, mode, grades, kinds)):
            r["query"] = q
            if segments:
                r["seg"] = s
            rows.append(r)
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in order]
    cols = (["seg"] if segments else []) + ["query", "item"]
    cols += (["rank"] if mode in ("rank", "both") else []) + (["score"] if mode in ("score", "both") else [])
    cols += ["relevance"]
    df = pd.DataFrame({c: [r.get(c) for r in rows] for c in cols})
    # column dtypes: float64 with NaN, pandas nullable Int64, or int64 where a column has no null
    num = draw(st.sampled_from(["float", "Int64", "int64"])) if dtypes else "float"
    for c in ("relevance", "rank"):
        if c in df:
            dt = {"float": "float64", "Int64": "Int64", "int64": "int64"}[num]
            if dt == "int64" and df[c].isna().any():
                dt = "float64"
            df[c] = df[c].astype("float64").astype(dt)
    if "score" in df:
        df["score"] = df["score"].astype("float64")
    if id_kind == "int":
        df["query"] = df["query"].astype("int64")
        df["item"] = df["item"].astype("int64")
    else:
        # object, pandas' string dtype (the pandas 3 default for text), or categorical ids
        ids = draw(st.sampled_from(["object", "string", "category"])) if dtypes else "object"
        for c in ("query", "item"):
            df[c] = df[c].astype(object).astype(ids)
    return df


def by_of(df: pd.DataFrame) -> list[str] | None:
    """The segment columns of a generated table (``["seg"]`` or None)."""
    return ["seg"] if "seg" in df.columns else None


def qkey(seg: Any, query: Any) -> str:
    """pytrec_eval query key of a (segment, query) unit."""
    return str(query) if seg is None else f"{seg}\x1f{query}"


def to_trec(df: pd.DataFrame) -> tuple[dict, dict]:
    """pytrec_eval ``(qrels, run)`` dicts from a generated table.

    qrels: every judged row (int grades). run: every retrieved row with a score that reproduces the table's
    order: ``-rank`` when the table has ranks (distinct, so no tie-break is needed), else the score itself
    (trec_eval breaks its ties by docno descending, exactly the order rankframe defines). Keys are
    :func:`qkey` strings.
    """
    qrels: dict = {}
    run: dict = {}
    has_rank = "rank" in df.columns
    for rec in df.to_dict("records"):
        key = qkey(rec.get("seg"), rec["query"])
        item = str(rec["item"])
        rel = rec["relevance"]
        if not pd.isna(rel):
            qrels.setdefault(key, {})[item] = int(rel)
        pos = rec["rank"] if has_rank else rec["score"]
        if not pd.isna(pos):
            run.setdefault(key, {})[item] = -float(pos) if has_rank else float(pos)
    for judged in qrels.values():
        if max(judged.values()) < 0:
            # pytrec_eval-terrier 0.5.11 segfaults (map + bpref together) on a query whose judgments are all
            # negative. An unretrieved grade-0 judgment changes nothing here: |R| = 0 for every level >= 1, the
            # ideal DCG stays 0, and bpref's N only matters when |R| > 0.
            judged["\x00pad"] = 0
    return qrels, run


def trec_measure(measure) -> tuple[str, str, int] | None:
    """``(pytrec_eval measure, result key, relevance_level)`` where trec_eval computes the same number, else None.

    trec_eval has: P_k (denominator k), recall_k (denominator |R|), map / map_cut_k (denominator |R|),
    recip_rank (no cutoff), ndcg / ndcg_cut_k (linear gain, judged ideal, no gain threshold), Rprec, bpref,
    success_k. The relevance threshold is trec_eval's ``-l`` (an integer).
    """
    from rankframe.measures.names import parse

    m = parse(measure)
    name, kw = m.spec.name, m.kw
    if kw.get("judged_only"):
        return None  # (pytrec_eval's judged_docs_only_flag is per evaluator: tests/rung2_oracles/test_conventions.py)
    if kw.get("ties", "first") != "first":
        return (
            None  # trec_eval breaks ties by docno (ties="average" is scikit-learn's: tests/rung2_oracles/test_ties.py)
        )
    k = kw.get("k")
    rel = kw.get("rel")
    if rel is not None and (float(rel) != int(rel) or rel < 1):
        return None
    level = 1 if rel is None else int(rel)

    def cut(base):
        return (f"{base}.{k}", f"{base}_{k}", level)

    if name == "precision" and k is not None and kw["denominator"] == "k":
        return cut("P")
    if name == "recall" and k is not None and kw["denominator"] == "relevant":
        return cut("recall")
    if name == "ap" and kw["denominator"] == "relevant":
        return ("map", "map", level) if k is None else cut("map_cut")
    if name == "rr" and k is None:
        return ("recip_rank", "recip_rank", level)
    if (
        name == "ndcg"
        and kw["gain"] == "linear"
        and kw["ideal"] == "judged"
        and rel is None
        and kw["gains"] is None
        and kw["log_base"] == 2.0
    ):
        return ("ndcg", "ndcg", level) if k is None else cut("ndcg_cut")
    if name == "r_precision" and k is None:
        return ("Rprec", "Rprec", level)
    if name == "bpref" and k is None:
        return ("bpref", "bpref", level)
    if name == "hit_rate" and k is not None:
        return cut("success")
    if name in ("infap", "set_p", "set_r", "set_ap") or (name == "set_f" and kw["beta"] == 1.0):
        # (pytrec_eval takes only the first set_F parameter of an evaluator: beta = 1 only)
        trec = {"infap": "infAP", "set_p": "set_P", "set_r": "set_recall", "set_ap": "set_map", "set_f": "set_F"}
        return (trec[name], trec[name], level)
    if name == "iprec" and kw["recall"] in {i / 10 for i in range(11)}:
        return ("iprec_at_recall", f"iprec_at_recall_{kw['recall']:.2f}", level)
    return None


def pytrec_values(qrels: dict, run: dict, measures) -> dict:
    """``{str(measure): {query key: value}}`` from pytrec_eval for the measures trec_eval has."""
    import pytrec_eval

    from rankframe.measures.names import parse

    by_level: dict = {}
    for m in measures:
        t = trec_measure(m)
        if t is not None:
            by_level.setdefault(t[2], []).append((str(parse(m)), t))
    out: dict = {}
    for level, items in by_level.items():
        ev = pytrec_eval.RelevanceEvaluator(qrels, {t[0] for _, t in items}, relevance_level=level)
        res = ev.evaluate(run)
        for label, t in items:
            out[label] = {q: vals[t[1]] for q, vals in res.items()}
    return out


def all_measures(k_values=(None, 1, 3, 5, 20), max_grades=(4,), p_values=(0.8, 0.5)) -> list[str]:
    """Every metric of the registry with every choice of every choice-parameter, several cutoffs and
    thresholds (metric strings). ``max_grade`` values are given by the caller (must cover the grades)."""
    from rankframe.core import constraints
    from rankframe.measures.registry import METRICS

    out = []
    for spec in METRICS:
        grids: list[list[tuple[str, Any]]] = [[]]
        for p in spec.params:
            if p.name in ("ties", "tail"):  # at its default here (the grid would double for DCG/nDCG): below
                vals = [p.default]
            elif isinstance(rule := p.constraint, constraints.Choice):
                vals = list(rule.choices)
            elif rule == constraints.K:
                vals = list(k_values)
            elif isinstance(rule, constraints.Threshold):
                vals = [p.default, 2, 0.5] if p.default is not None else [None, 1, 2]
            elif rule == constraints.INT_AT_LEAST_1:
                vals = list(max_grades)
            elif rule == constraints.OPEN_UNIT:
                vals = list(p_values)
            elif rule == constraints.UNIT:
                vals = [0.0, 0.3, 1.0]
            elif rule == constraints.NONNEGATIVE:
                vals = [p.default, 2.0]
            else:
                vals = [p.default]
            grids = [g + [(p.name, v)] for g in grids for v in vals]
        for g in grids:
            kw = dict(g)
            k = kw.pop("k", None)
            inner = ", ".join(f"{n}={v!r}" for n, v in kw.items())
            text = spec.canonical + (f"({inner})" if inner else "") + (f"@{k}" if k is not None else "")
            out.append(text)
    # the discount base and the gain map at their defaults above (the grid would grow fourfold), here with others
    out += [
        "DCG(log_base=10)@3",
        "IDCG(gains={0: 0, 1: 1, 2: 3}, ideal='retrieved')",
        "nDCG(log_base=10, gains={0: 0, 1: 1, 2: 3})@5",
        "nDCG(gains={1: 0, 2: 5}, rel=2)",
        "nDCG(gains={1: 0, 2: 0, 3: 0}, gain='exponential')@3",
        # ties="average" (tied scores share their mean gain) at its default above
        "DCG(ties='average')@3",
        "nDCG(ties='average')",
        "nDCG(ties='average', gain='exponential', ideal='retrieved')@5",
        "nDCG(ties='average', judged_only=True)@3",
        "DCG(ties='average', gains={0: 0, 1: 1, 2: 3}, log_base=10)",
        "nDCG(ties='average', rel=2)@1",
        # judged_only (trec_eval -J) at its default above
        "P(judged_only=True)@3",
        "AP(judged_only=True, rel=2)",
        "nDCG(judged_only=True, ideal='retrieved')@5",
        "RR(judged_only=True)",
        "IPrec(judged_only=True)@0.5",
        "SetF(judged_only=True, beta=2)",
        # RBP's residual (residual=False above): its three conventions, with and without a cutoff
        "RBP(residual=True)",
        "RBP(residual=True, p=0.5)@3",
        "RBP(residual=True, tail='trec_eval')",
        "RBP(residual=True, tail='trec_eval', p=0.5)@3",
        "RBP(residual=True, tail='trectools')",
        "RBP(residual=True, tail='trectools')@5",
    ]
    return out


def required(spec) -> dict[str, Any]:
    """A value of each parameter of ``spec`` without a default that must be given (IPrec's recall level)."""
    return {p.name: 0.5 for p in spec.params if p.default is None and not p.constraint.accepts_none}


@st.composite
def declared_measures(draw, specs) -> list:
    """For every declared parameter of every metric of ``specs``, one measure with a valid value of it (drawn from
    its constraint's strategy, ``rankframe.constraints``), the others at their defaults; each label once."""
    from rankframe.measures.names import Measure

    found: dict[str, Any] = {}
    for spec in specs:
        for p in spec.params:
            m = Measure.of(spec, **{**required(spec), p.name: draw(p.constraint.strategy())})
            found.setdefault(str(m), m)
    return list(found.values())


def perfect_table(grades_by_query: dict) -> pd.DataFrame:
    """Every judged item retrieved in grade-descending order at the top (used by property tests)."""
    rows = []
    for q, grades in grades_by_query.items():
        for i, g in enumerate(sorted(grades, reverse=True)):
            rows.append({"query": q, "item": f"d{i}", "rank": i + 1, "relevance": float(g)})
    return pd.DataFrame(rows)


def nan_safe_equal(a: float, b: float, tol: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


__all__ = [
    "tables",
    "to_trec",
    "trec_measure",
    "pytrec_values",
    "all_measures",
    "declared_measures",
    "required",
    "by_of",
    "qkey",
    "GRADES",
    "SMALL_GRADES",
    "perfect_table",
    "nan_safe_equal",
]

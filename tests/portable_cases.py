"""Shared pieces of the tests of ``rankframe.sql.render`` (the portable warehouse SQL) on DuckDB and PostgreSQL.

The expected frames are ``rankframe.evaluate``'s (itself held to trec_eval and the loop oracle on the lower rungs);
the SQL's frames must equal them row for row (keys compared as text, values to 1e-9, NaN = NaN, ``n`` exactly).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

import rankframe

#: every portable metric with its conventions: cutoffs, thresholds, denominators, gains, the ideal, bases, max_grade,
#: judged_only and ties (tests/rung1_hand/test_portable_metrics.py holds every declared metric to be in this list)
METRICS = [
    "P@2",
    "P(denominator='retrieved')@3",
    "P",
    "R@3",
    "R(denominator='min_k')@2",
    "R(denominator='min_k')",
    "AP",
    "AP(rel=2)@3",
    "AP(denominator='min_k')@2",
    "AP(denominator='retrieved')",
    "RR",
    "RR(rel=2)@3",
    "Success@3",
    "Rprec",
    "Rprec@2",
    "CG@2",
    "DCG(log_base=3)",
    "IDCG(ideal='retrieved')@3",
    "nDCG@3",
    "nDCG(gain='exponential', ideal='retrieved')",
    "nDCG(gains={0: 1, 2: 5}, rel=2)@4",
    "ERR@3",
    "ERR(max_grade=5)",
    # counts, set measures, RBP, nERR, Bpref, IPrec, infAP
    "NumQ",
    "NumRet@3",
    "NumRel(rel=2)",
    "NumRelRet",
    "Hits@2",
    "Judged@3",
    "F1@3",
    "F1(beta=0.5)",
    "SetP",
    "SetR(rel=2)",
    "SetF(beta=2)",
    "SetAP",
    "RBP(p=0.5)@3",
    "RBP",
    "nERR@3",
    "nERR(ideal='retrieved', max_grade=5)",
    "Bpref",
    "Bpref(rel=2)@3",
    "IPrec@0.0",
    "IPrec@0.5",
    "IPrec(rel=2)@1.0",
    "infAP",
    "infAP(rel=2)",
    # judged_only=True (positions among the rows of grade >= 0) and ties='average' (tie-averaged gains)
    "P(judged_only=True)@2",
    "R(judged_only=True, denominator='min_k')@2",
    "AP(judged_only=True)",
    "RR(judged_only=True)@3",
    "Success(judged_only=True)@2",
    "Rprec(judged_only=True)",
    "IPrec(judged_only=True)@0.3",
    "SetF(judged_only=True)",
    "SetAP(judged_only=True)",
    "nDCG(judged_only=True, ideal='retrieved')@3",
    "DCG(ties='average')@2",
    "nDCG(ties='average', gain='exponential')",
    "nDCG(ties='average', judged_only=True)@3",
]

POLICY_SETS = [
    {},
    {"no_relevant": "nan", "no_retrieved": "skip", "no_judged": "zero"},
    {"no_relevant": "skip", "no_retrieved": "nan", "no_judged": "nan"},
]


def order_by_of(df: pd.DataFrame) -> str:
    """evaluate's rule: the rank column wins when both exist."""
    return "rank" if "rank" in df.columns else "score"


def expected(df: pd.DataFrame, metrics: list[str], by: Any, per_query: bool, policies: dict) -> pd.DataFrame:
    """``rankframe.evaluate``'s tidy frame."""
    return rankframe.evaluate(df, metrics, by=by, per_query=per_query, **policies)


def _key(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "<null>"
    return str(v)


def assert_same(exp: pd.DataFrame, got: pd.DataFrame, tol: float = 1e-9) -> None:
    """The same columns, the same rows (keys as text), values to ``tol`` (NaN = NaN) and ``n`` exactly."""
    assert list(got.columns) == list(exp.columns), (list(got.columns), list(exp.columns))
    keys = [c for c in exp.columns if c not in ("value", "n")]

    def rows(frame: pd.DataFrame) -> dict:
        out = {}
        for rec in frame.to_dict("records"):
            k = tuple(_key(rec[c]) for c in keys)
            assert k not in out, f"row {k} twice"
            out[k] = (rec["value"], rec.get("n"))
        return out

    e, g = rows(exp), rows(got)
    assert sorted(e) == sorted(g), (sorted(set(e) - set(g))[:5], sorted(set(g) - set(e))[:5])
    for k, (ev, en) in e.items():
        gv, gn = g[k]
        gv = float("nan") if gv is None else float(gv)
        ok = (math.isnan(ev) and math.isnan(gv)) or abs(ev - gv) <= tol
        assert ok, f"{k}: evaluate {ev!r}, SQL {gv!r}"
        if en is not None:
            assert int(en) == int(gn), f"{k}: n {en} != {gn}"


#: things only DuckDB's SQL has (macros, lambdas, list functions, COLUMNS(*), :: casts, query_table)
DUCKDB_ONLY = ("MACRO", "LAMBDA", "->", "LIST_", "COLUMNS(", "QUERY_TABLE", "::", "STRUCT_PACK", "GROUP BY ALL")


def paired_runs(seed: int, n_queries: int = 30, systems=("base", "s1", "s2"), gaps: bool = False) -> pd.DataFrame:
    """Random runs of 8 items from a pool of 12 per query, graded 0..2, two segments; with ``gaps`` system s2 lacks
    some queries."""
    rng = np.random.default_rng(seed)
    rows = []
    grades = rng.integers(0, 3, size=(n_queries, 12))
    for s in systems:
        for q in range(n_queries):
            if gaps and s == "s2" and q % 7 == 3:
                continue
            items = rng.choice(12, size=8, replace=False)
            rows += [(s, q, "long" if q % 2 else "short", f"d{i:02d}", r + 1, int(grades[q, i]))
                     for r, i in enumerate(items)]  # fmt: skip
    return pd.DataFrame(rows, columns=["system", "query", "seg", "item", "rank", "relevance"])

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
    # RecTools' NDCG (binary gains, the ideal filled to k) and its two options apart
    "nDCG(like='rectools')@3",
    "nDCG(like='rectools', gain='exponential')@5",
    "nDCG(ideal='full', rel=2)@4",
    "IDCG(ideal='full', gain='binary')@3",
    "DCG(gain='binary')@2",
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
    # RBP's residual in its three conventions (unjudged rows; trec_eval's also reads negative grades)
    "RBP(residual=True)@3",
    "RBP(residual=True, tail='trec_eval')",
    "RBP(p=0.5, residual=True, tail='trectools')@4",
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
        ok = (math.isnan(ev) and math.isnan(gv)) or ev == gv or abs(ev - gv) <= tol  # inf = inf
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


#: the portable beyond-accuracy metrics with every option value and every preset (test_sql_portable_beyond.py holds
#: this list to cover every declared choice, from the declarations)
BEYOND_SET = [
    "Coverage@3",
    "Coverage(universe='train', output='count')",
    "Coverage(like='recommenders')@2",
    "Coverage(like='recbole')",
    "Gini@3",
    "Gini(universe='train', denominator='n-1')@2",
    "Gini(universe='recommended', complement=True)",
    "Gini(like='recbole')@2",
    "Entropy@3",
    "Entropy(like='recbole')",
    "Entropy(like='recommenders', normalize='items')@2",
    "Entropy(log_base=10)",
    "Entropy(like='elliot')@2",
    "Entropy(weigh='lists', normalize='items')",
    "Personalization@3",
    "Personalization(output='similarity')",
    "Personalization(like='recmetrics')@2",
    "ARP(aggregate='rows')@2",
    "APLT(aggregate='rows')",
    "Novelty(like='recommenders')@3",
    # the presets of RecTools, Evidently, RePlay, LensKit and Elliot (tests/rung2_oracles/test_beyond_peers_more.py)
    "Coverage(like='rectools')@3",
    "Coverage(like='evidently')",
    "Coverage(like='replay')@2",
    "Coverage(like='elliot')",
    "Gini(like='evidently')@3",
    "Gini(like='lenskit')",
    "Gini(like='elliot')@2",
    "Personalization(like='evidently')@3",
    "Personalization(norm='k', output='similarity')@2",
]
BEYOND_LISTS = [
    "ARP@3",
    "ARP(cold='drop', popularity='interactions')",
    "ARP(like='recbole')@2",
    "APLT@3",
    "APLT(like='recbole')",
    "APLT(tail_rule='count', tail=1, cold='drop')@4",
    "APLT(tail=0.5, cold='not_tail', popularity='interactions')",
    "Novelty@3",
    "Novelty(model='choice', log_base=10, cold='zero')",
    "Novelty(list_denominator='k', popularity='interactions')@4",
    "APLT(like='elliot')@3",
    "APLT(tail_rule='pareto', tail=0.5, cold='tail', popularity='interactions')",
    "ARP(like='rectools', popularity_norm='total')@3",
    "ARP(like='evidently')@2",
    "ARP(like='elliot', popularity_norm='max')",
    "ARP(like='lenskit')@2",
    "ARP(popularity='interactions', popularity_norm='rank', cold='drop')",
    "Novelty(like='rectools')@3",
    "Novelty(like='evidently')",
    "Novelty(like='replay')@3",
    "Novelty(cold='one', model='choice', popularity='interactions')@2",
    "Novelty(scale='log_users', cold='zero')",
]
BEYOND = BEYOND_SET + BEYOND_LISTS
#: the portable metrics that read features= (or train= by their similarity), every option value
BEYOND_FEATURES = [
    "ILD@3",
    "ILD(output='similarity', unknown='zero')",
    "ILD(similarity='hamming')@4",
    "ILD(similarity='hamming', unknown='zero', single_item='zero')",
    "ILD(single_item='zero')@2",
    "ILD(like='recommenders')@3",
    "ILD(similarity='cooccurrence', output='similarity', unknown='drop')",
    "ILD(like='rectools')@3",
    "ILD(like='evidently')@4",
    "ILD(like='lenskit')",
    "ILD(pair_denominator='items', output='similarity', single_item='one')@3",
    "ILD(similarity='hamming', single_item='zero_if_one_row', unknown='zero')@2",
]
#: Serendipity (reads relevance, train=, and features= or catalog= by its options), every option value and preset
BEYOND_SERENDIPITY = [
    "Serendipity@3",
    "Serendipity(like='recommenders')",
    "Serendipity(like='evidently')@3",
    "Serendipity(like='rectools')@2",
    "Serendipity(form='summed_similarity', unknown='drop', rel=2)@4",
    "Serendipity(similarity='cosine', relevance='grade', no_relevant_item='skip')",
    "Serendipity(form='popularity', popularity='interactions', relevance='grade')@3",
]

#: Calibration (reads train= and features=): every option value and the preset
BEYOND_CALIBRATION = [
    "Calibration@3",
    "Calibration(divergence='js', rank_weight='log')",
    "Calibration(like='informfully')@2",
    "Calibration(direction='list_history', smooth='both', alpha=0.2, log_base=10)@4",
    "Calibration(alpha=0, rank_weight='reciprocal')",
    "Calibration(divergence='js', alpha=0, direction='list_history')@2",
]


def features_for(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """features= for a ranking table: most of its items (some unknown), values with ties and zeros."""
    rng = np.random.default_rng(seed)
    items = [i for i in pd.unique(df["item"]) if rng.random() < 0.8] or list(pd.unique(df["item"]))[:1]
    rows = [
        (i, f"f{f}", float(rng.choice([0.0, 1.0, 2.0, 0.5]))) for i in items for f in range(5) if rng.random() < 0.5
    ]
    features = pd.DataFrame(rows or [(items[0], "f0", 1.0)], columns=["item", "feature", "value"])
    if pd.api.types.is_numeric_dtype(df["item"]):
        features["item"] = features["item"].astype(np.int64)
    return features


def inputs_for(df: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, catalog) for a ranking table: some of its items, cold ones (never recommended), weights with 0.

    Train's queries are some of the table's and others; every item of the table is of the same kind as the cold ones.
    """
    rng = np.random.default_rng(seed)
    items = pd.unique(df["item"])
    text = not pd.api.types.is_numeric_dtype(df["item"])
    cold = ["cold_1", "cold_2", "Cold_3"] if text else [5001, 5002, 5003]
    pool = list(items) + cold
    n = int(rng.integers(1, 3 * len(pool) + 1))
    queries = list(pd.unique(df["query"])) + (["tq_1", "tq_2"] if isinstance(df["query"].iloc[0], str) else [9001])
    train = pd.DataFrame(
        {
            "query": [queries[i] for i in rng.integers(0, len(queries), n)],
            "item": [pool[i] for i in rng.integers(0, len(pool), n)],
            "weight": rng.choice([0.0, 1.0, 1.0, 2.0, 0.5], n),
        }
    )
    keep = rng.random(len(pool)) < 0.7
    catalog = pd.DataFrame({"item": [p for p, k in zip(pool, keep) if k] or pool[:1]})
    if not text:
        train["item"] = train["item"].astype(np.int64)
        catalog["item"] = catalog["item"].astype(np.int64)
    return train, catalog

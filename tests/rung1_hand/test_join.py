"""The one join of a run with its judgments (rankframe/join.py, decision 6), by hand.

Run: system A ranks q1: [a, b], q2: [c]; system B ranks q2: [c, d]. Judgments: q1: b = 1; q2: c = 1, d = 1;
q3: e = 1 (no run has q3).
  A: q1 hit at 2, |R| = 1 -> AP 1/2; q2 hit at 1, |R| = 2 -> AP (1/1)/2 = 1/2; q3 nothing retrieved -> 0
  B: q1 nothing retrieved -> 0; q2 hits at 1, 2 -> AP (1 + 1)/2 = 1; q3 -> 0
  default (no_retrieved="zero", trec_eval -c): MAP A = (1/2 + 1/2 + 0)/3 = 1/3, B = (0 + 1 + 0)/3 = 1/3
  no_retrieved="skip" (trec_eval): A = (1/2 + 1/2)/2 = 1/2, B = 1/1 = 1
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankframe


def run() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2", "q2"],
            "item": ["a", "b", "c", "c", "d"],
            "rank": [1, 2, 1, 1, 2],
            "system": ["A", "A", "A", "B", "B"],
        }
    )


def qrels() -> pd.DataFrame:
    return pd.DataFrame({"query": ["q1", "q2", "q2", "q3"], "item": ["b", "c", "d", "e"], "relevance": [1, 1, 1, 1]})


def test_every_system_is_scored_on_every_judged_query(engine):
    got = rankframe.evaluate(run(), ["AP"], qrels=qrels(), by="system", per_query=True, engine=engine)
    per_query = {(s, q): v for s, q, v in zip(got["system"], got["query"], got["value"])}
    assert per_query == pytest.approx(
        {("A", "q1"): 0.5, ("A", "q2"): 0.5, ("A", "q3"): 0.0, ("B", "q1"): 0.0, ("B", "q2"): 1.0, ("B", "q3"): 0.0}
    )
    means = rankframe.evaluate(run(), ["AP"], qrels=qrels(), by="system", engine=engine)
    assert dict(zip(means["system"], means["value"])) == pytest.approx({"A": 1 / 3, "B": 1 / 3})
    skip = rankframe.evaluate(run(), ["AP"], qrels=qrels(), by="system", engine=engine, no_retrieved="skip")
    assert dict(zip(skip["system"], skip["value"])) == pytest.approx({"A": 0.5, "B": 1.0})


def test_read_trec_and_evaluate_qrels_agree(tmp_path, engine):
    # the same run and judgments as TREC files: read_trec's long table gives the same means as evaluate(qrels=)
    for name in ("A", "B"):
        part = run()[lambda d, n=name: d["system"] == n]
        lines = [f"{q} Q0 {i} {r} {10 - r} {name}" for q, i, r in zip(part["query"], part["item"], part["rank"])]
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {i} {g}\n" for q, i, g in qrels().itertuples(index=False)))
    table = rankframe.read_trec([tmp_path / "A.run", tmp_path / "B.run"], tmp_path / "q.qrels")
    got = rankframe.evaluate(table, ["AP"], by="system", engine=engine)
    assert dict(zip(got["system"], got["value"])) == pytest.approx({"A": 1 / 3, "B": 1 / 3})


def test_judged_queries_no_run_row_mentions_go_to_a_null_segment(engine):
    # segments describe queries: q1 is 'de', q2 'fr' in the run; q3 only in the judgments -> null segment, AP 0
    segmented = run()[lambda d: d["system"] == "A"].drop(columns="system").assign(country=["de", "de", "fr"])
    got = rankframe.evaluate(segmented, ["AP"], qrels=qrels(), by="country", engine=engine)
    values = {("nan" if isinstance(c, float) and math.isnan(c) else c): v for c, v in zip(got["country"], got["value"])}
    assert values == pytest.approx({"de": 0.5, "fr": 0.5, "nan": 0.0})


def test_join_rows_by_hand():
    joined = rankframe.join_qrels(run(), qrels(), by=["system"])
    added = joined[joined["rank"].isna()].sort_values(["system", "query", "item"])
    # A misses q2's d and all of q3; B misses q1's b and q3's e (q2's c and d are retrieved)
    assert list(zip(added["system"], added["query"], added["item"])) == [
        ("A", "q2", "d"),
        ("A", "q3", "e"),
        ("B", "q1", "b"),
        ("B", "q3", "e"),
    ]
    retrieved = joined[joined["rank"].notna()]
    assert list(retrieved["relevance"].fillna(-1)) == [-1, 1, 1, 1, 1]  # a unjudged; b, c, c, d judged 1

"""The intent-aware measures against ndeval (pyndeval, the C code of the TREC Web track) and ir_measures' tests.

``like='ndeval'`` must give ndeval's values exactly (to 1e-9) on every measure, cutoff, alpha, beta and rel; the
default convention differs from it only by the quirks docs/diversity.md lists, so it is held to ndeval where those
quirks cannot show (cutoffs 2..20, no tied scores).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankframe

pyndeval = pytest.importorskip("pyndeval")

# ir_measures' own test of its pyndeval provider: terrierteam/ir_measures, test/test_pyndeval.py (test_ERR_IA)
QRELS = """0 0 D0 0
0 0 D1 1
0 0 D2 1
0 1 D2 1
0 1 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 1 D5 2"""
RUN = """0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run"""

#: rankframe's name -> pyndeval's, and whether it takes a cutoff
NAMES = {
    "ERR_IA": ("ERR-IA", True),
    "nERR_IA": ("nERR-IA", True),
    "alpha_DCG": ("alpha-DCG", True),
    "alpha_nDCG": ("alpha-nDCG", True),
    "P_IA": ("P-IA", True),
    "StRecall": ("strec", True),
    "NRBP": ("NRBP", False),
    "nNRBP": ("nNRBP", False),
    "AP_IA": ("MAP-IA", False),
}
CUTOFFS = (1, 2, 5, 10, 20)


def published() -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels = pd.DataFrame(
        [line.split() for line in QRELS.splitlines()], columns=["query", "subtopic", "item", "relevance"]
    )
    qrels["relevance"] = qrels["relevance"].astype(int)
    run = pd.DataFrame(
        [line.split() for line in RUN.splitlines()], columns=["query", "q0", "item", "rank", "score", "tag"]
    )
    return run[["query", "item", "score"]].astype({"score": float}), qrels


def ndeval(run: pd.DataFrame, qrels: pd.DataFrame, measures: list[str], alpha=0.5, beta=0.5, rel=1) -> dict:
    """pyndeval's per-query values (its run order: score descending, then doc id ascending)."""
    evaluator = pyndeval.RelevanceEvaluator(
        [tuple(r) for r in qrels[["query", "subtopic", "item", "relevance"]].itertuples(index=False)],
        measures,
        relevance_level=rel,
        alpha=alpha,
        beta=beta,
    )
    ordered = run.sort_values("query", kind="stable")
    return evaluator.evaluate([tuple(r) for r in ordered[["query", "item", "score"]].itertuples(index=False)])


def labels(options: str) -> dict[str, str]:
    """rankframe's metric string -> pyndeval's measure name, for every measure and cutoff."""
    out = {}
    for name, (theirs, cut) in NAMES.items():
        if name in ("NRBP", "nNRBP") or "beta" not in options:
            if "alpha" in options and name in ("P_IA", "StRecall", "AP_IA"):
                continue
            inner = f"({options})" if options else ""
            for k in CUTOFFS if cut else (None,):
                label = str(rankframe.parse(f"{name}{inner}" + (f"@{k}" if k else "")))  # the canonical label
                out[label] = theirs + (f"@{k}" if k else "")
    return out


def assert_like_ndeval(
    run, qrels, options="like='ndeval'", alpha=0.5, beta=0.5, rel=1, tol=1e-9, engine="pandas"
) -> int:
    asked = labels(options)
    ours = rankframe.evaluate(run, list(asked), qrels=qrels, per_query=True, no_relevant="nan", engine=engine)
    theirs = ndeval(run, qrels, sorted(set(asked.values())), alpha=alpha, beta=beta, rel=rel)
    values = ours.pivot(index="query", columns="metric", values="value")
    compared = 0
    for query, row in theirs.items():
        for label, name in asked.items():
            mine, expected = values.loc[query, label], row[name]
            if math.isnan(mine):  # no relevant subtopic: ndeval says 0, and NaN for nNRBP (0/0)
                assert expected == 0 or (name == "nNRBP" and math.isnan(expected)), (query, label, expected)
            else:
                assert abs(mine - expected) <= tol, (query, label, mine, expected)
                compared += 1
    assert set(values.index) >= set(theirs)
    return compared


def test_ir_measures_published_err_ia():
    """ERR_IA@20 = 0.4659 and 0.1803, mean 0.3231 (ir_measures test/test_pyndeval.py), in both conventions."""
    run, qrels = published()
    for name in ("ERR_IA@20", "ERR_IA(like='ndeval')@20"):
        per_query = rankframe.evaluate(run, [name], qrels=qrels, per_query=True)
        assert per_query["value"].round(4).tolist() == [0.4659, 0.1803]
        assert round(rankframe.evaluate(run, [name], qrels=qrels)["value"].iloc[0], 4) == 0.3231


def test_published_case_every_measure_like_ndeval():
    run, qrels = published()
    assert assert_like_ndeval(run, qrels) > 0


def random_case(seed: int, n_queries: int = 12, ties: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        items = [f"d{i:02d}" for i in rng.permutation(40)[: rng.integers(1, 30)]]
        n_sub = int(rng.integers(1, 5))
        for item in items:
            for s in range(n_sub):
                if rng.random() < 0.5:
                    qrels.append((f"q{q}", str(s), item, int(rng.choice([0, 1, 2], p=[0.4, 0.4, 0.2]))))
        pool = [f"d{i:02d}" for i in rng.permutation(40)[: rng.integers(0, 35)]]
        for item in pool:
            score = float(rng.integers(0, 6)) if ties else float(rng.random())
            run.append((f"q{q}", item, score))
    run.append(("q_unjudged", "d00", 1.0))  # a run query without judgments: neither ndeval nor rankframe scores it
    return (
        pd.DataFrame(run, columns=["query", "item", "score"]),
        pd.DataFrame(qrels, columns=["query", "subtopic", "item", "relevance"]),
    )


@pytest.mark.parametrize("seed", range(6))
def test_seeded_like_ndeval(seed):
    run, qrels = random_case(seed)
    assert assert_like_ndeval(run, qrels) > 100


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_seeded_like_ndeval_in_blocks_of_queries(engine, monkeypatch):
    """A table of more than BLOCK_ROWS rows is evaluated in blocks of whole queries: still ndeval's values.

    The run's rows shuffled (the blocks are gathered, not sliced), a judged query the run never names and a run
    query without judgments among them; blocks of ~60 rows cut the 40 queries into several blocks.
    """
    from rankframe.engines import intent_engine

    run, qrels = random_case(7, n_queries=40)
    qrels = pd.concat(
        [qrels, pd.DataFrame({"query": ["q_judged"], "subtopic": ["0"], "item": ["d01"], "relevance": [1]})]
    )
    run = run.sample(frac=1.0, random_state=3)
    made = []
    blocks = intent_engine.query_blocks
    monkeypatch.setattr(intent_engine, "BLOCK_ROWS", 60)
    monkeypatch.setattr(intent_engine, "query_blocks", lambda *a, **k: made.extend(blocks(*a, **k)) or iter(made))
    assert assert_like_ndeval(run, qrels, engine=engine) > 500
    assert len(made) > 5 and sum(len(r) for r, _ in made) == len(run) and sum(len(j) for _, j in made) == len(qrels)
    # per-query rows in the documented order (engines/aggregate.py, order_per_query): query, then metric as asked
    made.clear()
    rows = rankframe.evaluate(run, ["alpha_nDCG@5", "ERR_IA@5"], qrels=qrels, per_query=True, engine=engine)
    assert len(made) > 5
    queries = sorted(set(qrels["query"]))
    assert list(zip(rows["query"], rows["metric"])) == [(q, m) for q in queries for m in ("alpha_nDCG@5", "ERR_IA@5")]
    # the mean over the judged queries of every block: ndeval's per-query values summed over the judged queries (a
    # judged query without a relevant subtopic is 0 in both, the default no_relevant="zero"; one the run never
    # names is 0 here, no_retrieved="zero", and absent from ndeval's output) / their number
    asked = {k: v for k, v in labels("like='ndeval'").items() if "nNRBP" not in v}
    theirs = pd.DataFrame(ndeval(run, qrels, sorted(set(asked.values())))).T
    made.clear()
    means = rankframe.evaluate(run, list(asked), qrels=qrels, engine=engine).set_index("metric")["value"]
    for label, name in asked.items():
        assert abs(means[label] - theirs[name].sum() / qrels["query"].nunique()) <= 1e-12, label


@pytest.mark.parametrize(("alpha", "beta", "rel"), [(0.3, 0.8, 1), (0.9, 0.2, 2), (1.0, 0.5, 1)])
def test_seeded_like_ndeval_options(alpha, beta, rel):
    run, qrels = random_case(10 + int(alpha * 10))
    options = f"like='ndeval', alpha={alpha}" + (f", rel={rel}" if rel != 1 else "")
    assert assert_like_ndeval(run, qrels, options, alpha=alpha, rel=rel) > 50
    nrbp = f"like='ndeval', alpha={alpha}, beta={beta}" + (f", rel={rel}" if rel != 1 else "")
    assert assert_like_ndeval(run, qrels, nrbp, alpha=alpha, beta=beta, rel=rel) > 5


@pytest.mark.parametrize("seed", range(3))
def test_default_equals_ndeval_where_no_quirk_shows(seed):
    """Without tied scores and at cutoffs 2..20 the default convention is ndeval's arithmetic."""
    run, qrels = random_case(100 + seed, ties=False)
    asked = {k: v for k, v in labels("").items() if not k.endswith("@1")}
    ours = rankframe.evaluate(run, list(asked), qrels=qrels, per_query=True, no_relevant="nan")
    values = ours.pivot(index="query", columns="metric", values="value")
    theirs = ndeval(run, qrels, sorted(set(asked.values())))
    for query, row in theirs.items():
        for label, name in asked.items():
            if not math.isnan(values.loc[query, label]):
                assert abs(values.loc[query, label] - row[name]) <= 1e-9, (query, label)


def test_parameter_groups_in_one_call():
    """Each parameter group gets its own values in one call (ir_measures' provider gives 0.0 after the first)."""
    run, qrels = random_case(7)
    groups = [
        ("", 0.5, 0.5, 1),
        ("alpha=0.2", 0.2, 0.5, 1),
        ("rel=2", 0.5, 0.5, 2),
        ("alpha=0.8, beta=0.9", 0.8, 0.9, 1),
    ]
    asked = {
        str(
            rankframe.parse(
                f"{name}({'like=' + repr('ndeval') + (', ' + opts if opts else '')})" + ("@10" if cut else "")
            )
        ): (
            theirs + ("@10" if cut else ""),
            alpha,
            beta,
            rel,
        )
        for opts, alpha, beta, rel in groups
        for name, (theirs, cut) in NAMES.items()
        if (name in ("NRBP", "nNRBP") or "beta" not in opts)
        and not ("alpha" in opts and name in ("P_IA", "StRecall", "AP_IA"))
    }
    together = rankframe.evaluate(run, list(asked), qrels=qrels, per_query=True)
    values = together.pivot(index="query", columns="metric", values="value")
    assert len(set(values.columns)) == len(asked)
    for label, (theirs, alpha, beta, rel) in asked.items():
        alone = rankframe.evaluate(run, [label], qrels=qrels, per_query=True).set_index("query")["value"]
        pd.testing.assert_series_equal(values[label].rename("value"), alone, check_names=False)
        expected = ndeval(run, qrels, [theirs], alpha=alpha, beta=beta, rel=rel)
        for query, row in expected.items():
            assert abs(values.loc[query, label] - row[theirs]) <= 1e-9 or math.isnan(row[theirs]), (label, query)


def test_like_ndeval_beyond_depth_20():
    """@k past ndeval's depth 20 is ndeval's arithmetic carried on (docs/diversity.md), not an error and not @20.

    No oracle reaches there: pyndeval refuses a cutoff above 20, and its C code, called directly with a larger depth,
    reads past its 20-slot arrays (ERR-IA@40 came out near @20, strec@25 as NaN or 4.7e-310). What like='ndeval'
    changes is its tie order and its un-normalised @1; without tied scores it is then the default convention at
    every k, which is ndeval's at k <= 20 (test_default_equals_ndeval_where_no_quirk_shows).
    """
    run, qrels = random_case(21, n_queries=6, ties=False)
    run = pd.concat([run, run.assign(item=run["item"] + "x", score=run["score"] - 10)], ignore_index=True)  # longer
    qrels = pd.concat([qrels, qrels.assign(item=qrels["item"] + "x")], ignore_index=True)
    for name, (_, cut) in NAMES.items():
        for k in (25, 40) if cut else (None,):
            at = f"@{k}" if k else ""
            both = rankframe.evaluate(run, [f"{name}{at}", f"{name}(like='ndeval'){at}"], qrels=qrels, per_query=True)
            values = both.pivot(index="query", columns="metric", values="value")
            pd.testing.assert_series_equal(values.iloc[:, 0], values.iloc[:, 1], check_names=False, atol=1e-12)
    deeper = rankframe.evaluate(run, ["ERR_IA(like='ndeval')@20", "ERR_IA(like='ndeval')@40"], qrels=qrels)
    assert deeper["value"].iloc[0] != deeper["value"].iloc[1]


def test_ir_measures_issue_61():
    """The example of terrierteam/ir_measures#61 ("Minimal example for using diversity metrics"): alpha_nDCG@10 is
    0.8637574337885664 for a run of d0 (both subtopics) and 0.4318787168942832 for a run of d1 (subtopic 0 only)."""
    qrels = pd.DataFrame(
        {"query": "q0", "subtopic": ["0", "1", "0"], "item": ["d0", "d0", "d1"], "relevance": [1, 1, 1]}
    )
    for item, expected in (("d0", 0.8637574337885664), ("d1", 0.4318787168942832)):
        run = pd.DataFrame({"query": ["q0"], "item": [item], "score": [1.0]})
        out = rankframe.evaluate(run, ["alpha_nDCG@10", "alpha_nDCG(like='ndeval')@10"], qrels=qrels)
        assert out["value"].tolist() == pytest.approx([expected, expected], abs=1e-12)

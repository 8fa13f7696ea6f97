"""``qrels=`` with custom column names: ``qrels_columns`` defaults to ``columns``, role by role, on every face.

Issue 33: a run and its judgments sharing custom names (``user_id, item_id, position`` / ``user_id, item_id,
rating``) failed with "column 'query' not in dataframe": the qrels were read with the default names. The one
reading is :func:`rankframe.columns.judgment_columns`; every face is held to the same hand-derived values.

The table (two systems, two users; ``rating`` is the judgment):

* judgments: user 1 rates ``b`` 1 and ``d`` 1 (``d`` retrieved by nobody for user 1), user 2 rates ``a`` 2.
* system A: user 1 ``a, b, c``, user 2 ``a, d``. AP: user 1 finds ``b`` at 2 of 2 relevant -> (1/2)/2 = 0.25;
  user 2 finds ``a`` at 1 -> 1. Mean 0.625. RR: 0.5 and 1 -> 0.75.
* system B: user 1 ``b, a``, user 2 ``d, a``. AP: user 1 ``b`` at 1 of 2 relevant -> 0.5; user 2 ``a`` at 2 ->
  1/2. Mean 0.5. So compare's delta of B against A on AP is 0.5 - 0.625 = -0.125.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe
from rankframe import Columns
from rankframe.core.errors import ParameterError

NAMES = {"query": "user_id", "item": "item_id", "rank": "position", "relevance": "rating", "system": "model"}
RUN = pd.DataFrame(
    {
        "model": ["A"] * 5 + ["B"] * 4,
        "user_id": [1, 1, 1, 2, 2, 1, 1, 2, 2],
        "item_id": ["a", "b", "c", "a", "d", "b", "a", "d", "a"],
        "position": [1, 2, 3, 1, 2, 1, 2, 1, 2],
    }
)
QRELS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["b", "d", "a"], "rating": [1, 1, 2]})
AP = {"A": 0.625, "B": 0.5}


def _means(out: pd.DataFrame) -> dict:
    return dict(zip(out["model"], out["value"]))


def test_the_one_reading_fills_every_role_from_columns():
    from rankframe.core.columns import judgment_columns

    run = Columns(**NAMES)
    assert judgment_columns(run, None) == run
    assert judgment_columns(run, {"relevance": "grade"}) == run.with_(relevance="grade")
    assert judgment_columns(run, Columns(relevance="grade")) == run.with_(relevance="grade")  # defaults: the run's
    assert judgment_columns(NAMES, {"item": "movie"}).query == "user_id"  # a dict for columns too
    with pytest.raises(ParameterError, match="unknown column role 'grade'"):
        judgment_columns(run, {"grade": "rating"})
    with pytest.raises(ParameterError, match="'qrels_columns' parameter of evaluate"):
        judgment_columns(run, ["rating"])  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_evaluate_reads_the_judgments_with_the_runs_names(engine):
    out = rankframe.evaluate(RUN, "AP", by="model", columns=NAMES, qrels=QRELS, engine=engine)
    assert _means(out) == pytest.approx(AP)


@pytest.mark.parametrize("qrels_columns", [{"relevance": "grade"}, Columns(relevance="grade")], ids=["dict", "Columns"])
def test_a_partial_qrels_columns_takes_the_rest_from_columns(qrels_columns):
    out = rankframe.evaluate(
        RUN,
        "AP",
        by="model",
        columns=NAMES,
        qrels=QRELS.rename(columns={"rating": "grade"}),
        qrels_columns=qrels_columns,
    )
    assert _means(out) == pytest.approx(AP)


def test_a_qrels_name_the_table_lacks_is_named():
    with pytest.raises(rankframe.ValidationError, match="'grade'"):
        rankframe.evaluate(RUN, "AP", by="model", columns=NAMES, qrels=QRELS, qrels_columns={"relevance": "grade"})
    with pytest.raises(ParameterError, match="'qrels_columns' parameter of evaluate"):
        rankframe.evaluate(RUN, "AP", by="model", columns=NAMES, qrels=QRELS, qrels_columns="rating")


def test_join_qrels_takes_a_partial_qrels_columns():
    c = Columns(**NAMES)
    joined = rankframe.join_qrels(
        RUN, QRELS.rename(columns={"rating": "grade"}), c, ["model"], qrels_columns={"relevance": "grade"}
    )
    assert (
        "rating" in joined.columns and joined["rating"].notna().sum() == 2 + 2 + 2
    )  # A hits b, a; B hits b, a; both miss d


def test_compare():
    out = rankframe.compare(RUN, "AP", columns=NAMES, qrels=QRELS, baseline="A", test="t")
    assert out["delta"].tolist() == pytest.approx([AP["B"] - AP["A"]])
    partial = rankframe.compare(
        RUN,
        "AP",
        columns=NAMES,
        qrels=QRELS.rename(columns={"rating": "grade"}),
        qrels_columns={"relevance": "grade"},
        baseline="A",
        test="t",
    )
    assert partial["delta"].tolist() == pytest.approx([AP["B"] - AP["A"]])


def test_report(tmp_path):
    pytest.importorskip("matplotlib")
    html = rankframe.report(
        RUN, ["AP"], columns=NAMES, qrels=QRELS, baseline="A", path=tmp_path / "r.html", n_resamples=200, seed=1
    )
    assert "0.625" in html and "0.500" in html


def test_the_accessor_and_its_metric_methods():
    named = RUN.rank_metrics(**NAMES)
    assert _means(named.evaluate("AP", by="model", qrels=QRELS)) == pytest.approx(AP)
    assert named.ap(by="model", qrels=QRELS).to_dict() == pytest.approx(AP)
    partial = named.evaluate(
        "AP", by="model", qrels=QRELS.rename(columns={"rating": "grade"}), qrels_columns={"relevance": "grade"}
    )
    assert _means(partial) == pytest.approx(AP)


def test_polars():
    pl = pytest.importorskip("polars")
    out = pl.from_pandas(RUN).rank_metrics(**NAMES).evaluate("AP", by="model", qrels=pl.from_pandas(QRELS))
    assert dict(zip(out["model"].to_list(), out["value"].to_list())) == pytest.approx(AP)


def test_fuse_train_takes_a_partial_qrels_columns():
    got = rankframe.fuse_train(
        RUN.assign(score=1.0 / RUN["position"]).drop(columns="position"),
        QRELS.rename(columns={"rating": "grade"}),
        "wsum",
        metric="AP",
        columns={k: v for k, v in NAMES.items() if k != "rank"},
        qrels_columns={"relevance": "grade"},
    )
    assert set(got) == {"weights"}


def test_the_cli(tmp_path, capsys):
    from rankframe.cli import main

    run = tmp_path / "run.csv"
    RUN.assign(user_id="u" + RUN["user_id"].astype(str)).to_csv(run, index=False)
    qrels = tmp_path / "judged.qrels"
    qrels.write_text("".join(f"u{q} 0 {i} {g}\n" for q, i, g in QRELS.itertuples(index=False)))
    args = ["--query", "user_id", "--item", "item_id", "--rank", "position", "--relevance", "rating"]
    capsys.readouterr()
    code = main(["evaluate", str(run), "--qrels", str(qrels), *args, "--by", "model", "-m", "AP", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = pd.read_csv(pd.io.common.StringIO(out))
    assert dict(zip(got["model"], got["value"])) == pytest.approx(AP)

"""Hostile input to the beyond-accuracy metrics and their extra inputs: every failure a RankframeError that names
the input or option, the rule and a few offending values (issue 21)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankframe

RECS = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1], "relevance": 0})
TRAIN = pd.DataFrame({"query": [7, 8], "item": ["a", "b"]})

CASES = {
    # metric, keyword arguments, the words the message must hold
    "catalog str": ("Gini", {"catalog": "abc"}, "'catalog' parameter of evaluate must be a sequence"),
    "catalog dict": ("Gini", {"catalog": {"a": 1}}, "'catalog' parameter of evaluate must be a sequence"),
    "catalog number": ("Gini", {"catalog": 3}, "'catalog' parameter of evaluate must be a sequence"),
    "catalog empty": ("Gini", {"catalog": []}, "catalog= is empty"),
    "catalog null": ("Gini", {"catalog": ["a", None]}, r"catalog= has 1 null item id\(s\) \(positions \[1\]\)"),
    "catalog repeated": ("Coverage", {"catalog": ["a", "b", "a"]}, r"more than once, e.g. \['a'\]"),
    "catalog two columns": ("Gini", {"catalog": pd.DataFrame({"x": ["a"], "y": ["b"]})}, "must have one column"),
    "catalog of numbers": ("Gini", {"catalog": [1, 2]}, "ids of catalog= are numbers .* column 'item' are text"),
    "train not a table": ("ARP", {"train": ["a", "b"]}, "train"),
    "train no item column": ("ARP", {"train": TRAIN.rename(columns={"item": "doc"})}, r"\['item'\] not in its columns"),
    "train null query": ("ARP", {"train": TRAIN.assign(query=[7, None])}, r"train= has 1 null id\(s\) in 'query'"),
    "train null item": ("ARP", {"train": TRAIN.assign(item=["a", None])}, r"1 null item id\(s\)"),
    "train ids of numbers": ("Novelty", {"train": TRAIN.assign(item=[1, 2])}, "are numbers .* are text"),
    "train negative weight": ("ARP", {"train": TRAIN.assign(weight=[1.0, -1.0])}, "'weight' must hold finite"),
    "train NaN weight": ("ARP", {"train": TRAIN.assign(weight=[1.0, np.nan])}, "'weight' must hold finite"),
    "train text weight": ("ARP", {"train": TRAIN.assign(weight=["1", "2"])}, "'weight' must hold finite"),
    "train bool weight": ("ARP", {"train": TRAIN.assign(weight=[True, False])}, "'weight' must hold finite"),
    "missing catalog": ("Coverage@5", {}, r"Coverage@5 needs catalog="),
    "missing train": ("APLT", {}, "APLT needs train="),
    "universe train without train": ("Gini(universe='train')", {}, "needs train="),
    "set-level per query": ("Entropy", {"per_query": True}, "set-level metrics have one value per segment"),
    "set-level ci, no resamples": ("Entropy", {"ci": 0.95, "n_resamples": 0}, "'n_resamples' parameter of evaluate"),
    "set-level ci, bad seed": ("Entropy", {"ci": 0.95, "seed": -1}, "'seed' parameter of evaluate"),
    "set-level ci per query": ("Entropy", {"ci": 0.95, "per_query": True}, "does not apply with per_query=True"),
    "set-level agg": ("Entropy", {"agg": "median"}, "agg='median' does not apply to them"),
    "personalization per query": ("Personalization@2", {"per_query": True}, "set-level metrics have one value"),
    "personalization ci, seed True": ("Personalization", {"ci": 0.95, "seed": True}, "'seed' parameter of evaluate"),
    "personalization bad output": ("Personalization(output='distances')", {}, "'output' parameter of personalization"),
    "rows aggregate per query": ("ARP(aggregate='rows')", {"train": TRAIN, "per_query": True}, "set-level"),
    "unknown peer": ("Gini(like='recommenders')", {"catalog": ["a"]}, "'like' parameter of gini must be one of"),
    "misspelled option": ("Gini(denomintor='n')", {"catalog": ["a"]}, "did you mean 'denominator'"),
    "bad choice": ("Novelty(model='surprise')", {"train": TRAIN}, "'model' parameter of novelty must be one of"),
    "denominator k without k": ("Novelty(list_denominator='k')", {"train": TRAIN}, "give one, e.g. Novelty@10"),
    "denominator k with rows": ("Novelty(list_denominator='k', aggregate='rows')@3", {"train": TRAIN}, "no lists"),
    "negative tail": ("APLT(tail=-1)", {"train": TRAIN}, "'tail' parameter of aplt must be a finite float >= 0"),
    "log base 1": ("Entropy(log_base=1)", {}, "'log_base' parameter of entropy must be a finite float > 1"),
}


@pytest.mark.quick_sample(10)  # the quick loop: 10 of the hostile inputs (tests/tiers.py)
@pytest.mark.parametrize("case", CASES)
def test_hostile_beyond_input_names_the_input(case):
    metric, kw, words = CASES[case]
    with pytest.raises(rankframe.RankframeError, match=words):
        rankframe.evaluate(RECS, metric, **kw)
    with pytest.raises(rankframe.RankframeError, match=words):  # the accessor says the same
        RECS.rank_metrics.evaluate(metric, **kw)


def test_inputs_as_other_tables_are_read():
    # catalog as a one-column Arrow table, train as Arrow: the same values as from pandas
    want = rankframe.evaluate(RECS, ["Gini", "ARP"], catalog=["a", "b", "c"], train=TRAIN)
    got = rankframe.evaluate(
        RECS, ["Gini", "ARP"], catalog=pa.table({"id": ["a", "b", "c"]}), train=pa.Table.from_pandas(TRAIN)
    )
    pd.testing.assert_frame_equal(got, want)
    got = rankframe.evaluate(RECS, ["Gini", "ARP"], catalog=pd.Series(["a", "b", "c"]), train=TRAIN)
    pd.testing.assert_frame_equal(got, want)


def test_catalog_ids_of_one_kind_int_and_float_match():
    recs = RECS.assign(item=[1, 2, 1])
    assert rankframe.evaluate(recs, "Coverage", catalog=np.array([1.0, 2.0, 3.0, 4.0]))["value"].iloc[0] == 0.5


def test_an_input_no_asked_metric_reads_is_left_alone():
    # issue 33: train=, catalog=, features= that no asked metric reads were an error; they are accepted, neither
    # read nor checked (a broken train= passed with Personalization gives Personalization's value), while a metric
    # that reads an input still has it checked
    broken = TRAIN.assign(item=["a", None])
    want = rankframe.evaluate(RECS, ["Personalization", "Gini(universe='recommended')"])
    got = rankframe.evaluate(
        RECS, ["Personalization", "Gini(universe='recommended')"], train=broken, catalog=["zz"], features=broken
    )
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(rankframe.RankframeError, match=r"1 null item id\(s\)"):
        rankframe.evaluate(RECS, ["Personalization", "ARP"], train=broken)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_an_empty_train_makes_every_item_cold(engine):
    # issue 33: an empty train= was refused. With no interactions every item has popularity 0: ARP = 0 (RecTools'
    # value for a cold item: rectools/metrics/popularity.py fills unseen items with 0), every recommended item is in
    # the long tail (APLT = 1), and Novelty's information -log(pop / |train queries|) has no history to be
    # measured against: NaN, never -inf
    empty = TRAIN.iloc[:0]
    out = rankframe.evaluate(
        RECS, ["ARP", "ARP(like='rectools')", "APLT", "Novelty", "Novelty(like='rectools')"], train=empty,
        engine=engine,
    ).set_index("metric")["value"]  # fmt: skip
    assert out["ARP"] == 0.0 and out["ARP(like='rectools')"] == 0.0 and out["APLT"] == 1.0
    assert np.isnan(out["Novelty"]) and np.isnan(out["Novelty(like='rectools')"])

"""rankframe.agreement on bad input: every failure a RankframeError naming the parameter or column, and the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import ParameterError, ValidationError


def _df(**extra) -> pd.DataFrame:
    return pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "human": [1, 0, 1], "llm": [1, 1, 0], **extra})


def _ratings(**extra) -> pd.DataFrame:
    return pd.DataFrame({"query": [1, 1, 2, 2], "item": ["a"] * 4, "coder": ["x", "y"] * 2, "value": [1, 0, 1, 1],
                         **extra})  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"a": "human", "coder": "coder"}, "got a= with coder="),
        ({"weights": "linear", "level": "ordinal"}, "got weights= with level="),
        ({"weights": "lineer"}, "'weights' parameter of agreement.*did you mean 'linear'"),
        ({"weights": 1}, "'weights' parameter of agreement"),
        ({"a": "human", "b": "human"}, "same column 'human'"),
        ({"a": 3}, "'a' parameter of agreement must be a column name"),
        ({"rel": "2"}, "'rel' parameter of agreement"),
        ({"rel": float("nan")}, "'rel' parameter of agreement"),
        ({"ci": 1.5}, "'ci' parameter of agreement"),
        ({"ci": 0.9, "n_resamples": 0}, "'n_resamples' parameter of agreement"),
        ({"ci": 0.9, "seed": -1}, "'seed' parameter of agreement"),
        ({"labels": [1, 1]}, "'labels' parameter of agreement"),
        ({"labels": []}, "'labels' parameter of agreement"),
        ({"labels": "01"}, "'labels' parameter of agreement"),
        ({"labels": [0, np.inf]}, "'labels' parameter of agreement"),
        ({"by": ["query", "query"]}, "'by' parameter of agreement names column 'query' twice"),
        ({"by": "kappa"}, "output column"),
        ({"by": "human"}, "a label column"),
        ({"output": "excel"}, "'output' parameter of agreement"),
    ],
)
def test_bad_parameters(kwargs, words):
    df = _df(kappa=1)
    with pytest.raises(ParameterError, match=words):
        rankframe.agreement(df, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"level": "ordnial"}, "'level' parameter of agreement.*did you mean 'ordinal'"),
        ({"unit": []}, "'unit' parameter of agreement"),
        ({"unit": "item", "coder": "item"}, "distinct columns"),
    ],
)
def test_bad_multi_parameters(kwargs, words):
    with pytest.raises(ParameterError, match=words):
        rankframe.agreement(_ratings(), **{"coder": "coder", **kwargs})


@pytest.mark.parametrize(
    ("frame", "kwargs", "column", "words"),
    [
        (_df().drop(columns="llm"), {}, "llm", "not in dataframe"),
        (_df().rename(columns={"human": "Human"}), {}, "human", "did you mean 'Human'"),
        (_df(human=["1", "0", "x"]), {}, "human", "finite numbers"),
        (_df(llm=[1.0, np.inf, 0]), {}, "llm", "finite numbers"),
        (_df(llm=[True, False, True]), {}, "llm", "finite numbers"),
        (_df(human=[1, 2, 1]), {"labels": [0, 1]}, "human", "outside the scale"),
        (_df(llm=[np.nan] * 3), {}, "human", "no row has both labels"),
        (_df().iloc[:0], {}, "human", "empty"),
        (pd.concat([_df(), _df().iloc[:1]]), {}, "item", r"item must be unique within each \(query\)"),
        (_df(query=[1, None, 2]), {"ci": 0.9}, "query", "every row must name its query"),
        (_df().drop(columns="query"), {"ci": 0.9}, "query", "not in dataframe"),
    ],
)
def test_bad_tables(frame, kwargs, column, words):
    before = frame.copy()
    with pytest.raises(ValidationError, match=words) as err:
        rankframe.agreement(frame, **kwargs)
    assert err.value.failures[0]["column"] == column
    pd.testing.assert_frame_equal(frame, before)  # never mutated, even on the way to an error


@pytest.mark.parametrize(
    ("frame", "column", "words"),
    [
        (pd.concat([_ratings(), _ratings().iloc[:1]]), "coder", "rated the unit twice"),
        (_ratings(coder=["x", None, "x", "y"]), "coder", "no null value"),
        (_ratings(value=["1", "0", "a", "1"]), "value", "finite numbers"),
        (_ratings().drop(columns="coder"), "coder", "not in dataframe"),
    ],
)
def test_bad_ratings(frame, column, words):
    with pytest.raises(ValidationError, match=words) as err:
        rankframe.agreement(frame, coder="coder", value="value")
    assert err.value.failures[0]["column"] == column


def test_not_a_table():
    with pytest.raises(ParameterError, match="'data' parameter of agreement must be a table"):
        rankframe.agreement([1, 2, 3])


def test_null_labels_give_one_note_and_no_warning(recwarn):
    df = _df(llm=[1, np.nan, np.nan])
    out = rankframe.agreement(df)
    assert out["n"].iloc[0] == 1 and out["note"].iloc[0].startswith("2 row(s) with a null label left out")
    assert not [w for w in recwarn.list if "rankframe" in str(w.filename) or "numpy" in str(w.filename)]

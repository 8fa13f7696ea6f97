"""rankframe.anova on hostile input: every failure a RankframeError naming the column or parameter; degenerate
designs give NaN with a note, never a crash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.anova import anova_values
from rankframe.core.errors import ParameterError, UnknownMetricError, ValidationError
from rankframe.stats.anova import NOTE_ALL_EQUAL, NOTE_FEW_QUERIES, NOTE_NO_ERROR, NOTE_NO_GROUPS

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


def _per(values: dict[str, list[float]], groups: list[str] | None = None) -> pd.DataFrame:
    n = len(next(iter(values.values())))
    return pd.DataFrame(
        [
            {"grp": (groups or ["all"] * n)[i], "system": s, "query": f"q{i}", "metric": "AP", "value": x}
            for s, xs in values.items()
            for i, x in enumerate(xs)
        ]
    )


def test_one_system_is_a_validation_error(paired):
    with pytest.raises(ValidationError, match="anova needs at least 2 systems in column 'system'"):
        rankframe.anova(paired[paired["system"] == "bm25"], "AP")


def test_one_query_gives_nan_with_a_note(paired):
    out = rankframe.anova(paired[paired["query"] == "q01"], "AP")
    assert out["note"].iloc[0] == NOTE_FEW_QUERIES
    assert np.isnan(out["statistic"].iloc[0]) and np.isnan(out["p_value"].iloc[0]) and out["n"].iloc[0] == 1


def test_a_query_missing_for_one_system_follows_compares_missing_rule(paired):
    holed = paired[~((paired["system"] == "dense") & (paired["query"] == "q03"))]
    with pytest.raises(ValidationError, match="missing='zero'") as e:
        rankframe.anova(holed, "AP")
    assert "q03" in str(e.value)
    dropped = rankframe.anova(holed, "AP", missing="drop")
    assert dropped["n"].iloc[0] == 31 and dropped.attrs["dropped"] == 1
    filled = rankframe.anova(holed, "AP", missing="zero")
    assert filled["n"].iloc[0] == 32 and filled.attrs["filled"] == 1
    # drop = the ANOVA of the table without the query
    assert dropped["statistic"].iloc[0] == pytest.approx(
        rankframe.anova(paired[paired["query"] != "q03"], "AP")["statistic"].iloc[0], rel=1e-12
    )


def test_nan_values_are_missing_values():
    per = _per({"A": [0.1, 0.5, np.nan, 0.3], "B": [0.2, 0.4, 0.9, 0.6]})
    with pytest.raises(ValidationError, match="no row, or NULL/NaN"):
        anova_values(per, ["AP"], [], None, "query", "system")
    out = anova_values(per, ["AP"], [], None, "query", "system", missing="drop")
    assert out["n"].iloc[0] == 3


def test_constant_values():
    # every value the same: nothing to test
    same = anova_values(_per({"A": [0.5] * 4, "B": [0.5] * 4}), ["AP"], [], None, "query", "system").iloc[0]
    assert same["note"] == NOTE_ALL_EQUAL and np.isnan(same["statistic"]) and same["mse"] == 0
    # B = A + 0.1 on every query: no residual (MSE = 0, also through float noise), the systems differ: F = inf, p = 0
    shift = anova_values(
        _per({"A": [0.1, 0.7, 0.3, 0.2], "B": [0.2, 0.8, 0.4, 0.3]}), ["AP"], [], None, "query", "system"
    ).iloc[0]
    assert shift["note"] == NOTE_NO_ERROR and shift["statistic"] == np.inf and shift["p_value"] == 0.0
    pairs = anova_values(
        _per({"A": [0.1, 0.7, 0.3, 0.2], "B": [0.2, 0.8, 0.4, 0.3]}), ["AP"], [], None, "query", "system", pairs=True
    ).iloc[0]
    assert np.isnan(pairs["effect_size"]) and pairs["note"] == NOTE_NO_ERROR


def test_one_group_has_no_interaction(paired):
    out = rankframe.anova(paired[paired["length"] == "long"], "AP", interaction="length").set_index("term")
    assert out.loc["system:segment", "note"] == NOTE_NO_GROUPS and np.isnan(out.loc["system:segment", "statistic"])
    assert np.isfinite(out.loc["system", "statistic"])


def test_a_query_in_two_groups_is_refused():
    per = _per({"A": [0.1, 0.5, 0.2, 0.3], "B": [0.2, 0.4, 0.9, 0.6]}, ["a", "a", "b", "b"])
    per.loc[(per["system"] == "B") & (per["query"] == "q1"), "grp"] = "b"
    with pytest.raises(ValidationError, match="every query must lie in one group of the interaction column 'grp'"):
        anova_values(per, ["AP"], [], "grp", "query", "system", missing="drop")


def test_misspelled_names(paired):
    with pytest.raises(UnknownMetricError, match="Hint: did you mean 'nDCG'"):
        rankframe.anova(paired, "nDGC")
    with pytest.raises(ValidationError, match="column 'sytem' not in dataframe .did you mean 'system'"):
        rankframe.anova(paired, "AP", system="sytem")
    with pytest.raises(ValidationError, match="column 'lenght' not in dataframe"):
        rankframe.anova(paired, "AP", interaction="lenght")
    with pytest.raises(ParameterError, match="unknown option 'no_relevent'.*did you mean 'no_relevant'"):
        rankframe.anova(paired, "AP", no_relevent="nan")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(missing="fill"), "The 'missing' parameter of anova must be one of 'error', 'zero', 'drop'"),
        (dict(pairs="yes"), "The 'pairs' parameter of anova must be True or False"),
        (dict(interaction=["length"]), "The 'interaction' parameter of anova must be None or a column name"),
        (dict(interaction="length", by="length"), "the interaction column 'length' is in by="),
        (dict(interaction="system"), "the interaction column 'system' is the system column"),
        (dict(by="system"), "the system column 'system' is also in by="),
        (dict(system="query"), "the system column 'query' is the table's query column"),
        (dict(engine="spark"), "The 'engine' parameter of anova must be one of 'pandas', 'duckdb'"),
        (dict(output="excel"), "The 'output' parameter of anova must be one of"),
    ],
)
def test_bad_parameters(paired, kwargs, words):
    with pytest.raises(ParameterError, match=words.replace("(", r"\(").replace(")", r"\)")):
        rankframe.anova(paired, "AP", **kwargs)


@pytest.mark.parametrize("name", ["term", "statistic", "p_value", "mse", "metric", "value", "effect_size"])
def test_names_colliding_with_output_columns(paired, name):
    renamed = paired.rename(columns={"length": name})
    with pytest.raises(ParameterError, match=f"the column '{name}' has the name of an output column of anova"):
        rankframe.anova(renamed, "AP", by=name)
    with pytest.raises(ParameterError, match=f"the column '{name}' has the name of an output column of anova"):
        rankframe.anova(renamed, "AP", interaction=name)


def test_null_systems_and_the_input_is_not_mutated(paired):
    before = paired.copy()
    rankframe.anova(paired, "AP", interaction="length", missing="zero")
    pd.testing.assert_frame_equal(paired, before)
    broken = paired.astype({"system": object})
    broken.loc[0, "system"] = None
    with pytest.raises(ValidationError, match="every row must name its system"):
        rankframe.anova(broken, "AP")


def test_empty_duplicated_and_wrong_types(paired):
    with pytest.raises(ValidationError, match="anova needs at least 2 systems in column 'system'; found 0"):
        rankframe.anova(paired.iloc[:0], "AP")
    with pytest.raises(ValidationError, match="rank must be unique within each"):
        rankframe.anova(pd.concat([paired, paired.iloc[:1]]), "AP")
    with pytest.raises(ParameterError, match="The 'df' parameter of anova must be a table"):
        rankframe.anova([1, 2], "AP")
    with pytest.raises(ParameterError, match="The 'metrics' parameter of anova must name at least one metric"):
        rankframe.anova(paired, [])


def test_integer_systems_and_a_categorical_interaction_column(paired):
    ints = paired.assign(system=paired["system"].map({"bm25": 1, "dense": 2, "hybrid": 3}))
    cat = paired.astype({"length": "category"})
    want = rankframe.anova(paired, "AP", interaction="length")
    for frame in (ints, cat):
        got = rankframe.anova(frame, "AP", interaction="length")
        assert got["statistic"].tolist() == pytest.approx(want["statistic"].tolist(), rel=1e-12)


def test_random_query_on_degenerate_designs_and_bad_values(paired):
    # one query: no error df, the components are NaN with the ANOVA's note
    one = rankframe.anova(paired[paired["query"] == "q01"], "AP", random="query").iloc[0]
    assert one["note"] == NOTE_FEW_QUERIES and np.isnan(one["var_query"]) and np.isnan(one["icc"])
    # every value equal: both components 0, icc undefined (NaN), the note of the ANOVA
    same = anova_values(_per({"A": [0.5] * 4, "B": [0.5] * 4}), ["AP"], [], None, "query", "system", random=True)
    row = same.iloc[0]
    assert row["note"] == NOTE_ALL_EQUAL and row["var_query"] == 0 and row["var_error"] == 0 and np.isnan(row["icc"])
    with pytest.raises(ValidationError, match="anova needs at least 2 systems"):
        rankframe.anova(paired[paired["system"] == "bm25"], "AP", random="query")
    with pytest.raises(ParameterError, match="The 'random' parameter of anova must be None or 'query'"):
        rankframe.anova(paired, "AP", random="system")
    with pytest.raises(ParameterError, match="The 'random' parameter of anova must be None or 'query'"):
        rankframe.anova(paired, "AP", random=True)
    with pytest.raises(ParameterError, match="random='query' with pairs=True"):
        rankframe.anova(paired, "AP", random="query", pairs=True)
    with pytest.raises(ParameterError, match="the column 'icc' has the name of an output column of anova"):
        rankframe.anova(paired.rename(columns={"length": "icc"}), "AP", by="icc")
    plain = rankframe.anova(paired, "AP")
    assert not {"var_query", "var_error", "icc"} & set(plain.columns)

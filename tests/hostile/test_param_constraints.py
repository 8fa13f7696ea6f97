"""Each declared parameter's rule is one constraint object, read by every face (issue 34).

A constraint (``rankframe.constraints``) checks a value, describes itself, writes its SQL and gives hypothesis
strategies of valid and invalid values. Held here: its words are today's words (the ``expected()`` table that
``rankframe/declare.py`` switched on before, written out by hand below) and its SQL checks are the macros the
generated ``sql/<name>.sql`` blocks call; then, for every declared parameter of every metric, values drawn from
its strategies: a valid one is taken, and gives the same values on the pandas and the DuckDB engines; an invalid one
is the same ParameterError on both, with its fields (owner, parameter, expected, got).
"""

from __future__ import annotations

import math
import pickle

import pandas as pd
import pytest
import strategies as S
from conftest import hypothesis_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe
from rankframe.core import constraints
from rankframe.core.declare import Param
from rankframe.core.errors import ParameterError
from rankframe.measures.registry import BEYOND, INTENT, METRICS

#: the words of each named shorthand before the constraints (rankframe/declare.py, Param.expected at ba2711c)
WORDS = {
    "k": "an int >= 1 (at most 2**63 - 1) or None",
    "int>=1": "an int >= 1",
    "open_unit": "a float in the open interval (0, 1)",
    "unit": "a float in [0, 1]",
    "nonnegative": "a finite float >= 0",
    "base": "a finite float > 1",
    "gains": "a dict {grade: gain} of finite numbers, or None",
    "flag": "True or False",
}

#: grades 0 and 1 only (max_grade >= 1 covers them), a judged unretrieved row, an unjudged retrieved row, tied scores
TABLE = pd.DataFrame(
    {
        "query": [1, 1, 1, 1, 1, 2, 2, 2, 3, 3],
        "item": ["a", "b", "c", "d", "e", "a", "b", "c", "a", "b"],
        "score": [3.0, 2.0, 2.0, 1.0, None, 1.0, 1.0, 0.5, 2.0, None],
        "relevance": [1, 0, 1, None, 1, 0, 1, 1, 0, 0],
    }
)
PARAMS = [(spec, p) for spec in METRICS for p in spec.params]
#: every family's declared parameters: the strategies and the checks agree (no engine)
EVERY_PARAM = [(spec, p) for spec in (*METRICS, *BEYOND, *INTENT) for p in spec.params]


@pytest.mark.parametrize("kind", WORDS)
def test_a_shorthand_keeps_its_words(kind):
    assert Param("x", None, "", kind=kind).expected() == WORDS[kind]


def test_a_threshold_says_none_when_its_default_is_none():
    assert Param("rel", None, "", kind="threshold").expected() == "a finite number or None"
    assert Param("rel", 1, "", kind="threshold").expected() == "a finite number"
    assert Param("gain", "a", "", choices=("a", "b")).expected() == "one of 'a', 'b'"


def test_a_constraint_given_by_object_is_the_shorthands():
    assert Param("k", None, "", kind="k") == Param("k", None, "", constraint=constraints.K)
    assert Param("g", "a", "", constraint=constraints.Choice(("a", "b"))).choices == ("a", "b")
    with pytest.raises(ValueError, match="unknown parameter kind 'percent'"):
        Param("x", 1, "", kind="percent")


def test_the_sql_checks_are_the_generated_macros_calls():
    # as written in sql/calibration.sql, sql/aplt.sql and sql/novelty.sql's generated blocks (beyond/sqlgen.py)
    assert constraints.UNIT.sql_check("alpha", "alpha") == "rf__opt_unit(alpha, 'alpha', owner)"
    assert constraints.NONNEGATIVE.sql_check("tail", "tail") == "rf__opt_nonnegative(tail, 'tail', owner)"
    assert constraints.BASE.sql_check("log_base", "log_base") == "rf__opt_base(log_base, owner)"
    assert constraints.FLAG.sql_check("c", "c") == "rf__opt_flag(c, 'c', owner)"
    choice = constraints.Choice((None, "kl", "js"))
    assert choice.sql_check("d", "d") == "rf__opt_choice(d, ['kl', 'js'], 'd', owner)"
    with pytest.raises(ValueError, match="no SQL check"):
        constraints.OPEN_UNIT.sql_check("p", "p")


def test_the_sql_values_are_typed():
    assert constraints.K.sql_value(3) == "CAST(3 AS BIGINT)"
    assert constraints.K.sql_value(None) == "CAST(NULL AS BIGINT)"
    assert constraints.UNIT.sql_value(1) == "CAST('1.0' AS DOUBLE)"
    assert constraints.FLAG.sql_value(None) == "CAST(NULL AS BOOLEAN)"
    assert constraints.Choice(("a",)).sql_value("A") == "'a'"
    gains = constraints.GAINS.check("nDCG", "gains", {2: 3, 1: 1})
    assert constraints.GAINS.sql_value(gains) == (
        "CAST(MAP {CAST('1.0' AS DOUBLE): CAST('1.0' AS DOUBLE), CAST('2.0' AS DOUBLE): CAST('3.0' AS DOUBLE)} "
        "AS MAP(DOUBLE, DOUBLE))"
    )


def test_an_array_is_no_choice():
    # `array in choices` compares elementwise: once a numpy ValueError, now the parameter's error
    import numpy as np

    with pytest.raises(ParameterError, match="'gain' parameter of ndcg must be one of"):
        constraints.Choice(("linear", "binary")).check("ndcg", "gain", np.array([1, 2]))


@pytest.mark.slow  # every parameter of every metric on both engines, a few draws (~20 s)
@settings(
    max_examples=hypothesis_examples(4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(measures=S.declared_measures(METRICS))
def test_valid_values_are_taken_alike_on_pandas_and_duckdb(measures):
    pandas = rankframe.evaluate(TABLE, measures, engine="pandas", per_query=True)
    duckdb = rankframe.evaluate(TABLE, measures, engine="duckdb", per_query=True)
    keys = ["metric", "query"]
    a = pandas.sort_values(keys).reset_index(drop=True)
    b = duckdb.sort_values(keys).reset_index(drop=True)
    assert a[keys].equals(b[keys])
    for label, x, y in zip(a["metric"], a["value"], b["value"], strict=True):
        assert S.nan_safe_equal(x, y, tol=1e-9), (label, x, y)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@settings(max_examples=hypothesis_examples(len(PARAMS)), deadline=None)
@given(data=st.data())
def test_invalid_values_are_the_same_parameter_error_on_both_engines(engine, data):
    spec, p = data.draw(st.sampled_from(PARAMS), label="parameter")
    bad = data.draw(p.constraint.invalid(), label=f"{spec.name} {p.name}")
    method = getattr(TABLE.rank_metrics, spec.name)
    with pytest.raises(ParameterError) as info:
        method(**{**S.required(spec), p.name: bad}, engine=engine)
    e = info.value
    assert type(e) is ParameterError
    assert (e.owner, e.parameter, e.expected) == (spec.name, p.name, p.expected())
    got = e.got.lower() if isinstance(e.got, str) else e.got
    assert got is bad or repr(got) == repr(bad.lower() if isinstance(bad, str) else bad)
    assert str(e).startswith(f"The {p.name!r} parameter of {spec.name} must be {p.expected()}. Got ")
    assert str(pickle.loads(pickle.dumps(e))) == str(e)


@pytest.mark.parametrize("spec,p", EVERY_PARAM, ids=lambda x: getattr(x, "name", None))
def test_every_valid_value_passes_and_every_invalid_one_is_refused(spec, p):
    """The strategies agree with the check: a few draws of each, no engine (fast)."""
    rule = p.constraint

    @settings(max_examples=hypothesis_examples(6), deadline=None)
    @given(good=rule.strategy(), bad=rule.invalid())
    def run(good, bad):
        rule.check(spec.name, p.name, good)
        with pytest.raises(ParameterError):
            rule.check(spec.name, p.name, bad)

    run()


def test_nan_and_a_huge_int_are_refused_by_every_number():
    for rule in (constraints.K, constraints.UNIT, constraints.BASE, constraints.Threshold()):
        for bad in (math.nan, 10**400, True):
            with pytest.raises(ParameterError):
                rule.check("m", "x", bad)

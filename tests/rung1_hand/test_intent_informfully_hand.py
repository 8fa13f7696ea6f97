"""Hand cases of alpha_nDCG(like='informfully'): Informfully's drop of featureless items, @k before the drop, NaN.

History genres {g1, g2} (item h); a = {g1}, b = {g1, g2}, c = a features row of value 0 (known, no genre), x = no
features row. Run [a, x, c, b]:
- Informfully drops x: [a, c, b], gains a = 1, c = 0, b = 0.5 (g1 seen once) + 1 (g2) = 1.5;
  DCG = 1 + 0 + 1.5 / log2(4) = 1.75, ideal [1.5, 1, 0] = 1.5 + 1 / log2(3); value 1.75 / (1.5 + 1 / log2(3)).
  (x kept with gain 0 would give (1 + 1.5 / log2(5)) / (1.5 + 1 / log2(3)) instead.)
- @3 cuts first: [a, x, c] -> [a, c], gains [1, 0]: DCG = ideal = 1, value 1.0 (dropping first would give the
  value above).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankframe
from rankframe.core.errors import ParameterError

FEATURES = pd.DataFrame(
    {
        "item": ["h", "h", "a", "b", "b", "c"],
        "feature": ["g1", "g2", "g1", "g1", "g2", "g1"],
        "value": [1, 1, 1, 1, 1, 0],
    }
)
TRAIN = pd.DataFrame({"query": ["u", "v"], "item": ["h", "c"]})  # v's history has no genre; w has no history
RUN = pd.DataFrame(
    {"query": ["u"] * 4 + ["v", "w"], "item": ["a", "x", "c", "b", "a", "a"], "rank": [1, 2, 3, 4, 1, 1]}
)


def values(metric: str) -> pd.Series:
    out = rankframe.evaluate(RUN, [metric], train=TRAIN, features=FEATURES, per_query=True)
    return out.set_index("query")["value"]


def test_featureless_item_dropped():
    expected = 1.75 / (1.5 + 1 / math.log2(3))
    assert abs(values("alpha_nDCG(like='informfully')")["u"] - expected) < 1e-12


def test_cutoff_before_the_drop():
    assert abs(values("alpha_nDCG(like='informfully')@3")["u"] - 1.0) < 1e-12


def test_no_history_genres_is_nan_and_left_out_of_means():
    got = values("alpha_nDCG(like='informfully')")
    assert math.isnan(got["v"]) and math.isnan(got["w"])
    mean = rankframe.evaluate(RUN, ["alpha_nDCG(like='informfully')"], train=TRAIN, features=FEATURES)
    assert mean["n"].tolist() == [1]


@pytest.mark.parametrize("missing", ["train", "features"])
def test_needs_train_and_features(missing):
    given = {"train": TRAIN, "features": FEATURES}
    del given[missing]
    with pytest.raises(ParameterError, match=f"needs {missing}="):
        rankframe.evaluate(RUN, ["alpha_nDCG(like='informfully')"], **given)


def test_only_alpha_ndcg_has_the_preset():
    with pytest.raises(ParameterError, match="like"):
        rankframe.evaluate(RUN, ["ERR_IA(like='informfully')"], train=TRAIN, features=FEATURES)


def test_rel_is_not_an_option_of_the_form():
    with pytest.raises(ParameterError, match="rel= is a grade threshold"):
        rankframe.evaluate(RUN, ["alpha_nDCG(like='informfully', rel=2)"], train=TRAIN, features=FEATURES)


def test_both_forms_in_one_call():
    """A subtopic-qrels measure and the recommender form each get their own value in one call.

    Run [a, x, b]; qrels: s1 = {a}, s2 = {b}: alpha_nDCG@3 = (1 + 1 / log2(4)) / (1 + 1 / log2(3)) (greedy ideal
    [a, b]); history genres {g1, g2}: x dropped, [a, b] with gains 1 and 1.5, value (1 + 1.5 / log2(3)) /
    (1.5 + 1 / log2(3)).
    """
    run = pd.DataFrame({"query": "u", "item": ["a", "x", "b"], "rank": [1, 2, 3]})
    qrels = pd.DataFrame({"query": "u", "subtopic": ["s1", "s2"], "item": ["a", "b"], "relevance": [1, 1]})
    out = rankframe.evaluate(
        run,
        ["alpha_nDCG@3", "alpha_nDCG(like='informfully')@3"],
        qrels=qrels,
        train=TRAIN,
        features=FEATURES,
        per_query=True,
    ).set_index("metric")["value"]
    log3 = math.log2(3)
    assert abs(out["alpha_nDCG@3"] - 1.5 / (1 + 1 / log3)) < 1e-12
    assert abs(out["alpha_nDCG(like='informfully')@3"] - (1 + 1.5 / log3) / (1.5 + 1 / log3)) < 1e-12

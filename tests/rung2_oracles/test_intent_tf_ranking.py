"""like='tf_ranking' against TF-Ranking's own metric tests.

Source: tensorflow/ranking, tensorflow_ranking/python/metrics_impl_test.py (PrecisionIAMetricTest, AlphaDCGMetricTest):
each case is a list of scores and, per item, one 0/1 label per subtopic; the expected values are copied with their
arithmetic as the test writes them. TF-Ranking sees only the list, so the tables here judge only the listed items.
Not reproduced: AlphaDCG's custom rank_discount_fn (not an option of rankframe) and the per-list weights.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankframe


def log2p1(x: float) -> float:
    return math.log2(1.0 + x)


def frames(scores: list[list[float]], labels: list[list[list[float]]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TF-Ranking's batch (one list per query) as a run and a subtopic qrels."""
    run, qrels = [], []
    for q, (list_scores, list_labels) in enumerate(zip(scores, labels)):
        for i, (score, per_subtopic) in enumerate(zip(list_scores, list_labels)):
            run.append((f"q{q}", f"i{i}", score))
            qrels.extend((f"q{q}", f"s{s}", f"i{i}", int(v)) for s, v in enumerate(per_subtopic))
    return (
        pd.DataFrame(run, columns=["query", "item", "score"]),
        pd.DataFrame(qrels, columns=["query", "subtopic", "item", "relevance"]),
    )


def values(metric: str, scores, labels) -> list[float]:
    run, qrels = frames(scores, labels)
    out = rankframe.evaluate(run, [metric], qrels=qrels, per_query=True)
    return out.sort_values("query")["value"].tolist()


PRECISION_IA = [
    # test_precisionia_should_be_single_value
    ("P_IA(like='tf_ranking')", [[1.0, 3.0, 2.0]], [[[0, 0], [1, 0], [0, 1]]], [2.0 / (2.0 * 3.0)]),
    # test_precisionia_should_handle_single_subtopic
    ("P_IA(like='tf_ranking')", [[1.0, 3.0, 2.0]], [[[0], [1], [0]]], [1.0 / (1.0 * 3.0)]),
    # test_precisionia_should_handle_multiple_subtopics
    (
        "P_IA(like='tf_ranking')",
        [[1.0, 3.0, 2.0]],
        [[[0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 1, 0]]],
        [7.0 / (4.0 * 3.0)],
    ),
    # test_precisionia_should_ignore_subtopics_without_rel
    ("P_IA(like='tf_ranking')", [[1.0, 3.0, 2.0, 4.0]], [[[0, 0], [0, 1], [0, 1], [0, 0]]], [2.0 / (1.0 * 4.0)]),
    # test_precisionia_should_be_single_value_per_list
    (
        "P_IA(like='tf_ranking')",
        [[1.0, 3.0, 2.0, 4.0], [4.0, 1.0, 3.0, 2.0]],
        [[[0, 0], [0, 0], [1, 1], [1, 0]], [[1, 0], [1, 1], [1, 0], [0, 1]]],
        [3.0 / (2.0 * 4.0), 5.0 / (2.0 * 4.0)],
    ),
]
TOPN_SCORES = [[3.0, 2.0, 1.0]] * 4
TOPN_LABELS = [
    [[1, 1], [0, 0], [1, 0]],
    [[0, 0], [0, 1], [1, 0]],
    [[0, 1], [0, 0], [1, 0]],
    [[1, 1], [1, 1], [1, 1]],
]
# test_precisionia_should_handle_topn: topn 1, 2 and 6 (6 > the list: divided by its 3 items)
PRECISION_IA += [
    ("P_IA(like='tf_ranking')@1", TOPN_SCORES, TOPN_LABELS, [2.0 / 2.0, 0.0 / 2.0, 1.0 / 2.0, 2.0 / 2.0]),
    ("P_IA(like='tf_ranking')@2", TOPN_SCORES, TOPN_LABELS, [2.0 / 4.0, 1.0 / 4.0, 1.0 / 4.0, 4.0 / 4.0]),
    ("P_IA(like='tf_ranking')@6", TOPN_SCORES, TOPN_LABELS, [3.0 / 6.0, 2.0 / 6.0, 2.0 / 6.0, 6.0 / 6.0]),
]
H = 1.0 - 0.5
ALPHA_DCG = [
    # test_alphadcg_should_be_single_value
    (
        "alpha_DCG(like='tf_ranking')",
        [[1.0, 3.0, 2.0]],
        [[[0, 0], [1, 0], [0, 1]]],
        [1.0 / log2p1(1.0) + 1.0 / log2p1(2.0)],
    ),
    # test_alphadcg_should_handle_single_subtopic
    ("alpha_DCG(like='tf_ranking')", [[1.0, 3.0, 2.0]], [[[0], [0], [1]]], [1.0 / log2p1(2.0)]),
    # test_alphadcg_should_handle_multiple_subtopics
    (
        "alpha_DCG(like='tf_ranking')",
        [[1.0, 3.0, 2.0]],
        [[[0, 1, 0, 0], [1, 1, 0, 1], [0, 1, 1, 0]]],
        [3.0 / log2p1(1.0) + H / log2p1(2.0) + 1.0 / log2p1(2.0) + H**2 / log2p1(3.0)],
    ),
    # test_alphadcg_should_be_single_value_per_list
    (
        "alpha_DCG(like='tf_ranking')",
        [[1.0, 3.0, 2.0, 4.0], [4.0, 1.0, 3.0, 2.0]],
        [[[0, 0], [0, 0], [1, 1], [1, 0]], [[1, 0], [1, 1], [1, 0], [0, 1]]],
        [
            1.0 / log2p1(1.0) + 1.0 / log2p1(3.0) + H / log2p1(3.0),
            1.0 / log2p1(1.0) + H / log2p1(2.0) + 1.0 / log2p1(3.0) + H / log2p1(4.0) + H**2 / log2p1(4.0),
        ],
    ),
    # test_alphadcg_should_handle_custom_alpha (alpha 0.2 and 0.95)
    *[
        (
            f"alpha_DCG(alpha={a}, like='tf_ranking')",
            [[1.0, 3.0, 2.0, 4.0]],
            [[[1, 1], [0, 1], [0, 1], [1, 0]]],
            [
                1.0 / log2p1(1.0)
                + 1.0 / log2p1(2.0)
                + (1 - a) / log2p1(3.0)
                + (1 - a) / log2p1(4.0)
                + (1 - a) ** 2 / log2p1(4.0)
            ],
        )
        for a in (0.2, 0.95)
    ],
    # test_alphadcg_should_handle_topn: topn 1, 2 and 6
    ("alpha_DCG(like='tf_ranking')@1", [[3.0, 2.0, 1.0, 4.0, 5.0]], [[[1, 0], [0, 0], [1, 0], [1, 1], [0, 1]]], [1.0]),
    (
        "alpha_DCG(like='tf_ranking')@2",
        [[3.0, 2.0, 1.0, 4.0, 5.0]],
        [[[1, 0], [0, 0], [1, 0], [1, 1], [0, 1]]],
        [1.0 / log2p1(1.0) + 1.0 / log2p1(2.0) + H / log2p1(2.0)],
    ),
    (
        "alpha_DCG(like='tf_ranking')@6",
        [[3.0, 2.0, 1.0, 4.0, 5.0]],
        [[[1, 0], [0, 0], [1, 0], [1, 1], [0, 1]]],
        [1.0 / log2p1(1.0) + 1.0 / log2p1(2.0) + H / log2p1(2.0) + H / log2p1(3.0) + H**2 / log2p1(5.0)],
    ),
]


@pytest.mark.parametrize(("metric", "scores", "labels", "expected"), PRECISION_IA + ALPHA_DCG)
def test_tf_ranking(metric, scores, labels, expected):
    assert values(metric, scores, labels) == pytest.approx(expected, abs=1e-12)


def test_no_relevant_item_is_zero():
    """test_precisionia_should_be_0_when_no_rel_items, test_alphadcg_should_be_0_when_no_rel_items: 0, which is
    rankframe's no_relevant='zero' (the policy decides: 'nan' gives NaN)."""
    labels = [[[0, 0], [0, 0], [0, 0]]]
    for metric in ("P_IA(like='tf_ranking')", "alpha_DCG(like='tf_ranking')"):
        assert values(metric, [[1.0, 3.0, 2.0]], labels) == [0.0]


def test_subtopics_of_the_list_only():
    """TF-Ranking knows only the list's labels: its S is the subtopics the listed items cover (hand case).

    i0 is relevant to s0, the unretrieved i9 to s1. Default P_IA@2 = 1 pair / (2 x 2 judged subtopics) = 1/4;
    like='tf_ranking' = 1 / (min(2, 2 items) x 1 subtopic of the list) = 1/2.
    """
    run = pd.DataFrame({"query": ["q", "q"], "item": ["i0", "i1"], "score": [1.0, 0.5]})
    qrels = pd.DataFrame({"query": ["q", "q"], "subtopic": ["s0", "s1"], "item": ["i0", "i9"], "relevance": [1, 1]})
    out = rankframe.evaluate(run, ["P_IA@2", "P_IA(like='tf_ranking')@2"], qrels=qrels)
    assert out["value"].tolist() == [0.25, 0.5]

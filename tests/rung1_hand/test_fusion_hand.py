"""rankframe.fuse on tiny runs whose fused scores and ranks are derived by hand (the derivation in comments)."""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe

# run a: x, y, z at ranks 1, 2, 3; run b: y, w, x at ranks 1, 2, 3 (one query)
TWO_RUNS = pd.DataFrame(
    {
        "system": ["a", "a", "a", "b", "b", "b"],
        "query": ["q1"] * 6,
        "item": ["x", "y", "z", "y", "w", "x"],
        "rank": [1, 2, 3, 1, 2, 3],
    }
)


def fused_rows(out: pd.DataFrame, name: str) -> list[tuple]:
    rows = out[out.system == name]
    return (
        list(zip(rows["item"], rows["score"].round(12), rows["rank"]))
        if "rank" in rows
        else list(zip(rows["item"], rows["score"].round(12)))
    )


def test_rrf_of_two_three_item_runs():
    # k = 60, 1-based ranks (Elasticsearch): x = 1/61 + 1/63, y = 1/62 + 1/61, w = 1/62, z = 1/63;
    # y > x because 1/62 > 1/63, and w > z
    before = TWO_RUNS.copy()
    out = rankframe.fuse(TWO_RUNS, "rrf")
    assert TWO_RUNS.equals(before)
    assert out.iloc[:6][list(TWO_RUNS.columns)].equals(TWO_RUNS) and out["score"].iloc[:6].isna().all()
    expected = [("y", 1 / 62 + 1 / 61, 1), ("x", 1 / 61 + 1 / 63, 2), ("w", 1 / 62, 3), ("z", 1 / 63, 4)]
    assert fused_rows(out, "rrf") == [(i, round(s, 12), r) for i, s, r in expected]


def test_rrf_qdrant_convention_and_depth():
    # k = 2, 0-based ranks (Qdrant): x = 1/2 + 1/4, y = 1/3 + 1/2, w = 1/3, z = 1/4
    out = rankframe.fuse(TWO_RUNS, "rrf", k=2, rank_base=0, name="qdrant")
    assert fused_rows(out, "qdrant") == [("y", round(5 / 6, 12), 1), ("x", 0.75, 2), ("w", round(1 / 3, 12), 3),
                                         ("z", 0.25, 4)]  # fmt: skip
    # depth=1 keeps x from a and y from b: both 1/61, the tie goes to the larger item id as a string (y)
    out = rankframe.fuse(TWO_RUNS, "rrf", depth=1)
    assert fused_rows(out, "rrf") == [("y", round(1 / 61, 12), 1), ("x", round(1 / 61, 12), 2)]


def test_bordafuse_gives_an_absent_item_the_mean_of_the_points_left():
    # N = 4 candidates (x, y, z, w). a: x 4, y 3, z 2, and w gets (4 - 3 + 1) / 2 = 1;
    # b: y 4, w 3, x 2, and z gets 1. x = 6, y = 7, z = 3, w = 4
    out = rankframe.fuse(TWO_RUNS, "bordafuse")
    assert fused_rows(out, "bordafuse") == [("y", 7.0, 1), ("x", 6.0, 2), ("w", 4.0, 3), ("z", 3.0, 4)]


def test_combmnz_min_max_ties_and_a_query_missing_from_one_run():
    # q1: a scores x 3, y 2, z 1 -> min-max 1, 0.5, 0; b scores y 10, w 5 -> 1, 0.
    #   CombMNZ: y = (0.5 + 1) * 2 = 3, x = 1 * 1 = 1, z = 0 * 1 = 0, w = 0 * 1 = 0; z and w tie: z first (z > w)
    # q2: only a has it (v 4, u 4: tied, min-max denominator 0 -> both 0): b is an empty run there
    runs = pd.DataFrame(
        {
            "system": ["a", "a", "a", "b", "b", "a", "a"],
            "query": ["q1", "q1", "q1", "q1", "q1", "q2", "q2"],
            "item": ["x", "y", "z", "y", "w", "u", "v"],
            "score": [3.0, 2.0, 1.0, 10.0, 5.0, 4.0, 4.0],
        }
    )
    out = rankframe.fuse(runs, "combmnz", norm="min-max")
    assert "rank" not in out.columns  # the input has none: the fused score orders the run
    rows = out[out.system == "combmnz"]
    assert list(zip(rows["query"], rows["item"], rows["score"])) == [
        ("q1", "y", 3.0), ("q1", "x", 1.0), ("q1", "z", 0.0), ("q1", "w", 0.0), ("q2", "v", 0.0), ("q2", "u", 0.0)
    ]  # fmt: skip


def test_tied_input_scores_take_rankframes_order_and_judgments_are_carried():
    # a: x and y tie at 1.0 -> y (larger id) is rank 1, x rank 2; b: x alone, rank 1.
    # RRF k=0: x = 1/2 + 1/1 = 1.5, y = 1/1 = 1. The judged item j is retrieved by no run: a row with no score.
    runs = pd.DataFrame(
        {
            "system": ["a", "a", "b", "a", "b"],
            "query": ["q"] * 5,
            "item": ["x", "y", "x", "j", "j"],
            "score": [1.0, 1.0, 5.0, None, None],
            "relevance": [1.0, None, 1.0, 2.0, 2.0],
            "segment": ["s"] * 5,
        }
    )
    out = rankframe.fuse(runs, "rrf", k=0)
    rows = out[out.system == "rrf"]
    assert list(rows["item"]) == ["x", "y", "j"]
    assert rows["score"].tolist()[:2] == [1.5, 1.0] and pd.isna(rows["score"].iloc[2])
    assert rows["relevance"].tolist()[0] == 1.0 and pd.isna(rows["relevance"].iloc[1])
    assert rows["relevance"].iloc[2] == 2.0 and set(rows["segment"]) == {"s"}
    means = rankframe.evaluate(out, ["RR"], by="system")
    assert means.set_index("system").loc["rrf", "value"] == 1.0


@pytest.mark.parametrize("face", ["accessor", "polars"])
def test_the_accessor_and_polars_faces_give_the_same_rows(face):
    expected = rankframe.fuse(TWO_RUNS, "rrf")
    if face == "accessor":
        got = TWO_RUNS.rank_metrics.fuse("rrf")
    else:
        pl = pytest.importorskip("polars")
        got = pl.from_pandas(TWO_RUNS).rank_metrics.fuse("rrf").to_pandas()
    assert got["score"].tolist()[6:] == expected["score"].tolist()[6:]
    assert got["item"].tolist() == expected["item"].tolist()


@pytest.mark.parametrize("key", ["methods", "norms", "training"])
def test_the_docs_tables_are_the_declarations(key):
    from pathlib import Path

    from rankframe.fusion import methods_markdown, norms_markdown, training_markdown

    doc = (Path(__file__).resolve().parents[2] / "docs" / "fusion.md").read_text()
    table = doc.split(f"<!-- {key}:start -->")[1].split(f"<!-- {key}:end -->")[0].strip()
    assert table == {"methods": methods_markdown, "norms": norms_markdown, "training": training_markdown}[key]()

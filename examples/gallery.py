"""Realistic data for the pictures, and the gallery drawn from it (``docs/gallery.md``, ``docs/images/*.png``).

    python examples/gallery.py [OUT_DIR]      # writes docs/images/gallery-*.png

:func:`make_runs` builds what analysts actually have, deterministically from a seed with numpy (no data file):
6 systems with long names, 4 segments with long names and very unequal sizes (the smallest holds about 1% of the
queries), 3,000 queries, runs up to 100 deep (one system stops at 20), graded judgments. The image tests in
``tests/pictures/test_realistic_pictures.py`` call it with fewer queries to stay fast.

How it is drawn: each query has a pool of 150 items with graded relevance (0-3; few relevant, more for broad
queries); each system scores every pool item as ``quality * grade + difficulty noise`` and keeps its top ``depth``.
A better system separates the grades more; every system sees the same pool, so the judgments agree across systems.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "docs" / "images"

#: (name, quality, depth): long names as papers and dashboards write them
SYSTEMS = (
    ("BM25 (Anserini defaults, k1=0.9, b=0.4)", 0.50, 100),
    ("BM25 + RM3 pseudo-relevance feedback", 0.52, 100),
    ("SPLADE++ ensemble distil (sparse learned)", 0.60, 100),
    ("dense bi-encoder (contriever-msmarco)", 0.57, 100),
    ("monoT5-3B reranker over BM25 top-20", 0.68, 20),
    ("hybrid: reciprocal rank fusion of all first stages", 0.62, 100),
)
#: (segment name, share of the queries): one segment is small (about 1%)
SEGMENTS = (
    ("informational questions in natural language", 0.55),
    ("navigational: one known page or entity", 0.30),
    ("transactional / product and price queries", 0.14),
    ("rare-entity tail queries (under 10 a month)", 0.01),
)
POOL = 150


def make_runs(n_queries: int = 3000, *, seed: int = 20240601, pool: int = POOL) -> pd.DataFrame:
    """A long ranking table ``[system, query, segment, item, rank, relevance]`` (relevance 0-3, NaN unjudged).

    Deterministic for a seed; vectorized (no loop per query). ``n_queries=3000`` gives about 1.6 million rows.

    >>> runs = make_runs(40)
    >>> runs["system"].nunique(), runs["query"].nunique(), runs["segment"].nunique() <= 4
    (6, 40, True)
    >>> int(runs.groupby(["system", "query"]).size().max())
    100
    """
    if n_queries < 4:
        raise ValueError("make_runs needs at least 4 queries (one per segment)")
    rng = np.random.default_rng(seed)
    shares = np.array([s for _, s in SEGMENTS])
    # every segment gets at least one query, the rest by share
    counts = np.maximum(1, np.floor(shares * n_queries).astype(int))
    counts[0] += n_queries - counts.sum()
    segment = np.repeat(np.arange(len(SEGMENTS)), counts)
    rng.shuffle(segment)
    # graded relevance of each pool item: most 0, a few 1-3; broad (informational) queries have more relevant
    breadth = np.array([0.10, 0.03, 0.06, 0.04])[segment][:, None]
    u = rng.random((n_queries, pool))
    grade = np.where(u < breadth * 0.25, 3, np.where(u < breadth * 0.6, 2, np.where(u < breadth, 1, 0)))
    difficulty = rng.gamma(2.0, 0.9, size=(n_queries, 1)) * np.array([1.0, 0.6, 1.2, 1.8])[segment][:, None]
    frames = []
    for s, (name, quality, depth) in enumerate(SYSTEMS):  # one pass per system (6), vectorized over queries
        noise = rng.normal(0.0, 1.0, size=(n_queries, pool)) * difficulty
        score = quality * grade + noise
        top = np.argsort(-score, axis=1, kind="stable")[:, :depth]
        g = np.take_along_axis(grade, top, axis=1)
        frames.append(
            pd.DataFrame(
                {
                    "system": name,
                    "query": np.repeat(np.arange(n_queries), depth),
                    "segment": np.repeat(segment, depth),
                    "item": top.ravel(),
                    "rank": np.tile(np.arange(1, depth + 1), n_queries),
                    "relevance": g.ravel().astype(float),
                }
            )
        )
    runs = pd.concat(frames, ignore_index=True)
    runs["query"] = pd.Series([f"q{i:05d}" for i in range(n_queries)])[runs["query"].to_numpy()].to_numpy()
    runs["segment"] = np.array([n for n, _ in SEGMENTS], dtype=object)[runs["segment"].to_numpy()]
    runs["item"] = "d" + runs["item"].astype(str)
    return runs.astype({"system": "string", "query": "string", "segment": "string", "item": "string"})


def system_names() -> list[str]:
    """The systems in the order of :data:`SYSTEMS` (the first is the baseline of the gallery's comparisons)."""
    return [name for name, _, _ in SYSTEMS]


def main(out_dir: Path = OUT, n_queries: int = 3000) -> list[Path]:
    """Draw every plot kind on :func:`make_runs` data into ``out_dir`` (the gallery's PNGs); return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import rankframe

    out_dir.mkdir(parents=True, exist_ok=True)
    runs = make_runs(n_queries)
    order = system_names()
    base = order[0]
    written = []

    def save(ax, name: str) -> None:
        fig = (ax.flat[0] if isinstance(ax, np.ndarray) else ax).figure
        path = out_dir / f"gallery-{name}.png"
        fig.savefig(path, dpi=90, metadata={"Software": None})
        plt.close(fig)
        written.append(path)

    # --- the calls docs/gallery.md shows
    out = rankframe.compare(runs, ["nDCG@10", "AP"], baseline=base, by="segment")
    save(rankframe.plot.forest(out, "nDCG@10", order=order), "forest")
    save(rankframe.plot.at_k(runs, "nDCG", [1, 2, 3, 5, 10, 20, 50, 100], ci=0.95, order=order), "at_k")
    save(rankframe.plot.pr_curve(runs, order=order), "pr_curve")
    save(rankframe.plot.distribution(runs, "AP", order=order), "distribution")
    save(rankframe.plot.distribution(runs, "AP", by="segment", order=order), "distribution_by_segment")
    save(rankframe.plot.differences(runs, "AP", system=order[2], baseline=base), "differences")
    save(rankframe.plot.differences(runs, "AP", system=order[2], baseline=base, by="segment"), "differences_by")
    with plt.style.context("dark_background"):
        save(rankframe.plot.forest(out, "AP", order=order), "forest_dark")
    save(rankframe.plot.at_k(runs, "nDCG", [1, 5, 10, 20, 50, 100], by=["segment", "system"], order=order), "at_k_by")
    # a paper's 2 x 3 panel: six plots composed with ax=
    fig, axes = plt.subplots(2, 3, figsize=(18, 8.5), layout="constrained")
    rankframe.plot.at_k(runs, "nDCG", ci=0.95, order=order, ax=axes[0, 0])
    rankframe.plot.forest(out, "nDCG@10", order=order, ax=axes[0, 1])
    rankframe.plot.forest(out, "AP", order=order, ax=axes[0, 2])
    rankframe.plot.differences(runs, "AP", system=order[2], baseline=base, ax=axes[1, 0])
    rankframe.plot.distribution(runs, "AP", order=order, ax=axes[1, 1])
    rankframe.plot.pr_curve(runs, order=order, ax=axes[1, 2])
    save(axes, "panel")
    # ---
    return written


if __name__ == "__main__":
    for p in main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(p, p.stat().st_size)

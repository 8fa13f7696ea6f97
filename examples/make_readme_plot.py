"""Draw the README's picture, ``docs/img/forest.png``: per-segment nDCG@5 differences with their intervals.

    python examples/make_readme_plot.py [OUT.png]

The two lines that matter are the ones the README shows (``compare`` then ``rankframe.plot.forest``); the rest
sizes and saves the figure. Deterministic: the bundled ``paired.parquet``, no randomness, no time stamp in the PNG.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

import rankframe  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "docs" / "img" / "forest.png"
SIZE, DPI = (6.4, 3.2), 120


def main(out: Path = OUT) -> Path:
    runs = pd.read_parquet(HERE / "paired.parquet")
    # --- the README's two lines
    out_frame = rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")
    ax = rankframe.plot.forest(out_frame, "nDCG@5")
    # ---
    ax.set_title("nDCG@5 against bm25, per query length", fontsize="medium")
    ax.figure.set_size_inches(*SIZE)
    ax.figure.savefig(out, dpi=DPI, metadata={"Software": None})
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))

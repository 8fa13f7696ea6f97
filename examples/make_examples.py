"""Write the bundled example data deterministically (run from anywhere: ``python examples/make_examples.py``).

- ``recs.parquet``: a synthetic recommendation log in rankframe's long format. 300 users (``query``), each
  shown one top-20 list (``rank`` 1..20) by one of two recommender models in an A/B test (``model`` =
  baseline / candidate, half the users each), with
  graded relevance 0..3 (``relevance``; null = the user never rated the item), segment columns ``country``
  and ``device``, and judged-but-not-shown rows (``rank`` null: rated items the model did not show).
- ``tiny.run`` / ``tiny.qrels``: three queries in TREC format (``qid Q0 docno rank score tag`` and
  ``qid 0 docno relevance``), with zero-padded ids, a score tie and a judged-but-unretrieved document.
- ``tiny-b.run``: a second run on the same queries, to evaluate side by side.

Everything comes from ``numpy.random.default_rng(20240607)``: the same files on every machine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
SEED = 20240607
N_USERS, POOL, DEPTH = 300, 60, 20
COUNTRIES = ["de", "fr", "us", "br"]
DEVICES = ["mobile", "desktop"]
MODELS = {"baseline": 1.0, "candidate": 1.6}  # how strongly each model's score follows the true grade


def recs() -> pd.DataFrame:
    """Build the synthetic recommendation log."""
    rng = np.random.default_rng(SEED)
    rows = []
    for u in range(N_USERS):
        user = f"u{u:04d}"
        country = COUNTRIES[rng.choice(4, p=[0.35, 0.25, 0.3, 0.1])]
        device = DEVICES[int(rng.random() < 0.4)]
        items = rng.choice(5000, size=POOL, replace=False)
        grade = rng.choice(4, size=POOL, p=[0.55, 0.25, 0.13, 0.07])
        rated = rng.random(POOL) < (0.75 if device == "desktop" else 0.55)
        noise = rng.normal(size=POOL)
        model = list(MODELS)[int(rng.random() < 0.5)]
        for skill in [MODELS[model]]:
            score = skill * grade + 1.5 * noise
            order = np.argsort(-score, kind="stable")
            shown = set(order[:DEPTH].tolist())
            for pos, i in enumerate(order[:DEPTH], start=1):
                rows.append(
                    (user, f"i{items[i]:05d}", pos, float(grade[i]) if rated[i] else None, country, device, model)
                )
            for i in range(POOL):  # rated items the model did not show: judged, not retrieved
                if i not in shown and rated[i] and grade[i] > 0:
                    rows.append((user, f"i{items[i]:05d}", None, float(grade[i]), country, device, model))
    df = pd.DataFrame(rows, columns=["query", "item", "rank", "relevance", "country", "device", "model"])
    return df.astype({"rank": "Int64", "relevance": "Float64"})


TINY_QRELS = """\
# tiny.qrels: qid iteration docno relevance (graded 0..2)
001 0 D01 2
001 0 D02 0
001 0 D03 1
001 0 D07 1
002 0 D11 0
002 0 D12 1
002 0 D19 2
003 0 D21 0
003 0 D22 0
"""

TINY_RUN = """\
# tiny.run: qid Q0 docno rank score tag
001 Q0 D03 1 9.5 tiny
001 Q0 D01 2 9.1 tiny
001 Q0 D05 3 8.0 tiny
001 Q0 D02 4 8.0 tiny
001 Q0 D04 5 7.2 tiny
002 Q0 D12 1 3.3 tiny
002 Q0 D11 2 2.9 tiny
002 Q0 D13 3 1.0 tiny
003 Q0 D21 1 0.7 tiny
003 Q0 D23 2 0.5 tiny
"""

TINY_B_RUN = """\
001 Q0 D01 1 0.91 tiny-b
001 Q0 D07 2 0.85 tiny-b
001 Q0 D03 3 0.60 tiny-b
002 Q0 D19 1 0.77 tiny-b
002 Q0 D12 2 0.52 tiny-b
003 Q0 D22 1 0.40 tiny-b
"""


def main() -> None:
    """Write every example file next to this script."""
    table = pa.Table.from_pandas(recs(), preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, HERE / "recs.parquet", compression="zstd")
    (HERE / "tiny.qrels").write_text(TINY_QRELS)
    (HERE / "tiny.run").write_text(TINY_RUN)
    (HERE / "tiny-b.run").write_text(TINY_B_RUN)


if __name__ == "__main__":
    main()

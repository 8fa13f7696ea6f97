"""Published fixtures of the beyond-accuracy peers, shared by the oracle tests of several metrics (ILD, Serendipity).

Import as ``from beyond_data import MS, ms_data`` (tests/ is on the path: tests/conftest.py).
"""

from __future__ import annotations

import pandas as pd

#: the column names of Microsoft Recommenders' fixtures
MS = {"query": "UserId", "item": "ItemId", "relevance": "Relevance"}


def ms_data() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(train, recommendations with relevance and rank, item features) of Microsoft Recommenders' diversity data."""
    # recommenders-team/recommenders tests/unit/recommenders/evaluation/conftest.py, fixture diversity_data
    train = pd.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
    reco = pd.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2], "Relevance": [1, 0, 1, 1, 1, 0]})
    reco["rank"] = reco.groupby("UserId").cumcount() + 1
    vectors = {1: [0, 1, 1, 0, 0], 2: [0, 1, 0, 1, 0], 3: [0, 0, 1, 1, 0], 4: [0, 0, 1, 0, 1], 5: [0, 0, 0, 1, 1]}
    features = pd.DataFrame(
        [(i, f, float(v)) for i, vec in vectors.items() for f, v in enumerate(vec) if v],
        columns=["ItemId", "feature", "value"],
    )
    return train, reco, features

"""ILD@k, intra-list diversity: the mean distance (or similarity) of every pair of items in each top k (Ziegler 2005).

Never built pair by pair from vectors. With unit vectors u_i (``similarity='cosine'``), the sum over the pairs
i < j of a list L of u_i . u_j is (||sum_{i in L} u_i||² - sum_{i in L} ||u_i||²) / 2: one GROUP BY (list,
dimension). With ``'hamming'`` (raw values), the pairs that differ on dimension f are all pairs but those with the
same value: C(n, 2) - sum_v C(c_fv, 2), with c_fv the list's items of value v on f (the items without a row on f
have value 0) — one GROUP BY (list, dimension, value). O(rows x features per item) time and memory. With
``'cooccurrence'`` a vector has one entry per train query of its item, so that GROUP BY would cost the items'
popularity: each pair's cosine is looked up in the co-occurrence counts of ``train=`` instead
(``rankframe.beyond.similarity``; ``rf__beyond_cooccurrence`` in the SQL): rows x (k - 1) / 2 look-ups.

Examples
--------
>>> import pandas as pd
>>> import rankframe
>>> recs = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["a", "b", "a", "c"], "rank": [1, 2, 1, 2]})
>>> features = pd.DataFrame({"item": ["a", "b", "c"], "feature": ["x", "x", "y"]})
>>> rankframe.evaluate(recs, "ILD@2", features=features, per_query=True)["value"].tolist()  # same, disjoint
[0.0, 1.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.declare import Param, k_param
from ..core.errors import ParameterError
from .declare import BeyondSpec, like_param
from .lists import Lists, gather
from .similarity import READS, chunks, cooccurrence, item_vectors, known_items

PRESETS = {
    # Microsoft Recommenders user_diversity/diversity (recommenders/evaluation/python_evaluation.py): 1 - the mean
    # cosine similarity of the list's pairs, item_sim_measure='item_cooccurrence_count' (train), a pair without a
    # similarity filled with 0, users without a pair absent from the mean, whole lists
    "recommenders": {
        "similarity": "cooccurrence",
        "output": "distance",
        "unknown": "zero",
        "single_item": "nan",
        "pair_denominator": "pairs",
    },
    # RecTools IntraListDiversity with PairwiseHammingDistanceCalculator: the mean Hamming distance of the top k's
    # pairs, a pair with an item without features NaN and left out of the mean (all of a list's pairs NaN: NaN), a
    # list of one row 0
    "rectools": {
        "similarity": "hamming",
        "output": "distance",
        "unknown": "drop",
        "single_item": "zero_if_one_row",
        "pair_denominator": "pairs",
    },
    # Evidently DiversityMetric: the sum of the cosine distances of the top k's pairs divided by the list's length
    # (not its pairs), a list of one item 0
    "evidently": {
        "similarity": "cosine",
        "output": "distance",
        "unknown": "drop",
        "single_item": "zero",
        "pair_denominator": "items",
    },
    # LensKit ILS: the mean cosine similarity of the unit-normalized attribute vectors of the top k's pairs, items
    # outside the vocabulary dropped, one item left 1.0, none NaN
    "lenskit": {
        "similarity": "cosine",
        "output": "similarity",
        "unknown": "drop",
        "single_item": "one",
        "pair_denominator": "pairs",
    },
}

SPEC = BeyondSpec(
    name="ild",
    canonical="ILD",
    better_when=(("output", "similarity", "lower"),),
    better_why="diversity within a list; output='similarity' reports the intra-list similarity, lower is better",
    aliases=("intra_list_diversity", "diversity"),
    summary="mean pairwise distance (or similarity) of the items of each top k, from features= or train=",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "similarity",
            "cosine",
            "'cosine' of the items' features= vectors (Ziegler's ILD; Microsoft Recommenders' item_feature_vector), "
            "'cooccurrence' = the cosine of the items' train= query sets (Microsoft Recommenders' default), "
            "'hamming' = the number of features= coordinates on which two items differ (RecTools)",
            choices=tuple(READS),
        ),
        Param(
            "output",
            "distance",
            "'distance' = the mean pairwise distance (1 - cosine; the Hamming count), 'similarity' = the mean "
            "pairwise cosine (intra-list similarity; not for 'hamming')",
            choices=("distance", "similarity"),
        ),
        Param(
            "unknown",
            "drop",
            "an item without a row in the input its similarity reads: 'drop' = left out of the list's pairs, "
            "'zero' = the zero vector (cosine 0 with every item: Microsoft Recommenders; all features 0 for hamming)",
            choices=("drop", "zero"),
        ),
        Param(
            "single_item",
            "nan",
            "a list with one counted item has no pair: 'nan' = no value (left out of the mean; Microsoft "
            "Recommenders), 'zero' = 0 (Evidently), 'one' = 1 (LensKit's ILS), 'zero_if_one_row' = 0 when the top k "
            "has one row, known or not, and NaN for a longer list without a counted pair (RecTools)",
            choices=("nan", "zero", "one", "zero_if_one_row"),
        ),
        Param(
            "pair_denominator",
            "pairs",
            "divide the sum over a list's pairs by 'pairs' = their number (the mean pairwise value) or 'items' = "
            "the counted items (Evidently's diversity)",
            choices=("pairs", "items"),
        ),
    ),
    bounded=False,
    level="list",
    needs_when=tuple((("similarity", s, needed) for s, needed in READS.items())),
    presets=PRESETS,
    order=2130,
    lists_macro="rf__ild_lists",
)


def check_rules(*, similarity: str, output: str, **_: object) -> None:
    """The rules between the options (every face calls it): a Hamming count has no similarity."""
    if similarity == "hamming" and output == "similarity":
        raise ParameterError(
            "ILD(similarity='hamming') is a count of differing features, a distance: output='similarity' does not "
            "apply (use similarity='cosine' for a similarity)",
            owner="ILD",
            parameter="output",
        )


def compute(lists: Lists, *, k, similarity, output, unknown, single_item, pair_denominator, like) -> np.ndarray:
    """One value per list; NaN without a counted item (and with one, for ``single_item='nan'``)."""
    check_rules(similarity=similarity, output=output)
    top = lists.cut(k)
    known = known_items(lists, similarity)
    counted = np.ones(len(top.item), dtype=bool) if unknown == "zero" else known[top.item]
    unit, item = top.unit[counted], top.item[counted]
    n = np.bincount(unit, minlength=top.n_units).astype(np.float64)
    pairs = n * (n - 1) / 2
    if similarity == "cooccurrence":
        similar = _cooccurrence_pairs(lists, unit, item, top.n_units)
        total = (pairs - similar if output == "distance" else similar).astype(np.float64)
    elif similarity == "hamming":
        vec = item_vectors(lists, similarity)
        entry, row = gather(vec.starts, vec.counts, item)
        dims = np.int64(max(vec.n_dims, 1))
        value = vec.value[entry]
        nonzero = value != 0
        entry, row, value = entry[nonzero], row[nonzero], value[nonzero]
        cell_codes, cells = _codes(unit[row] * dims + vec.dim[entry])  # (list, dimension) with a nonzero value
        nonzeros = np.bincount(cell_codes, minlength=len(cells)).astype(np.float64)
        _, value_codes = np.unique(value, return_inverse=True)
        n_values = np.int64(int(value_codes.max(initial=0)) + 1)
        pair_codes, cell_values = _codes(cell_codes * n_values + value_codes)
        same = np.bincount(pair_codes, minlength=len(cell_values)).astype(np.float64)
        same_pairs = np.bincount(cell_values // n_values, weights=same * (same - 1) / 2, minlength=len(cells))
        cell_unit = cells // dims
        zeros = n[cell_unit] - nonzeros
        differ = pairs[cell_unit] - zeros * (zeros - 1) / 2 - same_pairs
        total = np.bincount(cell_unit, weights=differ, minlength=top.n_units).astype(np.float64)
    else:
        vec = item_vectors(lists, similarity)
        entry, row = gather(vec.starts, vec.counts, item)
        dims = np.int64(max(vec.n_dims, 1))
        codes, cells = _codes(unit[row] * dims + vec.dim[entry])
        sums = np.bincount(codes, weights=vec.value[entry], minlength=len(cells))
        squares = np.bincount(cells // dims, weights=sums * sums, minlength=top.n_units)
        self_terms = np.bincount(unit, weights=vec.norm2[item], minlength=top.n_units)
        similar = (squares - self_terms) / 2  # the sum of the pairs' cosines
        total = (pairs - similar if output == "distance" else similar).astype(np.float64)
    divisor = pairs if pair_denominator == "pairs" else n
    out = np.where(pairs > 0, total / np.where(pairs > 0, divisor, 1), np.nan)
    if single_item in ("zero", "one"):
        out = np.where(n == 1, 0.0 if single_item == "zero" else 1.0, out)
    elif single_item == "zero_if_one_row":
        out = np.where(np.bincount(top.unit, minlength=top.n_units) == 1, 0.0, out)
    return out


def _cooccurrence_pairs(lists: Lists, unit: np.ndarray, item: np.ndarray, n_units: int) -> np.ndarray:
    """The sum over each list's pairs of rows of their co-occurrence cosine, looked up in the Gram matrix.

    The lists of each length n are a matrix of n columns, its pairs of columns the upper triangle: rows x (n - 1) / 2
    look-ups, whatever the items' popularity (the vectors' GROUP BY would cost their train queries). A loop per
    distinct length and chunk of pairs (memory), never per list.
    """
    gram = cooccurrence(lists, "ILD")
    code = gram.code[item]
    trained = code >= 0  # an item without a train query has cosine 0 with every item: no pair of it is looked up
    unit, code = unit[trained], code[trained]
    order = np.argsort(unit, kind="stable")
    code = code[order]
    n = np.bincount(unit, minlength=n_units)
    first = np.cumsum(n) - n
    similar = np.zeros(n_units)
    for length in np.unique(n[n > 1]).tolist():
        units = np.flatnonzero(n == length)
        left, right = np.triu_indices(length, 1)
        for start, stop in chunks(np.full(len(units), len(left))):
            rows = np.sort(code[first[units[start:stop], None] + np.arange(length)], axis=1)  # (lists, length)
            similar[units[start:stop]] = gram.pair_sums(rows, left, right)
    return similar


def _codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes of int64 keys and the distinct keys (a hash, no sort of every row)."""
    codes, uniques = pd.factorize(keys, sort=False)
    return codes, np.asarray(uniques, dtype=np.int64)


def portable(b, i, *, k, similarity, output, unknown, single_item, pair_denominator, like):
    """ILD in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (per-list CTE, state, raw).

    The per-list CTE holds (unit..., rf__n, rf__a, rf__b). Every sum comes from one GROUP BY over a UNION ALL (no
    join on segment values): cosine's pair sum is (sum over dimensions of s² - sum of ||u||²) / 2 with rf__a = that
    total; Hamming's differing pairs are n * A - B with A = sum_d nz_d and B = sum_d (nz_d² + nz_d) / 2 + sum_d
    sum_v C(c_v, 2) (the expansion of sum_d [C(n, 2) - C(n - nz_d, 2) - sum_v C(c_v, 2)]).
    """
    check_rules(similarity=similarity, output=output)
    vec, known = b.vectors(similarity)
    unit_cols = [*b.grp, "rf__q"]
    unit = ", ".join(unit_cols)
    rows = f"rf__bildrows{i}"
    counted = "" if unknown == "zero" else " AND kn.rf__kitem IS NOT NULL"
    b.ctes[rows] = (
        f"SELECT {', '.join(f'r.{c}' for c in unit_cols)}, r.rf__item FROM rf__bpos AS r LEFT JOIN {known} AS kn "
        f"ON r.rf__item = kn.rf__kitem WHERE r.{b.top(k)}{counted}"
    )
    joined = f"{rows} AS r JOIN {vec} AS v ON r.rf__item = v.rf__vitem"
    runit = ", ".join(f"r.{c}" for c in unit_cols)
    f, null = b.f, b.null()
    if similarity == "hamming":
        cells = f"rf__bildcells{i}"
        b.ctes[cells] = (
            f"SELECT {runit}, v.rf__dim, {f('COUNT(*)')} AS rf__c FROM {joined} WHERE v.rf__u <> 0 "
            f"GROUP BY {runit}, v.rf__dim, v.rf__u"
        )
        dims = (
            f"SELECT {unit}, SUM(rf__c) AS rf__a, SUM(rf__c) * SUM(rf__c) / 2 + SUM(rf__c) / 2 "
            f"+ SUM(rf__c * (rf__c - 1) / 2) AS rf__b FROM {cells} GROUP BY {unit}, rf__dim"
        )
    else:
        dims = (
            f"SELECT {runit}, SUM(v.rf__u) * SUM(v.rf__u) - SUM(v.rf__u * v.rf__u) AS rf__a, "
            f"{null} AS rf__b FROM {joined} GROUP BY {runit}, v.rf__dim"
        )
    # rf__n = the counted items, rf__r = every top-k row (single_item='zero_if_one_row')
    per = b.per_list(
        i,
        "SUM(rf__one_n) AS rf__n, SUM(rf__a) AS rf__a, SUM(rf__b) AS rf__b, SUM(rf__one_r) AS rf__r",
        [
            (f"{f('1')} AS rf__one_n, {null} AS rf__a, {null} AS rf__b, {f('0')} AS rf__one_r", rows),
            (f"{f('0')}, rf__a, rf__b, {f('0')}", f"({dims}) AS d"),
            (f"{f('0')}, {null}, {null}, {f('1')}", f"rf__bpos WHERE {b.top(k)}"),
        ],
        f"{f('0')}, {null}, {null}, {f('0')}",
    )
    pairs = "(rf__n * (rf__n - 1) / 2)"
    if similarity == "hamming":  # the pairs' sum: differing coordinates, cosines, or pairs - cosines
        total = "(rf__n * COALESCE(rf__a, 0) - COALESCE(rf__b, 0))"
    elif output == "similarity":
        total = "(COALESCE(rf__a, 0) / 2)"
    else:
        total = f"({pairs} - COALESCE(rf__a, 0) / 2)"
    value = f"{total} / {pairs if pair_denominator == 'pairs' else 'rf__n'}"
    # (condition, value) of the lists without a pair that still have one
    fixed = []
    if single_item == "zero_if_one_row":
        fixed.append(("rf__r = 1", f("0")))
    fixed.append(("rf__n >= 2", value))
    if single_item in ("zero", "one"):
        fixed.append(("rf__n = 1", f("0" if single_item == "zero" else "1")))
    state = "CASE " + " ".join(f"WHEN {c} THEN 0" for c, _ in fixed) + " ELSE 2 END"
    raw = "CASE " + " ".join(f"WHEN {c} THEN {v}" for c, v in fixed) + f" ELSE {null} END"
    return per, state, raw

"""The beyond-accuracy metrics in the portable SQL: the set-level ones, ARP, APLT, Novelty, ILD and Calibration.

Serendipity is written on this module's builder by :mod:`rankframe.portable.serendipity`.

The flat window-and-aggregate logic of ``sql/<name>.sql`` (the DuckDB table macros), written once more without
macros, lambdas, ``COLUMNS(*)`` or ``GROUP BY ALL``, as PostgreSQL-flavoured text that
:func:`rankframe.portable.render.finish` writes in the target dialect. The options are the declarations' (presets
resolved in Python by the metric parser: ``m.kw``); the rules between options are the declarations' functions.

The CTEs (all named ``rf__b...``): ``rf__bsrc`` reads the ranking table's segments, query, item and ordering key;
``rf__bpos`` numbers the retrieved rows (a NULL rank or score is filtered out before the window and put back with a
NULL position); ``rf__bunits`` holds every unit (segments..., query) once. ``rf__btrain`` / ``rf__bitems`` read
``train=`` (popularity per item), ``rf__bcat`` the catalog. Each metric then adds its own CTEs, suffixed by its
index in the statement. Every segment's row is a GROUP BY over a UNION ALL of the metric's contributions and one
row per unit (its ``n``), so no join on segment values (NULL segments included) is ever needed.

Item ids are joined as they are (a catalog or train whose ids have another type than the table's is the
warehouse's error, or no match: render cannot look at the data; ``docs/warehouse.md``). Orders that need an item
tie-break (APLT's bottom tail, ties by item id as ``rankframe.beyond.aplt``) use the item column's own order.

One job: the beyond-accuracy part of one statement, built by one CTE builder whose metrics share its input CTEs
(``rf__btrain``, ``rf__bfeat``, ``rf__bunits``, the shares of Calibration), each metric one method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..beyond.declare import BeyondSpec
from ..beyond.ild import check_rules as ild_rules
from ..beyond.novelty import check_rules as novelty_rules
from ..beyond.personalization import check_rules as personalization_rules
from ..names import Measure
from . import serendipity
from .terms import FLOAT, Terms, literal, not_portable


@dataclass(frozen=True)
class Sources:
    """What the statement reads, already quoted: the tables and the ranking table's columns."""

    table: str  # the ranking table
    select_keys: str  # '"seg" AS rf__s0, ' ... (empty without segments)
    query: str
    item: str
    key: str  # the rank or score column
    ranking: str  # 'PARTITION BY {unit} ORDER BY ...' (rankframe's order of a query's retrieved rows)
    train: str | None
    train_query: str
    train_item: str
    weight: str | None  # train's weight column (None: 1 per row)
    catalog: str | None
    catalog_item: str
    postgres: bool = False  # the target is PostgreSQL (the item order below)
    features: str | None = None  # the features table: the item column, "feature", and the value column
    features_item: str = '"item"'
    features_feature: str = '"feature"'
    features_value: str | None = None  # its value column (None: 1 per row)
    relevance: str | None = None  # the ranking table's relevance column, for a metric reading it (Serendipity)

    def item_order(self, item: str) -> str:
        """ORDER BY keys of the item ids in their sorted order (``rankframe.beyond.lists.item_index``'s order).

        Numbers numerically, text by bytes. Every tested dialect but PostgreSQL compares text by bytes (code
        points) unless a collation is set; PostgreSQL's databases sort text by their collation (ICU or libc
        locales reorder ``doc_2 doc2 Doc3``), so there a text id is compared as ``COLLATE "C"`` (its type read
        with ``pg_typeof``: a number column keeps its numeric order).
        """
        if not self.postgres:
            return item
        text = "('text', 'character varying', 'character', 'name')"
        return f"CASE WHEN CAST(PG_TYPEOF({item}) AS TEXT) IN {text} THEN NULL ELSE {item} END, " + (
            f'CAST({item} AS TEXT) COLLATE "C"'
        )


@dataclass(frozen=True)
class BeyondPart:
    """The beyond-accuracy part of a statement: its CTEs, per-list rows (as rf__long's) and set-level rows."""

    ctes: list[str]  # "rf__b... AS (...)" items
    long: list[str]  # SELECTs of (keys..., rf__q, rf__i, rf__metric, rf__state, rf__raw): the per-list values
    sets: list[str]  # SELECTs of (keys..., rf__i, rf__metric, rf__value, rf__n): one row per segment, NULL = NaN
    labels: list[tuple[int, str]]  # (rf__i, label) of the per-list metrics


def _null() -> str:
    return f"CAST(NULL AS {FLOAT})"


def _f(term: str) -> str:
    return f"CAST({term} AS {FLOAT})"


def _pop_rank(pop: str) -> str:
    """ARP popularity_norm 'rank' (LensKit MeanPopRank): the rank quantile of each train item's popularity.

    Its average rank from the least popular among the items of positive popularity / their number; 0 for
    popularity 0.
    """
    part = f"CASE WHEN {pop} > 0 THEN 1 ELSE 0 END"
    rank = f"RANK() OVER (PARTITION BY {part} ORDER BY {pop})"
    ties = f"COUNT(*) OVER (PARTITION BY {part}, {pop})"
    return (
        f"CASE WHEN {pop} > 0 THEN ({_f(rank)} + ({_f(ties)} - 1) / 2) / {_f(f'COUNT(*) OVER (PARTITION BY {part})')} "
        f"ELSE {_f('0')} END"
    )


def _top(k: int | None) -> str:
    return "rf__pos IS NOT NULL" if k is None else f"rf__pos <= {literal(k)}"


def _label(m: Measure) -> str:
    return "'" + str(m).replace("'", "''") + "'"


class _Builder:
    def __init__(self, src: Sources, keys: Sequence[str]) -> None:
        self.src = src
        self.keys = list(keys)
        # the GROUP BY / PARTITION BY list of a segment (a constant without segments: never an empty list)
        self.grp = self.keys or ["rf__one"]
        self.ctes: dict[str, str] = {}

    @property
    def g(self) -> str:
        return ", ".join(self.grp)

    def gq(self, alias: str) -> str:
        return ", ".join(f"{alias}.{c}" for c in self.grp)

    def base(self) -> None:
        s = self.src
        one = "" if self.keys else "1 AS rf__one, "
        grade = "" if s.relevance is None else f", {_f(s.relevance)} AS rf__g"
        self.ctes["rf__bsrc"] = (
            f"SELECT {s.select_keys}{one}{s.query} AS rf__q, {s.item} AS rf__item, {s.key} AS rf__key{grade} "
            f"FROM {s.table}"
        )
        unit = ", ".join([*self.grp, "rf__q"])
        cols = f"{unit}, rf__item" + ("" if s.relevance is None else ", rf__g")
        self.ctes["rf__bpos"] = (
            f"SELECT {cols}, ROW_NUMBER() OVER ({s.ranking.format(unit=unit)}) AS rf__pos FROM rf__bsrc "
            f"WHERE rf__key IS NOT NULL UNION ALL SELECT {cols}, CAST(NULL AS BIGINT) AS rf__pos FROM rf__bsrc "
            "WHERE rf__key IS NULL"
        )
        self.ctes["rf__bunits"] = f"SELECT DISTINCT {unit} FROM rf__bsrc"

    # ------------------------------------------------------------------ the extra inputs
    def train(self) -> None:
        s = self.src
        if "rf__btrain" in self.ctes:
            return
        if s.train is None:  # beyond_engine.check_arguments refused the call before
            raise RuntimeError("train= was not checked before the SQL")
        weight = "1" if s.weight is None else s.weight
        self.ctes["rf__btrain"] = (
            f"SELECT {s.train_query} AS rf__tq, {s.train_item} AS rf__titem, {_f(weight)} AS rf__w FROM {s.train}"
        )
        # popularity: 'users' = distinct queries with a positive weight, 'interactions' = the sum of the weights
        self.ctes["rf__bitems"] = (
            f"SELECT rf__titem, {_f('COUNT(DISTINCT CASE WHEN rf__w > 0 THEN rf__tq END)')} AS rf__users, "
            "SUM(rf__w) AS rf__interactions FROM rf__btrain GROUP BY rf__titem"
        )
        # train's queries and the sum of every item's popularity of each kind (Novelty's 'choice' model)
        self.ctes["rf__bnusers"] = (
            "SELECT a.rf__nu, b.rf__psum_users, b.rf__psum_interactions FROM (SELECT COUNT(DISTINCT rf__tq) AS "
            "rf__nu FROM rf__btrain) AS a CROSS JOIN (SELECT SUM(rf__users) AS rf__psum_users, SUM(rf__interactions) "
            "AS rf__psum_interactions FROM rf__bitems) AS b"
        )

    def universe(self, name: str) -> str:
        """The CTE of the distinct items of the universe 'catalog' or 'train' (column rf__uitem)."""
        cte = f"rf__buniverse_{name}"
        if cte not in self.ctes:
            if name == "catalog":
                if self.src.catalog is None:
                    raise RuntimeError("catalog= was not checked before the SQL")
                self.ctes[cte] = f"SELECT DISTINCT {self.src.catalog_item} AS rf__uitem FROM {self.src.catalog}"
            else:
                self.train()
                self.ctes[cte] = "SELECT DISTINCT rf__titem AS rf__uitem FROM rf__btrain"
            self.ctes[f"{cte}_n"] = f"SELECT COUNT(*) AS rf__un FROM {cte}"
        return cte

    # ------------------------------------------------------------------ shared shapes
    def pairs(self, k: int | None, universe: str | None) -> str:
        """Per (segment, item) of every row: rf__c = its top-k rows, rf__in = 1 when in the universe, rf__un."""
        cte = f"rf__bpairs_{'all' if k is None else k}_{universe or 'none'}"
        if cte in self.ctes:
            return cte
        top = _top(k)
        if universe in ("catalog", "train"):
            u = self.universe(universe)
            self.ctes[cte] = (
                f"SELECT {self.gq('r')}, r.rf__item, COUNT(CASE WHEN r.{top} THEN 1 END) AS rf__c, "
                "MAX(CASE WHEN u.rf__uitem IS NULL THEN 0 ELSE 1 END) AS rf__in, MAX(n.rf__un) AS rf__un "
                f"FROM rf__bpos AS r LEFT JOIN {u} AS u ON r.rf__item = u.rf__uitem CROSS JOIN {u}_n AS n "
                f"GROUP BY {self.gq('r')}, r.rf__item"
            )
        else:
            self.ctes[cte] = (
                f"SELECT {self.g}, rf__item, COUNT(CASE WHEN {top} THEN 1 END) AS rf__c FROM rf__bpos "
                f"GROUP BY {self.g}, rf__item"
            )
        return cte

    def segment_rows(self, name: str, contributions: list[str], width: int, value: str) -> str:
        """One row per segment: ``value`` over SUM/MAX of the contributions' columns a0..a{width-1}, n = units.

        Each contribution is a SELECT of (grp..., a0, ...); the units add one row each with NULLs.
        """
        nulls = "".join(f", {_null()}" for _ in range(width))
        parts = [*contributions, f"SELECT {self.g}{nulls}, 1 AS rf__u FROM rf__bunits"]
        self.ctes[name] = (
            f"SELECT {self.g}, {value} AS rf__value, SUM(rf__u) AS rf__n FROM ("
            + " UNION ALL ".join(parts)
            + f") AS x GROUP BY {self.g}"
        )
        return name

    def contribution(self, src: str, *columns: str, where: str = "") -> str:
        """A SELECT of (grp..., a0, a1, ...) as floats from ``src`` (rf__u = 0)."""
        named = ", ".join(f"{_f(c)} AS a{j}" for j, c in enumerate(columns))
        return f"SELECT {self.g}, {named}, 0 AS rf__u FROM {src}" + (f" WHERE {where}" if where else "")

    # ------------------------------------------------------------------ set-level metrics
    def coverage(self, i: int, *, k, universe, output, outside, like) -> str:
        p = self.pairs(k, universe)
        covered = "COALESCE(SUM(a0), 0)"
        value = covered if output == "count" else f"{covered} / GREATEST(MAX(a1), 1)"
        hit = "rf__c > 0" if outside == "count" else "rf__c > 0 AND rf__in = 1"  # 'count': items outside too
        return self.segment_rows(
            f"rf__bm{i}", [self.contribution(p, f"CASE WHEN {hit} THEN 1 ELSE 0 END", "rf__un")], 2, value
        )

    def gini(self, i: int, *, k, universe, denominator, complement, like) -> str:
        p = self.pairs(k, None if universe == "recommended" else universe)
        m = f"COUNT(CASE WHEN rf__c > 0 THEN 1 END) OVER (PARTITION BY {self.g})"
        if universe == "recommended":
            n = m
        else:  # the universe's items plus those recommended outside it
            n = f"rf__un + COUNT(CASE WHEN rf__c > 0 AND rf__in = 0 THEN 1 END) OVER (PARTITION BY {self.g})"
        # j = the rank of c among the segment's recommended items (ascending; ties give the same sum in any order,
        # the item orders them all the same), the unrecommended n - m items come first with 0
        ranked = f"rf__bgini{i}"
        self.ctes[ranked] = (
            f"SELECT {self.g}, rf__c, {m} AS rf__m, {n} AS rf__nn, ROW_NUMBER() OVER (PARTITION BY {self.g}, "
            f"CASE WHEN rf__c > 0 THEN 1 ELSE 0 END ORDER BY rf__c, rf__item) AS rf__j FROM {p}"
        )
        d = "MAX(a2)" if denominator == "n" else "(MAX(a2) - 1)"
        g = f"CASE WHEN COALESCE(SUM(a1), 0) = 0 OR {d} <= 0 THEN {_null()} ELSE SUM(a0) / ({d} * SUM(a1)) END"
        value = f"1 - {g}" if complement else g
        term = "CASE WHEN rf__c > 0 THEN (2 * (rf__nn - rf__m + rf__j) - rf__nn - 1) * rf__c END"
        return self.segment_rows(f"rf__bm{i}", [self.contribution(ranked, term, "rf__c", "rf__nn")], 3, value)

    def entropy(self, i: int, *, k, log_base, normalize, weigh, like) -> str:
        shares = f"rf__bentropy{i}"
        total = f"SUM(rf__c) OVER (PARTITION BY {self.g})"
        if weigh == "lists":  # Elliot: q_i = sum of 1 / |list| over item i's top-k rows, / the lists
            unit = ", ".join([*self.grp, "rf__q"])
            lengths, p = f"rf__bentlen{i}", f"rf__bentw{i}"
            self.ctes[lengths] = (
                f"SELECT {unit}, rf__item, rf__pos, COUNT(CASE WHEN {_top(k)} THEN 1 END) OVER (PARTITION BY {unit}) "
                "AS rf__len FROM rf__bpos"
            )
            self.ctes[p] = (
                f"SELECT {self.g}, rf__item, COUNT(CASE WHEN {_top(k)} THEN 1 END) AS rf__c, "
                f"SUM(CASE WHEN {_top(k)} THEN 1 / {_f('rf__len')} END) AS rf__w FROM {lengths} "
                f"GROUP BY {self.g}, rf__item"
            )
            weight = Terms.ratio("rf__w", f"SUM(rf__w) OVER (PARTITION BY {self.g})")
        else:
            p = self.pairs(k, None)
            weight = Terms.ratio("rf__c", total)  # = rf__p (a column alias is not visible in its own SELECT list)
        self.ctes[shares] = (
            f"SELECT {self.g}, rf__c, {Terms.ratio('rf__c', total)} AS rf__p, {weight} AS rf__wq FROM {p}"
        )
        h = f"SUM(a0) / LN({Terms.num(log_base)})"
        if normalize == "items":
            h = f"{h} / SUM(a2)"
        value = f"CASE WHEN COALESCE(SUM(a1), 0) = 0 THEN {_null()} ELSE {h} END"
        term = "CASE WHEN rf__c > 0 THEN -rf__wq * LN(CASE WHEN rf__p > 0 THEN rf__p ELSE 1 END) END"
        flag = "CASE WHEN rf__c > 0 THEN 1 ELSE 0 END"
        return self.segment_rows(f"rf__bm{i}", [self.contribution(shares, term, "rf__c", flag)], 3, value)

    def personalization(self, i: int, *, k, output, norm, like) -> str:
        personalization_rules(k=k, norm=norm)
        unit = ", ".join([*self.grp, "rf__q"])
        sets, items = f"rf__bpsets{i}", f"rf__bpitems{i}"
        # each (list, item) of a top k once, w = 1 / sqrt(the list's number of items)
        self.ctes[sets] = (
            f"SELECT {unit}, rf__item, 1 / SQRT({_f(f'COUNT(*) OVER (PARTITION BY {unit})')}) AS rf__w "
            f"FROM (SELECT DISTINCT {unit}, rf__item FROM rf__bpos WHERE {_top(k)}) AS d"
        )
        # per item: S = sum of w, Q = sum of w^2; the pairs' sum is sum_i (S^2 - Q) / 2 (rankframe/beyond/
        # personalization.py)
        self.ctes[items] = (
            f"SELECT {self.g}, SUM(rf__w) AS rf__s, SUM(rf__w * rf__w) AS rf__sq, {_f('COUNT(*)')} AS rf__cnt "
            f"FROM {sets} "
            f"GROUP BY {self.g}, rf__item"
        )
        lists = f"(SELECT DISTINCT {unit} FROM {sets}) AS l"
        n = "COALESCE(SUM(a1), 0)"
        similarity = f"SUM(a0) / ({n} * ({n} - 1))"
        pair = "rf__s * rf__s - rf__sq"
        if norm == "k":  # Evidently: (sum_i c_i² - n k) / (k n (n - 1))
            pair = "rf__cnt * rf__cnt"
            similarity = f"(SUM(a0) - {n} * {Terms.num(k)}) / ({Terms.num(k)} * {n} * ({n} - 1))"
        value = similarity if output == "similarity" else f"1 - {similarity}"
        return self.segment_rows(
            f"rf__bm{i}",
            [
                self.contribution(items, pair, "NULL"),
                self.contribution(lists, "NULL", "1"),
            ],
            2,
            f"CASE WHEN {n} < 2 THEN {_null()} ELSE {value} END",
        )

    # ------------------------------------------------------------------ ILD (rankframe/beyond/ild.py)
    def vectors(self, similarity: str) -> tuple[str, str]:
        """(the CTE of the item vectors (rf__vitem, rf__dim, rf__u), the CTE of the known items (rf__kitem))."""
        vec, known = f"rf__bvec_{similarity}", f"rf__bknown_{similarity}"
        if vec in self.ctes:
            return vec, known
        if similarity == "cooccurrence":
            self.train()
            self.ctes[known] = "SELECT DISTINCT rf__titem AS rf__kitem FROM rf__btrain"
            # the item's distinct train queries with a positive weight, each 1 / sqrt(their number)
            self.ctes[vec] = (
                "SELECT p.rf__titem AS rf__vitem, p.rf__tq AS rf__dim, 1 / SQRT(c.rf__users) AS rf__u FROM "
                "(SELECT DISTINCT rf__tq, rf__titem FROM rf__btrain WHERE rf__w > 0) AS p "
                "JOIN rf__bitems AS c ON p.rf__titem = c.rf__titem"
            )
            return vec, known
        s = self.src
        if s.features is None:  # beyond_engine.check_arguments refused the call before
            raise RuntimeError("features= was not checked before the SQL")
        if "rf__bfeat" not in self.ctes:
            value = "1" if s.features_value is None else s.features_value
            self.ctes["rf__bfeat"] = (
                f"SELECT {s.features_item} AS rf__fitem, {s.features_feature} AS rf__dim, {_f(value)} AS rf__x "
                f"FROM {s.features}"
            )
        self.ctes[known] = "SELECT DISTINCT rf__fitem AS rf__kitem FROM rf__bfeat"
        if similarity == "hamming":
            self.ctes[vec] = "SELECT rf__fitem AS rf__vitem, rf__dim, rf__x AS rf__u FROM rf__bfeat"
        else:  # cosine: each vector divided by its L2 norm (the zero vector stays 0), scaled by its largest
            # magnitude rf__big first so that no square overflows (values beyond ~1e154: similarity.unit_rows)
            scaled = "(g.rf__x / b.rf__big)"
            self.ctes[vec] = (
                "SELECT f.rf__fitem AS rf__vitem, f.rf__dim, CASE WHEN n.rf__n2 > 0 THEN f.rf__x / n.rf__big / "
                "SQRT(n.rf__n2) ELSE 0 END AS rf__u FROM rf__bfeat AS f LEFT JOIN (SELECT g.rf__fitem, b.rf__big, "
                f"SUM({scaled} * {scaled}) AS rf__n2 FROM rf__bfeat AS g JOIN (SELECT rf__fitem, MAX(ABS(rf__x)) "
                "AS rf__big FROM rf__bfeat GROUP BY rf__fitem) AS b ON g.rf__fitem = b.rf__fitem WHERE b.rf__big > 0 "
                "GROUP BY g.rf__fitem, b.rf__big) AS n ON f.rf__fitem = n.rf__fitem"
            )
        return vec, known

    def ild(
        self, i: int, *, k, similarity, output, unknown, single_item, pair_denominator, like
    ) -> tuple[str, str, str]:
        """The per-list CTE (unit..., rf__n, rf__a, rf__b) and the (state, raw) terms of its value.

        Every sum comes from one GROUP BY over a UNION ALL (no join on segment values): cosine's pair sum is
        (sum over dimensions of s² - sum of ||u||²) / 2 with rf__a = that total; Hamming's differing pairs are
        n * A - B with A = sum_d nz_d and B = sum_d (nz_d² + nz_d) / 2 + sum_d sum_v C(c_v, 2) (the expansion of
        sum_d [C(n, 2) - C(n - nz_d, 2) - sum_v C(c_v, 2)]).
        """
        ild_rules(similarity=similarity, output=output)
        vec, known = self.vectors(similarity)
        unit_cols = [*self.grp, "rf__q"]
        unit = ", ".join(unit_cols)
        rows = f"rf__bildrows{i}"
        counted = "" if unknown == "zero" else " AND kn.rf__kitem IS NOT NULL"
        self.ctes[rows] = (
            f"SELECT {', '.join(f'r.{c}' for c in unit_cols)}, r.rf__item FROM rf__bpos AS r LEFT JOIN {known} AS kn "
            f"ON r.rf__item = kn.rf__kitem WHERE r.{_top(k)}{counted}"
        )
        joined = f"{rows} AS r JOIN {vec} AS v ON r.rf__item = v.rf__vitem"
        runit = ", ".join(f"r.{c}" for c in unit_cols)
        if similarity == "hamming":
            cells = f"rf__bildcells{i}"
            self.ctes[cells] = (
                f"SELECT {runit}, v.rf__dim, {_f('COUNT(*)')} AS rf__c FROM {joined} WHERE v.rf__u <> 0 "
                f"GROUP BY {runit}, v.rf__dim, v.rf__u"
            )
            dims = (
                f"SELECT {unit}, SUM(rf__c) AS rf__a, SUM(rf__c) * SUM(rf__c) / 2 + SUM(rf__c) / 2 "
                f"+ SUM(rf__c * (rf__c - 1) / 2) AS rf__b FROM {cells} GROUP BY {unit}, rf__dim"
            )
        else:
            dims = (
                f"SELECT {runit}, SUM(v.rf__u) * SUM(v.rf__u) - SUM(v.rf__u * v.rf__u) AS rf__a, "
                f"{_null()} AS rf__b FROM {joined} GROUP BY {runit}, v.rf__dim"
            )
        per = f"rf__blists{i}"
        # rf__n = the counted items, rf__r = every top-k row (single_item='zero_if_one_row')
        self.ctes[per] = (
            f"SELECT {unit}, SUM(rf__one_n) AS rf__n, SUM(rf__a) AS rf__a, SUM(rf__b) AS rf__b, SUM(rf__one_r) "
            f"AS rf__r FROM (SELECT {unit}, {_f('1')} AS rf__one_n, {_null()} AS rf__a, {_null()} AS rf__b, "
            f"{_f('0')} AS rf__one_r FROM {rows} "
            f"UNION ALL SELECT {unit}, {_f('0')}, rf__a, rf__b, {_f('0')} FROM ({dims}) AS d "
            f"UNION ALL SELECT {unit}, {_f('0')}, {_null()}, {_null()}, {_f('1')} FROM rf__bpos WHERE {_top(k)} "
            f"UNION ALL SELECT {unit}, {_f('0')}, {_null()}, {_null()}, {_f('0')} FROM rf__bunits) AS x "
            f"GROUP BY {unit}"
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
            fixed.append(("rf__r = 1", _f("0")))
        fixed.append(("rf__n >= 2", value))
        if single_item in ("zero", "one"):
            fixed.append(("rf__n = 1", _f("0" if single_item == "zero" else "1")))
        state = "CASE " + " ".join(f"WHEN {c} THEN 0" for c, _ in fixed) + " ELSE 2 END"
        raw = "CASE " + " ".join(f"WHEN {c} THEN {v}" for c, v in fixed) + f" ELSE {_null()} END"
        return per, state, raw

    # ------------------------------------------------------------------ Calibration (rankframe/beyond/calibration.py)
    def shares(self) -> None:
        """rf__bcaltot (the items with a positive total value), rf__bcalshare (p(g|i)), rf__bcalhist (p(g|u))."""
        if "rf__bcalhist" in self.ctes:
            return
        self.vectors("hamming")  # rf__bfeat: the raw features rows
        self.train()
        self.ctes["rf__bcaltot"] = (
            "SELECT rf__fitem, SUM(rf__x) AS rf__t FROM rf__bfeat GROUP BY rf__fitem HAVING SUM(rf__x) > 0"
        )
        self.ctes["rf__bcalshare"] = (
            "SELECT f.rf__fitem, f.rf__dim, f.rf__x / t.rf__t AS rf__s FROM rf__bfeat AS f "
            "JOIN rf__bcaltot AS t ON f.rf__fitem = t.rf__fitem"
        )
        mass = "SUM(h.rf__w * s.rf__s)"
        self.ctes["rf__bcalhist"] = (
            f"SELECT h.rf__tq, s.rf__dim, {mass} / SUM({mass}) OVER (PARTITION BY h.rf__tq) AS rf__hp "
            "FROM rf__btrain AS h JOIN rf__bcalshare AS s ON h.rf__titem = s.rf__fitem WHERE h.rf__w > 0 "
            "GROUP BY h.rf__tq, s.rf__dim"
        )

    def calibration(
        self, i: int, *, k, divergence, direction, alpha, smooth, rank_weight, log_base, like
    ) -> tuple[str, str, str]:
        """The per-list CTE (unit..., rf__sum, rf__hs, rf__ls) and the (state, raw) terms of its value.

        p from the query's history (a join on the query id only), q from the list's top-k rows (normalized by a
        window over the list's genres: no join on segment values), the two as a UNION ALL grouped by (list, genre).
        """
        self.shares()
        unit_cols = [*self.grp, "rf__q"]
        unit = ", ".join(unit_cols)
        runit = ", ".join(f"r.{c}" for c in unit_cols)
        weight = {"none": "1", "reciprocal": f"1 / {_f('r.rf__pos')}", "log": f"LN(2) / LN({_f('r.rf__pos')} + 1)"}
        rows, lq = f"rf__bcalrows{i}", f"rf__bcalq{i}"
        self.ctes[rows] = (
            f"SELECT {runit}, r.rf__item, {_f(weight[rank_weight])} AS rf__v FROM rf__bpos AS r "
            f"JOIN rf__bcaltot AS t ON r.rf__item = t.rf__fitem WHERE r.{_top(k)}"
        )
        mass = "SUM(r.rf__v * s.rf__s)"
        self.ctes[lq] = (
            f"SELECT {runit}, s.rf__dim, {mass} / SUM({mass}) OVER (PARTITION BY {runit}) AS rf__lq "
            f"FROM {rows} AS r JOIN rf__bcalshare AS s ON r.rf__item = s.rf__fitem GROUP BY {runit}, s.rf__dim"
        )
        uunit = ", ".join(f"u.{c}" for c in unit_cols)
        zero = _f("0")
        cells = f"rf__bcalcells{i}"
        self.ctes[cells] = (
            f"SELECT {unit}, SUM(rf__hp) AS rf__hp, SUM(rf__lq) AS rf__lq FROM ("
            f"SELECT {uunit}, h.rf__dim, h.rf__hp, {zero} AS rf__lq FROM rf__bunits AS u "
            "JOIN rf__bcalhist AS h ON u.rf__q = h.rf__tq "
            f"UNION ALL SELECT {unit}, rf__dim, {zero}, rf__lq FROM {lq}) AS x GROUP BY {unit}, rf__dim"
        )
        a = Terms.num(alpha)
        ps = f"(1 - {a}) * rf__hp + {a} * rf__lq" if smooth == "both" else "rf__hp"
        qs = f"(1 - {a}) * rf__lq + {a} * rf__hp"
        first, second = (ps, qs) if direction == "history_list" else (qs, ps)
        pairs = f"rf__bcalpairs{i}"
        self.ctes[pairs] = f"SELECT {unit}, rf__hp, rf__lq, {first} AS rf__a, {second} AS rf__b FROM {cells}"

        def rel(x: str, y: str) -> str:  # x ln(x / y): 0 when x = 0, infinite when x > 0 = y
            inf = f"CAST('Infinity' AS {FLOAT})"
            return f"CASE WHEN {x} <= 0 THEN 0 WHEN {y} <= 0 THEN {inf} ELSE {x} * LN({x} / ({y})) END"

        mid = "(rf__a + rf__b) / 2"
        term = rel("rf__a", "rf__b") if divergence == "kl" else f"{rel('rf__a', mid)} + {rel('rf__b', mid)}"
        per = f"rf__blists{i}"
        self.ctes[per] = (
            f"SELECT {unit}, SUM(rf__t) AS rf__sum, SUM(rf__hp) AS rf__hs, SUM(rf__lq) AS rf__ls FROM ("
            f"SELECT {unit}, {term} AS rf__t, rf__hp, rf__lq FROM {pairs} "
            f"UNION ALL SELECT {unit}, {_null()}, {_null()}, {_null()} FROM rf__bunits) AS x GROUP BY {unit}"
        )
        div = f"rf__sum / LN({Terms.num(log_base)})"
        value = div if divergence == "kl" else f"SQRT(GREATEST({div} / 2, 0))"
        known = "COALESCE(rf__hs, 0) > 0 AND COALESCE(rf__ls, 0) > 0"
        return per, f"CASE WHEN {known} THEN 0 ELSE 2 END", f"CASE WHEN {known} THEN {value} ELSE {_null()} END"

    # ------------------------------------------------------------------ per-list metrics
    def train_items(self, popularity: str) -> str:
        """The items of train for one metric: popularity, rank from the least popular (ties by item), count, sum."""
        self.train()
        pop = "rf__users" if popularity == "users" else "rf__interactions"
        cte = f"rf__bti_{popularity}"
        if cte not in self.ctes:
            low = f"ROW_NUMBER() OVER (ORDER BY {pop}, {self.src.item_order('rf__titem')})"
            self.ctes[cte] = (
                f"SELECT rf__titem, {pop} AS rf__pop, {low} AS rf__low, "
                f"COUNT(*) OVER () AS rf__nk, SUM({pop}) OVER () AS rf__psum, MAX({pop}) OVER () AS rf__pmax, "
                f"{_pop_rank(pop)} AS rf__prank, "
                f"COALESCE(SUM({pop}) OVER (ORDER BY {pop} DESC, {self.src.item_order('rf__titem')} ROWS BETWEEN "
                "UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS rf__before FROM rf__bitems"
            )
        return cte

    def lists(self, i: int, value: str, counted: str, popularity: str, k: int | None) -> str:
        """Per unit: rf__sum of the counted top-k rows' values, rf__rows their number (0 for a list without one)."""
        items = self.train_items(popularity)
        unit = ", ".join([*self.grp, "rf__q"])
        rows = f"rf__brows{i}"
        self.ctes[rows] = (
            f"SELECT {', '.join(f'r.{c}' for c in [*self.grp, 'rf__q'])}, {_f(value)} AS rf__v, {counted} AS rf__cnt "
            f"FROM rf__bpos AS r LEFT JOIN {items} AS t ON r.rf__item = t.rf__titem CROSS JOIN rf__bnusers AS z "
            f"WHERE r.{_top(k)}"
        )
        out = f"rf__blists{i}"
        self.ctes[out] = (
            f"SELECT {unit}, SUM(rf__s) AS rf__sum, SUM(rf__c) AS rf__rows FROM ("
            f"SELECT {unit}, CASE WHEN rf__cnt = 1 THEN rf__v END AS rf__s, rf__cnt AS rf__c FROM {rows} "
            f"UNION ALL SELECT {unit}, {_null()}, 0 FROM rf__bunits) AS x GROUP BY {unit}"
        )
        return out

    def row_terms(self, m: Measure) -> tuple[str, str]:
        """(value, counted 1/0) of a top-k row joined to train's items ``t`` (NULL columns: a cold item)."""
        kw = m.kw
        known = "t.rf__titem IS NOT NULL"
        if m.spec.name == "arp":
            counted = "1" if kw["cold"] == "zero" else f"CASE WHEN {known} THEN 1 ELSE 0 END"
            if kw["popularity_norm"] == "rank":
                return "COALESCE(t.rf__prank, 0)", counted
            norm = {"none": None, "total": "t.rf__psum", "max": "t.rf__pmax"}[kw["popularity_norm"]]
            if norm is None:
                return "COALESCE(t.rf__pop, 0)", counted
            return f"CASE WHEN {norm} > 0 THEN t.rf__pop / {norm} ELSE 0 END", counted
        if m.spec.name == "aplt":
            if kw["tail_rule"] == "count":
                tail = f"t.rf__pop <= {Terms.num(kw['tail'])}"
            elif kw["tail_rule"] == "pareto":  # outside the short head: the popularity before it reaches the limit
                tail = f"t.rf__before >= {Terms.num(kw['tail'])} * t.rf__psum"
            else:  # the int(tail * |train items|) (at least 1) least popular, ties by item
                tail = f"t.rf__low <= GREATEST(FLOOR({_f('t.rf__nk')} * {Terms.num(kw['tail'])}), 1)"
            cold = "1" if kw["cold"] == "tail" else "0"
            value = f"CASE WHEN t.rf__titem IS NULL THEN {cold} WHEN {tail} THEN 1 ELSE 0 END"
            counted = f"CASE WHEN {known} THEN 1 ELSE 0 END" if kw["cold"] == "drop" else "1"
            return value, counted
        if m.spec.name == "novelty":
            novelty_rules(**kw)
            z = _f("z.rf__nu") if kw["model"] == "discovery" else f"z.rf__psum_{kw['popularity']}"
            warm = "COALESCE(t.rf__pop, 0) > 0"
            base = Terms.num(kw["log_base"])
            if kw["cold"] == "one":  # popularity 1 for an item of popularity 0
                info = f"-LN(CASE WHEN {warm} THEN t.rf__pop ELSE 1 END / {z}) / LN({base})"
            else:
                p = f"CASE WHEN {warm} THEN t.rf__pop / {z} ELSE 1 END"
                info = f"CASE WHEN {warm} THEN -LN({p}) / LN({base}) ELSE 0 END"
            # no popularity in all of train= (empty, or every weight 0): nothing to be novel against, undefined (NULL;
            # rankframe/beyond/novelty.py), never a division by zero
            info = f"CASE WHEN {z} > 0 THEN {info} END"
            if kw["scale"] == "log_users":  # / log |queries of train| (nothing with one query)
                info = f"{info} / CASE WHEN z.rf__nu > 1 THEN LN({_f('z.rf__nu')}) / LN({base}) ELSE 1 END"
            counted = "1" if kw["cold"] in ("zero", "one") else f"CASE WHEN {warm} THEN 1 ELSE 0 END"
            return info, counted
        raise not_portable(str(m), f"{m.spec.canonical} has no portable SQL yet")


#: the metrics this module writes (every other beyond-accuracy metric is NotPortable, saying so)
SET_LEVEL = ("coverage", "gini", "entropy", "personalization")
PER_LIST = ("arp", "aplt", "novelty", "ild", "calibration", "serendipity")


def build(measures: Sequence[tuple[int, Measure]], src: Sources, keys: Sequence[str]) -> BeyondPart:
    """The CTEs and rows of the beyond-accuracy metrics (each with its index rf__i in the statement)."""
    for _, m in measures:
        if m.spec.name not in (*SET_LEVEL, *PER_LIST):
            raise not_portable(str(m), f"{m.spec.canonical} has no portable SQL yet (docs/warehouse.md)")
    b = _Builder(src, keys)
    b.base()
    long, sets, labels = [], [], []
    key_cols = "".join(f"{k}, " for k in keys)
    for i, m in measures:
        spec = m.spec
        assert isinstance(spec, BeyondSpec)
        if spec.name in SET_LEVEL:
            rows = getattr(b, spec.name)(i, **m.kw)
        elif spec.name in ("ild", "calibration", "serendipity"):
            if spec.name == "serendipity":
                per, state, raw = serendipity.lists(b, i, **m.kw)
            else:
                per, state, raw = getattr(b, spec.name)(i, **m.kw)
            long.append(
                f"SELECT {key_cols}rf__q, {i} AS rf__i, {_label(m)} AS rf__metric, {state} AS rf__state, "
                f"{raw} AS rf__raw FROM {per}"
            )
            labels.append((i, str(m)))
            continue
        else:
            value, counted = b.row_terms(m)
            per = b.lists(i, value, counted, m.kw["popularity"], m.kw["k"])
            if spec.is_set_level(m.kw):  # aggregate='rows': one mean over every counted row of the segment
                rows = f"rf__bm{i}"
                b.ctes[rows] = (
                    f"SELECT {b.g}, CASE WHEN SUM(rf__rows) = 0 THEN {_null()} ELSE "
                    f"SUM(rf__sum) / SUM(rf__rows) END AS rf__value, COUNT(*) AS rf__n FROM {per} GROUP BY {b.g}"
                )
            else:
                k = m.kw["k"]
                mean = (
                    f"rf__sum / {Terms.num(k)}"
                    if m.kw.get("list_denominator") == "k"
                    else f"rf__sum / {_f('rf__rows')}"
                )
                long.append(
                    f"SELECT {key_cols}rf__q, {i} AS rf__i, {_label(m)} AS rf__metric, "
                    f"CASE WHEN rf__rows = 0 THEN 2 ELSE 0 END AS rf__state, "
                    f"CASE WHEN rf__rows = 0 THEN {_null()} ELSE {mean} END AS rf__raw FROM {per}"
                )
                labels.append((i, str(m)))
                continue
        sets.append(
            f"SELECT {key_cols}{i} AS rf__i, {_label(m)} AS rf__metric, rf__value, CAST(rf__n AS BIGINT) AS rf__n "
            f"FROM {rows}"
        )
    return BeyondPart([f"{name} AS ({sql})" for name, sql in b.ctes.items()], long, sets, labels)

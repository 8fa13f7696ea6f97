"""The beyond-accuracy metrics in the portable SQL: the builder their ``portable`` hooks write on.

Each metric's SQL is its module's ``portable(b, i, **options)`` (``rankframe/beyond/<name>.py``, beside its
kernel, as the accuracy metrics' ``portable(t, ...)``); this module holds the statement's shared CTEs and
dispatches on the declarations (:class:`Builder`). Those hooks write the flat window-and-aggregate logic of
``sql/<name>.sql`` (the DuckDB table macros) once more without macros, lambdas, ``COLUMNS(*)`` or ``GROUP BY ALL``,
as PostgreSQL-flavoured text that :func:`rankframe.warehouse.render.finish` writes in the target dialect. The
options are the declarations' (presets resolved in Python by the metric parser: ``m.kw``); the rules between
options are the declarations' functions.

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
(``rf__btrain``, ``rf__bfeat``, ``rf__bunits``), each metric one hook in its own module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..beyond.declare import BeyondSpec
from ..measures.names import Measure
from ..measures.registry import beyond_hook
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


class Builder:
    """The CTEs of one statement's beyond-accuracy part, which each metric's ``portable(b, i, **options)`` adds to.

    A metric's hook lives beside its kernel (``rankframe/beyond/<name>.py``) and returns, by its declared level:

    - ``level='set'``: the name of a CTE of one row per segment ``(grp..., rf__value, rf__n)``
      (:meth:`segment_rows` writes one);
    - ``level='list'`` with its own lists macro: ``(per-list CTE (unit...), state, raw)``, the state 0 (a value) or
      2 (none) and the raw value as SQL terms over that CTE's columns;
    - ``level='list'`` with the shared row-value macro (``BeyondSpec.row_values``: ARP, APLT, Novelty):
      ``(value, counted)``, the terms of one top-k row joined to train's items ``t`` and totals ``z``; the builder
      takes the lists' means (:meth:`lists`) or, with ``aggregate='rows'``, the segment's.

    The hooks read the shared input CTEs through the methods below (``train``, ``universe``, ``pairs``,
    ``vectors``, ``train_items``) and write SQL with its helpers (``f``, ``null``, ``num``, ``top``, ``ratio``,
    ``infinity``); they import nothing of this package, as the accuracy metrics' ``portable(t, ...)``.
    """

    f = staticmethod(_f)
    null = staticmethod(_null)
    top = staticmethod(_top)
    num = staticmethod(Terms.num)
    ratio = staticmethod(Terms.ratio)

    @staticmethod
    def infinity() -> str:
        """Positive infinity as a float."""
        return f"CAST('Infinity' AS {FLOAT})"

    def __init__(self, src: Sources, keys: Sequence[str]) -> None:
        self.src = src
        self.keys = list(keys)
        # the GROUP BY / PARTITION BY list of a segment (a constant without segments: never an empty list)
        self.grp = self.keys or ["rf__one"]
        self.ctes: dict[str, str] = {}

    @property
    def g(self) -> str:
        """The segment's GROUP BY list."""
        return ", ".join(self.grp)

    def gq(self, alias: str) -> str:
        """The segment's GROUP BY list, qualified by ``alias``."""
        return ", ".join(f"{alias}.{c}" for c in self.grp)

    def base(self) -> None:
        """rf__bsrc, rf__bpos (the rows with their positions) and rf__bunits (every unit once)."""
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
        """rf__btrain (train='s rows), rf__bitems (each item's popularity), rf__bnusers (train's totals)."""
        s = self.src
        if "rf__btrain" in self.ctes:
            return
        if s.train is None:  # beyond.arguments.check_arguments refused the call before
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

    # ------------------------------------------------------------------ item vectors (ILD, Serendipity, Calibration)
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
        if s.features is None:  # beyond.arguments.check_arguments refused the call before
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
        rows = f"rf__brows{i}"
        self.ctes[rows] = (
            f"SELECT {', '.join(f'r.{c}' for c in [*self.grp, 'rf__q'])}, {_f(value)} AS rf__v, {counted} AS rf__cnt "
            f"FROM rf__bpos AS r LEFT JOIN {items} AS t ON r.rf__item = t.rf__titem CROSS JOIN rf__bnusers AS z "
            f"WHERE r.{_top(k)}"
        )
        return self.per_list(
            i,
            "SUM(rf__s) AS rf__sum, SUM(rf__c) AS rf__rows",
            [("CASE WHEN rf__cnt = 1 THEN rf__v END AS rf__s, rf__cnt AS rf__c", rows)],
            f"{_null()}, 0",
        )

    def per_list(self, i: int, totals: str, rows: Sequence[tuple[str, str]], empty: str) -> str:
        """The per-list CTE ``rf__blists<i>``: per unit, the aggregates ``totals`` over its rows; its name.

        ``rows``: (columns, source) of each part of the rows (``SELECT <unit>, <columns> FROM <source>``); one more
        part, ``empty``'s columns for every unit of ``rf__bunits``, keeps a list without a row (its sums NULL or 0).
        The row-value metrics (:meth:`lists`) and the per-list hooks (Calibration, ILD, Serendipity) build on it.
        """
        unit = ", ".join([*self.grp, "rf__q"])
        parts = [*rows, (empty, "rf__bunits")]
        union = " UNION ALL ".join(f"SELECT {unit}, {columns} FROM {source}" for columns, source in parts)
        out = f"rf__blists{i}"
        self.ctes[out] = f"SELECT {unit}, {totals} FROM ({union}) AS x GROUP BY {unit}"
        return out


def build(measures: Sequence[tuple[int, Measure]], src: Sources, keys: Sequence[str]) -> BeyondPart:
    """The CTEs and rows of the beyond-accuracy metrics (each with its index rf__i in the statement).

    Each metric's SQL is its module's ``portable`` hook (:class:`Builder`); what the hook returns, and what is done
    with it, follows the metric's declaration (its level, ``row_values``), never its name.
    """
    hooks = {}
    for _, m in measures:
        hook = beyond_hook(m.spec.name, "portable")
        if hook is None:
            raise not_portable(str(m), f"{m.spec.canonical} has no portable SQL yet (docs/warehouse.md)")
        hooks[m.spec.name] = hook
    b = Builder(src, keys)
    b.base()
    long, sets, labels = [], [], []
    key_cols = "".join(f"{k}, " for k in keys)
    for i, m in measures:
        spec = m.spec
        assert isinstance(spec, BeyondSpec)
        hook = hooks[spec.name]
        if spec.level == "set":
            rows = hook(b, i, **m.kw)
        elif not spec.row_values:
            per, state, raw = hook(b, i, **m.kw)
            long.append(
                f"SELECT {key_cols}rf__q, {i} AS rf__i, {_label(m)} AS rf__metric, {state} AS rf__state, "
                f"{raw} AS rf__raw FROM {per}"
            )
            labels.append((i, str(m)))
            continue
        else:
            value, counted = hook(b, i, **m.kw)
            per = b.lists(i, value, counted, m.kw["popularity"], m.kw["k"])
            if spec.is_set_level(m.kw):  # aggregate='rows': one mean over every counted row of the segment
                rows = f"rf__bm{i}"
                b.ctes[rows] = (
                    f"SELECT {b.g}, CASE WHEN SUM(rf__rows) = 0 THEN {_null()} ELSE "
                    f"SUM(rf__sum) / SUM(rf__rows) END AS rf__value, COUNT(*) AS rf__n FROM {per} GROUP BY {b.g}"
                )
            else:
                k = m.kw["k"]
                # the row-value metrics' list_denominator='k' (Novelty): the sum over k, not over the counted rows
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

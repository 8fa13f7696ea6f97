"""The SQL macros give the same answer whatever the order in which DuckDB's threads feed their aggregates (issue 19).

A float ``sum`` (or a ``list``) over a unit's rows without an ORDER BY depends on the order in which the rows reach
the aggregate, which DuckDB 1.4/1.5 vary from run to run with several threads: DCG/ERR/RBP of two byte-identical
systems then differed in the last bits, and ``rf_compare`` reported wins, losses and p-values down to 0.058 between
them. Every order-sensitive aggregate of ``sql/`` now carries an ORDER BY (or its list is sorted), which
``test_order_sensitive_aggregates_are_ordered`` checks on the text; the behavioural test runs the failing case.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe.sql

SQL = Path(__file__).resolve().parents[2] / "sql"

#: aggregates whose result depends on the order of their input rows (float sums, lists, strings)
ORDER_SENSITIVE = ("list", "array_agg", "string_agg", "sum", "avg", "product", "fsum", "sumkahan", "kahan_sum")
#: sums of integers (exact in any order), by their whole text
EXACT = {"sum(d.rf__n)", "sum(p.rf__c)", "sum(k.rf__n)", "sum(s.rf__rows)", "sum(s.rf__dups)"}  # counts (count(*))
#: the co-occurrence budget's work: |H| x |H ∩ L| per train query, products of two counts (BIGINT)
EXACT |= {"sum(w.rf__len * w.rf__in)"}
#: rf_agreement's disagreement weights are HUGEINT (0/1, |i - j|, (i - j)^2 of label indices): integer sums
EXACT |= {
    "sum(rf__agreement_w(u.rf__i, u.rf__j, lower(CAST(weights AS VARCHAR))))",
    "sum(CAST(r.rf__cnt AS HUGEINT) * c.rf__cnt * rf__agreement_w(r.rf__i, c.rf__j, lower(CAST(weights AS VARCHAR))))",
}
_CALL = re.compile(r"(?<![\w.])(" + "|".join(ORDER_SENSITIVE) + r")\(", re.I)


def _strip_comments(text: str) -> str:
    # '--' inside a string literal of the macros is never followed by text we check, so a plain cut is enough
    return re.sub(r"--[^\n]*", "", text)


def _close(text: str, start: int) -> int:
    """The index just after the parenthesis that closes the one at ``start`` (quotes respected)."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        ch = text[i]
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise AssertionError(f"unbalanced parentheses after {text[start - 20 : start + 40]!r}")


#: the macros of the one sum that is order-free by construction, rf__xsum and its parts rf__xsum_hi/_lo/_tail (integer
#: sums of fixed-point terms; its tail of terms outside 2^-88..2^44 is a float sum: sql/prepare.sql), held by
#: test_xsum_is_the_same_in_any_order below
ORDER_FREE = re.compile(r"CREATE OR REPLACE MACRO rf__xsum(_\w+)?\([^)]*\) AS.*?;", re.S)


def order_problems(text: str) -> list[str]:
    """The order-sensitive aggregate calls of one SQL text that have no ORDER BY (or sorted list) to fix them."""
    code = ORDER_FREE.sub("", _strip_comments(text))
    problems = []
    for m in _CALL.finditer(code):
        name, open_at = m.group(1).lower(), m.end() - 1
        end = _close(code, open_at)
        call = code[m.start() : end]
        after = code[end:].lstrip()
        if after.upper().startswith("FILTER"):  # sum(...) FILTER (WHERE ...) OVER? skip the filter first
            after = code[_close(code, end + code[end:].index("(")) :].lstrip()
        if after.upper().startswith("OVER"):  # a window: its frame must be ordered
            window = after[: _close(after, after.index("("))]
            if "ORDER BY" not in window.upper():
                problems.append(f"{call} {window}")
            continue
        if " ".join(call.split()) in EXACT or re.search(r"\bORDER\s+BY\b", call, re.I):
            continue
        before = code[: m.start()].rstrip()
        # list_sort(list(...)) and list_sort(coalesce(list(...) ...)): sorted after the fact, same result in any order
        if name in ("list", "array_agg") and re.search(r"list_sort\((\s*coalesce\()?$", before):
            continue
        problems.append(" ".join(call.split()))
    return problems


def test_the_static_check_finds_a_missing_order_by():
    # the check itself: an unordered float sum, list and window are found; ordered or sorted ones are not
    bad = "SELECT sum(x) FILTER (WHERE y), list(p), avg(g) OVER (PARTITION BY q), string_agg(s, ',')"
    assert len(order_problems(bad)) == 4
    good = (
        "SELECT sum(x ORDER BY p) FILTER (WHERE y), list(p ORDER BY p), list_sort(coalesce(list(p) FILTER (WHERE y),"
        " [])), avg(g) OVER (PARTITION BY q ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), "
        "rf__dcg_list(g), list_sum(g) -- list(x)"
    )
    assert order_problems(good) == []


@pytest.mark.parametrize("path", sorted(SQL.glob("*.sql")), ids=lambda p: p.name)
def test_order_sensitive_aggregates_are_ordered(path):
    assert order_problems(path.read_text(encoding="utf-8")) == [], (
        f"{path.name}: aggregate(s) whose result depends on the order of the rows need an ORDER BY"
    )


def _identical_systems() -> pd.DataFrame:
    # 40 queries x 150 ranked items with grades 0-3 and unjudged rows; system b is a byte-identical copy of a, and the
    # rows of both are shuffled together (so each unit's rows reach DuckDB's threads in no particular order)
    rng = np.random.default_rng(7)
    n_q, n_d = 60, 200
    base = pd.DataFrame(
        {
            "query": np.repeat(np.arange(n_q), n_d),
            "item": np.tile([f"d{i}" for i in range(n_d)], n_q),
            "rank": np.tile(np.arange(1, n_d + 1), n_q),
            "relevance": rng.choice([0.0, 1.0, 2.0, 3.0, np.nan], size=n_q * n_d, p=[0.5, 0.2, 0.1, 0.1, 0.1]),
        }
    )
    both = pd.concat([base.assign(system="a"), base.assign(system="b")], ignore_index=True)
    return both.sample(frac=1.0, random_state=3).reset_index(drop=True)


def test_identical_systems_compare_as_identical_with_threads():
    # Hand derivation: b's rows are a's rows, so every per-query difference b - a is exactly 0: no win, no loss,
    # n ties, delta 0, and (docs/sql.md "Comparing systems in SQL") no p-value and the note 'identical on every query'.
    # Failed before the ORDER BYs on DuckDB 1.4.5 / 1.5.6 (DCG, nDCG, ERR, RBP: wins and losses, p down to 0.18);
    # DuckDB 2.0.1 happened to keep the order here.
    con = rankframe.sql.install(duckdb.connect())
    try:
        con.execute("SET threads = 8")
        con.register("df", _identical_systems())
        con.execute("CREATE TABLE runs AS SELECT * FROM df")  # rows of both systems mixed, scanned by 8 threads
        metrics = ["AP", "CG", "DCG", "nDCG", "ERR", "RBP"]
        res = con.execute(
            f"SELECT metric, n, delta, wins, ties, losses, p_value, note FROM rf_compare('runs', baseline := 'a', "
            f"metrics := {metrics})"
        ).df()
        assert sorted(res["metric"]) == sorted(metrics)
        assert (res["wins"] == 0).all() and (res["losses"] == 0).all(), res
        assert (res["ties"] == 60).all() and (res["n"] == 60).all()
        assert (res["delta"] == 0.0).all()
        assert res["p_value"].isna().all()
        assert res["note"].str.startswith("identical on every query").all()
    finally:
        con.close()


def _xsum(con, values: list[float]) -> float:
    con.execute("CREATE OR REPLACE TEMP TABLE v AS SELECT unnest(?::DOUBLE[]) AS x", [values])
    return con.execute("SELECT rf__xsum(x) FROM v").fetchone()[0]


@pytest.mark.parametrize("seed", range(6))
def test_xsum_is_the_same_in_any_order(seed):
    # rf__xsum (sql/prepare.sql) replaces the ordered sums: the same multiset of values in any order gives the same
    # bits (a float sum in two orders differs here: the terms span 1e-26 .. 1e13, both signs), and every band's sum is
    # exact, so the result is within a few roundings of the exact sum (math.fsum, correctly rounded: the oracle)
    import math

    rng = np.random.default_rng(seed)
    values = list(rng.choice([-1, 1], 400) * 10.0 ** rng.uniform(-26, 13, 400))
    values += [2.0**-44, -(2.0**-44), 1.0, 2.0**-88, 0.25 + 2.0**-60, 2.0**44 - 1.0]  # the 3 bands' edges (1fff51b)
    # the band of the two integer sums is 2^-88 <= |x| <= 2^44 (issue 35): its edges, the doubles just outside it, 0,
    # and terms whose fmod(x, 2^-52) is not 0 (x = h * 2^-52 + l * 2^-140 with both parts whole numbers)
    values += [2.0**44, -(2.0**-88), 2.0**-88 * (1 - 2.0**-53), 2.0**44 * (1 + 2.0**-52), 0.0, 2.0**-52 * 3 + 2.0**-100]
    con = rankframe.sql.install(duckdb.connect())
    try:
        sums = {_xsum(con, list(rng.permutation(values))) for _ in range(5)}
        assert len(sums) == 1, sums
        assert abs(sums.pop() - math.fsum(values)) <= 2.0**-50 * math.fsum(abs(v) for v in values)
        # the ratio of two tiny sums keeps its precision (nERR with max_grade=50: terms ~ 2^-50; a fixed point in
        # units of 2^-64 gave 0.04999999403 for 0.05)
        tiny = [2.0**-50 / i for i in range(1, 6)]
        # (abs=0: pytest.approx's default abs=1e-12 passed any value near these tiny sums, also a wrong one)
        assert _xsum(con, tiny) == pytest.approx(math.fsum(tiny), rel=1e-15, abs=0)
        assert _xsum(con, [1e-30, 2e-30]) == pytest.approx(3e-30, rel=1e-15, abs=0)  # outside the bands: a float sum
        assert _xsum(con, [1e20, 1.0, -1e20]) in (0.0, 1.0)  # outside the bands: a float sum, as sum would give
        special = "SELECT rf__xsum(x) FROM (VALUES (CAST('{}' AS DOUBLE)), (1.0), (1e30)) AS v(x)"
        assert math.isnan(con.execute(special.format("nan")).fetchone()[0])  # NaN, as sum
        assert con.execute(special.format("inf")).fetchone()[0] == float("inf")
        assert _xsum(con, [None, None]) is None  # as sum: NULL when nothing is summed
    finally:
        con.close()

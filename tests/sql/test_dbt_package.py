"""The shipped dbt package (``dbt/``) in real dbt: dbt-duckdb and dbt-postgres build models equal to evaluate.

A tiny dbt project in tmp_path installs the repository's ``dbt/`` folder as the package ``rankframe`` (linked into
``dbt_packages/``, what ``dbt deps`` does for a ``local:`` package), loads a seed of long rows (unretrieved rows =
NULL rank and score, unjudged rows = NULL relevance, queries with nothing retrieved, nothing judged, nothing
relevant; score ties between items whose byte order differs from a collation's) and builds models calling
``rankframe.metrics`` (segments and per query, two ``by`` columns, policies, a ``columns=`` mapping with
``order_by='score'``, a ``by`` column whose name tries an injection). Each model's rows must equal
``rankframe.evaluate``'s tidy frame on the same rows to 1e-9. dbt starts slowly: one ``dbt build`` per adapter and
module. The PostgreSQL cluster is tests/postgres_cluster.py's (unix socket: dbt's ``host`` is the socket folder).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import postgres_cluster
import pytest
from loading import Later
from portable_cases import assert_same

import rankframe

dbt_main = Later("dbt.cli.main", reason="dbt-core (the test extra) runs the dbt package")  # at first use
pytestmark = pytest.mark.warehouse  # dbt builds, and one PostgreSQL cluster per run (tests/tiers.py)

PACKAGE = Path(__file__).resolve().parents[2] / "dbt"
INJECTION = 'we"ird; DROP TABLE recs; --'
#: model name -> (its call of rankframe.metrics, the same call of rankframe.evaluate on the seed's frame)
MODELS: dict[str, tuple[str, dict]] = {
    "by_country": (
        "rankframe.metrics(ref('recs'), ['nDCG@10', 'AP'], by=['country'])",
        {"metrics": ["nDCG@10", "AP"], "by": ["country"]},
    ),
    "per_query_two_by": (
        "rankframe.metrics(ref('recs'), ['P@5', 'RR', 'ERR@20', 'Rprec'], by=['country', 'device'], per_query=true)",
        {"metrics": ["P@5", "RR", "ERR@20", "Rprec"], "by": ["country", "device"], "per_query": True},
    ),
    "overall_policies": (
        "rankframe.metrics(ref('recs'), ['R@10', 'nDCG', 'Success@10'], no_relevant='nan', no_retrieved='skip', "
        "no_judged='zero')",
        {"metrics": ["R@10", "nDCG", "Success@10"], "no_relevant": "nan", "no_retrieved": "skip", "no_judged": "zero"},
    ),
    "by_score_renamed": (
        "rankframe.metrics(ref('renamed'), ['P@10', 'AP@100', 'RR@10'], by='country', order_by='score', "
        "columns={'query': 'qid', 'item': 'doc', 'relevance': 'grade', 'score': 'sc'})",
        {"metrics": ["P@10", "AP@100", "RR@10"], "by": "country", "renamed": True},
    ),
    "injection": (
        f"rankframe.metrics(ref('hostile'), ['AP'], by=['{INJECTION}'], per_query=true)",
        {"metrics": ["AP"], "by": [INJECTION], "per_query": True, "hostile": True},
    ),
}
#: models that must not compile: var rf_case -> (the call, words of the compile error)
BAD: dict[str, tuple[str, list[str]]] = {
    "unknown_metric": (
        "rankframe.metrics(ref('recs'), ['nDCG@7'])",
        ["'nDCG@7' is not in this generated package", "rankframe sql --dbt DIR", "-m 'nDCG@7'"],
    ),
    "collision": ("rankframe.metrics(ref('recs'), ['AP'], by=['value'])", ["by column 'value'", "output column"]),
}


def _runs() -> pd.DataFrame:
    """24 queries x 6 retrieved rows + 2 judged-not-retrieved rows, unjudged rows, and the edge queries."""
    rng = np.random.default_rng(23)
    pool = ["d01", "D02", "d2", "d10", "a", "B", "b", "doc_2", "doc2", "Doc3"]  # byte order != ICU order
    rows = []
    for q in range(24):
        items = rng.choice(len(pool), size=8, replace=False)
        grades = rng.integers(0, 4, size=8).astype(float)
        grades[rng.random(8) < 0.2] = np.nan  # unjudged
        scores = np.round(rng.random(8), 1)  # ties
        for r, (i, g, s) in enumerate(zip(items, grades, scores)):
            retrieved = r < 6 and q != 5  # query 5: nothing retrieved
            grade = np.nan if q == 7 else (0.0 if q == 9 and not np.isnan(g) else g)  # 7: nothing judged, 9: none rel.
            rows.append(
                (q, pool[i], float(r + 1) if retrieved else np.nan, grade, float(s) if retrieved else np.nan,
                 "fr" if q % 3 else "de", "mobile" if q % 2 else "desktop")
            )  # fmt: skip
    return pd.DataFrame(rows, columns=["query", "item", "rank", "relevance", "score", "country", "device"])


def _expected(call: dict) -> pd.DataFrame:
    df = _runs()
    kwargs = {k: v for k, v in call.items() if k not in ("metrics", "renamed", "hostile")}
    if call.get("renamed"):
        df = df.drop(columns="rank").rename(
            columns={"query": "qid", "item": "doc", "relevance": "grade", "score": "sc"}
        )
        kwargs["columns"] = {"query": "qid", "item": "doc", "relevance": "grade", "score": "sc"}
    if call.get("hostile"):
        df = df.rename(columns={"country": INJECTION})
    return rankframe.evaluate(df, call["metrics"], **kwargs)


def _csv_cell(v: object) -> str:
    return (
        ""
        if v is None or (isinstance(v, float) and math.isnan(v))
        else str(int(v) if isinstance(v, float) and v.is_integer() and not isinstance(v, bool) else v)
    )


def _project(root: Path, profile: str) -> Path:
    """The dbt project: the package linked in, the seed, the models, a profiles.yml with ``profile``."""
    (root / "models").mkdir(parents=True)
    (root / "seeds").mkdir()
    (root / "dbt_packages").mkdir()
    os.symlink(PACKAGE, root / "dbt_packages" / "rankframe")
    (root / "dbt_project.yml").write_text(
        "name: rf_models\nversion: '1.0.0'\nconfig-version: 2\nprofile: rf\n"
        "flags:\n  send_anonymous_usage_stats: false\n  use_colors: false\n"
        "models:\n  rf_models:\n    +materialized: table\n"
        "seeds:\n  rf_models:\n    recs:\n      +column_types: {query: integer, item: text, rank: integer, "
        "relevance: integer, score: float8, country: text, device: text}\n"
    )
    (root / "packages.yml").write_text(f"packages:\n  - local: {PACKAGE}\n")
    (root / "profiles.yml").write_text(profile)
    df = _runs()
    lines = [",".join(df.columns)] + [",".join(_csv_cell(v) for v in rec) for rec in df.itertuples(index=False)]
    (root / "seeds" / "recs.csv").write_text("\n".join(lines) + "\n")
    models = {name: "{{ " + call + " }}\n" for name, (call, _) in MODELS.items()}
    models["renamed"] = (
        "select query as qid, item as doc, relevance as grade, score as sc, country from {{ ref('recs') }}\n"
    )
    quoted = '"' + INJECTION.replace('"', '""') + '"'
    models["hostile"] = f"select query, item, rank, relevance, country as {quoted} from {{{{ ref('recs') }}}}\n"
    for case, (call, _) in BAD.items():
        models[f"bad_{case}"] = (
            f"{{% if var('rf_case', '') == '{case}' %}}{{{{ {call} }}}}{{% else %}}select 1 as ok{{% endif %}}\n"
        )
    for name, sql in models.items():
        (root / "models" / f"{name}.sql").write_text(sql)
    return root


def _dbt(root: Path, *args: str) -> object:
    common = ["--project-dir", str(root), "--profiles-dir", str(root), "--log-path", str(root / "logs")]
    return dbt_main.dbtRunner().invoke([*args, "--quiet", *common, "--target-path", str(root / "target")])


def _build(root: Path) -> float:
    start = time.perf_counter()
    result = _dbt(root, "build")
    seconds = time.perf_counter() - start
    assert result.success, f"dbt build failed: {result.exception}"
    print(f"dbt build ({root.name}): {seconds:.1f} s")
    return seconds


@pytest.fixture(scope="module")
def on_duckdb(tmp_path_factory) -> Iterator[tuple[Path, Callable[[str], pd.DataFrame]]]:
    pytest.importorskip("dbt.adapters.duckdb", reason="dbt-duckdb (the test extra) builds the models on DuckDB")
    import duckdb

    root = tmp_path_factory.mktemp("dbt_duckdb")
    path = root / "rf.duckdb"
    _project(
        root, f"rf:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: '{path}'\n      threads: 1\n"
    )
    _build(root)

    def read(model: str) -> pd.DataFrame:
        with duckdb.connect(str(path)) as con:  # dbt (in this process) holds it open read-write
            return con.execute(f'SELECT * FROM main."{model}"').df()

    yield root, read


@pytest.fixture(scope="module")
def on_postgres(tmp_path_factory, postgres_socket) -> Iterator[Callable[[str], pd.DataFrame]]:
    pytest.importorskip("dbt.adapters.postgres", reason="dbt-postgres (the test extra) builds the models")
    psycopg = pytest.importorskip("psycopg", reason="psycopg (the test extra) reads the models back")
    socket_dir = postgres_socket
    dbname = postgres_cluster.database(socket_dir, "rf_dbt")
    root = tmp_path_factory.mktemp("dbt_postgres")
    _project(
        root,
        "rf:\n  target: t\n  outputs:\n    t:\n      type: postgres\n"
        f"      host: '{socket_dir}'\n      port: 5432\n      user: {postgres_cluster.USER}\n      password: ''\n"
        f"      dbname: {dbname}\n      schema: public\n      threads: 1\n",
    )
    _build(root)

    def read(model: str) -> pd.DataFrame:
        with psycopg.connect(host=socket_dir, user=postgres_cluster.USER, dbname=dbname) as con:
            with con.cursor() as cur:
                cur.execute(f'SELECT * FROM public."{model}"')
                return pd.DataFrame(cur.fetchall(), columns=[d.name for d in cur.description])

    yield read


def _same(want: pd.DataFrame, got: pd.DataFrame) -> None:
    got = got if "n" in want.columns else got.drop(columns=["n"], errors="ignore")
    assert_same(want, got)


@pytest.mark.parametrize("model", list(MODELS))
def test_duckdb_model_equals_evaluate(on_duckdb, model):
    _, read = on_duckdb
    _same(_expected(MODELS[model][1]), read(model))


@pytest.mark.parametrize("model", list(MODELS))
def test_postgres_model_equals_evaluate(on_postgres, model):
    _same(_expected(MODELS[model][1]), on_postgres(model))


def test_injection_is_a_column_name(on_duckdb):
    """The by column's name went through as one quoted identifier: the table recs is still there."""
    root, read = on_duckdb
    assert INJECTION in read("injection").columns
    assert len(read("recs")) == len(_runs())


@pytest.mark.parametrize("case", list(BAD))
def test_bad_call_fails_at_compile_time(on_duckdb, case):
    root, _ = on_duckdb
    result = _dbt(root, "compile", "--select", f"bad_{case}", "--vars", f"{{rf_case: {case}}}")
    assert not result.success
    message = str(result.exception)
    for words in ["rankframe.metrics: ", *BAD[case][1]]:
        assert words in message, (words, message)

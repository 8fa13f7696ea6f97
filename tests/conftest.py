"""Shared fixtures: hypothesis profiles, the ../shared/data path, and the engine parametrization."""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings

# ranx's numba functions (the oracle tier) compile with LLVM's optimisation level 1, into a cache of the tests' own in
# the venv: warm from the second run on, and never loaded by a benchmark in the same venv (bench/ times ranx at level 3).
# One ranx fuse, cold: level 3 63 s, level 1 49 s; warm: 17 s (9 s of it importing ranx). Level 0 is as fast cold but
# numba will not cache what it compiles ("uses dynamic globals"), so every run compiled again.
os.environ.setdefault("NUMBA_OPT", "1")
if "NUMBA_CACHE_DIR" not in os.environ:
    _cache = Path(sys.prefix) / "rankframe-tests-numba-cache"
    os.environ["NUMBA_CACHE_DIR"] = str(
        _cache if os.access(sys.prefix, os.W_OK) else Path(tempfile.gettempdir()) / _cache.name
    )

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracle.py, tests/strategies.py
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # rankframe from this tree

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# CI draws the same examples every run (a red CI always means a changed behaviour, never a new random draw);
# `dev` (the default outside CI: the README's command, the quick loop) draws as many, new random ones on every run,
# and `thorough` ten times as many. (dev drew twice CI's examples until the fast loop: the tests' biggest cost.)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=_SUPPRESS, print_blob=True, derandomize=True
)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=_SUPPRESS, print_blob=True)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=_SUPPRESS)
# `quick`: the quick loop's (tests/tiers.py `quick_profile`: `-m "not slow"` outside CI): a sixth of the examples, new
# ones every run; every hand case and every face's parity still runs, on fewer random tables
settings.register_profile("quick", max_examples=10, deadline=None, suppress_health_check=_SUPPRESS, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (real TREC data); skip loudly when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"!!! SHARED TEST DATA NOT FOUND at {SHARED_DATA} — trec_eval/robust03/ir_measures parity "
            f"tests were NOT run. Put the shared/ folder next to the repository. !!!"
        )
    return SHARED_DATA


# Every engine, always: an engine that fails to import must fail the suite, not silently leave it.
ENGINES = ["pandas", "duckdb"]
importlib.import_module("rankframe.engines.duckdb_engine")


def engines_slow_on(*slow: str) -> list:
    """Every engine as ``parametrize("engine", ...)`` values, those named ``slow`` marked slow (the quick loop runs the
    others; the whole suite runs all)."""
    return [pytest.param(e, marks=pytest.mark.slow) if e in slow else e for e in ENGINES]


@pytest.fixture(params=ENGINES)
def engine(request) -> str:
    """Every engine rankframe has: the same test body runs on each."""
    return request.param


def hypothesis_examples(ci: int) -> int:
    """A test's example count in the active profile: ``ci`` in ci and dev (dev draws new ones), 10x in thorough,
    a sixth (at least 1) in quick."""
    name = settings._current_profile  # noqa: SLF001
    if name == "thorough":
        return 10 * ci
    if name == "quick":
        return max(1, -(-ci // 6))
    return ci


# --------------------------------------------------------------------------- real TREC data, parsed here
# (plain pandas, ids as str; the IO module is tested elsewhere and not relied on)


def read_qrels(path) -> pd.DataFrame:
    """TREC qrels ``qid iter docno rel`` -> DataFrame(query, item, relevance) with string ids."""
    import pandas as pd

    df = pd.read_csv(
        path,
        sep=r"\s+",
        header=None,
        names=["query", "iter", "item", "relevance"],
        dtype={"query": str, "iter": str, "item": str, "relevance": "int64"},
        comment="#",
    )
    return df[["query", "item", "relevance"]]


def read_run(path) -> pd.DataFrame:
    """TREC run ``qid Q0 docno rank score tag`` -> DataFrame(query, item, score) with string ids.

    The file's rank column is dropped: trec_eval orders by score (ties: docno descending) and ignores it.
    """
    import pandas as pd

    df = pd.read_csv(
        path,
        sep=r"\s+",
        header=None,
        names=["query", "q0", "item", "rank", "score", "tag"],
        dtype={"query": str, "q0": str, "item": str, "rank": "int64", "score": "float64", "tag": str},
    )
    return df[["query", "item", "score"]]


def long_table(run, qrels) -> pd.DataFrame:
    """One long table (query, item, score, relevance): retrieved rows plus judged-unretrieved rows."""
    return run.merge(qrels, on=["query", "item"], how="outer")


def trec_dicts(run, qrels) -> tuple[dict, dict]:
    """pytrec_eval dicts from parsed run/qrels frames."""
    q: dict = {}
    for a, b, c in zip(qrels["query"], qrels["item"], qrels["relevance"]):
        q.setdefault(a, {})[b] = int(c)
    r: dict = {}
    for a, b, c in zip(run["query"], run["item"], run["score"]):
        r.setdefault(a, {})[b] = float(c)
    return q, r


#: the trec_eval measures checked on the real data (test_oracle_vs_trec for the oracle, test_trec_parity for every
#: engine): one list, so the two ladders check the same measures
REAL_MEASURES = ["P@5", "P@10", "P@20", "R@5", "R@10", "R@100", "R@1000", "AP", "AP@10", "AP@100", "RR", "nDCG",
                 "nDCG@5", "nDCG@10", "nDCG@20", "Rprec", "Success@1", "Success@5", "Success@10", "Bpref"]  # fmt: skip


def with_level(metric: str, level: int) -> str:
    """The metric at trec_eval's ``-l level`` (nDCG ignores -l in trec_eval: gains are the grades)."""
    if level == 1 or metric.startswith("nDCG"):
        return metric
    name, _, k = metric.partition("@")
    return f"{name}(rel={level})" + (f"@{k}" if k else "")


REAL = {
    # name: (qrels, run, trec_eval -l level)
    "trec_eval_test": ("trec_eval/test/qrels.test", "trec_eval/test/results.test", 1),
    "trec_eval_rel_level": ("trec_eval/test/qrels.rel_level", "trec_eval/test/results.test", 2),
    "compat": ("ir_measures_compat/compat.qrels", "ir_measures_compat/compat.run", 1),
    **{
        f"robust03_{r}": ("trectools_robust03/robust03_qrels.txt.gz", f"trectools_robust03/runs/input.{r}.gz", 1)
        for r in ["MU03rob01", "NLPR03vb10", "humR03dc", "pircRBa1", "rutcor03100", "uic0301"]
    },
}

_CACHE: dict = {}


def load_real(shared: Path, name: str):
    """``(run, qrels, level)`` frames of one real data set (cached per session)."""
    if name not in _CACHE:
        qp, rp, level = REAL[name]
        _CACHE[name] = (read_run(shared / rp), read_qrels(shared / qp), level)
    return _CACHE[name]


# the tiers' hooks (tests/tiers.py): markers, the scheduling that starts Spark, PostgreSQL and ranx once, the run's check
import timing  # noqa: E402
from tiers import (  # noqa: E402, F401
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_setup,
    pytest_sessionfinish,
    pytest_xdist_make_scheduler,
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Every item's CPU seconds into the JUnit file (tests/timing.py; ``python -m tests.timing FILE`` sums them).

    Registered as a plugin, not imported here: a conftest's test hooks reach only the items of its folder, and the
    doctests of rankframe/ are items too.
    """
    if not session.config.pluginmanager.is_registered(timing):
        session.config.pluginmanager.register(timing, "rankframe-timing")


@pytest.fixture(scope="session")
def postgres_socket():
    """One throwaway PostgreSQL cluster per run (tests/postgres_cluster.py), shared by the ``warehouse`` tier.

    Each module works in a database of its own (``postgres_database``), so the modules never see each other's tables.
    """
    import postgres_cluster

    with postgres_cluster.cluster() as socket_dir:
        yield socket_dir

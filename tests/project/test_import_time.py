"""What a bare ``import rankframe`` (and the CLI's start-up) loads: only what every call needs.

Every CLI call and every test that starts Python pays the import, so the heavy dependencies are imported on the
path that uses them (issue 36: ``import rankframe`` at most ~0.3 s over ``import pandas``). The list is held by
module names, not by a timing, so it holds on a loaded machine too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: modules a bare ``import rankframe`` must not load, with the path that imports them and why
FORBIDDEN = {
    "scipy": "~1 s (scipy.stats); imported by the tests and intervals (rankframe.stats), ARP's rank, beyond lists",
    "pandera": "~1 s with its pandas engine; imported when a schema is built (schema()) or a failure is reported",
    "hypothesis": "pandera's strategies pull it in: the same path as pandera",
    "pyspark": "pandera imports pyspark.pandas when PySpark is installed; rankframe.spark imports it on its path",
    "matplotlib": "the plot extra: imported when a plot or the report is drawn",
    "sqlglot": "the portable SQL dialects: imported when a dialect other than DuckDB is rendered",
    "polars": "a polars table is read only when one is given (the namespace registers without importing polars)",
    "duckdb": "the SQL face and the DuckDB engine: imported on their paths",
    "rankframe.plot": "a lazy attribute of rankframe (rankframe/__init__.py __getattr__)",
    "rankframe.spark": "the Spark face: imported by its user",
}

_LIST_MODULES = "import json, sys; print(json.dumps(sorted(sys.modules)))"


def _loaded(code: str) -> list[str]:
    p = subprocess.run(
        [sys.executable, "-c", f"{code}\n{_LIST_MODULES}"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def _forbidden(loaded: list[str]) -> dict[str, str]:
    # a submodule's import loads its package first: the top name of each entry is enough
    return {name: why for name, why in FORBIDDEN.items() if name in loaded}


#: what the ``rankframe`` command's start-up (``--help``, ``--version``, a usage error) must not load besides FORBIDDEN:
#: ``import pandas`` alone is 0.5-0.9 s here, the whole budget of ``rankframe --help`` (issue 36: under ~0.6 s).
#: rankframe/__init__.py imports its public names at first use; rankframe/cli/__init__.py builds the full parser
#: of the command that runs only, importing its module then
CLI_FORBIDDEN = {
    "pandas": "the tables: imported when a command runs (its module in rankframe.cli)",
    "numpy": "the engines: the same",
    "pyarrow": "the files: the same",
    "rankframe.registry": "the metric declarations (numpy): a command's options (policies, metric names) read them",
}

_HELP = (
    "import contextlib, io\nfrom rankframe.cli import main\n"
    "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])"
)


@pytest.mark.parametrize(
    "code",
    [
        "import rankframe",
        # the first use: the engines and the accessor load, still without a heavy optional dependency
        "import pandas as pd, rankframe\npd.DataFrame({'query': [1], 'item': [1], 'rank': [1], 'relevance': [1]})"
        ".rank_metrics.ap()",
        _HELP,  # the CLI's start-up: `rankframe --help` (argparse exits after printing the help)
    ],
    ids=["import", "first-use", "cli-help"],
)
def test_a_bare_import_loads_no_heavy_dependency(code):
    loaded = _loaded(code)
    assert "rankframe" in loaded  # the probe saw the import
    found = _forbidden(loaded)
    assert not found, f"loaded by {code.splitlines()[-1]!r}, import them on their path instead: {found}"


@pytest.mark.parametrize("code", ["import rankframe", _HELP], ids=["import", "cli-help"])
def test_the_start_up_loads_no_pandas(code):
    loaded = _loaded(code)
    assert "rankframe.cli" in loaded or code == "import rankframe"
    found = {name: why for name, why in CLI_FORBIDDEN.items() if name in loaded}
    assert not found, f"{code.splitlines()[-1]!r} loads {found}: import them when a command runs"


def test_a_command_loads_its_module():
    # the other side: a command that runs has its full parser and its libraries (rankframe evaluate --help)
    loaded = _loaded(_HELP.replace("['--help']", "['evaluate', '--help']"))
    assert "rankframe.cli.evaluate" in loaded and "pandas" in loaded
    assert "rankframe.cli.compare" not in loaded  # the other commands are names and help lines only


def test_the_lazy_attributes_and_every_public_name_resolve():
    # the lazy submodules stay attributes (rankframe.plot.at_k) and every name of __all__ is importable
    loaded = _loaded(
        "import rankframe\nassert callable(rankframe.plot.at_k) and callable(rankframe.sql.register) and rankframe.display\n"
        "for name in rankframe.__all__:\n    exec(f'from rankframe import {name}')\n"
        "import rankframe.plot, rankframe.display, rankframe.sql\n"
        "assert 'plot' in dir(rankframe)"
    )
    assert "rankframe.plot" in loaded
    assert "matplotlib" not in loaded  # rankframe.plot imports matplotlib when a plot is drawn


def test_every_submodule_is_an_attribute_in_a_fresh_process():
    # before the lazy package, `import rankframe` imported fusion, stats, ... so `rankframe.fusion.METHODS` worked
    # after a bare import; it still does (found by the DuckDB leg, whose test_fusion_sql_parity.py reads it first)
    loaded = _loaded(
        "import rankframe\nassert rankframe.fusion.METHODS and rankframe.stats and rankframe.metrics\n"
        "assert not hasattr(rankframe, 'no_such_module')"
    )
    assert "rankframe.fusion" in loaded

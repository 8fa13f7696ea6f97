"""Calls that never returned (issue 33): each is bounded by a documented limit and refused quickly beyond it.

Each call runs in a subprocess with a timeout (the old code ran for days: the timeout is the failure), and must end
with rankframe's error naming the parameter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import rankframe
from rankframe.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]
#: the subprocess imports rankframe and scipy on a loaded machine: generous, far below "never returns"
TIMEOUT = 120


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=ROOT
    )


@pytest.mark.slow  # a subprocess importing scipy
def test_topic_set_size_of_a_tiny_effect_is_refused_quickly():
    # |delta| / sd = 1e-8 needs about ((1.96 + 0.84) / 1e-8)^2 ~ 7.8e16 queries, beyond the documented 2**40
    # and in an array: 1e-9 passed the old pre-check (1e-9 * 2**20 > 1e-3) and doubled forever
    done = _python(
        "import rankframe\n"
        "for delta in (1e-8, [0.1, 1e-9]):\n"
        "    try:\n        rankframe.topic_set_size(delta, 1.0)\n"
        "    except rankframe.ParameterError as e:\n        print('ParameterError', e)\n"
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stderr
    assert all(line.startswith("ParameterError The 'delta' parameter of topic_set_size") for line in lines)
    assert "more than 1,099,511,627,776 queries" in lines[0]


def test_topic_set_size_below_the_limit_still_answers():
    # d_z = 1e-5: ~7.85e10 queries (< 2**40), the normal approximation ((1.96 + 0.8416) / 1e-5)^2 = 7.849e10
    assert abs(rankframe.topic_set_size(1e-5, 1.0) / 7.849e10 - 1) < 1e-3


@pytest.mark.slow  # a subprocess importing rankframe and sqlglot
def test_dbt_max_by_beyond_its_limit_is_a_usage_error_at_once(tmp_path):
    pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) writes the dbt package")
    out = tmp_path / "pkg"
    done = _python(
        "import sys\nfrom rankframe.cli import main\n"
        f"sys.exit(main(['sql', '--dbt', {str(out)!r}, '--dbt-max-by', '100000']))\n"
    )
    assert done.returncode == 2, done.stderr
    assert "'max_by' parameter of rankframe sql --dbt must be an int in [0, 16]" in done.stderr
    assert not out.exists()


def test_dbt_refuses_a_missing_parent_folder(tmp_path, capsys):
    pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) writes the dbt package")
    from rankframe.cli import main
    from rankframe.warehouse import dbt

    deep = tmp_path / "no" / "such" / "pkg"
    assert main(["sql", "--dbt", str(deep), "-m", "P@10", "--dbt-max-by", "0"]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(ParameterError, match="does not exist"):
        dbt.write(deep, ["P@10"], max_by=0)
    assert not (tmp_path / "no").exists()
    # the package's own folder is created in an existing parent
    assert main(["sql", "--dbt", str(tmp_path / "pkg"), "-m", "P@10", "--dbt-max-by", "0"]) == 0
    assert (tmp_path / "pkg" / "dbt_project.yml").is_file()

"""The repository's dbt/ folder is what ``rankframe sql --dbt dbt`` writes today (render's statements change)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) writes the dbt package")

from rankframe.warehouse import dbt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # generates the whole dbt package again (a freshness check CI makes)
def test_dbt_folder_is_current():
    want = dbt.package()
    have = {p.relative_to(ROOT / "dbt").as_posix(): p for p in (ROOT / "dbt").rglob("*") if p.is_file()}
    assert sorted(have) == sorted(want), "dbt/ has other files than the generator writes: run rankframe sql --dbt dbt"
    stale = [name for name, text in want.items() if have[name].read_text(encoding="utf-8") != text]
    assert not stale, f"dbt/ is out of date ({', '.join(stale)}): run `rankframe sql --dbt dbt` and commit it"

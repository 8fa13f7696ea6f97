"""The example notebook runs top to bottom on the bundled data."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_notebook_runs(monkeypatch, capsys):
    nb = json.loads((ROOT / "examples" / "quickstart.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 5
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for cell in code:
        exec(compile(cell, "quickstart.ipynb", "exec"), namespace)  # noqa: S102 - our own notebook
    out = capsys.readouterr().out
    assert "must be unique" in out  # the last cell shows the validation error

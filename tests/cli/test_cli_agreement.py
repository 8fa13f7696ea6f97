"""``rankframe agreement`` gives rankframe.agreement's numbers, and its errors name the command's options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def labels(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    n = 120
    human = rng.integers(0, 4, n)
    llm = np.where(rng.random(n) < 0.6, human, rng.integers(0, 4, n)).astype(float)
    llm[:3] = np.nan
    path = tmp_path / "labels.csv"
    pd.DataFrame({"query": rng.integers(0, 15, n), "item": np.arange(n), "human": human, "llm": llm,
                  "topic": rng.choice(["nav", "info"], n)}).to_csv(path, index=False)  # fmt: skip
    return path


def _json(capsys, argv: list[str]) -> pd.DataFrame:
    assert main(argv) == 0
    return pd.DataFrame(json.loads(capsys.readouterr().out))


def test_cli_json_equals_the_function(capsys, labels):
    got = _json(capsys, ["agreement", str(labels), "--by", "topic", "--weights", "quadratic", "--ci", "0.9",
                         "--n-resamples", "200", "--seed", "4", "--format", "json"])  # fmt: skip
    table = rankframe.read_long(labels, numeric=["human", "llm"])  # ids as text, as the command reads them
    want = rankframe.agreement(table, by="topic", weights="quadratic", ci=0.9, n_resamples=200, seed=4)
    assert list(got.columns) == list(want.columns)
    for col in ("n", "agreement", "kappa", "ci_low", "ci_high"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), rel=1e-15)
    assert [None if pd.isna(v) else v for v in got["note"]] == want["note"].tolist()


def test_cli_several_coders(capsys, tmp_path):
    path = tmp_path / "ratings.parquet"
    r = pd.DataFrame({"unit": [1, 1, 2, 2, 3, 3], "annotator": list("xyxyxy"), "grade": [1, 1, 2, 2, 1, 2]})
    r.to_parquet(path)
    got = _json(capsys, ["agreement", str(path), "--coder", "annotator", "--value", "grade", "--unit", "unit",
                         "--format", "json"])  # fmt: skip
    assert got["alpha"].iloc[0] == pytest.approx(4 / 9, abs=1e-15)  # tests/rung1_hand/test_agreement_hand.py


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--ci", "2"], "--ci must be a float in the open interval (0, 1)"),
        (["--a", "llm"], "--a and --b name the same column 'llm'"),
        (["--by", "kappa"], "--by names 'kappa', an output column"),
        (["--rel", "1", "--coder", "human"], "--rel is a two-coder option"),
        (["--labels", "0,x"], "--labels takes numbers"),
        (["--labels", "0,1"], "outside the scale --labels"),
        (["--a", "hum"], "column 'hum' not in dataframe (did you mean 'human'?)"),
    ],
)
def test_cli_errors_name_the_options(capsys, labels, argv, words):
    assert main(["agreement", str(labels), *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "parameter of agreement" not in err and "=" not in err.split("error:", 1)[1]


def test_cli_subprocess_table(labels):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "rankframe", "agreement", str(labels), "--by", "topic"],
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["topic", "n", "agreement", "kappa"] and len(lines) == 3

"""`rankframe fuse`: the fused run the command writes is rankframe.fuse's, in a TREC run or a long table.

Judges: values derived by hand in comments, and ``rankframe.fuse`` called on the same input (the command must
only read, pass on and write). Errors: the flags' words and docs/cli.md's exit statuses (2: usage or input).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.cli import EXIT_ERROR, main
from rankframe.fusion import METHODS, NORMS
from rankframe.tables.io import read_trec_run

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
PAIRED, RUN, RUN_B, QRELS = EX / "paired.parquet", EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels"


def run_main(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def fused_by_library(df: pd.DataFrame, method: str, **kw) -> pd.DataFrame:
    return rankframe.fuse(df, method, **kw).iloc[len(df) :].reset_index(drop=True)


def test_rrf_of_two_trec_runs_by_hand(capsys, tmp_path):
    out_path = tmp_path / "fused.run"
    code, out, err = run_main(capsys, "fuse", RUN, RUN_B, "--method", "rrf", "--k", "1", "-o", out_path)
    assert (code, out, err) == (0, "", "")
    fused = read_trec_run(out_path, with_rank=True)
    assert set(fused["system"]) == {"rrf"}  # the TREC tag is the fused run's name (default: the method's)
    # query 002, k = 1: tiny ranks D12 1, D11 2, D13 3; tiny-b ranks D19 1, D12 2
    # D12 = 1/(1+1) + 1/(1+2) = 0.8333; D19 = 1/2; D11 = 1/3; D13 = 1/4
    q2 = fused[fused["query"] == "002"]
    assert q2["item"].tolist() == ["D12", "D19", "D11", "D13"]
    assert q2["rank"].tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(q2["score"], [1 / 2 + 1 / 3, 1 / 2, 1 / 3, 1 / 4])
    # every query: the library's fused run on the same runs (named as compare names them: their tags)
    runs = read_trec_run([RUN, RUN_B])
    expected = fused_by_library(runs, "rrf", k=1)
    got = fused.drop(columns="rank")
    pd.testing.assert_frame_equal(
        got.sort_values(["query", "item"]).reset_index(drop=True),
        expected[got.columns].sort_values(["query", "item"]).reset_index(drop=True),
        check_exact=False,
        rtol=1e-12,
    )


def test_dash_writes_the_trec_run_to_stdout(capsys, tmp_path):
    args = ("fuse", RUN, RUN_B, "--method", "combsum", "--norm", "min-max", "--name", "hyb")
    code, out, _ = run_main(capsys, *args, "-o", "-")
    assert code == 0
    run_main(capsys, *args, "-o", tmp_path / "f.run")
    assert out == (tmp_path / "f.run").read_text()
    assert all(line.split()[5] == "hyb" for line in out.splitlines())


def test_weights_are_passed_to_fuse(capsys, tmp_path):
    out_path = tmp_path / "w.run"
    code, _, err = run_main(
        capsys, "fuse", RUN, RUN_B, "--method", "wsum", "--norm", "max", "--weights", "tiny=0.7", "--weights",
        "tiny-b=0.3", "-o", out_path,
    )  # fmt: skip
    assert code == 0, err
    expected = fused_by_library(read_trec_run([RUN, RUN_B]), "wsum", norm="max", weights={"tiny": 0.7, "tiny-b": 0.3})
    got = read_trec_run(out_path).sort_values(["query", "item"]).reset_index(drop=True)
    np.testing.assert_allclose(got["score"], expected.sort_values(["query", "item"])["score"], rtol=1e-12)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_long_table_in_and_out(capsys, tmp_path, suffix):
    df = pd.read_parquet(PAIRED)
    runs = df[df["system"].isin(["bm25", "dense"])].rename(columns={"system": "model"})
    table = tmp_path / "runs.parquet"
    runs.to_parquet(table)
    out_path = tmp_path / f"fused{suffix}"
    code, _, err = run_main(
        capsys, "fuse", table, "--system", "model", "--method", "rrf", "--k", "2", "--rank-base", "0",
        "--name", "qdrant", "-o", out_path,
    )  # fmt: skip
    assert code == 0, err
    expected = fused_by_library(runs, "rrf", system="model", k=2, rank_base=0, name="qdrant")
    got = pd.read_parquet(out_path) if suffix == ".parquet" else pd.read_csv(out_path, dtype={"query": str})
    assert list(got.columns) == list(expected.columns) and set(got["model"]) == {"qdrant"}
    pd.testing.assert_series_equal(got["item"], expected["item"].astype(got["item"].dtype))
    np.testing.assert_allclose(got["score"], expected["score"], rtol=1e-12)
    # judged items no run retrieved are fused rows with a null rank (docs/fusion.md)
    assert got["rank"].fillna(-1).astype(int).tolist() == expected["rank"].fillna(-1).astype(int).tolist()


def test_fused_run_then_evaluate_end_to_end(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(capsys, "fuse", RUN, RUN_B, "--method", "rrf", "-o", "fused.run")
    assert code == 0, err
    code, out, err = run_main(capsys, "evaluate", "fused.run", "--qrels", QRELS, "-m", "AP", "--format", "csv")
    assert code == 0, err
    value = float(out.splitlines()[1].split(",")[-2])
    fused = rankframe.fuse(rankframe.io.read_trec([RUN, RUN_B], QRELS), "rrf")
    expected = rankframe.evaluate(fused[fused["system"] == "rrf"], ["AP"])["value"].iloc[0]
    assert value == pytest.approx(expected, abs=1e-12)


def test_help_lists_the_declared_methods_and_norms(capsys):
    with pytest.raises(SystemExit):
        main(["fuse", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in [*METHODS, *NORMS])


def test_bad_method_in_the_flags_words(capsys, tmp_path):
    code, _, err = run_main(capsys, "fuse", RUN, RUN_B, "--method", "rff", "-o", tmp_path / "x.run")
    assert code == EXIT_ERROR
    assert err.startswith("rankframe: error: --method must be one of rrf,") and "did you mean 'rrf'?" in err
    assert "parameter of fuse" not in err and not (tmp_path / "x.run").exists()


def test_weights_for_an_unknown_system(capsys, tmp_path):
    code, _, err = run_main(
        capsys, "fuse", RUN, RUN_B, "--method", "wsum", "--norm", "min-max", "--weights", "tiny=1,bm25=2",
        "-o", tmp_path / "x.run",
    )  # fmt: skip
    assert code == EXIT_ERROR
    assert "--weights names the system 'bm25'" in err and "['tiny', 'tiny-b']" in err
    code, _, err = run_main(capsys, "fuse", RUN, RUN_B, "--weights", "tiny", "-o", tmp_path / "x.run")
    assert code == EXIT_ERROR and "--weights takes SYSTEM=WEIGHT pairs" in err


def test_mixed_scales_name_the_norm_option(capsys, tmp_path):
    # tiny's scores span 0.5..9.5, tiny-b's 0.4..0.91: a raw CombSUM would be tiny's order
    code, _, err = run_main(capsys, "fuse", RUN, RUN_B, "--method", "combsum", "-o", tmp_path / "x.run")
    assert code == EXIT_ERROR and "--norm none" in err and "norm=" not in err


@pytest.mark.parametrize(
    ("inputs", "args", "words"),
    [
        ([RUN, "nope.run"], [], "nope.run: file not found"),
        ([RUN], [], "fuse needs at least 2 systems: give 2 or more TREC runs"),
        ([RUN, PAIRED], [], "mix of long tables and TREC runs"),
        ([PAIRED, PAIRED], [], "fuse takes one long table holding every system"),
        ([RUN, RUN_B], ["--k", "-1"], "--k must be a number >= 0"),
        ([RUN, RUN_B], ["--name", "tiny"], "pass another --name"),
        ([RUN, RUN_B], ["--system", "model"], "--system names the system column of one long table"),
    ],
)
def test_input_and_usage_errors(capsys, tmp_path, inputs, args, words):
    code, _, err = run_main(capsys, "fuse", *inputs, *args, "-o", tmp_path / "x.run")
    assert code == EXIT_ERROR and words in err, err
    assert "Traceback" not in err and not (tmp_path / "x.run").exists()


def test_output_is_required(capsys):
    with pytest.raises(SystemExit) as e:
        main(["fuse", str(RUN), str(RUN_B)])
    assert e.value.code == EXIT_ERROR

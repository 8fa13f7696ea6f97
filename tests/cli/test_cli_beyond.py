"""`rankframe evaluate --train FILE --catalog FILE`: the beyond-accuracy metrics from the command line.

Microsoft Recommenders' `diversity_data` fixture (tests/unit/recommenders/evaluation/test_python_evaluation.py):
recommendations user 1: items 3, 5; user 2: 2, 5; user 3: 1, 2; train user 1: 1, 2, 4; user 2: 3, 4; user 3: 3, 4,
5; its published values: catalog_coverage 0.8, distributional_coverage 1.9183, novelty 2.8333 (to 1e-4).
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

RECS = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2], "rank": [1, 2, 1, 2, 1, 2]})
TRAIN = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
PRESETS = ["Coverage(like='recommenders')", "Entropy(like='recommenders')", "Novelty(like='recommenders')"]


def run_main(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    RECS.to_parquet(tmp_path / "recs.parquet")
    TRAIN.to_parquet(tmp_path / "train.parquet")
    pd.DataFrame({"item": range(1, 7)}).to_parquet(tmp_path / "catalog.parquet")
    return tmp_path


def _metrics(*names: str) -> list[str]:
    return [a for name in names for a in ("-m", name)]


def test_the_peers_published_values_from_the_command_line(files, capsys):
    args = [
        "evaluate",
        files / "recs.parquet",
        "--query",
        "user",
        "--format",
        "csv",
        "--train",
        files / "train.parquet",
    ]
    code, out, err = run_main(capsys, *args, "--catalog", files / "catalog.parquet", *_metrics(*PRESETS, "Gini"))
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out)).set_index("metric")["value"]
    assert got[PRESETS].round(4).tolist() == [0.8, 1.9183, 2.8333]  # Microsoft Recommenders' own test values
    expected = rankframe.evaluate(
        RECS, [*PRESETS, "Gini"], columns={"query": "user"}, train=TRAIN, catalog=range(1, 7)
    ).set_index("metric")["value"]
    pd.testing.assert_series_equal(got, expected, check_names=False, rtol=1e-15)


def test_per_query_values_and_csv_inputs(files, capsys):
    # ARP per user, popularity = users with the item in train: user 1 items 3 (users 2, 3) and 5 (user 3): 3/2;
    # user 2 items 2 (user 1) and 5 (user 3): 1; user 3 items 1 (user 1) and 2 (user 1): 1
    RECS.to_csv(files / "recs.csv", index=False)
    TRAIN.to_csv(files / "train.csv", index=False)
    code, out, err = run_main(
        capsys, "evaluate", files / "recs.csv", "--query", "user", "-m", "ARP", "--train", files / "train.csv", "-q",
        "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert got["value"].tolist() == [1.5, 1.0, 1.0] and got["user"].tolist() == [1, 2, 3]


def test_a_missing_input_names_the_option(files, capsys):
    base = ["evaluate", files / "recs.parquet", "--query", "user"]
    code, out, err = run_main(capsys, *base, "-m", "ARP")
    assert code == 2 and out == ""
    assert err.startswith("rankframe: error: ARP needs --train FILE, past interactions")
    code, _, err = run_main(capsys, *base, "-m", "Coverage", "--train", files / "train.parquet")
    assert code == 2 and "Coverage needs --catalog FILE" in err


def test_grades_are_needed_only_by_metrics_that_read_them(files, capsys):
    base = ["evaluate", files / "recs.parquet", "--query", "user", "--catalog", files / "catalog.parquet"]
    code, out, _ = run_main(capsys, *base, "-m", "Coverage")  # no relevance column: fine for Coverage
    assert code == 0 and "0.6667" in out  # 4 of the catalog's 6 items
    code, _, err = run_main(capsys, *base, "-m", "Coverage", "-m", "AP")
    assert code == 2 and "no column 'relevance'" in err


def test_hostile_inputs_are_clear_errors(files, capsys):
    base = ["evaluate", files / "recs.parquet", "--query", "user", "-m", "ARP", "--train"]
    code, _, err = run_main(capsys, *base, files / "nope.parquet")
    assert code == 2 and "nope.parquet" in err
    pd.DataFrame({"user": ["1"], "item": ["3"]}).to_parquet(files / "text.parquet")  # ids of another kind
    code, _, err = run_main(capsys, *base, files / "text.parquet")
    assert code == 2 and "train" in err and "Traceback" not in err
    (files / "empty.csv").write_text("")
    code, _, err = run_main(capsys, *base, files / "empty.csv")
    assert code == 2 and "empty file" in err


def test_compare_takes_the_per_list_metrics_with_train(tmp_path, capsys):
    from pathlib import Path

    paired = pd.read_parquet(Path(__file__).resolve().parents[2] / "examples" / "paired.parquet")
    train = paired.loc[paired["relevance"].fillna(0) > 0, ["query", "item"]].drop_duplicates()
    train.to_parquet(tmp_path / "train.parquet")
    code, out, err = run_main(
        capsys, "compare", Path(__file__).resolve().parents[2] / "examples" / "paired.parquet", "--baseline", "bm25",
        "-m", "ARP@10", "--train", tmp_path / "train.parquet", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    expected = rankframe.compare(paired, "ARP@10", baseline="bm25", train=train)
    assert got["delta"].tolist() == pytest.approx(expected["delta"].tolist(), abs=1e-15)
    assert got["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), rel=1e-12)


def test_set_level_intervals_and_comparisons_from_the_command_line(files, capsys):
    # evaluate --ci: the set-level rows get the bootstrap interval of rankframe.evaluate(ci=, seed=, n_resamples=)
    base = ["evaluate", files / "recs.parquet", "--query", "user", "--format", "csv", "--catalog"]
    args = [*base, files / "catalog.parquet", *_metrics("Gini", "Entropy"), "--ci", "0.9", "--seed", "4"]
    code, out, err = run_main(capsys, *args, "--n-resamples", "300")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    expected = rankframe.evaluate(
        RECS, ["Gini", "Entropy"], columns={"query": "user"}, catalog=range(1, 7), ci=0.9, seed=4, n_resamples=300
    )
    for col in ("value", "ci_low", "ci_high", "std_err"):
        assert got[col].tolist() == pytest.approx(expected[col].tolist(), rel=1e-12), col
    code, _, err = run_main(capsys, *args, "--n-resamples", "0")
    assert code == 2 and "--n-resamples must be" in err
    # compare: the set-level metrics by the paired bootstrap, the same rows as rankframe.compare
    two = pd.concat([RECS.assign(system="a"), RECS.assign(system="b", item=RECS["item"].where(RECS["rank"] == 1, 6))])
    two.to_parquet(files / "two.parquet")
    code, out, err = run_main(
        capsys, "compare", files / "two.parquet", "--query", "user", "--baseline", "a", "-m", "Entropy", "-m",
        "Personalization", "--seed", "2", "--n-resamples", "300", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    expected = rankframe.compare(
        two, ["Entropy", "Personalization"], baseline="a", columns={"query": "user"}, seed=2, n_resamples=300
    )
    for col in ("delta", "ci_low", "ci_high", "p_value"):
        assert got[col].tolist() == pytest.approx(expected[col].tolist(), rel=1e-12), col

"""--train / --catalog / --features read with the ranking table's id kinds (issue 33).

A CSV side input is read with text ids, so a Parquet log of integer ids with a CSV catalog was always refused as
ids of different kinds. Hand values: the log recommends items 1, 2 to user 10 and 1, 3 to user 11 (top 2), the
catalog is 1..4: Coverage@2 = |{1, 2, 3}| / 4 = 0.75; train has item 1 seen by two users and 2 by one: ARP@2 =
mean over lists of the mean popularity = ((2 + 1) / 2 + (2 + 0) / 2) / 2 = 1.25.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from rankframe.cli import main

LOG = pd.DataFrame({"query": [10, 10, 11, 11], "item": [1, 2, 1, 3], "rank": [1, 2, 1, 2]})


def _run(capsys, *args: str) -> pd.DataFrame:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_a_parquet_log_takes_csv_side_inputs(tmp_path, capsys, command):
    log = tmp_path / "log.parquet"
    frame = LOG if command == "evaluate" else pd.concat([LOG.assign(system="a"), LOG.assign(system="b")])
    frame.to_parquet(log)
    catalog = tmp_path / "catalog.csv"
    catalog.write_text("item\n1\n2\n3\n4\n")
    train = tmp_path / "train.csv"
    train.write_text("query,item\n1,1\n2,1\n2,2\n")
    extra = ["--system", "system", "--baseline", "a", "--n-resamples", "50"] if command == "compare" else []
    got = _run(
        capsys, command, str(log), "-m", "Coverage@2", "-m", "ARP@2", "--catalog", str(catalog), "--train",
        str(train), "--format", "csv", *extra,
    )  # fmt: skip
    if command == "evaluate":
        assert dict(zip(got["metric"], got["value"])) == pytest.approx({"Coverage@2": 0.75, "ARP@2": 1.25})
    else:
        assert got.set_index("metric")["mean"].to_dict() == pytest.approx({"Coverage@2": 0.75, "ARP@2": 1.25})
        assert (got["delta"] == 0).all()


def test_text_that_is_no_number_is_still_named(tmp_path, capsys):
    log = tmp_path / "log.parquet"
    LOG.to_parquet(log)
    catalog = tmp_path / "catalog.csv"
    catalog.write_text("item\n1\nsku-2\n")
    capsys.readouterr()
    code = main(["evaluate", str(log), "-m", "Coverage@2", "--catalog", str(catalog)])
    # 'sku-2' is no number: the catalog stays text, and evaluate's rule names both kinds
    assert code == 2 and "are text" in capsys.readouterr().err

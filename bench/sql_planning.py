"""Planning cost of the SQL faces: CPU seconds of one rf_per_query / rf_means call on a 3-row table, and of one
``rankframe.evaluate(engine="duckdb")`` call on a 5-row table (5 metrics, nDCG@10 alone, 23 metrics and options).

    python bench/sql_planning.py .                 # this checkout
    python bench/sql_planning.py /path/to/old/checkout   # the same on another commit, to compare back to back

Binding is most of a small call (DuckDB's JSON profile: ~75% of a 3-row rf_means before the rf:row terms), paid
once per call whatever the table's size. Medians of 7 calls after a warm-up; the load average is printed.
"""

import os
import statistics
import sys
import time

repo = sys.argv[1]
sys.path.insert(0, repo)
import duckdb  # noqa: E402 (after the checkout is put first on sys.path)
import pandas as pd  # noqa: E402

import rankframe.sql as rs  # noqa: E402

con = rs.install(duckdb.connect())
df = pd.DataFrame({"query": ["a", "a", "b"], "item": ["x", "y", "z"], "rank": [1, 2, 1], "relevance": [1, 0, 1]})
con.register("t", df)
res = []
for q in ["SELECT * FROM rf_per_query(t)", "SELECT * FROM rf_means(t)"]:
    con.execute(q).fetchall()
    cpu = []
    wall = []
    for i in range(7):
        t = time.process_time()
        w = time.perf_counter()
        con.execute(q).fetchall()
        cpu.append(time.process_time() - t)
        wall.append(time.perf_counter() - w)
    res.append(f"{q.split()[3][:12]} cpu {statistics.median(cpu):.3f} wall {statistics.median(wall):.3f}")

import rankframe  # noqa: E402

small = pd.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q2"],
        "item": ["a", "b", "c", "a", "d"],
        "score": [3.0, 2.0, 2.0, 1.0, 0.5],
        "relevance": [2, 0, 1, 1, 0],
    }
)
sets = {
    "engine 5 metrics": ["P@10", "R@10", "AP", "nDCG@10", "RR"],
    "engine nDCG@10": ["nDCG@10"],
    "engine 23 metrics": [
        "P@5",
        "R@10",
        "AP",
        "RR",
        "CG@10",
        "DCG@10",
        "IDCG@10",
        "nDCG@10",
        "ERR@10",
        "nERR@10",
        "Rprec",
        "Success@5",
        "F1@10",
        "Bpref",
        "RBP",
        "Judged@10",
        "Hits@10",
        "NumRet",
        "NumRel",
        "NumRelRet",
        "nDCG(ties='average')@5",
        "nDCG(judged_only=True)@10",
        "DCG(ties='average')",
    ],
}
rankframe.evaluate(small, ["P@10"], engine="duckdb")
for name, metrics in sets.items():
    cpu = []
    for i in range(5):
        t = time.process_time()
        rankframe.evaluate(small, metrics, engine="duckdb")
        cpu.append(time.process_time() - t)
    res.append(f"{name} cpu {statistics.median(cpu):.3f}")

print(repo[-8:], duckdb.__version__, " | ".join(res), "load", os.getloadavg()[0])

"""Planning cost of the SQL table macros: CPU seconds of one rf_per_query / rf_means call on a 3-row table.

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

print(repo[-8:], duckdb.__version__, " | ".join(res), "load", os.getloadavg()[0])

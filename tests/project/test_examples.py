"""The example notebook runs top to bottom on the bundled data, its stored outputs are the ones it produces now,
and its key numbers are right (the comparison held to scipy and statsmodels)."""

from __future__ import annotations

import ast
import contextlib
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.slow  # runs the notebook top to bottom

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"


def _last_expression(code: str) -> tuple[str, str | None]:
    """The cell without its last expression, and that expression (what Jupyter displays), if any."""
    tree = ast.parse(code)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        return ast.unparse(tree), ast.unparse(last)
    return code, None


@pytest.fixture(scope="module")
def executed():
    """Run every code cell as Jupyter would; keep each cell's stdout and displayed value next to the stored ones."""
    import matplotlib.pyplot as plt

    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    namespace: dict = {}
    runs = []
    plt.close("all")  # figures other tests of this process left open are not the notebook's
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        for cell in cells:
            body, last = _last_expression("".join(cell["source"]))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, "quickstart.ipynb", "exec"), namespace)  # noqa: S102 - our own notebook
                shown = eval(last, namespace) if last else None  # noqa: S307 - our own notebook
            runs.append({"cell": cell, "stdout": out.getvalue(), "shown": shown, "figures": plt.get_fignums()})
            plt.close("all")
    return nb, runs, namespace


def test_every_cell_has_an_id_and_its_stored_output(executed):
    nb, runs, _ = executed
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 5
    ids = [c["id"] for c in nb["cells"]]
    assert all(ids) and len(set(ids)) == len(ids)
    assert len(runs) >= 10
    for run in runs:
        cell = run["cell"]
        assert cell["execution_count"] is not None and cell["outputs"], "".join(cell["source"])[:60]
        assert not [o for o in cell["outputs"] if o.get("name") == "stderr"]  # no warnings stored


def test_stored_outputs_are_what_the_notebook_produces_now(executed):
    from rankframe import display

    _, runs, _ = executed
    for run in runs:
        stored = run["cell"]["outputs"]
        text = "".join("".join(o["text"]) for o in stored if o["output_type"] == "stream")
        assert text == run["stdout"], "".join(run["cell"]["source"])[:60]
        html = [o["data"]["text/html"] for o in stored if "text/html" in o.get("data", {})]
        html = ["".join(h) if isinstance(h, list) else h for h in html]
        if run["shown"] is not None and hasattr(run["shown"], "_repr_html_") and "rankframe" in "".join(html):
            assert html[0] == run["shown"]._repr_html_()
        images = [o for o in stored if "image/png" in o.get("data", {})]
        assert len(images) == len(run["figures"])  # one stored picture per figure drawn
    assert "must be unique" in runs[-1]["stdout"]  # the last cell shows the validation error
    assert any(isinstance(r["shown"], display.ComparisonFrame) for r in runs)


def test_the_comparison_numbers_are_right(executed):
    scipy_stats = pytest.importorskip("scipy.stats")
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    import rankframe

    _, _, ns = executed
    out, runs = ns["out"], ns["runs"]
    per = rankframe.evaluate(runs, ["nDCG@5", "AP"], by=["length", "system"], per_query=True)
    wide = per.pivot_table(index=["length", "metric", "query"], columns="system", values="value")
    pvalues = []
    for r in out.itertuples():
        part = wide.loc[(r.length, r.metric)]
        d = (part[r.system] - part["bm25"]).to_numpy()
        t = scipy_stats.ttest_rel(part[r.system], part["bm25"])
        low, high = t.confidence_interval(0.95)
        assert (r.n, r.delta, r.p_value) == (
            len(d),
            pytest.approx(d.mean(), abs=1e-12),
            pytest.approx(t.pvalue, rel=1e-9),
        )
        assert (r.ci_low, r.ci_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
        pvalues.append(t.pvalue)
    holm = multitest.multipletests(pvalues, method="holm")[1]
    np.testing.assert_allclose(out["p_adjusted"], holm, rtol=1e-9)
    # the story the notebook tells: dense wins on long queries, loses on short ones; hybrid wins everywhere
    sig = out[out.p_adjusted < 0.05].set_index(["length", "metric", "system"])["delta"]
    assert sig[("long", "nDCG@5", "dense")] > 0 > sig[("short", "nDCG@5", "dense")]
    assert (out[out.system == "hybrid"]["delta"] > 0).all() and (out[out.system == "hybrid"]["p_adjusted"] < 0.05).all()
    assert round(float(sig[("short", "nDCG@5", "hybrid")]), 4) == 0.1833  # as the stored output and docs say

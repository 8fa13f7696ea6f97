"""rankframe.anova(random="query") held to statsmodels' iterative REML fit of the linear mixed model.

Oracle: ``smf.mixedlm("value ~ C(system)", d, groups=d["query"]).fit(reml=True, gtol=1e-10)`` (and ``value ~
C(system) * C(grp)`` for the split plot, queries nested in groups): its ``scale`` is ``var_error`` and its
``cov_re`` is ``var_query``. mixedlm iterates, so the match is to its tolerance (gtol=1e-10: about 1e-9 relative;
near the boundary ``var_query`` is held to 1e-6 of ``var_error``; on it, where mixedlm stops a little short of
var_query = 0, both to 1e-3). A fit that reports no convergence is skipped
(it happens only on REML's boundary, var_query = 0, where the gradient in the variance is not 0); converged
boundary fits are kept: there ``var_error`` is the pooled ``(SS_query + SS_error) / (df_query + df_error)``, not
MSE (which would differ from mixedlm's scale by far more than 1e-3). Random balanced designs: n = 3..200 queries, s = 2..5 systems, 1..3 groups.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from rankframe.anova import anova_values

# (n, s, groups, sd of the query effect, seed): sd 0 and 0.05 put some designs on the boundary (var_query = 0)
DESIGNS = [
    (3, 2, 1, 0.3, 0),
    (5, 4, 1, 0.3, 1),
    (12, 3, 1, 0.05, 2),
    (40, 5, 1, 0.3, 3),
    (200, 2, 1, 0.3, 4),
    (120, 4, 1, 0.05, 5),
    (6, 2, 1, 0.0, 6),
    (8, 3, 2, 0.3, 7),
    (10, 2, 3, 0.3, 8),
    (36, 3, 2, 0.05, 9),
    (60, 4, 3, 0.3, 10),
    (12, 4, 2, 0.0, 11),
]


def _design(seed: int, n: int, s: int, groups: int, sd_query: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.random((n, s)) + rng.normal(0, sd_query, n)[:, None] + np.linspace(0, 0.2, s)[None, :]
    group = np.sort(np.concatenate([np.arange(groups), rng.integers(0, groups, n - groups)]))
    return pd.DataFrame(
        {
            "grp": np.repeat(np.array([f"g{h}" for h in group], dtype=object), s),
            "system": np.tile(np.array([f"s{j}" for j in range(s)], dtype=object), n),
            "query": np.repeat(np.array([f"q{i:03d}" for i in range(n)], dtype=object), s),
            "metric": "AP",
            "value": x.ravel(),
        }
    )


@pytest.mark.parametrize("n, s, g, sd_query, seed", DESIGNS)
def test_variance_components_equal_mixedlm_reml(n, s, g, sd_query, seed):
    per = _design(seed, n, s, g, sd_query)
    out = anova_values(per, ["AP"], [], "grp" if g > 1 else None, "query", "system", random=True)
    assert out["var_query"].nunique() == 1 and out["var_error"].nunique() == 1  # one model per segment and metric
    row = out.iloc[0]
    formula = "value ~ C(system) * C(grp)" if g > 1 else "value ~ C(system)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mixedlm warns on the boundary
        fit = smf.mixedlm(formula, per, groups=per["query"]).fit(reml=True, gtol=1e-10)
    if not fit.converged:
        assert row["var_query"] == 0, "mixedlm fails to converge only on the boundary in these designs"
        pytest.skip("mixedlm did not converge (REML boundary, var_query = 0)")
    var_query = float(fit.cov_re.iloc[0, 0])
    # on the boundary mixedlm stops short of var_query = 0 (its gradient there is not 0): 1e-3 instead of 1e-6. On
    # designs (6, 2, 1, 0.0, 6) and (12, 4, 2, 0.0, 11) the restricted log-likelihood of the balanced design,
    # -1/2 [df_q log(ve + s vq) + SS_q / (ve + s vq) + df_e log ve + SS_e / ve], is higher at the closed form than at
    # mixedlm's stopping point (7.40565 vs 7.40363; 28.264237 vs 28.264225): mixedlm, not the closed form, is short
    tol = 1e-3 if row["var_query"] == 0 else 1e-6
    assert row["var_error"] == pytest.approx(fit.scale, rel=tol)
    assert row["var_query"] == pytest.approx(var_query, rel=tol, abs=2 * tol * row["var_error"])
    assert row["icc"] == pytest.approx(var_query / (var_query + fit.scale), rel=10 * tol, abs=2 * tol)
    if row["var_query"] > 0:  # the fixed effects (the system means) and their F test are the ANOVA's
        means = per.groupby("system")["value"].mean()
        fe = fit.fe_params
        if g == 1:
            assert fe["Intercept"] == pytest.approx(means.iloc[0], rel=1e-6)
            for j in range(1, s):
                assert fe[f"C(system)[T.s{j}]"] == pytest.approx(means.iloc[j] - means.iloc[0], abs=1e-6)


def test_the_boundary_is_reached_and_the_interior_too():
    # the designs above cover both branches of the closed form (so neither is tested by accident only)
    hits = []
    for n, s, g, sd_query, seed in DESIGNS:
        out = anova_values(
            _design(seed, n, s, g, sd_query), ["AP"], [], "grp" if g > 1 else None, "query", "system", random=True
        )
        hits.append(out["var_query"].iloc[0] == 0)
    assert any(hits) and not all(hits)

"""Bootstrap verdicts in a large family, and one adjusted p per test (issue 40).

* Eleven clearly worse challengers on a bootstrap-tested primary metric (F1, 200 resamples) are
  all significantly worse, binary and multiclass: the percentile p had a floor of 1/(B + 1) = 1/201,
  which Holm multiplied past α (11/201 = 0.055), beside a Bonferroni interval far from 0.
* The verdict never contradicts its own intervals: the unadjusted one excludes 0 exactly when the
  raw p is below α; the simultaneous one implies the Holm verdict; both are the normal intervals
  of the bootstrap standard error, checked against numpy and scipy on the replicates' spread.
* A pair with the baseline shows one adjusted p in the comparisons and in the pairwise matrix,
  and every adjusted p names its family and the family's size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import reportgen
from reportgen.config import load_config
from reportgen.engine.compare import BOOTSTRAP_NORMAL, bootstrap_test, decide
from reportgen.pipeline import analyse
from reportgen.report.wording import verdict

N_CHALLENGERS = 11


def _binary_frame(seed: int = 40, n: int = 1500) -> tuple[pd.DataFrame, dict[str, str]]:
    """A good baseline and eleven challengers whose decisions are each wrong on ~25 % more rows."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    cols = {"y": y, "base": y * 2.5 + rng.normal(0, 1, n)}
    for i in range(N_CHALLENGERS):
        cols[f"c{i}"] = y * 0.6 + rng.normal(0, 1, n)
    df = pd.DataFrame(cols)
    return df, {name: name for name in df.columns if name != "y"}


@pytest.mark.slow  # many challengers, full bootstrap: ~7 s
def test_eleven_clearly_worse_binary_challengers_are_all_significant() -> None:
    df, scores = _binary_frame()
    res = reportgen.compare_frames(
        df,
        label="y",
        scores=scores,
        baseline="base",
        primary_metric="f1",
        threshold=1.25,
        bootstrap={"resamples": 200, "seed": 3},
    )
    ds = [c.decision for c in res.comparisons]
    assert len(ds) == N_CHALLENGERS
    assert all(d.family == "verdicts" and d.family_size == N_CHALLENGERS for d in ds)
    assert all(d.delta < -0.15 for d in ds)  # clearly worse
    # the percentile p's floor 1/201 times 11 is 0.055: none of these could be significant before
    assert all(d.significant and d.direction == "worse" and d.p_value_adjusted < 0.05 for d in ds)
    assert all(d.ci_simultaneous[1] < 0 for d in ds)
    assert all("significantly worse" in verdict(c) for c in res.comparisons)


def _multiclass_config(tmp_path, seed: int = 41, n: int = 1200):
    rng = np.random.default_rng(seed)
    k = 4
    y = rng.integers(0, k, n)

    def predictions(right: float) -> np.ndarray:
        return np.where(rng.random(n) < right, y, rng.integers(0, k, n))

    cols = {"y": y, "base": predictions(0.9)}
    for i in range(N_CHALLENGERS):
        cols[f"c{i}"] = predictions(0.6)
    pd.DataFrame(cols).to_csv(tmp_path / "mc.csv", index=False)
    models = "".join(f"  - {{name: {c}, file: mc.csv, prediction: {c}}}\n" for c in cols if c != "y")
    (tmp_path / "mc.yaml").write_text(
        "label: y\ntask: multiclass\nclasses: [0, 1, 2, 3]\nprimary_metric: f1_macro\nbaseline: base\n"
        "bootstrap: {resamples: 200, seed: 5}\nmodels:\n" + models
    )
    cfg, p = load_config(tmp_path / "mc.yaml")
    return analyse(cfg, p, now="2026-01-01T00:00:00Z")


@pytest.mark.slow  # many challengers, full bootstrap: ~7 s
def test_eleven_clearly_worse_multiclass_challengers_are_all_significant(tmp_path) -> None:
    res = _multiclass_config(tmp_path)
    ds = [c.decision for c in res.comparisons]
    assert len(ds) == N_CHALLENGERS and all(d.family_size == N_CHALLENGERS for d in ds)
    assert all(d.delta < -0.2 for d in ds)
    assert all(d.significant and d.direction == "worse" for d in ds)
    assert all(d.ci_simultaneous[1] < 0 for d in ds)
    # the McNemar family names itself too
    mc = [c.tests.mcnemar for c in res.comparisons]
    assert all(t.family == "mcnemar" and t.family_size == N_CHALLENGERS for t in mc)


def test_a_bootstrap_verdict_is_the_normal_test_on_the_replicates_spread() -> None:
    """p = 2·Φ(−|δ|/se), the intervals δ ± z·se at the level and at 1 − α/(2m), where se is the SD
    of the replicate differences; the interval of the difference in the comparison is the verdict's."""
    rng = np.random.default_rng(7)
    reps = [rng.normal(mu, 0.02, 300) for mu in (-0.05, 0.01, 0.03)]
    deltas = [-0.048, 0.012, 0.029]
    tests = [bootstrap_test(d, r, 0.95) for d, r in zip(deltas, reps)]
    ds = decide(deltas, tests, "f1", "higher", 0.95)
    for d, r, delta in zip(ds, reps, deltas):
        se = np.std(r, ddof=1)
        assert d.method == d.ci_method == BOOTSTRAP_NORMAL  # no resampling method given
        assert d.p_value == pytest.approx(2 * sps.norm.sf(abs(delta) / se), rel=1e-9)
        assert d.ci == pytest.approx([delta - sps.norm.ppf(0.975) * se, delta + sps.norm.ppf(0.975) * se], rel=1e-9)
        z = sps.norm.ppf(1 - 0.05 / 6)
        assert d.ci_simultaneous == pytest.approx([delta - z * se, delta + z * se], rel=1e-9)
        assert d.p_value_adjusted == pytest.approx(
            min(1.0, max(k * p for k, p in zip((3, 2, 1), sorted(x.p_value for x in ds)) if p <= d.p_value)), rel=1e-12
        )
    # no replicates, or a single finite one: no test
    assert bootstrap_test(0.1, None, 0.95) is None
    assert bootstrap_test(0.1, np.array([np.nan, 0.2]), 0.95) is None
    assert bootstrap_test(None, reps[0], 0.95) is None


def test_the_comparison_interval_of_a_bootstrap_primary_metric_is_the_verdicts() -> None:
    df, scores = _binary_frame(n=600)
    scores = {k: scores[k] for k in ("base", "c0", "c1")}
    res = reportgen.compare_frames(
        df,
        label="y",
        scores=scores,
        baseline="base",
        primary_metric="f1",
        threshold=1.25,
        bootstrap={"resamples": 200, "seed": 3},
    )
    for c in res.comparisons:
        assert list(c.ci["f1"]) == list(c.decision.ci)
        assert c.ci_method["f1"] == c.decision.ci_method == "paired bootstrap of decision patterns"
        assert c.decision.method == "bootstrap (normal, SE of the replicates)"


def _three_models(seed: int = 8, n: int = 800) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    return pd.DataFrame(
        {
            "y": y,
            "logistic": y * 1.2 + rng.normal(0, 1, n),
            "tree": y * 0.9 + rng.normal(0, 1, n),
            "forest": y * 1.0 + rng.normal(0, 1, n),
        }
    )


@pytest.mark.parametrize("primary", ["gini", "f1"])
def test_a_pair_with_the_baseline_shows_one_adjusted_p_wherever_it_appears(primary: str) -> None:
    """Logistic vs tree read Holm p 0.016 in the summary (the two challengers against the
    baseline) and 0.024 in the pairwise block (all three pairs): one test, two adjusted p-values."""
    df = _three_models()
    res = reportgen.compare_frames(
        df,
        label="y",
        scores=["logistic", "tree", "forest"],
        baseline="logistic",
        primary_metric=primary,
        bootstrap={"resamples": 100, "seed": 1},
    )
    by_model = {c.model: c for c in res.comparisons}
    for cell in res.pairwise:
        if "logistic" not in (cell.model, cell.baseline):
            # the one pair of challengers: its own family of one
            assert (cell.family, cell.family_size) == ("challenger_pairs", 1)
            assert cell.p_value_holm == cell.p_value
            continue
        dl = by_model[cell.baseline if cell.model == "logistic" else cell.model].tests.delong
        assert (cell.p_value, cell.p_value_holm, cell.family, cell.family_size) == (
            dl.p_value,
            dl.p_value_holm,
            dl.family,
            dl.family_size,
        )
        assert dl.family == ("verdicts" if primary == "gini" else "delong") and dl.family_size == 2
    if primary == "gini":
        for c in res.comparisons:
            assert c.tests.delong.p_value_holm == c.decision.p_value_adjusted
    # every adjusted p in the file names its family
    doc = res.to_json()
    for c in doc["comparisons"]:
        assert c["decision"]["family"] == "verdicts"
        for t in ("delong", "mcnemar"):
            assert c["tests"][t]["family"] is not None and c["tests"][t]["family_size"] >= 1
    assert all(cell["family"] is not None for cell in doc["pairwise"])


@pytest.mark.slow  # many challengers, full bootstrap: ~7 s
def test_the_report_names_each_family_beside_its_adjusted_p(no_figures) -> None:  # the page's text is read
    """The pairwise note said "over the challenger pairs" while the p-values were Holm over every
    pair; now it names the family with its size, as the DeLong and McNemar blocks do."""
    from reportgen.report.render import render_html

    df = _three_models()
    res = reportgen.compare_frames(
        df, label="y", scores=["logistic", "tree", "forest"], baseline="logistic", bootstrap={"resamples": 0}
    )
    page = render_html(res)
    assert "family-wise error over the 1 challenger-vs-challenger pair;" in page
    assert "over the challenger pairs" not in page
    assert "Holm-adjusted over the 2 comparisons with logistic, p" in page
    assert "Holm-adjusted over the 2 McNemar tests against logistic, p" in page

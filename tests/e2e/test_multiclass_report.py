"""task: multiclass end to end: config → sources → engine → metrics.json / HTML / PDF.

Every number in metrics.json is checked against scikit-learn computed here from the demo's own
CSV files (the oracle never sees reportgen's arrays), and the report is checked for its
sections, its figures and the numbers it prints.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn import metrics as skm

from reportgen.results import ComparisonResult

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "configs" / "demo_multiclass.yaml"
CLASSES = ["current", "early", "late", "default"]


@pytest.fixture(scope="module")
def mc_run(multiclass_run):
    """The multiclass demo with a short bootstrap, run once through the CLI (tests/renders.py:
    one render per test run, shared with the other modules that read it)."""
    return multiclass_run


def _data(name: str) -> pd.DataFrame:
    return pd.read_csv(ROOT / "configs" / "data" / f"stage_{name}.csv")


def _oracle(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    df = _data(name)
    y = df["stage"].map(CLASSES.index).to_numpy()
    if "predicted_stage" in df:
        return y, df["predicted_stage"].map(CLASSES.index).to_numpy(), None
    proba = df[[f"p_{c}" for c in CLASSES]].to_numpy()
    return y, proba.argmax(axis=1), proba


@pytest.mark.pdf
@pytest.mark.parametrize("name", ["logit", "gbm", "rules"])
def test_metrics_match_scikit_learn(mc_run, name):
    data = json.loads((mc_run / "metrics.json").read_text())
    m = data["models"][name]
    got = m["metrics"]
    y, pred, proba = _oracle(name)
    labels = list(range(4))
    kw = {"labels": labels, "zero_division": 0}
    expected = {
        "accuracy": skm.accuracy_score(y, pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
        "cohen_kappa": skm.cohen_kappa_score(y, pred),
        "quadratic_weighted_kappa": skm.cohen_kappa_score(y, pred, weights="quadratic"),
        "mcc": skm.matthews_corrcoef(y, pred),
    }
    for avg in ("micro", "macro", "weighted"):
        expected[f"precision_{avg}"] = skm.precision_score(y, pred, average=avg, **kw)
        expected[f"recall_{avg}"] = skm.recall_score(y, pred, average=avg, **kw)
        expected[f"f1_{avg}"] = skm.f1_score(y, pred, average=avg, **kw)
        expected[f"fbeta_{avg}"] = skm.fbeta_score(y, pred, beta=2, average=avg, **kw)
    p, r = expected["precision_macro"], expected["recall_macro"]
    expected["f1_of_macro_pr"] = 2 * p * r / (p + r)
    cost = np.array(yaml.safe_load(DEMO.read_text())["costs"], dtype=float)
    cm = skm.confusion_matrix(y, pred, labels=labels)
    expected["expected_cost"] = float((cm * cost).sum() / cm.sum())
    if proba is not None:
        expected["log_loss"] = skm.log_loss(y, proba, labels=labels)
        expected["roc_auc_ovr_macro"] = skm.roc_auc_score(y, proba, multi_class="ovr", average="macro")
        expected["roc_auc_ovr_weighted"] = skm.roc_auc_score(y, proba, multi_class="ovr", average="weighted")
        expected["roc_auc_ovo_macro"] = skm.roc_auc_score(y, proba, multi_class="ovo", average="macro")
        onehot = np.eye(4)[y]
        expected["roc_auc_ovr_micro"] = skm.roc_auc_score(onehot, proba, average="micro")
    else:
        for k in ("log_loss", "roc_auc_ovr_macro", "roc_auc_ovo_macro"):
            assert got[k] is None and m["undefined"][k]
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-12), k
    assert m["confusion_matrix"] == {"labels": CLASSES, "matrix": cm.astype(float).tolist()}
    prec, rec, f1, support = skm.precision_recall_fscore_support(y, pred, **kw)
    for c, label in enumerate(CLASSES):
        pc = m["per_class"][label]
        assert pc["support"] == support[c]
        assert pc["tp"] == cm[c, c] and pc["fn"] == cm[c].sum() - cm[c, c] and pc["fp"] == cm[:, c].sum() - cm[c, c]
        assert pc["recall"] == pytest.approx(rec[c], abs=1e-12)
        assert pc["f1"] == pytest.approx(f1[c], abs=1e-12)
        if cm[:, c].sum() > 0:
            assert pc["precision"] == pytest.approx(prec[c], abs=1e-12)
        else:
            assert pc["precision"] is None
        if proba is not None:
            assert pc["roc_auc"] == pytest.approx(skm.roc_auc_score(y == c, proba[:, c]), abs=1e-12)


@pytest.mark.pdf
def test_comparison_has_deltas_bootstrap_cis_and_mcnemar(mc_run):
    data = json.loads((mc_run / "metrics.json").read_text())
    models = data["models"]
    comps = {c["model"]: c for c in data["comparisons"]}
    assert set(comps) == {"gbm", "rules"} and all(c["baseline"] == "logit" for c in comps.values())
    c = comps["gbm"]
    assert c["delta"]["f1_macro"] == pytest.approx(
        models["gbm"]["metrics"]["f1_macro"] - models["logit"]["metrics"]["f1_macro"]
    )
    a_b, a_g = models["logit"]["metrics"]["accuracy"], models["gbm"]["metrics"]["accuracy"]
    assert c["relative_error_reduction"] == pytest.approx(((1 - a_b) - (1 - a_g)) / (1 - a_b))
    lo, hi = c["ci"]["f1_macro"]
    assert lo <= c["delta"]["f1_macro"] <= hi
    # McNemar on correct / incorrect, against a table counted here
    y, pg, _ = _oracle("gbm")
    _, pl, _ = _oracle("logit")
    ok_g, ok_l = pg == y, pl == y
    table = [
        [int((ok_g & ok_l).sum()), int((ok_g & ~ok_l).sum())],
        [int((~ok_g & ok_l).sum()), int((~ok_g & ~ok_l).sum())],
    ]
    assert c["tests"]["mcnemar"]["table"] == table
    assert c["tests"]["delong"] is None
    assert c["tests"]["mcnemar"]["p_value_holm"] >= c["tests"]["mcnemar"]["p_value"]
    assert "macro F1" in c["verdict"] and "bootstrap" in c["verdict"]
    assert models["gbm"]["ci"]["roc_auc_ovr_macro"][0] < models["gbm"]["metrics"]["roc_auc_ovr_macro"]


@pytest.mark.pdf
def test_metrics_json_follows_the_schema_and_round_trips(mc_run, metrics_schema, tmp_path, cli):
    data = json.loads((mc_run / "metrics.json").read_text())
    jsonschema.validate(data, metrics_schema)
    again = ComparisonResult.from_json(data).to_json()
    assert json.dumps(again, sort_keys=True) == json.dumps(data, sort_keys=True)
    assert data["run"]["classes"] == CLASSES and data["run"]["task"] == "multiclass"
    assert cli(["render", str(mc_run / "metrics.json"), "--out", str(tmp_path / "r"), "--format", "html"]) == 0

    def but_provenance(html: str) -> str:  # the output directory and the re-render differ (issue 40)
        return re.sub(r'<tr class="provenance">.*?</tr>', "", html)

    assert but_provenance((tmp_path / "r" / "report.html").read_text()) == but_provenance(
        (mc_run / "report.html").read_text()
    )


@pytest.mark.pdf
def test_report_has_the_multiclass_sections_and_numbers(mc_run):
    html = (mc_run / "report.html").read_text()
    for section in ("summary", "comparison", "metrics", "per_class", "confusion", "curves", "glossary", "appendix"):
        assert f'id="{section}"' in html and f'href="#{section}"' in html, section
    assert 'id="thresholds"' not in html  # no score threshold in a multiclass report
    assert html.count('class="confusion-k"') == 3
    assert "One-vs-rest ROC of each class" in html and html.count("<svg") >= 3
    assert "F1 of macro precision and recall" in html and "Hand &amp; Till" in html
    data = json.loads((mc_run / "metrics.json").read_text())
    for name, m in data["models"].items():
        assert f"{m['metrics']['f1_macro']:.4f}" in html, name
    # the gbm's matrix cell current → current, with its row share
    cm = data["models"]["gbm"]["confusion_matrix"]["matrix"]
    count = f"{int(cm[0][0]):,}".replace(",", "\u2009")
    # a no-break space joins a number and its per cent sign in every printed value
    assert f"<b>{count}</b><small>{round(100 * cm[0][0] / sum(cm[0]))}\u00a0%</small>" in html


@pytest.mark.pdf
def test_pdf_has_the_multiclass_sections(mc_run):
    from pypdf import PdfReader

    reader = PdfReader(str(mc_run / "report.pdf"))
    text = "\n".join(p.extract_text() for p in reader.pages)

    def flat(items):
        for o in items:
            yield from (flat(o) if isinstance(o, list) else [o.title])

    titles = list(flat(reader.outline))
    for title in ("Per-class metrics", "Confusion matrices", "Curves", "Glossary"):
        assert title in titles, titles
    assert "Hand & Till" in text and len(reader.pages) >= 5


def test_above_the_auc_cap_models_of_scores_still_get_their_other_intervals(tmp_path, cli, monkeypatch):
    """Regression: above ``BOOTSTRAP_AUC_MAX_CELLS`` distinct rows × classes the rows' bootstrap
    leaves the scores out, and a model of scores alone (no prediction column) failed with an
    internal error; its prediction is its scores' argmax, so its confusion metrics' intervals are
    those drawn below the cap, the AUCs just have none."""
    import reportgen.engine.compare_multiclass as CM

    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 30, "seed": 5}
    cfg["models"] = [dict(m, file=str(ROOT / "configs" / m["file"])) for m in cfg["models"] if m["name"] != "rules"]
    path = tmp_path / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    runs, cap_now = {}, CM.BOOTSTRAP_AUC_MAX_CELLS
    for cap in (cap_now, 10):
        monkeypatch.setattr(CM, "BOOTSTRAP_AUC_MAX_CELLS", cap)
        out = tmp_path / f"out{cap}"
        assert cli(["run", str(path), "--out", str(out), "--format", "json", "--now", "2026-01-31T06:00:00Z"]) == 0
        runs[cap] = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    below, above = runs[cap_now], runs[10]
    for name in ("logit", "gbm"):
        assert above["models"][name]["ci"]["accuracy"] == below["models"][name]["ci"]["accuracy"]
    (cmp_below,), (cmp_above,) = below["comparisons"], above["comparisons"]
    assert cmp_above["ci"]["f1_macro"] == cmp_below["ci"]["f1_macro"]
    assert "roc_auc_ovr_macro" in cmp_below["ci"] and "roc_auc_ovr_macro" not in cmp_above["ci"]


@pytest.mark.pdf
def test_the_per_class_interval_note_says_when_a_class_column_was_binned(mc_run):
    """The note under the per-class table names the method that made the intervals: the demo's
    rows are kept, so each class's AUC interval is the rows' bootstrap (the averaged AUCs'
    resamples), no class tables said; past the row cap the class tables' (exact draws, no binning
    said); a binned column's note gives its bins."""
    import dataclasses

    from reportgen.engine.compare import ROW_BOOTSTRAP
    from reportgen.engine.intervals import CLASS_TABLE_BINNED_BOOTSTRAP, CLASS_TABLE_BOOTSTRAP, class_bins
    from reportgen.report.wording import per_class_interval_note
    from reportgen.results_io import load_result

    result = load_result(mc_run / "metrics.json")
    assert {m.per_class_ci_method["roc_auc"] for m in result.models.values() if "roc_auc" in m.per_class_ci_method} == {
        ROW_BOOTSTRAP
    }
    rows = per_class_interval_note(result)
    assert "bootstrap of the rows" in rows and "class tables" not in rows and "binned" not in rows

    def drawn(how):
        models = {
            name: dataclasses.replace(m, per_class_ci_method={"roc_auc": how}) for name, m in result.models.items()
        }
        return per_class_interval_note(dataclasses.replace(result, models=models))

    exact = drawn(CLASS_TABLE_BOOTSTRAP)
    assert "class tables" in exact and "binned" not in exact
    binned = drawn(CLASS_TABLE_BINNED_BOOTSTRAP)
    assert binned.startswith(exact) and f"into {class_bins(len(CLASSES)):,} equal-weight bins" in binned

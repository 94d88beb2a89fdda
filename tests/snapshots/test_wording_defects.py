"""Each wording defect of issue 17 (item 9), as a snapshot of the corrected sentence or cell.

One tiny binary run made to show every defect at once (100 rows, 50 of each class), and one
multiclass run without a cost matrix:

* ``sharp``: probabilities with one negative above the lowest positive — AUC 1 − 1/2500 = 0.9996,
  which three decimals would round to the bound "1.000"; scores such as 0.0350002;
* ``sharp_tie``: the same with that negative tied to the lowest positive — AUC 0.9998, so the
  two Ginis differ by 2 · 0.0002 = 0.0004 ("0.000 higher" at three decimals);
* ``constant``: 0.5 for every row — DeLong's variance is 0, but the classes are not "perfectly
  separated": every positive ties every negative;
* ``clipped``: ``sharp`` with three positives given probability 0 — their clipped terms
  (3 · −log ε ≈ 108 of a sum of 131) make 82 % of the log-loss;
* ``points``: scorecard points, ``direction: lower`` — on ties the lowest threshold is reported.

Each test checks the corrected phrase itself and compares the fragment that holds it with
``html/wording/<name>.html`` (accept changes with ``--update-snapshots``, then review the diff).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_report_fragments import check_snapshot, normalise, render_section

from reportgen import compare_models, load_config
from reportgen.report.figures import roc_figure, to_svg
from reportgen.report.formats import fmt_signed
from reportgen.report.render import Theme, build_view, make_environment
from reportgen.report.views.common import better_mark
from reportgen.report.wording import verdict_of
from reportgen.results import ComparisonResult, Decision

HERE = Path(__file__).resolve().parent / "html" / "wording"
P = N = 50
LOW_POSITIVE = 0.605


def _scores() -> dict[str, np.ndarray]:
    """The models' scores; rows 0..49 positive, 50..99 negative."""
    pos = LOW_POSITIVE + 0.0078 * np.arange(P)  # 0.605 … 0.9872
    neg = np.round(0.0350002 + 0.007 * np.arange(N), 7)  # 0.0350002 … 0.3780002
    sharp_neg = neg.copy()
    sharp_neg[-1] = 0.61  # above the lowest positive only
    tie_neg = neg.copy()
    tie_neg[-1] = LOW_POSITIVE  # tied with it: half a pair
    clipped_pos = pos.copy()
    clipped_pos[[10, 20, 30]] = 0.0  # probability 0 for the true class
    return {
        "sharp": np.r_[pos, sharp_neg],
        "sharp_tie": np.r_[pos, tie_neg],
        "constant": np.full(P + N, 0.5),
        "clipped": np.r_[clipped_pos, neg],
        "points": np.round(700 - 300 * np.r_[pos, sharp_neg]),
    }


def binary_result(tmp: Path) -> ComparisonResult:
    scores = _scores()
    frame = pd.DataFrame({"id": np.arange(P + N), "y": np.r_[np.ones(P, int), np.zeros(N, int)], **scores})
    frame.to_csv(tmp / "scores.csv", index=False)
    cfg = {
        "title": "wording",
        "task": "binary",
        "label": "y",
        "positive": 1,
        "id": "id",
        "threshold": 0.5,
        "costs": {"fn": 5, "fp": 1},
        "baseline": "sharp_tie",
        "primary_metric": "gini",
        "bootstrap": {"resamples": 50, "seed": 3},
        "models": [
            {
                "name": n,
                "file": "scores.csv",
                "score": n,
                **({"direction": "lower", "threshold": 560} if n == "points" else {}),
            }
            for n in scores
        ],
        "output": {"dir": "out", "formats": ["json"]},
    }
    order = ["sharp_tie", "sharp", "constant", "clipped", "points"]
    cfg["models"] = sorted(cfg["models"], key=lambda m: order.index(m["name"]))
    path = tmp / "wording.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    c, p = load_config(path)
    return compare_models(c, p, now="2026-01-01T00:00:00Z")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    result = binary_result(tmp_path_factory.mktemp("wording"))
    # the sections the tests read, so only their figure (the forest plot) is drawn: the curves'
    # nine took 3.4 of the fixture's 3.7 CPU-s; the sections' HTML is the same either way
    return result, build_view(result, Theme(sections=("summary", "comparison", "thresholds")))


@pytest.fixture(scope="module")
def multiclass_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wording_mc")
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 90)
    classes = ["a", "b", "c"]
    frame = {"id": np.arange(90), "y": [classes[i] for i in y]}
    for name, skill in (("m1", 1.0), ("m2", 2.0)):
        logits = rng.normal(0, 1, (90, 3))
        logits[np.arange(90), y] += skill
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        for j, c in enumerate(classes):
            frame[f"{name}_{c}"] = p[:, j]
    pd.DataFrame(frame).to_csv(tmp / "mc.csv", index=False)
    cfg = {
        "title": "no costs",
        "task": "multiclass",
        "label": "y",
        "classes": classes,
        "id": "id",
        "baseline": "m1",
        "primary_metric": "f1_macro",
        "bootstrap": {"resamples": 20, "seed": 1},
        "models": [
            {"name": n, "file": "mc.csv", "scores": [f"{n}_{c}" for c in classes], "probabilities": True}
            for n in ("m1", "m2")
        ],
        "output": {"dir": "out", "formats": ["json"]},
    }
    path = tmp / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    c, p = load_config(path)
    result = compare_models(c, p, now="2026-01-01T00:00:00Z")
    return result, build_view(result, Theme(sections=("summary",)))  # the section the test reads


def _updating(request) -> bool:
    from test_report_fragments import _updating as updating

    return updating(request.config)


def _pick(html: str, pattern: str) -> str:
    """The fragments of ``html`` matching ``pattern`` (one per line), for a small snapshot."""
    found = re.findall(pattern, html, flags=re.DOTALL)
    assert found, f"nothing matches {pattern!r}"
    return "\n".join(found) + "\n"


def _comparison(view: dict, model: str) -> str:
    html = render_section(view, "comparison")
    start = html.index(f"</span>{model} vs ")
    return html[start : html.index("</table>", start)]


def test_constant_score_is_not_called_perfectly_separated(run, request):
    result, view = run
    warning = next(w for w in result.run.warnings if w.startswith("model 'constant': AUC interval"))
    assert "perfectly separated" not in warning
    assert "AUC = 0.5: every positive ties every negative, as with a constant score" in warning
    sharp_like = [w for w in result.run.warnings if "perfectly separated" in w]
    assert sharp_like == []  # no model here has AUC 0 or 1
    check_snapshot(
        HERE / "constant_score.html",
        _pick(render_section(view, "summary"), r"<li>model &#39;constant&#39;[^<]*</li>"),
        _updating(request),
    )


def test_tie_rule_follows_the_direction(run, request):
    _, view = run
    html = render_section(view, "thresholds")
    assert "(positive when score ≤ t; on ties the lowest threshold (the fewest rows flagged) is reported)" in html
    assert "(positive when score ≥ t; on ties the highest threshold (the fewest rows flagged) is reported)" in html
    assert "On ties the highest threshold (fewest rows flagged) is reported." not in html
    check_snapshot(
        HERE / "tie_rule.html",
        _pick(html, r"<p>Each threshold[^\n]*</p>|<h3>[^\n]*points[^\n]*</h3>"),
        _updating(request),
    )


def test_a_small_gini_difference_is_not_printed_as_zero(run, request):
    result, view = run
    c = next(c for c in result.comparisons if c.model == "sharp")
    assert c.delta["gini"] == pytest.approx(-0.0004, abs=1e-12)
    assert "is 0.0004 lower than sharp_tie's" in c.verdict and "0.000 lower" not in c.verdict
    equal = Decision(
        metric="gini",
        better="higher",
        delta=0.0,
        method="DeLong (paired)",
        p_value=1.0,
        p_value_is_bound=False,
        p_value_adjusted=1.0,
        p_value_adjusted_is_bound=False,
        adjustment="holm",
        family_size=1,
        alpha=0.05,
        significant=False,
        direction="inconclusive",
        ci=None,
        ci_level=0.95,
        ci_simultaneous=None,
        ci_simultaneous_level=0.95,
        ci_method=None,
    )
    assert verdict_of("a", "b", equal) == "a's Gini equals b's (p = 1.000, DeLong's paired test)."
    assert fmt_signed(-0.0004) == "−0.0004" and fmt_signed(1e-9) == "+< 0.000001" and fmt_signed(0.0) == "0.000"
    row = _pick(_comparison(view, "sharp"), r"<tr class=\"primary\">.*?</tr>")
    assert "−0.0004" in row
    check_snapshot(
        HERE / "small_difference.html",
        _pick(render_section(view, "summary"), r"<p class=\"verdict\">[^\n]*sharp&#39;s Gini[^\n]*</p>") + row,
        _updating(request),
    )


def test_delta_is_marked_better_or_worse_by_the_metric_direction(run, request):
    _, view = run
    rows = _comparison(view, "constant")
    # the constant score flags everyone at 0.5 (score ≥ 0.5): accuracy falls (worse) and so does
    # nothing else rise; expected cost rises (worse); lower-is-better metrics that fall are better
    acc = _pick(rows, r"<tr class=\"\"><td>Accuracy</td>.*?</tr>")
    cost = _pick(rows, r"<tr class=\"\"><td>Expected cost per row</td>.*?</tr>")
    assert '<span class="mark worse">worse</span>' in acc
    assert 'class="num strong delta">−' in acc
    # the clipped model's Brier score (lower is better) rises: worse; its log-loss rises: worse —
    # but the Brier difference's interval [−0.0001, 0.062] covers 0, which the mark now says
    clipped = _comparison(view, "clipped")
    brier = _pick(clipped, r"<tr class=\"\"><td>Brier score</td>.*?</tr>")
    assert '<span class="mark ns">worse,</span> <span class="mark ns">not significant</span>' in brier
    # the case: accuracy −0.028 is worse, expected cost −0.054 is better (lower is better)
    assert better_mark(-0.028, "higher") == "worse" and better_mark(-0.054, "lower") == "better"
    assert better_mark(0.0, "lower") == "equal" and better_mark(0.1, None) == ""
    points = _comparison(view, "points")
    # (a better Δ whose interval covers 0 is marked "better, not significant")
    assert (
        re.search(r'<span class="mark (better|ns)">better', points) or '<span class="mark equal">equal</span>' in points
    )
    check_snapshot(HERE / "delta_marks.html", acc + cost + brier, _updating(request))


def test_an_error_reduction_of_a_non_significant_change_is_not_headlined(run, request):
    _, view = run
    rows = _comparison(view, "sharp")
    acc = _pick(rows, r"<tr class=\"\"><td>Accuracy</td>.*?</tr>")
    # sharp and sharp_tie take the same decisions at 0.5: Δ 0, interval [0, 0], not significant
    # (issue 40: a baseline of 0.990 whose interval reaches 1 has an error not clear of 0: omitted)
    assert '<td class="num muted">' in acc and ("not significant" in acc or "omitted: baseline error" in acc)
    gini = _pick(rows, r"<tr class=\"primary\">.*?</tr>")
    assert "not significant" in gini  # the Gini difference's interval covers 0
    check_snapshot(HERE / "error_reduction.html", acc + gini, _updating(request))


def test_an_auc_below_one_is_never_printed_as_one(run, request):
    result, view = run
    auc = result.models["sharp"].metrics["roc_auc"]
    assert auc == pytest.approx(1 - 1 / (P * N))
    summary = render_section(view, "summary")
    row = _pick(summary, r"<tr><td class=\"num\">\d</td><td class=\"name\"><span[^>]*></span>sharp</td>.*?</tr>")
    assert ">0.9996<" in row and ">1.000<" not in row
    assert "1.000]" not in row  # nor its interval's upper end (the logit-scale DeLong interval stays below 1)
    assert "AUC 0.9996" in to_svg(roc_figure(result))  # the ROC legend too
    check_snapshot(HERE / "auc_bound.html", row, _updating(request))


def test_printed_thresholds_reproduce_their_counts(run, request):
    """Four significant digits, more only where the next score demands (issue 40: 17 digits,
    wrapped); the stated rule at the printed threshold gives the table's TP, FP, FN and TN."""
    result, view = run
    html = render_section(view, "thresholds")
    start = html.index("</span>clipped <span")
    table = html[start : html.index("</table>", start)]
    rows = re.findall(
        r"<td class=\"num strong thr\">([^<]+)</td><td class=\"num\">[^<]*</td>"
        r"<td class=\"num\">([^<]+)</td><td class=\"num\">([^<]+)</td>"
        r"<td class=\"num\">([^<]+)</td><td class=\"num\">([^<]+)</td>",
        table,
    )
    scores = _scores()["clipped"]
    y = np.r_[np.ones(P, bool), np.zeros(N, bool)]
    assert rows
    for t, *counts in rows:
        flagged = scores >= float(t)
        got = [
            np.count_nonzero(flagged & y),
            np.count_nonzero(flagged & ~y),
            np.count_nonzero(~flagged & y),
            np.count_nonzero(~flagged & ~y),
        ]
        assert got == [int(c) for c in counts], t
    # the break-even threshold 0.3640002 next to the score 0.3570002: "0.364" cuts the same rows
    o = result.models["clipped"].optimal_thresholds["break_even"]
    assert (o.threshold, o.next_score) == (0.3640002, 0.3570002)
    assert ">0.364<" in table
    check_snapshot(
        HERE / "thresholds.html",
        _pick(table, r"<tr><td>[^<]*</td><td class=\"num strong thr\">.*?</tr>"),
        _updating(request),
    )


def test_multiclass_caption_without_a_cost_matrix(multiclass_run, request):
    result, view = multiclass_run
    html = render_section(view, "summary")
    caption = _pick(html, r"<caption>.*?</caption>")
    assert "FN" not in caption and "FP" not in caption and "(" not in caption.split(";", 1)[1]
    assert "no cost matrix configured" in caption
    header = _pick(html, r"<thead>.*?</thead>")
    assert "cost per row" not in header.lower()  # no all-n/a column (its header is "Expected cost per row")
    assert all(m.metrics.get("expected_cost") is None for m in result.models.values())
    check_snapshot(HERE / "multiclass_caption.html", caption + header, _updating(request))


def test_log_loss_driven_by_clipped_probabilities_is_warned(run, request):
    result, view = run
    ll = result.models["clipped"].metrics["log_loss"]
    share = 3 * -np.log(np.finfo(float).eps) / (P + N) / ll
    assert share > 0.8
    warning = next(w for w in result.run.warnings if w.startswith("model 'clipped': log-loss"))
    assert f"together {share * 100:.0f} % of the log-loss" in warning and "3 row(s)" in warning
    assert not any(w.startswith("model 'sharp': log-loss") for w in result.run.warnings)
    check_snapshot(
        HERE / "log_loss_clipped.html",
        _pick(render_section(view, "summary"), r"<li>model &#39;clipped&#39;: log-loss[^<]*</li>"),
        _updating(request),
    )


def test_pairwise_section_lists_every_challenger_pair_once(run, request):
    result, view = run
    html = render_section(view, "comparison")
    table = _pick(html, r"<table class=\"pairwise\">.*?</table>")
    challengers = [n for n in result.models if n != result.run.baseline]
    pairs = re.findall(r"</span>(\w+)</td><td class=\"name\"><span[^>]*></span>(\w+)</td>", table)
    expected = [(a, b) for i, a in enumerate(challengers) for b in challengers[i + 1 :]]
    assert pairs == expected
    # each row's Δ Gini is the engine's, signed and marked
    cell = next(c for c in result.pairwise if (c.model, c.baseline) == ("sharp", "constant"))
    assert f'{fmt_signed(cell.delta)} <span class="mark better">better</span>' in table
    check_snapshot(HERE / "pairwise.html", table, _updating(request))


def test_the_pairwise_section_is_in_the_pdf_flavour_too(run):
    _, view = run
    env = make_environment()
    page = normalise(env.get_template("report.html").render(view=view, css="", script="", for_pdf=True))
    assert "Challengers against each other" in page

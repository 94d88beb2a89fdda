"""The sign-off brief (``report.layout: brief``): the recommendation and its rule, every red and
amber finding per model with its reason (the credit validation's lights; a group below the
four-fifths line and a failed fairness check, :func:`fairness_findings`), the key comparison, the sample, the limitations, the
models' identifiers and a sign-off block. Facts only from the result; the numbers come from the
other sections' views, formatted once (:mod:`reportgen.report.formats`).

The recommendation rule (:func:`recommend`): a challenger is *adopt* when its verdict on the
primary metric is significantly better than the baseline and it has no finding at or above the
blocking light (``report.recommendation.block_on``, default red); *conditional* when significantly
better with lower findings only, which become its conditions; *retain* otherwise (the baseline
stays). Among several challengers the first adopt, else the first conditional, in the order of
the config, is the recommendation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_ci, fmt_count, fmt_num, fmt_p, fmt_pct, fmt_signed
from reportgen.report.labels import CREDIT_TEST_NAMES
from reportgen.report.views.comparison import ComparisonView, DeltaRow
from reportgen.report.views.credit import auc_reference
from reportgen.report.wording import verdict, vocabulary
from reportgen.results import ComparisonResult
from reportgen.section_results import CreditModel, CreditTest, FairnessColumn

Decision = Literal["adopt", "conditional", "retain"]

#: The lights in order of severity.
SEVERITY = {"amber": 1, "red": 2}

#: Rows of each challenger's key comparison table in the brief (the primary metric first).
BRIEF_METRICS = 5

#: The portfolio calibration tests, in the credit section's order: result field → test key.
_CALIBRATION_TESTS = (
    ("jeffreys", "jeffreys"),
    ("binomial", "binomial"),
    ("hosmer_lemeshow", "hosmer_lemeshow"),
    ("spiegelhalter", "spiegelhalter"),
    ("in_the_large_test", "in_the_large"),
    ("slope_test", "slope"),
    ("intercept_test", "intercept"),
)


@dataclass(frozen=True, slots=True)
class Finding:
    """A red or amber result of a model: its light, what was tested, and why it is flagged."""

    light: str
    test: str
    reason: str


@dataclass(frozen=True, slots=True)
class ModelFindings:
    name: str
    colour: str
    baseline: bool
    findings: tuple[Finding, ...]
    #: "2 red, 3 amber" or "none"
    count: str


@dataclass(frozen=True, slots=True)
class ChallengerCall:
    """One challenger under the rule: its verdict, its findings' worst light, what the rule gives."""

    name: str
    colour: str
    verdict: str
    decision: str
    why: str
    conditions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeyTable:
    model: str
    colour: str
    rows: tuple[DeltaRow, ...]


@dataclass(frozen=True, slots=True)
class IdentifierRow:
    """A model's input file's SHA-256, its first 12 hex digits (the title page shows it in a brief)."""

    name: str
    sha256: str


@dataclass(frozen=True, slots=True)
class BriefView:
    #: "Adopt challenger", "Adopt challenger, on conditions", "Retain champion"
    headline: str
    decision: str
    #: the sentence under the headline: why, in one line
    because: str
    calls: tuple[ChallengerCall, ...]
    rule: str
    findings: tuple[ModelFindings, ...]
    #: why there may be no finding at all (no credit validation configured)
    findings_note: str
    tables: tuple[KeyTable, ...]
    sample: tuple[tuple[str, str], ...]
    limitations: tuple[str, ...]
    identifiers: tuple[IdentifierRow, ...]


def recommend(significantly_better: bool, lights: list[str], block_on: str = "red") -> Decision:
    """The rule for one challenger: ``adopt`` when significantly better with no finding at or above
    ``block_on``; ``conditional`` when significantly better with lower findings only; else ``retain``."""
    if not significantly_better:
        return "retain"
    worst = max((SEVERITY.get(x, 0) for x in lights), default=0)
    if worst >= SEVERITY[block_on]:
        return "retain"
    return "conditional" if worst else "adopt"


def rule_text(block_on: str, metric: str) -> str:
    """The rule as the brief prints it."""
    blocking = "red finding" if block_on == "red" else "red or amber finding"
    conditions = "amber findings are its conditions" if block_on == "red" else "no finding makes it conditional"
    return (
        f"Rule (report.recommendation.block_on: {block_on}): adopt a challenger when its {metric} is significantly "
        f"better than the baseline's (Holm-adjusted p below α) and it has no {blocking}; conditional when "
        f"significantly better with findings below {block_on} only ({conditions}); retain the baseline otherwise — "
        f"not significantly better, or a {blocking}. The first challenger to adopt, else the first conditional, in "
        f"the config's order, is recommended."
    )


def model_findings(m: CreditModel, level: float) -> list[Finding]:
    """Every red and amber light of a model's credit validation, each with its reason: the test,
    its statistic and p-value (or PSI), and for the AUC test the reference it is measured against."""
    out: list[Finding] = []

    def add(t: CreditTest | None, test: str, reason: str) -> None:
        if t is not None and t.light in SEVERITY:
            out.append(Finding(t.light, test, reason))

    c = m.calibration
    if c is not None:
        for field, key in _CALIBRATION_TESTS:
            t = getattr(c, field)
            add(
                t,
                CREDIT_TEST_NAMES[key],
                f"{_p(t)}; observed default rate {fmt_pct(c.default_rate, 2)} against a "
                f"mean PD of {fmt_pct(c.mean_pd, 2)}" + (f", slope {fmt_num(c.slope)}" if key == "slope" else ""),
            )
    for g in m.grades:
        lights = [t.light for t in (g.jeffreys, g.binomial) if t is not None and t.light in SEVERITY]
        if lights:
            worst = max(lights, key=lambda x: SEVERITY[x])
            tests = "; ".join(
                f"{name} {_p(t)} ({t.light})"
                for name, t in (("Jeffreys", g.jeffreys), ("binomial", g.binomial))
                if t is not None and t.light in SEVERITY
            )
            few = ", fewer defaults than credit.min_defaults" if g.few_defaults else ""
            out.append(
                Finding(
                    worst,
                    f"Grade {g.grade}",
                    f"{tests}: default rate {fmt_pct(g.default_rate, 2)} "
                    f"against a mean PD of {fmt_pct(g.mean_pd, 2)} over {fmt_count(g.n)} rows{few}",
                )
            )
    h = m.auc_history
    if h is not None:
        add(
            h.test,
            CREDIT_TEST_NAMES["auc_history"],
            f"{_p(h.test)}: current AUC {fmt_num(h.current_auc)} against {auc_reference(h)}",
        )
    s = m.stability
    if s is not None:
        add(
            s.psi,
            CREDIT_TEST_NAMES["psi"],
            f"PSI = {fmt_num(s.psi.statistic)} against the reference sample "
            f"({fmt_count(s.reference_n)} rows, over {'grades' if s.basis == 'grades' else 'score deciles'})",
        )
        t = s.concentration_test
        add(t, CREDIT_TEST_NAMES["herfindahl"], f"{_p(t)}: the grades are more concentrated than in the reference")
    return sorted(out, key=lambda f: -SEVERITY[f.light])


def fairness_findings(result: ComparisonResult) -> dict[str, list[Finding]]:
    """Model → its fairness findings: red for each failed check on a fairness measure
    (:data:`reportgen.catalog.FAIRNESS_CHECK_METRICS`), amber for each group whose adverse-impact
    ratio (on the favourable outcome's rate) is below the four-fifths line (29 CFR 1607.4(D)), with
    its interval and reference group."""
    out: dict[str, list[Finding]] = {}
    for c in result.checks:
        if not c.passed and c.model is not None and c.metric in catalog.FAIRNESS_CHECK_METRICS:
            rule = c.rule.removeprefix(f"{c.model}: ")
            out.setdefault(c.model, []).append(Finding("red", "Fairness check", f"{rule}: {c.detail}"))
    sec = result.fairness
    if sec is None:
        return out
    level = f"{result.run.confidence_level * 100:g} %"
    rate = vocabulary(None, result).favourable_rate(sec.favourable)
    for name, fm in sec.models.items():
        for col in fm.columns:
            for g in col.groups:
                air = g.adverse_impact_ratio
                if air is not None and air < sec.four_fifths and g.group != col.reference:
                    ci = fmt_ci(g.adverse_impact_ratio_ci, 2)
                    out.setdefault(name, []).append(
                        Finding(
                            "amber",
                            f"Four-fifths rule: {col.column} = {g.group}",
                            f"adverse-impact ratio {fmt_num(air, 2)}"
                            + (f" ({level} interval {ci})" if ci else "")
                            + f": {rate} {fmt_pct(_rate(col, g.group, sec.favourable))} against "
                            f"{fmt_pct(_rate(col, col.reference, sec.favourable))}"
                            f" for {col.reference}; below {fmt_num(sec.four_fifths, 2)}",
                        )
                    )
    return out


def _rate(col: FairnessColumn, group: str, favourable: str) -> float | None:
    """The group's rate of the favourable outcome (the selection rate, or 1 − it)."""
    sel = next((g.selection_rate for g in col.groups if g.group == group), None)
    return None if sel is None else sel if favourable == "flagged" else 1.0 - sel


def all_findings(result: ComparisonResult) -> dict[str, list[Finding]]:
    """Model → its credit, fairness and segment findings, red first."""
    level = result.run.confidence_level
    found = {n: model_findings(m, level) for n, m in (result.credit.models.items() if result.credit else ())}
    for n, fs in [*fairness_findings(result).items(), *segment_findings(result).items()]:
        found[n] = sorted([*found.get(n, []), *fs], key=lambda f: -SEVERITY[f.light])
    return found


def _p(t: CreditTest | None) -> str:
    return "" if t is None else fmt_p(t.p_value)


def brief_view(
    result: ComparisonResult, colours: Mapping[str, str], comparison: ComparisonView, block_on: str = "red"
) -> BriefView:
    """The brief of ``result`` (``comparison``: the comparison section's view, whose rows it shows)."""
    run = result.run
    metric = catalog.label(run.primary_metric)
    found = all_findings(result)
    calls = []
    for c in result.comparisons:
        d = c.decision
        better = d is not None and bool(d.significant) and d.direction == "better"
        lights = [f.light for f in found.get(c.model, [])]
        decision = recommend(better, lights, block_on)
        blocking = [f for f in found.get(c.model, []) if SEVERITY[f.light] >= SEVERITY[block_on]]
        conditions = tuple(f"{f.test}: {f.reason}" for f in found.get(c.model, []) if decision == "conditional")
        if not better:
            why = f"not significantly better on {metric}"
        elif blocking:
            why = (
                f"significantly better, but {len(blocking)} {block_on if block_on == 'red' else 'red or amber'} finding"
                + ("s" if len(blocking) > 1 else "")
            )
        elif conditions:
            why = f"significantly better; {len(conditions)} amber finding{'s' if len(conditions) > 1 else ''} to meet"
        else:
            why = f"significantly better on {metric}, no red or amber finding"
        calls.append(ChallengerCall(c.model, colours.get(c.model, "#000000"), verdict(c), decision, why, conditions))
    chosen = next((x for x in calls if x.decision == "adopt"), None) or next(
        (x for x in calls if x.decision == "conditional"), None
    )
    if chosen is None:
        headline, decision = f"Retain {run.baseline}", "retain"
        because = (
            f"No challenger is significantly better than {run.baseline} on {metric} without a blocking finding."
            if calls
            else "There is no challenger to compare."
        )
    elif chosen.decision == "adopt":
        headline, decision = f"Adopt {chosen.name}", "adopt"
        because = f"{chosen.name} replaces {run.baseline}: {chosen.why}."
    else:
        headline, decision = f"Adopt {chosen.name}, on conditions", "conditional"
        because = f"{chosen.name} may replace {run.baseline} once the conditions below are met or accepted."
    own = found.get(run.baseline, [])
    if own:  # the rule weighs the challengers; the baseline's own flags stand whichever way it goes
        because += f" The baseline, {run.baseline}, has findings of its own ({_count(own)}): see below."
    findings = findings_of(result, colours, found)
    return BriefView(
        headline=headline,
        decision=decision,
        because=because,
        calls=tuple(calls),
        rule=rule_text(block_on, metric),
        findings=findings,
        findings_note=""
        if result.credit is not None or result.fairness is not None or any(found.values())
        else (
            "No credit validation is configured (credit:), nor a fairness section (fairness:), so there are no "
            "traffic-light findings; the verdicts above are the evidence."
            + (
                " No segment goes against a challenger's overall result (Holm over each segment column's values)."
                if result.segments is not None
                else ""
            )
        ),
        tables=tuple(KeyTable(c.model, c.colour, _key_rows(c.rows)) for c in comparison.comparisons),
        sample=_sample(result),
        limitations=_limitations(result),
        identifiers=_identifiers(result),
    )


def segment_findings(result: ComparisonResult) -> dict[str, list[Finding]]:
    """An amber finding per segment that goes against a challenger's overall result
    (:attr:`~reportgen.section_results.SegmentSection.reversals`): better overall and significantly worse
    in the segment (a condition to weigh before adopting), or the reverse."""
    sec = result.segments
    out: dict[str, list[Finding]] = {}
    if sec is None:
        return out
    label = catalog.short_label(sec.primary_metric)
    for r in sec.reversals:
        overall = "better" if r.overall == "better" else "worse"
        out.setdefault(r.model, []).append(
            Finding(
                "amber",
                f"By segment: {r.column} = {r.value}",
                f"{overall} than {sec.baseline} overall, significantly {r.segment} here "
                f"(Δ {label} {fmt_signed(r.delta, 3)}, Holm-adjusted {fmt_p(r.p_value_adjusted)})",
            )
        )
    return out


def findings_of(
    result: ComparisonResult, colours: Mapping[str, str], found: dict[str, list[Finding]] | None = None
) -> tuple[ModelFindings, ...]:
    """Each model's red and amber findings (:func:`model_findings`), baseline first as configured."""
    if found is None:
        found = all_findings(result)
    return tuple(
        ModelFindings(
            name=n,
            colour=colours.get(n, "#000000"),
            baseline=n == result.run.baseline,
            findings=tuple(found.get(n, [])),
            count=_count(found.get(n, [])),
        )
        for n in result.models
    )


def _count(fs: list[Finding]) -> str:
    red, amber = sum(f.light == "red" for f in fs), sum(f.light == "amber" for f in fs)
    return ", ".join(x for x in (f"{red} red" if red else "", f"{amber} amber" if amber else "") if x) or "none"


def _key_rows(rows: tuple[DeltaRow, ...]) -> tuple[DeltaRow, ...]:
    """The primary metric's row, then the next rows, :data:`BRIEF_METRICS` in all."""
    primary = [r for r in rows if r.primary]
    return tuple((primary + [r for r in rows if not r.primary])[:BRIEF_METRICS])


def _sample(result: ComparisonResult) -> tuple[tuple[str, str], ...]:
    """The sample description: period, rows, positives, the label's definition, exclusions, missing values."""
    run = result.run
    cfg = run.config
    first = next(iter(result.models.values()))
    out: list[tuple[str, str]] = []
    out.append(
        (
            "Period",
            " to ".join(run.date_range) + f" (column {cfg.get('date')})"
            if run.date_range
            else "not stated (no date column configured)",
        )
    )
    out.append(
        ("Rows", f"{fmt_count(first.n)} per model" + (", matched by id" if cfg.get("id") else ", matched by position"))
    )
    if run.task == "binary":
        share = first.positives / first.n if first.positives is not None and first.n else None
        out.append(("Positives", f"{fmt_count(first.positives)} ({fmt_pct(share, 2)})"))
        label = cfg.get("label") or "per model"
        what = "positive (default)" if result.credit is not None else "positive"
        out.append(("Definition", f"{what} when {label} = {cfg.get('positive')!s}, as configured"))
    else:
        out.append(
            (
                "Classes",
                f"{len(run.classes or [])}: {', '.join(run.classes or [])} (label {cfg.get('label') or 'per model'})",
            )
        )
    dropped = "; ".join(f"{d.model}: {fmt_count(d.rows)} rows ({d.reason})" for d in run.dropped)
    out.append(("Exclusions", dropped or "none: every row read was used"))
    out.append(
        (
            "Missing values",
            {
                "error": "none (missing: error stops a run on a missing value)",
                "drop": "rows with a missing value dropped for every model (missing: drop; counted under exclusions)",
            }.get(str(cfg.get("missing", "error")), str(cfg.get("missing"))),
        )
    )
    if result.credit is not None:
        refs = [n for n, m in result.credit.models.items() if m.stability is not None]
        if refs:
            out.append(
                (
                    "Reference",
                    "development samples for stability: "
                    + ", ".join(f"{n} ({fmt_count(_reference_n(result, n))} rows)" for n in refs),
                )
            )
    return tuple(out)


def _limitations(result: ComparisonResult) -> tuple[str, ...]:
    """What the evidence cannot say: sample size, pairing, baselines taken as exact, the family."""
    run = result.run
    first = next(iter(result.models.values()))
    out = []
    size = f"One sample of {fmt_count(first.n)} rows"
    if run.task == "binary" and first.positives is not None:
        size += f" with {fmt_count(first.positives)} positives"
    over_time = run.date_range or (
        result.credit is not None and any(m.stability is not None for m in result.credit.models.values())
    )
    out.append(
        size
        + "; intervals and tests describe this sample's uncertainty, not a change of population or time"
        + (
            "."
            if over_time
            else " (no reference sample or date column is configured, so no change over time is tested)."
        )
    )
    out.append(
        "Models are paired row by row (by id)"
        + (
            "."
            if run.paired and run.config.get("id")
            else " by position."
            if run.paired
            else "; they could not be paired, so their samples are treated as independent, which widens the intervals."
        )
    )
    if result.credit is not None:
        hist = {n: m.auc_history for n, m in result.credit.models.items() if m.auc_history is not None}
        if hist:
            out.append(
                "The AUC tests against initial validation compare "
                + "; ".join(f"{n}'s current AUC with {auc_reference(h)}" for n, h in hist.items())
                + ". An AUC measured on the development sample is in-sample, so a fall from it overstates decay."
            )
        out.append(
            "Traffic lights are per test at the configured p-value levels, not adjusted for the number of tests; "
            "with many grades some amber lights are expected by chance."
        )
    if len(result.comparisons) > 1:
        out.append(
            f"The verdicts are Holm-adjusted over the {len(result.comparisons)} challengers; other metrics' "
            "intervals are unadjusted."
        )
    return tuple(out)


def _identifiers(result: ComparisonResult) -> tuple[IdentifierRow, ...]:
    """Each model's input file's SHA-256, its first 12 hex digits (the audit's)."""
    digests = {f.path: f.sha256 for f in result.run.files}
    by_name = {Path(f.path).name: f.sha256 for f in result.run.files}
    rows = []
    for n, m in result.models.items():
        sha = digests.get(m.file) or by_name.get(Path(m.file).name) or ""
        rows.append(IdentifierRow(n, sha[:12] if sha else "n/a"))
    return tuple(rows)


__all__ = [
    "BRIEF_METRICS",
    "BriefView",
    "Finding",
    "ModelFindings",
    "brief_view",
    "findings_of",
    "model_findings",
    "recommend",
    "rule_text",
]


def _reference_n(result: ComparisonResult, name: str) -> float | None:
    """The rows of ``name``'s reference sample (None without a stability comparison)."""
    stability = None if result.credit is None else result.credit.models[name].stability
    return None if stability is None else stability.reference_n

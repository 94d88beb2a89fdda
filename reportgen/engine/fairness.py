"""Fairness by protected group: per-group rates at the decision threshold and their disparities.

Input per protected column: one score table per group (:class:`~reportgen.engine.curve.ScoreTable`,
rows counted whole), which every engine builds from the rows or from their distinct rows with
counts, so the numbers do not depend on the engine.

Per group, at the model's decision rule: selection rate (tp + fp) / n, TPR tp / (tp + fn),
FPR fp / (fp + tn), precision tp / (tp + fp), each with Wilson's score interval; the AUC with
DeLong's interval (:func:`~reportgen.engine.proportions.delong_auc_bounds`).

Between groups, as fairlearn defines them (``fairlearn.metrics``, method ``between_groups``):
demographic-parity difference max - min of the selection rates and ratio min / max; equalized-odds
difference the larger of the TPR and FPR differences and ratio the smaller of their ratios;
equal-opportunity difference the TPR difference; all of these on the selection rate (the share
predicted positive), so the demographic-parity ratio is fairlearn's, on the selection rate, whichever
outcome is favourable (the difference is the same either way). The adverse-impact ratio of a group
is its *favourable* rate over the reference group's (the four-fifths rule of the US Uniform
Guidelines, 29 CFR 1607.4(D): a selection rate for the favourable outcome below 0.8 of the
reference's is evidence of adverse impact). ``favourable``: ``"flagged"``, the favourable rate is the
selection rate; ``"not_flagged"`` (credit, where the positive class is the default and a flag a
decline), it is 1 − the selection rate, the approval rate. Intervals of these come from a
bootstrap of the per-group count tables: each group's four confusion cells are redrawn from a
multinomial with the group's size and observed cell shares (groups resampled independently,
their sizes fixed), percentile intervals.

A challenger's change against the baseline (challenger − baseline of each disparity and of each
group's adverse-impact ratio) gets a *paired* bootstrap interval: the rows both models score
(joined by ``id:``, else the same rows in the same order) are reduced to one joint count table per
group, rows by (label, baseline's decision, challenger's decision), eight cells
(:func:`joint_cells`, mergeable: tables of parts add up). Each resample redraws every group's
eight cells from a multinomial of its size and cell shares (the rows resampled within each
group, the same rows for both models), takes both models' confusion cells from them
(:func:`pair_marginals`) and the change of each measure; percentile intervals.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from reportgen.engine import proportions as PR
from reportgen.engine import stats
from reportgen.engine.curve import ScoreTable, build_table
from reportgen.engine.streaming import delong_from_table
from reportgen.result_base import Favourable
from reportgen.section_results import FairnessChange, FairnessColumn, FairnessGroup

#: Rows of each class a group needs for DeLong's AUC interval (as the models' own intervals).
DELONG_MIN_ROWS = 2

#: The between-group measures, in the order the section lists them.
DISPARITIES = (
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equal_opportunity_difference",
)


@dataclass(frozen=True, slots=True)
class Cells:
    """A group's confusion counts at the decision rule (rows)."""

    tp: float
    fp: float
    fn: float
    tn: float


def group_tables(
    y: np.ndarray, score: np.ndarray, groups: np.ndarray, direction: str, count: np.ndarray | None = None
) -> dict[str, ScoreTable]:
    """One score table per group value (rows counted whole; ``count``: each row's multiplicity)."""
    out = {}
    for g in sorted(set(groups.tolist())):
        sel = groups == g
        c = None if count is None else count[sel]
        t = build_table(score[sel], y[sel], None if c is None else c.astype(np.float64), direction)  # type: ignore[arg-type]
        n = int(t.n_rows if c is None else c.sum())
        out[str(g)] = ScoreTable(t.thresholds, t.pos, t.neg, t.direction, float(n), n, False)
    return out


def cells_at(table: ScoreTable, threshold: float) -> Cells:
    """The confusion counts of the rule "positive at or beyond ``threshold``" on ``table``."""
    k = table.cut_index(threshold)
    tp_c, fp_c = table.cumulative_view()  # index k: every score up to the k-th predicted positive
    tp, fp = float(tp_c[k]), float(fp_c[k])
    return Cells(tp, fp, table.total_pos - tp, table.total_neg - fp)


def _rates(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Selection rate, TPR, FPR of cell arrays (..., 4) = (tp, fp, fn, tn); NaN where undefined."""
    tp, fp, fn, tn = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (tp + fp) / (tp + fp + fn + tn), tp / (tp + fn), fp / (fp + tn)


def _range_ratio(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max - min and min / max over the last axis, ignoring NaN (an undefined group rate); NaN
    when no group has the rate, and a ratio NaN when the largest rate is 0."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice: NaN, as wanted
        hi, lo = np.nanmax(x, axis=-1), np.nanmin(x, axis=-1)
        return hi - lo, np.where(hi > 0, lo / np.where(hi > 0, hi, 1.0), np.nan)


def favourable_rate(selection: np.ndarray, favourable: Favourable) -> np.ndarray:
    """The rate of the favourable outcome: the selection rate when a flag is favourable, else
    1 − the selection rate (the share predicted negative, e.g. approved)."""
    return selection if favourable == "flagged" else 1.0 - selection


def disparities(cells: np.ndarray, ref: int, favourable: Favourable) -> dict[str, np.ndarray]:
    """The between-group measures of cell arrays (..., groups, 4) (on the selection rate, as
    fairlearn's) and each group's adverse-impact ratio against group ``ref`` on the
    ``favourable`` rate (key ``air``, shape (..., groups))."""
    sel, tpr, fpr = _rates(cells)
    dp_d, dp_r = _range_ratio(sel)
    tpr_d, tpr_r = _range_ratio(tpr)
    fpr_d, fpr_r = _range_ratio(fpr)
    with np.errstate(invalid="ignore", divide="ignore"):
        fav = favourable_rate(sel, favourable)
        ref_fav = fav[..., ref : ref + 1]
        air = np.where(ref_fav > 0, fav / np.where(ref_fav > 0, ref_fav, 1.0), np.nan)
    return {
        "demographic_parity_difference": dp_d,
        "demographic_parity_ratio": dp_r,
        "equalized_odds_difference": np.fmax(tpr_d, fpr_d),
        "equalized_odds_ratio": np.fmin(tpr_r, fpr_r),
        "equal_opportunity_difference": tpr_d,
        "air": air,
    }


def _value(v: np.ndarray | float) -> float | None:
    f = float(v)
    return f if np.isfinite(f) else None


def _interval(draws: np.ndarray, level: float) -> list[float] | None:
    ci = stats.percentile_interval(draws, level)
    return None if ci is None else [float(ci[0]), float(ci[1])]


def _wilson(k: float, n: float, level: float) -> list[float] | None:
    return None if n <= 0 else list(PR.wilson(k, n, level))


def fairness_column(
    column: str,
    tables: Mapping[str, ScoreTable],
    threshold: float,
    reference: str | None,
    level: float,
    resamples: int,
    rng: np.random.Generator,
    favourable: Favourable,
) -> FairnessColumn:
    """The fairness of one protected column: per group rates with intervals, and the disparities
    between its groups with bootstrap intervals (``resamples`` 0: no intervals of those).

    ``reference``: the group adverse-impact ratios are taken against; None: the largest group
    (the first in label order among equally large ones). ``favourable``: the outcome whose rate
    the adverse-impact ratios compare (:func:`favourable_rate`)."""
    names = list(tables)
    if reference is None:
        reference = max(names, key=lambda g: (tables[g].total, -names.index(g)))
    if reference not in tables:
        raise ValueError(f"{column}: reference group {reference!r} not found (groups: {', '.join(names)})")
    ref = names.index(reference)
    cells = np.array([[c.tp, c.fp, c.fn, c.tn] for c in (cells_at(tables[g], threshold) for g in names)])
    point = disparities(cells, ref, favourable)
    boot: dict[str, np.ndarray] | None = None
    if resamples > 0:
        n = cells.sum(axis=1)
        shares = cells / np.where(n > 0, n, 1.0)[:, None]
        draws = np.stack(
            [rng.multinomial(int(n[i]), shares[i], size=resamples) for i in range(len(names))], axis=1
        ).astype(np.float64)  # (resamples, groups, 4)
        boot = disparities(draws, ref, favourable)
    groups = []
    for i, g in enumerate(names):
        t, c = tables[g], cells[i]
        tp, fp, fn, tn = c
        d = delong_from_table(t) if min(t.total_pos, t.total_neg) >= DELONG_MIN_ROWS else None
        auc_ci = None if d is None else list(PR.delong_auc_bounds(d.auc, d.variance, level)[:2])
        groups.append(
            FairnessGroup(
                group=g,
                n=int(t.total),
                positives=int(t.total_pos),
                selected=int(tp + fp),
                selection_rate=_value((tp + fp) / t.total) if t.total > 0 else None,
                selection_rate_ci=_wilson(tp + fp, t.total, level),
                tpr=_value(tp / (tp + fn)) if tp + fn > 0 else None,
                tpr_ci=_wilson(tp, tp + fn, level),
                fpr=_value(fp / (fp + tn)) if fp + tn > 0 else None,
                fpr_ci=_wilson(fp, fp + tn, level),
                precision=_value(tp / (tp + fp)) if tp + fp > 0 else None,
                precision_ci=_wilson(tp, tp + fp, level),
                auc=None if d is None else _value(d.auc),
                auc_ci=auc_ci,
                adverse_impact_ratio=_value(point["air"][i]),
                adverse_impact_ratio_ci=None if boot is None or i == ref else _interval(boot["air"][:, i], level),
            )
        )
    return FairnessColumn(
        column=column,
        reference=reference,
        groups=tuple(groups),
        disparities={k: _value(point[k]) for k in DISPARITIES},
        disparities_ci={
            k: ci for k in DISPARITIES if boot is not None and (ci := _interval(boot[k], level)) is not None
        },
        min_adverse_impact_ratio=min(
            (x.adverse_impact_ratio for j, x in enumerate(groups) if j != ref and x.adverse_impact_ratio is not None),
            default=None,
        ),
    )


def fairness_changes(
    model: Sequence[FairnessColumn], baseline: Sequence[FairnessColumn]
) -> dict[str, dict[str, float | None]]:
    """column -> measure -> the model's value minus the baseline's (point estimates)."""
    base = {c.column: c for c in baseline}
    out: dict[str, dict[str, float | None]] = {}
    for c in model:
        b = base.get(c.column)
        if b is None:
            continue
        keys = (*DISPARITIES, "min_adverse_impact_ratio")
        mine = {**c.disparities, "min_adverse_impact_ratio": c.min_adverse_impact_ratio}
        theirs = {**b.disparities, "min_adverse_impact_ratio": b.min_adverse_impact_ratio}
        out[c.column] = {
            k: None if mine.get(k) is None or theirs.get(k) is None else mine[k] - theirs[k]  # type: ignore[operator]
            for k in keys
        }
    return out


#: How the change intervals are made (FairnessChange.method).
PAIRED_METHOD = "paired bootstrap (rows resampled within each group, the same rows for both models), percentile"

#: The changes with a paired interval (the disparities and the smallest adverse-impact ratio).
CHANGE_KEYS = (*DISPARITIES, "min_adverse_impact_ratio")


def joint_cells(
    y: np.ndarray, base: np.ndarray, chal: np.ndarray, group: np.ndarray, n_groups: int, count: np.ndarray | None = None
) -> np.ndarray:
    """Rows of each group by (label, baseline's decision, challenger's decision): shape
    (n_groups, 8), cell ``4 y + 2 d_base + d_chal``; ``group``: each row's group index,
    ``count``: each row's multiplicity (None: 1)."""
    cell = 4 * y.astype(np.int64) + 2 * base.astype(np.int64) + chal.astype(np.int64)
    w = None if count is None else count.astype(np.float64)
    return np.bincount(group.astype(np.int64) * 8 + cell, weights=w, minlength=8 * n_groups).reshape(n_groups, 8)


def pair_marginals(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(baseline's, challenger's) confusion cells (..., groups, 4) = (tp, fp, fn, tn) of joint
    tables (..., groups, 8) (cell ``4 y + 2 d_base + d_chal``)."""
    j = joint
    base = np.stack([j[..., 6] + j[..., 7], j[..., 2] + j[..., 3], j[..., 4] + j[..., 5], j[..., 0] + j[..., 1]], -1)
    chal = np.stack([j[..., 5] + j[..., 7], j[..., 1] + j[..., 3], j[..., 4] + j[..., 6], j[..., 0] + j[..., 2]], -1)
    return base, chal


def paired_draws(joint: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resampled joint tables, shape (resamples, groups, 8): each group's rows redrawn with
    replacement (a multinomial of its size over its eight cells' shares), groups independent."""
    n = joint.sum(axis=1)
    shares = joint / np.where(n > 0, n, 1.0)[:, None]
    return np.stack(
        [rng.multinomial(int(round(n[i])), shares[i], size=resamples) for i in range(joint.shape[0])], axis=1
    ).astype(np.float64)


def change_of(joint: np.ndarray, ref: int, favourable: Favourable) -> dict[str, np.ndarray]:
    """Challenger − baseline of every measure of :func:`disparities` (and the smallest adverse-impact
    ratio of a non-reference group) on joint tables (..., groups, 8), the ratios on the
    ``favourable`` rate."""
    base, chal = pair_marginals(joint)
    b, c = disparities(base, ref, favourable), disparities(chal, ref, favourable)
    out = {k: c[k] - b[k] for k in (*DISPARITIES, "air")}
    others = [i for i in range(joint.shape[-2]) if i != ref]

    def lowest(air: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # no group with a ratio: NaN
            return np.nanmin(air[..., others], axis=-1) if others else np.full(air.shape[:-1], np.nan)

    out["min_adverse_impact_ratio"] = lowest(c["air"]) - lowest(b["air"])
    return out


def fairness_change(
    column: str,
    joint: np.ndarray,
    names: Sequence[str],
    reference: str,
    level: float,
    resamples: int,
    rng: np.random.Generator,
    favourable: Favourable,
) -> tuple[FairnessChange, dict[str, float | None]]:
    """The challenger's change against the baseline on one protected column, from the joint
    tables of the rows both models score (``names``: the groups of ``joint``'s rows): the
    paired bootstrap intervals (none with ``resamples`` 0) and the point changes (measure → value)
    on those rows."""
    ref = list(names).index(reference)
    point = change_of(joint, ref, favourable)
    boot = change_of(paired_draws(joint, resamples, rng), ref, favourable) if resamples > 0 else None
    return FairnessChange(
        column=column,
        rows=int(round(joint.sum())),
        method=PAIRED_METHOD if boot is not None else None,
        changes_ci={k: ci for k in CHANGE_KEYS if boot is not None and (ci := _interval(boot[k], level)) is not None},
        adverse_impact_ratio_changes={g: _value(point["air"][i]) for i, g in enumerate(names) if i != ref},
        adverse_impact_ratio_changes_ci={
            g: ci
            for i, g in enumerate(names)
            if i != ref and boot is not None and (ci := _interval(boot["air"][:, i], level)) is not None
        },
    ), {k: _value(point[k]) for k in CHANGE_KEYS}

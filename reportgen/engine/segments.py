"""The models compared within segments: per value key metrics, paired deltas, Holm by column.

Each tested value of a segment column is compared by the one driver
(:func:`reportgen.engine.driver.compare_evidence`) on the evidence of its rows, so a segment's
AUC, Gini, KS and their intervals, and a challenger's verdict on the primary metric (DeLong for
AUC / Gini on paired rows, the bootstrap otherwise), are what a whole run on that subset gives.

Multiplicity (:mod:`reportgen.engine.multiplicity`): for each column and challenger, the verdicts
over the column's tested values are one Holm family (``segments``), so "significantly worse in
some age band" controls the family-wise error over the bands. A value with fewer positive or
negative rows than ``min_rows`` is listed with its counts and not tested.

A reversal: a challenger whose overall delta of the primary metric favours it (or the baseline)
while a segment's Holm-significant verdict points the other way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from reportgen.engine import multiplicity as MP
from reportgen.results import Comparison, ModelResult
from reportgen.section_results import SegmentColumn, SegmentDelta, SegmentModel, SegmentReversal, SegmentValue

#: The key metrics shown per segment (the primary metric is added when it is another).
KEY_METRICS = ("roc_auc", "gini", "ks", "brier", "log_loss")


def key_metrics(primary: str) -> tuple[str, ...]:
    """The metrics a segment lists: :data:`KEY_METRICS`, then the primary metric if not among them."""
    return KEY_METRICS if primary in KEY_METRICS else (*KEY_METRICS, primary)


def segment_models(models: Mapping[str, ModelResult], primary: str) -> list[SegmentModel]:
    """Each model's key metrics with their intervals, from a comparison of the segment's rows."""
    keys = key_metrics(primary)
    return [
        SegmentModel(
            model=name,
            metrics={k: m.metrics.get(k) for k in keys},
            ci={k: list(m.ci[k]) for k in keys if k in m.ci},
            ci_method={k: m.ci_method[k] for k in keys if k in m.ci_method},
        )
        for name, m in models.items()
    ]


def raw_deltas(comparisons: Sequence[Comparison]) -> list[SegmentDelta]:
    """Each challenger's verdict on the primary metric within a segment, unadjusted (the run's
    Holm over its challengers is replaced by :func:`adjusted` over the column's values)."""
    out = []
    for c in comparisons:
        d = c.decision
        if d is None:
            continue
        out.append(
            SegmentDelta(
                model=c.model,
                delta=d.delta,
                ci=None if d.ci is None else list(d.ci),
                ci_method=d.ci_method,
                method=d.method,
                p_value=d.p_value,
                p_value_adjusted=None,
            )
        )
    return out


def adjusted(values: Sequence[SegmentValue], better: str, level: float) -> list[SegmentValue]:
    """The values with each challenger's p Holm-adjusted over the column's tested values (family
    ``segments``), significance at α = 1 − ``level`` and the direction of a significant delta."""
    alpha = MP.alpha_of(level)
    names = sorted({d.model for v in values for d in v.deltas})
    fixed: dict[tuple[int, str], SegmentDelta] = {}
    for name in names:
        where = [(i, d) for i, v in enumerate(values) for d in v.deltas if d.model == name]
        ps, size = MP.holm([d.p_value for _, d in where])
        for (i, d), p in zip(where, ps):
            sig = None if p is None else p < alpha
            fixed[(i, name)] = SegmentDelta(
                **{
                    **{f: getattr(d, f) for f in SegmentDelta.__dataclass_fields__},
                    "p_value_adjusted": p,
                    "family": MP.SEGMENTS,
                    "family_size": size,
                    "significant": sig,
                    "direction": MP.direction(d.delta, better, sig),
                }
            )
    return [
        SegmentValue(
            value=v.value,
            rows=v.rows,
            positives=v.positives,
            tested=v.tested,
            models=v.models,
            deltas=[fixed[(i, d.model)] for d in v.deltas],
        )
        for i, v in enumerate(values)
    ]


def reversals(
    columns: Sequence[SegmentColumn], overall: Mapping[str, float | None], better: str
) -> list[SegmentReversal]:
    """Challengers whose overall delta (``overall``: model → its whole-sample delta of the primary
    metric) and a segment's significant direction disagree, in column and value order."""
    out = []
    for col in columns:
        for v in col.values:
            for d in v.deltas:
                whole = overall.get(d.model)
                if whole is None or whole == 0 or d.direction == "inconclusive":
                    continue
                side: Literal["better", "worse"] = "better" if (whole > 0) == (better == "higher") else "worse"
                if side != d.direction:
                    out.append(
                        SegmentReversal(
                            model=d.model,
                            column=col.column,
                            value=v.value,
                            overall=side,
                            segment=d.direction,
                            delta=d.delta,
                            p_value_adjusted=d.p_value_adjusted,
                        )
                    )
    return out

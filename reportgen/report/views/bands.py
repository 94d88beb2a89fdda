"""The score-band section: each model's gains table (rows, positives, rate, capture, lift, KS by band)."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_count, fmt_num, fmt_pct, fmt_share, fmt_threshold
from reportgen.report.views.common import Models
from reportgen.results import BandTable, ComparisonResult


@dataclass(frozen=True, slots=True)
class BandRow:
    band: str
    scores: str
    rows: str
    positives: str
    rate: str
    capture: str
    share_of_rows: str
    lift: str
    ks: str
    #: the band with the largest KS (the KS at the bands' resolution), set in bold
    peak: bool


@dataclass(frozen=True, slots=True)
class ModelBands:
    model: str
    colour: str
    #: "higher scores first" or "lower scores first": the order of the bands
    order: str
    #: one line when ties left fewer bands than asked, else ""
    fewer: str
    rows: tuple[BandRow, ...]


@dataclass(frozen=True, slots=True)
class SideRow:
    """One band across the models: each model's cumulative capture and KS ("" past its last band)."""

    band: str
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BandsView:
    models: tuple[ModelBands, ...]
    #: the models' short headers (names, or keys when names are long), one per model of ``models``
    headers: tuple[str, ...]
    #: the side-by-side table: per band, capture and KS of each model in turn
    side: tuple[SideRow, ...]
    #: "deciles" for 10 bands, else "7 bands"
    title: str
    #: "Rows" or "Weight" (weighted tables count weights)
    unit: str


def _scores(first: float, last: float) -> str:
    a, b = fmt_threshold(first), fmt_threshold(last)
    return a if a == b else f"{a} to {b}"


def _model_bands(name: str, colour: str, direction: str, t: BandTable) -> ModelBands:
    ks = [r.ks for r in t.rows]
    top = max((k for k in ks if k is not None), default=None)
    fewer = (
        f"{len(t.rows)} bands, not {t.bands}: scores tied across a band boundary stay in one band."
        if len(t.rows) < t.bands
        else ""
    )
    return ModelBands(
        model=name,
        colour=colour,
        order="higher scores first" if direction == "higher" else "lower scores first",
        fewer=fewer,
        rows=tuple(
            BandRow(
                band=str(r.band),
                scores=_scores(r.score_first, r.score_last),
                rows=fmt_count(r.rows),
                positives=fmt_count(r.positives),
                rate=fmt_pct(r.rate),
                capture=fmt_share(r.capture, 1),
                share_of_rows=fmt_share(r.share_of_rows, 1),
                lift=fmt_num(r.lift, 2),
                ks=fmt_num(r.ks, 3),
                peak=top is not None and r.ks == top,
            )
            for r in t.rows
        ),
    )


def bands_view(result: ComparisonResult, ms: Models) -> BandsView:
    """The band tables of the binary models that have one, in the report's model order."""
    models = tuple(
        _model_bands(n, ms.colours[n], m.direction, m.bands)
        for n, m in result.models.items()
        if m.bands is not None and m.bands.rows
    )
    tables = [m.bands for m in result.models.values() if m.bands is not None and m.bands.rows]
    longest = max((len(t.rows) for t in tables), default=0)
    side = tuple(
        SideRow(
            band=str(i + 1),
            cells=tuple(
                c
                for t in tables
                for c in ((fmt_share(t.rows[i].capture, 1), fmt_num(t.rows[i].ks, 3)) if i < len(t.rows) else ("", ""))
            ),
        )
        for i in range(longest)
    )
    asked = {m.bands.bands for m in result.models.values() if m.bands is not None}
    k = asked.pop() if len(asked) == 1 else 10
    weighted = any(m.bands is not None and m.bands.weighted for m in result.models.values())
    return BandsView(
        models=models,
        headers=tuple(ms.short[m.model] for m in models),
        side=side,
        title="deciles" if k == 10 else f"{k} bands",
        unit="Weight" if weighted else "Rows",
    )

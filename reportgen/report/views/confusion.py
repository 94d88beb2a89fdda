"""The confusion section: a binary model's 2×2 matrices, or a multiclass model's K×K matrix
(or its top confusions when there are too many classes)."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_count, fmt_share
from reportgen.report.views.common import Models, optimum_threshold, rule_text
from reportgen.report.wording import rule as model_rule
from reportgen.results import ComparisonResult

#: Up to this many classes the confusion matrix is drawn in full; beyond, the top confusions.
MAX_MATRIX_CLASSES = 20


@dataclass(frozen=True, slots=True)
class Cell:
    """A matrix cell: its count, its share of the true class, its shade (0–1) and whether it is right."""

    count: str
    share: str
    shade: str
    ok: bool


@dataclass(frozen=True, slots=True)
class Matrix2:
    """A 2×2 matrix at one threshold, with its margins and approval rate."""

    model: str
    label: str
    rule: str
    tp: Cell
    fn: Cell
    fp: Cell
    tn: Cell
    pred_pos: str
    pred_neg: str
    pos: str
    neg: str
    total: str
    approval: str
    #: what ``approval`` is called (:attr:`~reportgen.report.wording.Vocabulary.rate_line`)
    rate_line: str


@dataclass(frozen=True, slots=True)
class BinaryCard:
    model: str
    colour: str
    views: tuple[Matrix2, ...]


@dataclass(frozen=True, slots=True)
class ClassRow:
    label: str
    cells: tuple[Cell, ...]
    total: str


@dataclass(frozen=True, slots=True)
class Confusion:
    """One off-diagonal cell of the top-confusions table."""

    true: str
    predicted: str
    count: str
    share: str


@dataclass(frozen=True, slots=True)
class MulticlassCard:
    model: str
    colour: str
    labels: tuple[str, ...]
    #: the matrix in full (up to :data:`MAX_MATRIX_CLASSES` classes), else the top confusions
    full: bool
    rows: tuple[ClassRow, ...]
    predicted: tuple[str, ...]
    total: str
    top: tuple[Confusion, ...]


@dataclass(frozen=True, slots=True)
class ConfusionView:
    binary: tuple[BinaryCard, ...]
    multiclass: tuple[MulticlassCard, ...]
    #: a K×K matrix of more than 8 classes prints on landscape pages (the top-confusions table of
    #: more than MAX_MATRIX_CLASSES classes has four columns: it stays portrait, where 40 classes
    #: turned three short tables into three landscape pages)
    wide: bool


def confusion_view(result: ComparisonResult, ms: Models) -> ConfusionView:
    classes = len(result.run.classes or [])
    return ConfusionView(
        binary=_binary(result, ms),
        multiclass=_multiclass(result, ms) if not ms.binary else (),
        wide=8 < classes <= MAX_MATRIX_CLASSES,
    )


def _matrix2(name: str, tp: float, fp: float, fn: float, tn: float, label: str, rule: str, rate_line: str) -> Matrix2:
    P, N = tp + fn, fp + tn
    m = P + N
    top = max(tp, fp, fn, tn, 1e-300)

    def cell(v: float, of: float, ok: bool) -> Cell:
        return Cell(
            count=fmt_count(v), share=fmt_share(v / of if of else None, 1), shade=f"{0.08 + 0.55 * v / top:.2f}", ok=ok
        )

    return Matrix2(
        model=name,
        label=label,
        rule=rule,
        tp=cell(tp, P, True),
        fn=cell(fn, P, False),
        fp=cell(fp, N, False),
        tn=cell(tn, N, True),
        pred_pos=fmt_count(tp + fp),
        pred_neg=fmt_count(fn + tn),
        pos=fmt_count(P),
        neg=fmt_count(N),
        total=fmt_count(m),
        approval=fmt_share((fn + tn) / m if m else None, 1),
        rate_line=rate_line,
    )


def _binary(result: ComparisonResult, ms: Models) -> tuple[BinaryCard, ...]:
    cards = []
    for n, m in result.models.items():
        if m.confusion is None:
            continue
        c = m.confusion
        # the rule on a line of its own under each matrix's title: a long exact threshold
        # (0.19541665490424923) wrapped one caption of the pair, and its matrix sat lower than the other
        items = [
            _matrix2(n, c.tp, c.fp, c.fn, c.tn, "at the decision threshold", f"({model_rule(m)})", ms.words.rate_line)
        ]
        o = m.optimal_thresholds.get("expected_cost")
        if o is not None:
            rule = "no row predicted positive" if o.threshold is None else rule_text(m.direction, optimum_threshold(o))
            items.append(
                _matrix2(n, o.tp, o.fp, o.fn, o.tn, "at the cost-optimal threshold", f"({rule})", ms.words.rate_line)
            )
        cards.append(BinaryCard(model=n, colour=ms.colours[n], views=tuple(items)))
    return tuple(cards)


def _multiclass(result: ComparisonResult, ms: Models) -> tuple[MulticlassCard, ...]:
    """Each model's K×K matrix as shaded cells (counts and row shares), or its top confusions."""
    out = []
    for n, m in result.models.items():
        cm = m.confusion_matrix
        if cm is None:
            continue
        k = len(cm.labels)
        totals = [sum(row) for row in cm.matrix]
        rows = []
        for i, row in enumerate(cm.matrix):
            cells = []
            for j, v in enumerate(row):
                # a zero count needs no share beside it ("0" over "0 %" said it twice)
                share = v / totals[i] if totals[i] and v else None
                cells.append(
                    Cell(
                        count=fmt_count(v),
                        share=fmt_share(share) if share is not None else "",
                        shade=f"{0.06 + 0.6 * (share or 0.0):.2f}",
                        ok=i == j,
                    )
                )
            rows.append(ClassRow(label=cm.labels[i], cells=tuple(cells), total=fmt_count(totals[i])))
        predicted = [sum(cm.matrix[i][j] for i in range(k)) for j in range(k)]
        off = sorted(
            ((cm.matrix[i][j], i, j) for i in range(k) for j in range(k) if i != j and cm.matrix[i][j] > 0),
            key=lambda t: (-t[0], t[1], t[2]),
        )[:15]
        out.append(
            MulticlassCard(
                model=n,
                colour=ms.colours[n],
                labels=tuple(cm.labels),
                full=k <= MAX_MATRIX_CLASSES,
                rows=tuple(rows),
                predicted=tuple(fmt_count(v) for v in predicted),
                total=fmt_count(sum(totals)),
                top=tuple(
                    Confusion(
                        true=cm.labels[i],
                        predicted=cm.labels[j],
                        count=fmt_count(v),
                        share=fmt_share(v / totals[i] if totals[i] else None, 1),
                    )
                    for v, i, j in off
                ),
            )
        )
    return tuple(out)

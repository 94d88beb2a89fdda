"""Config + data → :class:`ComparisonResult`: the glue between sources and the engine.

Maps the config onto the engine's plain settings, runs the comparison, and assembles the
audit trail (inputs with SHA-256, rows dropped, versions, run id, timing).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import reportgen.catalog as catalog
import reportgen.clock as clock
import reportgen.gates as gates
import reportgen.io.filesystems as filesystems
import reportgen.report.wording as wording
from reportgen.config import Config, CostsConfig, ModelConfig
from reportgen.config_base import json_data
from reportgen.engine import binary as B
from reportgen.engine.compare import Progress, Settings, relative_change
from reportgen.engine.driver import compare_evidence
from reportgen.engine.evidence import BinaryEvidence, MulticlassEvidence
from reportgen.errors import ConfigError
from reportgen.io.align import ID_NOT_SHARED
from reportgen.io.files import rows_as_lines
from reportgen.reduce import local
from reportgen.results import Comparison, ComparisonResult, DroppedRows, InputFile, ModelResult, Notice, Reason, RunInfo
from reportgen.version import __version__

if TYPE_CHECKING:  # built where a section is (reportgen.engine.credit, …): a run without one never imports them
    from reportgen.engine.operating_points import Points
    from reportgen.engine.partial_auc import PartialRange
    from reportgen.section_results import CreditSection, FairnessSection, SegmentSection

log = logging.getLogger(__name__)

LIBRARIES = ("numpy", "pandas", "pyarrow", "matplotlib", "jinja2", "weasyprint", "pyyaml")


def versions() -> dict[str, str]:
    """The installed version of each of :data:`LIBRARIES` (distribution names), or "not installed"."""
    return {lib: _installed_version(lib) for lib in LIBRARIES}


def _installed_version(name: str) -> str:
    """The ``Version`` header of distribution ``name``'s core metadata (packaging's core metadata
    specification: RFC 822 headers, then a blank line, then the description).

    Read from the headers alone: :func:`importlib.metadata.version` parses the whole file with
    the email parser, long descriptions included (matplotlib's 80 KB), some
    10 ms each; every run records these versions (issue 46, start-up)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return "not installed"
    headers = (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").split("\n\n", 1)[0]
    for line in headers.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "version":
            return value.strip()
    return dist.version


def reportgen_version() -> str:
    """The version of the code that ran: the one source, :mod:`reportgen.version` (not the
    installed distribution's metadata, which names whatever else is installed as "reportgen")."""
    return __version__


def settings_from(cfg: Config) -> Settings:
    """The analysis settings (applied after the reduction; thresholds live in the evidence)."""
    c = cfg.binary_costs() if cfg.task == "binary" else None
    matrix = tuple(tuple(float(v) for v in row) for row in cfg.costs) if isinstance(cfg.costs, list) else None
    return Settings(
        beta=cfg.beta,
        costs=B.Costs(fn=c.fn, fp=c.fp, tp=c.tp, tn=c.tn) if c else B.Costs(),
        constraints=tuple(B.Constraint(x.maximize, x.where, x.at_least, x.at_most) for x in cfg.constraints),
        prevalences=tuple(cfg.prevalences),
        baseline=cfg.baseline_name,
        primary_metric=cfg.primary,
        level=cfg.confidence_level,
        resamples=cfg.bootstrap.resamples,
        seed=cfg.bootstrap.seed,
        cost_matrix=matrix,
        weight_kind=cfg.weight_kind,
        approval_rates=tuple(cfg.approval_rates),
        ordinal=cfg.ordinal,
        bands=cfg.bands,
        partial_auc=_partial_ranges(cfg),
        calibration=None if cfg.calibration is None else (cfg.calibration.bins, cfg.calibration.strategy),
        top_k=cfg.top_k,
        operating_points=_operating_points(cfg),
    )


def _partial_ranges(cfg: Config) -> tuple[PartialRange, ...]:
    """The configured partial AUC ranges; their engine is imported only when there are some."""
    if not cfg.partial_auc:
        return ()
    from reportgen.engine.partial_auc import PartialRange  # noqa: PLC0415

    return tuple(PartialRange(r.focus, *r.bounds) for r in cfg.partial_auc)


def _operating_points(cfg: Config) -> Points | None:
    """The configured operating points; their engine is imported only when configured."""
    if (op := cfg.operating_points) is None:
        return None
    from reportgen.engine.operating_points import Points  # noqa: PLC0415

    return Points(tuple(op.fpr), tuple(op.recall), op.optimal_thresholds)


def run_id(cfg: Config, ev: BinaryEvidence | MulticlassEvidence, created: str) -> str:
    """Deterministic id of a run: hash of the config, the inputs' hashes and the timestamp."""
    h = hashlib.sha256()
    h.update(json.dumps(json_data(cfg), sort_keys=True).encode())
    for f in ev.audit.files:
        h.update(f.sha256.encode())
    h.update(created.encode())
    return h.hexdigest()[:12]


def load_evidence(cfg: Config, progress: Progress | None = None) -> BinaryEvidence | MulticlassEvidence:
    """The configured engine's loader, reduced to evidence (the one contract of every engine).

    Models with a SQL ``source`` are fetched first and read by the same loaders as files
    (:func:`reportgen.io.sql.materialised`), or, with ``pushdown: true``, reduced to score
    tables by the database (:mod:`reportgen.reduce.pushdown`). URIs are named as written
    (:mod:`reportgen.io.filesystems`)."""
    if all(m.source is None for m in cfg.models):
        with filesystems.shown_errors(), rows_as_lines():
            return filesystems.shown_evidence(_read(cfg, progress))
    import reportgen.io.sql as sql  # noqa: PLC0415  (SQL sources only: a run of files never imports it)

    if any(m.source is not None and m.source.pushdown for m in cfg.models):
        from reportgen.reduce.pushdown import load_pushed  # noqa: PLC0415  (optional dependency)

        try:
            return load_pushed(cfg)
        except sql.NotPushed as exc:  # a dialect that cannot group: every model's rows read, and said so
            log.warning("%s", exc)
            cfg = dataclasses.replace(cfg, models=[_pulled(m) for m in cfg.models])
    # SQL sources read once, as Parquet files
    with sql.materialised(cfg) as (files, fetched), filesystems.shown_errors(), rows_as_lines():
        return filesystems.shown_evidence(sql.relabel(_read(files, progress), fetched))


def _read(cfg: Config, progress: Progress | None) -> BinaryEvidence | MulticlassEvidence:
    """The evidence of ``cfg``'s files, read by its engine."""
    if cfg.engine == "dask":
        from reportgen.reduce.dask import load_dask  # noqa: PLC0415  (optional dependency)

        return load_dask(cfg, progress)
    return local.load(cfg, progress)


def _pulled(m: ModelConfig) -> ModelConfig:
    """``m`` with its source's rows read rather than pushed down."""
    return m if m.source is None else dataclasses.replace(m, source=dataclasses.replace(m.source, pushdown=False))


#: The metrics a model's PD column gives when its scores are not probabilities.
PD_METRICS = ("brier", "log_loss")


def _pd_in_credit(
    models: dict[str, ModelResult], comparisons: list[Comparison], credit: CreditSection
) -> tuple[dict[str, ModelResult], list[Comparison]]:
    """Models whose scores are no probabilities but whose PD column the credit section read on
    the same rows: their Brier score and log-loss are the PD's (``metric_sources``: 'pd_column'),
    so the metrics table and the comparisons weigh the models' calibration head to head; each
    difference that involves one is model − baseline without a paired interval (the PD is not
    counted with the other model's scores; capability ``paired_interval.pd_column``). On other
    rows (``n`` differs) the reason they are null carries the PD's values instead
    (``pd_brier``, ``pd_log_loss``). Every engine's credit section computes the same
    calibration, so the numbers do not depend on the engine."""
    out = dict(models)
    for name, cm in credit.models.items():
        m, cal = models.get(name), cm.calibration
        if m is None or cal is None or cm.pd_source != "pd_column" or cal.brier is None:
            continue
        pd_values = {"brier": cal.brier, "log_loss": cal.log_loss}
        if cal.n == m.n and all(m.metrics.get(k) is None for k in PD_METRICS):
            binned = cal.binned if m.calibration is None else None  # the calibration section's numbers
            out[name] = dataclasses.replace(
                m,
                metrics={**m.metrics, **pd_values},
                undefined_reasons={k: r for k, r in m.undefined_reasons.items() if k not in PD_METRICS},
                metric_sources={**m.metric_sources, **{k: "pd_column" for k in PD_METRICS}}
                | ({"calibration": "pd_column"} if binned is not None else {}),
                calibration=binned or m.calibration,
            )
            continue
        facts = {"pd_brier": cal.brier, "pd_log_loss": cal.log_loss}
        reasons = {
            k: Reason(r.code, {**r.params, **facts}) if k in PD_METRICS else r for k, r in m.undefined_reasons.items()
        }
        out[name] = dataclasses.replace(m, undefined_reasons=reasons)
    return out, [_pd_deltas(c, out) for c in comparisons]


def _pd_deltas(c: Comparison, models: Mapping[str, ModelResult]) -> Comparison:
    """A comparison's Brier and log-loss differences where a side's value is its PD column's."""
    m, b = models[c.model], models[c.baseline]
    keys = [k for k in PD_METRICS if "pd_column" in (m.metric_sources.get(k), b.metric_sources.get(k))]
    if not keys:
        return c
    delta, rel = dict(c.delta), dict(c.relative_delta)
    for k in keys:
        mv, bv = m.metrics.get(k), b.metrics.get(k)
        delta[k] = None if mv is None or bv is None else mv - bv
        rel[k] = relative_change(mv, bv)
    ci = {k: v for k, v in c.ci.items() if k not in keys}
    methods = {k: v for k, v in c.ci_method.items() if k not in keys}
    caps = {**c.capabilities, "paired_interval.pd_column": "pd_column"}
    return dataclasses.replace(c, delta=delta, relative_delta=rel, ci=ci, ci_method=methods, capabilities=caps)


#: The phase :func:`analyse` announces first: the files read and reduced to evidence (its
#: progress counts the bytes read, :mod:`reportgen.io.progress`).
READING = "reading and reducing the data"
#: The phase :func:`analyse` announces once the data is reduced, while the models are compared.
COMPARING = "metrics, tests and intervals"


#: The sections read from the files' rows, with what to do when the rows are frames in memory
#: (checked in this order).
_ROW_SECTIONS = (
    ("fairness", "fairness: the fairness section reads its group columns from the files"),
    ("credit", "credit / segment: the credit validation section reads its columns from the files"),
    ("segments", "segments: the segments section reads its columns from the files"),
)


def _row_sections(
    cfg: Config,
    in_memory: bool,
    files: Sequence[InputFile],
    models: Mapping[str, ModelResult],
    comparisons: Sequence[Comparison],
) -> tuple[CreditSection | None, list[InputFile], FairnessSection | None, SegmentSection | None, list[Notice]]:
    """The sections read from the files' rows (credit, fairness, segments), the reference samples'
    audit records and the sections' notices. Each reader is imported only by a run that asks for
    its section; with frames in memory (``in_memory``) a config asking for one is an error."""
    wanted = {
        "fairness": cfg.fairness is not None,
        "credit": cfg.credit is not None or cfg.segment is not None,
        "segments": bool(cfg.segments),
    }
    for key, what in _ROW_SECTIONS:
        if in_memory and wanted[key]:
            raise ConfigError(
                f"{what}; compare in-memory frames without it, or write the frames to files and use a config"
            )
    credit: CreditSection | None = None
    reference_files: list[InputFile] = []
    fairness: FairnessSection | None = None
    segments: SegmentSection | None = None
    notices: list[Notice] = []
    with filesystems.shown_errors(), rows_as_lines():
        if wanted["credit"]:
            from reportgen.reduce.credit_rows import credit_run  # noqa: PLC0415

            credit, reference_files = credit_run(cfg, [(f.path, f.sha256) for f in files])
        if wanted["fairness"]:
            from reportgen.reduce.fairness_rows import fairness_section  # noqa: PLC0415

            fairness = fairness_section(cfg, models)
        if wanted["segments"]:
            from reportgen.reduce.segment_rows import segment_section  # noqa: PLC0415

            segments = segment_section(cfg, settings_from(cfg), comparisons)
    if cfg.segment is not None:
        notices.append(Notice("segment_deprecated", {"column": cfg.segment}))
    if segments is not None:
        notices += [
            Notice(
                "segment_reversal",
                {
                    "model": r.model,
                    "column": r.column,
                    "value": r.value,
                    "overall": r.overall,
                    "segment": r.segment,
                    "delta": r.delta,
                    "p_adjusted": r.p_value_adjusted,
                    "metric": segments.primary_metric,
                },
            )
            for r in segments.reversals
        ]
    return credit, reference_files, fairness, segments, notices


def analyse(
    cfg: Config,
    config_path: Path | str,
    progress: Progress | None = None,
    now: str | None = None,
    data: BinaryEvidence | MulticlassEvidence | None = None,
    phase: Callable[[str], None] | None = None,
) -> ComparisonResult:
    """Load the data the config names, reduce it to evidence and compare the models.

    ``now`` pins the run's timestamp (ISO 8601, the CLI's ``--now``); see :mod:`reportgen.clock`.
    ``data``: the evidence of rows already in memory (frames, :mod:`reportgen.api`) instead of the files.
    ``phase(name)`` is told when each phase starts (the CLI's progress line).
    """
    started = time.perf_counter()
    created = clock.now(now).isoformat().replace("+00:00", "Z")
    if phase is not None:
        phase(READING)
    ev = load_evidence(cfg, progress) if data is None else data
    if phase is not None:
        phase(COMPARING)
    models, comparisons, pairwise = compare_evidence(ev, settings_from(cfg), progress)
    audit = ev.audit
    notices = list(audit.warnings)  # the loaders' notices first, then the models' and the run's
    notices += [n for m in models.values() for n in m.notices]
    # rows whose id is not in every model have their own notice from the id join (ids_not_shared):
    # worded twice, the run warned of one fact in two sentences
    joined = {(n.params["model"], n.params["rows"]) for n in audit.warnings if n.code == "ids_not_shared"}
    notices += [
        Notice("rows_dropped", {"model": name, "rows": rows, "reason": reason})
        for name, reason, rows in audit.dropped
        if not (reason == ID_NOT_SHARED and (name, rows) in joined)
    ]
    if ev.pairing.reason == "lengths_differ":  # the user forgot the id: say so, and how to pair
        notices.insert(
            0,
            Notice(
                "unpaired_lengths",
                {"names": list(models), "rows": [m.n for m in models.values()]},
            ),
        )
    credit, reference_files, fairness, segments, more = _row_sections(
        cfg, data is not None, audit.files, models, comparisons
    )
    notices += more
    if credit is not None:
        notices += [
            Notice("credit_red", {"model": name, "failures": list(cm.failures)})
            for name, cm in credit.models.items()
            if cm.failures
        ]
        if credit.capabilities.get("weights") == "unweighted":
            notices.append(Notice("credit_sampling_weights", {}))
        if credit.capabilities.get("grade_order") == "text":
            notices.append(Notice("credit_grade_order", {}))
        models, comparisons = _pd_in_credit(models, list(comparisons), credit)
    warnings = wording.notice_texts(notices)  # one per fact: a fact of several models names them
    for w in warnings:  # loaders and engine log nothing: their notices are worded and logged here
        log.warning(w)
    classes = list(ev.classes) if isinstance(ev, MulticlassEvidence) else None
    costs = json_data(cfg.costs) if isinstance(cfg.costs, CostsConfig) else {"matrix": cfg.costs}
    duration = 0.0 if clock.is_pinned(now) else round(time.perf_counter() - started, 3)
    run = RunInfo(
        title=cfg.title,
        task=cfg.task,
        created=created,
        run_id=run_id(cfg, ev, created),
        reportgen_version=reportgen_version(),
        versions=versions(),
        config=cfg.as_written(),  # ${VAR} as written: never a variable's value
        config_path=str(config_path),
        files=[*audit.files, *reference_files],
        dropped=[DroppedRows(n, r, k) for n, r, k in audit.dropped],
        warnings=warnings,
        paired=ev.pairing.status == "aligned",
        baseline=cfg.baseline_name,
        primary_metric=cfg.primary,
        threshold=cfg.threshold,
        beta=cfg.beta,
        costs=costs,
        confidence_level=cfg.confidence_level,
        bootstrap_resamples=cfg.bootstrap.resamples,
        bootstrap_seed=cfg.bootstrap.seed,
        duration_seconds=duration,
        author=cfg.author,
        classes=classes,
        engine=cfg.engine,
        date_range=list(audit.dates) if audit.dates else None,
        weight_kind=cfg.weight_kind,
        notices=notices,
        conventions=catalog.conventions(cfg.task),
    )
    result = ComparisonResult(
        run=run,
        models=models,
        comparisons=comparisons,
        pairwise=pairwise,
        credit=credit,
        fairness=fairness,
        segments=segments,
    )
    result = wording.worded(result)  # the sentences metrics.json keeps, written from the facts
    if cfg.checks:
        result = dataclasses.replace(result, checks=gates.evaluate(cfg.checks, result))
    return result

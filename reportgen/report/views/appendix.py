"""The audit trail (appendix) and the checks section: what was run, on which files, where the
pack was written and from what, and the configured rules' results; the mark every page of a
pack rendered from an unverified or edited ``metrics.json`` carries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from reportgen.report.formats import fmt_count
from reportgen.report.theme import Provenance
from reportgen.results import ComparisonResult, to_jsonable


@dataclass(frozen=True, slots=True)
class RerenderRow:
    date: str
    #: the path as given (printed as written)
    source: str
    digest: str


@dataclass(frozen=True, slots=True)
class PageMark:
    """What every page of a pack from an edited or unverified ``metrics.json`` says: a banner at
    the top of the HTML page and of the PDF's first page, and a line in every PDF page's margin."""

    kind: Literal["edited", "unverified"]
    banner: str
    running: str


#: A re-render's digest, in the audit trail.
DIGEST_WORDS = {
    "ok": "digest ok",
    "edited": "EDITED: the results do not match their digest",
    "missing": "no digest: unverified",
}


def page_mark(provenance: Provenance) -> PageMark | None:
    """The mark of a pack rendered from an edited (``--allow-edited``) or digest-less ``metrics.json``."""
    if provenance.digest == "edited":
        return PageMark(
            "edited",
            f"EDITED — digest does not match: the results in {provenance.source} were changed after reportgen wrote "
            "them (rendered with --allow-edited); no number in this report can be relied on.",
            "EDITED — digest does not match",
        )
    if provenance.digest == "missing":
        return PageMark(
            "unverified",
            f"UNVERIFIED — {provenance.source} carries no digest (written before reportgen 0.2.0, or the digest was "
            "removed), so an edit to its results could not be detected.",
            "Unverified — metrics.json has no digest",
        )
    return None


@dataclass(frozen=True, slots=True)
class FileRow:
    #: the path as written (copied out of the report, it must stay byte for byte what it is)
    path: str
    name: str
    sha256: str
    rows: str
    size: str


@dataclass(frozen=True, slots=True)
class DroppedRow:
    model: str
    reason: str
    rows: str


@dataclass(frozen=True, slots=True)
class AppendixView:
    duration: str
    engine: str
    binning: tuple[str, ...]
    config_path: str
    #: the directory the pack was written to (absolute; empty when not written into a report set)
    output_dir: str
    #: a pack re-rendered from a saved metrics.json: when, from which file, its digest
    rerender: RerenderRow | None
    versions: tuple[tuple[str, str], ...]
    files: tuple[FileRow, ...]
    dropped: tuple[DroppedRow, ...]
    #: the config as run, as YAML, printed as written
    config_yaml: str


@dataclass(frozen=True, slots=True)
class CheckRow:
    rule: str
    passed: bool
    detail: str


@dataclass(frozen=True, slots=True)
class ChecksView:
    rows: tuple[CheckRow, ...]
    failed: int


#: How each engine read the data, in words.
ENGINES = {
    "memory": "in memory (every row)",
    "stream": "streamed in record batches (bounded memory)",
    "dask": "Dask cluster (map over parts, tree reduce)",
}


def appendix_view(result: ComparisonResult, provenance: Provenance = Provenance()) -> AppendixView:
    run = result.run
    p = provenance
    return AppendixView(
        duration=f"{run.duration_seconds:.2f} s",
        engine=ENGINES.get(run.engine, run.engine),
        binning=tuple(
            f"{n}: scores binned into {m.binning.bins:,} {m.binning.method} bins (more than "
            f"{m.binning.max_distinct_scores:,} distinct); |AUC error| ≤ {m.binning.auc_error_bound:.2g}"
            for n, m in result.models.items()
            if m.binning is not None
        ),
        config_path=run.config_path,
        output_dir=_under(p.output_dir, Path.cwd()) if p.output_dir else "",
        rerender=None
        if p.source is None
        else RerenderRow(
            date=(p.rendered or "").replace("T", " ").replace("Z", " UTC"),
            source=p.source,
            digest=DIGEST_WORDS[p.digest or "missing"],
        ),
        versions=tuple(sorted(run.versions.items())),
        files=tuple(
            FileRow(
                path=f.path,
                name=Path(f.path).name,
                sha256=f.sha256,
                rows=fmt_count(f.rows),
                size=fmt_count(f.size_bytes),
            )
            for f in run.files
        ),
        dropped=tuple(DroppedRow(model=d.model, reason=d.reason, rows=fmt_count(d.rows)) for d in run.dropped),
        config_yaml=yaml.safe_dump(
            _config_as_run(to_jsonable(run.config), run.task == "binary", Path.cwd() / Path(run.config_path).parent),
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=None,
            width=84,  # a flow mapping may pass the width by its last token: under the box's ~100 characters
        ),
    )


def checks_view(result: ComparisonResult) -> ChecksView:
    return ChecksView(
        rows=tuple(CheckRow(rule=c.rule, passed=c.passed, detail=c.detail) for c in result.checks),
        failed=sum(not c.passed for c in result.checks),
    )


def _without_nulls(value: Any) -> Any:
    """The config as run, without keys left at null (shorter, same meaning)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


#: Keys that mean nothing for a multiclass run, left out of its "config as run" (and ``ordinal``,
#: which means nothing for a binary one).
_BINARY_ONLY = ("positive", "threshold", "prevalences", "constraints", "approval_rates", "bands")
_BINARY_ONLY_MODEL = ("direction", "threshold", "score")
_MULTICLASS_ONLY = ("ordinal", "classes", "top_k")


def _under(path: str, folder: Path) -> str:
    """``path`` relative to ``folder`` when it lies under it (a path as the user wrote it in the config
    or on the command line, not this machine's absolute one); otherwise unchanged."""
    try:
        return Path(path).relative_to(folder.resolve()).as_posix()
    except ValueError:
        return path


def _config_as_run(config: dict[str, Any], binary: bool, config_dir: Path) -> Any:
    """The config for the appendix: no null keys, no keys that the task or engine ignores: a
    multiclass run shows no binary settings (nor the binary cost default {fn, fp, tp, tn} when it
    has no cost matrix), a binary run no class order, and ``weight_kind`` only with a weight column.
    A model's file and reference show relative to the config's folder, as the config gives them."""
    cfg = _without_nulls(config)
    if "models" in cfg:
        cfg["models"] = [
            {k: _under(v, config_dir) if k in ("file", "reference") and isinstance(v, str) else v for k, v in m.items()}
            for m in cfg["models"]
        ]
    if cfg.get("engine", "memory") == "memory":  # batch sizes and bins do not apply in memory
        cfg = {k: v for k, v in cfg.items() if k not in ("stream", "scheduler")}
    if "weight" not in cfg and not any("weight" in m for m in cfg.get("models", [])):
        cfg.pop("weight_kind", None)
    if binary:
        return {k: v for k, v in cfg.items() if k not in _MULTICLASS_ONLY}
    cfg = {k: v for k, v in cfg.items() if k not in _BINARY_ONLY and not (k == "costs" and isinstance(v, dict))}
    cfg["models"] = [{k: v for k, v in m.items() if k not in _BINARY_ONLY_MODEL} for m in cfg.get("models", [])]
    return cfg

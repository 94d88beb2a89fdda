"""Config + files → the credit section (issue 19): the rows the battery needs, read and checked.

The credit battery needs rows the score tables do not keep (the PD, the dates, the segment, the
grade column, the ids) and a second sample (``models[].reference``), so it reads each model's
current and reference file once more, only those columns: whole with ``engine: memory``, in record
batches reduced to distinct rows with their counts for the streamed and Dask engines (the same
numbers; see :func:`_batched_sample`).

Every problem is a one-line :class:`InputError` naming the config key, the file, the column and
the first offending row (1-based as a spreadsheet shows it, header = row 1).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

import reportgen.engine.credit as C
from reportgen.config import Config, ModelConfig
from reportgen.engine import streams
from reportgen.errors import InputError
from reportgen.io.files import Digests, columns_in, file_info, hashing, input_bytes, no_rows, read_table, record_batches
from reportgen.io.validate import (
    HEADER_ROWS,
    dates_of,
    id_key_list,
    key_codes,
    keys,
    model_file,
    numeric,
    positive_keys,
    shown_columns,
    shown_name,
    twins,
)
from reportgen.results import InputFile
from reportgen.section_results import CreditModel, CreditSection

__all__ = ["check_credit", "credit_run", "credit_section", "current_sample"]


def _settings(cfg: Config) -> C.CreditSettings:
    credit = cfg.credit
    if credit is None:  # only `segment:` given: the section with its defaults
        from reportgen.config import CreditConfig  # noqa: PLC0415

        credit = CreditConfig()
    t = credit.traffic_lights
    return C.CreditSettings(
        amber=t.amber,
        red=t.red,
        psi_amber=t.psi_amber,
        psi_red=t.psi_red,
        min_defaults=credit.min_defaults,
        level=cfg.confidence_level,
        asset_correlation=credit.asset_correlation,
        power_ratio=credit.power_ratio,
    )


def _grading(cfg: Config) -> C.Grading:
    g = cfg.credit.grades if cfg.credit is not None else None
    if g is None or g.quantiles is not None:
        return C.Grading("quantiles", quantiles=g.quantiles if g is not None and g.quantiles else 10)
    if g.edges is not None:
        return C.Grading("edges", edges=tuple(g.edges))
    return C.Grading("column", order=tuple(g.order or ()))


def _roles(cfg: Config, m: ModelConfig) -> dict[str, tuple[str, tuple[str | int, ...]]]:
    """Role → (column, config key path) of what the battery reads from model ``m``'s files."""
    i = cfg.models.index(m)
    roles: dict[str, tuple[str | None, tuple[str | int, ...]]] = {
        "label": (m.label or cfg.label, ("models", i, "label") if m.label else ("label",)),
        "score": (m.score, ("models", i, "score")),
    }
    if m.pd:
        roles["pd"] = (m.pd, ("models", i, "pd"))
    if cfg.credit is not None and cfg.credit.grades.column:
        roles["grade"] = (cfg.credit.grades.column, ("credit", "grades", "column"))
    if cfg.date:
        roles["date"] = (cfg.date, ("date",))
    if cfg.segments:  # the credit section breaks down by the first segment column
        roles["segment"] = (cfg.segments[0], ("segment",) if cfg.segments[0] == cfg.segment else ("segments", 0))
    if m.id or cfg.id:
        roles["id"] = (m.id or cfg.id, ("models", i, "id") if m.id else ("id",))
    if m.weight or cfg.weight:  # sampling weights are not applied, but a row without one is not compared
        role = "weight" if cfg.weight_kind == "frequency" else "sampling_weight"
        roles[role] = (m.weight or cfg.weight, ("models", i, "weight") if m.weight else ("weight",))
    return roles  # type: ignore[return-value]  # a binary model's score and label are set (config)


def _repeated(w: np.ndarray, sample: C.CreditSample) -> C.CreditSample:
    """Frequency weights (whole numbers >= 0, checked by :func:`_checked`) as what they mean: a row
    of weight w is w obligors (w identical rows; weight 0 drops the row), so every count, rate and
    test of the battery is that of the repeated rows, exactly."""
    k = w.astype(np.int64)
    repeated: dict[str, Any] = {f: None if v is None else np.repeat(v, k) for f, v in _fields(sample).items()}
    return C.CreditSample(**repeated)


def _first_bad(path: Path, column: str, bad: np.ndarray, what: str, offset: int = 0) -> InputError:
    """The error of the first True of ``bad``, its row counted from the file's first data row
    (``offset`` rows before this batch)."""
    i = int(np.flatnonzero(bad)[0])
    return InputError(f"{path}: column '{column}', row {offset + i + HEADER_ROWS}: {what}")


def wanted_columns(cfg: Config, m: ModelConfig, path: Path, reference: bool, have: list[str]) -> dict[str, str]:
    """Role → column of what the battery reads from ``path`` (a file of model ``m``); a column the
    config names and the file lacks is a one-line error naming the config key, the file and its
    columns (in a reference file only the label, score and PD are required)."""
    optional = {"grade", "date", "segment", "id", "weight", "sampling_weight"} if reference else set()
    wanted = {}
    for role, (column, loc) in _roles(cfg, m).items():
        if column in have:
            wanted[role] = column
        elif role not in optional:
            hint = difflib.get_close_matches(column, have, n=1)
            tip = f"; did you mean {shown_name(hint[0])}?" if hint else ""
            where = cfg.where("models", cfg.models.index(m), "reference") if reference else cfg.where(*loc)
            raise InputError(f"{where}: column {column!r} not found in {path} (columns: {shown_columns(have)}){tip}")
    return wanted


def read_types(wanted: dict[str, str]) -> tuple[list[str], list[str], list[str]]:
    """(columns, numeric columns, text columns) to read."""
    numbers = [wanted[r] for r in ("score", "pd", "weight", "sampling_weight") if r in wanted]
    text = [wanted[r] for r in ("label", "grade", "segment", "id") if r in wanted]
    return sorted(set(wanted.values())), numbers, text


def _sample(
    cfg: Config, m: ModelConfig, path: Path, reference: bool, labels: set[str], rows: dict[Path, int] | None = None
) -> C.CreditSample:
    """One file of model ``m`` read whole and checked: labels, score, PD, grade, date, segment, id;
    frequency weights repeat their rows. ``labels``: the current sample's labels, gathered from a
    current file and checked in a reference (:func:`_checked`)."""
    wanted = wanted_columns(cfg, m, path, reference, columns_in(path))
    df = read_table(path, *read_types(wanted))
    if rows is not None:
        rows[path] = len(df)
    sample, weights = checked_rows(cfg, path, df, wanted, 0, labels, reference)
    if sample is None:
        raise no_rows_error(path)
    if weights is None:
        return sample
    if weights.sum() == 0:
        raise no_obligors_error(path, wanted)
    return _repeated(weights, sample)


def no_rows_error(path: Path) -> InputError:
    """The error for a file with no row left after ``missing: drop`` (shared with the fairness reader)."""
    return InputError(f"{path}: no rows left for the credit section after dropping rows with missing values")


def no_obligors_error(path: Path, wanted: dict[str, str]) -> InputError:
    """The error for rows kept, every one of frequency weight 0 (shared with the fairness reader)."""
    return InputError(f"{path}: column '{wanted['weight']}': every weight is 0, so the credit section has no obligors")


def checked_rows(
    cfg: Config,
    path: Path,
    df: Any,
    wanted: dict[str, str],
    offset: int,
    seen: set[str] | None = None,
    reference: bool = False,
) -> tuple[C.CreditSample | None, np.ndarray | None]:
    """The rows of ``df`` (the file's rows ``offset`` …) checked as the section reads them; (sample,
    whole-number frequency weights of its rows or None). The sample is None when no row is kept
    (``missing: drop``). Every problem is a one-line error naming the file, column and row.

    ``seen``: the labels of the model's current sample (the run checked there are two): a current
    file's kept labels are added to it, a reference sample's must be among them (a third label, or
    'good'/'bad' against 0/1, was counted as no default)."""
    codes, names = key_codes(df[wanted["label"]])
    labels = names[codes]
    score = numeric(df[wanted["score"]], path, wanted["score"], offset)
    drop = cfg.missing == "drop"
    weights = numeric(df[wanted["weight"]], path, wanted["weight"], offset) if "weight" in wanted else None
    # a sampling weight is not applied here; a row without one is dropped (or refused) as the data's reader does
    unweighed = (
        ~np.isfinite(numeric(df[wanted["sampling_weight"]], path, wanted["sampling_weight"], offset))
        if "sampling_weight" in wanted
        else None
    )
    pd_ = numeric(df[wanted["pd"]], path, wanted["pd"], offset) if "pd" in wanted else None
    text_cols: dict[str, np.ndarray] = {r: keys(df[wanted[r]]) for r in ("grade", "segment") if r in wanted}
    if "id" in wanted:  # the id join's rule (007 is not 7), not the labels'
        text_cols["id"] = id_key_list(df[wanted["id"]])
    masks = [("label", labels == None), ("score", ~np.isfinite(score))]  # noqa: E711
    masks += [("pd", ~np.isfinite(pd_))] if pd_ is not None else []
    masks += [("weight", ~np.isfinite(weights))] if weights is not None else []
    masks += [("sampling_weight", unweighed)] if unweighed is not None else []
    masks += [(r, v == None) for r, v in text_cols.items()]  # noqa: E711
    missing = np.logical_or.reduce([bad for _, bad in masks])
    if missing.any() and not drop:
        row = int(np.flatnonzero(missing)[0])
        col = next(wanted[r] for r, bad in masks if bad[row])
        raise _first_bad(
            path, col, missing, "missing value; fill it in, or set 'missing: drop' to drop such rows", offset
        )
    keep = ~missing
    if seen is not None:
        held = np.bincount(codes[keep], minlength=len(names)) > 0
        if not reference:
            seen.update(names[held])
        elif seen and not set(names[held]) <= (allowed := set().union(*map(twins, seen))):
            # 1 / 0 beside the current sample's true / false (or the reverse) are its labels: positive: 1 is true
            odd = keep & ~np.isin(names, sorted(allowed))[codes]
            raise _first_bad(
                path,
                wanted["label"],
                odd,
                f"label {labels[np.flatnonzero(odd)[0]]!r} is not one of the "
                f"current sample's labels ({', '.join(map(repr, sorted(seen)))}); label the reference "
                f"sample with the same labels",
                offset,
            )
    if pd_ is not None:
        out = keep & ((pd_ < 0) | (pd_ > 1))
        if out.any():
            raise _first_bad(
                path,
                wanted["pd"],
                out,
                f"PD {pd_[np.flatnonzero(out)[0]]:g} outside [0, 1]; 'pd' must name a probability-of-default column",
                offset,
            )
    order = cfg.credit.grades.order if cfg.credit is not None else None
    if order and "grade" in text_cols:
        scale = np.array(order, dtype=object)
        unknown = keep & ~np.isin(text_cols["grade"], scale)
        if unknown.any():
            shown = ", ".join(order[:12]) + (", …" if len(order) > 12 else "")
            raise _first_bad(
                path,
                wanted["grade"],
                unknown,
                f"grade {text_cols['grade'][np.flatnonzero(unknown)[0]]!r} "
                f"is not in credit.grades.order ({shown}); add it to the rating scale",
                offset,
            )
    if weights is not None:
        bad = keep & ((weights < 0) | (weights != np.round(weights)))
        if bad.any():  # the row number counts the file's rows, dropped ones included
            raise _first_bad(
                path,
                wanted["weight"],
                bad,
                f"weight {weights[np.flatnonzero(bad)[0]]:g}: weight_kind: "
                f"frequency needs whole-number weights >= 0 (a weight counts obligors)",
                offset,
            )
    dates = None
    if "date" in wanted:
        d = dates_of(df[wanted["date"]], path, wanted["date"], offset)
        nat = d.isna().to_numpy() & keep
        if nat.any():
            if not drop:
                raise _first_bad(path, wanted["date"], nat, "missing date; fill it in, or set 'missing: drop'", offset)
            keep &= ~nat
        dates = d.dt.tz_localize(None).to_numpy().astype("datetime64[D]")[keep]
    if keep.sum() == 0:
        return None, None
    y = np.isin(labels[keep], list(positive_keys(cfg.positive)))
    sample = C.CreditSample(
        y=np.asarray(y, dtype=bool),
        score=score[keep],
        pd=None if pd_ is None else pd_[keep],
        grade=text_cols["grade"][keep].astype(str) if "grade" in text_cols else None,
        dates=dates,
        segment=text_cols["segment"][keep].astype(str) if "segment" in text_cols else None,
        ids=text_cols["id"][keep].astype(str) if "id" in text_cols else None,
    )
    return sample, None if weights is None else weights[keep].astype(np.int64)


#: Compressed rows held before the batch runner merges its parts (bounds the parts' overhead).
_MERGE_ROWS = 1_000_000
#: The columns of a sample that compression keys on (ids are per row and are not kept).
_KEYS = ("y", "score", "pd", "grade", "dates", "segment")


def _compress(parts: list[Any]) -> Any:
    """Parts (frames of the key columns and ``count``) as one frame: equal rows summed."""
    import pandas as pd  # noqa: PLC0415

    frame = pd.concat(parts, ignore_index=True)
    cols = [c for c in frame.columns if c != "count"]
    return frame.groupby(cols, sort=False, dropna=False)["count"].sum().reset_index()


def _batched_sample(
    cfg: Config, m: ModelConfig, path: Path, reference: bool, labels: set[str], rows: dict[Path, int] | None = None
) -> C.CreditSample:
    """One file of model ``m`` read in record batches (``stream.batch_rows``) for the streamed and
    Dask engines: each batch is checked as :func:`_sample` checks the whole file (same messages,
    same row numbers) and reduced to its distinct rows with their counts (dates to their month,
    all a period needs; frequency weights add to the counts), the parts merged as they grow. The
    battery on these counts is that of the rows (:class:`~reportgen.engine.credit.CreditSample`
    ``count``); memory is bounded by the distinct rows, not the rows. Ids are read for the rows
    they drop (a missing id, under ``missing: drop``, as the whole file read drops it) and not kept
    (no grade migration: capability ``needs_rows``)."""
    import pandas as pd  # noqa: PLC0415

    wanted = wanted_columns(cfg, m, path, reference, columns_in(path))
    columns, numbers, text = read_types(wanted)
    offset, parts, held = 0, [], 0
    for rb in record_batches(path, columns, cfg.stream.batch_rows, numbers, text):
        df = rb.to_pandas()
        sample, weights = checked_rows(cfg, path, df, wanted, offset, labels, reference)
        offset += len(df)
        if sample is None:
            continue
        frame = {k: getattr(sample, k) for k in _KEYS if getattr(sample, k) is not None}
        if "dates" in frame:  # the period is a month or a quarter: the month is all a row needs
            frame["dates"] = frame["dates"].astype("datetime64[M]").astype("datetime64[D]")
        frame["count"] = np.ones(len(sample.y), dtype=np.int64) if weights is None else weights
        parts.append(_compress([pd.DataFrame(frame)]))
        held += len(parts[-1])
        if held > _MERGE_ROWS and len(parts) > 1:
            parts = [_compress(parts)]
            held = len(parts[0])
    if rows is not None:
        rows[path] = offset
    if offset == 0:  # no rows at all (a header, parts of no rows): as the whole file read says it
        raise no_rows(path)
    if not parts:
        raise no_rows_error(path)
    merged = _compress(parts)
    merged = merged[merged["count"] > 0]
    if len(merged) == 0:  # rows kept, each of frequency weight 0: as the whole file read says it
        raise no_obligors_error(path, wanted)
    out = {k: merged[k].to_numpy() for k in _KEYS if k in merged.columns}
    if "dates" in out:
        out["dates"] = out["dates"].astype("datetime64[D]")
    for k in ("grade", "segment"):
        if k in out:
            out[k] = out[k].astype(str)
    out["y"] = merged["y"].to_numpy(dtype=bool)
    return C.CreditSample(**out, count=merged["count"].to_numpy(dtype=np.int64))


def current_sample(cfg: Config, m: ModelConfig) -> C.CreditSample:
    """Model ``m``'s current file as the section reads it, checked: whole with ``engine: memory``
    (:func:`_sample`), else its distinct rows with their counts (:func:`_batched_sample`). The
    fairness section reads its group columns through it (as ``segment``)."""
    read = _sample if cfg.engine == "memory" else _batched_sample
    return read(cfg, m, model_file(m), False, set())


def credit_run(cfg: Config, seen: Sequence[tuple[str, str]] = ()) -> tuple[CreditSection | None, list[InputFile]]:
    """The credit section and the audit records of its reference samples, from one read of each.

    Every file is read under :func:`~reportgen.io.files.hashing`, seeded with ``seen`` (path and
    SHA-256 of the inputs the engine already parsed): a current-sample file whose bytes changed
    since that read stops the run (the section would describe other data than the metrics), and a
    reference file's recorded digest is of the bytes this section parsed.
    """
    digests = Digests()
    for path, sha in seen:
        if os.path.isfile(path):
            digests.add(os.path.abspath(path), sha)
    rows: dict[Path, int] = {}
    with hashing(digests):
        section = _section(cfg, rows)
        refs = [file_info(p, n) for p, n in rows.items()]
    return section, [InputFile(f.path, f.sha256, f.rows, f.size_bytes) for f in refs]


def credit_section(cfg: Config) -> CreditSection | None:
    """The credit section of a run, or None when neither ``credit:`` nor ``segment:`` is set
    (:func:`credit_run` without the audit records)."""
    return credit_run(cfg)[0]


def check_credit(cfg: Config) -> str | None:
    """``reportgen validate``'s check of the credit section's inputs; None when the run has no
    section, else a short description of what was checked.

    Every current and reference file is read and checked row by row as a run reads it (label,
    score, PD in [0, 1], grade, date, segment, id, frequency weights; PD edges need a PD): whole with
    ``engine: memory``, in record batches with the streamed and Dask engines, as their runs read
    it. Only when the inputs are large (more than ``SMALL_INPUT_BYTES`` between them) do the
    streamed and Dask engines, whose validate then reads no file whole, check the section's
    columns and the first batch of each file (a bad value past it is left to the run, which checks
    every batch), as the data's own check does. Every problem is the run's one-line
    :class:`InputError` (the CLI exits 2).
    """
    if cfg.credit is None and cfg.segment is None:
        return None
    from reportgen.io.files import SMALL_INPUT_BYTES  # noqa: PLC0415  (read when called: tests lower it)

    _files_only(cfg)
    files = [(m, model_file(m), False) for m in cfg.models] + [
        (m, Path(m.reference), True) for m in cfg.models if m.reference is not None
    ]
    if cfg.engine != "memory" and sum(input_bytes(p) for _, p, _ in files) > SMALL_INPUT_BYTES:
        for m, path, is_ref in files:
            wanted = wanted_columns(cfg, m, path, is_ref, columns_in(path))
            columns, numbers, text = read_types(wanted)
            batches = record_batches(path, columns, cfg.stream.batch_rows, numbers, text)
            first = next(batches, None)
            batches.close()  # the file is closed now, not when the generator is collected
            if first is not None:
                checked_rows(cfg, path, first.to_pandas(), wanted, 0)
        return (
            f"credit section columns present and the first batch of each file valid "
            f"(engine: {cfg.engine}: the run checks every batch)"
        )
    grading = _grading(cfg)
    read = _sample if cfg.engine == "memory" else _batched_sample
    rows = 0
    for m in cfg.models:  # in the run's order: a model's current file, then its reference
        labels: set[str] = set()
        cur = read(cfg, m, model_file(m), False, labels)
        ref = None if m.reference is None else read(cfg, m, Path(m.reference), True, labels)
        if grading.kind == "edges" and _with_pd(m, cur, ref)[0].pd is None:
            raise _no_pd_for_edges(cfg, m)
        rows += len(cur.y) if cur.count is None else int(cur.count.sum())
    return f"credit section inputs checked ({len(cfg.models)} model(s), {rows} current rows)"


def _with_pd(
    m: ModelConfig, cur: C.CreditSample, ref: C.CreditSample | None
) -> tuple[C.CreditSample, C.CreditSample | None, Literal["pd_column", "score", "none"]]:
    """(current, reference, PD source): a probability score is the PD of a model without a PD
    column (in both samples, when the reference's scores are probabilities too)."""
    if _score_is_pd(m, cur) and (ref is None or _is_probability(ref.score)):
        return (
            C.CreditSample(**{**_fields(cur), "pd": cur.score}),
            None if ref is None else C.CreditSample(**{**_fields(ref), "pd": ref.score}),
            "score",
        )
    return cur, ref, "pd_column" if m.pd else "none"


def _files_only(cfg: Config) -> None:
    """The section reads files: a model given as a SQL query is a one-line config error."""
    for i, m in enumerate(cfg.models):
        if m.file is None:
            raise InputError(
                f"{cfg.where('models', i, 'source')}: the credit validation section reads its columns "
                f"from files; give models[{i}].file, or drop 'credit:' / 'segment:'"
            )


def _score_is_pd(m: ModelConfig, cur: C.CreditSample) -> bool:
    return m.pd is None and m.direction == "higher" and m.probabilities is not False and _is_probability(cur.score)


def _no_pd_for_edges(cfg: Config, m: ModelConfig) -> InputError:
    return InputError(
        f"{cfg.where('credit', 'grades', 'edges')}: PD edges need a PD, and model '{m.name}' has none; "
        f"set models[{cfg.models.index(m)}].pd or grade by quantiles"
    )


def _section(cfg: Config, reference_rows: dict[Path, int]) -> CreditSection | None:
    """The credit section of a run, or None when neither ``credit:`` nor ``segment:`` is set;
    ``reference_rows`` receives each reference file's row count.

    With ``engine: memory`` each file is read whole (:func:`_sample`); the streamed and Dask engines
    read it in record batches reduced to distinct rows with counts (:func:`_batched_sample`): the
    same numbers, in memory bounded by the distinct rows; only the grade migration, which joins
    rows by id, needs the memory engine (capability ``migration: needs_rows``).
    """
    if cfg.credit is None and cfg.segment is None:
        return None
    s = _settings(cfg)
    common = dict(
        amber=s.amber,
        red=s.red,
        psi_amber=s.psi_amber,
        psi_red=s.psi_red,
        min_defaults=s.min_defaults,
        segment=cfg.segments[0] if cfg.segments else None,
        asset_correlation=s.asset_correlation,
        power_ratio=s.power_ratio,
    )
    _files_only(cfg)
    grading = _grading(cfg)
    read = _sample if cfg.engine == "memory" else _batched_sample
    models = {}
    for m in cfg.models:
        labels: set[str] = set()
        cur = read(cfg, m, model_file(m), False, labels)
        ref = None if m.reference is None else read(cfg, m, Path(m.reference), True, labels, rows=reference_rows)
        cur, ref, source = _with_pd(m, cur, ref)
        if grading.kind == "edges" and cur.pd is None:
            raise _no_pd_for_edges(cfg, m)
        cm = C.credit_model(m.name, cur, ref, m.direction, grading, s, m.initial_auc, source)
        cm = _with_binned_pd(cfg, m.name, cur, cm)
        if read is _batched_sample and (m.id or cfg.id) and cm.capabilities.get("migration") == "no_ids":
            cm = replace(cm, capabilities={**cm.capabilities, "migration": "needs_rows"})
        models[m.name] = cm
    weighted = cfg.weight is not None or any(m.weight is not None for m in cfg.models)
    caps = {}
    if weighted:  # frequency weights are obligor counts (rows repeated); sampling weights are not applied
        caps["weights"] = "frequency" if cfg.weight_kind == "frequency" else "unweighted"
    if (
        grading.kind == "column"
        and not grading.order
        and any(not _numeric_label(g.grade) for cm in models.values() for g in cm.grades)
    ):
        caps["grade_order"] = "text"  # the rank-order check and the migration follow an alphabetical scale
    return CreditSection(models=models, capabilities=caps, **common)  # type: ignore[arg-type]


def _with_binned_pd(cfg: Config, name: str, cur: C.CreditSample, cm: CreditModel) -> CreditModel:
    """A model whose PD is its own column (a scorecard's points are no probability) gets that PD's
    calibration over the run's ``calibration:`` bins, which the calibration section shows."""
    cal = cm.calibration
    if cfg.calibration is None or cal is None or cm.pd_source != "pd_column":
        return cm
    binned = C.pd_calibration(
        cur,
        cfg.calibration.bins,
        cfg.calibration.strategy,
        cal.brier,
        cfg.bootstrap.resamples,
        streams.stream(cfg.bootstrap.seed, "calibration", name),
        cfg.confidence_level,
    )
    return replace(cm, calibration=replace(cal, binned=binned))


def _numeric_label(label: str) -> bool:
    """A grade label that sorts as a number (the battery orders a scale of numbers numerically)."""
    try:
        float(label)
    except ValueError:
        return False
    return True


def _is_probability(score: np.ndarray) -> bool:
    return bool(np.all((score >= 0) & (score <= 1)))


def _fields(sample: C.CreditSample) -> dict[str, Any]:
    return {k: getattr(sample, k) for k in ("y", "score", "pd", "grade", "dates", "segment", "ids", "count")}

"""Prediction files → validated, aligned arrays per model.

Reads CSV or Parquet (each file once, only the columns the config names), checks every value
a metric will touch, and aligns the models' rows: by the ``id`` column when one is given, by
position otherwise. Every problem raises :class:`InputError` with the file, the column, the
first offending row (1-based, as a spreadsheet shows it, header = row 1) and what to do.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.errors import InputError


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What the audit trail records of an input file."""

    path: str
    sha256: str
    rows: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class ModelData:
    """One model's validated rows, aligned with every other model's (same order) when paired.

    ``y`` is boolean (True = positive) for binary tasks; for multiclass ``y_idx`` indexes
    ``classes`` and ``pred_idx`` / ``proba`` hold the predictions.
    """

    name: str
    file: str
    direction: str
    scores: np.ndarray | None
    y: np.ndarray | None
    weights: np.ndarray | None
    ids: np.ndarray | None
    probabilities: bool | None = None
    y_idx: np.ndarray | None = None
    pred_idx: np.ndarray | None = None
    proba: np.ndarray | None = None

    @property
    def n(self) -> int:
        if self.y is not None:
            return int(self.y.shape[0])
        return int(self.y_idx.shape[0]) if self.y_idx is not None else 0


@dataclass(frozen=True, slots=True)
class Dataset:
    """All models' data plus what was dropped and why (for the audit trail)."""

    models: tuple[ModelData, ...]
    files: tuple[FileInfo, ...]
    paired: bool
    dropped: tuple[tuple[str, str, int], ...] = ()  # (model, reason, rows)
    warnings: tuple[str, ...] = ()
    classes: tuple[Any, ...] = ()
    label_values: tuple[str, ...] = field(default_factory=tuple)
    dates: tuple[str, str] | None = None  # first and last date of the configured date column


def sha256_of(path: Path, stop: threading.Event | None = None) -> str:
    """SHA-256 of a file; of a directory (a Parquet dataset), of its files' relative paths and
    contents in path order, so a re-partitioned or edited dataset gets a new hash.

    ``stop``: when it is set (by another thread that no longer needs the hash), the reading
    stops and the result is an empty string."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    for f in files:
        if f is not path:
            h.update(f.relative_to(path).as_posix().encode() + b"\0")
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                if stop is not None and stop.is_set():
                    return ""
                h.update(block)
    return h.hexdigest()


def file_info(path: Path, rows: int, sha256: str | None = None) -> FileInfo:
    """The audit-trail record of an input (a file, or a directory of Parquet parts); ``sha256``
    when already computed (:func:`sha256_of`)."""
    if path.is_file():
        size = path.stat().st_size
    else:
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return FileInfo(str(path), sha256_of(path) if sha256 is None else sha256, rows, size)


def _show(v: Any) -> str:
    """A data value for a message: ``1.0`` and ``'bad'``, not ``np.float64(1.0)``."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq") or (path.is_dir() and path.suffix.lower() not in (".csv", ".tsv", ".txt"))


def _columns_in(path: Path) -> list[str]:
    """The column names of a CSV or Parquet file; one-line errors for files that cannot be read."""
    if not path.exists():
        raise InputError(f"{path}: file not found; check 'file' in the config (relative paths resolve against the config file)")
    if _is_parquet(path):
        return _parquet_dataset(path).schema.names
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a CSV file; check 'file' in the config")
    try:
        header = pd.read_csv(path, nrows=0, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty; expected a CSV header and rows") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror or exc}); check its permissions") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(f"{path}: cannot read as CSV ({_first_line(exc)})") from None
    return [str(c) for c in header.columns]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _check_columns(cfg: Config, i: int, m: ModelConfig, path: Path, have: list[str]) -> None:
    """Every column model ``i`` names must exist; the message points at the config key."""
    for role, column in _columns_for(cfg, m).items():
        if column in have:
            continue
        key = role if role in ("score", "prediction") or getattr(m, role) else None
        where = cfg.where("models", i, role) if key else cfg.where(role)
        hint = ""
        if len(have) == 1 and any(sep in have[0] for sep in (";", "\t", "|")):
            hint = "; the header looks delimited by something other than a comma — save as comma-separated CSV"
        elif difflib.get_close_matches(column, have, n=1):
            hint = f"; did you mean '{difflib.get_close_matches(column, have, n=1)[0]}'?"
        raise InputError(f"{where}: column {column!r} not found in {path} (columns: {', '.join(have)}){hint}")


def _read_table(path: Path, columns: list[str]) -> pd.DataFrame:
    """Read only ``columns`` (known to exist) from a CSV or Parquet file, with one-line errors."""
    if _is_parquet(path):
        return _read_parquet(path, columns)
    try:
        df = pd.read_csv(path, usecols=columns, encoding="utf-8", low_memory=False)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror or exc}); check its permissions") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(f"{path}: malformed CSV ({_first_line(exc)})") from None
    if len(df) == 0:
        raise InputError(f"{path}: the file has a header but no rows")
    return df


def _parquet_dataset(path: Path) -> Any:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.dataset as ds  # noqa: PLC0415

    try:
        dataset = ds.dataset(str(path), format="parquet", partitioning="hive")
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read as Parquet ({_first_line(exc)})") from None
    if not dataset.schema.names:
        raise InputError(f"{path}: no Parquet data found; expected a .parquet file or a directory of them")
    return dataset


def _read_parquet(path: Path, columns: list[str]) -> pd.DataFrame:
    import pyarrow as pa  # noqa: PLC0415

    try:
        table = _parquet_dataset(path).to_table(columns=columns)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read as Parquet ({_first_line(exc)})") from None
    if table.num_rows == 0:
        raise InputError(f"{path}: the file has no rows")
    return table.to_pandas()


def _numeric(series: pd.Series, path: Path, column: str, offset: int = 0) -> np.ndarray:
    """Column as float64; a non-numeric cell is an error naming its row (``offset``: rows before)."""
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{path}: column '{column}', row {offset + i + 2}: non-numeric value {_show(series.iloc[i])}; expected a number"
        )
    return values.to_numpy(dtype=np.float64)


def _label_matches(labels: pd.Series, value: Any) -> np.ndarray:
    """Rows whose label equals ``value``, comparing as numbers when both are numeric, else as text."""
    if pd.api.types.is_numeric_dtype(labels) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (labels.to_numpy() == value)
    return (labels.astype(str).str.strip() == str(value)).to_numpy()


def _columns_for(cfg: Config, m: ModelConfig) -> dict[str, str]:
    cols: dict[str, str] = {"label": m.label or cfg.label}  # type: ignore[dict-item]
    if m.score:
        cols["score"] = m.score
    if m.id or cfg.id:
        cols["id"] = m.id or cfg.id  # type: ignore[assignment]
    if m.weight or cfg.weight:
        cols["weight"] = m.weight or cfg.weight  # type: ignore[assignment]
    if m.prediction:
        cols["prediction"] = m.prediction
    if cfg.date:
        cols["date"] = cfg.date
    return cols


def date_range(cfg: Config, frames: dict[Path, pd.DataFrame]) -> tuple[str, str] | None:
    """First and last date of the configured date column over every input (ISO dates)."""
    if not cfg.date:
        return None
    lo = hi = None
    for path, df in frames.items():
        d = dates_of(df[cfg.date], path, cfg.date)
        if d.notna().any():
            lo = d.min() if lo is None else min(lo, d.min())
            hi = d.max() if hi is None else max(hi, d.max())
    return None if lo is None else (lo.date().isoformat(), hi.date().isoformat())


def dates_of(series: pd.Series, path: Path, column: str, offset: int = 0) -> pd.Series:
    """A date column parsed; a value that is not a date is an error naming its row."""
    d = pd.to_datetime(series, errors="coerce", utc=True)
    bad = d.isna() & series.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{path}: column '{column}', row {offset + i + 2}: {_show(series.iloc[i])} is not a date; use ISO dates (2026-01-31)")
    return d


def rows_to_keep(
    cfg: Config,
    model: str,
    path: Path,
    df: pd.DataFrame,
    cols: dict[str, str],
    checks: list[tuple[str, np.ndarray]],
    weights: np.ndarray | None,
    dropped: list[tuple[str, str, int]],
) -> np.ndarray:
    """Rows that pass every missing-value check (plus weight and id checks), as a boolean mask.

    Under ``missing: error`` the first failing row is an error naming it; under ``drop`` the
    rows are dropped and counted in ``dropped`` (model, reason, rows). Negative weights are
    always an error; no row left is an error.
    """
    checks = list(checks)
    if weights is not None:
        checks.append((f"missing or non-finite weight in '{cols['weight']}'", ~np.isfinite(weights)))
    if "id" in cols:
        checks.append((f"missing id in '{cols['id']}'", df[cols["id"]].isna().to_numpy()))
    keep = np.ones(len(df), dtype=bool)
    for reason, bad in checks:
        if bad.any():
            if cfg.missing == "drop":
                dropped.append((model, reason, int((bad & keep).sum())))
                keep &= ~bad
            else:
                i = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"{path}: row {i + 2}: {reason}; fix the data or set 'missing: drop' to drop such rows (counted in the report)"
                )
    if weights is not None and (weights[keep] < 0).any():
        i = int(np.flatnonzero((weights < 0) & keep)[0])
        raise InputError(f"{path}: column '{cols['weight']}', row {i + 2}: negative weight {weights[i]:g}; weights must be >= 0")
    if not keep.any():
        raise InputError(f"{path}: no rows left for model '{model}' after dropping missing values")
    return keep


def load_dataset(cfg: Config) -> Dataset:
    """Read, validate and align every model's predictions (multiclass: see sources_multiclass)."""
    if cfg.task == "multiclass":
        from reportgen.sources_multiclass import load_multiclass  # noqa: PLC0415  (imports this module)

        return load_multiclass(cfg)
    frames: dict[Path, pd.DataFrame] = {}
    wanted: dict[Path, set[str]] = {}
    headers: dict[Path, list[str]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        if path not in headers:
            headers[path] = _columns_in(path)
        _check_columns(cfg, i, m, path, headers[path])
        wanted.setdefault(path, set()).update(_columns_for(cfg, m).values())
    files: list[FileInfo] = []
    for path, cols in wanted.items():
        frames[path] = _read_table(path, sorted(cols))
        files.append(file_info(path, len(frames[path])))

    dropped: list[tuple[str, str, int]] = []
    warnings: list[str] = []
    models: list[ModelData] = []
    for i_model, m in enumerate(cfg.models):
        path = Path(m.file)
        df = frames[path]
        cols = _columns_for(cfg, m)
        scores = _numeric(df[cols["score"]], path, cols["score"])
        label_col = df[cols["label"]]
        weights = _numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        label_bad = label_col.isna().to_numpy()
        if pd.api.types.is_numeric_dtype(label_col) and not pd.api.types.is_bool_dtype(label_col):
            label_bad = label_bad | ~np.isfinite(label_col.to_numpy(dtype=np.float64, na_value=np.nan))
        checks: list[tuple[str, np.ndarray]] = [
            (f"missing or non-finite score in '{cols['score']}'", ~np.isfinite(scores)),
            (f"missing or non-finite label in '{cols['label']}'", label_bad),
        ]
        keep = rows_to_keep(cfg, m.name, path, df, cols, checks, weights, dropped)
        labels = label_col[keep]
        is_pos = _label_matches(labels, cfg.positive)
        distinct = pd.unique(labels)
        if len(distinct) > 2:
            shown = ", ".join(_show(v) for v in list(distinct)[:6])
            raise InputError(
                f"{path}: column '{cols['label']}' has {len(distinct)} distinct labels ({shown}); task: binary needs two — "
                f"use task: multiclass or map the labels"
            )
        if not is_pos.any():
            shown = ", ".join(_show(v) for v in list(distinct)[:6])
            raise InputError(
                f"{path}: column '{cols['label']}': no row has the positive label {cfg.positive!r} (labels found: {shown}); set 'positive' in the config"
            )
        if is_pos.all():
            raise InputError(f"{path}: column '{cols['label']}': every row is positive; metrics need both classes")
        s = scores[keep]
        probabilities = m.probabilities
        if probabilities is True and ((s < 0) | (s > 1)).any():
            i = int(np.flatnonzero(((scores < 0) | (scores > 1)) & keep)[0])
            raise InputError(
                f"{path}: column '{cols['score']}', row {i + 2}: {scores[i]:g} is not a probability; "
                f"remove 'probabilities: true' for model '{m.name}' or rescale the scores"
            )
        warning = _threshold_outside(cfg, i_model, m, s)
        if warning:
            warnings.append(warning)
        ids = df[cols["id"]].to_numpy()[keep] if "id" in cols else None
        if ids is not None:
            dup = pd.Series(ids).duplicated()
            if dup.any():
                i = int(np.flatnonzero(keep)[int(np.flatnonzero(dup.to_numpy())[0])])
                raise InputError(f"{path}: column '{cols['id']}', row {i + 2}: duplicated id {_show(df[cols['id']].iloc[i])}; ids must be unique")
        models.append(
            ModelData(
                name=m.name,
                file=str(path),
                direction=m.direction,
                scores=s,
                y=np.asarray(is_pos, dtype=bool),
                weights=None if weights is None else weights[keep],
                ids=ids,
                probabilities=probabilities,
            )
        )
    models, paired, align_warnings = _align(cfg, models)
    warnings.extend(align_warnings)
    return Dataset(tuple(models), tuple(files), paired, tuple(dropped), tuple(warnings), dates=date_range(cfg, frames))


def _threshold_outside(cfg: Config, i: int, m: ModelConfig, scores: np.ndarray) -> str | None:
    """A warning when the decision threshold lies outside the model's scores (one class predicted)."""
    t = m.threshold if m.threshold is not None else cfg.threshold
    lo, hi = float(scores.min()), float(scores.max())
    if lo <= t <= hi:
        return None
    above = t > hi
    everyone = ("negative" if above else "positive") if m.direction == "higher" else ("positive" if above else "negative")
    key = f"models[{i}].threshold" if m.threshold is not None else "threshold"
    return (
        f"threshold {t:g} lies outside the scores of model '{m.name}' ({lo:g} to {hi:g}), so every row is "
        f"predicted {everyone}; check '{key}' (or the model's 'direction')"
    )


def _truth(m: ModelData) -> np.ndarray:
    """The true labels of a model's rows: booleans (binary) or class indices (multiclass)."""
    return m.y if m.y is not None else m.y_idx  # type: ignore[return-value]


def _take(m: ModelData, rows: np.ndarray) -> ModelData:
    """The model's data restricted to (and reordered by) ``rows``."""
    arrays = ("scores", "y", "weights", "ids", "y_idx", "pred_idx", "proba")
    return dataclasses.replace(m, **{a: getattr(m, a)[rows] for a in arrays if getattr(m, a) is not None})


def _align(cfg: Config, models: list[ModelData]) -> tuple[list[ModelData], bool, list[str]]:
    """Put every model's rows in one order so that comparisons are paired.

    With ids: rows are matched by id; ids present in some models only are an error, or are
    dropped with a counted warning under ``id_mismatch: intersect``. Without ids: rows are
    matched by position, which needs equal row counts and equal labels.
    """
    warnings: list[str] = []
    if len(models) == 1:
        return models, True, warnings
    if all(m.ids is not None for m in models):
        common = pd.Index(models[0].ids)
        for m in models[1:]:
            common = common.intersection(pd.Index(m.ids), sort=False)
        for m in models:
            extra = len(m.ids) - len(common)
            if extra:
                if cfg.id_mismatch == "error":
                    own = pd.Index(m.ids)
                    other = next(o for o in models if o is not m and len(own.difference(pd.Index(o.ids))))
                    sample = ", ".join(_show(v) for v in own.difference(pd.Index(other.ids))[:3])
                    raise InputError(
                        f"{m.file}: model '{m.name}' has {extra} id(s) not shared by every model (e.g. {sample}, "
                        f"missing from model '{other.name}' in {other.file}); align the files or set "
                        f"'id_mismatch: intersect' to compare on the shared ids (dropped rows are counted)"
                    )
                warnings.append(f"model '{m.name}': {extra} row(s) whose id is not in every model were dropped")
        out = [_take(m, pd.Index(m.ids).get_indexer(common)) for m in models]
        ref = out[0]
        for m in out[1:]:
            if not np.array_equal(_truth(m), _truth(ref)):
                i = int(np.flatnonzero(_truth(m) != _truth(ref))[0])
                raise InputError(
                    f"{m.file}: model '{m.name}': the label of id {m.ids[i]!r} differs from model '{ref.name}'; "
                    f"models compared on the same rows must share the truth"
                )
        return out, True, warnings
    n0 = models[0].n
    for m in models[1:]:
        if m.n != n0:
            raise InputError(
                f"{m.file}: model '{m.name}' has {m.n} rows but '{models[0].name}' has {n0}, and no 'id' column "
                f"joins them; set 'id' in the config"
            )
        if not np.array_equal(_truth(m), _truth(models[0])):
            i = int(np.flatnonzero(_truth(m) != _truth(models[0]))[0])
            raise InputError(
                f"{m.file}: model '{m.name}': row {i + 2} has a different label than in '{models[0].name}'; "
                f"rows do not line up — set 'id' in the config to join them"
            )
    return models, True, warnings

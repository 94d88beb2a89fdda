"""Prediction files → validated, aligned arrays per model.

Reads CSV or Parquet (each file once, only the columns the config names), checks every value
a metric will touch, and aligns the models' rows: by the ``id`` column when one is given, by
position otherwise. Every problem raises :class:`InputError` with the file, the column, the
first offending row (1-based, as a spreadsheet shows it, header = row 1) and what to do.
"""

from __future__ import annotations

import hashlib
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


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_table(path: Path, columns: list[str]) -> pd.DataFrame:
    """Read only ``columns`` from a CSV or Parquet file, with one-line errors."""
    if not path.exists():
        raise InputError(f"{path}: file not found; check 'file' in the config (relative paths resolve against the config file)")
    if path.is_dir() or path.suffix.lower() in (".parquet", ".pq"):
        return _read_parquet(path, columns)
    try:
        header = pd.read_csv(path, nrows=0, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty; expected a CSV header with columns {', '.join(columns)}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV") from None
    except (pd.errors.ParserError, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read as CSV ({str(exc).splitlines()[0]})") from None
    have = [str(c) for c in header.columns]
    missing = [c for c in columns if c not in have]
    if missing:
        hint = ""
        if len(have) == 1 and any(sep in have[0] for sep in (";", "\t", "|")):
            hint = "; the header looks delimited by something other than a comma — save as comma-separated CSV"
        raise InputError(
            f"{path}: column{'s' if len(missing) > 1 else ''} {', '.join(repr(c) for c in missing)} not found "
            f"(columns: {', '.join(have)}){hint}"
        )
    try:
        df = pd.read_csv(path, usecols=columns, encoding="utf-8", low_memory=False)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(f"{path}: malformed CSV ({str(exc).splitlines()[0]})") from None
    if len(df) == 0:
        raise InputError(f"{path}: the file has a header but no rows")
    return df


def _read_parquet(path: Path, columns: list[str]) -> pd.DataFrame:
    import pyarrow.dataset as ds

    try:
        dataset = ds.dataset(str(path), format="parquet", partitioning="hive")
    except Exception as exc:  # pyarrow raises several types for unreadable files
        raise InputError(f"{path}: cannot read as Parquet ({str(exc).splitlines()[0]})") from None
    have = list(dataset.schema.names)
    missing = [c for c in columns if c not in have]
    if missing:
        raise InputError(f"{path}: column{'s' if len(missing) > 1 else ''} {', '.join(repr(c) for c in missing)} not found (columns: {', '.join(have)})")
    try:
        table = dataset.to_table(columns=columns)
    except Exception as exc:
        raise InputError(f"{path}: cannot read as Parquet ({str(exc).splitlines()[0]})") from None
    if table.num_rows == 0:
        raise InputError(f"{path}: the file has no rows")
    return table.to_pandas()


def _numeric(series: pd.Series, path: Path, column: str) -> np.ndarray:
    """Column as float64; a non-numeric cell is an error naming its row."""
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{path}: column '{column}', row {i + 2}: non-numeric value {series.iloc[i]!r}; scores must be numbers"
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
    return cols


def load_dataset(cfg: Config) -> Dataset:
    """Read, validate and align every model's predictions (binary tasks)."""
    if cfg.task != "binary":
        from reportgen.sources_multiclass import load_multiclass  # noqa: PLC0415

        return load_multiclass(cfg)
    frames: dict[Path, pd.DataFrame] = {}
    wanted: dict[Path, set[str]] = {}
    for m in cfg.models:
        wanted.setdefault(Path(m.file), set()).update(_columns_for(cfg, m).values())
    files: list[FileInfo] = []
    for path, cols in wanted.items():
        frames[path] = _read_table(path, sorted(cols))
        files.append(FileInfo(str(path), sha256_of(path) if path.is_file() else "", len(frames[path]), path.stat().st_size if path.is_file() else 0))

    dropped: list[tuple[str, str, int]] = []
    warnings: list[str] = []
    models: list[ModelData] = []
    for m in cfg.models:
        path = Path(m.file)
        df = frames[path]
        cols = _columns_for(cfg, m)
        keep = np.ones(len(df), dtype=bool)
        scores = _numeric(df[cols["score"]], path, cols["score"])
        label_col = df[cols["label"]]
        weights = _numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        checks: list[tuple[str, np.ndarray]] = [
            (f"missing or non-finite score in '{cols['score']}'", ~np.isfinite(scores)),
            (f"missing label in '{cols['label']}'", label_col.isna().to_numpy()),
        ]
        if weights is not None:
            checks.append((f"missing or non-finite weight in '{cols['weight']}'", ~np.isfinite(weights)))
        if "id" in cols:
            checks.append((f"missing id in '{cols['id']}'", df[cols["id"]].isna().to_numpy()))
        for reason, bad in checks:
            if bad.any():
                if cfg.missing == "drop":
                    dropped.append((m.name, reason, int((bad & keep).sum())))
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
            raise InputError(f"{path}: no rows left for model '{m.name}' after dropping missing values")
        labels = label_col[keep]
        is_pos = _label_matches(labels, cfg.positive)
        distinct = pd.unique(labels)
        if len(distinct) > 2:
            shown = ", ".join(repr(v) for v in list(distinct)[:6])
            raise InputError(
                f"{path}: column '{cols['label']}' has {len(distinct)} distinct labels ({shown}); task: binary needs two — "
                f"use task: multiclass or map the labels"
            )
        if not is_pos.any():
            shown = ", ".join(repr(v) for v in list(distinct)[:6])
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
        ids = df[cols["id"]].to_numpy()[keep] if "id" in cols else None
        if ids is not None:
            dup = pd.Series(ids).duplicated()
            if dup.any():
                i = int(np.flatnonzero(keep)[int(np.flatnonzero(dup.to_numpy())[0])])
                raise InputError(f"{path}: column '{cols['id']}', row {i + 2}: duplicated id {df[cols['id']].iloc[i]!r}; ids must be unique")
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
    return Dataset(tuple(models), tuple(files), paired, tuple(dropped), tuple(warnings))


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
                    sample = pd.Index(m.ids).difference(common)[:3].tolist()
                    raise InputError(
                        f"{m.file}: model '{m.name}' has {extra} id(s) not shared by every model (e.g. {sample}); "
                        f"align the files or set 'id_mismatch: intersect'"
                    )
                warnings.append(f"model '{m.name}': {extra} row(s) whose id is not in every model were dropped")
        out = []
        for m in models:
            pos = pd.Index(m.ids).get_indexer(common)
            out.append(
                ModelData(m.name, m.file, m.direction, m.scores[pos], m.y[pos],
                          None if m.weights is None else m.weights[pos], m.ids[pos], m.probabilities)
            )
        ref = out[0]
        for m in out[1:]:
            if not np.array_equal(m.y, ref.y):
                i = int(np.flatnonzero(m.y != ref.y)[0])
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
        if not np.array_equal(m.y, models[0].y):
            i = int(np.flatnonzero(m.y != models[0].y)[0])
            raise InputError(
                f"{m.file}: model '{m.name}': row {i + 2} has a different label than in '{models[0].name}'; "
                f"rows do not line up — set 'id' in the config to join them"
            )
    return models, True, warnings

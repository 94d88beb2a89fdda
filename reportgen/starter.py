"""``reportgen init DATAFILE...``: a commented starter config guessed from data files' columns.

Reads the header and the first :data:`SAMPLE_ROWS` rows of a CSV (plain or compressed) or
Parquet file and guesses:

* the **label**: a column with exactly two distinct values, preferring names such as
  ``default_flag``, ``target``, ``label``, ``is_fraud`` (:data:`LABEL_NAMES`); its positive class
  is ``1`` / ``True`` / a "yes"-like value when there is one, else the rarer value (the event);
* the **id**: a column named like an id (``application_id``, ``id``, ``key``) whose sampled
  values are all distinct; a **date** column named like a date (``as_of``, ``snapshot_month``,
  ``created_at``), else one whose sampled values are ISO dates, whose values parse as dates;
* the **models**: every other numeric column with more than two distinct values, one model each.
  A model's ``direction`` is ``lower`` when its sample AUC is below one half (a scorecard whose
  high points mean a safe applicant); a score outside [0, 1], or a probability that 0.5 does not
  split (every sampled score below it, or every one at or above it), gets its own ``threshold``,
  the sample quantile that flags as many rows as there are positives.

Several files give one model per file, named by the file (``a.csv.gz`` → ``a``), the first the
baseline: the label is the first file's and every other file must hold that column; each
file's score column is the one named like a score, else its first candidate; the id is a column
unique in every file's sample (the models are then paired by it), and the date and weight are
kept when every file has the same.

Every guess is written as a comment beside the key, so the reader checks it before a run; the
config validates as written (a test runs ``reportgen validate`` on it). Nothing is computed that
a report relies on: the run recomputes everything from the whole file.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import UserError
from reportgen.io.files import (
    check_input,
    check_not_binary,
    codec_of,
    columns_in,
    csv_error,
    is_parquet,
    nested,
    opened_plain,
    parquet_dataset,
    part_columns,
    unreadable_parquet,
)
from reportgen.io.validate import shown_columns

#: Rows read to guess from (the guesses need a sample, not the file).
SAMPLE_ROWS = 50_000
LABEL_NAMES = re.compile(r"(^y$|label|target|default|flag|outcome|^bad|churn|fraud|event|response|^is_|^has_)", re.I)
ID_NAMES = re.compile(r"(^id$|_id$|^id_|^key$|_key$|uuid|^row_?id$)", re.I)
DATE_NAMES = re.compile(r"(date|time|month|period|_dt$|^dt_|^dt$|as_?of|snapshot|vintage|_at$)", re.I)
#: Text written as an ISO date (``2025-01-31``, maybe with a time): a date column whatever its name.
ISO_DATE = r"^\s*\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*$"
WEIGHT_NAMES = re.compile(r"(^w$|weight|^wgt)", re.I)
POSITIVE_WORDS = re.compile(r"^(1|1\.0|true|yes|y|bad|default|positive|pos|event|fraud)$", re.I)


@dataclass(frozen=True)
class Guess:
    """What the sample suggests; ``notes`` are the comments written beside each key."""

    label: str
    positive: object
    id: str | None
    date: str | None
    weight: str | None
    models: tuple[tuple[str, str, float | None], ...]  # (column, direction, own threshold or None)
    notes: dict[str, str]
    ids: tuple[str, ...] = ()  # every column that could be the id (named like one, unique)


@dataclass(frozen=True)
class Starter:
    """One model of the starter config: its name, its file as the config names it, its score
    column, direction, own threshold (or None) and the comment written beside it."""

    name: str
    file: str
    score: str
    direction: str
    threshold: float | None
    note: str


def read_sample(path: Path, rows: int = SAMPLE_ROWS) -> pd.DataFrame:
    """The first ``rows`` rows of a CSV or Parquet file (one-line errors for unreadable files)."""
    import pyarrow as pa  # noqa: PLC0415

    check_input(path)
    if is_parquet(path):
        part_columns(path)  # a damaged part: named, as run names it
        try:
            table = parquet_dataset(path).head(rows)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable_parquet(path, exc) from None
        # a column of lists, structs or maps, which a run refuses, is no candidate (it was an
        # internal error here: "unhashable type" when its distinct values were counted)
        flat = [
            f.name
            for f in table.schema
            if nested(f.type.value_type if pa.types.is_dictionary(f.type) else f.type) is None
        ]
        return table.select(flat).to_pandas()
    check_not_binary(path)  # compressed named .csv, an archive, Parquet named .csv: the run's one line
    stream = opened_plain(path) if codec_of(path) is not None else None  # .csv.gz: as every engine reads it
    try:
        df = pd.read_csv(path if stream is None else stream, nrows=rows, low_memory=False, encoding="utf-8")
    except (UnicodeDecodeError, OSError, pd.errors.ParserError, ValueError) as exc:
        raise csv_error(path, exc, "cannot read as CSV") from None
    finally:
        if stream is not None:
            stream.close()
    written = columns_in(path)
    if written != [str(c) for c in df.columns] and len(written) == df.shape[1]:
        # pandas invents names for an empty header cell ('Unnamed: 2') and a repeated one ('s.1'):
        # a config naming them was refused by the run (the file has '' and 's'), so such columns
        # are left out and the others keep their names as written
        keep = [i for i, c in enumerate(written) if c and written.count(c) == 1]
        df = df.iloc[:, keep].set_axis([written[i] for i in keep], axis=1)
    return df


def _auc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    """Mann–Whitney AUC of ``scores`` for the boolean ``positive`` (midranks for ties)."""
    ok = np.isfinite(scores)
    s, y = scores[ok], positive[ok]
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = pd.Series(s).rank(method="average").to_numpy()
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _iso_dates(values: pd.Series) -> bool:
    """Whether more than 90 % of a column's sampled values are ISO dates (or already dates)."""
    if pd.api.types.is_datetime64_any_dtype(values):
        return True
    if pd.api.types.is_numeric_dtype(values) or not len(values):
        return False
    return bool(values.astype("string").str.match(ISO_DATE).fillna(False).mean() > 0.9)


def _positive_of(values: pd.Series) -> object:
    """The positive class of a two-valued label: 1 / True / a yes-like word, else the rarer value."""
    distinct = values.dropna().unique().tolist()
    for v in distinct:
        if isinstance(v, (bool, np.bool_)) and bool(v):
            return True
    for v in sorted(distinct, key=str):
        if POSITIVE_WORDS.match(str(v).strip()):
            return v.item() if isinstance(v, np.generic) else v
    rarer = values.value_counts().idxmin()
    return rarer.item() if isinstance(rarer, np.generic) else rarer


def _label_of(df: pd.DataFrame, source: str) -> str:
    """The label column ``df`` suggests: two distinct values, a label-like name preferred."""
    columns = [str(c) for c in df.columns]
    two = [c for c in columns if int(df[c].nunique(dropna=True)) == 2]
    named = [c for c in two if LABEL_NAMES.search(c)]
    if not (named or two):
        raise UserError(
            f"{source}: no column has exactly two distinct values to use as the label "
            f"(columns: {shown_columns(list(columns))}); write the config by hand (see configs/demo.yaml)"
        )
    return (named or two)[0]


def guess(df: pd.DataFrame, source: str, label: str | None = None) -> Guess:
    """The label, id, date, weight and score columns ``df`` suggests (see the module docstring);
    ``label``: the label column already chosen (another file's), which ``df`` must hold."""
    columns = [str(c) for c in df.columns]
    df = df.set_axis(columns, axis=1)
    distinct = {c: int(df[c].nunique(dropna=True)) for c in columns}
    if label is None:
        label = _label_of(df, source)
    elif label not in columns:
        raise UserError(f"{source}: no column {label!r} (columns: {shown_columns(list(columns))})")
    notes = {"label": f"two values: {', '.join(map(str, sorted(df[label].dropna().unique().tolist(), key=str)))}"}
    positive = _positive_of(df[label])
    notes["positive"] = "the value that marks the event (1, True or a yes-like word, else the rarer value)"
    n = int(df[label].notna().sum())
    ids = tuple(
        c for c in columns if c != label and ID_NAMES.search(c) and distinct[c] == int(df[c].notna().sum()) == len(df)
    )
    id_col = ids[0] if ids else None
    if id_col:
        notes["id"] = "every sampled value is distinct: rows are matched across files by it"
    date = None
    named = [c for c in columns if DATE_NAMES.search(c)]
    for c in named + [c for c in columns if c not in named and _iso_dates(df[c])]:
        if c not in (label, id_col) and not pd.api.types.is_numeric_dtype(df[c]):
            try:
                parsed = (
                    df[c]
                    if pd.api.types.is_datetime64_any_dtype(df[c])
                    else pd.to_datetime(df[c], errors="coerce", format="mixed")
                )
            except (TypeError, ValueError):
                continue
            if parsed.notna().mean() > 0.9:
                date, notes["date"] = c, "its first and last date are shown as the report's period"
                break
    numeric = [
        c
        for c in columns
        if c not in (label, id_col, date)
        and pd.api.types.is_numeric_dtype(df[c])
        and not pd.api.types.is_bool_dtype(df[c])
    ]
    weights = [c for c in numeric if WEIGHT_NAMES.search(c) and bool((df[c].dropna() >= 0).all())]
    weight = weights[0] if weights else None
    is_pos = (df[label] == positive).to_numpy()
    prevalence = float(is_pos[df[label].notna().to_numpy()].mean()) if n else 0.5
    models = []
    for c in numeric:
        if c == weight or distinct[c] <= 2:
            continue
        s = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64)
        auc = _auc(s, is_pos)
        direction = "lower" if auc is not None and auc < 0.5 else "higher"
        finite = s[np.isfinite(s)]
        own = None
        # not a probability, or a probability 0.5 would not split (every score below it, or at or
        # above it: the run would warn "threshold 0.5 lies outside the scores"): its own threshold
        if finite.size and (finite.min() < 0 or finite.max() > 1 or not finite.min() < 0.5 <= finite.max()):
            q = prevalence if direction == "lower" else 1 - prevalence
            own = float(np.quantile(finite, q))
        shown = "n/a" if auc is None else f"{max(auc, 1 - auc):.3f}"
        notes[f"model:{c}"] = (
            f"sample AUC {shown}"
            + ("; lower scores go with the positive class" if direction == "lower" else "")
            + ("; threshold: flags about as many rows as there are positives" if own is not None else "")
        )
        models.append((c, direction, own))
    if not models:
        raise UserError(
            f"{source}: no numeric score column besides the label {label!r} "
            f"(columns: {shown_columns(list(columns))}); write the config by hand (see configs/demo.yaml)"
        )
    return Guess(label, positive, id_col, date, weight, tuple(models), notes, ids)


def _y(value: object) -> str:
    """A YAML scalar: JSON's quoting is valid YAML (strings double-quoted, numbers and booleans bare).

    ``${`` is written ``$${`` (the config's literal ``${``): a column named ``${HOME}`` stays that
    name when the config is read, not the value of an environment variable."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return json.dumps(value, ensure_ascii=False).replace("${", "$${")


def _note(text: str) -> str:
    """A comment's text on one line: a value from the data (a label with a line break in a quoted
    cell) could otherwise end the comment and add keys to the config."""
    return " ".join(str(text).split())


def render(g: Guess, models: list[Starter], title: str, source: str, baseline_note: str) -> str:
    """The starter config's YAML text, each guess commented (``source``: what it was written from)."""
    schema = Path(__file__).resolve().parent / "schema" / "config.schema.json"
    lines = [
        f"# yaml-language-server: $schema={schema}",
        f"# Starter config written by `reportgen init` from the columns of {_note(source)}.",
        "# Every value below is a guess from the first rows: check each one, then run",
        "#   reportgen validate THIS_FILE && reportgen run THIS_FILE",
        f"title: {_y(title)}",
        "task: binary",
        f"label: {_y(g.label)}  # {_note(g.notes['label'])}",
        f"positive: {_y(g.positive)}  # {_note(g.notes['positive'])}",
        (
            f"id: {_y(g.id)}  # {_note(g.notes['id'])}"
            if g.id
            else f"# id: null  # {_note(g.notes.get('id', 'no unique id column found: rows are matched by position'))}"
        ),
    ]
    if g.date:
        lines.append(f"date: {_y(g.date)}  # {_note(g.notes['date'])}")
    lines.append(
        f"# weight: {_y(g.weight)}  # a weight-like column: uncomment to weight rows"
        if g.weight
        else "# weight: null  # a sample-weight column, if rows carry weights"
    )
    lines += [
        "threshold: 0.5  # decision threshold for probabilities: positive when score >= threshold",
        "costs: {fn: 1, fp: 1}  # cost of a missed positive and of a false alarm: set your own",
        f"baseline: {_y(models[0].name)}  # {_note(baseline_note)}",
        "bootstrap: {resamples: 500, seed: 20240601}",
        "models:",
    ]
    for m in models:
        lines += [f"  - name: {_y(m.name)}  # {_note(m.note)}", f"    file: {_y(m.file)}", f"    score: {_y(m.score)}"]
        if m.direction == "lower":
            lines.append("    direction: lower")
        if m.threshold is not None:
            lines.append(f"    threshold: {_y(m.threshold)}")
    lines += ["output:", "  dir: reports/{config}", "  formats: [html, pdf, json]", ""]
    return "\n".join(lines)


#: A score column's name, preferred when a file of several holds more than one numeric column.
SCORE_NAMES = re.compile(r"(score|prob|^p$|^p_|_p$|^pd$|_pd$|^pd_|pred|proba|points)", re.I)


def stem_of(path: Path) -> str:
    """A data file's name without its extensions: ``a.csv.gz`` → ``a``, ``b.parquet`` → ``b``."""
    name = path.name
    for suffix in (".gz", ".bz2", ".zst"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem or name


def _shown(path: Path, config: Path) -> str:
    """``path`` as the config names it: relative to ``config``'s directory when that is at most one
    level up, else absolute (beside or near the config, the pair can move together)."""
    absolute = path.resolve()
    relative = os.path.relpath(absolute, config.resolve().parent)
    return str(absolute) if relative.startswith(os.path.join(os.pardir, os.pardir)) else relative


def starter_config(data: str | Path | list[str | Path], config: str | Path) -> str:
    """The starter config for one data file (one model per score column) or several (one model
    per file, named by the file, all sharing the first file's label column; ids, date and
    weight kept when every file has them)."""
    paths = [Path(p) for p in ([data] if isinstance(data, (str, Path)) else data)]
    config = Path(config)
    if len(paths) == 1:
        path = paths[0]
        g = guess(read_sample(path), str(path))
        shown = _shown(path, config)
        models = [Starter(c, shown, c, d, own, g.notes["model:" + c]) for c, d, own in g.models]
        return render(g, models, f"Model comparison: {stem_of(path)}", shown, "the model every other is compared with")
    return _several(paths, config)


def _several(paths: list[Path], config: Path) -> str:
    """:func:`starter_config` of several files: one model per file."""
    seen: dict[Path, Path] = {}
    for p in paths:
        if p.resolve() in seen:
            raise UserError(f"{p}: given twice; name each data file once")
        seen[p.resolve()] = p
    first = guess(read_sample(paths[0]), str(paths[0]))
    guesses = [first]
    for p in paths[1:]:
        sample = read_sample(p)
        if first.label not in [str(c) for c in sample.columns]:
            own = _label_of(sample, str(p))
            raise UserError(
                f"{p}: its label column looks like {own!r}, but {paths[0]}'s is {first.label!r}; "
                f"the files must share one label column: rename it in one of them"
            )
        guesses.append(guess(sample, str(p), label=first.label))
    shared_id = next((c for c in first.ids if all(c in g.ids for g in guesses)), None)
    date = first.date if all(g.date == first.date for g in guesses) else None
    weight = first.weight if all(g.weight == first.weight for g in guesses) else None
    notes = dict(first.notes)
    notes["id"] = (
        "unique in every file's sample: each model's rows are matched by it, so the models are compared pairwise"
        if shared_id
        else "no id column unique in every file: rows are matched by position"
    )
    shared = Guess(first.label, first.positive, shared_id, date, weight, first.models, notes, first.ids)
    names: set[str] = set()
    models = []
    for p, g in zip(paths, guesses):
        column, direction, threshold = _score_of(g)
        name, k = stem_of(p), 2
        while name in names:  # two files of one name in different directories
            name, k = f"{stem_of(p)}_{k}", k + 1
        names.add(name)
        others = [c for c, _d, _t in g.models if c != column]
        note = f"{column} of {p.name}: {g.notes['model:' + column]}" + (
            f"; other numeric columns: {', '.join(others)}" if others else ""
        )
        models.append(Starter(name, _shown(p, config), column, direction, threshold, note))
    title = "Model comparison: " + ", ".join(m.name for m in models)
    source = ", ".join(str(p) for p in paths)
    return render(shared, models, title, source, "the first file's model, which every other is compared with")


def _score_of(g: Guess) -> tuple[str, str, float | None]:
    """The score column of a file of one model: the one named like a score, else the first."""
    return next((m for m in g.models if SCORE_NAMES.search(m[0])), g.models[0])


__all__ = ["Guess", "SAMPLE_ROWS", "Starter", "guess", "read_sample", "render", "starter_config", "stem_of"]

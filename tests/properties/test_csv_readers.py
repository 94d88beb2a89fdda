"""The in-memory engine's CSV reader: pyarrow's, with pandas' as the judge of what pyarrow refuses.

:func:`reportgen.io.files.read_table` parses a CSV with pyarrow (multi-threaded) and hands a
file pyarrow refuses, or may misread (a line break in a value, an odd number of quotes), to
pandas' reader, the one the memory engine always used. The property: on any CSV-ish bytes,
whenever the pyarrow path accepts a file, pandas reads the same values and rows from it (or
refuses it only for a number too long for pandas' float parser, which both pyarrow and the
streamed engines read as ±inf); so the engine accepts, reads and refuses what it did before.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_csv_run import csv_documents  # the run-level fuzz's documents (same folder)

from reportgen.errors import InputError
from reportgen.io import files as F
from reportgen.io import validate as V

_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _cells(s: pd.Series) -> list:
    """A column's cells as Python values, None where missing (dtypes aside)."""
    return [None if pd.isna(v) else v for v in s.astype(object).tolist()]


def _long_number(data: bytes) -> bool:
    return b"9" * 1000 in data  # the fuzz's 70,000- and 1,100,000-digit fields


@pytest.mark.slow  # 300 documents through both readers: about 6 CPU-s
@_SETTINGS
@given(data=csv_documents())
def test_pyarrow_reads_what_pandas_reads_or_hands_the_file_over(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("csv") / "a.csv"
    path.write_bytes(data)
    try:
        have = F.columns_in(path)
    except InputError:
        return
    cols = [c for c in ("id", "y", "s", "t") if c in have]
    if not cols:
        return
    text, numbers = [c for c in cols if c in ("id", "y")], [c for c in cols if c in ("s", "t")]
    try:
        fast = F.arrow_csv_frame(path, cols, numbers, text)
    except InputError as exc:  # a row with more or fewer fields than the header: refused in every engine
        assert "fields where the header has" in str(exc) or "quote is left open" in str(exc), str(exc)
        return
    try:
        slow = F.pandas_csv_frame(path, cols, text)
    except InputError:
        assert fast is None or _long_number(data), data[:200]
        return
    if fast is None:
        return
    assert len(fast) == len(slow), data[:200]
    for c in text:
        assert str(fast[c].dtype) == str(slow[c].dtype) and _cells(fast[c]) == _cells(slow[c]), (c, data[:200])
    for c in numbers:
        assert fast[c].dtype == np.float64
        if _long_number(data) and slow[c].dtype != np.float64:
            continue  # pandas keeps such a cell as text (then refused as non-numeric); pyarrow reads ±inf
        assert np.array_equal(fast[c].to_numpy(), V.numeric(slow[c], path, c), equal_nan=True), (c, data[:200])


def _read(tmp_path, body: bytes, cols=("id", "y", "s"), numbers=("s",), text=("id", "y")):
    path = tmp_path / "a.csv"
    path.write_bytes(body)
    return F.read_table(path, list(cols), list(numbers), list(text))


def test_read_table_reads_ids_as_text_na_as_missing_and_skips_a_bom(tmp_path):
    df = _read(tmp_path, b"\xef\xbb\xbfid,y,s\n007,NA,0.5\n7,1,NA\n,0,\n")
    assert df["id"].tolist() == ["007", "7", ""]  # 007 is not 7; text is never null
    assert df["y"].tolist() == ["NA", "1", "0"]
    assert np.isnan(df["s"].to_numpy()[1:]).all() and df["s"].to_numpy()[0] == 0.5


def test_read_table_types_a_column_integral_for_megabytes_then_decimal(tmp_path):
    """Past pyarrow's first block (inference would have said int64): scores and a date column."""
    n = 300_000
    body = "id,y,s,d\n" + "".join(f"{i},{i % 2},{i},2026-01-{1 + i % 28:02d}\n" for i in range(n)) + "x,1,0.5,NA\n"
    df = _read(tmp_path, body.encode(), ("id", "y", "s", "d"))
    assert len(df) == n + 1 and df["s"].to_numpy()[-1] == 0.5 and df["s"].to_numpy()[7] == 7.0
    assert pd.isna(df["d"].iloc[-1]) and df["d"].iloc[0] == "2026-01-01"  # other columns: text, NA missing


def test_read_table_refuses_a_short_or_long_row_naming_it_as_every_engine_does(tmp_path):
    """pyarrow refuses a row whose field count differs from the header's; pandas padded a short row
    with missing cells and dropped a long row's extra fields. One rule now: refused, row named."""
    with pytest.raises(InputError, match=r"a\.csv: row 3: 2 fields where the header has 3; give every row"):
        _read(tmp_path, b"id,y,s\n1,0,0.5\n2,1\n")
    with pytest.raises(InputError, match=r"a\.csv: row 4: 4 fields where the header has 3"):
        _read(tmp_path, b'id,y,s\n1,0,0.5\n\n2,"1\n",0.2\n3,1,0.7,9\n')  # blank line skipped, quoted break kept


@pytest.mark.parametrize(
    "body, message",
    [
        # the last column: pandas' own words ("EOF inside string") before, now the row as every engine says it
        (b'id,y,s\n1,0,0.5\n2,1,"0.7\n', r"row 3: a quote is left open or misplaced \(malformed CSV\)"),
        (b'id,y,s\n1,0,0.5\n2,"1,0.7\n', r"row 3: a quote is left open or misplaced \(malformed CSV\)"),
        (b"id,y,s\n1,\xe9,0.5\n", r"not UTF-8 text; re-save the file as UTF-8 CSV"),
    ],
)
def test_read_table_refuses_what_pandas_refused_with_its_message(tmp_path, body, message):
    """A quote left open at the end of the file: pyarrow reads it as a value, pandas refused it."""
    with pytest.raises(InputError, match=message):
        _read(tmp_path, body)


def test_non_numeric_score_names_its_row_as_before(tmp_path):
    df = _read(tmp_path, b"id,y,s\n1,0,0.5\n2,1,abc\n")
    with pytest.raises(InputError, match=r"column 's', row 3: non-numeric value 'abc'; expected a number"):
        V.numeric(df["s"], "a.csv", "s")


@pytest.mark.parametrize(
    "body, odd",
    [
        (b"a,b\n1,2\n", False),
        (b'a,b\n"1,""x""",2\n', False),
        (b'a,b\n"1,2\n', True),
        (b'a,b\n1"x,2\n', True),
        (b"", False),
    ],
)
def test_odd_quotes(tmp_path, body, odd):
    (tmp_path / "a.csv").write_bytes(body)
    assert F.odd_quotes(tmp_path / "a.csv") is odd


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(quotes=st.lists(st.integers(0, 3 * 4096 + 99), max_size=9, unique=True), tail=st.integers(0, 3 * 4096 + 100))
def test_odd_quotes_counts_across_mapped_windows(tmp_path, monkeypatch, quotes, tail):
    """The file is mapped one window at a time (resident memory bounded, not the whole file): a
    quote on either side of a window's edge, or a window holding none, counts as in one scan."""
    import mmap

    monkeypatch.setattr(F, "QUOTE_WINDOW", mmap.ALLOCATIONGRANULARITY)
    size = max([tail, *(q + 1 for q in quotes)])
    body = bytearray(b"x" * size)
    for q in quotes:
        body[q] = ord('"')
    (tmp_path / "w.csv").write_bytes(bytes(body))
    assert F.odd_quotes(tmp_path / "w.csv") is (bytes(body).count(b'"') % 2 == 1)


def test_read_table_hashes_the_bytes_pyarrow_parsed(tmp_path):
    body = "id,y,s\n" + "".join(f"{i},{i % 2},0.{i:06d}\n" for i in range(200_000))
    (tmp_path / "a.csv").write_text(body)
    with F.hashing() as digests:
        df = F.read_table(tmp_path / "a.csv", ["id", "y", "s"], ["s"], ["id", "y"])
    assert len(df) == 200_000
    assert digests.of(tmp_path / "a.csv") == hashlib.sha256(body.encode()).hexdigest()

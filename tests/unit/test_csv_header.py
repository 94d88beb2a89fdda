"""A plain CSV header is read without pandas (:func:`reportgen.io.files.plain_header`) and names
the columns as pandas' reader (the oracle, with :func:`~reportgen.io.files.raw_header` for the
repeated and empty names it renames) names them; any other header is left to pandas."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import reportgen.io.files as F

PLAIN = [
    b"y,s\n1,0.5\n",
    b"y,s\r\n1,0.5\r\n",
    b"\xef\xbb\xbfy,s\n1,0.5\n",
    b"y,s",
    b"label, score ,x y\n1,2,3\n",
    b"s,s,t\n1,2,3\n",
    b"a,,b,\n1,2,3,4\n",
    b"\xc3\xa9t\xc3\xa9,s\n1,2\n",
    b"1,2.5,nan\n1,2,3\n",
    b"a\tb,c\n1,2\n",
]


@pytest.mark.parametrize("content", PLAIN)
def test_a_plain_header_names_the_columns_as_pandas_does(tmp_path, content: bytes) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes(content)
    names = [str(c) for c in pd.read_csv(path, nrows=0, encoding="utf-8").columns]
    if any((m := re.match(F.DEDUPED, c)) and m.group(1) in names for c in names) or any(
        re.match(F.UNNAMED, c) for c in names
    ):
        names = F.raw_header(path)
    assert F.plain_header(path) == names
    assert F.columns_in(path) == names


@pytest.mark.parametrize(
    "content",
    [b'"y","s"\n1,2\n', b"\ny,s\n1,2\n", b"", b"y,s\rx\n", b"y\xff,s\n1,2\n", b"y,s" + b"x" * F.HEADER_BYTES],
)
def test_any_other_header_is_left_to_pandas(tmp_path, content: bytes) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes(content)
    assert F.plain_header(path) is None

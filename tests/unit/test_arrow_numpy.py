"""Arrow columns to numpy without pandas (:mod:`reportgen.io.arrow_numpy`) and a single Parquet
file read without ``pyarrow.dataset`` (:mod:`reportgen.io.parquet_file`): the same arrays, the
same tables, as pyarrow's own readers give (the oracle)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from reportgen.io.arrow_numpy import numpy_of
from reportgen.io.parquet_file import single_file

rng = np.random.default_rng(3)
COLUMNS = [
    pa.array(rng.integers(-100, 100, 37).astype(np.int8)),
    pa.array(rng.integers(0, 1 << 40, 37)),
    pa.array(rng.integers(0, 60000, 37).astype(np.uint16)),
    pa.array(rng.random(37).astype(np.float32)),
    pa.array(rng.random(37)),
    pa.array(rng.random(37) < 0.4),
    pa.array([1.0, None, 3.0]),
    pa.array(["a", "b", None]),
    pa.array([], type=pa.float64()),
    pa.array([], type=pa.bool_()),
]


@pytest.mark.parametrize("values", COLUMNS, ids=lambda a: str(a.type))
@pytest.mark.parametrize("shape", ["whole", "sliced", "chunked", "chunks"])
def test_numpy_of_equals_to_numpy(values: pa.Array, shape: str) -> None:
    if shape == "sliced":
        values = values.slice(min(3, len(values)), 11)
    elif shape == "chunked":
        values = pa.chunked_array([values])
    elif shape == "chunks":
        values = pa.chunked_array([values, values.slice(min(5, len(values)))])
    got, want = (
        numpy_of(values),
        values.to_numpy(zero_copy_only=False) if isinstance(values, pa.Array) else values.to_numpy(),
    )
    assert got.dtype == want.dtype and got.shape == want.shape
    assert [repr(v) for v in got.tolist()] == [repr(v) for v in want.tolist()]


def test_a_single_parquet_file_reads_as_its_dataset(tmp_path) -> None:
    table = pa.table(
        {"y": COLUMNS[0], "s": COLUMNS[4], "k": pa.array(list("abcdefg") * 5 + ["h", "i"]).dictionary_encode()}
    )
    path = tmp_path / "a.parquet"
    pq.write_table(table, path, row_group_size=10)
    data, dataset = single_file(str(path), True), ds.dataset(str(path), format="parquet", partitioning="hive")
    assert data is not None and data.schema.equals(dataset.schema)
    assert data.to_table(["s", "k"]).equals(dataset.to_table(columns=["s", "k"]))
    batches = list(data.to_batches(["y"], 4))
    assert max(b.num_rows for b in batches) <= 4 and pa.Table.from_batches(batches).equals(
        dataset.to_table(columns=["y"])
    )
    assert data.head(12).equals(dataset.head(12))


def test_what_a_dataset_reads_otherwise_is_left_to_it(tmp_path) -> None:
    """A hive key above the file (the dataset adds it as a column), a directory, a file that is
    not Parquet, and a repeated column name go to the dataset reader."""
    (tmp_path / "month=3").mkdir()
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "month=3" / "p.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    pq.write_table(pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"]), tmp_path / "twice.parquet")
    for path in (
        tmp_path / "month=3" / "p.parquet",
        tmp_path / "month=3",
        tmp_path / "bad.parquet",
        tmp_path / "twice.parquet",
    ):
        assert single_file(str(path), True) is None
    assert single_file(str(tmp_path / "month=3" / "p.parquet"), False) is None

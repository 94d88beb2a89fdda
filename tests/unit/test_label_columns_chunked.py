"""A whole file held as its reader's chunks (issue 46): label codes, distinct labels and the
score-range check give what the combined column gave."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from reportgen.io import validate as V
from reportgen.io.batches import Batch, _first_appearances


def _chunked(values: np.ndarray, cuts: np.ndarray, type_: pa.DataType) -> pa.ChunkedArray:
    return pa.chunked_array([list(part) for part in np.split(values, cuts)], type=type_)


def test_key_codes_of_chunks_encoded_apart_equal_the_combined_columns():
    """Chunks whose dictionaries differ (a CSV block that starts with the other label) are
    mapped into one dictionary: the same names, in the same order, and the same codes as
    encoding the combined column."""
    rng = np.random.default_rng(1)
    spellings = np.array(["0", "1", "01", "yes", None, "x"], dtype=object)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        values = spellings[rng.integers(0, spellings.shape[0], n)]
        cuts = np.sort(rng.integers(0, n, int(rng.integers(0, 5))))
        chunked = _chunked(values, cuts, pa.string())
        codes, names = V.key_codes(chunked)
        whole_codes, whole_names = V.key_codes(chunked.combine_chunks())
        assert list(names) == list(whole_names)
        np.testing.assert_array_equal(codes, whole_codes)


def test_key_codes_of_many_distinct_values_over_chunks():
    """Past the few-values limit the chunks are encoded as one array: still the same codes."""
    values = np.array([f"v{i % 5000}" for i in range(10_000)][::-1], dtype=object)
    chunked = _chunked(values, np.array([3000, 7000]), pa.large_string())
    codes, names = V.key_codes(chunked)
    whole_codes, whole_names = V.key_codes(chunked.combine_chunks())
    assert list(names) == list(whole_names)
    np.testing.assert_array_equal(codes, whole_codes)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
def test_first_appearances_equal_numpys_unique_in_order_of_appearance(dtype):
    rng = np.random.default_rng(2)
    for high in (1, 2, 3, 8, 9, 50):
        values = rng.integers(0, high, 200).astype(dtype)
        expected = values[np.sort(np.unique(values, return_index=True)[1])]
        np.testing.assert_array_equal(_first_appearances(values), expected)
    assert _first_appearances(np.zeros(0, dtype=dtype)).shape == (0,)


def test_distinct_labels_of_a_chunked_table_are_those_of_its_rows():
    table = pa.table({"y": pa.chunked_array([["1", "0"], ["0"], [None, "1", "2"]])})
    batch = Batch(table)
    assert batch.distinct("y", None) == ["1", "0", "2"]
    assert batch.distinct("y", np.array([False, True, True, False, False, True])) == ["0", "2"]
    np.testing.assert_array_equal(batch.missing("y"), [False, False, False, True, False, False])


def test_score_range_is_checked_past_a_missing_score():
    """The two-reduction pass reads NaN as "look closer": a huge score beside a NaN is still found."""
    scores = np.array([0.5, np.nan, 2e300, 0.1])
    faults = V.Faults()
    V.check_score_range("a.csv", "s", scores, None, 0, faults)
    assert faults.best is not None and "row 4" in faults.best[2] and "too large in magnitude" in faults.best[2]
    clean = V.Faults()
    V.check_score_range("a.csv", "s", np.array([0.5, np.nan, -1e300]), None, 0, clean)
    assert clean.best is None

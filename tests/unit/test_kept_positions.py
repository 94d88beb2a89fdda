"""reportgen.reduce.local.positions: the kept rows' file positions the id join sees, from the
pieces ModelPass.collect holds (a range where a batch kept every row, else the rows kept)."""

from __future__ import annotations

import numpy as np

from reportgen.reduce.local import positions


def test_consecutive_ranges_are_one_arange_in_int32():
    got = positions([range(0, 3), range(3, 7), range(7, 8)])
    assert got.dtype == np.int32 and np.array_equal(got, np.arange(8))


def test_ranges_and_kept_rows_mix_in_file_order():
    got = positions([range(0, 3), np.array([4, 6], dtype=np.int32), range(7, 9)])
    assert np.array_equal(got, [0, 1, 2, 4, 6, 7, 8]) and got.dtype == np.int32


def test_a_gap_between_ranges_is_kept():  # a Dask part's rows, or a row left out between batches
    assert np.array_equal(positions([range(0, 2), range(5, 7)]), [0, 1, 5, 6])


def test_past_two_to_the_31_rows_positions_are_int64():
    got = positions([range(2**31 - 2, 2**31 + 1)])
    assert got.dtype == np.int64 and got[-1] == 2**31


def test_one_array_is_returned_as_it_is_and_none_is_empty():
    a = np.array([1, 5], dtype=np.int32)
    assert positions([a]) is a  # asking again (the join, then the common rows) copies nothing
    assert positions([]).shape == (0,)

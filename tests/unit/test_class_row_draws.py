"""The multiclass rows' draws' scratch arrays (``engine/class_row_draws.Work``)."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.engine import class_row_draws as RD


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_work_arrays_start_on_a_cache_line(dtype):
    """Every scratch array starts on a 64-byte boundary (numpy's own large arrays start 16 bytes
    past one), so each gathered row of SUB_BLOCK int32 weights fills whole cache lines, also when
    a larger request replaces a cached array."""
    work = RD.Work()
    for rows, b in [(50_001, RD.SUB_BLOCK), (7, 3), (200_000, RD.SUB_BLOCK)]:
        a = work.get("cum", rows, b, dtype)
        assert a.shape == (rows, b) and a.dtype == dtype and a.flags.c_contiguous
        assert a.ctypes.data % RD.LINE == 0

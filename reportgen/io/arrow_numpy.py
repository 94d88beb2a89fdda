"""Arrow columns as numpy arrays without pandas.

pyarrow's ``to_numpy`` converts through its pandas layer, which imports pandas (0.3–0.5 s on the
2-core machine of issue 46) whenever pandas is installed, even for a column of int8. A column of
numbers or booleans without nulls is read here from its Arrow buffers (the public buffer
protocol: a read-only view of the numbers, an unpacked copy of the bits), which is what
``to_numpy`` returns for it; anything else (nulls, text, dates) goes through ``to_numpy``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Arrow type names read from their data buffer, and their numpy types.
_FIXED = {
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "halffloat": np.float16,
    "float": np.float32,
    "double": np.float64,
}


def numpy_of(values: Any) -> np.ndarray:
    """``values`` (a pyarrow Array or ChunkedArray) as ``values.to_numpy(zero_copy_only=False)``
    gives it: a column of numbers without nulls as a read-only view of its buffer, booleans
    without nulls as a bool array; chunks concatenated; any other column through ``to_numpy``."""
    import pyarrow as pa  # noqa: PLC0415

    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks != 1:
            if values.num_chunks == 0 or values.null_count or not _direct(values.type):
                return values.to_numpy()
            return np.concatenate([numpy_of(c) for c in values.chunks])
        values = values.chunk(0)
    if values.null_count or not _direct(values.type):
        return values.to_numpy(zero_copy_only=False)
    n, start, data = len(values), values.offset, values.buffers()[1]
    if values.type.id == pa.bool_().id:
        if n == 0:
            return np.zeros(0, dtype=bool)
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), count=start + n, bitorder="little")
        return bits[start:].astype(bool)
    dtype = np.dtype(_FIXED[str(values.type)])
    if n == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=n, offset=start * dtype.itemsize)


def _direct(t: Any) -> bool:
    """Whether a column of type ``t`` is read from its buffers (fixed-width numbers, booleans)."""
    return str(t) in _FIXED or str(t) == "bool"

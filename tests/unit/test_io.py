"""Unit tests of the reading-and-validation layer (:mod:`reportgen.io`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from reportgen.config import load_config
from reportgen.errors import InputError
from reportgen.io import align as A
from reportgen.io import files as F
from reportgen.io import validate as V
from reportgen.report.wording import notice_text

# --- keys ------------------------------------------------------------------------------------


_LABEL_CELLS = [
    " 1",
    "01",
    "1.0",
    "1",
    "0",
    "-0",
    "TRUE",
    "true",
    "a ",
    "a",
    "NA",
    "",
    "  ",
    None,
    "inf",
    "x\u00e9",
    "0.50",
]


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_label_rows_from_codes_are_the_rows_of_the_spelled_out_keys(seed, large):
    """Missing rows, positive rows and distinct keys of a label column, looked up from its codes
    (:func:`reportgen.io.validate.key_codes`), are those of its keys spelled out per row."""
    from reportgen.io.batches import Batch

    rng = np.random.default_rng(seed)
    cells = [_LABEL_CELLS[i] for i in rng.integers(0, len(_LABEL_CELLS), size=200)]
    col = pa.array(cells, pa.large_string() if large else pa.string())
    keys = V.key_array(col)
    batch = Batch(pa.RecordBatch.from_arrays([col], names=["y"]))
    missing = np.array([k is None for k in keys.to_pylist()])
    got = batch.missing("y")
    assert (got is None and not missing.any()) or np.array_equal(got, missing)
    for positive in ("1", "True", "a", "0.5", "zz", "0"):
        twins = V.positive_keys(positive)
        assert np.array_equal(Batch(batch.rb).matches("y", twins), np.array([k in twins for k in keys.to_pylist()]))
    keep = rng.random(200) < 0.3
    for mask in (None, keep, np.zeros(200, dtype=bool)):
        chosen = keys.to_pylist() if mask is None else [k for k, m in zip(keys.to_pylist(), mask) if m]
        assert sorted(batch.distinct("y", mask)) == sorted({k for k in chosen if k is not None})
    numbers = Batch(pa.RecordBatch.from_arrays([pa.array([1.0, None, 2.0, 1.0])], names=["y"]))
    assert numbers.missing("y").tolist() == [False, True, False, False]
    assert numbers.matches("y", V.positive_keys(1)).tolist() == [True, False, False, True]
    assert Batch(numbers.rb).matches("y", V.positive_keys(True)).tolist() == [True, False, False, True]
    assert sorted(numbers.distinct("y", np.array([False, True, True, False]))) == ["2"]


def test_positive_keys_are_the_key_and_its_boolean_twin():
    """``positive: 1`` and ``positive: true`` name one class, in a 0 / 1 column or a boolean one."""
    assert (
        V.positive_keys(1)
        == V.positive_keys(True)
        == V.positive_keys("true")
        == V.positive_keys("1.0")
        == {"1", "True"}
    )
    assert V.positive_keys(0) == V.positive_keys(False) == {"0", "False"}
    assert V.positive_keys("yes") == {"yes"} and V.positive_keys(2) == {"2"}


def test_keys_one_rule_for_text_numbers_and_booleans():
    text = pa.array(
        [" 1", "01", "1.0", "+2", "-0", "0.50", "TRUE", "a ", "NA", "None", "null", "", "  ", None, "inf", "NaN"]
    )
    assert V.keys(text).tolist() == [
        "1",
        "1",
        "1",
        "2",
        "0",
        "0.5",
        "True",
        "a",
        "NA",
        "None",
        "null",
        None,
        None,
        None,
        None,
        None,
    ]
    assert V.keys(pa.array([1, 2, None])).tolist() == ["1", "2", None]
    assert V.keys(pa.array([1.0, 2.5, float("nan"), float("inf")])).tolist() == ["1", "2.5", None, None]
    assert V.keys(pa.array([True, False])).tolist() == ["True", "False"]
    assert V.keys(pd.Series(["x", 1, None], dtype=object)).tolist() == ["x", "1", None]


def test_key_codes_index_the_keys_of_every_input_kind():
    """``names[codes]`` is ``key_array``'s answer row by row (computed on the whole column, the
    oracle): chunked Arrow-backed pandas strings (a read CSV), dictionaries, numbers, nulls."""
    text = [" 1", "01", "a", None, "", "TRUE", "a", "1.0", "NA"] * 3
    chunked = pd.Series(
        pd.arrays.ArrowStringArray(pa.chunked_array([text[:4], text[4:20], text[20:]], pa.large_string()))
    )
    inputs = [
        chunked,
        pa.array(text),
        pa.array(text).dictionary_encode(),
        pa.array([1.0, None, 2.5, 1.0, float("nan")]),
        pa.array([True, None, False]),
        pa.nulls(3),
        pd.Series(["x", 1, None], dtype=object),
        pa.array([], pa.string()),
    ]
    for values in inputs:
        codes, names = V.key_codes(values)
        oracle = V.key_array(values).to_pylist()
        assert names[codes].tolist() == oracle and V.keys(values).tolist() == oracle
        assert names[-1] is None and len(codes) == len(oracle)


def test_keys_of_long_integer_ids_keep_every_digit():
    """Ids past 2**53 must not go through float64 (two ids would become one)."""
    assert V.keys(pa.array(["12345678901234567890", "12345678901234567891"])).tolist() == [
        "12345678901234567890",
        "12345678901234567891",
    ]


def test_label_key_of_config_values_matches_the_data_keys():
    assert [V.label_key(v) for v in (1, 1.0, "1.0", True, "NA", 0.5)] == ["1", "1", "1", "True", "NA", "0.5"]


# --- files -----------------------------------------------------------------------------------


def test_record_batches_type_csv_columns_explicitly(tmp_path):
    """Scores integral in the first block and decimal later read as float64 (no inference)."""
    n = 100_000
    s = np.arange(n).astype(object)
    s[-1] = 0.5
    pd.DataFrame({"y": ["NA"] * n, "s": s}).to_csv(tmp_path / "a.csv", index=False)
    batches = list(F.record_batches(tmp_path / "a.csv", ["s", "y"], 1000, ["s"], ["y"]))
    assert all(b.schema.field("s").type == pa.float64() and b.schema.field("y").type == pa.string() for b in batches)
    assert sum(b.num_rows for b in batches) == n
    assert batches[-1].column("s")[-1].as_py() == 0.5
    assert batches[0].column("y")[0].as_py() == "NA"  # text: never null


@pytest.mark.slow  # reads a large CSV under tracemalloc: ~7 s
def test_a_streamed_csv_is_read_at_most_two_blocks_ahead_of_its_consumer(tmp_path):
    """pyarrow's streaming CSV reader read the whole file ahead of the batches taken (a 1.16 GB
    CSV held whole after the first batch): now the bytes read while the consumer holds its first
    batch are at most three blocks (the batch's and two ahead) and the 1 MiB buffer; every row
    still comes out, and the file's digest is recorded once it is read to the end."""
    import time

    n = 1_500_000  # about 20 MB; batches of 1,000 rows x 2 columns: 1 MiB blocks
    pd.DataFrame({"y": np.arange(n) % 2, "s": np.round(np.linspace(0, 1, n), 6)}).to_csv(
        tmp_path / "a.csv", index=False
    )
    size = (tmp_path / "a.csv").stat().st_size
    told: list[int] = []
    with F.hashing() as digests, F.read_progress(told.append):
        reading = F.record_batches(tmp_path / "a.csv", ["s", "y"], 1000, ["s"], ["y"])
        first = next(reading)
        time.sleep(0.5)  # time for the parser's threads to read ahead
        ahead = max(told)
        rows = first.num_rows + sum(b.num_rows for b in reading)
    assert ahead <= 4 << 20 < size
    assert rows == n and max(told) == size
    assert str((tmp_path / "a.csv").resolve()) in digests.files


def test_a_streamed_local_parquet_file_is_not_read_ahead_whole(tmp_path, monkeypatch):
    """pyarrow's pre-buffering read every row group's column chunks of a part ahead and held them
    (through the hashing file: Python bytes) until the part was done: a 977 MB file held 0.93 GB.
    Now, while the consumer holds the first batch, next to nothing of the file is held; every row
    still comes out."""
    import time
    import tracemalloc

    n = 2_000_000
    rng = np.random.default_rng(1)
    pq.write_table(
        pa.table({"y": rng.integers(0, 2, n), "s": rng.random(n)}),
        tmp_path / "a.parquet",
        row_group_size=100_000,
        compression="none",
    )
    size = (tmp_path / "a.parquet").stat().st_size
    monkeypatch.setattr(F, "HASH_IN_MEMORY", 1 << 20)  # a part larger than this is parsed from the file
    tracemalloc.start()
    try:
        with F.hashing():
            reading = F.record_batches(tmp_path / "a.parquet", ["s", "y"], 100_000, ["s"], [])
            first = next(reading)
            time.sleep(0.3)
            held = tracemalloc.get_traced_memory()[0]
            rows = first.num_rows + sum(b.num_rows for b in reading)
    finally:
        tracemalloc.stop()
    assert held < size // 4 and rows == n


def test_read_ahead_waits_for_the_consumer_goes_on_after_a_while_and_ends_when_closed(monkeypatch):
    """The gate itself: two blocks allowed, one more per batch taken; a read kept waiting
    READ_AHEAD_WAIT seconds goes on by one block (never a deadlock); closed, a read is the end."""
    import io
    import threading

    gate = F.ReadAhead(io.BytesIO(bytes(100)), block=10)
    buf = bytearray(64)
    assert gate.readinto(buf) == 20  # two blocks, not the 64 asked
    done: list[int] = []
    waiting = threading.Thread(target=lambda: done.append(gate.readinto(buf)))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and not done  # the consumer has taken nothing: the read waits
    gate.taken()
    waiting.join(5)
    assert done == [10]
    monkeypatch.setattr(F, "READ_AHEAD_WAIT", 0.05)
    assert gate.readinto(buf) == 10  # nobody took a batch for READ_AHEAD_WAIT: one block more
    gate.close()
    assert gate.readinto(buf) == 0


def test_non_numeric_cell_in_a_typed_csv_column_names_its_row(tmp_path):
    pd.DataFrame({"s": ["0.1", "0.2", "abc"]}).to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(InputError, match=r"column 's', row 4: non-numeric value 'abc'; expected a number"):
        list(F.record_batches(tmp_path / "a.csv", ["s"], 1000, ["s"], []))


def test_check_parts_refuses_a_part_without_a_column(tmp_path):
    d = tmp_path / "ds"
    for k, cols in enumerate(({"y": [0, 1], "s": [0.1, 0.2]}, {"y": [0, 1]})):
        (d / f"k={k}").mkdir(parents=True)
        pq.write_table(pa.table(cols), d / f"k={k}" / "p.parquet")
    F.check_parts(d, ["y", "k"])  # a hive key counts as a column
    with pytest.raises(InputError, match=r"k=1/p\.parquet: column 's' not found in this part of the dataset"):
        F.check_parts(d, ["y", "s"])


def test_read_table_keeps_na_text_in_label_columns(tmp_path):
    pd.DataFrame({"y": ["NA", "None", ""], "s": ["NA", "1", "2"]}).to_csv(tmp_path / "a.csv", index=False)
    df = F.read_table(tmp_path / "a.csv", ["s", "y"], ["s"], ["y"])
    assert V.keys(df["y"]).tolist() == ["NA", "None", None]
    assert np.isnan(V.numeric(df["s"], "a.csv", "s")[0])


# --- row rules -------------------------------------------------------------------------------


def _cfg(tmp_path: Path, **extra):
    pd.DataFrame({"y": [0, 1], "s": [0.1, 0.2]}).to_csv(tmp_path / "a.csv", index=False)
    body = {"title": "t", "label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}], **extra}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return load_config(tmp_path / "c.yaml")[0]


def test_keep_rows_errors_name_the_global_row_or_count_drops(tmp_path):
    bad = np.array([False, True, True])
    with pytest.raises(InputError, match=r"a\.csv: row 12: missing x; fix the data or set 'missing: drop'"):
        V.keep_rows(_cfg(tmp_path), "a.csv", [("missing x", bad)], 9, {})
    counts: dict[str, int] = {}
    keep = V.keep_rows(_cfg(tmp_path, missing="drop"), "a.csv", [("missing x", bad), ("missing z", bad)], 0, counts)
    assert keep.tolist() == [True, False, False] and counts == {"missing x": 2, "missing z": 0}
    assert V.keep_rows(_cfg(tmp_path), "a.csv", [("missing x", ~bad & False)], 0, {}) is None


# --- the id join -----------------------------------------------------------------------------


def _keyed(name: str, ids: list[str], truth: list[bool]) -> A.Keyed:
    return A.Keyed(name, f"{name}.csv", "id", np.array(ids, dtype=object), np.arange(len(ids)), np.array(truth))


def test_join_ids_in_common_order_and_intersect(tmp_path):
    a = _keyed("a", ["1", "2", "3", "4"], [True, False, True, False])
    b = _keyed("b", ["4", "3", "2"], [False, True, False])
    with pytest.raises(
        InputError,
        match=r"a\.csv: model 'a' has 1 id\(s\) not shared by every model \(e\.g\. '1', missing from model 'b'",
    ):
        A.join_ids(_cfg(tmp_path), [a, b])
    j = A.join_ids(_cfg(tmp_path, id_mismatch="intersect"), [a, b])
    assert a.ids[j.take[0]].tolist() == ["2", "3", "4"] and j.left_out == (1, 0) and not j.in_order
    assert [t.tolist() for t in j.take] == [[1, 2, 3], [2, 1, 0]]
    assert [notice_text(w) for w in j.warnings] == ["model 'a': 1 row(s) whose id is not in every model were dropped"]


def test_join_ids_refuses_contradicting_truth_and_duplicates(tmp_path):
    with pytest.raises(InputError, match=r"the label of id '2' differs from model 'a'"):
        A.join_ids(_cfg(tmp_path), [_keyed("a", ["1", "2"], [True, False]), _keyed("b", ["2", "1"], [True, True])])
    with pytest.raises(InputError, match=r"column 'id', row 3: duplicated id '1'"):
        A.join_ids(_cfg(tmp_path), [_keyed("a", ["1", "1"], [True, False])])


# --- validate with a streamed engine -------------------------------------------------------------


def test_validate_honours_engine_stream_and_reads_only_the_first_batch(tmp_path, capsys, monkeypatch):
    """validate loaded every row (927 MB at 10M rows) whatever the engine; stream checks the plan
    and the first batch of inputs above SMALL_INPUT_BYTES: a bad value past it is left to the run."""
    import reportgen.io.files as files_module
    from reportgen import cli

    monkeypatch.setattr(files_module, "SMALL_INPUT_BYTES", 1 << 20)  # the 1.4 MB file below counts as large

    n = 200_000  # past one 1 MB CSV block: the first batch is the first block
    s = np.round(np.random.default_rng(1).random(n), 3).astype(object)
    s[190_000] = "abc"
    pd.DataFrame({"y": np.arange(n) % 2, "s": s}).to_csv(tmp_path / "a.csv", index=False)
    body = {
        "title": "t",
        "label": "y",
        "stream": {"batch_rows": 1000},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({**body, "engine": "stream"}), encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 0
    shown = capsys.readouterr()
    assert "engine: stream" in shown.out + shown.err
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "m.yaml")]) == 2
    assert "row 190002: non-numeric value 'abc'" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_validate_with_a_streamed_engine_applies_every_rule_of_a_run_to_small_inputs(engine, tmp_path, capsys):
    """Small inputs (or files that are one batch) get the run's whole-file rules too: validate
    accepted a file without the positive label, a dataset with a bad row in its second part and
    all-zero weights that the run refused (exit 0 against exit 2)."""
    from reportgen import cli

    pd.DataFrame({"y": [0, 0, 0], "s": [0.1, 0.2, 0.3]}).to_csv(tmp_path / "a.csv", index=False)
    (tmp_path / "ds" / "k=0").mkdir(parents=True)
    (tmp_path / "ds" / "k=1").mkdir()
    pd.DataFrame({"y": [0, 1], "s": [0.1, 0.2]}).to_parquet(tmp_path / "ds" / "k=0" / "p.parquet")
    pd.DataFrame({"y": [0, 1], "s": [0.1, float("nan")]}).to_parquet(tmp_path / "ds" / "k=1" / "p.parquet")
    for file, words in (("a.csv", "no row has the positive label 1"), ("ds", "ds: row 5: missing or non-finite score")):
        body = {"label": "y", "engine": engine, "models": [{"name": "a", "file": file, "score": "s"}]}
        (tmp_path / "c.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
        assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 2
        assert words in capsys.readouterr().err


def test_validate_with_engine_stream_refuses_a_bad_first_batch_and_a_missing_id_column(tmp_path, capsys):
    from reportgen import cli

    pd.DataFrame({"y": [0, 1, 2], "s": [0.1, 0.2, 0.3]}).to_csv(tmp_path / "a.csv", index=False)
    body = {"title": "t", "label": "y", "engine": "stream", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 2
    assert "3 distinct labels" in capsys.readouterr().err
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({**body, "id": "key"}), encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 2
    assert "column 'key' not found" in capsys.readouterr().err


def test_join_ids_text_and_integer_ids_give_the_same_join(tmp_path):
    """Integer ids take an int64 fast path; text ids the string one: same positions, same messages."""
    cfg = _cfg(tmp_path, id_mismatch="intersect")
    for ids_a, ids_b in ((["10", "20", "30"], ["30", "10"]), (["x", "y", "z"], ["z", "x"])):
        j = A.join_ids(cfg, [_keyed("a", ids_a, [True, False, False]), _keyed("b", ids_b, [False, True])])
        assert [t.tolist() for t in j.take] == [[0, 2], [1, 0]]
    with pytest.raises(InputError, match=r"row 4: duplicated id 'y'"):
        A.check_unique(_keyed("a", ["x", "y", "y"], [True] * 3))

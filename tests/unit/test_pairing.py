"""Unit tests of pairing across models: the id join with rows each model dropped, the match by
position under ``missing: drop``, the checks on what an intersection leaves, id keys as text and
the spill that puts each model's rows side by side (:mod:`reportgen.io.align`, :mod:`reportgen.io.pairs`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.config import load_config
from reportgen.errors import InputError
from reportgen.io import align as A
from reportgen.io import validate as V
from reportgen.io.pairs import RowSpill
from reportgen.report.wording import notice_text


def _cfg(tmp_path: Path, **extra):
    body = {"title": "t", "label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}], **extra}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return load_config(tmp_path / "c.yaml")[0]


def _keyed(name: str, ids: list[str], truth: list[bool], lost: list[str] | None = None) -> A.Keyed:
    return A.Keyed(
        name,
        f"{name}.csv",
        "id",
        pa.array(ids, type=pa.string()),
        np.arange(len(ids)),
        np.array(truth),
        None if lost is None else pa.array(lost, type=pa.string()),
    )


def test_ids_a_model_dropped_itself_are_no_mismatch_but_are_left_out_for_every_model(tmp_path):
    """missing: drop with id (default id_mismatch: error) failed on the ids it dropped itself."""
    a = _keyed("a", ["1", "2", "4"], [True, False, False], lost=["3"])
    b = _keyed("b", ["4", "3", "2", "1"], [False, True, False, True])
    j = A.join_ids(_cfg(tmp_path), [a, b])
    assert a.ids.take(j.take[0]).to_pylist() == ["1", "2", "4"]
    assert [t.tolist() for t in j.take] == [[0, 1, 2], [3, 2, 0]]
    assert j.dropped == (("b", A.DROPPED_BY_ANOTHER, 1),) and j.left_out == (0, 1) and not j.warnings


def test_intersect_counts_ids_not_shared_apart_from_rows_dropped_elsewhere(tmp_path):
    a = _keyed("a", ["1", "2", "3", "9"], [True, False, True, False], lost=["5"])
    b = _keyed("b", ["5", "3", "2", "1"], [False, True, False, True])
    j = A.join_ids(_cfg(tmp_path, id_mismatch="intersect"), [a, b])
    assert a.ids.take(j.take[0]).to_pylist() == ["1", "2", "3"]
    assert set(j.dropped) == {("a", A.ID_NOT_SHARED, 1), ("b", A.DROPPED_BY_ANOTHER, 1)}
    assert [notice_text(w) for w in j.warnings] == ["model 'a': 1 row(s) whose id is not in every model were dropped"]


@pytest.mark.parametrize(
    ("ids_b", "truth_b", "words"),
    [
        (["7", "8"], [True, False], "no id is kept by every model ('a', 'b')"),
        (["1", "8"], [True, False], "only 1 id is kept by every model"),
        (
            ["2", "4", "8"],
            [False, False, True],
            "every one of the 2 rows kept by every model ('a', 'b') has the same label (negative)",
        ),
    ],
)
def test_an_intersection_that_leaves_too_little_is_one_line(tmp_path, ids_b, truth_b, words):
    """id_mismatch: intersect with no shared id crashed with exit 1."""
    a = _keyed("a", ["1", "2", "3", "4"], [True, False, True, False])
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        A.join_ids(_cfg(tmp_path, id_mismatch="intersect"), [a, _keyed("b", ids_b, truth_b)])


def test_rows_matched_by_position_drop_a_row_missing_in_any_model():
    kept = [np.array([True, False, True, True, True]), np.array([True, True, True, False, True])]
    index, dropped = A.intersect_positions(["a", "b"], kept, 5)
    assert index.tolist() == [0, -1, 1, -1, 2]
    assert dropped == (("a", A.DROPPED_BY_ANOTHER, 1), ("b", A.DROPPED_BY_ANOTHER, 1))
    assert A.intersect_positions(["a", "b"], [kept[0], kept[0]], 5) == (None, ())


def test_rows_matched_by_position_without_drops_are_all_common_and_need_no_masks(monkeypatch):
    """No model dropped a row: every row is common, answered without n-row masks (at 10M rows
    and three models the masks cost a tenth of a second); with ``always`` the index is whole."""
    names = ["a", "b", "c"]
    monkeypatch.setattr(A, "intersect_positions", lambda *a: pytest.fail("masks built"))
    assert A.common_rows(names, [5, 5, 5], None, [None] * 3, [None, np.array([], dtype=np.int64), None]) == (None, [])
    monkeypatch.undo()
    index, dropped = A.common_rows(names, [5, 5, 5], None, [None] * 3, [None] * 3, always=True)
    assert dropped == [] and [i.tolist() for i in index.values()] == [[0, 1, 2, 3, 4]] * 3
    index, dropped = A.common_rows(names, [5, 5, 5], None, [None] * 3, [None, np.array([1]), None])
    assert index["a"].tolist() == [0, -1, 1, 2, 3]
    assert [d[0] for d in dropped] == ["a", "c"]


def test_class_ids_numbered_apart_are_compared_by_their_keys(tmp_path):
    """The join's multiclass truth is class ids (a byte a row); Dask numbers each dataset's
    classes as it meets them, so two models' ids are compared through their keys."""

    def keyed(name: str, ids: list[str], truth: list[int], classes: tuple[str, ...]) -> A.Keyed:
        rows = np.arange(len(ids), dtype=np.int32)
        return A.Keyed(name, f"{name}.csv", "id", pa.array(ids), rows, np.array(truth, dtype=np.int8), None, classes)

    a = keyed("a", ["1", "2", "3"], [0, 1, 2], ("lo", "mid", "hi"))
    b = keyed("b", ["3", "1", "2"], [0, 1, 2], ("hi", "lo", "mid"))
    j = A.join_ids(_cfg(tmp_path), [a, b])
    assert A.in_ids_of(a, b)[j.take[1]].tolist() == a.truth[j.take[0]].tolist() == [0, 1, 2]
    c = keyed("c", ["3", "1", "2"], [0, 1, 1], ("hi", "lo", "mid"))  # id 2: 'lo' here, 'mid' in a
    with pytest.raises(InputError, match="the label of id '2' differs"):
        A.join_ids(_cfg(tmp_path), [a, c])
    only = keyed("d", ["1", "2"], [0, 0], ("lo", "mid", "hi"))
    words = "every one of the 2 rows kept by every model ('a', 'd') has the same label ('lo')"
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        A.join_ids(_cfg(tmp_path, id_mismatch="intersect"), [keyed("a", ["1", "2", "9"], [0, 0, 2], a.classes), only])


def test_join_index_maps_file_rows_to_the_common_order(tmp_path):
    a = A.Keyed("a", "a.csv", "id", pa.array(["x", "y", "z"]), np.array([0, 2, 5]), np.array([True, False, True]))
    b = A.Keyed("b", "b.csv", "id", pa.array(["z", "x", "y"]), np.array([1, 2, 3]), np.array([True, True, False]))
    j = A.join_ids(_cfg(tmp_path), [a, b])
    assert j.index(0, a.rows, 6).tolist() == [0, -1, 1, -1, -1, 2]
    assert j.index(1, b.rows, 4).tolist() == [-1, 2, 0, 1]


def test_id_keys_are_text_as_written_numbers_by_their_digits():
    """Leading zeros keep (007 is not 7); integer and integral float columns give their digits, and so
    does text that is a number without zero padding (1.0 and 1.0e3 are 1 and 1000, as the floats
    are; +7 is 7, -0.0 is 0); a padded 007.0 only loses its fraction (007)."""
    assert V.id_key_list(
        pa.array(
            [
                " 007",
                "7",
                "1.0",
                "",
                "nan",
                None,
                "A-1",
                "12.00",
                "007.0",
                "1.5",
                "1.0e3",
                "+7",
                "-0.0",
                "01e3",
                "12345678901234567891",
            ]
        )
    ).tolist() == [
        "007",
        "7",
        "1",
        None,
        None,
        None,
        "A-1",
        "12",
        "007",
        "1.5",
        "1000",
        "7",
        "0",
        "01e3",
        "12345678901234567891",
    ]
    # numbers a float column cannot hold stay text (not missing, not the id 0)
    assert V.id_key_list(pa.array(["1e400", "1e-400", "0e5", "-.0"])).tolist() == ["1e400", "1e-400", "0", "0"]
    assert V.id_key_list(pa.array([100282, None])).tolist() == ["100282", None]
    assert V.id_key_list(pa.array([7.0, 2.5])).tolist() == ["7", "2.5"]
    assert V.id_keys(pa.array(["a"], type=pa.large_string())).type == pa.string()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 4), st.integers(1, 17), st.integers(0, 2**31 - 1))
def test_spill_gives_every_models_rows_back_in_common_order(n, k, chunk, seed):
    """Whatever order and batch sizes the rows come in, each range holds every model's records in
    common order (an independent oracle: the records sorted by common index)."""
    rng = np.random.default_rng(seed)
    values = [rng.integers(0, 1000, n) for _ in range(k)]
    with RowSpill(k, n, np.dtype(np.int64), chunk=chunk) as spill:
        for m in range(k):
            order = rng.permutation(n)
            for part in np.array_split(order, rng.integers(1, 5)):
                spill.add(m, part, values[m][part])
        got = [[] for _ in range(k)]
        for lo, hi, recs in spill.chunks():
            assert hi - lo <= chunk
            for m in range(k):
                got[m].append(recs[m])
        folder = Path(spill._tmp.name)
    assert [np.concatenate(g).tolist() for g in got] == [v.tolist() for v in values]
    assert not folder.exists()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 4), st.integers(1, 17), st.integers(0, 2**31 - 1))
def test_a_held_spill_gives_what_the_spilled_one_gives(n, k, chunk, seed):
    """``held`` (engine: memory) places the records in memory: the same ranges, the same records
    in common order as the files give, and no temporary folder."""
    rng = np.random.default_rng(seed)
    values = [rng.integers(0, 1000, n) for _ in range(k)]
    orders = [[part for part in np.array_split(rng.permutation(n), rng.integers(1, 5))] for _ in range(k)]
    got = {}
    for held in (False, True):
        with RowSpill(k, n, np.dtype(np.int64), chunk=chunk, held=held) as spill:
            for m in range(k):
                for part in orders[m]:
                    spill.add(m, part, values[m][part])
            got[held] = [(lo, hi, [r.tolist() for r in recs]) for lo, hi, recs in spill.chunks()]
            assert (spill._tmp is None) == held
    assert got[True] == got[False]


def test_a_held_spill_refuses_a_row_given_twice_or_missing():
    with RowSpill(2, 4, np.dtype(np.int64), held=True) as spill:
        spill.add(0, np.array([0, 1, 2, 3]), np.arange(4))
        with pytest.raises(AssertionError, match="added twice"):
            spill.add(0, np.array([2]), np.array([9]))
        spill.add(1, np.array([0, 1, 3]), np.arange(3))
        with pytest.raises(AssertionError, match="common row 2 has no record of model 1"):
            list(spill.chunks())


def test_integer_id_codes_name_each_id_once_whatever_its_model_or_order():
    a = _keyed("a", ["30", "7", "120", "-4"], [True, False, True, False])
    b = _keyed("b", ["120", "30", "8", "7"], [True, True, False, False])
    (ca, cb), distinct = A.id_codes([a.ids, b.ids])
    assert distinct == 5 and ca.dtype == cb.dtype == np.int32
    assert ca.tolist() == [3, 1, 4, 0] and cb.tolist() == [4, 3, 2, 1]  # ranks: -4, 7, 8, 30, 120


# --- integer ids held as int64: the same join as their keys as text ---------------------------


def test_integer_id_columns_are_held_as_int64_and_others_as_keys():
    """8 bytes an id: integer columns as int64 (nulls kept: missing), uint64 and text as keys."""
    for t in (pa.int8(), pa.int32(), pa.uint32(), pa.int64()):
        held = V.held_ids(pa.array([7, None, -1 if t != pa.uint32() else 1], type=t))
        assert held.type == pa.int64() and held.null_count == 1
    assert V.held_ids(pa.array([2**64 - 1], type=pa.uint64())).to_pylist() == [str(2**64 - 1)]
    assert V.held_ids(pa.array(["007", " 7", None])).to_pylist() == ["007", "7", None]
    assert V.held_ids(pa.array([7.0, 2.5])).to_pylist() == ["7", "2.5"]


def _pieces(ids: list, kind: str):
    """Ids as a model holds them: int64 in batches of two ("int"), or their keys ("str": the
    string path, the oracle; "text": a CSV's text, keyed)."""
    if kind == "int":
        return A.concat_ids([pa.array(ids[i : i + 2], type=pa.int64()) for i in range(0, len(ids), 2)])
    if kind == "str":
        return pa.array([str(i) for i in ids], type=pa.string())
    return V.id_keys(pa.array([str(i) for i in ids], type=pa.string()))


def _outcome(cfg, models: list[tuple[list, list, list | None, str]]):
    """The join's fields, or its error's text, of models given as (ids, truth, lost, kind)."""
    keyed = [
        A.Keyed(
            f"m{m}",
            f"m{m}.csv",
            "id",
            _pieces(ids, kind),
            np.arange(len(ids)) * 2,
            np.array(truth),
            None if lost is None else _pieces(lost, kind),
        )
        for m, (ids, truth, lost, kind) in enumerate(models)
    ]
    try:
        j = A.join_ids(cfg, keyed)
    except InputError as e:
        return str(e)
    return [t.tolist() for t in j.take], j.left_out, j.warnings, j.in_order, j.dropped


def _as_strings(models):
    return [(ids, truth, lost, "str" if kind == "int" else kind) for ids, truth, lost, kind in models]


BIG = 1234567890123456789  # 19 digits: past the 18 digits canonical text is parsed to


@pytest.mark.parametrize("mismatch", ["error", "intersect"])
@pytest.mark.parametrize(
    ("models", "words"),
    [
        ([([7, 8, 9], [1, 0, 1], None, "int"), (["9", "007", "8", "7.0"], [1, 0, 0, 1], None, "text")], "'007'"),
        ([([7, 8, 9], [1, 0, 1], None, "int"), (["+9", " 8", "7"], [1, 0, 1], None, "text")], None),
        ([([BIG, -5, 0], [1, 0, 1], None, "int"), ([str(BIG), "0", "-5"], [1, 1, 0], None, "text")], None),
        ([([BIG, -5, 3], [1, 0, 1], None, "int"), ([BIG, -5, 6, 5], [1, 0, 1, 0], None, "int")], "'3'"),
        ([([5, 6, 1, 2, 3], [1, 0, 1, 0, 1], None, "int"), ([1, 2, 3], [1, 0, 1], None, "text")], "'5', '6'"),
        ([([1, 2, 4], [1, 0, 0], [3], "int"), ([4, 3, 2, 1], [0, 1, 0, 1], None, "int")], None),
        ([([1, 2, 3, 9], [1, 0, 1, 0], [5], "int"), (["5", "3", "2", "1"], [0, 1, 0, 1], None, "text")], "'9'"),
        (
            [([1, 2, 3], [1, 0, 1], [], "int"), ([1, 2, 3], [1, 0, 1], [], "int"), ([1, 2, 3], [1, 0, 1], None, "int")],
            None,
        ),
        ([([1, 2, 3], [1, 0, 1], None, "int"), ([3, 2, 1], [1, 1, 1], None, "int")], "label of id '2'"),
        ([([5, -3, 5], [1, 0, 1], None, "int"), ([5, -3], [1, 0], None, "int")], "duplicated id '5'"),
        ([([10, 20], [1, 0], None, "int"), (["20", "010", "10"], [0, 1, 1], None, "text")], "'010'"),
        ([([], [], None, "int"), (["1"], [1], None, "text")], None),
    ],
)
def test_integer_ids_join_as_their_keys_as_text_do(tmp_path, models, words, mismatch):
    """int64 ids (Parquet integers) give the join, the warnings and the errors, byte for byte,
    that the same ids as their keys (text, the string path) give, alone or beside a CSV's text."""
    cfg = _cfg(tmp_path, id_mismatch=mismatch)
    got, want = _outcome(cfg, models), _outcome(cfg, _as_strings(models))
    assert got == want
    if words is not None and isinstance(got, str):
        assert words in got


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(-50, 50) | st.sampled_from([BIG, -BIG, 2**63 - 1]), max_size=12),
            st.lists(st.integers(-50, 50), max_size=3) | st.none(),
            st.sampled_from(["int", "str"]),
        ),
        min_size=2,
        max_size=3,
    ),
    st.sampled_from(["error", "intersect"]),
)
def test_any_mix_of_integer_and_text_ids_joins_as_the_text_alone(tmp_path_factory, models, mismatch):
    """Hypothesis: ids, lost ids and repeats drawn at random; int64 or text per model."""
    cfg = _cfg(tmp_path_factory.mktemp("c"), id_mismatch=mismatch)
    given_ = [(ids, [i % 3 == 0 for i in ids], lost, kind) for ids, lost, kind in models]
    assert _outcome(cfg, given_) == _outcome(cfg, _as_strings(given_))

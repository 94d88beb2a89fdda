"""Which of several row faults is reported (:class:`reportgen.io.validate.Faults`,
:func:`~reportgen.io.validate.third_label`): hand-made cases; the engines' agreement is in
tests/parity/test_bad_input_parity.py."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.io import validate as V


def test_the_earliest_row_wins_whatever_the_order_rules_are_added():
    f = V.Faults()
    f.add(40, "late rule, row 40")
    f.add(7, "later rule, row 7")
    f.add(9, "last rule, row 9")
    with pytest.raises(V.RowFault, match="later rule, row 7") as got:
        f.check()
    assert got.value.row == 7


def test_on_one_row_the_rule_added_first_wins():
    f = V.Faults()
    f.add(5, "first rule")
    f.add(5, "second rule")
    with pytest.raises(V.RowFault, match="first rule"):
        f.check()


def test_no_fault_raises_nothing_and_earliest_takes_the_first_listed_on_a_tie():
    V.Faults().check()
    V.earliest([None, None])
    with pytest.raises(V.RowFault, match="model a"):
        V.earliest([None, V.RowFault("model a", 3), V.RowFault("model b", 3), V.RowFault("model c", 1 + 2)])
    with pytest.raises(V.RowFault, match="date"):
        V.earliest([V.RowFault("date", 2), V.RowFault("model a", 3)])


def test_a_fault_travels_pickled_with_its_row():
    import pickle

    back = pickle.loads(pickle.dumps(V.RowFault("x", 12)))
    assert isinstance(back, V.RowFault) and back.row == 12 and str(back) == "x"


@pytest.mark.parametrize(
    ("known", "labels", "keep", "row", "third"),
    [
        (set(), ["0", "1", "1", "7", "8"], None, 3, "7"),  # the third distinct label, not the fourth
        ({"0", "1"}, ["1", "2"], None, 1, "2"),  # known from earlier batches
        ({"0"}, ["0", None, "1", "0", "5"], None, 4, "5"),  # missing labels are no label
        (set(), ["0", "1", "7", "1", "9"], [True, True, False, True, True], 4, "9"),  # a dropped row is no row
    ],
)
def test_the_third_label_names_its_row(known, labels, keep, row, third):
    keys = np.array(labels, dtype=object)
    rows = np.arange(len(labels)) if keep is None else np.flatnonzero(keep)
    with pytest.raises(V.RowFault) as got:
        V.third_label("f.csv", "y", known, keys, rows, 100)
    assert got.value.row == 100 + row
    assert f"f.csv: column 'y', row {100 + row + V.HEADER_ROWS}: a third distinct label {third!r}" in str(got.value)


def test_two_labels_are_no_fault():
    V.third_label("f.csv", "y", {"0"}, np.array(["0", "1", None, "1"], dtype=object), np.arange(4), 0)

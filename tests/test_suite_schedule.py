"""The order pytest-xdist hands test files out in (tests/conftest.py): the costliest first, the rest as xdist would."""

from pathlib import Path

from conftest import DISPATCHED_FIRST, schedule_order

TESTS = Path(__file__).resolve().parent


def test_every_file_dispatched_first_exists_once():
    missing = [name for name in DISPATCHED_FIRST if not (TESTS / name).is_file()]
    assert not missing, f"renamed or removed: {missing}; update conftest.DISPATCHED_FIRST"
    assert len(set(DISPATCHED_FIRST)) == len(DISPATCHED_FIRST)


def test_listed_files_first_in_their_order_then_most_tests_first_ties_in_collection_order():
    first, second = DISPATCHED_FIRST[0], DISPATCHED_FIRST[1]
    files = ["test_a.py", "test_b.py", "test_b.py", second, "test_c.py", "test_c.py", first, "test_d.py"]
    assert schedule_order(files) == [first, second, "test_b.py", "test_c.py", "test_a.py", "test_d.py"]
    assert schedule_order(["test_a.py"]) == ["test_a.py"]  # a run without the listed files

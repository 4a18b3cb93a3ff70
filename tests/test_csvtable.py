"""The columnar CSV writer against the standard library's csv.writer: the same bytes for every kind of column."""

import csv

import numpy as np
import pytest

from rcpstab.runtime.csvtable import cell, write_csv_table


def _reference(path, columns):
    names = list(columns)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in zip(*(columns[n] for n in names)):
            writer.writerow([cell(v) for v in row])


def _tables():
    rng = np.random.default_rng(7)
    n = 500
    floats = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)
    floats[::17] = np.nan
    floats[::23] = np.inf
    floats[::29] = -np.inf
    floats[::31] = 0.0
    floats[::37] = -0.0
    words = np.array(["stable", "a,b", 'say "hi"', "two\nlines", "cr\rx", "", " padded ", None, 3, 2.5, np.nan], dtype=object)
    yield {
        "alpha": floats,
        "n": rng.integers(-(10**12), 10**12, n),
        "u": rng.integers(0, 9, n).astype(np.uint8),
        "flag": rng.random(n) < 0.5,
        "f32": rng.normal(size=n).astype(np.float32),
        "verdict": words[rng.integers(0, words.size, n)],
        "plain": [1, 2.0, True, "x"] * (n // 4),
    }
    aa, bb = np.meshgrid(np.arange(1, 41) * 0.05, np.arange(1, 31) * 0.1)  # repeated values: formatted once each
    signed = np.where(rng.random(aa.size) < 0.5, 0.0, -0.0)  # equal, printed differently
    signed[::5] = np.nan
    yield {
        "alpha": aa.ravel(),
        "beta": bb.ravel(),
        "z": signed,
        "roots": rng.integers(-1, 3, aa.size),
        "f32": np.repeat(np.float32([0.1, 0.2]), aa.size // 2),
    }
    yield {"only": np.array(["", "a", ""], dtype=object)}  # one column: empty fields are quoted
    yield {"only": np.array([1.0, np.nan, 2.0])}
    yield {"x,y": np.arange(3), 'q"': np.arange(3.0)}  # header names that need quoting
    yield {"long": np.arange(5), "short": np.arange(3)}  # rows stop at the shortest column
    yield {"empty": np.zeros(0), "also": np.zeros(0, int)}
    yield {}


@pytest.mark.parametrize("columns", list(_tables()))
def test_same_bytes_as_csv_writer(tmp_path, columns):
    fast, slow = tmp_path / "fast.csv", tmp_path / "slow.csv"
    write_csv_table(fast, columns)
    _reference(slow, columns)
    assert fast.read_bytes() == slow.read_bytes()


def test_region_map_table_round_trips(tmp_path):
    from rcpstab.linear.exact import exact_region

    region = exact_region("rcp", np.linspace(0.1, 1.9, 7), np.linspace(0.05, 0.95, 5), crosscheck=False)
    path = tmp_path / "map.csv"
    region.to_csv(path)
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(region.table)
    assert [float(r[0]) for r in rows[1:]] == region.table["alpha"].tolist()
    assert [int(r[2]) for r in rows[1:]] == region.stable.ravel().astype(int).tolist()


def test_chunks_do_not_change_the_bytes(tmp_path, monkeypatch):
    from rcpstab.runtime import csvtable

    columns = next(_tables())
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    write_csv_table(whole, columns)
    monkeypatch.setattr(csvtable, "CHUNK_ROWS", 7)  # 500 rows: 72 chunks, the last one short
    write_csv_table(chunked, columns)
    assert whole.read_bytes() == chunked.read_bytes()

"""`rcpstab fct`: the JSON contract, outputs, one-line summary and exit code 2 on bad input."""

from __future__ import annotations

import csv
import json

import pytest

from rcpstab.cli import main

BASE = ["fct", "--alpha", "0.4", "--beta", "0.3", "--C", "100e6", "--rtt", "0.05", "--load", "0.6", "--flows", "400"]


def test_json_has_the_contract_fields_and_is_strict(capsys):
    assert main(BASE + ["--json", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert {"bins", "utilization", "loss_probability", "flows_completed"} <= set(data)
    assert data["flows_completed"] == 400 == sum(b["flows"] for b in data["bins"])
    for b in data["bins"]:
        assert {"size_lo_pkts", "size_hi_pkts", "flows", "afct_s", "max_fct_s", "ps_afct_s"} <= set(b)
        assert b["size_lo_pkts"] <= b["size_hi_pkts"] and b["afct_s"] <= b["max_fct_s"]
        expected = 1.5 * 0.05  # eq. 4.1's first term; the rest is positive
        assert b["ps_afct_s"] > expected and b["afct_s"] >= b["lower_bound_s"]
    assert 0 < data["utilization"] < 1 and 0 <= data["loss_probability"] < 1


def test_pareto_arrivals_leave_eq_4_1_null_with_a_reason(capsys):
    assert main(BASE + ["--json", "--arrivals", "pareto:shape=1.5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(b["ps_afct_s"] is None for b in data["bins"]) and "ps_note" in data
    assert all(b["ps_same_arrivals_afct_s"] > 0 for b in data["bins"])


def test_summary_csv_and_figure(tmp_path, capsys):
    fig, table = tmp_path / "fig41.png", tmp_path / "bins.csv"
    assert main(BASE + ["--out", str(fig), "--csv", str(table)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("fct: RCP (0.4, 0.3)") and "\n" not in line and "AFCT/PS" in line
    assert fig.stat().st_size > 10_000
    rows = list(csv.DictReader(table.open()))
    assert rows and {"size_lo_pkts", "afct_s", "ps_afct_s", "max_fct_s"} <= set(rows[0])
    assert main(BASE + ["--quiet"]) == 0 and capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "bad",
    [
        ["--load", "1"],
        ["--load", "1.5"],
        ["--load", "0"],
        ["--load", "-0.3"],
        ["--sizes", "pareto:mean=-25"],
        ["--sizes", "lognormal:mean=3"],
        ["--sizes", "pareto:mean=25,shape"],
        ["--sizes", "pareto;mean=25"],
        ["--sizes", "fixed:size=-2"],
        ["--flows", "0"],
        ["--buffer-bdp", "-1"],
        ["--arrivals", "bursty"],
        ["--workers", "0"],
        ["--seed", "-4"],
        ["--out", "/nonexistent/x.png"],
        ["--out", "x.txt"],
    ],
)
def test_bad_input_exits_2_with_one_line(bad, capsys):
    args = BASE + bad if bad[0] not in BASE else [a for a in BASE]
    if bad[0] in BASE:
        i = args.index(bad[0])
        args[i + 1] = bad[1]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err

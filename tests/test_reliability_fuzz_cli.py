"""Property: any command line of any subcommand exits 0, 1, 2 or 130 -- never a traceback, never an
"internal error", within a time bound and with bounded memory (issue 18, acceptance).

Argument vectors mix cheap valid values with hostile ones (empty, NaN, inf, 1e308, 2**64 + 1500,
negative, text, reversed ranges) and stray tokens; valid values are kept cheap so every run is
short and a slow run means a hang. The fast test draws a few examples per subcommand; the slow
one many more.
"""

import atexit
import json
import os
import re
import resource
import shutil
import signal
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcpstab.cli import main

TIME_LIMIT_S = 60
MEMORY_LIMIT_KB = 2_500_000  # peak RSS of the test process
HOSTILE = [
    "",
    " ",
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "-1e308",
    "1e6",
    "18446744073709553116",
    "abc",
    "1:2:0",
    "2:1:0.1",
    "0.5:",
    "1e-320",
    "0x10",
    "--json",
    "-",
    "é",
    "1:1e6:1e-6",
]


def values(*cheap):
    return st.sampled_from(list(cheap)) | st.sampled_from(HOSTILE) | st.text(max_size=4)


def option(name, *cheap):
    return st.tuples(st.just(name), values(*cheap))


def flag(name):
    return st.just((name,))


def argv_for(command, required, optional):
    chosen = st.lists(st.one_of(*optional), max_size=4) if optional else st.just([])
    stray = st.lists(st.sampled_from(HOSTILE + ["--bogus", "--alpha", "-h"]), max_size=1)
    return st.tuples(st.tuples(*required) if required else st.just(()), chosen, stray).map(
        lambda parts: [command, *(t for group in parts[0] for t in group), *(t for group in parts[1] for t in group), *parts[2]]
    )


MODELS = option("--model", "rcp", "switched", "linear", "xcp", "rcpac", "tcp")
GAINS = [option("--alpha", "0.4", "0.5"), option("--beta", "0.2", "0.5")]


def _config_files(tmp):
    files = {"missing": os.path.join(tmp, "missing.toml"), "folder": tmp}
    contents = {
        "empty": b"",
        "nested": b"x = " + b"[" * 5000 + b"]" * 5000,
        "bad": b"[router]\nALPHA = -1\nBETA = 0.2\n",
        "text": b"\xff\xfe not utf-8",
        "nan": b"[router]\nALPHA = nan\nBETA = 0.2\n",
        "typo": b"[router]\nALPHA = 0.4\nBETTA = 0.2\n",
        "huge": b"[router]\nALPHA = 0.4\nBETA = 0.2\n[envelope]\nflows = [1, 1e300]\n",
    }
    for name, data in contents.items():
        path = os.path.join(tmp, f"{name}.toml")
        with open(path, "wb") as fh:
            fh.write(data)
        files[name] = path
    return files


CONFIG_DIR = tempfile.mkdtemp(prefix="rcpstab-fuzz-configs-")
atexit.register(shutil.rmtree, CONFIG_DIR, True)
CONFIGS = _config_files(CONFIG_DIR)

COMMANDS = {
    "margins": argv_for("margins", GAINS, [MODELS, flag("--json")]),
    "map": argv_for(
        "map",
        GAINS,
        [
            option("--method", "exact", "bode", "nyquist", "phaseplane"),
            MODELS,
            option("--pade", "2", "30"),
            option("--T", "0.01"),
            option("--d0", "0.2"),
            option("--N", "10"),
            option("--C", "1e8"),
            option("--workers", "1", "1000"),
            option("--scenario", "fig5.3"),
            option("--out", "/nonexistent/x.png", "x.txt"),
            flag("--json"),
        ],
    ),
    "linearize": argv_for("linearize", [], [MODELS, flag("--latex")]),
    "portrait": argv_for(
        "portrait",
        GAINS,
        [
            MODELS,
            option("--rtts", "5", "20"),
            option("--T", "0.01"),
            option("--d0", "0.2"),
            option("--N", "10"),
            option("--C", "1e8"),
        ],
    ),
    "convergence": argv_for(
        "convergence",
        GAINS,
        [
            option("--start", "appE", "half-load"),
            option("--N", "10"),
            option("--checkpoint", "/dev/full", "/nonexistent/c"),
            flag("--json"),
        ],
    ),
    "check": argv_for(
        "check",
        [st.tuples(st.sampled_from(sorted(CONFIGS.values())))],
        [flag("--json"), option("--samples", "0", "1"), option("--workers", "1"), option("--criterion", "all", "linear")],
    ),
    "cosim": argv_for(
        "cosim",
        GAINS + [option("--t-end", "5", "8")],
        [
            option("--model", "rcp", "xcp"),
            option("--rtt", "0.1", "0.05"),
            option("--buffer", "15000"),
            option("--seed", "0", "3"),
            option("--transient-rtt", "5"),
            flag("--json"),
            option("--scenario", "fig5.3", "testbed", "nope"),
        ],
    ),
    "network": argv_for("network", GAINS + [option("--t-end", "1", "2")], [flag("--json"), option("--scenario", "fig5.7", "x")]),
    # issue 27: the commands and options the first fuzzing did not reach
    "fct": argv_for(
        "fct",
        GAINS
        + [
            option("--C", "10e6", "1e13", "1e3"),
            option("--rtt", "0.1"),
            option("--load", "0.5", "1e-12", "1e-5"),
            option("--flows", "200", "1", "1000000000"),
        ],
        [
            option("--buffer-bdp", "1", "1e30", "1e308"),
            option("--replications", "1", "2", "200"),
            option("--sizes", "fixed:size=10", "fixed:size=1e9", "exponential:mean=5"),
            option("--arrivals", "poisson", "pareto:shape=1.5"),
            option("--eta", "1", "0.9"),
            option("--seed", "0"),
            flag("--json"),
        ],
    ),
    "flash-crowd": argv_for(
        "cosim",
        GAINS + [option("--scenario", "flash-crowd")],
        [
            option("--C", "1e8", "1e11", "1e3"),
            option("--N", "2", "1000000"),
            option("--rtt", "0.05"),
            option("--buffer", "1", "1e30"),
            flag("--json"),
        ],
    ),
    "bifurcation": argv_for(
        "bifurcation",
        [option("--alpha", "1.2:1.3:0.1", "1.2"), option("--beta", "0.3", "0.3,0.3")],
        [
            option("--rtts", "20", "1e-320"),
            option("--C", "1e8"),
            option("--N", "10"),
            option("--T", "0.01"),
            option("--d0", "0.2"),
            flag("--json"),
        ],
    ),
    "bode": argv_for("bode", GAINS, [MODELS, option("--pade", "2"), flag("--json")]),
    "nyquist": argv_for("nyquist", GAINS, [MODELS, option("--pade", "2"), flag("--json")]),
    "theorem1": argv_for("theorem1", [], [flag("--details"), flag("--json")]),
}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_once(argv, capsys):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    started = time.time()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        code = exc.code
    except Hang:
        pytest.fail(f"{argv}: no answer within {TIME_LIMIT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 130), (argv, code, err)
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    if code == 2:
        assert err.strip(), argv  # a refusal says why
        # one line (argparse's usage line aside; a warning has its own line)
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1, (argv, err)
    if code == 0:  # issue 27: no NaN with exit 0, in the summary or the JSON
        assert not re.search(r"\bnan\b", out, re.IGNORECASE), (argv, out[-500:])
        if "--json" in argv and out.strip().startswith(("{", "[")):
            json.loads(out, parse_constant=lambda c: pytest.fail(f"{argv}: non-strict JSON constant {c}"))
    assert time.time() - started < TIME_LIMIT_S
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MEMORY_LIMIT_KB, argv


FAST = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SLOW = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_any_command_line_exits_cleanly(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outputs named by the fuzzer (--out é, --checkpoint é) land here, not in the repo

    @FAST
    @given(COMMANDS[command])
    def check(argv):
        run_once(argv, capsys)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_any_command_line_exits_cleanly_many_examples(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    @SLOW
    @given(COMMANDS[command])
    def check(argv):
        run_once(argv, capsys)

    check()

"""A bundled model's cached derivations are used without SymPy, and give the numbers deriving gives."""

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import subprocess_env

from rcpstab.models import MODELS, get_model
from rcpstab.models.lazy import MODEL_SOURCES, BundledModel

TESTS = Path(__file__).resolve().parent

# runs a command in this process; reports which heavy modules it loaded and the code SymPy generated for it
# (lambdify calls, C printing), counted by wrapping those two once the command itself imports them: the probe
# imports no SymPy, so "sympy" among the loaded modules means the command loaded it
PROBE = """
import importlib.abc, importlib.machinery, json, runpy, sys
calls = {"lambdify": 0, "c_printer": 0}


def count(module):
    if module.__name__ == "sympy":
        lambdify = module.lambdify

        def counted(*args, **kwargs):
            calls["lambdify"] += 1
            return lambdify(*args, **kwargs)

        module.lambdify = counted
    else:
        doprint = module.C99CodePrinter.doprint

        def counted_doprint(self, *args, **kwargs):
            calls["c_printer"] += 1
            return doprint(self, *args, **kwargs)

        module.C99CodePrinter.doprint = counted_doprint


class Counting(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in ("sympy", "sympy.printing.c"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_then_count(module):
            run(module)
            count(module)

        spec.loader.exec_module = exec_then_count
        return spec


sys.meta_path.insert(0, Counting())
sys.argv = ["rcpstab", *json.loads(sys.argv[1])]
try:
    runpy.run_module("rcpstab", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = ("sympy", "scipy.optimize", "scipy.signal", "scipy.integrate")
print(json.dumps([sorted(m for m in sys.modules if m in heavy), calls]))
"""
PORTRAIT = ["portrait", "--alpha", "1.4", "--beta", "0.8", "--rtts", "30", "--out", "p.png", "--csv", "p.csv"]


# Each job in a fresh fork of one process that has imported NumPy and nothing of rcpstab or of the packages
# the probes look for: the interpreter's start-up and NumPy's import (~0.3 s of CPU) once, not once per job.
# A job runs its code as ``python -c code *argv`` would, in its folder with its environment variables added,
# printing to its own file; the parent prints each child's exit status. A child never returns to the loop.
FORK_PER_JOB = """
import json, os, sys, traceback
import numpy
assert not any(m.startswith(("rcpstab", "sympy", "mpmath", "scipy", "matplotlib")) for m in sys.modules)
for code, argv, cwd, env, out in json.loads(sys.argv[1]):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
            os.chdir(cwd)
            os.environ.update(env)
            sys.argv = ["-c", *argv]
            exec(code, {"__name__": "__main__"})
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


def _forked(jobs, folder):
    """What each job ``(code, argv, cwd, env)`` printed, run in order by :data:`FORK_PER_JOB`."""
    outs = [folder / f"job{i}.out" for i in range(len(jobs))]
    given = [[code, argv, str(cwd), env, str(out)] for (code, argv, cwd, env), out in zip(jobs, outs)]
    env = subprocess_env(MPLBACKEND="agg")
    done = subprocess.run(
        [sys.executable, "-c", FORK_PER_JOB, json.dumps(given)], env=env, cwd=TESTS, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.split() == ["0"] * len(jobs), done.stdout + done.stderr
    return [out.read_text() for out in outs]


def _probed(printed):
    """The modules, generated code and output of one PROBE run, from what it printed."""
    lines = printed.strip().splitlines()
    loaded, calls = json.loads(lines[-1])
    return loaded, calls, "\n".join(lines[:-1])


@pytest.fixture(scope="module")
def rcp_kernel():
    """The RCP phase-plane kernel's library file, as this process loads it (built once, else from its cache).

    The cold runs start from a cache holding this compiled library and no derivation: what they test is
    deriving with SymPy, and the portrait's and the fluid twin's cold runs would each spend ~4.5 s of gcc
    compiling this same kernel again (a library is keyed by its C source: the derived source must match it
    to the byte, or the run compiles its own). A CompiledModel of its own, not compile_model's: this
    process's cache of compiled models stays as it was.
    """
    from rcpstab.phaseplane.compiled import CompiledModel

    return Path(CompiledModel(get_model("rcp")).kernel._name)


COMMANDS = [
    (["margins", "--alpha", "0.4", "--beta", "0.2", "--json"], []),
    (
        ["map", "--method", "exact", "--alpha", "0.02:1:0.02", "--beta", "0.02:1:0.02", "--out", "x.png", "--csv", "x.csv"],
        ["x.csv", "x.png"],
    ),
    (PORTRAIT, ["p.csv", "p.png"]),
    # the fluid twin's flow schedule asks the model for its number of flows (ParameterTable.flows)
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--t-end", "4", "--csv", "c.csv"], ["c.csv"]),
]
# the packet simulator's protocols are registered by name: asking a protocol file for its PACKET_PROTOCOL
# (models.plugins) must not build a ModelSpec, so an empty cache stays empty
FCT = ["fct", "--alpha", "0.4", "--beta", "0.2", "--C", "1e7", "--d0", "0.1", "--load", "0.8", "--flows", "40"]
FCT += ["--protocol", "rcp", "--json"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, rcp_kernel):
    """argv -> (folder, [what PROBE gave]): each of COMMANDS run twice, on a cache of no derivation (it starts
    with :func:`rcp_kernel`'s compiled library) and then on the cache it filled, each in its own folder under
    ``folder``; FCT once, on an empty cache. Finished processes, so no test can change them.
    """
    jobs, folders = [], {}
    for argv, names in [*((argv, ("first", "second")) for argv, _ in COMMANDS), (FCT, ("first",))]:
        root = folders[tuple(argv)] = tmp_path_factory.mktemp("lazy")
        if argv is not FCT:
            (root / "cache").mkdir()
            shutil.copy(rcp_kernel, root / "cache")
        for folder in names:
            (root / folder).mkdir()
            jobs.append((PROBE, [json.dumps(argv)], root / folder, {"RCPSTAB_CACHE_DIR": str(root / "cache")}))
    printed = iter(_forked(jobs, tmp_path_factory.mktemp("jobs")))
    return {key: (root, [_probed(next(printed)) for _ in range(1 if key == tuple(FCT) else 2)]) for key, root in folders.items()}


@pytest.mark.parametrize("argv, outputs", COMMANDS)
def test_a_cached_command_imports_no_sympy_and_prints_what_deriving_printed(runs, rcp_kernel, argv, outputs):
    root, ((loaded, _, printed), (cached, _, printed_again)) = runs[tuple(argv)]
    assert "sympy" in loaded  # an empty cache: derived with SymPy
    assert cached == []  # the same command, derivations read from disk
    assert printed_again == printed
    for name in outputs:
        assert (root / "first" / name).read_bytes() == (root / "second" / name).read_bytes(), name
    # deriving afresh gave the kernel source this process has (no library of another source was built)
    assert [p.name for p in (root / "cache").glob("*.so")] == [rcp_kernel.name]


def test_fct_on_a_bundled_protocol_derives_no_model_and_imports_no_sympy(runs):
    root, ((loaded, _, printed),) = runs[tuple(FCT)]
    assert loaded == []
    assert json.loads(printed)["protocols"]["rcp"]["unfinished"] == 0
    cache = root / "cache"
    assert not cache.exists() or not any(cache.iterdir())


# which of the heavy packages importing one module loads (in a fresh fork: FORK_PER_JOB)
IMPORT_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
heavy = ("sympy", "mpmath", "scipy.optimize", "scipy.signal", "scipy.integrate", "scipy.special", "scipy.stats", "matplotlib")
print(json.dumps(sorted(m for m in sys.modules if m in heavy)))
"""


# a command's module -> the heavy packages importing it may load
IMPORTED = {
    "rcpstab.fct": set(),  # scipy.special's zeta once a Pareto law's mean is asked
    "rcpstab.network": set(),
    "rcpstab.cosim.packet_vs_fluid": set(),
    "rcpstab.check.checks": {"scipy.special"},  # the packet verdicts' noise multiple (ndtri) at import
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """module -> the heavy packages importing it loaded, each in a fresh fork (:data:`FORK_PER_JOB`)."""
    jobs = [(IMPORT_PROBE, [module], TESTS, {}) for module in IMPORTED]
    return dict(zip(IMPORTED, map(json.loads, _forked(jobs, tmp_path_factory.mktemp("imports")))))


@pytest.mark.parametrize("module, allowed", IMPORTED.items())
def test_importing_a_command_s_modules_loads_neither_sympy_nor_scipy_stats(module, allowed, imported):
    assert set(imported[module]) <= allowed, module


def test_the_model_sources_cover_every_module_a_bundled_model_is_built_from():
    # the cache keys a bundled model by these files' source instead of its repr: a file its expressions
    # depend on but the key does not read would let a changed model read a stale derivation
    import rcpstab

    package = Path(rcpstab.__file__).resolve().parent  # the package this process imports (installed or source)
    allowed = {p.resolve() for p in MODEL_SOURCES} | {package / "__init__.py", package / "runtime" / "__init__.py"}
    # the same package as this process (cwd = tests: a clean clone's root is an unbuilt source tree)
    out = subprocess.run(
        [sys.executable, "-c", FORK_PER_MODEL, json.dumps(list(MODELS._modules.values()))],
        cwd=TESTS,
        capture_output=True,
        text=True,
        check=True,
    )
    found = dict(json.loads(line) for line in out.stdout.splitlines())
    assert sorted(found) == sorted(MODELS._modules.values())
    for name, module in MODELS._modules.items():
        loaded = {Path(f).resolve() for f in found[module]}
        assert loaded <= allowed, (name, loaded - allowed)


# The rcpstab modules importing each model module loads, each in a fresh fork of one process that has
# imported no rcpstab module, only the third-party packages every model needs (the ~0.9 s of SymPy's import
# once instead of once per model: 7.1 -> 2.0 s CPU); rcpstab's imports do not depend on which are loaded.
FORK_PER_MODEL = """
import importlib, json, os, sys
import numpy, sympy
assert not any(k.startswith("rcpstab") for k in sys.modules)
for module in json.loads(sys.argv[1]):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:  # the child never returns to the loop
        try:
            importlib.import_module("rcpstab.models." + module)
            files = [m.__file__ for k, m in sys.modules.items() if k.startswith("rcpstab")]
            print(json.dumps([module, files]), flush=True)
        except BaseException as exc:
            print(repr(exc), file=sys.stderr, flush=True)
            os._exit(1)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0, module
"""


def test_a_bundled_model_becomes_the_modules_spec_on_first_use():
    from rcpstab.models import rcpac
    from rcpstab.models.spec import ModelSpec

    model = get_model("rcpac")
    assert model.name == "rcpac"
    assert str(model.loop_parameters) == "(alpha, beta)"  # built from here on
    assert type(model) is ModelSpec and not isinstance(model, BundledModel)
    assert rcpac.MODEL is model and get_model("rcpac") is model
    assert pickle.loads(pickle.dumps(model)).rhs == model.rhs
    assert get_model(model) is model


def test_the_cached_root_matrices_compute_what_lambdify_computes_to_the_bit():
    import sympy as sp

    from rcpstab.linear.linearization import linearize
    from rcpstab.linear.roots import _matrix_sources
    from rcpstab.runtime.lambdified import compile_lambdified

    rng = np.random.default_rng(26)
    for name in ("rcp", "xcp", "rcpac", "rcp-router", "switched"):
        model = get_model(name)
        sources = _matrix_sources(model)
        system = linearize(model)
        alpha, beta = model.loop_parameters
        d0 = model.time_scale
        others = {k: v for k, v in model.parameters.items() if k not in (alpha, beta)}
        direct = [sp.lambdify((alpha, beta), (A * d0).subs(others), modules=np) for A in (system.A0, *system.delayed.values())]
        compiled = [compile_lambdified(text) for text in (sources["A0"], *(text for _, text in sources["delayed"]))]
        assert [theta for theta, _ in sources["delayed"]] == [float((tau / d0).subs(others)) for tau in system.delayed]
        for a, b in rng.uniform(0.001, 3.0, size=(20, 2)):
            for f, g in zip(direct, compiled):
                assert np.array_equal(np.asarray(f(a, b), float), np.asarray(g(a, b), float)), name


def test_a_cached_portrait_generates_no_code_and_writes_what_deriving_wrote(runs):
    # the phase-plane model's lambdify sources and the kernel's C source come from the derivation cache
    root, ((_, derived, printed), (_, cached, printed_again)) = runs[tuple(PORTRAIT)]
    assert derived["lambdify"] > 10 and derived["c_printer"] > 0  # an empty cache: SymPy generated the code
    assert cached == {"lambdify": 0, "c_printer": 0}
    assert printed_again == printed
    for name in ("p.csv", "p.png"):
        assert (root / "first" / name).read_bytes() == (root / "second" / name).read_bytes(), name


def test_the_cached_phaseplane_functions_compute_what_lambdify_computes_to_the_bit():
    import sympy as sp

    from rcpstab.models.spec import t
    from rcpstab.phaseplane.compiled import compile_model

    rng = np.random.default_rng(261)
    for name in ("rcp", "xcp", "rcpac", "rcp-router", "switched", "linear"):
        spec = get_model(name)
        compiled = compile_model(spec)  # from the derivation cache once derived
        params = tuple(spec.parameters)
        current = spec.current_symbols
        delayed = tuple(term.symbol for term in spec.delayed_terms)
        subs = {s(t): sym for s, sym in zip(spec.states, current)}
        n, p = len(current), len(params)
        pairs = [
            (sp.lambdify((*current, *delayed, *params), e, modules="numpy", cse=True), f, n + len(delayed) + p)
            for e, f in zip(spec.plain_rhs(), compiled.rhs)
        ]
        pairs += [
            (sp.lambdify(params, term.delay, modules="numpy"), d.delay, p)
            for term, d in zip(spec.delayed_terms, compiled.delayed)
        ]
        pairs += [
            (sp.lambdify((*current, *params), sp.sympify(e).xreplace(subs), modules="numpy"), f, n + p)
            for e, f in [
                (spec.gamma, compiled.gamma),
                (spec.queue, compiled.queue),
                *zip((spec.equilibrium[s] for s in spec.states), compiled.equilibrium),
            ]
        ]
        pairs.append((sp.lambdify(params, spec.time_scale, modules="numpy"), compiled.time_scale, p))
        if spec.queue_scale is not None:
            pairs.append((sp.lambdify(params, spec.queue_scale, modules="numpy"), compiled.queue_scale, p))
        for direct, cached_function, arity in pairs:
            for args in rng.uniform(0.01, 3.0, size=(5, arity)):
                expected = np.asarray(direct(*args), dtype=float)
                got = np.asarray(cached_function(*args), dtype=float)
                assert np.array_equal(expected, got, equal_nan=True), name


def test_the_parameter_table_reads_the_spec_and_a_bundled_model_serves_it_unbuilt(tmp_path, monkeypatch):
    from rcpstab.models.table import ParameterTable

    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    spec = get_model("rcpac")
    table = spec.parameter_table
    # by name what the spec answers by symbol
    assert table.names == tuple(sym.name for sym in spec.parameters)
    assert table.loop == ("alpha", "beta") and table.own("d0") == "d_0" and table.own("nope") is None
    assert table.public_name("d_0") == spec.public_name(spec.parameter("d0")) == "d0"
    assert table.domain("T").violation(np.array([-1.0]), "T") == spec.domain(spec.parameter("T")).violation(np.array([-1.0]), "T")
    assert table.states == ("R", "y", "q", "dropped")
    lazy = BundledModel("rcpac", "rcpstab.models.rcpac")
    assert lazy.parameter_table == ParameterTable.of(spec)  # derived once: the model is built
    again = BundledModel("rcpac", "rcpstab.models.rcpac")
    assert again.parameter_table == table and type(again) is BundledModel  # read from the cache, not built
    assert table.flows == spec.flow_parameter() == spec.flows.name == "N"
    assert again.flow_parameter() == "N" and type(again) is BundledModel

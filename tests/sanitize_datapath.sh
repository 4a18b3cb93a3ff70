#!/usr/bin/env bash
# Build both C extensions (rcpstab.packet._datapath and rcpstab.fct._flows) with
# AddressSanitizer + UndefinedBehaviorSanitizer in
# a temporary copy of the repository and run the data-path and simulator tests (including the
# fuzz tests) against that build. The normal build in the working tree is not touched.
# tests/test_reliability_cext.py walks every C entry point (all methods of Datapath, XcpDatapath
# and Simulator, their constructors, receiver_echo, xcp_receiver_echo) with hostile arguments,
# the constructors' list and parameter paths (out-of-range integers, lists for tuples, a path
# whose len() lies), the twins at and beyond every bound of the one integer table
# (runtime/validation.SIMULATOR_INTEGERS, read through rcpstab/csrc/domains.h), concurrent use of a
# running Simulator from a second thread and two threads calling random entry points of one Simulator.
# tests/test_reliability_flows.py does the same for the flow simulator: every entry point with the
# values at and beyond each bound of the one integer table, empty and unaligned buffers, and two
# threads calling random entry points of one FlowSimulator (RCPSTAB_HAMMER_S seconds).
# The native control paths' twin tests (tests/test_network_native_control.py, tests/test_fct_native_control.py)
# run against the same build.
# tests/test_reliability_flows.py::test_sanitizer_run runs this script (a slow test).
# Usage: tests/sanitize_datapath.sh [extra pytest args]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/rcpstab" "$repo/tests" "$repo/setup.py" "$repo/pyproject.toml" "$work/"
find "$work/rcpstab" -name '*.so' -delete
cd "$work"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
CFLAGS="$san" LDFLAGS="$san" python setup.py -q build_ext --inplace 2>/dev/null
# Refuse to report success for a build that is not instrumented.
for so in rcpstab/packet/_datapath*.so rcpstab/fct/_flows*.so; do
    # nm's output read whole first: grep -q closing the pipe early made nm die of SIGPIPE, which pipefail reported
    syms=$(nm -D "$so")
    grep -q __asan_report_load <<<"$syms" && grep -q __ubsan_handle <<<"$syms" || { echo "not instrumented: $so"; exit 1; }
done
# The interpreter is not built with ASan, so the runtime must be loaded first.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
# CPython keeps its allocations at exit; leak reports would be about the interpreter, not us.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
# Python's own small-object allocator hands out arenas ASan cannot see: a C read past a 10-byte packet
# (a bytes object's buffer) went unreported. With the system malloc every Python object is ASan's.
export PYTHONMALLOC=${PYTHONMALLOC:-malloc}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH="$work"
python - <<PY
import rcpstab.packet._datapath as d
from rcpstab.fct import _flows as f  # rcpstab.fct is also the API function: read the package
for m in (d, f):
    assert m.__file__.startswith("$work"), m.__file__
    print("sanitized build:", m.__file__)
PY
export RCPSTAB_HAMMER_S=${RCPSTAB_HAMMER_S:-5}
# The property tests at an eighth of their examples (tests/conftest.py examples()): enough to reach every
# C path under the sanitizers (a bug planted in a fuzzed path is still caught); the uninstrumented suite
# runs them at full count.
export RCPSTAB_EXAMPLES_DIVISOR=${RCPSTAB_EXAMPLES_DIVISOR:-8}
python -m pytest -q -p no:cacheprovider -m "not slow" tests/test_reference_datapath.py tests/test_reference_sim.py \
    tests/test_reference_xcp.py tests/test_reference_rcpac.py tests/test_reliability_cext.py \
    tests/test_reliability_flows.py tests/test_fct_rate_refresh.py tests/test_network_native_control.py \
    tests/test_fct_native_control.py "$@"

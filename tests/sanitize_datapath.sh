#!/usr/bin/env bash
# Build rcpstab.packet._datapath with AddressSanitizer + UndefinedBehaviorSanitizer in
# a temporary copy of the repository and run the data-path and simulator tests (including the
# fuzz tests) against that build. The normal build in the working tree is not touched.
# tests/test_reliability_cext.py walks every C entry point (all methods of Datapath, XcpDatapath
# and Simulator, their constructors, receiver_echo, xcp_receiver_echo) with hostile arguments,
# the constructors' list and parameter paths (out-of-range integers, lists for tuples, a path
# whose len() lies) and concurrent use of a running Simulator from a second thread.
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
so=$(ls rcpstab/packet/_datapath*.so)
# Refuse to report success for a build that is not instrumented.
nm -D "$so" | grep -q __asan_report_load && nm -D "$so" | grep -q __ubsan_handle || { echo "not instrumented: $so"; exit 1; }
# The interpreter is not built with ASan, so the runtime must be loaded first.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
# CPython keeps its allocations at exit; leak reports would be about the interpreter, not us.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH="$work"
python - <<PY
import rcpstab.packet._datapath as d
assert d.__file__.startswith("$work"), d.__file__
print("sanitized build:", d.__file__)
PY
python -m pytest -q -p no:cacheprovider tests/test_reference_datapath.py tests/test_reference_sim.py \
    tests/test_reference_xcp.py tests/test_reference_rcpac.py tests/test_reliability_cext.py "$@"

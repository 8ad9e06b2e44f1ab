#!/usr/bin/env bash
# make bench / make bench-quick: every workload of BENCH.md that exists,
# each starting its own server, writing CSV and PNG to bench/results/.
#   bench/run.sh [--quick]      BENCH_PG=15|18 picks the server (default 15)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
bash "$root/scripts/deps.sh"
bash "$root/scripts/build.sh" "${BENCH_PG:-15}"
export PYTHONPATH="${QS_PYLIB:-/opt/quickstep/pylib}"
# Each workload brings its own runner: bench/<workload>/run.sh [--quick]
# A workload that fails is reported and the others still run.
failed=()
for r in "$here"/*/run.sh; do
	[ -f "$r" ] || continue
	w=$(basename "$(dirname "$r")")
	echo "== $w =="
	bash "$r" "$@" || failed+=("$w")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench: failed workloads: ${failed[*]}" >&2
	exit 1
fi

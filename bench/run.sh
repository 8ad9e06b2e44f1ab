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
for r in "$here"/*/run.sh; do
	[ -f "$r" ] || continue
	echo "== $(basename "$(dirname "$r")") =="
	bash "$r" "$@"
done

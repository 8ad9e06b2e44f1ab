#!/bin/sh
# Build and run the codec micro-benchmarks; write CSV and PNG to bench/results/.
#
#   bench/codec/run.sh           full run (predicates on 64M codes, merge with
#                                10M main rows and 1M/3M delta rows), ~10 min
#   bench/codec/run.sh --quick   16M codes, 1M main rows, 100K/300K delta, ~1 min
#   extra: --reps N (default 5), --out DIR (default bench/results)
#
# Run from the repository root or anywhere; paths are relative to the repo.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=bench/results
args=""
while [ $# -gt 0 ]; do
	case "$1" in
		--out) out="$2"; shift 2 ;;
		--reps) args="$args --reps $2"; shift 2 ;;
		--quick) args="$args --quick"; shift ;;
		*) echo "usage: $0 [--quick] [--reps N] [--out DIR]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" build

# Same optimization level as the extension build (PGXS uses -O2); the BMI2
# predicate path is chosen at run time, so no -march flag is needed.
gcc -std=gnu99 -O2 -g -Wall -Wno-unused-parameter -Iinclude \
	-o build/bench_codec bench/codec/bench_codec.c src/codec/*.c -llz4 -lm

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cpus" >&2
echo "== predicates" >&2
build/bench_codec pred $args > "$out/codec_pred.tmp" && mv "$out/codec_pred.tmp" "$out/codec_pred.csv"
echo "== merge" >&2
build/bench_codec merge $args > "$out/codec_merge.tmp" && mv "$out/codec_merge.tmp" "$out/codec_merge.csv"
echo "== compressed size (W1 Narrow-E)" >&2
build/bench_codec size $args > "$out/codec_size.tmp" && mv "$out/codec_size.tmp" "$out/codec_size.csv"

echo "== plots" >&2
PYTHONPATH=/opt/quickstep/pylib MPLBACKEND=Agg python3 bench/codec/plot.py "$out"
ls -l "$out"/codec_* >&2

#!/usr/bin/env bash
# W2: pgbench TPC-B and select-only, heap vs each quickstep table AM.
exec python3 "$(dirname "$0")/w2.py" "$@"

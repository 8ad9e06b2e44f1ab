#!/usr/bin/env bash
# W3: TPC-H-like lineitem, Q1 and Q6, heap vs each quickstep table AM (+ W7 sizes).
exec python3 "$(dirname "$0")/w3.py" "$@"

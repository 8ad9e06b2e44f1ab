#!/usr/bin/env bash
# W1: the selection grid on Narrow-U.
exec python3 "$(dirname "$0")/w1.py" "$@"

#!/usr/bin/env bash
# W7: size of every W1/W3 table per layout, ratios to heap, issue 12's targets.
exec python3 "$(dirname "$0")/w7.py" "$@"

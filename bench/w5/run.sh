#!/usr/bin/env bash
# W5 (issue 14): the merge's cost per row through SQL (cost.py), then
# sustained writes with the merge worker, heap vs column (w5.py).
set -e
python3 "$(dirname "$0")/cost.py" "$@"
python3 "$(dirname "$0")/w5.py" "$@"

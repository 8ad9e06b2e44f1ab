#!/usr/bin/env bash
# Bulk load into column tables (issue 12): COPY of W1 Narrow-U into main
# blocks against heap's COPY of the same file, and the sizes.
exec python3 "$(dirname "$0")/load.py" "$@"

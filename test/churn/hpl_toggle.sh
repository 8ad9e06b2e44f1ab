#!/usr/bin/env bash
# The concurrent shape of issue 11, by hand (not part of make test):
# CLIENTS pgbench clients toggle a text column between NULL and a
# compressed 4 kB value derived from the row's id (beside a short text
# column, so that values of both alignments share a page), while one client loops
# VACUUM and another quickstep.check_table and a check that every value is
# its own row's.  Any corrupt page or value found in another row fails.
#
#   test/churn/hpl_toggle.sh [SECONDS] [AM] [CLIENTS]
#
# Connection from PGHOST/PGPORT/PGUSER; pgbench from PGBIN (default: the
# directory of psql on PATH).
set -euo pipefail
secs=${1:-60}
am=${2:-quickstep_hpl}
clients=${3:-5}
rows=${ROWS:-200}
pgbench=${PGBIN:+$PGBIN/}pgbench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS toggle_t;
CREATE TABLE toggle_t (id int, s text, v text, w int) USING $am;
CREATE OR REPLACE FUNCTION toggle_v(id int) RETURNS text LANGUAGE sql IMMUTABLE AS
  \$\$ SELECT repeat(lpad(id::text, 8, '0') || ':', 455) \$\$;
CREATE OR REPLACE FUNCTION toggle_s(id int) RETURNS text LANGUAGE sql IMMUTABLE AS
  \$\$ SELECT left(md5(id::text), id % 13) \$\$;
INSERT INTO toggle_t SELECT g, toggle_s(g), CASE WHEN g % 2 = 0 THEN toggle_v(g) END, g FROM generate_series(1, $rows) g;
CREATE INDEX ON toggle_t (id);
SQL

cat >"$dir/toggle.sql" <<SQL
\set id random(1, $rows)
UPDATE toggle_t SET v = CASE WHEN v IS NULL THEN toggle_v(id) END, w = w + 1 WHERE id = :id;
SQL
cat >"$dir/vacuum.sql" <<'SQL'
VACUUM toggle_t;
SQL
cat >"$dir/check.sql" <<SQL
SELECT quickstep.check_table('toggle_t');
SELECT 1 / (count(*) = 0)::int FROM toggle_t WHERE (v IS NOT NULL AND v <> toggle_v(id)) OR s <> toggle_s(id);
SELECT 1 / (count(*) = $rows)::int FROM toggle_t;
SQL

"$pgbench" -n -c "$clients" -j 2 -T "$secs" -f "$dir/toggle.sql" >"$dir/toggle.log" 2>&1 &
p1=$!
"$pgbench" -n -c 1 -T "$secs" -f "$dir/vacuum.sql" >"$dir/vacuum.log" 2>&1 &
p2=$!
"$pgbench" -n -c 1 -T "$secs" -f "$dir/check.sql" >"$dir/check.log" 2>&1 &
p3=$!
rc=0
for p in $p1 $p2 $p3; do wait "$p" || rc=1; done
psql -At -c "SELECT quickstep.check_table('toggle_t')" >/dev/null || rc=1
bad=$(psql -At -c "SELECT count(*) FROM toggle_t WHERE (v IS NOT NULL AND v <> toggle_v(id)) OR s <> toggle_s(id)") || rc=1
n=$(psql -At -c "SELECT count(*) FROM toggle_t") || rc=1
grep -h -E "ERROR|abort|FATAL" "$dir"/*.log | sort | uniq -c | head -20 || true
echo "toggles: $(grep -h 'number of transactions actually processed' "$dir/toggle.log" | sed 's/.*: //'), checks: $(grep -h 'number of transactions actually processed' "$dir/check.log" | sed 's/.*: //'), vacuums: $(grep -h 'number of transactions actually processed' "$dir/vacuum.log" | sed 's/.*: //')"
echo "rows $n (want $rows), values in the wrong row: $bad"
if [ "$rc" -ne 0 ] || [ "$bad" != 0 ] || [ "$n" != "$rows" ]; then
	echo "FAILED on $am"
	exit 1
fi
echo "ok on $am, $secs s"

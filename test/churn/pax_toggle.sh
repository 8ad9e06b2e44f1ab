#!/usr/bin/env bash
# Reproduction of issue 11's concurrent scenario (run by hand):
#   test/churn/pax_toggle.sh [SECONDS] [AM] [CLIENTS] [ROWS]
#                                       (default 60 quickstep_pax 5 40)
# CLIENTS pgbench clients toggle a text column between NULL and a value of
# its id: a 4 kB one (compressible: stored compressed inline, int-aligned;
# or not: an 18-byte TOAST pointer, unaligned) or a 1-21-byte one (1-byte
# header, unaligned); one more client updates an int column; a few pages
# only, so that scans prune them all the time; while a loop runs VACUUM and
# quickstep.check_table and compares every row with what its id allows.
# pgbench's choices come from a fixed seed (the interleaving does not).
# Fails (exit 1) on any error in any client or a row with a wrong value.
# Connection: PGHOST/PGPORT/PGUSER/PGDATABASE as for psql.
set -uo pipefail
secs=${1:-60}
am=${2:-quickstep_pax}
clients=${3:-5}
rows=${4:-40}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"

psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS churn_t;
CREATE TABLE churn_t (id int PRIMARY KEY, v text, j jsonb, w int) USING $am;
CREATE OR REPLACE FUNCTION churn_val(i int) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$
  SELECT CASE i % 3
    WHEN 0 THEN (SELECT string_agg(md5(i::text || '.' || g), '') FROM generate_series(1, 128) g)
    WHEN 1 THEN repeat(md5(i::text), 128)
    ELSE substr(md5(i::text), 1, 1 + i % 21) END \$\$;
INSERT INTO churn_t SELECT g, CASE WHEN g % 2 = 0 THEN churn_val(g) END,
  jsonb_build_object('id', g, 'pad', repeat('j', g % 13)), g FROM generate_series(1, $rows) g;
SQL

cat > "$dir/toggle.sql" <<'SQL'
\set id random(1, ROWS)
UPDATE churn_t SET v = CASE WHEN v IS NULL THEN churn_val(id) END WHERE id = :id;
SQL
cat > "$dir/bump.sql" <<'SQL'
\set id random(1, ROWS)
UPDATE churn_t SET w = w + 1000 WHERE id = :id;
SQL
cat > "$dir/check.sql" <<'SQL'
VACUUM churn_t;
SELECT quickstep.check_table('churn_t');
SELECT count(*) FROM churn_t;
SELECT 1 / (1 - least(count(*), 1))::int AS wrong_rows FROM churn_t
 WHERE (v IS NOT NULL AND v <> churn_val(id))
    OR j IS DISTINCT FROM jsonb_build_object('id', id, 'pad', repeat('j', id % 13))
    OR w IS NULL OR w % 1000 <> id % 1000;
SQL

sed -i "s/ROWS/$rows/" "$dir/toggle.sql" "$dir/bump.sql"
pgbench -n -T "$secs" -c "$clients" -j 2 --random-seed=11 -f "$dir/toggle.sql" >"$dir/toggle.log" 2>&1 &
p1=$!
pgbench -n -T "$secs" -c 1 --random-seed=12 -f "$dir/bump.sql" >"$dir/bump.log" 2>&1 &
p2=$!
pgbench -n -T "$secs" -c 1 -f "$dir/check.sql" >"$dir/check.log" 2>&1 &
p3=$!
rc=0
wait $p1 || rc=1
wait $p2 || rc=1
wait $p3 || rc=1
for f in toggle bump check; do
	grep -E "number of transactions actually processed|number of failed" "$dir/$f.log" | sed "s/^/$f: /"
	grep -iE "error|fatal|terminated|abort" "$dir/$f.log" | sort | uniq -c | head -5 | sed "s/^/$f: /"
done
psql -X -q -c "SELECT quickstep.check_table('churn_t') AS records" -c "VACUUM churn_t" -c "SELECT quickstep.check_table('churn_t') AS records_after_vacuum" || rc=1
[ $rc -eq 0 ] && echo "pax_toggle: ok ($secs s, $am)" || echo "pax_toggle: FAILED"
exit $rc

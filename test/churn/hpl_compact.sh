#!/usr/bin/env bash
# The deterministic compaction churn of issue 11, by hand (not part of make
# test): a table (id int, v text[, w int]) whose v mixes NULLs, short
# values (1-byte varlena header, unaligned) and 150-250-byte ones (4-byte
# header, int-aligned); per round: DELETE ~30 %, VACUUM, INSERT 50 rows,
# DELETE ~10 % of the NULL rows, VACUUM, quickstep.check_table, and a
# comparison of every row with a heap twin that gets the same statements.
#
#   test/churn/hpl_compact.sh [ROUNDS] [AM] [now]
#
# Connection from PGHOST/PGPORT/PGUSER (an ad hoc cluster: scripts/cluster.sh).
# 'now' drops the w column (the shape that crashed VACUUM).  ROWS (initial
# rows, default 2000) and INSERTS (rows per round, default 50) scale it: the
# table settles near INSERTS / 0.3 rows.  Exits non-zero at the first
# corrupt page or differing row.
set -euo pipefail
rounds=${1:-1000}
am=${2:-quickstep_hpl}
shape=${3:-w}
rows=${ROWS:-2000}
ins=${INSERTS:-50}
cols="id int, v text, w int"
[ "$shape" = now ] && cols="id int, v text"
wexpr=", g % 97"
[ "$shape" = now ] && wexpr=""

psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS churn_t, churn_h;
CREATE TABLE churn_t ($cols) USING $am;
CREATE TABLE churn_h ($cols) USING heap;
ALTER TABLE churn_t ALTER v SET STORAGE main;
ALTER TABLE churn_h ALTER v SET STORAGE main;
CREATE OR REPLACE FUNCTION churn_v(g int) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$
  SELECT CASE WHEN g % 3 = 0 THEN NULL
              WHEN g % 3 = 1 THEN left(md5(g::text), 1 + g % 21)
              ELSE left(repeat(md5(g::text), 8), 150 + g % 101) END
\$\$;
INSERT INTO churn_t SELECT g, churn_v(g) $wexpr FROM generate_series(1, $rows) g;
INSERT INTO churn_h SELECT * FROM churn_t;
SQL

start=$(date +%s)
for r in $(seq 1 "$rounds"); do
	seed=$(( (r * 7919) % 100000 ))
	out=$(psql -At <<SQL 2>&1
SET client_min_messages = warning;
DELETE FROM churn_t WHERE hashint4(id # $seed) % 10 < 3;
DELETE FROM churn_h WHERE hashint4(id # $seed) % 10 < 3;
VACUUM churn_t;
INSERT INTO churn_t SELECT g, churn_v(g) $wexpr FROM generate_series($((rows + r * ins - ins + 1)), $((rows + r * ins))) g;
INSERT INTO churn_h SELECT g, churn_v(g) $wexpr FROM generate_series($((rows + r * ins - ins + 1)), $((rows + r * ins))) g;
DELETE FROM churn_t WHERE v IS NULL AND hashint4(id # $seed # 77) % 10 = 0;
DELETE FROM churn_h WHERE v IS NULL AND hashint4(id # $seed # 77) % 10 = 0;
VACUUM churn_t;
SELECT quickstep.check_table('churn_t');
SELECT count(*) FROM (
  (SELECT * FROM churn_t EXCEPT ALL SELECT * FROM churn_h)
  UNION ALL
  (SELECT * FROM churn_h EXCEPT ALL SELECT * FROM churn_t)) d;
SQL
) || { echo "round $r: $out"; exit 1; }
	diff=$(echo "$out" | tail -n1)
	if [ "$diff" != 0 ]; then
		echo "round $r: $diff rows differ from the heap twin"
		exit 1
	fi
	if [ $((r % 100)) -eq 0 ]; then
		echo "round $r ok ($(echo "$out" | head -n1) records, $(( $(date +%s) - start )) s)"
	fi
done
echo "$rounds rounds ok on $am ($shape), $(( $(date +%s) - start )) s"
